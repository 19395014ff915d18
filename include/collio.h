/*
 * collio.h -- collective I/O of distributed data into one shared file, in
 * canonical global order. The one public header of libcollio.
 *
 * The data path reads top to bottom:
 *
 *   layout  (what this rank holds: collio_layout_*)
 *     -> plan    (how to move it; the inspector: collio_plan_create)
 *       -> execute (exchange, then file access: collio_write / collio_read)
 *            into a file (where it goes: collio_file_open / collio_file_close)
 *
 * Units. A layout counts fixed-size *elements* of `esize` bytes. The global
 * file holds `nglobal` elements at byte offset base + i * esize for element
 * index i (0-based). All ranges are half-open, [start, end).
 *
 * Errors. Every function returns an int: COLLIO_OK (0) or a positive
 * collio_error code; collio_strerror() gives its text. Functions marked
 * "collective" must be called by every rank of the communicator, and they
 * return the same code on every rank: when one rank fails, all ranks fail
 * (no hang, never MPI_Abort). Every collective argument is compared across
 * ranks: a value that differs is COLLIO_ERR_MISMATCH on every rank. The
 * handles (layouts, plans, files) come from collective calls and are NULL
 * on every rank or on none; passing NULL (or another object) on some ranks
 * only is erroneous, as MPI_COMM_NULL is for MPI, except for the `file`
 * of collio_write / collio_read and the `out` pointers, which are checked
 * collectively. Functions marked "local" involve no communication.
 * Every function that needs MPI returns COLLIO_ERR_STATE before MPI_Init
 * and after MPI_Finalize, without calling MPI; the frees
 * (collio_layout_free, collio_plan_free) are safe then, and local queries
 * (collio_strerror, names, counts, stats) work at any time.
 */
#ifndef COLLIO_H
#define COLLIO_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COLLIO_VERSION_MAJOR 0
#define COLLIO_VERSION_MINOR 3
#define COLLIO_VERSION_PATCH 0

/* ------------------------------------------------------------------ errors */

typedef enum collio_error {
    COLLIO_OK = 0,
    COLLIO_ERR_ARG,         /* invalid argument (NULL, negative size, ...) */
    COLLIO_ERR_NOMEM,       /* out of memory */
    COLLIO_ERR_RANGE,       /* a layout index is outside [0, nglobal) */
    COLLIO_ERR_OVERLAP,     /* an element is held by two ranks (or twice) */
    COLLIO_ERR_COVERAGE,    /* the layouts of all ranks leave elements unheld */
    COLLIO_ERR_OVERFLOW,    /* a size or offset overflows 64-bit bytes */
    COLLIO_ERR_MISMATCH,    /* collective arguments differ across ranks */
    COLLIO_ERR_STRATEGY,    /* unknown strategy name */
    COLLIO_ERR_BUFSIZE,     /* buffer size does not match the layout */
    COLLIO_ERR_OPEN,        /* a file could not be opened or created */
    COLLIO_ERR_IO,          /* a read or write failed (disk full, ...) */
    COLLIO_ERR_EOF,         /* the file is shorter than the data to read */
    COLLIO_ERR_MPI,         /* an MPI call failed */
    COLLIO_ERR_UNSUPPORTED, /* this strategy/backend cannot do that */
    COLLIO_ERR_STATE,       /* object used in the wrong state (e.g. closed) */
    COLLIO_ERR__COUNT       /* number of codes; not an error */
} collio_error;

/** Local. Text for an error code (never NULL; unknown codes say so). */
const char *collio_strerror(int code);

/**
 * Local. One line on the last error this thread's collio calls returned:
 * what was wrong and where known, e.g. "rank 3: index 1200 of the index
 * list is outside [0, 1000)" or "rank 0: open /data/x.bin: Permission
 * denied". A collective call that failed leaves the same text on every
 * rank that returned the code (the message of the lowest rank that found
 * the winning code). "" if no error was recorded yet. The text stays
 * until a later collio call on this thread fails; a successful call does
 * not clear it, so read it right after the failing call. Never NULL.
 */
const char *collio_last_error(void);

/* ----------------------------------------------------------------- layouts */

/** Opaque. What one rank holds of the global file, and where each element
 *  sits in its memory buffer. */
typedef struct collio_layout collio_layout;

/**
 * Collective over comm. 1-D block-cyclic layout: `nx` elements in blocks of
 * `bx`; rank r holds blocks r, r+P, r+2P, ... (block b = elements
 * [b*bx, min((b+1)*bx, nx))), packed in its buffer in increasing index
 * order. nx need not be a multiple of bx*P; a rank may hold nothing.
 * Errors: COLLIO_ERR_ARG (nx < 0, bx < 1, esize < 1), COLLIO_ERR_OVERFLOW,
 * COLLIO_ERR_MISMATCH (nx, bx or esize differ across ranks).
 */
int collio_layout_block_cyclic(MPI_Comm comm, int64_t nx, int64_t bx, size_t esize,
                               collio_layout **out);

/** Per-dimension distributions of collio_layout_darray. */
typedef enum collio_distrib {
    COLLIO_DIST_NONE = 0, /* dimension not distributed (psize must be 1) */
    COLLIO_DIST_BLOCK,    /* blocks of darg (COLLIO_DARG_DEFAULT: ceil(g/p)) */
    COLLIO_DIST_CYCLIC    /* cyclic(darg) (COLLIO_DARG_DEFAULT: 1) */
} collio_distrib;

#define COLLIO_DARG_DEFAULT 0
#define COLLIO_MAX_DIMS 8

/** Element order of N-d arrays: last index fastest (C) or first (Fortran). */
typedef enum collio_order { COLLIO_ORDER_C = 0, COLLIO_ORDER_FORTRAN } collio_order;

/**
 * Collective over comm. N-d array (1 <= ndims <= COLLIO_MAX_DIMS) of global
 * shape gsizes[], distributed over a process grid psizes[] (product = comm
 * size; grid coordinates are row-major in rank, as MPI_Cart_create and
 * MPI_Type_create_darray use) with distribs[d] / dargs[d] per dimension --
 * exactly what MPI_Type_create_darray describes. The file holds the whole
 * array in `order`; a rank's buffer holds its local sub-array packed in the
 * same order. Example: STEM-II's SL(x,y,z,l,ph) is Fortran order, BLOCK over
 * dimension 1 (y), NONE elsewhere.
 * Errors: COLLIO_ERR_ARG (bad ndims, sizes, grid, darg too small for
 * BLOCK), COLLIO_ERR_OVERFLOW, COLLIO_ERR_MISMATCH.
 */
int collio_layout_darray(MPI_Comm comm, int ndims, const int64_t gsizes[],
                         const collio_distrib distribs[], const int64_t dargs[],
                         const int psizes[], collio_order order, size_t esize,
                         collio_layout **out);

/**
 * Collective over comm. Explicit index list: this rank holds the `nlocal`
 * elements with global indices idx[0..nlocal), in that buffer order (any
 * order; nlocal may be 0 and idx NULL then). The indices of all ranks must
 * partition [0, nglobal): each element held exactly once.
 * Errors: COLLIO_ERR_ARG, COLLIO_ERR_RANGE, COLLIO_ERR_OVERLAP,
 * COLLIO_ERR_COVERAGE, COLLIO_ERR_OVERFLOW, COLLIO_ERR_MISMATCH (nglobal
 * or esize differ).
 */
int collio_layout_index_list(MPI_Comm comm, int64_t nglobal, int64_t nlocal,
                             const int64_t idx[], size_t esize, collio_layout **out);

/**
 * Collective over comm. Index list with replicas, for fields on meshes
 * whose halo nodes sit on several ranks: this rank holds the `nlocal`
 * elements idx[0..nlocal) in that buffer order (any order), and owned[i]
 * (0 or 1) says whether it owns idx[i]. Across all ranks every element of
 * [0, nglobal) must be held by at least one rank and owned by exactly one
 * of its holders; a rank holds an element at most once. On write exactly
 * one holder writes each element -- which one, the plan's replica policy
 * decides (hint replicas.policy); on read every holder receives
 * it. Plain index lists (collio_layout_index_list) keep rejecting
 * elements held twice. Validation is distributed: no rank gathers more
 * than O(its elements + nglobal/P) tuples.
 * Errors: COLLIO_ERR_ARG (owned NULL with nlocal > 0, an owned[] value
 * other than 0/1, ...), COLLIO_ERR_RANGE (an index outside [0, nglobal)),
 * COLLIO_ERR_OVERLAP (an element owned by two ranks, or held twice by one
 * rank), COLLIO_ERR_COVERAGE (an element held by no rank, or held but
 * owned by none), COLLIO_ERR_OVERFLOW, COLLIO_ERR_MISMATCH (nglobal or
 * esize differ). collio_last_error() names the element and the ranks.
 */
int collio_layout_index_list_replicated(MPI_Comm comm, int64_t nglobal, int64_t nlocal,
                                        const int64_t idx[], const unsigned char owned[],
                                        size_t esize, collio_layout **out);

/**
 * Collective over comm. Sparse extents: this rank holds the `n` extents
 * off[i], len[i] -- file elements [off[i], off[i] + len[i]) -- taking them
 * from its buffer one after the other, in that order (any order; len[i]
 * may be 0; n may be 0 and the arrays NULL then). Extents of all ranks
 * must be disjoint; unlike an index list they need not cover the file:
 * elements held by no rank are holes, never overwritten (a header, other
 * variables, another program's data stay as they are). The data ends at
 * the end of the last extent of any rank. Every canonical strategy writes
 * only the runs of its file domain that some rank holds, with one
 * exception that changes no byte: in a COLLIO_FILE_CREATE file, a hole of
 * at most 16 KiB between two runs, where no earlier call on the file has
 * written, is written as the zeros it holds, so that one request covers
 * many runs. A read may read a hole of at most 4 KiB and drop its bytes.
 * (docs/mpiio.md, "Sparse extents, holes kept".)
 * Memory: every rank keeps the list of held runs (the union of all ranks'
 * extents, coalesced); at most COLLIO_EXTENTS_MAX_RUNS of them.
 * Errors: COLLIO_ERR_ARG (negative off or len, NULL arrays with n > 0,
 * esize < 1, more than COLLIO_EXTENTS_MAX_RUNS runs), COLLIO_ERR_OVERLAP
 * (an element held twice, by one rank or two), COLLIO_ERR_OVERFLOW,
 * COLLIO_ERR_MISMATCH (esize differs).
 */
#define COLLIO_EXTENTS_MAX_RUNS ((int64_t)1 << 22)
int collio_layout_extents(MPI_Comm comm, int64_t n, const int64_t off[],
                          const int64_t len[], size_t esize, collio_layout **out);

/**
 * Local. The buffer is the full-size global array (nglobal * esize bytes)
 * and only this rank's own entries are read (write) or filled (read), each
 * at its global index -- how STEM-II keeps its arrays (seed 001, Fig. 3).
 * Call before collio_plan_create.
 */
int collio_layout_set_memory_global(collio_layout *layout);

/**
 * Local. The buffer is described by `count` items of MPI datatype `type`
 * whose type map lists this rank's elements in layout order (its packed
 * size must be nlocal * esize). The layout keeps a duplicate of the type.
 * Errors: COLLIO_ERR_ARG (packed size mismatch), COLLIO_ERR_MPI.
 */
int collio_layout_set_memory_datatype(collio_layout *layout, MPI_Datatype type,
                                      int count);

/** Local. Number of elements this rank holds. */
int64_t collio_layout_local_count(const collio_layout *layout);

/** Local. Number of elements in the global file. */
int64_t collio_layout_global_count(const collio_layout *layout);

/** Local. Element size in bytes. */
size_t collio_layout_esize(const collio_layout *layout);

/** Local. Global index of this rank's i-th element in layout (buffer) order,
 *  0 <= i < local_count; -1 if i is out of range. O(log n) per call. */
int64_t collio_layout_global_index(const collio_layout *layout, int64_t i);

/** Local. Bytes the user buffer must have for collio_write / collio_read:
 *  nlocal*esize (packed), nglobal*esize (global), or the datatype's span. */
size_t collio_layout_buffer_bytes(const collio_layout *layout);

/** Local. Frees a layout and sets *layout to NULL (NULL-safe). Plans made
 *  from it stay valid: they keep what they need. */
void collio_layout_free(collio_layout **layout);

/* ------------------------------------------------------------------- files */

/** Opaque. One shared file open on every rank of a communicator. */
typedef struct collio_file collio_file;

typedef enum collio_backend {
    COLLIO_BACKEND_POSIX = 0, /* pwrite/pread on a file descriptor */
    COLLIO_BACKEND_MPIIO      /* MPI_File_write_at / read_at (ROMIO, OMPIO) */
} collio_backend;

typedef enum collio_file_mode {
    /* Create (or replace) atomically: data goes to a temporary file beside
     * the target, ".NAME.collio-tmp.N" in the target's directory (N the
     * first free slot number; for names near NAME_MAX a shortened NAME and
     * its hash), made by rank 0 and locked by it (an
     * open-file-description lock, else flock) while the file is open. It
     * is renamed onto the target by collio_file_close only when no write
     * or read on any rank failed; otherwise it is removed and any previous
     * file stays as it was. Each open has its own temporary, so writers of
     * one target at the same time (two jobs, or one job opening it twice)
     * never mix: each close that returns COLLIO_OK installs that writer's
     * whole file, and the last one stays. A temporary whose writer died
     * (its lock is gone) is removed by the next CREATE of the target, so a
     * killed job leaves at most one per target. On a file system without
     * locks leftovers stay (docs/architecture.md, "Atomic create"). */
    COLLIO_FILE_CREATE = 0,
    /* Write in place into the file (created if missing, never truncated):
     * faster, but a failed write may leave it half-written. */
    COLLIO_FILE_INPLACE,
    /* Read only; the file must exist. */
    COLLIO_FILE_READ
} collio_file_mode;

typedef struct collio_file_options {
    collio_backend backend; /* default COLLIO_BACKEND_POSIX */
    int64_t base_offset;    /* byte offset of element 0 (a header may precede) */
    int sync;               /* 1: fsync before close commits; default 0 */
    MPI_Info info;          /* hints for MPI-IO opens; default MPI_INFO_NULL */
} collio_file_options;

/** Local. Fills *opts with the defaults above. */
void collio_file_options_init(collio_file_options *opts);

/**
 * Collective over comm. Opens `path` in `mode` with `opts` (NULL: the
 * defaults). Errors: COLLIO_ERR_ARG, COLLIO_ERR_OPEN (missing directory,
 * permission, missing file for READ), COLLIO_ERR_MISMATCH (path, mode,
 * opts.backend, opts.base_offset or opts.sync differ across ranks -- also
 * where one rank's value is invalid on its own).
 */
int collio_file_open(MPI_Comm comm, const char *path, collio_file_mode mode,
                     const collio_file_options *opts, collio_file **out);

/**
 * Collective. Closes the file. For COLLIO_FILE_CREATE: if every
 * collio_write and collio_read on it succeeded on every rank, (fsyncs if
 * opts.sync,) and renames the temporary file onto the path; if any of them
 * failed -- for any reason, a bad argument included -- removes the
 * temporary and returns COLLIO_ERR_IO on every rank, leaving the previous
 * file untouched byte for byte, with the first failure's detail in
 * collio_last_error(). An INPLACE file after a failed call: the same
 * COLLIO_ERR_IO (its bytes may be half-written). A failed rename is
 * COLLIO_ERR_IO naming both paths and errno. *f becomes NULL in every
 * case. Outside MPI's lifetime: COLLIO_ERR_STATE and nothing happens.
 */
int collio_file_close(collio_file **f);

/** Collective. Closes and discards: a CREATE file's temporary is removed
 *  and the path is left as it was. *f becomes NULL. */
int collio_file_abort(collio_file **f);

/** Local. The path given at open. */
const char *collio_file_path(const collio_file *f);

/* ------------------------------------------------------------ strategies */

/** Local. Number of registered strategies (docs/strategies.md lists the
 *  built-in ones, the non-canonical reference included). */
int collio_strategy_count(void);

/** Local. Name of strategy i (0 <= i < count), else NULL. */
const char *collio_strategy_name(int i);

/** Local. One-line description of a strategy, or NULL if unknown. */
const char *collio_strategy_summary(const char *name);

/** Local. 1 if the strategy writes the canonical file order (every strategy
 *  but the reference that writes each rank's data as one block), 0 if not,
 *  -1 if unknown. */
int collio_strategy_is_canonical(const char *name);

/** Local. 1 if the strategy hands the data to the MPI library's own
 *  collective I/O (a file view + MPI_File_write_all / read_all): what an
 *  MPI-IO program gets without collio; 0 if not, -1 if unknown. */
int collio_strategy_is_mpi_collective(const char *name);

/* ------------------------------------- the machine: file systems, costs */

/** The file system that holds a path, as this process sees it: the entry
 *  of /proc/self/mountinfo on the path's device with the deepest mount
 *  point that contains it (the top of mounts stacked on one point), and
 *  statfs(2)'s magic number. */
typedef struct collio_fs_id {
    char type[64];       /* mount table type: "ext4", "fuse.glusterfs",
                            "tmpfs"; "0x<magic>" without a mount table */
    char mount[1024];    /* its mount point ("" if unknown) */
    char source[1024];   /* what is mounted: "/dev/vda", "10.77.0.6:/v" */
    unsigned long magic; /* statfs(2)'s f_type (0: unknown) */
} collio_fs_id;

/** Local. The file system of `path`: a file or directory, or a path that
 *  does not exist yet (then its directory's). Always fills *out (type
 *  "unknown" where nothing is found). Errors: COLLIO_ERR_ARG (NULL). */
int collio_fs_identify(const char *path, collio_fs_id *out);

/** Local. 1 if the file system is a network hop away -- its mount table
 *  type is one of NFS, SMB, Lustre, GPFS, BeeGFS, Ceph, GlusterFS, AFS,
 *  OrangeFS, PanFS, WekaFS, DAOS, 9p, OCFS2, GFS2 and a few FUSE clients
 *  of the same (docs/auto.md lists them), or without a mount table its
 *  statfs magic number is --, else 0 (NULL: 0). Strategy "auto" prices a
 *  networked file system without a calibration entry with the networked
 *  built-in costs instead of a local disk's. */
int collio_fs_is_networked(const collio_fs_id *id);

/** Most piece sizes of collio_fs_costs' interleaved request costs. */
#define COLLIO_CAL_INTERLEAVED_MAX 4

/** Most cost terms of one file system's entry (collio_fs_costs.terms). */
#define COLLIO_CAL_TERMS_MAX 16

/** A cost a strategy owns, measured on one file system: its key
 *  "STRATEGY.KIND" (the strategy's table declares the keys it owns;
 *  docs/auto.md lists them) and its seconds for a write and a read. KIND
 *  "call": the strategy's smallest call, one collio_write (collio_read) of
 *  one 4-byte element per rank, the median, made with call_ranks ranks,
 *  call_ranks_per_node of them on the fullest node -- what a call costs
 *  whatever its size; other kinds are per byte ("byte") or per
 *  synchronised round ("round") of that strategy's work. */
typedef struct collio_cost_term {
    char key[48];
    double write_s, read_s;
} collio_cost_term;

/** What the cost model of strategy "auto" knows of one file system: its
 *  costs as measured by `collio-bench calibrate` (docs/auto.md). */
typedef struct collio_fs_costs {
    collio_fs_id id;
    double write_request_s;     /* one small write request, one process */
    double write_Bps;           /* large writes, every rank at once */
    double read_request_s;      /* one small read request, one process */
    double read_Bps;            /* large reads, every rank at once */
    double mpiio_write_piece_s; /* the MPI library's collective write
                                   (MPI_File_write_all), per piece of a
                                   rank, one process per core */
    double mpiio_read_piece_s;  /* MPI_File_read_all, likewise */
    double mpiio_write_call_s;  /* the same collective's cost per call beyond
                                   its pieces (0: not measured) */
    double mpiio_read_call_s;   /* likewise for MPI_File_read_all */
    double mpiio_write_byte_s;  /* the same collective's cost per byte of a
                                   rank beyond the file's bytes (its
                                   exchange and copies), one process per
                                   core (0: not measured) */
    double mpiio_read_byte_s;   /* likewise for MPI_File_read_all */
    /* List I/O: every rank writing (reading) its own pieces,
     * interleaved with the other ranks' in one file, all at once. The cost of one request
     * beyond its bytes (those count at write_Bps / read_Bps), per process (the node's
     * oversubscription divided out), at ninterleaved piece sizes interleaved_bytes[]
     * (increasing). 0 sizes: not measured; the model then uses
     * write_request_s / read_request_s at every size. */
    int ninterleaved;
    double interleaved_bytes[COLLIO_CAL_INTERLEAVED_MAX];
    double write_interleaved_s[COLLIO_CAL_INTERLEAVED_MAX];
    double read_interleaved_s[COLLIO_CAL_INTERLEAVED_MAX];
    /* The strategies' own costs (collio_cost_term; collio_fs_costs_term
     * finds one), measured with call_ranks ranks, call_ranks_per_node of
     * them on the fullest node. A term not there: not measured (0 ranks:
     * none). */
    int call_ranks, call_ranks_per_node;
    int nterms;
    collio_cost_term terms[COLLIO_CAL_TERMS_MAX];
    /* 1: measured by strategy auto itself at a first call on a file system
     * no calibration covered (COLLIO_CALIBRATE_QUICK: fewer and shorter
     * runs); 0: by `collio-bench calibrate` (COLLIO_CALIBRATE_FULL). The
     * file's "method": "quick" or "full". */
    int quick;
    /* The MPI library the costs were measured under (the first line of its
     * MPI_Get_library_version, e.g. "Open MPI v4.1.4", "MPICH 4.0.2"; ""
     * in files of older collios): the MPI library's collective and the
     * calls' floors are its own. The file's "mpi". */
    char mpi[64];
} collio_fs_costs;

#define COLLIO_CALIBRATION_MAX_FS 16

/** The machine's constants for the cost model: the network, memory, and
 *  one entry per file system measured. Index 0 of latency_s and
 *  bandwidth_Bps: between ranks of one node; 1: between nodes. */
typedef struct collio_calibration {
    int from_file;           /* 1: loaded from a calibration file, 0: the
                                built-in defaults */
    double latency_s[2];     /* one small message */
    double bandwidth_Bps[2]; /* large messages, one pair of ranks */
    double copy_Bps;         /* memcpy of large buffers, one process */
    double piece_s;          /* packing one contiguous piece (a run of
                                elements) beyond its bytes, one process */
    int cores_per_node;      /* where measured (0: unknown) */
    int shm_window;          /* MPI_Win_allocate_shared worked (0/1) */
    int nfs;                 /* entries of fs[] */
    collio_fs_costs fs[COLLIO_CALIBRATION_MAX_FS];
} collio_calibration;

/** Local. The term of that key in fs (NULL: not measured, or fs or key
 *  NULL). */
const collio_cost_term *collio_fs_costs_term(const collio_fs_costs *fs, const char *key);

/** Local. Sets the term KEY of fs to these seconds (added where not there
 *  yet). Errors: COLLIO_ERR_ARG (a NULL argument, a key of 48 bytes or
 *  more, a negative or non-finite time, or COLLIO_CAL_TERMS_MAX terms
 *  already). */
int collio_fs_costs_set_term(collio_fs_costs *fs, const char *key, double write_s,
                             double read_s);

/** Local. The built-in defaults (from_file = 0; no file system entry: a
 *  plan then uses the built-in file costs of the file's kind, local or
 *  networked (collio_fs_is_networked), given in docs/auto.md). */
void collio_calibration_defaults(collio_calibration *out);

/** Local. Where the calibration file is: $COLLIO_CALIBRATION if set, else
 *  $XDG_CONFIG_HOME/collio/calibration.json, else
 *  $HOME/.config/collio/calibration.json. Into buf[0..n); COLLIO_ERR_ARG
 *  if it does not fit or nothing is set. */
int collio_calibration_path(char *buf, size_t n);

/** Local. Reads a calibration file (JSON, docs/auto.md; NULL: the
 *  default path). On any error *out holds the built-in defaults and the
 *  code says why: COLLIO_ERR_IO (missing, unreadable), COLLIO_ERR_ARG
 *  (not a calibration file, a value out of range),
 *  COLLIO_ERR_UNSUPPORTED (collio built without json-c). */
int collio_calibration_load(const char *path, collio_calibration *out);

/** Local. Writes c as a calibration file (NULL: the default path; its
 *  directory is created), atomically (a temporary beside it, renamed).
 *  Errors: COLLIO_ERR_IO, COLLIO_ERR_ARG, COLLIO_ERR_UNSUPPORTED. */
int collio_calibration_save(const char *path, const collio_calibration *c);

/** How much collio_calibrate measures (docs/auto.md, "Calibration"). */
typedef enum collio_calibrate_level {
    COLLIO_CALIBRATE_FULL = 0, /* `collio-bench calibrate`: 3-5 s on 8 ranks here */
    COLLIO_CALIBRATE_QUICK = 1 /* the same measurements, fewer and shorter runs:
                                  what strategy auto measures at a first call on
                                  a file system no calibration covers (0.3-0.5 s) */
} collio_calibrate_level;

/** Options of collio_calibrate (NULL: COLLIO_CALIBRATE_FULL, its sizes). */
typedef struct collio_calibrate_opts {
    collio_calibrate_level level;
    int mb;     /* MiB per rank of the large requests (0: the level's, 8 full) */
    int pieces; /* pieces per rank of the MPI library's collective (0: the
                   level's, 16384 full) */
} collio_calibrate_opts;

#define COLLIO_CALIBRATE_MAX_STAGES 12
/** What collio_calibrate did (the same on every rank). */
typedef struct collio_calibrate_info {
    int nodes, ranks_per_node;          /* the job's placement (fullest node) */
    int measured_intra, measured_inter; /* 1: that link was measured */
    int nstages;
    const char *stage[COLLIO_CALIBRATE_MAX_STAGES]; /* "network", "list i/o", ... */
    double stage_s[COLLIO_CALIBRATE_MAX_STAGES];    /* seconds each */
    double total_s;
} collio_calibrate_info;

/** Collective over comm. Measures the constants of strategy auto's cost
 *  model on this machine (docs/auto.md, "Calibration"): the network
 *  within and between nodes, memory copies and packing, the node's cores
 *  and shared-memory windows, and the file system of directory `dir` --
 *  small and large requests, list I/O at four piece sizes, the MPI
 *  library's collective I/O, and the smallest call of each base strategy
 *  -- on a scratch file DIR/.collio-calibrate.PID, removed after. `dir` is
 *  created (with its parents) where it does not exist. *cal gives the
 *  constants to start from (collio_calibration_defaults, or a loaded
 *  file): what cannot be measured (the link between nodes, on one node)
 *  keeps its value; on return it holds rank 0's measurements on every
 *  rank, and *fs the entry of dir's file system (its call_ranks and
 *  call_ranks_per_node: this job's layout; quick: 1 at
 *  COLLIO_CALIBRATE_QUICK). Nothing is saved: collio_calibration_store
 *  adds the result to a file. info may be NULL. Errors, the same on every
 *  rank: COLLIO_ERR_IO (the directory or the scratch file; which rank and
 *  stage in collio_last_error), COLLIO_ERR_MPI, COLLIO_ERR_NOMEM,
 *  COLLIO_ERR_ARG, COLLIO_ERR_MISMATCH (dir or opts differ between
 *  ranks). */
int collio_calibrate(MPI_Comm comm, const char *dir, const collio_calibrate_opts *opts,
                     collio_calibration *cal, collio_fs_costs *fs,
                     collio_calibrate_info *info);

/** Local. The entry of c for the file system `id` (same type, source and
 *  mount point), or -1. */
int collio_calibration_find_fs(const collio_calibration *c, const collio_fs_id *id);

/** Local. 1 if entry fs was measured with the rank layout of a job of
 *  `ranks` ranks, `ranks_per_node` of them on its fullest node -- the same
 *  ranks per node, and one node or several alike (its calls' call_ranks
 *  and call_ranks_per_node) -- and under the MPI library this process runs
 *  (its mpi); an entry without them (older files) covers every layout and
 *  MPI. Strategy auto prices a call with an entry that covers its plan,
 *  and measures the file system where none does (docs/auto.md,
 *  "Calibration without a step"). */
int collio_calibration_covers(const collio_fs_costs *fs, int ranks, int ranks_per_node);

/** Local. The first entry of c for file system `id` that covers a job of
 *  `ranks` ranks, `ranks_per_node` on the fullest node
 *  (collio_calibration_covers), or -1. */
int collio_calibration_find_covering(const collio_calibration *c, const collio_fs_id *id,
                                     int ranks, int ranks_per_node);

/** Local. Adds one measurement to the calibration file at path (NULL: the
 *  default path, collio_calibration_path; its directory is created): the
 *  file system entry fs replaces the file's entry for the same file system
 *  and rank layout (collio_calibration_covers), or is appended (the oldest
 *  entry dropped when the file holds COLLIO_CALIBRATION_MAX_FS); where
 *  `machine` is not NULL, its network, memory and node constants replace
 *  the file's. Every other entry is kept. The read, the merge and the
 *  write run under an exclusive lock of PATH.lock (flock(2); without one
 *  where the file system has no locks), and the write is a temporary
 *  renamed over the file: jobs storing at once keep every entry, and a
 *  reader sees one whole file. A corrupt file is replaced; a path that is
 *  not a regular file is refused. Errors: COLLIO_ERR_IO (not writable, not
 *  a regular file, locked by another process for 10 s), COLLIO_ERR_ARG,
 *  COLLIO_ERR_UNSUPPORTED (built without json-c). */
int collio_calibration_store(const char *path, const collio_calibration *machine,
                             const collio_fs_costs *fs);

/* ------------------------------------------------------------------ plans */

/** Opaque. A reusable schedule for one layout and one strategy. */
typedef struct collio_plan collio_plan;

/* ------------------------------------------------------------------ hints */

/*
 * Plan options are hints: key/value pairs, as MPI-IO's are (ROMIO's
 * "cb_nodes", PnetCDF's "nc_num_aggrs_per_node"). Each key is
 * "SECTION.NAME": the section "plan" for the options of every plan,
 * "replicas" for replicated layouts, and one per strategy for its own
 * (docs/options.md lists them all). Each owner declares its
 * options in one table (type, default, range, one line of doc); the
 * catalogue (collio_option_describe) lists them all, and docs/options.md
 * is generated from it. Values are text: integers (decimal; sizes may end
 * in K, M, G, Ki, Mi, Gi), booleans (1/0, true/false, yes/no, on/off,
 * enable/disable) and names (one of the option's list, a strategy).
 *
 * A plan takes its hints from, in order (a later source wins): the
 * defaults, the collio_hints object given to collio_plan_create, and the
 * environment variable COLLIO_HINTS ("KEY=VALUE,KEY=VALUE"), which
 * changes a run without recompiling. Every option of every section is
 * compared across ranks at plan creation (COLLIO_ERR_MISMATCH on every
 * rank if one differs); an unknown key or a bad value is COLLIO_ERR_ARG on
 * every rank, naming the key. collio_plan_hints reports every key with the
 * value the plan runs with, defaults included (as MPI_File_get_info).
 */

/** Opaque. A set of hints (local: no communication). */
typedef struct collio_hints collio_hints;

/** Local. A new, empty set of hints. Errors: COLLIO_ERR_ARG (out NULL),
 *  COLLIO_ERR_NOMEM. */
int collio_hints_create(collio_hints **out);

/** Local. Frees a set of hints (NULL-safe) and sets *hints to NULL. */
void collio_hints_free(collio_hints **hints);

/** Local. Sets KEY to VALUE (text, see above), replacing an earlier value.
 *  Errors: COLLIO_ERR_ARG (an unknown key, or a value the key's type or
 *  range does not allow; collio_last_error names the key and says what it
 *  takes), COLLIO_ERR_NOMEM. */
int collio_hints_set(collio_hints *hints, const char *key, const char *value);

/** Local. Sets an integer, boolean or named KEY from a number (a boolean:
 *  0 or 1; a name: its value, collio_option_value). Errors as
 *  collio_hints_set. */
int collio_hints_set_int(collio_hints *hints, const char *key, int64_t value);

/** Local. Sets every "KEY=VALUE" of a comma-separated list, e.g.
 *  "plan.keep_buffers=0,plan.destroy_input=1" (spaces around keys and
 *  values are ignored). The pairs before the first bad one stay set.
 *  Errors as collio_hints_set. */
int collio_hints_parse(collio_hints *hints, const char *list);

/** Local. Sets every key of `info` that lies in one of collio's sections
 *  (a key "SECTION.NAME" whose SECTION is "plan", "replicas", "request" or a
 *  strategy's name); other keys (MPI-IO's own hints) are left alone, so
 *  one MPI_Info can serve both. Errors as collio_hints_set, COLLIO_ERR_MPI. */
int collio_hints_set_info(collio_hints *hints, MPI_Info info);

/** Local. The value of KEY in `hints` as text into value[0..len) (NUL
 *  terminated; COLLIO_ERR_ARG if it does not fit) and *flag = 1; *flag = 0
 *  (value untouched) if KEY is not set. Errors: COLLIO_ERR_ARG. */
int collio_hints_get(const collio_hints *hints, const char *key, char *value, size_t len,
                     int *flag);

/** Local. Number of keys set (0 for NULL), and the i-th (0 <= i < count)
 *  in the order they were first set (NULL if out of range). */
int collio_hints_count(const collio_hints *hints);
const char *collio_hints_key(const collio_hints *hints, int i);

/** One entry of the option catalogue (collio_option_describe). */
typedef struct collio_option_info {
    const char *key;   /* "SECTION.NAME" */
    const char *type;  /* "int", "size", "bool", "name", "strategy", "uint64",
                          "path" */
    const char *deflt; /* the default, as text */
    const char *range; /* what it takes, e.g. "0..32", "NAME|NAME|..." */
    const char *doc;   /* one line */
} collio_option_info;

/** Local. Number of options in the catalogue (every section's). */
int collio_option_count(void);

/** Local. The i-th option (0 <= i < collio_option_count()), in section
 *  order: "plan", "replicas", "request", then the strategies in registry order. The
 *  strings are the library's own. Errors: COLLIO_ERR_ARG. */
int collio_option_describe(int i, collio_option_info *out);

/** Local. The names an option of type "name" takes -- e.g.
 *  "replicas.policy" (which holder of a replicated element writes it),
 *  "auto.only" ("any", then auto's candidates), a strategy's choice of
 *  its own variants; docs/options.md lists them and the strategies' docs
 *  describe them: the name of value
 *  `value` (0, 1, ... until NULL lists them all), or NULL where KEY is no
 *  such option or `value` is out of range. A stat of the same key holds
 *  such a value (the plan's choice); stats "auto.write_choice" and
 *  "auto.read_choice" hold value - 1 of "auto.only". */
const char *collio_option_value_name(const char *key, int value);

/** Local. The value of NAME for an option of type "name" (as above), or
 *  -1 where the key or the name is unknown. */
int collio_option_value(const char *key, const char *name);

/**
 * Collective over comm, which must hold the same processes in the same
 * order as the layout's communicator (MPI_Comm_compare: identical or
 * congruent). Builds the plan: every analysis that depends only on the
 * layout is done here once (the inspector), so that collio_write /
 * collio_read only move data. `strategy` is a registered name, or NULL
 * for "auto" (the default: collio chooses, docs/auto.md). `hints`
 * may be NULL (the defaults, and COLLIO_HINTS); the plan keeps its own
 * copy of what it needs.
 * Errors: COLLIO_ERR_STRATEGY, COLLIO_ERR_MISMATCH (the layout made on
 * another communicator; the layouts' nglobal, esize or kind, the strategy
 * or any option differ across ranks), COLLIO_ERR_ARG (an unknown key, a
 * value out of range -- in the hints or in COLLIO_HINTS --, or options
 * that do not go together, a strategy's, docs/options.md;
 * COLLIO_COPY_ALIAS set to anything but 0,
 * 1 or empty, docs/benchmarks.md), COLLIO_ERR_NOMEM.
 */
int collio_plan_create(MPI_Comm comm, const collio_layout *layout, const char *strategy,
                       const collio_hints *hints, collio_plan **out);

/** Local. Every option (every key of the catalogue) with the value the
 *  plan runs with -- defaults, the plan's hints and COLLIO_HINTS applied
 *  -- as a new set of hints for the caller to free. Errors:
 *  COLLIO_ERR_ARG, COLLIO_ERR_NOMEM. */
int collio_plan_hints(const collio_plan *plan, collio_hints **out);

/**
 * Collective. Writes this rank's data from buf (buf_bytes must equal
 * collio_layout_buffer_bytes) into file f, which must be open for CREATE or
 * INPLACE on a communicator congruent to the plan's. May be called any
 * number of times with the same plan. A failure, for any reason, leaves f
 * failed: its collio_file_close commits nothing (COLLIO_ERR_IO).
 * Errors: COLLIO_ERR_ARG (buf or f NULL), COLLIO_ERR_BUFSIZE,
 * COLLIO_ERR_MISMATCH (f open on another communicator, or a different file
 * on some rank), COLLIO_ERR_OVERFLOW, COLLIO_ERR_STATE (f open for READ;
 * outside MPI's lifetime), COLLIO_ERR_IO, COLLIO_ERR_MPI.
 */
int collio_write(collio_plan *plan, collio_file *f, const void *buf, size_t buf_bytes);

/**
 * Collective. collio_write with the data placed `offset` bytes further
 * into the file: element 0 at opts.base_offset + offset. One file and one
 * plan serve many variables of one decomposition (a history file): one
 * open, one plan, one call per variable. offset >= 0, the same on every
 * rank (COLLIO_ERR_MISMATCH otherwise); the errors of collio_write.
 */
int collio_write_at(collio_plan *plan, collio_file *f, int64_t offset, const void *buf,
                    size_t buf_bytes);

/** Collective. collio_read from `offset` bytes further into the file, as
 *  collio_write_at places it; the errors of collio_read. */
int collio_read_at(collio_plan *plan, collio_file *f, int64_t offset, void *buf,
                   size_t buf_bytes);

/**
 * Collective. Reads this rank's data from file f into buf, in layout
 * order (for the non-canonical reference strategy: from the file it wrote). Like
 * collio_write, a failure leaves f failed (a CREATE or INPLACE file then
 * commits nothing at close). Any buffer address will do: on CPUs whose
 * kernel copy is slow into memory just past the file's page alignment
 * (malloc's large blocks), the POSIX backend reads such pieces through
 * a bounce buffer (COLLIO_COPY_ALIAS=0 turns that off; docs/benchmarks.md).
 * Errors: COLLIO_ERR_ARG, COLLIO_ERR_BUFSIZE, COLLIO_ERR_MISMATCH,
 * COLLIO_ERR_EOF (file shorter than base_offset + nglobal*esize),
 * COLLIO_ERR_IO, COLLIO_ERR_STATE.
 */
int collio_read(collio_plan *plan, collio_file *f, void *buf, size_t buf_bytes);

/* ---------------------------------------------------------------- requests */

/**
 * Opaque. A write or read started by collio_iwrite / collio_iread (and
 * their _at forms) and completed by collio_wait, collio_test,
 * collio_waitall or collio_testall (docs/requests.md).
 *
 * Starting one is collective over the plan's ranks: every rank starts the
 * same requests in the same order; the checks of collio_write_at are made
 * when it runs, and its errors are its completion's, agreed on every rank.
 * Where MPI gives MPI_THREAD_MULTIPLE (MPI_Init_thread) a helper thread
 * runs requests in the background, on the plan's and the file's own
 * communicators, while the caller computes; otherwise (or with hint
 * request.thread=0 or COLLIO_PROGRESS_THREAD=0) they run in the first
 * completion call that needs them, or in collio_progress. Requests run
 * in the order they were started; requests of one plan on one file that
 * are waiting to run together (hint request.start=wait holds them until
 * a completion call) run as one execution: one exchange and one file pass
 * for all of them (stat request.merged). Every other collective call of
 * the library (a blocking write, a plan's or a file's creation or end)
 * first waits for the started requests to run.
 *
 * The buffer is the library's until the request completes (a write's:
 * not modified; a read's: not read) unless hint request.snapshot=1 copies
 * a write's data when it starts (then the caller may reuse it at once).
 * collio_file_close with a request on the file not completed fails with
 * COLLIO_ERR_STATE and commits nothing; collio_plan_free with one on the
 * plan fails it (its wait returns COLLIO_ERR_STATE) and leaves its file
 * uncommitted.
 */
typedef struct collio_request collio_request;

/** Collective. Starts collio_write_at(plan, f, offset, buf, buf_bytes) and
 *  sets *req (also when it returns an error, so that every rank completes
 *  the same requests). Errors now: COLLIO_ERR_ARG (plan or req NULL), and
 *  the errors of collio_write_at at its completion. */
int collio_iwrite_at(collio_plan *plan, collio_file *f, int64_t offset, const void *buf,
                     size_t buf_bytes, collio_request **req);
/** Collective. collio_iwrite_at at offset 0. */
int collio_iwrite(collio_plan *plan, collio_file *f, const void *buf, size_t buf_bytes,
                  collio_request **req);
/** Collective. Starts collio_read_at; as collio_iwrite_at. */
int collio_iread_at(collio_plan *plan, collio_file *f, int64_t offset, void *buf,
                    size_t buf_bytes, collio_request **req);
/** Collective. collio_iread_at at offset 0. */
int collio_iread(collio_plan *plan, collio_file *f, void *buf, size_t buf_bytes,
                 collio_request **req);

/** Completes *req: returns once it has run, with its code (the same on
 *  every rank), frees it and sets *req to NULL. NULL *req: COLLIO_OK.
 *  Without a helper thread it may run queued requests itself, and is then
 *  collective in effect (every rank must call it). */
int collio_wait(collio_request **req);

/** Sets *done to 1 and completes *req as collio_wait if it has run; else
 *  *done = 0 and COLLIO_OK. Where the helper thread does not run it
 *  (there is none, or the request was held: hint request.start=wait) it
 *  runs the request now, collective in effect, and always completes it. */
int collio_test(collio_request **req, int *done);

/** Completes the n requests of reqs (NULL entries skipped), run together
 *  where they can be (one execution per plan and file). codes (may be
 *  NULL): each request's code. Returns COLLIO_OK, or the first failing
 *  request's code. */
int collio_waitall(int n, collio_request *reqs[], int codes[]);

/** *done = 1 and collio_waitall if every one of the n requests has run;
 *  else *done = 0, none is completed, COLLIO_OK. */
int collio_testall(int n, collio_request *reqs[], int *done, int codes[]);

/** Local. Asks that fn(arg) be called once req has run -- by the thread
 *  that runs it, the helper thread in the background -- for a caller
 *  whose own completion call is not collio's (the MPI-IO interposer
 *  completes MPI generalized requests from it). fn must be short and must
 *  not call collio; req is then completed as any other (collio_wait
 *  returns at once). Returns COLLIO_OK when fn will be called (at once,
 *  on this thread, if req has run already); COLLIO_ERR_STATE, and fn is
 *  never called, where nothing runs req in the background (no helper
 *  thread, or req or a request started before it is held by
 *  request.start=wait): complete it with collio_wait or collio_test.
 *  COLLIO_ERR_ARG: req or fn NULL. A second call replaces the first. */
int collio_request_notify(collio_request *req, void (*fn)(void *arg), void *arg);

/** Runs now every started request that the helper thread will not run
 *  (all of them without one; held ones), collective in effect where there
 *  are any; the helper thread's go on in the background. COLLIO_OK. */
int collio_progress(void);

/** What one plan did, the statistics every strategy keeps: times in
 *  seconds on this rank, counters of this rank. Times of an execution
 *  refer to the last collio_write / collio_read. inspect_s, plan_bytes and
 *  nnodes describe the plan and are kept from one call to the next; every
 *  other field describes the last execution and starts from 0 in each
 *  call. A strategy's own statistics (what it chose, its groups, its
 *  figures per exchange phase; the replica policy's counts) are read by
 *  key with collio_plan_stat and collio_plan_stat_values. */
typedef struct collio_stats {
    double inspect_s;         /* plan creation (this rank) */
    double exchange_s;        /* data movement between ranks (incl. pack/unpack) */
    double copy_s;            /* the part of exchange_s spent in local copies
                                 (kept pieces, a final scatter or gather;
                                 layout pack/unpack of a non-packed memory
                                 kind); 0 where a strategy does not
                                 separate it. exchange_s - copy_s is then
                                 time in MPI transfers and waiting */
    double file_s;            /* file access */
    double total_s;           /* the whole collio_write / collio_read call */
    int64_t bytes_sent;       /* bytes this rank sent to other ranks */
    int64_t messages;         /* point-to-point messages (or collective calls)
                                 this rank took part in */
    int64_t file_requests;    /* file system requests this rank issued */
    int64_t file_bytes;       /* bytes this rank wrote or read in the file */
    int64_t plan_bytes;       /* memory of the plan's descriptors on this rank */
    int64_t work_bytes;       /* work buffers the last execution used beyond the
                                 user's buffer, by their allocated size
                                 (kept by the plan between executions under
                                 hint plan.keep_buffers, and then reused where
                                 large enough); 0 for strategies that do not
                                 report it */
    int nnodes;               /* nodes the plan's ranks run on (ranks that
                                 share memory: MPI_COMM_TYPE_SHARED) */
    int64_t messages_offnode; /* of messages: point-to-point messages with
                                 ranks on other nodes -- what a cluster's
                                 network carries (exchanges between ranks,
                                 the replica fill of reads; collective
                                 calls are not split) */
    int64_t bytes_offnode;    /* of bytes_sent: bytes sent in those */
} collio_stats;

/** Local. Copies the plan's statistics. */
int collio_plan_stats(const collio_plan *plan, collio_stats *out);

/** Local. One statistic by key: a field of collio_stats by its name
 *  ("total_s", "bytes_sent", ...) or a section's own, "SECTION.NAME"
 *  (a strategy's or the replica policy's: "replicas.intervals", ...;
 *  collio_stat_describe lists them, docs/options.md too; a plan of a
 *  strategy that runs another inside also has its inner strategy's). A
 *  section whose strategy does not run reads 0. Errors: COLLIO_ERR_ARG (an
 *  unknown key, or a statistic of many values -- collio_plan_stat_values
 *  reads those; collio_last_error says which). */
int collio_plan_stat(const collio_plan *plan, const char *key, double *value);

/** Local. Every value of one statistic by key (as collio_plan_stat): a
 *  statistic with one value per exchange phase, per round, ... holds up to
 *  its catalogue's `count` values, of which *count are in use in this plan
 *  (the value of its `length` statistic); a scalar has *count = 1. Copies
 *  the first min(*count, max) into values[]. Errors: COLLIO_ERR_ARG (an
 *  unknown key, max < 0, a NULL argument). */
int collio_plan_stat_values(const collio_plan *plan, const char *key, double *values,
                            int max, int *count);

/** One entry of the statistics catalogue (collio_stat_describe). */
typedef struct collio_stat_info {
    const char *key;    /* "total_s", or "SECTION.NAME" */
    int per_call;       /* 1: describes the last execution (reset in each
                           call), 0: the plan (kept) */
    const char *doc;    /* one line */
    int count;          /* values: 1, or up to count (one per phase, ...) */
    const char *length; /* count > 1: the key of the statistic that says how
                           many are in use; NULL otherwise */
} collio_stat_info;

/** Local. Number of statistics in the catalogue, and the i-th (the fields
 *  of collio_stats first, then every section's). Errors: COLLIO_ERR_ARG. */
int collio_stat_count(void);
int collio_stat_describe(int i, collio_stat_info *out);

/**
 * Local. What the plan would run for a write (writing = 1) or a read of f,
 * without running anything: for a strategy that chooses among candidates
 * ("auto"), the candidate its model picks for f's file system
 * (*candidate, its name collio_option_value_name of "auto.only" at
 * *candidate + 1) and its predicted seconds; for every other strategy
 * *candidate = -1 and *seconds = -1. The same on every rank (the
 * plan's inputs are). Errors: COLLIO_ERR_ARG (a NULL argument).
 */
int collio_plan_predict(const collio_plan *plan, const collio_file *f, int writing,
                        int *candidate, double *seconds);

/**
 * Collective over the plan's ranks. Does now what the first write
 * (writing = 1) or read of f would do before moving any data, so that the
 * call itself runs as the executor alone: for strategy "auto", measures
 * f's file system where no calibration covers it (auto.calibrate,
 * docs/auto.md), chooses, and makes the chosen candidate's plan; nothing
 * for other strategies. After it, collio_plan_predict gives that choice.
 * Errors, the same on every rank: COLLIO_ERR_ARG (NULL; a NULL plan is
 * local), COLLIO_ERR_MISMATCH (writing or f differ between ranks), or a
 * candidate's plan creation's.
 */
int collio_plan_prepare(collio_plan *plan, collio_file *f, int writing);

/** Local. The plan's strategy name. */
const char *collio_plan_strategy(const collio_plan *plan);

/** Collective. Frees a plan (NULL-safe) and sets *plan to NULL. */
void collio_plan_free(collio_plan **plan);

/* ------------------------------------------------------- HDF5 description */

/** Element types of an HDF5 description (collio_describe_h5): native byte
 *  order, as collio writes the user's bytes unchanged. */
typedef enum collio_h5_type {
    COLLIO_H5_INT8 = 0,
    COLLIO_H5_UINT8,
    COLLIO_H5_INT16,
    COLLIO_H5_UINT16,
    COLLIO_H5_INT32,
    COLLIO_H5_UINT32,
    COLLIO_H5_INT64,
    COLLIO_H5_UINT64,
    COLLIO_H5_FLOAT32,
    COLLIO_H5_FLOAT64,
    COLLIO_H5__COUNT /* number of values; not a type */
} collio_h5_type;

/** Local. 1 if collio was built with HDF5 (collio_describe_h5 works), else
 *  0. */
int collio_have_h5(void);

/**
 * Collective over comm. Describes a raw file collio wrote for HDF5 tools
 * (h5py, ParaView, VisIt): rank 0 writes h5_path, an HDF5 file with one
 * dataset `dataset` (NULL: "data") whose storage is the raw file raw_path
 * itself from byte base_offset on (HDF5 external storage): no data is
 * copied. The dataset has element type `type` (a collio_h5_type) and the
 * global shape dims[0..ndims) (1 <= ndims <= 32); with fortran_order = 1
 * the dims are given in Fortran order (fastest first, as for a darray in
 * COLLIO_ORDER_FORTRAN) and the dataset's shape is their reverse, since
 * HDF5 shapes are in C order. A vector is ndims = 1, {nglobal}; a field of
 * `load` values per mesh node is {nodes, load}. raw_path is stored as
 * given: HDF5 resolves a relative path against the reader's working
 * directory (or, with HDF5_EXTFILE_PREFIX='${ORIGIN}' in the reader's
 * environment, against the .h5 file's directory). The .h5 is written
 * under a temporary name and renamed into place: a failure leaves an
 * earlier one intact. Every argument must be equal on every rank.
 * Errors (the same on every rank): COLLIO_ERR_ARG, COLLIO_ERR_OVERFLOW,
 * COLLIO_ERR_MISMATCH, COLLIO_ERR_OPEN (raw file missing, .h5 not
 * creatable), COLLIO_ERR_EOF (the raw file is shorter than base_offset +
 * the data), COLLIO_ERR_IO, COLLIO_ERR_UNSUPPORTED (built without HDF5).
 * An argument that differs across ranks is COLLIO_ERR_MISMATCH, also where
 * one rank's value is invalid on its own.
 */
int collio_describe_h5(MPI_Comm comm, const char *h5_path, const char *raw_path,
                       int64_t base_offset, int type, int ndims, const int64_t dims[],
                       int fortran_order, const char *dataset);

#ifdef __cplusplus
}
#endif
#endif /* COLLIO_H */
