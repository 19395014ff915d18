/*
 * multiphase.h -- the plan of the multiphase strategy (private to
 * multiphase*.c and tests/unit_multiphase.c). See multiphase.c for the
 * algorithm, multiphase_schedule.c for the hypercube schedule and domains.c
 * for the file domains.
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

/* ---- the hypercube schedule (multiphase_schedule.c; pure) */

/* ceil(log2 nranks) phases; phase ph pairs rank r with r XOR 2^ph and
 * splits each group's file range in two. What rank `rank` does in phase
 * ph: */
typedef struct collio__mp_step {
    int group_size; /* ranks sharing this rank's range before the phase; 1 = idle */
    int side;       /* 0: keeps the lower part, 1: the upper part */
    int partner;    /* exchanges both ways with this rank, or -1 */
    int lonely_to;  /* no partner: only sends, to this rank, or -1 */
    int extra_from; /* also receives from this lonely rank, or -1 */
    int64_t group_lo, mid, group_hi; /* group range [lo, hi) split at mid */
    int64_t keep_lo, keep_hi;        /* kept part [lo, hi) */
    int64_t send_lo, send_hi;        /* part sent away [lo, hi) (may be empty) */
} collio__mp_step;

/* Phases of a full schedule: ceil(log2 nranks). */
int collio__mp_nphases(int nranks);
/* The domain a rank holds after all phases of the hypercube schedule (bit
 * reversal for P = 2^n; multiphase_schedule.c). Also the strategy's
 * rank_domain hook, which the DOMAIN replica policy follows. */
int collio__mp_domain_of_rank(int nranks, int rank);
void collio__mp_step_of(int nranks, int64_t nglobal, int rank, int ph,
                        collio__mp_step *st);

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
    collio__mp_direct *direct; /* the last round of a plan with last_direct:
                                  moves directly from the stream into F (no
                                  slots; pass unused); else NULL */
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
    int64_t send_tuples;    /* descriptors of what this rank sends */
    collio__mp_final fin;   /* F -> file: one run, the domain (a plan's
                               direct exchange; not a round's) */
    collio__mp_final self;  /* the rank's own pieces: ops stream <-> F */
    collio__mp_final *peer; /* the shm transport: per peer q, ops
                               stream <-> q's F (after pull rounds:
                               the pushed tail only); NULL: messages */
    MPI_Request *rq;        /* 2 P requests, kept for the executor */
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

/* The shm transport's state (multiphase_shm.c): every rank's F is its
 * segment of one MPI_Win_allocate_shared window. */
typedef struct collio__mp_shm {
    MPI_Win win;                  /* MPI_WIN_NULL until the first execution */
    char **base;                  /* F of each rank, in this process's address space */
    size_t bytes;                 /* this rank's segment */
    collio__mp_relay relay;       /* the order of a write (multiphase_relay.c);
                                     made with the plan, kept while F comes and goes */
    struct collio__mp_pull *pull; /* small blocks: the pull rounds
                                     (multiphase_pull.c); NULL: push only */
} collio__mp_shm;

typedef struct collio__mp_plan collio__mp_plan;

/* One transport ("exchange") of the multiphase strategy: how the data
 * moves between the ranks' streams and the ranks' file-order buffers F,
 * and F to and from the file. The plan holds the one collio__mp_choose
 * picked; multiphase.c dispatches through it. Each transport's file
 * defines its entry with designated initializers. */
typedef struct collio__mp_transport {
    const char *name; /* "hypercube", "direct", "shm" */
    int exchange;     /* the collio_exchange it reports in stats.multiphase.exchange */
    /* Collective inspector: builds the transport's part of mp from
     * p->layout (mp->nphases, allphases, esize and the chooser's fields
     * set); sets stats.plan_bytes. Returns the code every rank agreed on. */
    int (*build)(collio_plan *p, collio__mp_plan *mp);
    /* Collective executor: packed stream -> file, file -> packed stream. */
    int (*write)(collio_plan *p, collio_file *f, const char *stream);
    int (*read)(collio_plan *p, collio_file *f, char *stream);
    /* Frees what build made, also after a failed build (collective where
     * it frees windows, as collio_plan_free is). */
    void (*free)(collio__mp_plan *mp);
} collio__mp_transport;

/* The entries, in multiphase_hypercube.c, multiphase_direct.c and
 * multiphase_shm.c; multiphase_choose.c maps the exchanges to them. */
extern const collio__mp_transport collio__mp_transport_hypercube;
extern const collio__mp_transport collio__mp_transport_direct;
extern const collio__mp_transport collio__mp_transport_shm;
extern const collio__mp_transport
    collio__mp_transport_node_direct; /* multiphase_node.c */
extern const collio__mp_transport collio__mp_transport_node_hypercube; /* likewise */

struct collio__mp_plan {
    /* collio__mp_choose's transport (NULL until chosen) and what it set
     * for the builders: last_direct, the hypercube's plans in rounds move
     * their last round directly; pull_rounds, the shm transport's pull
     * rounds before the push (0: push only) */
    const collio__mp_transport *transport;
    int last_direct;
    int pull_rounds;
    int nphases;   /* phases run (k) */
    int allphases; /* ceil(log2 P) */
    size_t esize;
    /* the hypercube transport */
    collio__mp_pass whole;        /* all data at once: reads, and writes whose
                                     stream may serve as scratch */
    collio__mp_round *rounds;     /* writes that keep the stream intact */
    int nrounds;                  /* 0: such writes use `whole` too */
    int scratch_all;              /* every rank's writes get scratch space
                                     (destroy_input, or a memory kind that
                                     packs into a copy): one pass, no rounds.
                                     Agreed at plan creation, so that all
                                     ranks take the same path */
    int64_t spill;                /* rounds: elements of the spill area after F */
    int64_t fsize;                /* rounds, direct, shm: elements of F (the domain) */
    collio__mp_direct *direct;    /* the direct and shm transports */
    collio__mp_shm shm;           /* the shm transport */
    struct collio__mp_node *node; /* the node transports (multiphase_node.h) */
    char *held[2];                /* the work buffers kept between executions
                                     (hint plan.keep_buffers; NULL until first used) */
    size_t held_bytes[2];
};

/* ---- the chooser (multiphase_choose.c) */

/* Collective: the transport of this plan for opts.multiphase.exchange, from the
 * layout, P and the node (mp->nphases, allphases set); sets mp->last_direct
 * and mp->pull_rounds, and stats.multiphase.shm_fallback where it asked about shared
 * memory. Every threshold of the choice lives there. NULL with *rc set
 * (COLLIO_ERR_ARG for an exchange without a transport yet, or one that
 * contradicts opts.multiphase.phases): the same on every rank. */
const collio__mp_transport *collio__mp_choose(collio_plan *p, collio__mp_plan *mp,
                                              int *rc);

/* ---- the kit: what the transports share (multiphase_kit.c) */

/* The message to one peer: the buffer ranges of its pieces dv (mem =
 * buffer position; merged where they touch) as an MPI type in bytes, and
 * its element count; then each piece's mem becomes its position in the
 * message, as the receiver needs it. */
int collio__mp_send_type(collio__segvec *dv, size_t esize, MPI_Datatype *t,
                         int64_t *elems);

/* An MPI type placing the descriptors v[0..n) (file offsets; consecutive
 * in the message) into a buffer that holds file elements [lo, ...): a
 * struct of contiguous runs and hvectors, in message order. */
int collio__mp_place_type(const collio__seg *v, int64_t n, int64_t lo, size_t esize,
                          MPI_Datatype *t);

/* Scatter (A -> F, file order) and gather (F -> A) of the final ops. */
void collio__mp_scatter(const collio__mp_final *fin, size_t esize, const char *a,
                        char *f);
void collio__mp_gather(const collio__mp_final *fin, size_t esize, const char *f, char *a);

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

/* End of an execution: the plan keeps its buffers (opts.multiphase.keep_buffers) or
 * frees them. */
void collio__mp_bufs_done(collio_plan *p, collio__mp_bufs *w);

/* The file requests of fin between F and the file (to_file: write, else
 * read), timed into file_s and counted. */
int collio__mp_file_runs(collio_plan *p, const collio__mp_final *fin, collio_file *f,
                         char *F, int to_file);

/* The final step of a rank that holds its whole domain [lo, hi) in file
 * order: F -> file in one request. */
int collio__mp_final_domain(collio__mp_final *fin, int64_t lo, int64_t hi);

void collio__mp_final_free(collio__mp_final *fin);

/* An MPI type covering n ranges (positions in elements) of a buffer, in
 * bytes; *t = MPI_DATATYPE_NULL if they hold nothing. */
int collio__mp_ranges_type(const collio__mp_range *r, int64_t n, size_t esize,
                           MPI_Datatype *t);

/* Collective: counts, then descriptors, of desc[q] to every peer q. rc: a
 * local failure so far (agreed). On OK, *in holds what came from peer q
 * at [in_at[q], in_at[q + 1]). */
int collio__mp_swap_desc(collio_plan *p, const collio__segvec *desc, int rc,
                         collio__seg **in, int *in_at);

/* ---- the hypercube: pure inspector steps (multiphase_plan.c; no MPI),
 * used by its inspector and the unit test */

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

/* ---- the hypercube: rounds (multiphase_rounds.c; pure) */

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

/* ---- the hypercube: the collective inspector (multiphase_inspect.c) */

/* Collective: builds mp->whole and, for writes that leave the stream
 * intact, mp->rounds from p->layout (mp->nphases, allphases, esize and
 * last_direct set; mp->whole initialised). Returns the code every rank
 * agreed on. */
int collio__mp_inspect(collio_plan *p, collio__mp_plan *mp);

/* A pass without datatypes yet (every pass starts so: collio__mp_pass_free
 * frees the others). */
void collio__mp_pass_init(collio__mp_pass *ps);

/* Frees a pass's descriptors and datatypes (not the pass itself). */
void collio__mp_pass_free(collio__mp_pass *ps);

/* Frees a plan's rounds; the plan then has none. */
void collio__mp_drop_rounds(collio__mp_plan *mp);

/* ---- the hypercube: the executor (multiphase_exec.c) */

/* Collective: a write / read through the plan's passes or rounds. */
int collio__mp_hypercube_write(collio_plan *p, collio_file *f, const char *stream);
int collio__mp_hypercube_read(collio_plan *p, collio_file *f, char *stream);

/* ---- the direct exchange (multiphase_direct.c; its transport's entry,
 * and the builder the hypercube's last round and the shm transport use) */

/* Collective: a direct exchange of the pieces segs[0..nsegs) (stream
 * positions; the layout's, or a round's clip of them) into F, whose
 * first element is file element flo; this rank receives file elements
 * [lo, hi). shm: per-peer copy ops into the peers' F (d->peer) instead of
 * MPI types. rc: a local failure so far (agreed here, every rank takes
 * part). *out is set even on failure (free it). */
int collio__mp_direct_new(collio_plan *p, const collio__seg *segs, int64_t nsegs, int rc,
                          int64_t flo, int64_t lo, int64_t hi, int shm,
                          collio__mp_direct **out);

void collio__mp_direct_free(collio__mp_direct *d);

/* The plan memory of a direct exchange (0 for NULL). */
int64_t collio__mp_direct_bytes(const collio__mp_direct *d);

/* Collective: one direct exchange between the stream and F (write: stream
 * -> F; read: F -> stream), timed into exchange_s and, for phase >= 0,
 * into that phase's stats. */
int collio__mp_direct_move(collio_plan *p, const collio__mp_direct *d, char *stream,
                           char *F, int write, int phase);

/* ---- the pull rounds of the shm transport (multiphase_pull.c) */

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

/* ---- the order of a shm write (multiphase_relay.c) */

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

/* ---- options and stats (multiphase_options.c): the section's tables,
 * indexed by these (collio__opt(p, MP_OPT_*), collio__stat_set(p,
 * MP_STAT_*, ...)). */
enum { MP_OPT_PHASES, MP_OPT_WRITE_ROUNDS, MP_OPT_EXCHANGE, MP_OPT_SHARED_MEMORY, MP_NOPTIONS };
enum {
    MP_STAT_EXCHANGE,
    MP_STAT_SHARED_MEMORY,
    MP_STAT_SHM_FALLBACK,
    MP_STAT_NET_BW,
    MP_STAT_MEM_BW,
    MP_NSTATS
};
extern const collio__option collio__mp_options[MP_NOPTIONS];
extern const collio__stat collio__mp_stats[MP_NSTATS];

#endif /* COLLIO_MULTIPHASE_H */
