/*
 * strategies/auto/auto.c -- strategy "auto", the default: collio chooses.
 *
 * Inspector: every rank measures its part of the layout (bytes, pieces,
 * bytes outside its own file domain), rank 0 reads the calibration file,
 * and one reduction gives every rank the statistics and rank 0's
 * calibration (inputs.c), so the choice is the same everywhere by
 * construction -- whatever file (or none) each rank would have found.
 * With auto.dir, the choices for that file system are made here too;
 * without, the write choice is where every file system the calibration
 * knows leads to the same one (make_likely), so that as a rule the first
 * write is the executor alone -- and the read's too where its plan is the
 * write's or a light one.
 *
 * Executor: the file's costs depend on the file system the file lives on,
 * which the plan learns at the first write or read of each file system
 * (rank 0 identifies it at open, collio_fs_identify, and broadcasts its
 * key; without a calibration entry its kind, local or networked, picks
 * the built-in file costs). The model
 * (model.c) predicts every candidate's time for that file system and
 * operation; the cheapest one's plan is made then (unless it was at
 * creation) -- an ordinary plan of
 * that strategy on the same layout, handed this plan's hints (and the
 * candidate's own, e.g. subgroup.group=4) -- and kept: later calls on the
 * same file system run it directly. The plan's stats give the choice and
 * every candidate's predicted time ("auto.*"), and the chosen strategy's
 * own stats as a subgroup plan gives its inner one's.
 */
#include "collio_internal.h"
#include "inputs.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file costs a call is priced with: calibration entry k >= 0, or for
 * a file system without one the built-in costs of a local or of a
 * networked one (collio_fs_is_networked); NO_DIR: no auto.dir given.
 * Choices are kept per (operation, KEY(k)). */
enum { FS_LOCAL = -1, FS_NETWORKED = -2, NO_DIR = -3 };
#define KEY(k) ((k) + 2)
enum { NKEYS = COLLIO_CALIBRATION_MAX_FS + 2 };
/* The first entry a plan may meet: the calibrated ones, or without any
 * both kinds of built-in costs. */
#define FIRST_FS(ap) ((ap)->calib.nfs > 0 ? 0 : FS_NETWORKED)

typedef struct auto_plan {
    collio__auto_shape shape;
    collio_calibration calib;
    int choice[2][NKEYS];           /* candidate, or -1 before the first call */
    collio_plan *inner[AUTO_NCAND]; /* made on first use */
    char refused[AUTO_NCAND];       /* its plan creation said ARG (everywhere) */
    double predicted[2][NKEYS][AUTO_NCAND];
    double made_s; /* choosing at calls (making plans there), in total */
    uint64_t fs_key[COLLIO_CALIBRATION_MAX_FS]; /* of calib.fs[k] (ids: rank 0's) */
} auto_plan;

enum { OPT_USE_CALIBRATION, OPT_DIR, OPT_ONLY };
static const collio__option auto_options[] = {
    [OPT_USE_CALIBRATION] =
        {"use_calibration", COLLIO__OPT_BOOL, 1, 0, 1, NULL, NULL,
         "read the calibration file (COLLIO_CALIBRATION, docs/auto.md); "
         "0: the built-in constants"},
    [OPT_DIR] = {"dir", COLLIO__OPT_PATH, 0, 0, 0, NULL, NULL,
                 "where the files will be (a directory or a file): the choice for "
                 "its file system is made at plan creation, not at the first call"},
    [OPT_ONLY] = {"only", COLLIO__OPT_NAME, 0, 0, AUTO_NCAND, collio__auto_only_names,
                  NULL,
                  "any: choose; a candidate (multiphase_k2, subgroup_g4_list, ...): run "
                  "that one, predicted all the same (ARG where it cannot run)"},
};

enum {
    ST_WRITE_CHOICE,
    ST_READ_CHOICE,
    ST_CALIBRATED,
    ST_NETWORKED,
    ST_CALIBRATION_ERROR,
    ST_LINK_BPS,
    ST_CHOOSE_S,
    ST_MADE_S,
    ST_PREDICTED /* then one per candidate, in the model's order */
};
static const collio__stat auto_stats[] = {
    [ST_WRITE_CHOICE] = {"write_choice", 0, 0,
                         "the candidate the last write ran (collio_auto_candidate_name; "
                         "-1: none yet)"},
    [ST_READ_CHOICE] = {"read_choice", 0, 0,
                        "the candidate the last read ran (-1: none yet)"},
    [ST_CALIBRATED] = {"calibrated", 0, 0,
                       "1: the last call's file system has costs from the calibration "
                       "file; 0: the built-in ones (auto.networked says which)"},
    [ST_NETWORKED] = {"networked", 0, 0,
                      "1: the last call's file system is a networked one "
                      "(collio_fs_is_networked: NFS, Lustre, GPFS, GlusterFS, ...), "
                      "priced, where it has no calibration entry, with the networked "
                      "built-in costs; 0: a local one"},
    [ST_CALIBRATION_ERROR] =
        {"calibration_error", 0, 0,
         "0: the calibration file was read; else why not (a "
         "collio_error code: IO missing, ARG corrupt); -1: not asked"},
    [ST_LINK_BPS] = {"link_Bps", 0, 0,
                     "the link between nodes the model prices, bytes/s: the "
                     "calibration file's, or without one measured at plan creation "
                     "(a 1 MiB ping-pong, once per process); 0: the plan's ranks share "
                     "one node"},
    [ST_CHOOSE_S] = {"choose_s", 1, 0,
                     "last call: looking up the file system's choice, and making it "
                     "where no call or the plan's creation made it before"},
    [ST_MADE_S] = {"made_s", 0, 0,
                   "choices made at calls (the first per file system and operation "
                   "not made at plan creation): wall time, this plan's total -- with "
                   "collio_plan_create's, what creating an auto plan cost"},
    [ST_PREDICTED +
        AUTO_SERIAL] = {"predicted_serial_s", 0, 0, "last call: serial's predicted time"},
    [ST_PREDICTED + AUTO_INDEPENDENT] = {"predicted_independent_s", 0, 0,
                                         "last call: independent's predicted time"},
    [ST_PREDICTED + AUTO_TWO_PHASE] = {"predicted_two_phase_s", 0, 0,
                                       "last call: two_phase's predicted time"},
    [ST_PREDICTED + AUTO_MULTIPHASE] = {"predicted_multiphase_s", 0, 0,
                                        "last call: multiphase's predicted time"},
    [ST_PREDICTED + AUTO_SUBGROUP_G2] = {"predicted_subgroup_g2_s", 0, 0,
                                         "last call: subgroup (g = 2)'s predicted time"},
    [ST_PREDICTED + AUTO_SUBGROUP_G4] = {"predicted_subgroup_g4_s", 0, 0,
                                         "last call: subgroup (g = 4)'s predicted time"},
    [ST_PREDICTED + AUTO_SUBGROUP_G8] = {"predicted_subgroup_g8_s", 0, 0,
                                         "last call: subgroup (g = 8)'s predicted time"},
    [ST_PREDICTED + AUTO_MULTIPHASE_K1] =
        {"predicted_multiphase_k1_s", 0, 0,
         "last call: multiphase (1 phase, then list I/O)'s predicted time"},
    [ST_PREDICTED + AUTO_MULTIPHASE_K2] =
        {"predicted_multiphase_k2_s", 0, 0,
         "last call: multiphase (2 phases, then list I/O)'s predicted time"},
    [ST_PREDICTED + AUTO_MULTIPHASE_K3] =
        {"predicted_multiphase_k3_s", 0, 0,
         "last call: multiphase (3 phases, then list I/O)'s predicted time"},
    [ST_PREDICTED + AUTO_SUBGROUP_G2_LIST] =
        {"predicted_subgroup_g2_list_s", 0, 0,
         "last call: subgroup (g = 2, masters by list I/O)'s predicted time"},
    [ST_PREDICTED + AUTO_SUBGROUP_G4_LIST] =
        {"predicted_subgroup_g4_list_s", 0, 0,
         "last call: subgroup (g = 4, masters by list I/O)'s predicted time"},
    [ST_PREDICTED + AUTO_SUBGROUP_G8_LIST] =
        {"predicted_subgroup_g8_list_s", 0, 0,
         "last call: subgroup (g = 8, masters by list I/O)'s predicted time"},
};
_Static_assert(sizeof auto_stats / sizeof auto_stats[0] == ST_PREDICTED + AUTO_NCAND,
               "a predicted-time stat per candidate");

extern const collio__strategy collio__strategy_auto;

const char *collio_auto_candidate_name(int i)
{
    return i >= 0 && i < AUTO_NCAND ? collio__auto_candidates[i].label : NULL;
}

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

/* Rank 0: the calibration file at the default path, read again only when
 * the path, its size or its modification time changed since the last
 * plan of this process (plans are made often; the file rarely changes).
 * Its code, as collio_calibration_load's. Not thread safe, as plan
 * creation is not. */
static int cached_load(collio_calibration *c)
{
    static char path[4096];
    static struct stat seen;
    static int have, code;
    static collio_calibration cache;
    char now[4096];
    struct stat st;
    int rc = collio_calibration_path(now, sizeof now);
    int exists = rc == COLLIO_OK && stat(now, &st) == 0;
    if (exists && have && strcmp(now, path) == 0 && st.st_size == seen.st_size
        && st.st_mtim.tv_sec == seen.st_mtim.tv_sec
        && st.st_mtim.tv_nsec == seen.st_mtim.tv_nsec && st.st_ino == seen.st_ino) {
        *c = cache;
        return code;
    }
    rc = rc == COLLIO_OK ? collio_calibration_load(now, c) : rc;
    if (rc != COLLIO_OK)
        collio_calibration_defaults(c);
    collio__error_begin(); /* advice, not an error of this plan */
    have = exists;         /* a missing file is looked for again next time */
    if (exists)
        seen = st;
    snprintf(path, sizeof path, "%s", now);
    cache = *c;
    code = rc;
    return rc;
}

static int make_inner(collio_plan *p, auto_plan *ap, int i);

/* Local: every candidate's predicted time for calibration entry k (or
 * FS_LOCAL, FS_NETWORKED: the built-in file costs) and operation op (0
 * write, 1 read). */
static void predict_for(const auto_plan *ap, int k, int op, double t[AUTO_NCAND])
{
    collio_fs_costs generic;
    collio__fs_costs_default(&generic, k == FS_NETWORKED);
    collio__auto_predict(&ap->shape, &ap->calib, k >= 0 ? &ap->calib.fs[k] : &generic,
                         op == 0, t);
}

/* Local: with auto.only, every other candidate's time made INFINITY; -1
 * where the one named cannot run (the same on every rank), else 0. */
static int keep_only(const collio_plan *p, double t[AUTO_NCAND])
{
    int only = (int)collio__opt(p, OPT_ONLY) - 1; /* -1: any */
    if (only < 0)
        return 0;
    if (isinf(t[only]))
        return -1;
    for (int i = 0; i < AUTO_NCAND; i++)
        if (i != only)
            t[i] = INFINITY;
    return 0;
}

/* Collective: the choice for calibration entry k (FS_LOCAL, FS_NETWORKED:
 * the built-in file costs) and operation op (0 write, 1 read): every candidate predicted,
 * the cheapest whose plan can be made made (unless made before) and kept.
 * Agreed code. */
static int choose(collio_plan *p, auto_plan *ap, int k, int op)
{
    int key = KEY(k), rc = COLLIO_OK;
    if (ap->choice[op][key] >= 0)
        return COLLIO_OK;
    double t[AUTO_NCAND];
    predict_for(ap, k, op, t);
    memcpy(ap->predicted[op][key], t, sizeof t);
    if (keep_only(p, t) != 0) { /* the same on every rank: the same inputs */
        int only = (int)collio__opt(p, OPT_ONLY) - 1;
        collio__error_set(COLLIO_ERR_ARG,
                          "auto.only=%s cannot run with %d ranks (a group or "
                          "phase count beyond what they allow)",
                          collio__auto_candidates[only].label, p->nranks);
        return COLLIO_ERR_ARG;
    }
    /* the cheapest candidate whose plan can be made: the plan's hints
     * may not suit a candidate (multiphase.exchange = direct with the
     * fewer phases of multiphase_k1), which its plan creation says (ARG,
     * on every rank) */
    do {
        int i = collio__auto_pick(t);
        if (ap->refused[i]) { /* (at plan creation, its message then cleared) */
            rc = COLLIO_ERR_ARG;
            collio__error_set(rc, "auto: %s's plan refused this plan's hints",
                              collio__auto_candidates[i].label);
        } else {
            rc = ap->inner[i] == NULL ? make_inner(p, ap, i) : COLLIO_OK;
        }
        if (rc == COLLIO_OK)
            ap->choice[op][key] = i;
        ap->refused[i] |= rc == COLLIO_ERR_ARG;
        t[i] = INFINITY;
    } while (rc == COLLIO_ERR_ARG && !isinf(t[collio__auto_pick(t)]));
    if (rc == COLLIO_OK)
        collio__error_begin(); /* a candidate refused is not this call's error */
    return rc;
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
        double t[AUTO_NCAND], *kept = ap->predicted[op][KEY(k)];
        predict_for(ap, k, op, kept);
        memcpy(t, kept, sizeof t);
        if (keep_only(p, t) != 0)
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
            && !collio__strategy_find(collio__auto_candidates[pick].strategy)->light_plan)
            continue;
        int rc = ap->inner[pick] != NULL ? COLLIO_OK : make_inner(p, ap, pick);
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

/* Local (from reduced inputs): what multiphase's table says of its
 * execution for this layout (profile: its synchronised rounds, its copies
 * through the node's shared window), from its mean block in bytes as
 * multiphase reckons it (elements over blocks, summed over the ranks);
 * nothing where the calibration found no shared window (both need it). */
static collio__exec_profile mp_profile(const collio_plan *p,
                                       const collio__auto_inputs *in)
{
    collio__exec_profile pr = {0, 0};
    const collio__strategy *mp =
        collio__strategy_find(collio__auto_candidates[AUTO_MULTIPHASE].strategy);
    if (mp == NULL || mp->profile == NULL || in->pieces_total <= 0
        || !in->calib.shm_window)
        return pr;
    int64_t mean =
        (int64_t)(in->elements_total / in->pieces_total) * (int64_t)p->layout->esize;
    mp->profile(p->layout->nglobal, p->nranks, mean, p->stats.nnodes <= 1, &pr);
    return pr;
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
    if (collio__opt(p, OPT_USE_CALIBRATION) && p->rank == 0)
        in.error = cached_load(&in.calib);
    else
        collio_calibration_defaults(&in.calib);
    const char *dir = collio__opt_str(p, OPT_DIR);
    if (dir != NULL && p->rank == 0) {
        collio_fs_id id;
        collio_fs_identify(dir, &id); /* (a path not made yet: its parent's) */
        in.dir_entry = collio_fs_is_networked(&id) ? FS_NETWORKED : FS_LOCAL;
        for (int k = 0; k < in.calib.nfs; k++)
            if (collio__fs_key(&in.calib.fs[k].id) == collio__fs_key(&id))
                in.dir_entry = k;
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
        collio__auto_shape *s = &ap->shape;
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
        const collio__exec_profile pr = mp_profile(p, &in);
        s->mp_rounds = pr.sync_rounds;
        s->mp_copies = pr.shared_copies;
        s->repl_runs = in.repl.runs;
        s->fill_elements = in.repl.fill_elements;
        s->fill_bytes = in.repl.fill_bytes;
        s->fill_sent = in.repl.fill_sent;
        s->fill_peers = in.repl.fill_peers;
        ap->calib = in.calib;
        memcpy(ap->fs_key, in.fs_key, sizeof ap->fs_key);
    }
    collio__stat_set(p, ST_CALIBRATION_ERROR, in.error);
    collio__stat_set(p, ST_LINK_BPS, p->stats.nnodes > 1 ? in.calib.bandwidth_Bps[1] : 0);
    collio__stat_set(p, ST_WRITE_CHOICE, -1);
    collio__stat_set(p, ST_READ_CHOICE, -1);
    p->stats.plan_bytes = (int64_t)sizeof *ap;
    /* auto.dir: the choices for its file system now, else the likely
     * write choice (collectively: rc and in.dir_entry are the same
     * everywhere) */
    for (int op = 0; rc == COLLIO_OK && in.dir_entry != NO_DIR && op < 2; op++)
        rc = choose(p, ap, in.dir_entry, op);
    if (rc == COLLIO_OK && in.dir_entry == NO_DIR)
        rc = make_likely(p, ap);
    collio__stat_set(p, ST_MADE_S, 0.0);
    return rc;
}

/* Local: the calibration entry of f's file system; without one
 * FS_NETWORKED or FS_LOCAL, as its kind. The file knows its file system's
 * key and kind (rank 0 identified it at open, every rank holds both) and
 * every rank holds the same calibration and keys: no message. */
static int fs_entry(const auto_plan *ap, const collio_file *f)
{
    for (int k = 0; k < ap->calib.nfs; k++)
        if (ap->fs_key[k] == f->fs_key)
            return k;
    return f->fs_networked ? FS_NETWORKED : FS_LOCAL;
}

/* Collective: the plan of candidate i on this plan's layout, with this
 * plan's hints and the candidate's own, sharing this plan's communicator
 * and node map (collio__plan_create_inner: nothing checked twice).
 * Agreed code. */
static int make_inner(collio_plan *p, auto_plan *ap, int i)
{
    const collio__auto_candidate *cand = &collio__auto_candidates[i];
    collio_hints *h = NULL;
    int rc = collio__optvals_to_hints(&p->opts, &h);
    for (int j = 0; j < AUTO_CAND_HINTS && cand->hint_key[j] != NULL; j++)
        if (rc == COLLIO_OK)
            rc = collio_hints_set(h, cand->hint_key[j], cand->hint_value[j]);
    rc = collio__plan_create_inner(p, cand->strategy, h, rc, &ap->inner[i]);
    collio_hints_free(&h);
    if (rc == COLLIO_OK) { /* the chosen plan's inspector is this plan's too */
        p->stats.plan_bytes += ap->inner[i]->stats.plan_bytes;
        p->stats.inspect_s += ap->inner[i]->stats.inspect_s;
    }
    return rc;
}

static int auto_exec(collio_plan *p, collio_file *f, char *stream, int writing)
{
    auto_plan *ap = p->impl;
    double t0 = collio__now();
    int k = fs_entry(ap, f);
    int key = KEY(k), op = writing ? 0 : 1;
    int rc = COLLIO_OK;
    if (ap->choice[op][key] < 0) {
        rc = choose(p, ap, k, op);
        ap->made_s += collio__now() - t0;
    }
    int i = ap->choice[op][key];
    collio__stat_set(p, op == 0 ? ST_WRITE_CHOICE : ST_READ_CHOICE, i);
    collio__stat_set(p, ST_CALIBRATED, k >= 0);
    collio__stat_set(p, ST_NETWORKED, f->fs_networked);
    for (int c = 0; c < AUTO_NCAND; c++)
        collio__stat_set(p, ST_PREDICTED + c, ap->predicted[op][key][c]);
    collio__stat_set(p, ST_CHOOSE_S, collio__now() - t0);
    collio__stat_set(p, ST_MADE_S, ap->made_s);
    if (rc != COLLIO_OK) /* (no candidate's plan: i is -1, rc says why) */
        return rc;
    /* the chosen plan runs on this plan's ranks: this plan's execution
     * agrees on the code (plan.c), once */
    rc = collio__plan_run_unagreed(ap->inner[i], f, stream, writing, p->scratch != NULL);
    collio__stats_add_inner(p, ap->inner[i]);
    return rc;
}

/* (collio_plan_predict) The model's pick for f, as the first call on f's
 * file system makes it (before any fallback a refused plan would cause). */
static void auto_predict(const collio_plan *p, const collio_file *f, int writing,
                         int *candidate, double *seconds)
{
    const auto_plan *ap = p->impl;
    int k = fs_entry(ap, f);
    double t[AUTO_NCAND];
    predict_for(ap, k, writing ? 0 : 1, t);
    *candidate = ap->choice[writing ? 0 : 1][KEY(k)];
    if (*candidate < 0)
        *candidate = collio__auto_pick(t);
    *seconds = t[*candidate];
}

static int auto_write(collio_plan *p, collio_file *f, const char *stream)
{
    /* the inner plan writes from the stream; it may use it as scratch
     * space only where this plan may (p->scratch) */
    return auto_exec(p, f, (char *)stream, 1);
}

static int auto_read(collio_plan *p, collio_file *f, char *stream)
{
    return auto_exec(p, f, stream, 0);
}

static void auto_free(collio_plan *p)
{
    auto_plan *ap = p->impl;
    if (ap != NULL)
        for (int i = 0; i < AUTO_NCAND; i++)
            collio_plan_free(&ap->inner[i]);
    free(ap);
    p->impl = NULL;
}

const collio__strategy collio__strategy_auto = {
    .section = {"auto", auto_options, (int)(sizeof auto_options / sizeof auto_options[0]),
                auto_stats, ST_PREDICTED + AUTO_NCAND},
    .summary =
        "the default: chooses serial, independent, two_phase, multiphase (all "
        "phases or fewer) or subgroup (two_phase or list I/O among the masters) by "
        "a cost model of the layout and the machine (calibration)",
    .canonical = 1,
    .plan = auto_plan_create,
    .write = auto_write,
    .read = auto_read,
    .free = auto_free,
    .predict = auto_predict,
};
