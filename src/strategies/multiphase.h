/*
 * multiphase.h -- the plan of the multiphase strategy (private to
 * multiphase*.c and tests/unit_multiphase.c). See multiphase.c for the
 * algorithm; domains.c for the hypercube schedule and file domains.
 *
 * The plan is a list of phases plus a final step, each described with
 * element positions (multiply by esize for bytes). Buffers hold their data
 * "segment-major": a list of collio__seg whose `mem` is the position in the
 * buffer, blocks of one segment consecutive. Clipping a segment to a file
 * range therefore gives a piece that is ONE contiguous range of the buffer,
 * so every phase moves a handful of large contiguous ranges whatever the
 * block size; only the final step scatters blocks into file order.
 * Half-open ranges [pos, pos + n) everywhere.
 */
#ifndef COLLIO_MULTIPHASE_H
#define COLLIO_MULTIPHASE_H

#include "collio_internal.h"

/* Elements per MPI datatype block (counts are int; in bytes below 2^31
 * for elements of up to 2 bytes, else in units of an element type). */
#define COLLIO_MP_MAX_BLOCK ((int64_t)1 << 30)

typedef struct collio__mp_direct collio__mp_direct; /* below */

/* n elements from source position src to destination position dst. */
typedef struct collio__mp_copy {
    int64_t src, dst, n;
} collio__mp_copy;

/* n elements at buffer position pos. */
typedef struct collio__mp_range {
    int64_t pos, n;
} collio__mp_range;

/* One exchange phase: buffer A (before; the user's stream in phase 0 of a
 * write) -> buffer B (after) = [kept pieces | partner's data | extra's data]. */
typedef struct collio__mp_phase {
    collio__mp_step step;
    int idle;                 /* group of one rank: B is A, nothing moves */
    int src_slot, dst_slot;   /* work buffer of A and B; -1 = user stream */
    int64_t a_elems, b_elems; /* elements in A and B */
    collio__mp_copy *keep;    /* A -> B copies of the kept pieces */
    int64_t nkeep;
    collio__mp_range *send; /* pieces of A sent, in message order */
    int64_t nsend;
    int64_t send_elems;
    int64_t recv_pos, recv_elems;   /* from partner: B[recv_pos, +recv_elems) */
    int64_t xrecv_pos, xrecv_elems; /* from the lonely rank (extra_from) */
    int64_t tuples;                 /* strided descriptors of what is sent */
    /* MPI datatypes in units of bytes (built by multiphase_plan.c): send =
     * the pieces of A, recv / xrecv = the regions of B. NULL if empty. */
    MPI_Datatype send_type, recv_type, xrecv_type;
} collio__mp_phase;

/* The final step: buffer A (what the rank holds after the phases,
 * segment-major) -> F (the same elements in file order) -> file. */
typedef struct collio__mp_final {
    int64_t nelems;   /* elements held (= F size) */
    collio__seg *ops; /* A -> F scatter: off = F position, mem = A position */
    int64_t nops;
    collio__seg *runs; /* file requests: off = file element, mem = F position;
                          one request per block */
    int64_t nruns;
    int64_t requests;       /* blocks of runs */
    int identity;           /* F == A (already in file order): no copy */
    int src_slot, dst_slot; /* A's and F's buffer (-1 = user stream) */
} collio__mp_final;

/* Phases plus final step over (a part of) the rank's data, with the sizes
 * of the two work buffers ("slots") they use. */
typedef struct collio__mp_pass {
    collio__mp_phase ph[COLLIO_MAX_PHASES];
    collio__mp_final fin;
    int64_t bufsize[2]; /* elements of slot 0 and slot 1 */
} collio__mp_pass;

/* One round of a low-memory write (multiphase_rounds.c): the pass over the
 * data that lands in F[target, target + fin.nelems) of the rank's domain
 * buffer F, its slots placed in F from there on (running into the spill
 * area after F where F has no room left). */
typedef struct collio__mp_round {
    collio__mp_pass pass;
    collio__mp_direct *direct; /* non-NULL: the round moves directly from
                                  the stream into F (no slots); pass unused */
    int64_t target;            /* F position of the round's first element */
    int64_t slot_pos[2];       /* F position of each slot */
} collio__mp_round;

/* The direct exchange (multiphase_direct.c): all phases merged into one.
 * Per peer rank (arrays of P): what goes to it, an MPI type over the
 * stream, and where its data lands, an MPI type over F (the rank's domain
 * buffer, file order). MPI_DATATYPE_NULL where nothing moves. */
struct collio__mp_direct {
    int npeers; /* P */
    MPI_Datatype *send_type, *recv_type;
    int64_t *send_elems, *recv_elems;
    int64_t send_tuples;          /* descriptors of what this rank sends */
    collio__mp_final fin;         /* F -> file: one run, the domain (a plan's
                                     direct exchange; not a round's) */
    collio__mp_final self;        /* the rank's own pieces: ops stream <-> F */
    collio__mp_final *peer;       /* shared memory (multiphase_shm.c): per peer
                                     q, ops stream <-> q's F; NULL: messages */
    struct collio__mp_pull *pull; /* shared memory, small blocks: the
                                     pull rounds (multiphase_pull.c); peer
                                     then holds the pushed tail only */
    MPI_Request *rq;              /* 2 P requests, kept for the executor */
};

/* The order of a shared-memory write (multiphase_relay.c). Owners in ngroups groups of
 * consecutive ranks (group h: lo[h] .. lo[h + 1] - 1); copies for each group in nlanes
 * token-passing lanes; prev / next: this rank's lane neighbours in group h (-1: none). */
typedef struct collio__mp_relay {
    int nlanes, ngroups;
    int *lo, *prev, *next;
    int mine;                          /* this rank's group */
    int ntokens;                       /* lane tokens this rank gets per call */
    uint32_t calls;                    /* writes so far (the words only grow) */
    uint32_t barriers;                 /* barriers so far */
    MPI_Win win;                       /* the words (struct in multiphase_relay.c) */
    struct collio__mp_relay_ctl **ctl; /* every rank's words */
    _Atomic int32_t **pids;            /* every rank's process id (in ctl) */
    collio__peers peers;               /* the waits' liveness checks */
} collio__mp_relay;

/* The shared-memory window of a direct exchange (multiphase_shm.c):
 * every rank's F is its segment of one MPI_Win_allocate_shared window. */
typedef struct collio__mp_shm {
    MPI_Win win;            /* MPI_WIN_NULL until the first execution */
    char **base;            /* F of each rank, in this process's address space */
    size_t bytes;           /* this rank's segment */
    collio__mp_relay relay; /* the order of a write (multiphase_relay.c);
                               made with the plan, kept while F comes and goes */
} collio__mp_shm;

typedef struct collio__mp_plan {
    int nphases;   /* phases run (k) */
    int allphases; /* ceil(log2 P) */
    size_t esize;
    collio__mp_pass whole;        /* all data at once: reads, and writes whose
                                     stream may serve as scratch */
    collio__mp_round *rounds;     /* writes that keep the stream intact */
    int nrounds;                  /* 0: such writes use `whole` too */
    int scratch_all;              /* every rank's writes get scratch space
                                     (destroy_input, or a memory kind that
                                     packs into a copy): one pass, no rounds.
                                     Agreed at plan creation, so that all
                                     ranks take the same path */
    int64_t fsize;                /* rounds: elements of F (the domain) */
    int64_t spill;                /* rounds: elements of the spill area after F */
    collio__mp_direct *direct;    /* non-NULL: the exchange is direct, and
                                     whole / rounds are not built */
    collio__mp_shm shm;           /* direct->peer: the window of F */
    struct collio__mp_node *node; /* non-NULL: a node-aware exchange
                                     (multiphase_node.h) */
    char *held[2];                /* the work buffers kept between executions
                                     (opts.keep_buffers; NULL until first used) */
    size_t held_bytes[2];
} collio__mp_plan;

/* ---- pure inspector steps (no MPI), used by the plan and the unit test */

/* Phase, local half: splits the held segments (buffer A, a_elems elements)
 * into kept pieces and sent pieces for `st`. Fills ph->step, idle, a_elems,
 * keep, send, send_elems, tuples. *kept gets the kept pieces with their
 * positions in B (B starts with them); *out the descriptors of what is sent
 * (mem = position in the message). */
int collio__mp_phase_split(const collio__seg *held, int64_t nheld, int64_t a_elems,
                           const collio__mp_step *st, collio__mp_phase *ph,
                           collio__segvec *kept, collio__segvec *out);

/* Phase, second half: appends the descriptors received from the partner
 * (rp) and the lonely rank (rx) to *held (which holds the kept pieces on
 * entry) with their positions in B; sets recv_pos/elems, xrecv_pos/elems,
 * b_elems. */
int collio__mp_phase_join(collio__mp_phase *ph, collio__segvec *held,
                          const collio__seg *rp, int64_t nrp, const collio__seg *rx,
                          int64_t nrx);

/* Final step from the held segments (positions in A): scatter ops into
 * file order and the file runs. [lo, hi) is the file range the rank's
 * group holds; when the held elements cover it, F position = off - lo and
 * the file access is one run (the domain). */
int collio__mp_final_build(const collio__seg *held, int64_t nheld, int64_t lo, int64_t hi,
                           collio__mp_final *fin);

void collio__mp_phase_free(collio__mp_phase *ph);
void collio__mp_final_free(collio__mp_final *fin);

/* ---- the collective inspector (multiphase_inspect.c) */

/* Collective: builds mp->whole and, for writes that leave the stream
 * intact, mp->rounds from p->layout (mp->nphases, allphases and esize
 * set). Returns the code every rank agreed on. */
int collio__mp_inspect(collio_plan *p, collio__mp_plan *mp);

/* A pass without datatypes yet (every pass starts so: collio__mp_pass_free
 * frees the others). */
void collio__mp_pass_init(collio__mp_pass *ps);

/* Frees a pass's descriptors and datatypes (not the pass itself). */
void collio__mp_pass_free(collio__mp_pass *ps);

/* Frees a plan's rounds; the plan then has none. */
void collio__mp_drop_rounds(collio__mp_plan *mp);

/* An MPI type covering n ranges (positions in elements) of a buffer, in
 * bytes; *t = MPI_DATATYPE_NULL if they hold nothing. */
int collio__mp_ranges_type(const collio__mp_range *r, int64_t n, size_t esize,
                           MPI_Datatype *t);

/* ---- the direct exchange (multiphase_direct.c) */

/* An MPI type placing the descriptors v[0..n) (file offsets; consecutive
 * in the message) into a buffer that holds file elements [lo, ...): a
 * struct of contiguous runs and hvectors, in message order. */
int collio__mp_place_type(const collio__seg *v, int64_t n, int64_t lo, size_t esize,
                          MPI_Datatype *t);

/* Collective: 1 where the automatic choice (opts.exchange = AUTO) takes the
 * direct exchange for this layout: the same answer on every rank. */
int collio__mp_direct_wanted(collio_plan *p);

/* Collective: the layout's mean block in bytes (elements over blocks,
 * summed over all ranks), or -1 if it has no blocks or MPI failed. */
int64_t collio__mp_mean_block_bytes(collio_plan *p);

/* Collective: builds mp->direct (and mp->fsize) from p->layout; shm: the
 * pieces go through a shared-memory window (peer ops, pull rounds).
 * Returns this rank's code (the caller agrees on it). */
int collio__mp_direct_build(collio_plan *p, collio__mp_plan *mp, int shm);

/* Collective: a direct exchange of the pieces segs[0..nsegs) (stream
 * positions; the layout's, or a round's clip of them) into F, whose
 * first element is file element flo; this rank receives file elements
 * [lo, hi). rc: a local failure so far (agreed here, every rank takes
 * part). *out is set even on failure (free it). */
int collio__mp_direct_new(collio_plan *p, const collio__seg *segs, int64_t nsegs, int rc,
                          int64_t flo, int64_t lo, int64_t hi, int shm,
                          collio__mp_direct **out);

/* 1 where a plan in rounds moves its last round directly (no slots, so no
 * spill area): opts.exchange AUTO and P <= the direct exchange's limit. */
int collio__mp_direct_last_round(const collio_plan *p);

void collio__mp_direct_free(collio__mp_direct *d);

/* Collective: one direct exchange between the stream and F (write: stream
 * -> F; read: F -> stream), timed into exchange_s and, for phase >= 0,
 * into that phase's stats. */
int collio__mp_direct_move(collio_plan *p, const collio__mp_direct *d, char *stream,
                           char *F, int write, int phase);

/* ---- the pull rounds of the shared-memory exchange (multiphase_pull.c) */

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

/* Pull rounds for a layout of nglobal elements over nranks (0: push). */
int collio__mp_pull_rounds(int64_t nglobal, int nranks);

/* c_i of a domain of n elements: c_0 = 0, c_i+1 = c_i + (n - c_i) / 2. */
int64_t collio__mp_pull_cut(int64_t n, int i);

/* Collective: 1 where a shared-memory direct plan should pull (mean
 * block below PULL_MAX_BLOCK_BYTES and at least one round). */
int collio__mp_pull_wanted(collio_plan *p);

/* Collective: the pull rounds of the rank's domain [lo, hi). *out is set
 * even on failure (free it). */
int collio__mp_pull_build(collio_plan *p, int64_t lo, int64_t hi, collio__mp_pull **out);

/* Local: the layout's pieces in the tail [c_nrounds, end) of every
 * domain, appended to *tail. */
int collio__mp_pull_tail(collio_plan *p, int nrounds, collio__segvec *tail);

/* Local: gbytes from gath, for a window whose segments are at base[q]. */
int collio__mp_pull_rebase(collio__mp_pull *pl, char *const *base, size_t esize);

void collio__mp_pull_free(collio__mp_pull *pl);

/* Collective: counts, then descriptors, of desc[q] to every peer q. rc: a
 * local failure so far (agreed). On OK, *in holds what came from peer q
 * at [in_at[q], in_at[q + 1]) (multiphase_direct.c). */
int collio__mp_swap_desc(collio_plan *p, const collio__segvec *desc, int rc,
                         collio__seg **in, int *in_at);

/* ---- the direct exchange through shared memory (multiphase_shm.c) */

/* Collective: 1 where a direct plan copies through a shared-memory
 * window: opts.shared_memory and every rank on one node. */
int collio__mp_shm_wanted(collio_plan *p);

/* Collective: the executor's write / read of a direct plan whose pieces
 * go through the window (direct->peer set). */
int collio__mp_shm_write(collio_plan *p, collio_file *f, const char *stream);
int collio__mp_shm_read(collio_plan *p, collio_file *f, char *stream);

/* Collective (MPI_Win_free): frees the window, if any (not the relay:
 * that lives as long as the plan). */
void collio__mp_shm_free(collio__mp_shm *s);

/* ---- the order of a shared-memory write (multiphase_relay.c) */

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

/* Collective: the executor of a direct plan. */
int collio__mp_direct_write(collio_plan *p, collio_file *f, const char *stream);
int collio__mp_direct_read(collio_plan *p, collio_file *f, char *stream);

/* ---- executor pieces shared by the passes and the direct exchange
 * (multiphase_exec.c) */

/* The two work buffers of an execution; buf[1] may be the stream. */
typedef struct collio__mp_bufs {
    char *buf[2];
    int owned[2];
    size_t bytes[2];
} collio__mp_bufs;

/* Collective: work buffers of need[0] and need[1] elements (buffer 1 the
 * stream where stream_ok and allowed), agreed across ranks; the plan's
 * held buffers reused where large enough. */
int collio__mp_bufs_alloc(collio_plan *p, collio__mp_bufs *w, const int64_t need[2],
                          int stream_ok);

/* End of an execution: the plan keeps its buffers (opts.keep_buffers) or
 * frees them. */
void collio__mp_bufs_done(collio_plan *p, collio__mp_bufs *w);

/* The file requests of fin between F and the file (to_file: write, else
 * read), timed into file_s and counted. */
int collio__mp_file_runs(collio_plan *p, const collio__mp_final *fin, collio_file *f,
                         char *F, int to_file);

/* ---- rounds (multiphase_rounds.c) */

/* Start, relative to a domain of m elements, of round i of a write in
 * nrounds rounds (i = nrounds gives m): round i < nrounds - 1 takes half of
 * what earlier rounds left, the last one the rest. */
int64_t collio__mp_round_start(int64_t m, int i, int nrounds);

/* Halving rounds for domains of at least m_min elements of esize bytes:
 * `want` > 0 asks for want + 1 rounds, at most as many as leave every
 * round non-empty; 0 for the automatic choice (multiphase_rounds.c).
 * Returns the number of rounds, 0 for none (fewer than 2 make no sense). */
int collio__mp_round_count(int64_t m_min, size_t esize, int want);

/* The pieces of the layout's segments that lie in round i of every domain
 * (P balanced domains of [0, nglobal)), positions in the stream kept. */
int collio__mp_round_clip(const collio__seg *segs, int64_t nsegs, int64_t nglobal, int P,
                          int i, int nrounds, collio__segvec *out);

/* Places a round's slots (r->pass.bufsize, r->target and the round's
 * element count set) in F (fsize elements); raises *spill to how far they
 * run past F's end. */
void collio__mp_round_place(collio__mp_round *r, int64_t fsize, int64_t *spill);

/* Scatter (A -> F, file order) and gather (F -> A) of the final ops. */
void collio__mp_scatter(const collio__mp_final *fin, size_t esize, const char *a,
                        char *f);
void collio__mp_gather(const collio__mp_final *fin, size_t esize, const char *f, char *a);

#endif /* COLLIO_MULTIPHASE_H */
