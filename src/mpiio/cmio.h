/*
 * cmio.h -- libcollio_mpiio, the MPI-IO interposer (docs/mpiio.md):
 * what its parts share. wrappers.c defines the MPI_File_* entry points
 * (PMPI profiling interface) and keeps each open file's state; take.c
 * decides, per collective call, whether collio or the MPI library does it,
 * and does it; report.c counts and reports; flatten.c turns datatypes
 * into byte blocks (cached), access.c a view and a memory datatype into
 * one access's byte extents (extents.c: their lists).
 */
#ifndef CMIO_H
#define CMIO_H

#include "collio.h"
#include "flatten.h"

#include <mpi.h>
#include <stdint.h>

/* Plans kept (for every file of the process), least recently used out
 * (docs/mpiio.md). */
#define CMIO_CACHE_MAX 16

/* On a file whose ranks span several nodes, the first call of a pattern
 * whose pieces are this large on every rank (the mean piece, bytes) goes
 * to the MPI library, and the plan is made at the pattern's second call:
 * MPI-IO does large pieces well, and there a plan's first call (network
 * collectives, the link probe, collio's open of the file) costs more than
 * MPI's whole call, so a pattern written once is not charged a plan that
 * would not pay for itself; a pattern written again pays one call of
 * MPI's. On one node the first call with its plan is faster than MPI's
 * (docs/mpiio.md, "The first call of a pattern"). */
#define CMIO_DEFER_PIECE_BYTES 1024

/* COLLIO_MPIIO / info key "collio_mpiio". */
typedef enum cmio_mode { CMIO_AUTO = 0, CMIO_OFF, CMIO_FORCE } cmio_mode;

/* Why a call went to the MPI library (report.c names them). */
typedef enum cmio_why {
    CMIO_TAKEN = 0,
    CMIO_WHY_OFF,        /* COLLIO_MPIIO=off or info collio_mpiio=off */
    CMIO_WHY_DATAREP,    /* a datarep other than "native" */
    CMIO_WHY_ATOMIC,     /* atomic mode */
    CMIO_WHY_SEQUENTIAL, /* MPI_MODE_SEQUENTIAL */
    CMIO_WHY_RDONLY,     /* a write on a file opened read-only / the reverse */
    CMIO_WHY_VIEW,       /* file extents of the access that do not increase */
    CMIO_WHY_TYPE,       /* a datatype the flattener refused */
    CMIO_WHY_EOF,        /* a read past the end of the file */
    CMIO_WHY_OVERLAP,    /* ranks' extents overlap (or collio refused them) */
    CMIO_WHY_MODEL,      /* auto: MPI-IO's own collective predicted fastest */
    CMIO_WHY_PATH,       /* the file's path is unusable for collio */
    CMIO_WHY_FIRST,      /* a pattern's first call, large pieces (deferred) */
    CMIO_NWHY
} cmio_why;

/* One cached pattern: the same extents on every rank relative to their
 * lowest byte, on the same ranks; reused by the next call with them, on
 * any file of those ranks (the next time step, in the same file at
 * another offset or in the next file). plan NULL: the pattern goes to
 * MPI. */
typedef struct cmio_entry {
    uint64_t key, group; /* the pattern's key, the ranks' (cmio_file) */
    uint64_t used;       /* LRU clock */
    collio_plan *plan;
    int deferred;           /* seen once, no plan yet (CMIO_DEFER_PIECE_BYTES) */
    cmio_why why[2];        /* per write (0) / read (1): CMIO_TAKEN or why not */
    uint64_t decided_on[2]; /* the file (serial) the decision was made for */
} cmio_entry;

/* One open MPI file. */
typedef struct cmio_file {
    MPI_File fh;
    MPI_Comm comm; /* a dup of the open's */
    char *path;    /* for collio's own open (the ROMIO prefix stripped) */
    int amode;
    cmio_mode mode;
    char strategy[64]; /* info collio_strategy: "" = auto */
    char hints[512];   /* info collio_hints */
    /* the view, as set_view gave it */
    MPI_Offset disp;
    int64_t esize;       /* the etype's size in bytes */
    const cmio_flat *ft; /* the filetype's flat, held (flatten.h); NULL: collio
                            off, or a type the flattener does not take */
    int native;          /* datarep "native" */
    collio_file *cf;     /* collio's open of the same file, lazily */
    int cf_failed;       /* it could not be opened: pass */
    uint64_t group;      /* digest of the ranks (world ranks) */
    uint64_t serial;     /* this open's number in the process, >= 1 */
    int nodes;           /* 0 not known yet, 1 one node, 2 several (take.c) */
    cmio_extents fx, mx; /* the last access's extents (arrays reused) */
    struct cmio_file *next;
    /* a split collective in progress (_begin taken: its status) */
    int split_taken;
    MPI_Status split_status;
} cmio_file;

/* Calls of the interposer's own (collio's opens of the file) go straight to
 * the MPI library while this is > 0. */
extern int cmio_inside;

/* The interposer's mode from COLLIO_MPIIO (read once). */
cmio_mode cmio_env_mode(void);

/* take.c: one collective data access on s (explicit offset in etypes, or
 * at < 0: the individual file pointer). Returns 1 when collio did it (*err
 * then the MPI error code, the same on every rank), 0 when the caller must
 * hand the call to the MPI library. Collective over s->comm. */
int cmio_collective(cmio_file *s, MPI_Offset at, void *buf, int count, MPI_Datatype dt,
                    MPI_Status *st, int writing, int *err);
/* take.c: frees collio's open of s (collective over s->comm). */
void cmio_release(cmio_file *s);
/* take.c: frees every cached plan (local; at MPI_Finalize). */
void cmio_cache_clear(void);

/* report.c */
void cmio_count(int writing, cmio_why why, const char *strategy, int first,
                double seconds);
/* The file costs strategy auto priced a taken call with (its stats
 * auto.calibrated and auto.networked): counted for the report. */
typedef enum {
    CMIO_PRICED_CALIBRATED,
    CMIO_PRICED_LOCAL,
    CMIO_PRICED_NETWORKED,
    CMIO_NPRICED
} cmio_priced_by;
void cmio_priced(cmio_priced_by by);
void cmio_report(MPI_Comm comm); /* at MPI_Finalize, if COLLIO_MPIIO_REPORT */
const char *cmio_why_text(cmio_why why);

#endif
