/*
 * collio_internal.h -- types and building blocks shared inside libcollio.
 * Not installed. Internal names carry the collio__ prefix.
 *
 * Bounds are half-open everywhere: [start, end). Positions and lengths of
 * layouts, segments and extents are in ELEMENTS unless a name ends in
 * _bytes or the comment says bytes.
 */
#ifndef COLLIO_INTERNAL_H
#define COLLIO_INTERNAL_H

#include "collio.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/uio.h>

/* ------------------------------------------------------------- segments */

/*
 * A strided segment: `count` blocks of `len` consecutive global elements,
 * block k covering file elements [off + k*stride, off + k*stride + len).
 * In the rank's packed stream (its elements in layout order) the blocks are
 * consecutive: block k occupies stream [mem + k*len, mem + (k+1)*len).
 * Invariants: len >= 1, count >= 1, stride >= len when count > 1
 * (stride is ignored when count == 1; store len then).
 * A block-cyclic layout needs 1-2 segments per rank, whatever bx is.
 */
typedef struct collio__seg {
    int64_t off, len, stride, count, mem;
} collio__seg;

/* A flat extent: file elements [off, off+len) at stream position mem. */
typedef struct collio__ext {
    int64_t off, len, mem;
} collio__ext;

/* Growable array of segments. push() merges with the last segment when the
 * new block continues it (contiguous, or same stride and len). */
typedef struct collio__segvec {
    collio__seg *v;
    int64_t n, cap;
} collio__segvec;

int collio__segvec_push(collio__segvec *sv, int64_t off, int64_t len, int64_t mem);
int collio__segvec_push_seg(collio__segvec *sv, const collio__seg *s);
void collio__segvec_free(collio__segvec *sv);

/* Number of elements covered by segments. */
int64_t collio__segs_elements(const collio__seg *s, int64_t n);

/* All blocks of segs as flat extents, in stream order. *out is malloc'd. */
int collio__segs_flatten(const collio__seg *s, int64_t n, collio__ext **out,
                         int64_t *nout);

/* Part of segment s inside file elements [lo, hi): at most 3 segments
 * (partial head block, whole middle blocks, partial tail block), with
 * stream positions adjusted. Returns how many were written to out. */
int collio__seg_clip(const collio__seg *s, int64_t lo, int64_t hi, collio__seg out[3]);

/* Sort extents by file offset (stable for equal offsets). */
void collio__exts_sort_by_off(collio__ext *e, int64_t n);

/* Merge neighbours contiguous in both file and stream; returns new count. */
int64_t collio__exts_coalesce(collio__ext *e, int64_t n);

/* ---------------------------------------------------------------- layout */

typedef enum collio__mem_kind {
    COLLIO__MEM_PACKED = 0, /* buffer == packed stream */
    COLLIO__MEM_GLOBAL,     /* buffer is the global array, element i at i */
    COLLIO__MEM_DATATYPE    /* buffer described by an MPI datatype */
} collio__mem_kind;

typedef enum collio__layout_kind {
    COLLIO__LAYOUT_BLOCK_CYCLIC = 0,
    COLLIO__LAYOUT_DARRAY,
    COLLIO__LAYOUT_INDEX_LIST
} collio__layout_kind;

struct collio_layout {
    collio__layout_kind kind;
    int rank, nranks;  /* in the communicator the layout was built on */
    MPI_Group group;   /* that communicator's group (plans compare it with
                          theirs); MPI_GROUP_NULL in a plan's own clone */
    int64_t nglobal;   /* elements in the file */
    size_t esize;      /* bytes per element */
    int64_t nlocal;    /* elements this rank holds */
    collio__seg *segs; /* this rank's elements, in stream (buffer) order */
    int64_t nsegs;
    int file_ordered; /* 1: stream order is increasing file order */
    collio__mem_kind mem_kind;
    MPI_Datatype mem_type; /* MEM_DATATYPE: a dup, else MPI_DATATYPE_NULL */
    int mem_count;
    size_t mem_bytes;     /* bytes the user buffer must have */
    int64_t bx;           /* block-cyclic block size, else 0 (for reports) */
    unsigned char *owned; /* replicated index lists: owned[i] for stream
                             element i (0/1); NULL for every other layout */
};

/* Pure index arithmetic of the layout kinds (no MPI): the segments rank
 * `rank` of `nranks` holds, in its stream order. Unit-tested against
 * brute-force enumeration. Arguments are assumed valid (the public
 * constructors check them). */
int collio__block_cyclic_segs(int64_t nx, int64_t bx, int nranks, int rank,
                              collio__segvec *out);
int collio__darray_segs(int ndims, const int64_t gsizes[],
                        const collio_distrib distribs[], const int64_t dargs[],
                        const int psizes[], collio_order order, int rank,
                        collio__segvec *out);
int collio__index_list_segs(int64_t nlocal, const int64_t idx[], collio__segvec *out);

/* The start of every public layout constructor (local): error_begin,
 * *out = NULL, MPI usable, comm not MPI_COMM_NULL; a failure here is
 * returned at once (no communicator to agree on). collio__layout_no_out
 * records "FN: out is NULL" and returns ARG (agreed like any other bad
 * argument: the constructor still takes part in its collectives). */
int collio__layout_begin(MPI_Comm comm, collio_layout **out, const char *fn);
int collio__layout_no_out(const char *fn);

/* Allocates a layout with the common fields set, segments empty. */
int collio__layout_new(MPI_Comm comm, collio__layout_kind kind, int64_t nglobal,
                       size_t esize, collio_layout **out);

/* The common end of the constructors: adopt sv (if rc and mism are OK),
 * finish, agree; frees *l on failure. Returns the agreed code. */
int collio__layout_conclude(MPI_Comm comm, collio_layout **l, collio__segvec *sv, int rc,
                            int mism);

/* Deep copy (segments and datatype), for plans to own. */
int collio__layout_clone(const collio_layout *in, collio_layout **out);

/* Sets nlocal, file_ordered and mem_bytes from segs; checks overflow. */
int collio__layout_finish(collio_layout *l);

/* Collective: checks that the segments of all ranks partition
 * [0, nglobal) (no range, overlap or coverage error); agrees on result. */
int collio__layout_validate(MPI_Comm comm, const collio_layout *l);

/* ------------------------------------------------------ replicated data */

/*
 * Node classification of a replicated layout (replicas_classify.c): every
 * rank sends runs of what it holds (consecutive elements, all owned or all
 * not) to the ranks of the elements' file-order domains
 * (collio__domain_range, domain d on rank d), which learn every element's
 * owner and other holders. Memory per rank: O(its runs + its domain's
 * elements and their halo copies).
 */
typedef struct collio__repl_dom {
    int64_t lo, hi; /* this rank's domain [lo, hi) */
    int nranks;
    int32_t *owner;      /* owner of element lo + j */
    int64_t *opos;       /* its position in the owner's stream */
    int64_t *hstart;     /* CSR: the other holders of element lo + j are */
    int32_t *holder;     /*   holder[hstart[j] .. hstart[j+1]), increasing */
    int64_t *hpos;       /*   and the element's position in their streams */
    int64_t nreplicated; /* elements of the domain with more than 1 holder */
} collio__repl_dom;

/* Collective: classifies l (a replicated index list) on comm, checking
 * that every element is held and owned exactly once (RANGE, OVERLAP,
 * COVERAGE with a message naming the element and ranks). Agreed code. */
int collio__repl_classify(MPI_Comm comm, const collio_layout *l, collio__repl_dom *d);
/* Collective: every holder of a replicated element of d learns its writer
 * (writer[j] for element lo + j) and the element's position in the
 * writer's stream: out[its own position] = position * P + writer. The
 * entries of unreplicated elements are not touched. Agreed code. */
int collio__repl_tell(MPI_Comm comm, const collio__repl_dom *d, const int32_t *writer,
                      int64_t *out, int64_t nout);
void collio__repl_dom_free(collio__repl_dom *d);

/* Writer choice (replicas_policy.c): writer[j] for each element lo + j of
 * the domain, by `policy` (not AUTO), equal to the sequential algorithm
 * over the whole file (IDG's chain crosses domains: resolved by a scan of
 * per-domain transfer maps); *prev_writer: the writer of element lo - 1
 * (-1 for element 0 or an empty domain). rank_domain: the plan's
 * strategy's hook (DOMAIN keeps elements on the rank whose file domain
 * holds them; NULL: domain r on rank r). Collective. */
int collio__repl_schedule(MPI_Comm comm, const collio__repl_dom *d, int64_t nglobal,
                          int policy, uint64_t seed, int (*rank_domain)(int nranks, int rank),
                          int32_t *writer, int32_t *prev_writer);
/* The policies' names, index = collio_replicas (hint replicas.policy). */
extern const char *const collio__replicas_names[COLLIO_REPLICAS__COUNT];

/* Replicated plans (replicas_plan.c): the plan's strategy runs on the
 * "writer layout" -- the elements this rank writes, a partition -- and
 * this state maps between it and the user's layout. */
typedef struct collio__repl collio__repl;
typedef struct collio__strategy collio__strategy;
/* Collective, at plan creation: classifies, schedules (by hint
 * replicas.policy; AUTO: what `strategy` prefers), builds p->layout (the
 * writer layout) from user (the plan's copy of the replicated layout,
 * which p->repl keeps) and the read's fill plan; fills the "replicas"
 * stats. */
int collio__repl_plan(collio_plan *p, collio_layout *user, const collio__strategy *strategy);
/* Local: the written elements of the user stream, packed in writer order. */
void collio__repl_select(const collio__repl *r, const char *user_stream, char *out);
/* Collective: the user stream from the writer stream read from the file:
 * own written elements copied, the others received from their writers. */
int collio__repl_fill(collio_plan *p, const char *writer_stream, char *user_stream);
/* 1 if the writer stream is the user stream (this rank writes all it holds
 * in that order: no copy needed). */
int collio__repl_identity(const collio__repl *r);
const collio_layout *collio__repl_user_layout(const collio__repl *r);
void collio__repl_free(collio__repl **r);

/* Stream <-> user buffer, for layouts whose memory is not packed. */
int collio__layout_pack(const collio_layout *l, const void *buf, void *stream);
int collio__layout_unpack(const collio_layout *l, const void *stream, void *buf);

/* Order-sensitive mix of one value into a hash, so that a constructor
 * checks all its collective arguments with one collio__check_same_i64. */
uint64_t collio__hash_mix(uint64_t h, uint64_t v);

/* ----------------------------------------------------------------- errors */

/* Collective: every rank learns whether any rank failed. Returns the
 * largest code over ranks (COLLIO_OK if none), the same on every rank;
 * on failure every rank's collio_last_error() becomes the message of the
 * lowest rank with that code (error.c). */
int collio__agree(MPI_Comm comm, int rc);

/* Collective: collio__agree of rc and, where every rank is OK, a
 * comparison of `value` (the identity of an object every rank must pass
 * the same of) in the same single MPI_Allreduce: COLLIO_ERR_MISMATCH on
 * every rank if it differs, "rank F: WHAT differs between rank 0 and rank
 * F". */
int collio__agree_same(MPI_Comm comm, int rc, int64_t value, const char *what);

/* Local: records this thread's error detail for collio_last_error (one
 * line, printf format; no rank: collio__agree adds it). Call it where a
 * failure is found, with the code the function will return. */
void collio__error_set(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Local: a public call begins; what was recorded before is no longer its
 * detail (called first thing by every public function that can fail). */
void collio__error_begin(void);

/* Collective: COLLIO_OK if `value` is equal on every rank, else
 * COLLIO_ERR_MISMATCH on every rank, with the same detail everywhere
 * (collio_last_error): "rank F: WHAT differs across ranks: A on rank 0, B
 * on rank F" (F the lowest rank that differs from rank 0). One
 * MPI_Allreduce when the values agree; the detail costs three more
 * collectives, only on mismatch. */
int collio__check_same_i64(MPI_Comm comm, int64_t value, const char *what);

/* Same for a digest of several arguments (what: their names, plural):
 * "rank F: WHAT differ between rank 0 and rank F". */
int collio__check_same_digest(MPI_Comm comm, uint64_t digest, const char *what);

/* Same for a string (compared by hash and length; the detail quotes both,
 * shortened). */
int collio__check_same_str(MPI_Comm comm, const char *s, const char *what);

/* Local: COLLIO_OK while MPI is usable (initialized, not finalized); else
 * COLLIO_ERR_STATE with the detail "FN called before MPI_Init" (or after
 * MPI_Finalize). Every public function that communicates calls it first,
 * so that no MPI call is made outside MPI's lifetime. */
int collio__mpi_usable(const char *fn);
/* Local: 1 while MPI is usable. The void frees skip their MPI frees
 * otherwise (the memory is freed, the MPI handles are gone with MPI). */
int collio__mpi_alive(void);

/* Checked arithmetic: 0 on success, COLLIO_ERR_OVERFLOW on overflow. */
int collio__mul_i64(int64_t a, int64_t b, int64_t *out);
int collio__add_i64(int64_t a, int64_t b, int64_t *out);
/* MPI_Alltoallv displacements: displ[q] = count[0] + ... + count[q-1],
 * *total the sum; COLLIO_ERR_OVERFLOW where an int no longer holds it. */
int collio__displs(const int *count, int *displ, int n, int64_t *total);

double collio__now(void); /* MPI_Wtime */

/* Waiting (progress.c). collio__node_oversubscribed (collective): 1 if
 * some node runs more ranks of comm than it has cores (node_ranks: the
 * ranks of comm on this rank's node, from collio__plan_nodes). collio__waitall
 * (any n): MPI_Waitall, or when oversubscribed a poll loop that sleeps
 * between bursts of MPI_Testall so that waiting ranks leave the cores to
 * working ones. Returns COLLIO_OK or COLLIO_ERR_MPI. */
int collio__node_oversubscribed(MPI_Comm comm, int node_ranks);

/* Nonblocking posts into rq[*nr], counted in *nr: on failure the slot is
 * MPI_REQUEST_NULL, so that a later wait skips it, and *rc becomes
 * COLLIO_ERR_MPI (the plan's communicator returns MPI errors: a receive
 * that silently failed to post would leave its data out of the file). */
void collio__isend(const void *buf, int count, MPI_Datatype type, int to, int tag,
                   MPI_Comm comm, MPI_Request *rq, int *nr, int *rc);
void collio__irecv(void *buf, int count, MPI_Datatype type, int from, int tag,
                   MPI_Comm comm, MPI_Request *rq, int *nr, int *rc);
int collio__waitall(int n, MPI_Request *rq, int oversubscribed);

/* Counters in shared memory that processes sleep on (shm_word.c): post
 * adds one and wakes every sleeper; wait returns once the counter has
 * reached target (compared mod 2^32). Lock-free, so usable across
 * processes in an MPI shared-memory window. */
typedef _Atomic uint32_t collio__word;
void collio__word_post(collio__word *w);
/* The processes a waiter depends on: n process ids, each in shared memory
 * (pid[i] points at it; 0 = not known yet). */
typedef struct collio__peers {
    _Atomic int32_t *const *pid;
    int n;
} collio__peers;
/* Waits until *w reaches target: COLLIO_OK. Bounded: once a wait has
 * lasted COLLIO__WAIT_CHECK_S, the waiter checks every such interval that
 * each of `peers` (may be NULL) still exists; if one has died (a crashed
 * or killed rank) it returns COLLIO_ERR_MPI instead of sleeping forever.
 * A peer that lives but never posts (stopped in a debugger) is waited
 * for. */
#define COLLIO__WAIT_CHECK_S 1
int collio__word_wait(collio__word *w, uint32_t target, const collio__peers *peers);

/* Large per-call work buffers (bigbuf.c): huge-page backed when big, so
 * first touch does not fault every 4 KiB. Not zeroed. NULL on failure;
 * free with collio__bigbuf_free (NULL-safe). */
void *collio__bigbuf_alloc(size_t bytes);
void collio__bigbuf_free(void *p);

/* ------------------------------------------------------------------ files */

typedef struct collio__file_ops {
    const char *name;
    int (*open)(collio_file *f, const char *path, int create);
    int (*close)(collio_file *f);
    int (*sync)(collio_file *f);
    /* absolute byte offsets; loops until done (short writes / EINTR) */
    int (*pwrite)(collio_file *f, int64_t off, const void *buf, size_t n);
    int (*pread)(collio_file *f, int64_t off, void *buf, size_t n);
    /* one file-contiguous range gathered from / scattered to iov[] */
    int (*pwritev)(collio_file *f, int64_t off, const struct iovec *iov, int niov);
    int (*preadv)(collio_file *f, int64_t off, const struct iovec *iov, int niov);
    int (*size)(collio_file *f, int64_t *bytes);
} collio__file_ops;

extern const collio__file_ops collio__file_posix_ops;
extern const collio__file_ops collio__file_mpiio_ops;

struct collio_file {
    MPI_Comm comm; /* dup */
    int rank, nranks;
    char *path;     /* target path */
    char *tmp_path; /* CREATE: temporary beside path, else NULL */
    collio_file_mode mode;
    collio_file_options opts;
    const collio__file_ops *ops;
    int fd;      /* POSIX backend */
    MPI_File fh; /* MPI-IO backend, or the collective handle below */
    int fh_open;
    MPI_File coll_fh; /* collective MPI-IO handle for two_phase (lazy) */
    int coll_fh_open;
    int64_t id;    /* drawn by rank 0 at open: the same on every rank of
                      this file, another for every other open */
    int failed;    /* a call on this file failed: do not commit */
    char why[400]; /* the first failure's agreed detail (for close) */
    int lock_fd;   /* CREATE, rank 0: holds the temporary's lock, else -1 */
};

/* Local: a write or read on f failed (agreed over the plan's ranks):
 * collio_file_close commits nothing and says why. */
void collio__file_mark_failed(collio_file *f);

/* Temporaries of CREATE (file_tmp.c), rank 0 only. tmp_create sweeps the
 * temporaries of path whose writers are gone, then makes a new one beside
 * path, unique and locked: *tmp (malloc'd) its name, *lock_fd the
 * descriptor that holds the lock (kept open until the temporary is
 * renamed or removed). Errors (OPEN, NOMEM) are recorded. tmp_release
 * drops the lock (closes *lock_fd; -1 is a no-op) and sets it to -1. */
int collio__tmp_create(const char *path, char **tmp, int *lock_fd);
/* Local: 64 random bits (getrandom, else the clock), mixed with the pid
 * and a counter: never the same twice in a process. */
uint64_t collio__random64(void);
void collio__tmp_release(int *lock_fd);

/* Path the data is written to right now (tmp_path for CREATE). */
const char *collio__file_data_path(const collio_file *f);

/* Data access relative to the data start (base_offset added here). Record
 * failures in f->failed. */
int collio__file_write_at(collio_file *f, int64_t off, const void *buf, size_t n);
int collio__file_read_at(collio_file *f, int64_t off, void *buf, size_t n);
int collio__file_writev_at(collio_file *f, int64_t off, const struct iovec *iov,
                           int niov);
int collio__file_readv_at(collio_file *f, int64_t off, const struct iovec *iov, int niov);

/* Collective over comm, a subset of f's ranks (the others do not call):
 * a file object on the same data file (the temporary of a CREATE file),
 * same mode, backend, base offset and hints, for an inner plan that runs
 * on comm. It never creates, renames or removes anything. Its writes'
 * failures stay in sub->failed until collio__file_sub_close, which copies
 * them into f->failed and frees it (collective over comm). */
int collio__file_sub_open(collio_file *f, MPI_Comm comm, collio_file **sub);
int collio__file_sub_close(collio_file *f, collio_file **sub);

/* Collective: an MPI_File opened on every rank of f->comm on the data path
 * (opened on first use, closed with f). For strategies that use MPI-IO's
 * collective calls. */
int collio__file_collective_handle(collio_file *f, MPI_File *out);

/* ------------------------------------------------ options (hints), stats */

/*
 * Every option is declared once, in the table of the section that owns it
 * (a strategy's file for its own; options.c for "plan"; replicas_plan.c
 * for "replicas"): its name, type, default, range and one line of doc.
 * Everything else follows from the tables (options.c, hints.c): defaults,
 * parsing and range checks of hint text, the digest compared across ranks
 * (every option of every section, by construction), collio_plan_hints,
 * the catalogue (collio_option_describe) that the bench's flags, the
 * Python keywords, the Fortran interface and docs/options.md are made
 * from. Values live in the plan as one int64 per option of the catalogue
 * (a STRATEGY option: the registry's name string beside it), found by the
 * option's index in its section's table.
 */
typedef enum collio__opt_type {
    COLLIO__OPT_INT = 0,  /* integer in [min, max] */
    COLLIO__OPT_SIZE,     /* bytes in [min, max]; text may end in K, M, G */
    COLLIO__OPT_BOOL,     /* 0 or 1 */
    COLLIO__OPT_NAME,     /* index into names[0..max] (text: a name) */
    COLLIO__OPT_STRATEGY, /* a registered strategy's name (value: unused) */
    COLLIO__OPT_U64       /* any unsigned 64-bit integer (bits in the int64) */
} collio__opt_type;

typedef struct collio__option {
    const char *name; /* NAME of the key SECTION.NAME */
    collio__opt_type type;
    int64_t def;              /* INT, SIZE, BOOL, NAME (index), U64 */
    int64_t min, max;         /* INT, SIZE: the range; NAME: 0 .. count - 1 */
    const char *const *names; /* NAME: names[value] */
    const char *def_name;     /* STRATEGY: the default strategy */
    const char *doc;          /* one line */
} collio__option;

/* Statistics a section keeps beside the generic collio_stats: one double
 * per stat of the catalogue in every plan. per_call ones are reset at
 * each execution; `sum`: an outer plan (subgroup) adds its inner plan's
 * value instead of taking it. */
typedef struct collio__stat {
    const char *name;
    int per_call;
    int sum;
    const char *doc;
} collio__stat;

/* A section of the catalogue: "plan", "replicas", or a strategy's. */
typedef struct collio__section {
    const char *name;
    const collio__option *options;
    int noptions;
    const collio__stat *stats;
    int nstats;
} collio__section;

/* The catalogue (options.c): its sections in order -- "plan", "replicas",
 * then every registered strategy's -- and the index of a section's first
 * option / stat in a plan's value arrays. */
int collio__nsections(void);
const collio__section *collio__section_at(int i);
const collio__section *collio__section_find(const char *name, size_t len);
int collio__option_base(const collio__section *s);
int collio__stat_base(const collio__section *s);
int collio__noptions_all(void); /* options of all sections */
int collio__nstats_all(void);   /* stats of all sections */

/* The option of KEY ("SECTION.NAME"); NULL if unknown. *index: its index
 * in the catalogue. */
const collio__option *collio__option_find(const char *key, int *index);

/* Hint text -> value (hints.c), checked against the option's type and
 * range: COLLIO_OK, or COLLIO_ERR_ARG / COLLIO_ERR_STRATEGY recorded with
 * a detail naming `key` and what it takes. *str: a STRATEGY option's
 * registry name. */
int collio__option_parse(const collio__option *o, const char *key, const char *text,
                         int64_t *value, const char **str);
/* value -> hint text (its canonical form), into out[0..n). */
void collio__option_format(const collio__option *o, int64_t value, const char *str,
                           char *out, size_t n);

/* A set's i-th value (0 <= i < collio_hints_count), and the parse of a
 * "KEY=VALUE,..." list into it (`what` names the source in errors). */
const char *collio__hints_value(const collio_hints *h, int i);
int collio__hints_parse_list(collio_hints *h, const char *list, const char *what);

/* A plan's option values: one per option of the catalogue. */
typedef struct collio__optvals {
    int64_t *v;
    const char **str;
} collio__optvals;

/* Local: the defaults, then `hints`, then the environment's COLLIO_HINTS,
 * into *ov (allocated; collio__optvals_free). Errors recorded (ARG,
 * STRATEGY naming the key, NOMEM). */
int collio__optvals_resolve(const collio_hints *hints, collio__optvals *ov);
void collio__optvals_free(collio__optvals *ov);
/* A digest of every value (strings by content): equal on two ranks iff
 * their options are, but for hash collisions. */
uint64_t collio__optvals_digest(const collio__optvals *ov);
/* Every option with its value, as hints (to report them, or to hand them
 * to an inner plan). */
int collio__optvals_to_hints(const collio__optvals *ov, collio_hints **out);

/* The generic options (section "plan"): indices into its table. */
enum { COLLIO__PLAN_DESTROY_INPUT = 0, COLLIO__PLAN_KEEP_BUFFERS };

/* ------------------------------------------------------------- strategies */

/*
 * A strategy: a small table of functions and of its options and stats,
 * registered once in strategies.c. plan() is the inspector;
 * write()/read() are the executor and work on the packed stream (the
 * rank's elements in layout order, contiguous; plan.c packs/unpacks other
 * memory kinds). Each returns a local code; plan.c agrees on it across
 * ranks afterwards, so a function must still complete every collective /
 * matching message it started when a local step fails (record the error,
 * carry on with the communication, return it at the end). Timing: add
 * exchange time to p->stats.exchange_s and file time to p->stats.file_s;
 * count into p->stats counters. plan.c resets these per execution and
 * measures total_s.
 *
 * Options and stats of one strategy are its own section of the catalogue:
 * `section.name` is the strategy's name, its tables are static in its
 * file, and it reads its values with collio__opt(p, i) (i: the index in
 * its table) and keeps its stats with collio__stat_set / _add. Values are
 * parsed and range-checked by the catalogue; check() (may be NULL) is
 * for what the table cannot say -- options that do not go together --
 * and runs at plan creation once every rank is known to hold the same
 * options (so it returns the same code everywhere; plan.c agrees all the
 * same), recording its error. A strategy that runs another (subgroup)
 * hands it every option as hints; the inner plan checks its own.
 *
 * Hooks for the replica policies (replicas_plan.c, replicas_policy.c),
 * so that no policy knows a strategy by name: replicas_auto, the policy
 * AUTO becomes under this strategy (0: the default, IDG); rank_domain,
 * the file domain (of P balanced ones) a rank writes (NULL: domain r on
 * rank r), which the DOMAIN policy keeps elements on.
 */
typedef struct collio__strategy {
    collio__section section; /* name, options and stats */
    const char *summary;
    int canonical; /* writes canonical file order */
    int (*check)(collio_plan *p);
    int (*plan)(collio_plan *p);
    int (*write)(collio_plan *p, collio_file *f, const char *stream);
    int (*read)(collio_plan *p, collio_file *f, char *stream);
    void (*free)(collio_plan *p);
    int replicas_auto;
    int (*rank_domain)(int nranks, int rank);
} collio__strategy;

/* A strategy added to the registry from outside strategies.c (a test's,
 * or a program's own): before the first use of the catalogue (any plan,
 * hint or catalogue call), which seals the registry; COLLIO_ERR_STATE
 * after that, when the table is full or the name is taken. Not thread
 * safe: call it first thing. */
int collio__strategy_register(const collio__strategy *s);
void collio__strategies_seal(void);

/* Lookup in the registry; NULL if unknown. collio__strategy_at: the i-th. */
const collio__strategy *collio__strategy_find(const char *name);
const collio__strategy *collio__strategy_at(int i);

/* Collective over p's communicator: one execution of plan p on a packed
 * stream, for collio_write / collio_read and for strategies that run an
 * inner plan on a sub-communicator (subgroup): resets p's execution
 * stats, runs its strategy's write (or read into stream), agrees on the
 * result over p->comm and marks f failed after a failure. scratch: stream
 * may be overwritten (a write's work space; a read's output always is).
 * The caller has checked sizes. */
int collio__plan_exec(collio_plan *p, collio_file *f, char *stream, int writing,
                      int scratch);

struct collio_plan {
    MPI_Comm comm; /* dup */
    int rank, nranks;
    const collio__strategy *strategy;
    collio_layout *layout; /* the plan's own copy */
    collio__optvals opts;  /* every option's value (the catalogue's order) */
    int own_opt, own_stat; /* where the strategy's section starts in them */
    collio_stats stats;
    double *statv;      /* every section's stats (the catalogue's order) */
    int oversubscribed; /* more ranks than cores on some node: wait politely */
    /* During an execution: the stream the strategy gets, when it may also
     * serve as scratch space (a read's output, the library's own packed
     * copy, or the user's buffer under destroy_input); else NULL. */
    char *scratch;
    void *impl; /* the strategy's state */
    /* Replicated layouts: what maps the user's layout (which the user's
     * buffer follows) to `layout`, which then holds only the elements this
     * rank writes; NULL for every other layout. */
    collio__repl *repl;
    int *node_of; /* node index of every rank (nodes.c) */
};

/* A strategy's own option i (its table's index) and stat i. */
static inline int64_t collio__opt(const collio_plan *p, int i)
{
    return p->opts.v[p->own_opt + i];
}
static inline const char *collio__opt_str(const collio_plan *p, int i)
{
    return p->opts.str[p->own_opt + i];
}
static inline void collio__stat_set(collio_plan *p, int i, double v)
{
    p->statv[p->own_stat + i] = v;
}
static inline void collio__stat_add(collio_plan *p, int i, double v)
{
    p->statv[p->own_stat + i] += v;
}
/* A generic option ("plan" section, COLLIO__PLAN_*). */
static inline int64_t collio__plan_opt(const collio_plan *p, int i)
{
    return p->opts.v[i];
}

/* Stats (stats.c): the generic fields of collio_stats as a table (the
 * stats of section "plan"), so that resets, sums and every binding walk
 * one list. reset: the per-call ones, generic and every section's. add:
 * an inner plan's execution into an outer one's (subgroup): the generic
 * per-call counters and times summed, nphases / nrounds taken, every
 * section's stats taken (or summed where `sum`) but the outer plan's own
 * strategy's and the replicas' (resolved by the outer plan). */
void collio__stats_reset(collio_plan *p);
void collio__stats_add_inner(collio_plan *outer, const collio_plan *inner);

/* Nodes (nodes.c). Collective, at plan creation: p->node_of and
 * p->stats.nnodes. Agreed code. */
int collio__plan_nodes(collio_plan *p);
/* Local: one point-to-point message with rank `peer` posted by this rank
 * (sent_bytes: what it sends, 0 for a receive): counted in messages and
 * bytes_sent, and in messages_offnode / bytes_offnode when the peer is on
 * another node. */
void collio__count_p2p(collio_plan *p, int peer, int64_t sent_bytes);

/* ------------------------------------------- file domains (domains.c) */

/* Domain d of ndomains balanced contiguous domains of [0, nglobal):
 * elements [*lo, *hi) (the first nglobal % ndomains hold one more). */
void collio__domain_range(int64_t nglobal, int ndomains, int d, int64_t *lo, int64_t *hi);
/* The domain holding element x, 0 <= x < nglobal. */
int collio__domain_of(int64_t nglobal, int ndomains, int64_t x);


#endif /* COLLIO_INTERNAL_H */
