/*
 * subgroup.c -- "subgroup": the subgroup method of collective I/O (seed
 * 002), as PnetCDF's intra-node aggregation, ADIOS2's aggregators and PIO's
 * I/O tasks do it today.
 *
 * The ranks are split into groups (hint subgroup.group: groups of
 * g consecutive ranks, or one group per node). Each group's master, its
 * lowest rank, stands for the whole group: on a write the members send it
 * their packed streams, which it lays end to end (member order) into one
 * merged stream, and only the masters, on a communicator of their own, run
 * the inner strategy (two_phase by default) on the union of their members'
 * layouts; a read runs the inner strategy first and the master then sends
 * each member its part. So the all-to-many traffic of the inner collective
 * involves P / g ranks instead of P, at the cost of one gather per group.
 *
 * Inspector (collio_plan_create, once): the communicator splits, a gather
 * of every member's segments to its master, which shifts their stream
 * positions by the member's place in the merged stream and builds an
 * index-list layout of them on the masters' communicator, and the inner
 * plan of that layout (collio_plan_create on the masters). The splits and
 * the merged layout are timed apart (stat subgroup.split_s; seed 002 Fig.
 * 4 measures MPI_Comm_split).
 *
 * Executor: point-to-point messages inside the group, in chunks of at most
 * 1 GiB (counts are int), straight between the member's stream and its
 * place in the master's merged buffer; the master's own part is one
 * memcpy. A group of one rank hands its stream to the inner plan as it is.
 * The members' gather goes through MPI (on one node MPI moves it through
 * shared memory itself); see docs/subgroup.md for the choice.
 *
 * The inner plan writes through a file object of the masters only
 * (collio__file_sub_open) on the same data file, so an atomic CREATE stays
 * one file, committed by collio_file_close on all ranks as usual.
 */
#include "base/base.h"
#include "machine/machine.h"
#include "layouts/layouts.h"
#include "options/options.h"
#include "files/files.h"
#include "core/core.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#define MSG_CHUNK ((int64_t)1 << 30) /* bytes per message, at most */
#define NODE_FALLBACK_GROUP 4        /* all ranks on one node: groups of 4 */
#define SEG_INTS 5                   /* int64 fields of a collio__seg */

typedef struct sg_plan {
    MPI_Comm group;   /* this rank's group; its master is group rank 0 */
    MPI_Comm masters; /* the masters, MPI_COMM_NULL on members */
    int gsize, grank;
    /* master only: */
    int64_t *counts;    /* [gsize] elements of each member */
    int64_t *displs;    /* [gsize] their place in the merged stream */
    int64_t merged;     /* elements of the merged stream */
    collio_plan *inner; /* the inner strategy's plan over the masters */
    char *buf;          /* merged stream (gsize > 1), kept under
                           plan.keep_buffers */
} sg_plan;

/* The strategy's options (hints "subgroup.NAME") and stats. */
enum { OPT_GROUP, OPT_INNER };
static const collio__option sg_options[] = {
    [OPT_GROUP] = {"group", COLLIO__OPT_INT, 0, 0, INT_MAX, NULL, NULL,
                   "ranks per group: 0 = one group per node (groups of 4 where all "
                   "ranks share one node), g = groups of g consecutive ranks"},
    [OPT_INNER] = {"inner", COLLIO__OPT_STRATEGY, 0, 0, 0, NULL, "two_phase",
                   "the strategy the group masters run among themselves"},
};
enum { ST_SPLIT_S, ST_GATHER_S, ST_GROUP, ST_NGROUPS, ST_MASTER };
static const collio__stat sg_stats[] = {
    [ST_SPLIT_S] =
        {"split_s", 0, 0,
         "plan creation: the communicator splits and the group's merged layout"},
    [ST_GATHER_S] = {"gather_s", 1, 0,
                     "last call: the gather to (scatter from) the master, a part of "
                     "exchange_s"},
    [ST_GROUP] = {"group", 0, 0, "ranks in this rank's group"},
    [ST_NGROUPS] = {"ngroups", 0, 0, "groups, i.e. ranks running the inner strategy"},
    [ST_MASTER] = {"master", 0, 0, "1 on a group's master"},
};

extern const collio__strategy collio__strategy_subgroup;

/* What the table cannot say: the inner strategy is canonical and not
 * subgroup itself. Its own options are its plan's to check. */
static int sg_check(collio_plan *p)
{
    const collio__strategy *inner = collio__strategy_find(collio__opt_str(p, OPT_INNER));
    if (inner == NULL || inner == &collio__strategy_subgroup || !inner->canonical) {
        collio__error_set(COLLIO_ERR_ARG,
                          "hint subgroup.inner = %s: subgroup cannot run it",
                          collio__opt_str(p, OPT_INNER));
        return COLLIO_ERR_ARG;
    }
    return COLLIO_OK;
}

/* Collective: the group colour of this rank (the group's lowest rank). */
static int group_color(collio_plan *p, int g, int *color)
{
    if (g > 0) {
        *color = p->rank / g * g;
        return COLLIO_OK;
    }
    MPI_Comm node;
    if (MPI_Comm_split_type(p->comm, MPI_COMM_TYPE_SHARED, p->rank, MPI_INFO_NULL, &node)
        != MPI_SUCCESS)
        return COLLIO_ERR_MPI;
    int nsize = 0, lowest = p->rank;
    MPI_Comm_size(node, &nsize);
    int rc = MPI_Allreduce(&p->rank, &lowest, 1, MPI_INT, MPI_MIN, node) == MPI_SUCCESS
                 ? COLLIO_OK
                 : COLLIO_ERR_MPI;
    MPI_Comm_free(&node);
    /* One node for all (nsize == P on every rank, hence on any rank): a
     * single group would be serial I/O; use small groups instead. */
    *color = nsize == p->nranks && p->nranks > 1
                 ? p->rank / NODE_FALLBACK_GROUP * NODE_FALLBACK_GROUP
                 : lowest;
    return rc;
}

/* Master: the merged layout of the group on the masters' communicator,
 * from the members' segments (gathered here) shifted to their place in
 * the merged stream. */
static int merged_layout(collio_plan *p, sg_plan *sg, const collio__seg *segs,
                         int64_t nsegs, collio_layout **out)
{
    collio_layout *l = NULL;
    int rc = collio__layout_new(sg->masters, COLLIO__LAYOUT_INDEX_LIST,
                                p->layout->nglobal, p->layout->esize, &l);
    if (rc == COLLIO_OK && nsegs > 0) {
        l->segs = malloc((size_t)nsegs * sizeof *l->segs);
        if (l->segs == NULL)
            rc = COLLIO_ERR_NOMEM;
        else
            memcpy(l->segs, segs, (size_t)nsegs * sizeof *segs);
    }
    if (rc == COLLIO_OK) {
        l->nsegs = nsegs;
        rc = collio__layout_finish(l);
    }
    if (rc == COLLIO_OK) /* sparse data: the inner plan's view needs the runs */
        rc = collio__holes_clone(p->layout->holes, &l->holes);
    if (rc != COLLIO_OK)
        collio_layout_free(&l);
    *out = l;
    return rc;
}

/* Collective over the group: the master gathers every member's element
 * count and segments (stream positions shifted into the merged stream). */
static int gather_segments(collio_plan *p, sg_plan *sg, collio__seg **all, int64_t *nall)
{
    *all = NULL;
    *nall = 0;
    const collio_layout *l = p->layout;
    int64_t mine[2] = {l->nlocal, l->nsegs}, *both = NULL;
    int *cnt = NULL, *dis = NULL, rc = COLLIO_OK;
    if (sg->grank == 0) {
        both = malloc(2 * (size_t)sg->gsize * sizeof *both);
        sg->counts = malloc((size_t)sg->gsize * sizeof *sg->counts);
        sg->displs = malloc((size_t)sg->gsize * sizeof *sg->displs);
        cnt = malloc((size_t)sg->gsize * sizeof *cnt);
        dis = malloc((size_t)sg->gsize * sizeof *dis);
        if (!both || !sg->counts || !sg->displs || !cnt || !dis)
            rc = COLLIO_ERR_NOMEM;
    }
    rc = collio__agree(sg->group, rc);
    if (rc == COLLIO_OK
        && MPI_Gather(mine, 2, MPI_INT64_T, both, 2, MPI_INT64_T, 0, sg->group)
               != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    int64_t total = 0;
    if (rc == COLLIO_OK && sg->grank == 0) {
        for (int j = 0; j < sg->gsize; j++) {
            sg->counts[j] = both[2 * j];
            sg->displs[j] = sg->merged;
            sg->merged += both[2 * j];
            /* segments in units of SEG_INTS int64: counts and offsets int */
            if (both[2 * j + 1] > INT_MAX / SEG_INTS || total > INT_MAX / SEG_INTS)
                rc = COLLIO_ERR_OVERFLOW;
            cnt[j] = (int)both[2 * j + 1];
            dis[j] = (int)total;
            total += both[2 * j + 1];
        }
        if (rc == COLLIO_OK && total > INT_MAX / SEG_INTS)
            rc = COLLIO_ERR_OVERFLOW;
        if (rc == COLLIO_OK && total > 0) {
            *all = malloc((size_t)total * sizeof **all);
            if (*all == NULL)
                rc = COLLIO_ERR_NOMEM;
        }
    }
    rc = collio__agree(sg->group, rc);
    MPI_Datatype segtype;
    MPI_Type_contiguous(SEG_INTS, MPI_INT64_T, &segtype);
    MPI_Type_commit(&segtype);
    if (rc == COLLIO_OK
        && MPI_Gatherv(l->segs, (int)l->nsegs, segtype, *all, cnt, dis, segtype, 0,
                       sg->group)
               != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    MPI_Type_free(&segtype);
    if (rc == COLLIO_OK && sg->grank == 0) {
        for (int j = 0; j < sg->gsize; j++)
            for (int i = dis[j]; i < dis[j] + cnt[j]; i++)
                (*all)[i].mem += sg->displs[j];
        *nall = total;
    }
    free(both);
    free(cnt);
    free(dis);
    return collio__agree(sg->group, rc);
}

static int sg_plan_create(collio_plan *p)
{
    /* known and canonical: sg_check made it the registry's name */
    const collio__strategy *inner = collio__strategy_find(collio__opt_str(p, OPT_INNER));
    int rc;
    sg_plan *sg = calloc(1, sizeof *sg);
    if (sg != NULL) {
        sg->group = sg->masters = MPI_COMM_NULL;
        p->impl = sg;
    }
    rc = collio__agree(p->comm, sg != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM);
    if (rc != COLLIO_OK)
        return rc;

    double t0 = collio__now();
    int color = 0;
    rc = collio__agree(p->comm, group_color(p, (int)collio__opt(p, OPT_GROUP), &color));
    if (rc != COLLIO_OK)
        return rc;
    if (MPI_Comm_split(p->comm, color, p->rank, &sg->group) != MPI_SUCCESS)
        sg->group = MPI_COMM_NULL;
    rc = collio__agree(p->comm, sg->group != MPI_COMM_NULL ? COLLIO_OK : COLLIO_ERR_MPI);
    if (rc != COLLIO_OK)
        return rc;
    MPI_Comm_set_errhandler(sg->group, MPI_ERRORS_RETURN);
    MPI_Comm_size(sg->group, &sg->gsize);
    MPI_Comm_rank(sg->group, &sg->grank);
    int master = sg->grank == 0;
    if (MPI_Comm_split(p->comm, master ? 0 : MPI_UNDEFINED, p->rank, &sg->masters)
        != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    rc = collio__agree(p->comm, rc);
    if (rc != COLLIO_OK)
        return rc;
    if (master)
        MPI_Comm_set_errhandler(sg->masters, MPI_ERRORS_RETURN);

    collio__seg *segs = NULL;
    int64_t nsegs = 0;
    collio_layout *l = NULL;
    rc = gather_segments(p, sg, &segs, &nsegs);
    if (rc == COLLIO_OK && master)
        rc = merged_layout(p, sg, segs, nsegs, &l);
    free(segs);
    rc = collio__agree(p->comm, rc);
    collio__stat_set(p, ST_SPLIT_S, collio__now() - t0);
    collio__stat_set(p, ST_GROUP, sg->gsize);
    collio__stat_set(p, ST_MASTER, master);
    int ng = master;
    MPI_Allreduce(MPI_IN_PLACE, &ng, 1, MPI_INT, MPI_SUM, p->comm);
    collio__stat_set(p, ST_NGROUPS, ng);

    /* the inner plan, on the masters only (all of them or none), with
     * every option of this plan as its hints */
    if (rc == COLLIO_OK && master) {
        collio_hints *h = NULL;
        rc = collio__optvals_to_hints(&p->opts, &h);
        if (rc == COLLIO_OK)
            rc = collio__plan_create_nested(sg->masters, l, inner->section.name, h,
                                            &sg->inner);
        collio_hints_free(&h);
        if (rc == COLLIO_OK) {
            p->stats.plan_bytes = sg->inner->stats.plan_bytes;
            collio__stats_add_inner(p, sg->inner); /* what the inner plan chose */
        }
    }
    collio_layout_free(&l);
    if (master && sg->counts != NULL)
        p->stats.plan_bytes += 2 * sg->gsize * (int64_t)sizeof(int64_t);
    return rc;
}

/* Master: the merged stream buffer (gsize > 1). */
static int merged_buffer(collio_plan *p, sg_plan *sg)
{
    sg->buf = collio__plan_buf(sg->buf, (size_t)sg->merged * p->layout->esize);
    return sg->buf != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM;
}

/* Posts the messages of n bytes at buf to / from peer in chunks of at most
 * MSG_CHUNK; *nrq grows. */
static int post(char *buf, int64_t n, int peer, int sending, MPI_Comm comm,
                MPI_Request *rq, int *nrq)
{
    for (int64_t at = 0; at < n; at += MSG_CHUNK) {
        int len = (int)(n - at < MSG_CHUNK ? n - at : MSG_CHUNK);
        int err = sending ? MPI_Isend(buf + at, len, MPI_BYTE, peer, 0, comm, &rq[*nrq])
                          : MPI_Irecv(buf + at, len, MPI_BYTE, peer, 0, comm, &rq[*nrq]);
        if (err != MPI_SUCCESS)
            return COLLIO_ERR_MPI;
        (*nrq)++;
    }
    return COLLIO_OK;
}

static int64_t chunks(int64_t bytes)
{
    return (bytes + MSG_CHUNK - 1) / MSG_CHUNK;
}

/* Collective over the group: members' streams to the master's merged
 * buffer (to_master) or back. The master's own part is a copy. */
static int group_move(collio_plan *p, sg_plan *sg, char *stream, int to_master)
{
    const int64_t esize = (int64_t)p->layout->esize;
    int rc = COLLIO_OK, nrq = 0;
    MPI_Request *rq = NULL;
    if (sg->grank == 0) {
        int64_t n = 0;
        for (int j = 1; j < sg->gsize; j++)
            n += chunks(sg->counts[j] * esize);
        rq = malloc((size_t)(n > 0 ? n : 1) * sizeof *rq);
        if (rq == NULL)
            return COLLIO_ERR_NOMEM; /* agreed before anything moves */
        for (int j = 1; j < sg->gsize && rc == COLLIO_OK; j++)
            rc = post(sg->buf + sg->displs[j] * esize, sg->counts[j] * esize, j,
                      !to_master, sg->group, rq, &nrq);
        double tc = collio__now();
        if (to_master)
            collio__copy(sg->buf, stream, (size_t)(sg->counts[0] * esize));
        else
            collio__copy(stream, sg->buf, (size_t)(sg->counts[0] * esize));
        p->stats.copy_s += collio__now() - tc;
    } else {
        int64_t bytes = p->layout->nlocal * esize;
        rq = malloc((size_t)(chunks(bytes) > 0 ? chunks(bytes) : 1) * sizeof *rq);
        if (rq == NULL)
            return COLLIO_ERR_NOMEM;
        rc = post(stream, bytes, 0, to_master, sg->group, rq, &nrq);
        if (to_master) {
            p->stats.bytes_sent += bytes;
            p->stats.messages += nrq;
        }
    }
    if (sg->grank == 0 && !to_master) {
        for (int j = 1; j < sg->gsize; j++)
            p->stats.bytes_sent += sg->counts[j] * esize;
        p->stats.messages += nrq;
    }
    int wrc = collio__waitall(nrq, rq, p->oversubscribed);
    free(rq);
    return rc != COLLIO_OK ? rc : wrc;
}

/* Masters: the inner plan's write or read of the merged stream, through a
 * file object of the masters. */
static int inner_exec(collio_plan *p, sg_plan *sg, collio_file *f, char *merged,
                      int writing, int scratch)
{
    collio_file *sub = NULL;
    int rc = collio__file_sub_open(f, sg->masters, &sub);
    if (rc == COLLIO_OK) {
        rc = collio__plan_exec(sg->inner, sub, merged, writing, scratch);
        int crc = collio__file_sub_close(f, &sub);
        if (rc == COLLIO_OK)
            rc = crc;
        collio__stats_add_inner(p, sg->inner);
    }
    return rc;
}

/* Collective: the start of a call -- the masters' merged buffers (one per
 * group of two or more), agreed before anything moves; counted into
 * work_bytes. */
static int begin_call(collio_plan *p, sg_plan *sg)
{
    int rc = COLLIO_OK;
    if (sg->grank == 0 && sg->gsize > 1) {
        rc = merged_buffer(p, sg);
        p->stats.work_bytes += sg->merged * (int64_t)p->layout->esize;
    }
    return collio__agree(p->comm, rc);
}

static int sg_write(collio_plan *p, collio_file *f, const char *stream)
{
    sg_plan *sg = p->impl;
    int master = sg->grank == 0, alone = sg->gsize == 1;
    int rc = begin_call(p, sg);
    if (rc != COLLIO_OK)
        return rc;
    double t0 = collio__now();
    if (!alone)
        rc = group_move(p, sg, (char *)stream, 1); /* only read from */
    collio__stat_set(p, ST_GATHER_S, collio__now() - t0);
    p->stats.exchange_s += p->statv[p->own_stat + ST_GATHER_S];
    rc = collio__agree(p->comm, rc);
    if (rc == COLLIO_OK && master) {
        /* the merged buffer is ours to overwrite; a lone master's stream
         * only where the user's call allows it */
        char *merged = alone ? (char *)stream : sg->buf;
        rc = inner_exec(p, sg, f, merged, 1, alone ? p->scratch != NULL : 1);
    }
    sg->buf = collio__plan_buf_done(p, sg->buf);
    return rc;
}

static int sg_read(collio_plan *p, collio_file *f, char *stream)
{
    sg_plan *sg = p->impl;
    int master = sg->grank == 0, alone = sg->gsize == 1;
    int rc = begin_call(p, sg);
    if (rc != COLLIO_OK)
        return rc;
    if (master)
        rc = inner_exec(p, sg, f, alone ? stream : sg->buf, 0, 1);
    /* members wait for their part even after a failed read (agreed later) */
    double t0 = collio__now();
    int mrc = alone ? COLLIO_OK : group_move(p, sg, stream, 0);
    collio__stat_set(p, ST_GATHER_S, collio__now() - t0);
    p->stats.exchange_s += p->statv[p->own_stat + ST_GATHER_S];
    sg->buf = collio__plan_buf_done(p, sg->buf);
    return rc != COLLIO_OK ? rc : mrc;
}

static void sg_free(collio_plan *p)
{
    sg_plan *sg = p->impl;
    if (sg == NULL)
        return;
    collio_plan_free(&sg->inner);
    if (sg->masters != MPI_COMM_NULL)
        MPI_Comm_free(&sg->masters);
    if (sg->group != MPI_COMM_NULL)
        MPI_Comm_free(&sg->group);
    collio__bigbuf_free(sg->buf);
    free(sg->counts);
    free(sg->displs);
    free(sg);
    p->impl = NULL;
}

/* As a candidate of auto (machine/cost.h): a gather of g - 1 ranks' bytes
 * to each master (a group is g consecutive ranks: those off the master's
 * node send over its node's link), then two_phase (with its mpiio_call)
 * among the P / g masters, or list I/O (the *_list candidates), on the
 * group's pieces: pieces_max of them where consecutive ranks' pieces
 * adjoin in the file (block-cyclic layouts: shape.adjoin), g *
 * pieces_max elsewhere. */
static double sg_cost(const collio__cost *m, const collio__cost_shape *s, int g, int list)
{
    int P = m->nranks;
    if (g > P || g < 2)
        return INFINITY;
    int masters = (P + g - 1) / g;
    int nodes = s->nnodes > 0 ? s->nnodes : 1;
    double mcpu = (double)masters / nodes / (m->cores > 0 ? m->cores : 1);
    if (mcpu < 1)
        mcpu = 1;
    /* the gather: g - 1 ranks' bytes into the master, then the master
     * packs the group's pieces into its merged stream. The aligned
     * 2^intra_phases ranks around the master share its node (every
     * leading hypercube partner does), the rest may not, and their bytes
     * come in over the node's link */
    int on =
        s->intra_phases < 30 && (1 << s->intra_phases) < g ? 1 << s->intra_phases : g;
    double gather = (g - 1) * m->lat * m->cpu + (on - 1) * s->bytes_max / m->bw0 * m->cpu
                    + (g - on) * s->bytes_max / m->bw1
                    + collio__cost_pack(m, s->pieces_max * g, s->bytes_max * g) * m->cpu;
    /* the master's runs: its group's pieces, merged where they adjoin */
    double runs = s->adjoin ? s->pieces_max : s->pieces_max * g;
    if (runs < 1)
        runs = 1;
    if (list)
        return gather
               + runs * collio__cost_list_request(m, s->bytes_max * g / runs) * mcpu
               + m->file_bytes;
    collio__cost mm = *m;
    mm.cpu = mcpu;
    return gather + runs * m->mpiio * mcpu + m->mpiio_call + m->file_bytes
           + collio__cost_mpiio_data(&mm, s->bytes_max * g, masters - 1);
}

static double sg_terms(const collio__cost *m, const collio__cost_shape *s, int g)
{
    return sg_cost(m, s, g, 0);
}

static double sg_list_terms(const collio__cost *m, const collio__cost_shape *s, int g)
{
    return sg_cost(m, s, g, 1);
}

#define SG "subgroup.group"
#define SGI "subgroup.inner"
#define TP "two_phase" /* (the floors of its inner strategies' calls) */
#define LIST "independent"
static const collio__candidate sg_candidates[] = {
    {"subgroup_g2", {SG}, {"2"}, 0, TP, 0, sg_terms, 2, "subgroup (g = 2)"},
    {"subgroup_g4", {SG}, {"4"}, 0, TP, 0, sg_terms, 4, "subgroup (g = 4)"},
    {"subgroup_g8", {SG}, {"8"}, 0, TP, 0, sg_terms, 8, "subgroup (g = 8)"},
    {"subgroup_g2_list",
     {SG, SGI},
     {"2", "independent"},
     1,
     LIST,
     0,
     sg_list_terms,
     2,
     "subgroup (g = 2, masters by list I/O)"},
    {"subgroup_g4_list",
     {SG, SGI},
     {"4", "independent"},
     1,
     LIST,
     0,
     sg_list_terms,
     4,
     "subgroup (g = 4, masters by list I/O)"},
    {"subgroup_g8_list",
     {SG, SGI},
     {"8", "independent"},
     1,
     LIST,
     0,
     sg_list_terms,
     8,
     "subgroup (g = 8, masters by list I/O)"},
};

const collio__strategy collio__strategy_subgroup = {
    .section = {"subgroup", sg_options, 2, sg_stats, 5},
    .summary = "groups of g ranks: masters gather their members' data and run an "
               "inner collective strategy (two_phase by default) among themselves",
    .canonical = 1,
    .check = sg_check,
    .plan = sg_plan_create,
    .write = sg_write,
    .read = sg_read,
    .free = sg_free,
    .candidates = sg_candidates,
    .ncandidates = (int)(sizeof sg_candidates / sizeof sg_candidates[0]),
};
