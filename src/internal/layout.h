/*
 * internal/layout.h -- layouts and replicated data (layout*.c, replicas_*.c).
 * Part of collio_internal.h, which includes every part in order.
 */
#ifndef COLLIO_INTERNAL_LAYOUT_H
#define COLLIO_INTERNAL_LAYOUT_H

/* ---------------------------------------------------------------- layout */

typedef enum collio__mem_kind {
    COLLIO__MEM_PACKED = 0, /* buffer == packed stream */
    COLLIO__MEM_GLOBAL,     /* buffer is the global array, element i at i */
    COLLIO__MEM_DATATYPE    /* buffer described by an MPI datatype */
} collio__mem_kind;

typedef enum collio__layout_kind {
    COLLIO__LAYOUT_BLOCK_CYCLIC = 0,
    COLLIO__LAYOUT_DARRAY,
    COLLIO__LAYOUT_INDEX_LIST,
    COLLIO__LAYOUT_EXTENTS
} collio__layout_kind;

/* The held runs of a sparse extents layout (layout_extents.c): the union of
 * every rank's extents, coalesced, in file order, the same on every rank.
 * The layout's segments index the data packed without its holes: run r's
 * file elements [off[r], off[r] + len[r]) are packed elements
 * [cum[r], cum[r] + len[r]). File accesses map back (file_holes.c). */
typedef struct collio__holes {
    int64_t n;                /* runs, >= 1 */
    int64_t *off, *len, *cum; /* per run */
    int64_t held;             /* elements held: the packed size */
    int64_t span;             /* file elements up to the last run's end */
    size_t esize;             /* bytes per element */
} collio__holes;

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
    collio__holes *holes; /* sparse extents with holes: segs index the
                             packed data (nglobal = held elements); NULL
                             for every other layout */
};

/* Sparse extents (layout_extents.c). run_of: the run holding file element
 * off (the last one starting at or before it); run_of_packed: the run
 * holding packed element pos. O(log runs). */
int64_t collio__holes_run_of(const collio__holes *h, int64_t off);
int64_t collio__holes_run_of_packed(const collio__holes *h, int64_t pos);
int collio__holes_clone(const collio__holes *in, collio__holes **out);
void collio__holes_free(collio__holes **h);
/* The layout's segments in file elements (split at the holes; the
 * segments themselves for a dense layout), appended to out. */
int collio__layout_file_segs(const collio_layout *l, collio__segvec *out);
/* File elements the data spans: nglobal, or the held runs' end. */
int64_t collio__layout_file_span(const collio_layout *l);

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

/* Local: file extents e[0..n) cut at the boundaries of the P domains of
 * [0, nglobal) (collio__domain_range); each piece recorded for its owner
 * q as 2 int64 words (off, len) at buf + 2 * (displs[q] + counts[q]),
 * counts[q] incremented. buf NULL: only counts. Returns the pieces. */
int64_t collio__exts_to_domains(const collio__ext *e, int64_t n, int64_t nglobal, int P,
                                int64_t *counts, const int *displs, int64_t *buf);

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
                          int policy, uint64_t seed,
                          int (*rank_domain)(int nranks, int rank), int32_t *writer,
                          int32_t *prev_writer);
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
int collio__repl_plan(collio_plan *p, collio_layout *user,
                      const collio__strategy *strategy);
/* Local: the written elements of the user stream, packed in writer order. */
void collio__repl_select(const collio__repl *r, const char *user_stream, char *out);
/* Collective: the user stream from the writer stream read from the file:
 * own written elements copied, the others received from their writers. */
int collio__repl_fill(collio_plan *p, const char *writer_stream, char *user_stream);
/* 1 if the writer stream is the user stream (this rank writes all it holds
 * in that order: no copy needed). */
int collio__repl_identity(const collio__repl *r);
const collio_layout *collio__repl_user_layout(const collio__repl *r);
/* Local: what this rank's share of the replicas' work around a strategy
 * moves (the cost model of strategy auto prices it): the runs a write's
 * selection and a read's own-element copy take (0 where the writer
 * stream is the user stream), and a read's fill -- the elements this rank
 * copies into and out of the fill's buffers, their bytes, the bytes it
 * sends and the ranks it sends to (all 0 where no read fills). */
typedef struct collio__repl_work {
    double runs, fill_elements, fill_bytes, fill_sent, fill_peers;
} collio__repl_work;
collio__repl_work collio__repl_work_of(const collio_plan *p);
void collio__repl_free(collio__repl **r);

/* Stream <-> user buffer, for layouts whose memory is not packed. */
int collio__layout_pack(const collio_layout *l, const void *buf, void *stream);
int collio__layout_unpack(const collio_layout *l, const void *stream, void *buf);

/* Order-sensitive mix of one value into a hash, so that a constructor
 * checks all its collective arguments with one collio__check_same_i64. */
uint64_t collio__hash_mix(uint64_t h, uint64_t v);

#endif /* COLLIO_INTERNAL_LAYOUT_H */
