/*
 * shm/relay.c -- the order of a shared-memory write: who copies
 * into which F when, and when each owner writes its F (the relay).
 *
 * Why. Buffered writes to one file take turns: ext4 holds the inode lock
 * for the whole of each write(2), so however many ranks write at once,
 * one core writes and the others wait (measured here: two processes
 * writing halves of one file take as long as one process writing it
 * all). `block` is that, and nothing else. A direct exchange adds one
 * copy of the data; done first, by every rank at once, it adds its whole
 * time to the write's (1.4x `block` at P = 16 on 2 cores). Done while
 * the writes run, it can hide on the cores the writes leave idle -- but
 * only if (a) some F is complete early, and (b) the writing rank is not
 * time-sliced with the copying ones: on an oversubscribed node, 15
 * copying ranks leave the writer 1/8 of a core, and the writes stretch
 * by as much as the copies hide.
 *
 * The relay. Owners are cut into G groups of consecutive ranks. For
 * group h = 0, 1, ..., G-1 in turn, every rank copies its pieces for the
 * owners of group h into their F -- but only K ranks at a time: the ranks
 * form K lanes (rank r in lane r mod K), and in each lane a token passes
 * from rank to rank; the lane's last rank tells the group's owners that
 * its lane is done. An owner writes its F once all K lanes are done with
 * its group and the owner before it has written (a token again), so the
 * writes follow one another in rank order and never queue on the lock,
 * while lane copies for the next group run beside them. At the end every
 * rank waits for the last write, so that nobody polls in MPI meanwhile.
 * Tokens and words are counters in a small shared window that the
 * waiting ranks sleep on (shm_word.c): waiting in MPI would poll, and
 * pollers take the cores from the writer and the copier (a zero-byte
 * message took 0.45 ms to be noticed at 16 ranks on 2 cores). K = cores - 1 (at least 1,
 * at most P): the copies get the cores the writer leaves, and the writer keeps its own.
 * In group h the lanes start at group h's first owner and wrap around, so that the owners
 * of group h-1, still writing, copy last. G keeps the handoffs of a call (about G P / K,
 * each a wake-up) near RELAY_HANDOFFS; with K = P there are none, and every owner is its
 * own group.
 *
 * No deadlock: order the events "lane h copies" < "group h writes" <
 * "lane h+1 copies". A rank's copy for group h waits only for its lane
 * predecessor in group h and for its own earlier events (its copies for
 * groups < h and, if it owns in group h-1, its write); an owner's write
 * waits only for the lanes of its group and the writes of lower ranks.
 * Every wait is on an earlier event, so every call completes
 * (tests/unit_relay.c runs the protocol for many P, K, G).
 */
#include "base/base.h"
#include "files/files.h"
#include "core/core.h"
#include "shm.h"

#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* Handoffs per call the group count aims at: each costs a wake-up of the
 * next rank (tens of microseconds oversubscribed). */
#define RELAY_HANDOFFS 128

/* A rank's words, each on its own cache line: lane tokens it got, lanes
 * done with its group, "the owner before you has written", and (rank 0's
 * only) "the last owner has written". */
struct collio__mp_relay_ctl {
    _Alignas(64) collio__word token;
    _Alignas(64) collio__word done;
    _Alignas(64) collio__word written;
    _Alignas(64) collio__word finished;
    _Alignas(64) collio__word arrived;  /* barrier (rank 0's): ranks in */
    _Alignas(64) collio__word released; /* barrier (rank 0's): rounds out */
    _Atomic int32_t pid;                /* for the waits' liveness checks */
};

int collio__mp_relay_groups(int P, int K)
{
    int G = (int)((int64_t)RELAY_HANDOFFS * K / (P > 0 ? P : 1));
    return K >= P || P < 2 ? P : G < 2 ? 2 : G > P ? P : G;
}

int collio__mp_relay_lanes(int P, int K, int h)
{
    return h == 0 ? P : K;
}

void collio__mp_relay_schedule(int P, int me, int K, int G, int *lo, int *prev, int *next)
{
    /* group 0 is owner 0 alone (its write starts first, and nothing
     * hides its copies); the others share the rest evenly */
    lo[0] = 0;
    for (int h = 1; h <= G; h++)
        lo[h] = G < 2 ? P : 1 + (int)((int64_t)(h - 1) * (P - 1) / (G - 1));
    for (int h = 0; h < G; h++) {
        /* lane order of group h: rotated to start at lo[h] */
        const int L = collio__mp_relay_lanes(P, K, h), t = (me - lo[h] + P) % P;
        prev[h] = t - L >= 0 ? (lo[h] + t - L) % P : -1;
        next[h] = t + L < P ? (lo[h] + t + L) % P : -1;
    }
}

/* Collective: the words' window, this rank's words zeroed. */
static int ctl_open(collio_plan *p, collio__mp_relay *r)
{
    const int P = p->nranks;
    struct collio__mp_relay_ctl *mine = NULL;
    int rc = COLLIO_OK;
    if (MPI_Win_allocate_shared((MPI_Aint)sizeof *mine, (int)sizeof *mine, MPI_INFO_NULL,
                                p->comm, &mine, &r->win)
        != MPI_SUCCESS) {
        r->win = MPI_WIN_NULL;
        return COLLIO_ERR_NOMEM;
    }
    MPI_Win_set_errhandler(r->win, MPI_ERRORS_RETURN);
    atomic_init(&mine->token, 0);
    atomic_init(&mine->done, 0);
    atomic_init(&mine->written, 0);
    atomic_init(&mine->finished, 0);
    atomic_init(&mine->arrived, 0);
    atomic_init(&mine->released, 0);
    atomic_init(&mine->pid, (int32_t)getpid());
    r->ctl = malloc((size_t)P * sizeof *r->ctl);
    r->pids = malloc((size_t)P * sizeof *r->pids);
    if (r->ctl == NULL || r->pids == NULL)
        return COLLIO_ERR_NOMEM;
    for (int q = 0; q < P && rc == COLLIO_OK; q++) {
        MPI_Aint sz;
        int du;
        if (MPI_Win_shared_query(r->win, q, &sz, &du, &r->ctl[q]) != MPI_SUCCESS)
            rc = COLLIO_ERR_MPI;
        else
            r->pids[q] = &r->ctl[q]->pid;
    }
    r->peers.pid = r->pids;
    r->peers.n = rc == COLLIO_OK ? P : 0;
    return rc;
}

int collio__mp_relay_init(collio_plan *p, collio__mp_relay *r)
{
    const int P = p->nranks;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    int cores = n > 0 && n < INT32_MAX ? (int)n : 1, fewest = 1;
    MPI_Allreduce(&cores, &fewest, 1, MPI_INT, MPI_MIN, p->comm);
    memset(r, 0, sizeof *r);
    r->win = MPI_WIN_NULL;
    int rc = ctl_open(p, r); /* collective */
    r->nlanes = fewest - 1 < 1 ? 1 : fewest - 1 > P ? P : fewest - 1;
    r->ngroups = collio__mp_relay_groups(P, r->nlanes);
    const int G = r->ngroups;
    r->lo = malloc((size_t)(G + 1) * sizeof *r->lo);
    r->prev = malloc((size_t)G * sizeof *r->prev);
    r->next = malloc((size_t)G * sizeof *r->next);
    if (rc == COLLIO_OK && (!r->lo || !r->prev || !r->next))
        rc = COLLIO_ERR_NOMEM;
    if (rc == COLLIO_OK) {
        collio__mp_relay_schedule(P, p->rank, r->nlanes, G, r->lo, r->prev, r->next);
        while (p->rank >= r->lo[r->mine + 1])
            r->mine++;
        for (int h = 0; h < G; h++)
            r->ntokens += r->prev[h] >= 0;
    }
    return rc;
}

void collio__mp_relay_free(collio__mp_relay *r)
{
    if (r->win != MPI_WIN_NULL)
        MPI_Win_free(&r->win);
    free(r->ctl);
    free(r->pids);
    free(r->lo);
    free(r->prev);
    free(r->next);
    memset(r, 0, sizeof *r);
    r->win = MPI_WIN_NULL;
}

/* A wait of the relay, its liveness checks against every rank of the
 * node; a failed wait's code goes into *rc. Returns it. */
static int wait_ok(int *rc, collio__word *w, uint32_t target, const collio__mp_relay *r)
{
    int wrc = collio__word_wait(w, target, &r->peers);
    if (wrc != COLLIO_OK)
        *rc = wrc;
    return wrc;
}

int collio__mp_relay_write(collio_plan *p, const collio__mp_direct *d, collio__mp_shm *s,
                           collio_file *f, const char *stream, double *t_file)
{
    collio__mp_relay *r = &s->relay;
    struct collio__mp_relay_ctl **ctl = r->ctl;
    const int P = p->nranks, me = p->rank, K = r->nlanes;
    const size_t es = p->layout->esize;
    const uint32_t call = r->calls++; /* words expected so far: per call */
    uint32_t tokens = call * (uint32_t)r->ntokens;
    int rc = COLLIO_OK;
    *t_file = 0;
    for (int h = 0; h < r->ngroups; h++) {
        if (r->prev[h] >= 0 && wait_ok(&rc, &ctl[me]->token, ++tokens, r) != COLLIO_OK)
            return rc; /* a peer died: the protocol cannot complete */
        double t0 = collio__now();
        for (int q = r->lo[h]; q < r->lo[h + 1]; q++)
            collio__mp_scatter(&d->peer[q], es, stream, s->base[q]);
        p->stats.copy_s += collio__now() - t0;
        MPI_Win_sync(s->win); /* the copies before the word */
        if (r->next[h] >= 0) {
            collio__word_post(&ctl[r->next[h]]->token);
        } else { /* the lane's last: its lane is done with group h */
            for (int q = r->lo[h]; q < r->lo[h + 1]; q++)
                collio__word_post(&ctl[q]->done);
        }
        if (h != r->mine)
            continue;
        /* the own write: every lane done with this group, and the owner
         * before done writing */
        if (wait_ok(&rc, &ctl[me]->done,
                    (call + 1) * (uint32_t)collio__mp_relay_lanes(P, K, h), r)
                != COLLIO_OK
            || (me > 0 && wait_ok(&rc, &ctl[me]->written, call + 1, r) != COLLIO_OK))
            return rc;
        MPI_Win_sync(s->win); /* every copy into the own F seen */
        double t1 = collio__now();
        int frc = collio__mp_file_runs(p, &d->fin, f, s->base[me], 1);
        if (rc == COLLIO_OK)
            rc = frc;
        *t_file = collio__now() - t1;
        collio__word_post(me + 1 < P ? &ctl[me + 1]->written : &ctl[0]->finished);
    }
    wait_ok(&rc, &ctl[0]->finished, call + 1, r);
    return rc;
}

int collio__mp_relay_barrier(collio_plan *p, collio__mp_relay *r)
{
    struct collio__mp_relay_ctl *c0 = r->ctl[0];
    const uint32_t b = r->barriers++, P = (uint32_t)p->nranks;
    uint32_t before = atomic_fetch_add_explicit(&c0->arrived, 1u, memory_order_acq_rel);
    if (before == (b + 1) * P - 1) { /* the last one in */
        collio__word_post(&c0->released);
        return COLLIO_OK;
    }
    return collio__word_wait(&c0->released, b + 1, &r->peers);
}
