/*
 * shm/transport.c -- the shm transport of the multiphase strategy: the
 * direct exchange through shared memory. When all ranks run on one node
 * (choose.c decides; hint multiphase.shared_memory = 0 turns it off),
 * every rank's file-order buffer F is its segment of one MPI-3
 * shared-memory window (MPI_Win_allocate_shared), and each rank copies
 * its pieces straight from its stream into the other ranks' F (write), or
 * back (read). Its plan is the direct exchange's copy ops per peer
 * (collio__mp_direct_new with shm), the pull rounds for small blocks
 * (shm/pull.c) and the relay (shm/relay.c).
 *
 * Why. With MPI messages, a receive into a non-contiguous datatype (F
 * positions are strided for every sender) takes Open MPI's copy-in /
 * copy-out path through the shared-memory transport: every byte is copied
 * twice, and the transfers need both ranks to be scheduled. Through the
 * window every byte is copied once, by its sender, with the same strided
 * copy loop as the final scatter (kit.c), and nobody waits for
 * a partner in between. Measured in a stand-alone test at P = 16, 100 MB
 * (exchange plus the write of F, against `block` in the same run): 1.30-
 * 1.52x `block` against 1.57-1.81x with messages (docs/multiphase.md).
 *
 * Synchronisation (the "unified" memory model, passive target, lock_all
 * for the window's lifetime). A fence is MPI_Win_sync around a barrier
 * on the relay's words (shm/relay.c), which the waiting ranks
 * sleep on instead of polling in MPI. Write = fence (every F is free: its
 * owner wrote it out in the previous call), the pull rounds if any, then
 * the relay: the pushes, group of owners after group, and each owner's
 * file write as soon as its F is complete, the writes one after another
 * in rank order; the call ends when the last owner has written. Read =
 * each rank reads its F, fence, copy out, fence (nobody reuses F while
 * others still copy from it), the pull rounds backwards.
 *
 * The window is F, the only work memory: kept by the plan between calls
 * (hint plan.keep_buffers, freed with the plan: MPI_Win_free is collective,
 * as collio_plan_free is), else made and freed in every call.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "files/files.h"
#include "core/core.h"
#include "shm.h"

#include <sys/resource.h>

/* Collective (MPI_Win_free): frees the window, if any (not the relay:
 * that lives as long as the plan). */
static void shm_free(collio__mp_shm *s)
{
    if (s->win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(s->win);
        MPI_Win_free(&s->win);
    }
    free(s->base);
    s->base = NULL;
    s->bytes = 0;
}

/* Local: COLLIO_OK if the file size limit (ulimit -f) allows the
 * window's backing file of `bytes` (every rank's segment: one file on
 * the node), else COLLIO_ERR_IO, said. The plan
 * checked it when it chose this transport (choose.c), but a limit set
 * since -- after plan creation, before the first call -- would fail
 * inside MPI_Win_allocate_shared on the ranks it binds, and Open MPI 4.1
 * then leaves the others waiting in the allocation's broadcast: so it is
 * agreed on before the allocation. */
static int shm_limit_ok(size_t bytes)
{
    struct rlimit fsize;
    if (getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY
        && (uint64_t)bytes > (uint64_t)fsize.rlim_cur) {
        collio__error_set(COLLIO_ERR_IO,
                          "multiphase: the file size limit (ulimit -f, %llu bytes) is "
                          "below the shared-memory window's backing file (%zu bytes), "
                          "set after the plan was made",
                          (unsigned long long)fsize.rlim_cur, bytes);
        return COLLIO_ERR_IO;
    }
    return COLLIO_OK;
}

/* Collective: the window (F of every rank, and the slack of pull rounds),
 * made on first use; counted into work_bytes. */
static int shm_open(collio_plan *p, collio__mp_shm *s)
{
    collio__mp_plan *mp = p->impl;
    collio__mp_pull *pl = SHM(mp)->pull;
    const size_t bytes = (size_t)(pl ? pl->seg_elems : mp->fsize) * mp->esize;
    int rc = COLLIO_OK;
    if (s->win == MPI_WIN_NULL)
        rc = collio__agree(p->comm, shm_limit_ok(bytes * (size_t)p->nranks));
    if (rc == COLLIO_OK && s->win == MPI_WIN_NULL) {
        char *mine = NULL;
        MPI_Info info;
        MPI_Info_create(&info);
        /* each rank's segment on its own pages (no false sharing) */
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
        if (MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, p->comm, &mine, &s->win)
            != MPI_SUCCESS) {
            s->win = MPI_WIN_NULL;
            rc = COLLIO_ERR_NOMEM;
        }
        MPI_Info_free(&info);
        if (rc == COLLIO_OK) {
            MPI_Win_set_errhandler(s->win, MPI_ERRORS_RETURN);
            s->base = malloc((size_t)p->nranks * sizeof *s->base);
            if (s->base == NULL)
                rc = COLLIO_ERR_NOMEM;
        }
        for (int q = 0; q < p->nranks && rc == COLLIO_OK; q++) {
            MPI_Aint sz;
            int du;
            if (MPI_Win_shared_query(s->win, q, &sz, &du, &s->base[q]) != MPI_SUCCESS)
                rc = COLLIO_ERR_MPI;
        }
        if (rc == COLLIO_OK && pl != NULL) /* where the sources' staging areas are */
            rc = collio__mp_pull_rebase(pl, s->base, mp->esize);
        if (rc == COLLIO_OK && MPI_Win_lock_all(MPI_MODE_NOCHECK, s->win) != MPI_SUCCESS)
            rc = COLLIO_ERR_MPI;
        s->bytes = bytes;
    }
    rc = collio__agree(p->comm, rc);
    if (rc != COLLIO_OK)
        shm_free(s); /* collective on every rank alike */
    else
        p->stats.work_bytes += (int64_t)s->bytes;
    collio__stat_set(p, MP_STAT_NPHASES, 1);
    collio__stat_set(p, MP_STAT_SHARED_MEMORY, 1);
    return rc;
}

/* End of a call: the plan keeps the window, or frees it (collective). */
static void shm_done(collio_plan *p, collio__mp_shm *s)
{
    if (!collio__plan_opt(p, COLLIO__PLAN_KEEP_BUFFERS))
        shm_free(s);
}

/* Everything written to the window so far is visible to every rank, and
 * every rank got here. COLLIO_ERR_MPI if a rank of the node died while
 * the others waited (the exchange cannot complete then). */
static int shm_fence(collio_plan *p, collio__mp_shm *s)
{
    MPI_Win_sync(s->win);
    int rc = collio__mp_relay_barrier(p, &s->relay);
    MPI_Win_sync(s->win);
    return rc;
}

/* One timed local copy: a scatter (ops' mem in a, off in f) or gather. */
static void timed(collio_plan *p, const collio__mp_final *ops, size_t es, const char *a,
                  char *f, int scatter)
{
    double t0 = collio__now();
    if (scatter)
        collio__mp_scatter(ops, es, a, f);
    else
        collio__mp_gather(ops, es, f, (char *)a);
    p->stats.copy_s += collio__now() - t0;
}

/* The pushed pieces of a read (all of them, or the tail after pull
 * rounds), copied back from every F, peers in turn from the next rank
 * on (counted in account). */
static void push_back(collio_plan *p, const collio__mp_direct *d, collio__mp_shm *s,
                      char *stream)
{
    const int P = p->nranks, me = p->rank;
    for (int k = 0; k < P; k++) {
        int q = (me + k) % P;
        timed(p, &d->peer[q], p->layout->esize, stream, s->base[q], 0);
    }
}

/* Pull round i of a write: stage the round's pieces into the free tail
 * of the own F, fence, gather the own part from every source, fence. */
static int pull_round(collio_plan *p, const collio__mp_pull *pl, int i, collio__mp_shm *s,
                      const char *stream)
{
    char *mine = s->base[p->rank];
    timed(p, &pl->stage[i], p->layout->esize, stream, mine, 1);
    int rc = shm_fence(p, s); /* every staging area complete */
    if (rc != COLLIO_OK)
        return rc;
    timed(p, &pl->gbytes[i], 1, s->base[0], mine, 1);
    return shm_fence(p, s); /* every staging area read: free for the next round */
}

/* The same backwards (read): scatter the own part into the sources'
 * staging areas, fence, copy the own staging area into the stream, fence. */
static int unpull_round(collio_plan *p, const collio__mp_pull *pl, int i,
                        collio__mp_shm *s, char *stream)
{
    char *mine = s->base[p->rank];
    timed(p, &pl->gbytes[i], 1, s->base[0], mine, 0);
    int rc = shm_fence(p, s);
    if (rc != COLLIO_OK)
        return rc;
    timed(p, &pl->stage[i], p->layout->esize, stream, mine, 0);
    return shm_fence(p, s);
}

/* The exchange of a call, all of it (copies and waits) but the t_file
 * seconds of the own file write, as the one phase; what moved to other
 * ranks' F (the plan says: the pushed pieces, the staged ones). */
static void account(collio_plan *p, double t0, double t_file)
{
    const collio__mp_plan *mp = p->impl;
    const collio__mp_direct *d = SHM(mp)->direct;
    const collio__mp_pull *pl = SHM(mp)->pull;
    double t = collio__now() - t0 - t_file;
    p->stats.exchange_s += t;
    collio__mp_phase_add(p, 0, t, 0, 0, 0);
    int64_t sent = pl != NULL ? pl->sent_elems : 0;
    for (int q = 0; q < p->nranks; q++)
        sent += q != p->rank ? d->peer[q].nelems : 0;
    p->stats.bytes_sent += sent * (int64_t)p->layout->esize;
    collio__mp_phase_add(p, 0, 0, 0, 0, (double)d->send_tuples);
    for (int i = 0; pl != NULL && i < pl->nrounds; i++)
        collio__mp_phase_add(p, 0, 0, 0, 0, (double)pl->stage[i].nops);
    collio__stat_values(p, MP_STAT_PHASE_BYTES)[0] = (double)p->stats.bytes_sent;
}

static int shm_write(collio_plan *p, collio_file *f, const char *stream)
{
    collio__mp_plan *mp = p->impl;
    const collio__mp_pull *pl = SHM(mp)->pull;
    int rc = shm_open(p, SHM(mp));
    if (rc != COLLIO_OK)
        return rc;
    double t0 = collio__now();
    rc = shm_fence(p, SHM(mp)); /* every F free */
    for (int i = 0; rc == COLLIO_OK && pl != NULL && i < pl->nrounds; i++)
        rc = pull_round(p, pl, i, SHM(mp), stream);
    if (rc != COLLIO_OK)
        return rc; /* a rank of the node died: no shm_done, nothing agrees */
    double t_file = 0;
    rc = collio__mp_relay_write(p, SHM(mp)->direct, SHM(mp), f, stream, &t_file);
    account(p, t0, t_file);
    shm_done(p, SHM(mp));
    return rc;
}

/* A failed file read still takes part in every barrier; the error is
 * returned at the end (agreed by the caller). */
static int shm_read(collio_plan *p, collio_file *f, char *stream)
{
    collio__mp_plan *mp = p->impl;
    const collio__mp_pull *pl = SHM(mp)->pull;
    int rc = shm_open(p, SHM(mp));
    if (rc != COLLIO_OK)
        return rc;
    /* (the previous call ended with a barrier: nobody copies from F) */
    rc = collio__mp_file_runs(p, &SHM(mp)->direct->fin, f, SHM(mp)->base[p->rank], 0);
    double t0 = collio__now();
    int wrc = shm_fence(p, SHM(mp)); /* every F read */
    if (wrc == COLLIO_OK) {
        push_back(p, SHM(mp)->direct, SHM(mp), stream);
        wrc = shm_fence(p, SHM(mp)); /* the pushed parts are free */
    }
    for (int i = pl != NULL ? pl->nrounds - 1 : -1; wrc == COLLIO_OK && i >= 0; i--)
        wrc = unpull_round(p, pl, i, SHM(mp), stream);
    if (wrc != COLLIO_OK)
        return wrc; /* a rank of the node died */
    account(p, t0, 0);
    shm_done(p, SHM(mp));
    return rc;
}

/* ---------------------------------------------------------- transport */

/* Collective: the pieces of every rank's layout as copy ops into the
 * owners' F (the direct exchange's builder, shm = 1); with pull rounds
 * (mp->pull_rounds, choose.c) the rounds first, and only the
 * tail of every domain pushed. Then the relay, which depends only on P
 * and the node: made once, with the plan. */
static int shm_build(collio_plan *p, collio__mp_plan *mp)
{
    collio__mp_shm *st = calloc(1, sizeof *st);
    mp->state = st; /* (freed by shm_plan_free, also after a failure) */
    if (collio__agree(p->comm, st != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM) != COLLIO_OK)
        return COLLIO_ERR_NOMEM;
    const collio_layout *l = p->layout;
    const int R = mp->pull_rounds;
    SHM(mp)->win = MPI_WIN_NULL;
    SHM(mp)->relay.win = MPI_WIN_NULL;
    collio__stat_set(p, MP_STAT_NPHASES, 1);
    int64_t lo, hi;
    collio__domain_range(l->nglobal, p->nranks,
                         collio__mp_domain_of_rank(p->nranks, p->rank), &lo, &hi);
    mp->fsize = hi - lo;
    int rc;
    if (R > 0) {
        collio__segvec tail = {0};
        rc = collio__mp_pull_build(p, R, lo, hi, &SHM(mp)->pull); /* agreed */
        if (rc == COLLIO_OK)
            rc = collio__mp_pull_tail(p, R, &tail);
        rc = collio__mp_direct_new(p, tail.v, tail.n, rc, lo,
                                   lo + collio__mp_pull_cut(hi - lo, R), hi, 1,
                                   &SHM(mp)->direct);
        collio__segvec_free(&tail);
    } else {
        rc = collio__mp_direct_new(p, l->segs, l->nsegs, COLLIO_OK, lo, lo, hi, 1,
                                   &SHM(mp)->direct);
    }
    if (rc == COLLIO_OK)
        rc = collio__mp_final_domain(&SHM(mp)->direct->fin, lo, hi);
    rc = collio__agree(p->comm, rc);
    if (rc == COLLIO_OK)
        rc = collio__agree(p->comm, collio__mp_relay_init(p, &SHM(mp)->relay));
    if (rc == COLLIO_OK)
        p->stats.plan_bytes =
            (int64_t)sizeof *mp + collio__mp_direct_bytes(SHM(mp)->direct);
    return rc;
}

/* Collective, as collio_plan_free is: the window and the relay's words. */
static void shm_plan_free(collio__mp_plan *mp)
{
    if (mp->state == NULL)
        return;
    shm_free(SHM(mp));
    collio__mp_relay_free(&SHM(mp)->relay);
    collio__mp_pull_free(SHM(mp)->pull);
    SHM(mp)->pull = NULL;
    collio__mp_direct_free(SHM(mp)->direct);
    SHM(mp)->direct = NULL;
    free(mp->state);
    mp->state = NULL;
}

const collio__mp_transport collio__mp_transport_shm = {
    .name = "shm",
    .build = shm_build,
    .write = shm_write,
    .read = shm_read,
    .free = shm_plan_free,
};
