/*
 * shm/shm.h -- the shm transport of the multiphase strategy (private to
 * shm/ and tests/unit_relay.c): the shared-memory window, the order of a
 * write (the relay), the pull rounds of small blocks, and the transport's
 * state behind mp->state.
 */
#ifndef COLLIO_MP_SHM_H
#define COLLIO_MP_SHM_H

#include "../multiphase.h"

/* The order of a shared-memory write (shm/relay.c). Owners in ngroups groups of
 * consecutive ranks (group h: lo[h] .. lo[h + 1] - 1); copies for each group in nlanes
 * token-passing lanes; prev / next: this rank's lane neighbours in group h (-1: none). */
typedef struct collio__mp_relay {
    int nlanes, ngroups;
    int *lo, *prev, *next;
    int mine;                          /* this rank's group */
    int ntokens;                       /* lane tokens this rank gets per call */
    uint32_t calls;                    /* writes so far (the words only grow) */
    uint32_t barriers;                 /* barriers so far */
    MPI_Win win;                       /* the words (struct in shm/relay.c) */
    struct collio__mp_relay_ctl **ctl; /* every rank's words */
    _Atomic int32_t **pids;            /* every rank's process id (in ctl) */
    collio__peers peers;               /* the waits' liveness checks */
} collio__mp_relay;

/* The shm transport's state (transport.c): every rank's F is its segment
 * of one MPI_Win_allocate_shared window. */
typedef struct collio__mp_shm {
    MPI_Win win;                  /* MPI_WIN_NULL until the first execution */
    char **base;                  /* F of each rank, in this process's address space */
    size_t bytes;                 /* this rank's segment */
    collio__mp_relay relay;       /* the order of a write (shm/relay.c);
                                     made with the plan, kept while F comes and goes */
    struct collio__mp_pull *pull; /* small blocks: the pull rounds
                                     (pull.c); NULL: push only */
    collio__mp_direct *direct;    /* the direct exchange with per-peer copy
                                     ops (the push) */
} collio__mp_shm;

/* The transport's state (mp->state). */
#define SHM(mp) ((collio__mp_shm *)(mp)->state)

/* ---- the pull rounds of the shm transport (shm/pull.c) */

/* Rounds i = 0 .. nrounds - 1 each gather part i, [c_i, c_i+1), of every
 * domain from staging areas in the sources' F[c_i+1, ...); the rest of
 * every domain is pushed (the direct plan's peer ops). */
typedef struct collio__mp_pull {
    int nrounds;
    int64_t seg_elems;        /* the rank's window segment: F + slack */
    int64_t sent_elems;       /* staged for other ranks, every round */
    collio__mp_final *stage;  /* [nrounds] stream -> own F (mem = stream
                                 position, off = F position) */
    collio__mp_final *gath;   /* [nrounds] sources' segments -> own F (mem =
                                 position in the source's segment) */
    int **src;                /* [nrounds][gath.nops] source rank of an op */
    collio__mp_final *gbytes; /* gath in bytes, mem = offset from the first
                                 segment of the window (pull_rebase) */
} collio__mp_pull;

/* c_i of a domain of n elements: c_0 = 0, c_i+1 = c_i + (n - c_i) / 2. */
int64_t collio__mp_pull_cut(int64_t n, int i);

/* Collective: nrounds (>= 1) pull rounds of the rank's domain [lo, hi).
 * *out is set even on failure (free it). */
int collio__mp_pull_build(collio_plan *p, int nrounds, int64_t lo, int64_t hi,
                          collio__mp_pull **out);

/* Local: the layout's pieces in the tail [c_nrounds, end) of every
 * domain, appended to *tail. */
int collio__mp_pull_tail(collio_plan *p, int nrounds, collio__segvec *tail);

/* Local: gbytes from gath, for a window whose segments are at base[q]. */
int collio__mp_pull_rebase(collio__mp_pull *pl, char *const *base, size_t esize);

void collio__mp_pull_free(collio__mp_pull *pl);

/* ---- the order of a shm write (shm/relay.c) */

/* Pure: the group count for P ranks and K lanes, and the lanes of group
 * h (group 0: every rank at once, as no write runs beside it). */
int collio__mp_relay_groups(int P, int K);
int collio__mp_relay_lanes(int P, int K, int h);

/* Pure: group bounds lo (G + 1) and rank me's lane neighbours prev, next
 * (G each) for P ranks, K lanes, G groups. */
void collio__mp_relay_schedule(int P, int me, int K, int G, int *lo, int *prev,
                               int *next);

/* Collective: the relay of a plan (K from the cores online, min over
 * ranks); to be freed with collio__mp_relay_free even on failure. */
int collio__mp_relay_init(collio_plan *p, collio__mp_relay *r);
/* Collective: frees the words' window (a zeroed relay is a no-op). */
void collio__mp_relay_free(collio__mp_relay *r);

/* Collective: a barrier on the relay's words (the waiting ranks sleep). */
int collio__mp_relay_barrier(collio_plan *p, collio__mp_relay *r);

/* Collective: a write's pushes (d->peer into the window's F) and the own
 * F's file write, in the relay's order; *t_file gets the write's time.
 * Returns the file write's code (not agreed). */
int collio__mp_relay_write(collio_plan *p, const collio__mp_direct *d, collio__mp_shm *s,
                           collio_file *f, const char *stream, double *t_file);

#endif /* COLLIO_MP_SHM_H */
