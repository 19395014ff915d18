/*
 * multiphase_shm.c -- the direct exchange through shared memory: when all
 * ranks run on one node, every rank's file-order buffer F is its segment
 * of one MPI-3 shared-memory window (MPI_Win_allocate_shared), and each
 * rank copies its pieces straight from its stream into the other ranks'
 * F (write), or back (read). opts.multiphase.shared_memory = 0 turns it off.
 *
 * Why. With MPI messages, a receive into a non-contiguous datatype (F
 * positions are strided for every sender) takes Open MPI's copy-in /
 * copy-out path through the shared-memory transport: every byte is copied
 * twice, and the transfers need both ranks to be scheduled. Through the
 * window every byte is copied once, by its sender, with the same strided
 * copy loop as the final scatter (multiphase_exec.c), and nobody waits for
 * a partner in between. Measured in a stand-alone test at P = 16, 100 MB
 * (exchange plus the write of F, against `block` in the same run): 1.30-
 * 1.52x `block` against 1.57-1.81x with messages (docs/multiphase.md).
 *
 * Synchronisation (the "unified" memory model, passive target, lock_all
 * for the window's lifetime). A fence is MPI_Win_sync around a barrier
 * on the relay's words (multiphase_relay.c), which the waiting ranks
 * sleep on instead of polling in MPI. Write = fence (every F is free: its
 * owner wrote it out in the previous call), the pull rounds if any, then
 * the relay: the pushes, group of owners after group, and each owner's
 * file write as soon as its F is complete, the writes one after another
 * in rank order; the call ends when the last owner has written. Read =
 * each rank reads its F, fence, copy out, fence (nobody reuses F while
 * others still copy from it), the pull rounds backwards.
 *
 * The window is F, the only work memory: kept by the plan between calls
 * (opts.multiphase.keep_buffers, freed with the plan: MPI_Win_free is collective,
 * as collio_plan_free is), else made and freed in every call.
 */
#include "multiphase.h"

#include <sys/statvfs.h>

/* Where MPI implementations on Linux back shared-memory windows (Open MPI's
 * shmem_mmap_backing_file_base_dir, MPICH's shared segments): a tmpfs. */
#define SHM_DIR "/dev/shm"
/* Room kept free beyond the window: the MPI library's own shared-memory
 * transport and other processes on the node need /dev/shm too. */
#define SHM_MARGIN_BYTES ((uint64_t)64 << 20)

/* Local: 1 if SHM_DIR has room for `bytes` plus the margin, or cannot be
 * asked (then the allocation itself decides: a failure is an error agreed
 * on every rank, never an abort, as the window returns MPI errors). */
static int shm_fits(uint64_t bytes)
{
    struct statvfs sv;
    if (statvfs(SHM_DIR, &sv) != 0)
        return 1;
    uint64_t avail = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
    return bytes <= avail && avail - bytes >= SHM_MARGIN_BYTES;
}

int collio__mp_shm_wanted(collio_plan *p)
{
    p->stats.multiphase.shm_fallback = 0;
    if (!p->opts.multiphase.shared_memory)
        return 0;
    MPI_Comm node;
    int local = 0;
    if (MPI_Comm_split_type(p->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node)
        == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    /* The window holds every rank's F (its file domain, nglobal / P
     * elements) plus a pull round's slack of at most P elements per rank:
     * the whole file and P^2 elements, all on this one node. */
    const collio_layout *l = p->layout;
    uint64_t bytes = ((uint64_t)l->nglobal + (uint64_t)p->nranks * (uint64_t)p->nranks)
                     * (uint64_t)l->esize;
    int v[2] = {local == p->nranks, shm_fits(bytes)}, all[2] = {0, 0};
    MPI_Allreduce(v, all, 2, MPI_INT, MPI_MIN, p->comm);
    /* one node but no room: messages, and the stats say why */
    p->stats.multiphase.shm_fallback = all[0] && !all[1];
    return all[0] && all[1];
}

void collio__mp_shm_free(collio__mp_shm *s)
{
    if (s->win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(s->win);
        MPI_Win_free(&s->win);
    }
    free(s->base);
    s->base = NULL;
    s->bytes = 0;
}

/* Collective: the window (F of every rank, and the slack of pull rounds),
 * made on first use; counted into work_bytes. */
static int shm_open(collio_plan *p, collio__mp_shm *s)
{
    collio__mp_plan *mp = p->impl;
    collio__mp_pull *pl = mp->direct->pull;
    const size_t bytes = (size_t)(pl ? pl->seg_elems : mp->fsize) * mp->esize;
    int rc = COLLIO_OK;
    if (s->win == MPI_WIN_NULL) {
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
        collio__mp_shm_free(s); /* collective on every rank alike */
    else
        p->stats.work_bytes += (int64_t)s->bytes;
    p->stats.nphases = 1;
    p->stats.multiphase.shared_memory = 1;
    return rc;
}

/* End of a call: the plan keeps the window, or frees it (collective). */
static void shm_done(collio_plan *p, collio__mp_shm *s)
{
    if (!p->opts.multiphase.keep_buffers)
        collio__mp_shm_free(s);
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
    const collio__mp_direct *d = ((collio__mp_plan *)p->impl)->direct;
    const collio__mp_pull *pl = d->pull;
    double t = collio__now() - t0 - t_file;
    p->stats.exchange_s += t;
    p->stats.phase_s[0] += t;
    int64_t sent = pl != NULL ? pl->sent_elems : 0;
    for (int q = 0; q < p->nranks; q++)
        sent += q != p->rank ? d->peer[q].nelems : 0;
    p->stats.bytes_sent += sent * (int64_t)p->layout->esize;
    p->stats.phase_tuples[0] += d->send_tuples;
    for (int i = 0; pl != NULL && i < pl->nrounds; i++)
        p->stats.phase_tuples[0] += pl->stage[i].nops;
    p->stats.phase_bytes[0] = p->stats.bytes_sent;
}

int collio__mp_shm_write(collio_plan *p, collio_file *f, const char *stream)
{
    collio__mp_plan *mp = p->impl;
    const collio__mp_pull *pl = mp->direct->pull;
    int rc = shm_open(p, &mp->shm);
    if (rc != COLLIO_OK)
        return rc;
    double t0 = collio__now();
    rc = shm_fence(p, &mp->shm); /* every F free */
    for (int i = 0; rc == COLLIO_OK && pl != NULL && i < pl->nrounds; i++)
        rc = pull_round(p, pl, i, &mp->shm, stream);
    if (rc != COLLIO_OK)
        return rc; /* a rank of the node died: no shm_done, nothing agrees */
    double t_file = 0;
    rc = collio__mp_relay_write(p, mp->direct, &mp->shm, f, stream, &t_file);
    account(p, t0, t_file);
    shm_done(p, &mp->shm);
    return rc;
}

/* A failed file read still takes part in every barrier; the error is
 * returned at the end (agreed by the caller). */
int collio__mp_shm_read(collio_plan *p, collio_file *f, char *stream)
{
    collio__mp_plan *mp = p->impl;
    const collio__mp_pull *pl = mp->direct->pull;
    int rc = shm_open(p, &mp->shm);
    if (rc != COLLIO_OK)
        return rc;
    /* (the previous call ended with a barrier: nobody copies from F) */
    rc = collio__mp_file_runs(p, &mp->direct->fin, f, mp->shm.base[p->rank], 0);
    double t0 = collio__now();
    int wrc = shm_fence(p, &mp->shm); /* every F read */
    if (wrc == COLLIO_OK) {
        push_back(p, mp->direct, &mp->shm, stream);
        wrc = shm_fence(p, &mp->shm); /* the pushed parts are free */
    }
    for (int i = pl != NULL ? pl->nrounds - 1 : -1; wrc == COLLIO_OK && i >= 0; i--)
        wrc = unpull_round(p, pl, i, &mp->shm, stream);
    if (wrc != COLLIO_OK)
        return wrc; /* a rank of the node died */
    account(p, t0, 0);
    shm_done(p, &mp->shm);
    return rc;
}
