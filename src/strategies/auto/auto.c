/*
 * strategies/auto/auto.c -- strategy "auto", the default: collio chooses.
 * This file makes an auto plan; its calls are choose.c's, its model
 * model.c's, what it learns learn.c's, its costs autocal.c's.
 *
 * Inspector: every rank measures its part of the layout (bytes, pieces,
 * bytes outside its own file domain), rank 0 reads the calibration file
 * -- the entries that cover the plan's rank layout (autocal.c) --, and one
 * reduction gives every rank the statistics and rank 0's calibration
 * (inputs.c), so the choice is the same everywhere by construction --
 * whatever file (or none) each rank would have found. With auto.dir, the
 * choices for that file system are made here too (and its costs
 * measured, where no entry covers it); without, the write choice is made
 * here where every file system the calibration covers leads to the same
 * one (make_likely), so that as a rule the first write is the executor
 * alone -- and the read's too where its plan is the write's or a light
 * one. Without any entry and with measuring on, the first call measures
 * its file system and chooses from that: no plan is made here in vain.
 * The plan's stats give the choice and every candidate's predicted time
 * ("auto.*"), and the chosen strategy's own stats as a subgroup plan gives
 * its inner one's.
 */
#include "base/base.h"
#include "machine/machine.h"
#include "layouts/layouts.h"
#include "files/files.h"
#include "core/core.h"
#include "replicas/replicas.h"
#include "autocal.h"
#include "inputs.h"
#include "state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const collio__strategy collio__strategy_auto;

/* Local: this rank's part of the shape -- bytes, pieces (blocks of its
 * segments), bytes outside its own balanced file domain. */
static void local_shape(const collio_plan *p, double *bytes, double *pieces,
                        double *moved)
{
    const collio_layout *l = p->layout;
    int64_t lo = 0, hi = 0, inside = 0, np = 0;
    collio__domain_range(l->nglobal, p->nranks, p->rank, &lo, &hi);
    for (int64_t i = 0; i < l->nsegs; i++) {
        collio__seg part[3];
        int n = collio__seg_clip(&l->segs[i], lo, hi, part);
        inside += collio__segs_elements(part, n);
        np += l->segs[i].count;
    }
    *bytes = (double)l->nlocal * (double)l->esize;
    *pieces = (double)np;
    *moved = (double)(l->nlocal - inside) * (double)l->esize;
}

/* Local (the node map is the same everywhere): how many leading
 * hypercube phases j pair every rank r with r XOR 2^j on its own node. */
static int intra_phases(const collio_plan *p)
{
    int j = 0;
    for (; (1 << j) < p->nranks; j++)
        for (int r = 0; r < p->nranks; r++) {
            int q = r ^ (1 << j);
            if (q < p->nranks && p->node_of[q] != p->node_of[r])
                return j;
        }
    return j;
}

/* Local: the candidate that every file system a call of operation op
 * may meet -- each calibrated one, or without any a local and a networked
 * one at the built-in costs --
 * leads to; -1 where they differ (or auto.only names one that cannot
 * run, said at the first call). Keeps the predictions (the stats of the
 * call whose choice this makes). */
static int likely_pick(const collio_plan *p, auto_plan *ap, int op)
{
    int pick = -1;
    for (int k = FIRST_FS(ap); k < ap->calib.nfs; k++) {
        double t[AUTO_MAX_CAND], *kept = ap->predicted[op][KEY(k)];
        collio__auto_predict_for(ap, k, op, kept);
        memcpy(t, kept, sizeof t);
        if (collio__auto_keep_only(p, t) != 0)
            return -1;
        int i = collio__auto_pick(t);
        if (pick >= 0 && i != pick)
            return -1;
        pick = i;
    }
    return pick;
}

/* Collective, at plan creation without auto.dir: where every file system
 * a call may meet leads to the same candidate (likely_pick), its plan is
 * made now, so that the first call runs as the executor alone (the
 * file's own file system is still looked up then; one whose choice
 * differs has its plan made at its first call). The write's always: the
 * first call of a simulation's output plan is a write. The read's where
 * it is the write's plan, or a light one (the strategy's light_plan: list
 * I/O's sorted extents); another read plan made in vain would cost its
 * inspector's time and memory for nothing in a program that only writes,
 * so it waits for the first read. A candidate refused here (ARG, on
 * every rank) is left to the first call, which falls back to the next
 * one. Agreed code. */
static int make_likely(collio_plan *p, auto_plan *ap)
{
    for (int op = 0; op < 2; op++) {
        int pick = likely_pick(p, ap, op); /* (the same on every rank) */
        if (pick < 0 || ap->refused[pick])
            continue;
        if (op == 1 && ap->inner[pick] == NULL
            && !collio__auto_cand_strategy(pick)->light_plan)
            continue;
        int rc =
            ap->inner[pick] != NULL ? COLLIO_OK : collio__auto_make_inner(p, ap, pick);
        if (rc == COLLIO_ERR_ARG) {
            ap->refused[pick] = 1;
            collio__error_begin();
            continue;
        }
        if (rc != COLLIO_OK)
            return rc;
        for (int k = FIRST_FS(ap); k < ap->calib.nfs; k++)
            ap->choice[op][KEY(k)] = pick;
    }
    return COLLIO_OK;
}

/* Local (from reduced inputs): what each candidate's strategy's table
 * says of its execution for this layout (its hook profile: multiphase's
 * synchronised rounds and copies through the node's shared window), from
 * the mean block in bytes (elements over blocks, summed over the ranks);
 * nothing where the calibration found no shared window (what profiles
 * describe needs it) or the strategy has no such hook. */
static void profiles(const collio_plan *p, const collio__auto_inputs *in,
                     collio__exec_profile prof[AUTO_MAX_CAND])
{
    memset(prof, 0, AUTO_MAX_CAND * sizeof *prof);
    if (in->pieces_total <= 0 || !in->calib.shm_window)
        return;
    int64_t mean =
        (int64_t)(in->elements_total / in->pieces_total) * (int64_t)p->layout->esize;
    for (int i = 0; i < collio__auto_ncand(); i++) {
        const collio__strategy *s = collio__auto_cand_strategy(i);
        int j = 0; /* (one call per strategy: its first candidate's) */
        while (j < i && collio__auto_cand_strategy(j) != s)
            j++;
        if (j < i)
            prof[i] = prof[j];
        else if (s->profile != NULL)
            s->profile(p->layout->nglobal, p->nranks, mean, p->stats.nnodes <= 1,
                       &prof[i]);
    }
}

static int auto_plan_create(collio_plan *p)
{
    auto_plan *ap = calloc(1, sizeof *ap);
    int rc = ap != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM;
    p->impl = ap;
    static collio__auto_inputs in; /* (large: the calibration) */
    memset(&in, 0, sizeof in);
    if (ap != NULL) {
        memset(ap->choice, -1, sizeof ap->choice);
        local_shape(p, &in.bytes, &in.pieces, &in.moved);
        in.repl = collio__repl_work_of(p);
        in.pieces_total = in.pieces;
        in.elements_total = (double)p->layout->nlocal;
        for (int q = 0; q < p->nranks; q++)
            in.node_ranks += p->node_of[q] == p->node_of[p->rank];
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        in.cores = (double)(cores > 0 ? cores : 1);
    }
    /* the calibration: read by rank 0 only (collio__auto_share gives it
     * to every rank) */
    in.error = -1;
    in.dir_entry = NO_DIR;
    int rpn = 0; /* the fullest node's ranks (the node map is everywhere) */
    for (int q = 0; q < p->nranks; q++) {
        int n = 0;
        for (int r = 0; r < p->nranks; r++)
            n += p->node_of[r] == p->node_of[q];
        rpn = n > rpn ? n : rpn;
    }
    const int use = (int)collio__opt(p, OPT_USE_CALIBRATION);
    if (use && p->rank == 0)
        in.error = collio__auto_load(&in.calib, p->nranks, rpn, in.measured);
    else
        collio_calibration_defaults(&in.calib);
    in.autocal = use && collio__opt(p, OPT_CALIBRATE) && collio__auto_calibrate_env();
    const char *dir = collio__opt_str(p, OPT_DIR);
    if (dir != NULL && p->rank == 0) {
        collio_fs_id id;
        collio_fs_identify(dir, &id); /* (a path not made yet: its parent's) */
        in.dir_entry = collio_fs_is_networked(&id) ? FS_NETWORKED : FS_LOCAL;
        for (int k = 0; k < in.calib.nfs; k++)
            if (collio__fs_key(&in.calib.fs[k].id) == collio__fs_key(&id))
                in.dir_entry = k; /* (covering entries only: collio__auto_load) */
    }
    /* one reduction, taken by every rank even after a local failure,
     * which it tells every rank (in.code): only then the agreement on
     * which rank failed and why */
    in.code = rc;
    if (collio__auto_share(p, &in) != COLLIO_OK)
        rc = COLLIO_ERR_MPI; /* (MPI itself broken: no agreement possible) */
    else if (in.code != COLLIO_OK)
        rc = collio__agree(p->comm, rc);
    /* no calibration file gave the network: across nodes the link and a
     * memory copy are measured (once per process, machine/link_probe.c),
     * rank 0's figures on every rank (rc, the file's absence and the node
     * count are the same everywhere) */
    if (rc == COLLIO_OK && !in.calib.from_file && p->stats.nnodes > 1) {
        double net = 0, mem = 0;
        rc = collio__link_probe(p, &net, &mem);
        if (rc == COLLIO_OK && net > 0)
            in.calib.bandwidth_Bps[1] = net;
        if (rc == COLLIO_OK && mem > 0)
            in.calib.copy_Bps = mem;
    }
    if (ap != NULL) {
        collio__cost_shape *s = &ap->shape;
        s->nranks = p->nranks;
        s->nnodes = p->stats.nnodes;
        s->ranks_per_node = (int)in.node_ranks;
        s->cores_per_node = (int)in.cores;
        s->bytes_total = (double)p->layout->nglobal * (double)p->layout->esize;
        s->bytes_max = in.bytes;
        s->pieces_max = in.pieces;
        s->moved_max = in.moved;
        s->pieces_total = in.pieces_total;
        s->adjoin = p->layout->kind == COLLIO__LAYOUT_BLOCK_CYCLIC;
        s->intra_phases = intra_phases(p);
        profiles(p, &in, ap->profiles);
        s->profiles = ap->profiles;
        s->repl_runs = in.repl.runs;
        s->fill_elements = in.repl.fill_elements;
        s->fill_bytes = in.repl.fill_bytes;
        s->fill_sent = in.repl.fill_sent;
        s->fill_peers = in.repl.fill_peers;
        ap->calib = in.calib;
        memcpy(ap->fs_key, in.fs_key, sizeof ap->fs_key);
        memcpy(ap->measured, in.measured, sizeof ap->measured);
        ap->autocal = in.autocal;
        /* auto.only runs one candidate: nothing to learn */
        ap->learn = collio__opt(p, OPT_LEARN) && collio__opt(p, OPT_ONLY) == 0;
        ap->last.cand = -1;
        for (int op = 0; op < 2; op++)
            for (int key = 0; key < NKEYS; key++)
                collio__auto_learn_init(&ap->learned[op][key]);
    }
    collio__stat_set(p, ST_CALIBRATION_ERROR, in.error);
    collio__stat_set(p, ST_LINK_BPS, p->stats.nnodes > 1 ? in.calib.bandwidth_Bps[1] : 0);
    collio__stat_set(p, ST_WRITE_CHOICE, -1);
    collio__stat_set(p, ST_READ_CHOICE, -1);
    collio__stat_set(p, ST_SWITCH_FROM, -1);
    collio__stat_set(p, ST_SWITCH_TO, -1);
    p->stats.plan_bytes = (int64_t)sizeof *ap;
    /* auto.dir: the choices for its file system now, else the likely
     * write choice (collectively: rc and in.dir_entry are the same
     * everywhere) */
    for (int op = 0, k = in.dir_entry;
         rc == COLLIO_OK && in.dir_entry != NO_DIR && op < 2; op++)
        rc = collio__auto_choose(p, ap, &k, op, dir, 0);
    /* (without an entry the first call measures: nothing likely yet) */
    if (rc == COLLIO_OK && in.dir_entry == NO_DIR && !(ap->autocal && ap->calib.nfs == 0))
        rc = make_likely(p, ap);
    collio__stat_set(p, ST_MADE_S, 0.0);
    if (ap != NULL) /* (what auto.dir measured: plan creation's) */
        ap->calibrate_s = 0;
    return rc;
}

static int auto_write(collio_plan *p, collio_file *f, const char *stream)
{
    /* the inner plan writes from the stream; it may use it as scratch
     * space only where this plan may (p->scratch) */
    return collio__auto_exec(p, f, (char *)stream, 1);
}

static int auto_read(collio_plan *p, collio_file *f, char *stream)
{
    return collio__auto_exec(p, f, stream, 0);
}

static void auto_free(collio_plan *p)
{
    auto_plan *ap = p->impl;
    if (ap != NULL)
        for (int i = 0; i < AUTO_MAX_CAND; i++)
            collio_plan_free(&ap->inner[i]);
    free(ap);
    p->impl = NULL;
}

const collio__strategy collio__strategy_auto = {
    .section = {"auto", NULL, 0, NULL, 0}, /* (as made: sealed_section) */
    .sealed_section = collio__auto_section,
    .summary =
        "the default: chooses serial, independent, two_phase, multiphase (all "
        "phases or fewer) or subgroup (two_phase or list I/O among the masters) by "
        "a cost model of the layout and the machine (calibration)",
    .canonical = 1,
    .plan = auto_plan_create,
    .write = auto_write,
    .read = auto_read,
    .free = auto_free,
    .predict = collio__auto_predict_call,
    .prepare = collio__auto_prepare,
};
