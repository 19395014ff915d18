/*
 * multiphase.h -- the plan of the multiphase strategy (private to
 * multiphase*.c and tests/unit_multiphase.c). See multiphase.c for the
 * algorithm, schedule.c for the hypercube schedule and domains.c
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

#include "base/base.h"
#include "core/core.h"
#include "files/files.h"
#include "layouts/layouts.h"
#include "options/options.h"

/* Elements per MPI datatype block (counts are int; in bytes below 2^31
 * for elements of up to 2 bytes, else in units of an element type). */
#define COLLIO_MP_MAX_BLOCK ((int64_t)1 << 30)

/* ---- the hypercube schedule (schedule.c; pure) */

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
 * reversal for P = 2^n; schedule.c). Also the strategy's
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

/* The direct exchange (exchange.c): all phases merged into one.
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

typedef struct collio__mp_plan collio__mp_plan;

/* One transport ("exchange") of the multiphase strategy: how the data
 * moves between the ranks' streams and the ranks' file-order buffers F,
 * and F to and from the file. The plan holds the one collio__mp_choose
 * picked; multiphase.c dispatches through it. Each transport's file
 * defines its entry with designated initializers. */
typedef struct collio__mp_transport {
    const char *name; /* "hypercube", "direct", "shm", ... */
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

/* The exchanges a plan can name (hint multiphase.exchange, stat
 * multiphase.exchange): "auto", resolved by the chooser (choose.c), then
 * one line per built-in transport, then those registered at run time
 * (collio__mp_transport_register). Adding a transport: its folder defines
 * its entry (collio__mp_transport with designated initializers, its name
 * in it) and one line here lists it; the option's names, its range, the
 * stat's values and collio_option_value_name follow (transports.c). */
#define MP_TRANSPORTS(X)                                                                 \
    X(collio__mp_transport_hypercube)                                                    \
    X(collio__mp_transport_direct)                                                       \
    X(collio__mp_transport_node_direct)                                                  \
    X(collio__mp_transport_node_hypercube)
#define MP_DECLARE_TRANSPORT(entry) extern const collio__mp_transport entry;
MP_TRANSPORTS(MP_DECLARE_TRANSPORT)
/* The exchanges the chooser names: "auto", then the built-in transports
 * in MP_TRANSPORTS' order (docs/multiphase.md describes each). */
enum {
    MP_EXCHANGE_AUTO,
    MP_EXCHANGE_HYPERCUBE,      /* ceil(log2 P) pairwise phases */
    MP_EXCHANGE_DIRECT,         /* the phases merged into one */
    MP_EXCHANGE_NODE_DIRECT,    /* node-aware: one message per node pair */
    MP_EXCHANGE_NODE_HYPERCUBE, /* node-aware: hypercube phases between nodes */
    MP_NBUILTIN_EXCHANGES
};

/* The transports' table (transports.c): how many exchanges a plan can
 * name ("auto" included), the transport of exchange x (NULL for "auto"
 * and out of range). */
int collio__mp_nexchanges(void);
const collio__mp_transport *collio__mp_transport_of(int x);
/* "auto", then every transport's name, then NULL: hint
 * multiphase.exchange's values (index = exchange). */
const char *const *collio__mp_exchange_names(void);
/* The name of exchange x (NULL: none), the exchange of a name (-1). */
const char *collio__mp_exchange_name(int x);
int collio__mp_exchange_of(const char *name);

/* A transport defined outside the library's table (a test's, or a
 * program's own) joins it as the next exchange: before the first use of
 * the catalogue, which seals it (as collio__strategy_register). Its name
 * is then a value of hint multiphase.exchange and of the stat, and what
 * collio_option_value_name says of its number; the chooser runs it where the
 * hint names it, with all phases (as the other exchanges but the
 * hypercube). COLLIO_ERR_STATE once sealed, when the table is full (8) or
 * the name is taken. Not thread safe: call it first thing. */
int collio__mp_transport_register(const collio__mp_transport *t);
/* The catalogue's build (options.c, the strategy's sealed_section):
 * no more registrations. */
void collio__mp_transports_seal(void);

/* multiphase's section of the catalogue as the transports' table makes
 * it (options.c): the option multiphase.exchange with every name. */
const collio__section *collio__mp_section(void);

/* The shm transport (shm/): the chooser's form of "direct" on one node,
 * not an exchange of its own. */
extern const collio__mp_transport collio__mp_transport_shm;

struct collio__mp_plan {
    /* collio__mp_choose's transport (NULL until chosen) and what it set
     * for the builders: last_direct, the hypercube's plans in rounds move
     * their last round directly; pull_rounds, the shm transport's pull
     * rounds before the push (0: push only) */
    const collio__mp_transport *transport;
    void *state;  /* the transport's own (its build makes it, its free frees
                     it; each transport's header says what it is) */
    int exchange; /* what the chooser resolved the hint to (stat
                     multiphase.exchange; the shm transport's is "direct") */
    int last_direct;
    int pull_rounds;
    int nphases;   /* phases run (k) */
    int allphases; /* ceil(log2 P) */
    size_t esize;
    int scratch_all; /* every rank's writes get scratch space (destroy_input,
                        or a memory kind that packs into a copy): one pass, no
                        rounds. Agreed at plan creation, so that all ranks
                        take the same path */
    int64_t fsize;   /* elements of F, the rank's domain (rounds, direct,
                        shm) */
    char *held[2];   /* the work buffers kept between executions (hint
                        plan.keep_buffers; NULL until first used) */
    size_t held_bytes[2];
};

/* ---- the chooser (choose.c) */

/* Collective: the transport of this plan for hint multiphase.exchange, from the
 * layout, P and the node (mp->nphases, allphases set); sets mp->last_direct
 * and mp->pull_rounds, and stat multiphase.shm_fallback where it asked about shared
 * memory. Every threshold of the choice lives there. NULL with *rc set
 * (COLLIO_ERR_ARG for an exchange without a transport yet, or one that
 * contradicts hint multiphase.phases): the same on every rank. */
const collio__mp_transport *collio__mp_choose(collio_plan *p, collio__mp_plan *mp,
                                              int *rc);

/* Local, pure: the pull rounds collio__mp_choose gives a shm plan of
 * nglobal elements over nranks whose blocks have mean_block bytes on
 * average (0: pushed only; a negative mean_block: no blocks). */
int collio__mp_pull_rounds_for(int64_t nglobal, int nranks, int64_t mean_block);

/* ---- the kit: what the transports share (kit.c) */

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

/* End of an execution: the plan keeps its buffers (hint plan.keep_buffers) or
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

/* ---- the direct exchange (exchange.c; its transport's entry,
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

/* ---- options and stats (options.c): the section's tables,
 * indexed by these (collio__opt(p, MP_OPT_*), collio__stat_set(p,
 * MP_STAT_*, ...)). */
enum {
    MP_OPT_PHASES,
    MP_OPT_WRITE_ROUNDS,
    MP_OPT_EXCHANGE,
    MP_OPT_SHARED_MEMORY,
    MP_NOPTIONS
};
enum {
    MP_STAT_EXCHANGE,
    MP_STAT_SHARED_MEMORY,
    MP_STAT_SHM_FALLBACK,
    MP_STAT_NET_BW,
    MP_STAT_MEM_BW,
    MP_STAT_PULL_ROUNDS,
    MP_STAT_NPHASES,
    MP_STAT_NROUNDS,
    MP_STAT_PHASE_S, /* the arrays, one value per phase, come last */
    MP_STAT_PHASE_BYTES,
    MP_STAT_PHASE_TUPLES,
    MP_STAT_PHASE_MESSAGES,
    MP_NSTATS
};
/* The most phases a plan runs (hint multiphase.phases' range, the per-phase
 * stats' values): 2^32 ranks. */
enum { MP_MAX_PHASES = 32 };
/* Adds one exchange's figures to phase i's stats (phase_s, phase_bytes,
 * phase_messages, phase_tuples; options.c). */
void collio__mp_phase_add(collio_plan *p, int i, double seconds, double bytes,
                          double messages, double tuples);

/* The calibration's measure of "multiphase.round" (measure.c). */
int collio__mp_measure(const collio__measure_kit *k);

/* multiphase as candidates of auto (cost.c): all phases, and stopped
 * after 1, 2 or 3 phases then list I/O */
enum { MP_NCANDIDATES = 4 };
extern const collio__candidate collio__mp_candidates[MP_NCANDIDATES];
extern const char *const collio__mp_cost_terms[];

#endif /* COLLIO_MULTIPHASE_H */
