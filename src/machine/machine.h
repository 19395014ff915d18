/*
 * machine/machine.h -- the machine's constants for the cost model
 * (machine/calibration.c), which file system holds a path
 * (machine/fs_id.c), the link between nodes against a memory copy
 * (machine/link_probe.c), and the CPU's copy aliasing penalty
 * (machine/alias.c), and the kit a strategy prices itself with
 * (machine/cost.c).
 */
#ifndef COLLIO_MACHINE_MACHINE_H
#define COLLIO_MACHINE_MACHINE_H

#include "collio.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* The file costs of a file system no calibration measured: a local
 * disk's (type "default"), or with `networked` (collio_fs_is_networked)
 * a networked file system's ("default-networked"); docs/auto.md lists
 * both. */
void collio__fs_costs_default(collio_fs_costs *fs, int networked);

/* Collective (machine/link_probe.c): the link rate between two nodes
 * and the rate of a memory copy, bytes per second, measured once per
 * process (a ping-pong of 1 MiB between the first two nodes' lowest
 * ranks; for a plan on one node neither is measured, both 0), rank 0's
 * figures on every rank. Agreed code. */
int collio__link_probe(collio_plan *p, double *net_bw, double *mem_bw);

/* A number of a file system's entry in the calibration file: its key,
 * its field in collio_fs_costs (a double), and whether a file may lack it
 * (files of older collios; 0 then). The table (calibration.c) gives the
 * file's order; reading and writing both walk it. */
typedef struct collio__cal_num {
    const char *key;
    size_t offset;
    int optional;
} collio__cal_num;
extern const collio__cal_num collio__cal_fs_nums[];
extern const int collio__cal_fs_nnums;

/* ------------------------------------------ measuring (machine/measure*.c)
 *
 * The measurements of a calibration (collio_calibrate, docs/auto.md
 * "Calibration"), at a level's budget: COLLIO_CALIBRATE_FULL as
 * `collio-bench calibrate` runs them, COLLIO_CALIBRATE_QUICK as strategy
 * auto runs them at the first call on a file system no calibration covers
 * -- the same measurements with fewer and shorter runs, whose amounts per
 * rank do not grow with P. */
typedef struct collio__cal_budget {
    int quick;
    int pingpong_small, pingpong_big; /* iterations of 8 B and of big_bytes */
    int big_bytes;
    int64_t copy_bytes, pack_pieces; /* memory: rank 0's copy, its pack */
    int requests;                    /* rank 0's small requests */
    int64_t stream_bytes;            /* per rank, in 1 MiB requests or fewer */
    int stream_reps;                 /* the median of these passes */
    double list_s;                   /* seconds aimed at per list I/O run */
    int list_reps, list_max;         /* the least of reps; most pieces per rank */
    int list_pilot;                  /* most pieces per rank of the pilot run */
    int mpiio_pieces;                /* MPI-IO collective: pieces per rank */
    double mpiio_bytes_s;            /* ... per byte: seconds of bytes aimed at */
    int mpiio_reps;
    double requests_s;        /* ... and at most this long (0: no bound) */
    int call_warm, call_reps; /* the smallest calls: untimed, timed rounds */
    double calls_s;           /* ... and no more after this long, at least
                                 one timed (0: no bound); the strategies'
                                 other terms not measured past it */
    double big_bytes_s;       /* a large call (collio__measure_kit): seconds
                                 of bytes */
    int term_reps;            /* timed calls of a strategy's own term */
} collio__cal_budget;

/* The budget of a level, with --mb / --pieces overrides (0: the level's). */
void collio__cal_budget_of(int level, int mb, int pieces, collio__cal_budget *b);

#define COLLIO__CAL_ERR_LEN 512
/* One calibration in progress, on every rank. Rank 0's constants are the
 * ones kept (cal, fs); stages agree on failure (collio__cal_failed). */
typedef struct collio__cal_ctx {
    MPI_Comm comm, node;
    int rank, size, nnodes, rpn_max; /* rpn_max: most ranks on one node */
    int intra, inter;                /* partners of rank 0, -1: none */
    collio__cal_budget b;
    char path[4200];               /* the scratch file */
    collio_calibration cal;        /* network, memory, node */
    collio_fs_costs fs;            /* the scratch file's file system */
    char err[COLLIO__CAL_ERR_LEN]; /* this rank's last failure */
} collio__cal_ctx;

/* Collective: the ranks' placement into x (node communicator, partners of
 * rank 0, nodes, ranks per node); x->comm, rank and size set. Agreed. */
int collio__cal_topology(collio__cal_ctx *x);
/* Collective: 0 if ok on every rank; else 1 on every rank, and x->err
 * every rank's copy of the first failing rank's message. */
int collio__cal_failed(collio__cal_ctx *x, int ok);
/* Local: records a failed system call on x->path; returns 0 (not ok). */
int collio__cal_errno(collio__cal_ctx *x, const char *what);
/* Collective: the largest v over the ranks. */
double collio__cal_max(collio__cal_ctx *x, double v);
/* Local: the median of t[0..n) (sorts t). */
double collio__cal_median(double *t, int n);
/* The stages, collective, in this order; each 1 on (agreed) failure. */
int collio__cal_network(collio__cal_ctx *x);
int collio__cal_memory(collio__cal_ctx *x);
int collio__cal_node(collio__cal_ctx *x);
int collio__cal_requests(collio__cal_ctx *x);
int collio__cal_fs_write(collio__cal_ctx *x);
int collio__cal_fs_read(collio__cal_ctx *x);
int collio__cal_list(collio__cal_ctx *x);
int collio__cal_mpiio(collio__cal_ctx *x);

/* Local: the MPI library this process runs, as calibration entries name
 * it (collio_fs_costs' mpi: the first line of MPI_Get_library_version). */
void collio__mpi_library(char *out, size_t n);

/* A 64-bit key of a file system's identity (type, mount point, source):
 * equal for equal identities (but for collisions), never 0. */
uint64_t collio__fs_key(const collio_fs_id *id);

/* The copy's 4 KiB aliasing penalty (machine/alias.c): on some CPUs a
 * `rep movsb` copy -- the kernel's copy to and from user memory, glibc's
 * memcpy from 2112 bytes up -- is 5-10x slower where the destination lies
 * 1..31 bytes past the source modulo 4 KiB. A copy is in the window where
 * dst - src modulo 4 KiB lies in [1, ALIAS_WINDOW); below ALIAS_MIN_BYTES
 * the penalty is a fraction of a read's system call (1.2-1.6x at 256 B-1
 * KiB, 2.2x at 2 KiB, 6x at 16 KiB, measured). */
#define COLLIO__ALIAS_PAGE 4096
#define COLLIO__ALIAS_WINDOW 64
#define COLLIO__ALIAS_MIN_BYTES 2048
/* Local: 1 if copies in the window step around it: this CPU pays the
 * penalty (measured once per process), or COLLIO_COPY_ALIAS=1 (0: never). */
int collio__alias_avoid(void);
/* Local: COLLIO_ERR_ARG, said, if COLLIO_COPY_ALIAS is set to anything but
 * 0, 1 or empty (collio_plan_create checks it). */
int collio__alias_env_check(void);
/* Local: 1 if reading [off, off + n) of a file into dst should bounce. */
int collio__alias_hit(const void *dst, int64_t off, size_t n);
/* Local: where in a bounce buffer aligned to ALIAS_PAGE (and ALIAS_PAGE
 * bytes longer than it holds) the bytes from file offset off go (0 ..
 * ALIAS_PAGE - 1): ALIAS_WINDOW bytes past off's alignment. */
size_t collio__alias_place(int64_t off);
/* Pieces of a stepped copy: under glibc's x86_rep_movsb_threshold (2112
 * bytes on the CPUs measured; 2048 at the least on x86-64). */
#define COLLIO__ALIAS_STEP 2048
/* Local: memcpy(dst, src, n) for n > ALIAS_STEP (no overlap), in pieces of
 * ALIAS_STEP where dst is in src's window and the CPU pays. */
void collio__copy_large(void *dst, const void *src, size_t n);
/* Local: memcpy(dst, src, n) (no overlap) for the strategies' copy loops:
 * small copies go straight to memcpy (glibc's vector loop, no penalty). */
static inline void collio__copy(void *dst, const void *src, size_t n)
{
    if (n <= COLLIO__ALIAS_STEP)
        memcpy(dst, src, n);
    else
        collio__copy_large(dst, src, n);
}

/* ------------------------------------------------------- the cost kit */
/*
 * What a strategy prices itself with (machine/cost.c): what the cost
 * model knows of a layout (collio__cost_shape, reduced: the same on every
 * rank), the machine's constants for one operation on one file system
 * (collio__cost, from a calibration), and the terms every strategy's
 * formula is made of -- an exchange, a pack, list I/O's cost per
 * request, the MPI library's collective per byte. A strategy that is a
 * candidate of "auto" declares its formulas in its own file
 * (collio__candidate, core/core.h) out of these; auto adds the calls'
 * floors and the replicas' work (strategies/auto/model.c). Pure
 * arithmetic, no MPI. docs/auto.md derives every term.
 */
/* What a strategy's table tells the model of an execution beyond the
 * general terms (its hook `profile`, core/core.h; 0 in every field:
 * nothing). */
typedef struct collio__exec_profile {
    int sync_rounds;   /* synchronised rounds beyond those of its smallest
                          call, each waiting for the slowest rank twice */
    int shared_copies; /* > 0: its exchange copies every byte this many
                          times straight into a window its node's ranks
                          share, no packing and no messages */
} collio__exec_profile;

/* What the model knows of a layout (the same on every rank: reduced). */
typedef struct collio__cost_shape {
    int nranks, nnodes;
    int ranks_per_node; /* on the fullest node */
    int cores_per_node; /* on the smallest node */
    double bytes_total; /* bytes in the file */
    double bytes_max;   /* most bytes on one rank */
    double pieces_max;  /* most file-contiguous pieces on one rank */
    double pieces_total;
    double moved_max; /* most bytes of one rank outside its own file
                         domain (of P balanced ones): what an exchange
                         into file domains moves */
    int adjoin;       /* 1: consecutive ranks' pieces adjoin in the file
                         (block-cyclic), so gathering them merges pieces */
    int intra_phases; /* leading hypercube phases j whose partners r and
                         r XOR 2^j share a node for every r */
    /* the execution profile of the strategy being priced (its table's
     * profile hook): auto sets it per candidate from `profiles` where
     * given, else these fields hold for every candidate */
    int sync_rounds, shared_copies;
    const collio__exec_profile *profiles; /* per candidate of auto, or NULL */
    /* replicated layouts, the most of one rank (0 without replicas): the
     * runs of the written elements' selection (writes) and copy (reads),
     * and a read's fill of the replicas a rank does not write -- elements
     * and bytes copied into and out of its buffers, bytes sent, ranks sent
     * to */
    double repl_runs, fill_elements, fill_bytes, fill_sent, fill_peers;
} collio__cost_shape;

/* The machine's constants for one operation on one file system, as a
 * formula uses them. */
typedef struct collio__cost {
    const collio_calibration *cal;
    const collio_fs_costs *fs;
    int writing;
    int nranks;        /* the shape's P, at least 1 */
    int cores;         /* cores per node (the shape's; else its ranks per node) */
    double cpu;        /* slowdown of CPU-bound work on a node */
    double off;        /* fraction of a rank's partners on other nodes */
    int rpn;           /* ranks per node */
    double lat;        /* one message, mixed as `off` says */
    double lat0, lat1; /* one message within a node, between nodes */
    double bw0, bw1;   /* a link within a node, between nodes */
    double copy, piece;
    double req, fbw, mpiio; /* the file's: per request, bandwidth, per piece */
    double mpiio_call;      /* the MPI library's collective, per call */
    double mpiio_byte;      /* ... per byte of a rank (0: not measured) */
    double file_bytes;      /* the shape's bytes at the file's bandwidth */
    double cpu_cal;         /* the oversubscription the calls were timed at */
} collio__cost;

/* m for shape s, the network and memory constants of c and the file
 * costs fs, a write (writing = 1) or a read. */
void collio__cost_setup(collio__cost *m, const collio__cost_shape *s,
                        const collio_calibration *c, const collio_fs_costs *fs,
                        int writing);

/* An exchange in which every rank sends `bytes` in `msgs` messages. */
double collio__cost_exchange(const collio__cost *m, double bytes, double msgs);

/* The MPI library's collective moving `bytes` of each rank to its
 * aggregators in `msgs` messages: its cost per byte as calibrated, or an
 * exchange over the links where that is more. */
double collio__cost_mpiio_data(const collio__cost *m, double bytes, double msgs);

/* The kind of a term's key "OWNER.KIND" ("call", "byte", "round"; ""
 * without a dot), and in *owner_len (if not NULL) the length of OWNER. */
const char *collio__cost_term_kind(const char *key, size_t *owner_len);

/* A term of the file system's calibration entry (collio_cost_term, a
 * strategy's own: "serial.byte"), for this operation; 0: not measured. */
double collio__cost_term(const collio__cost *m, const char *key);

/* Packing (or unpacking) `pieces` runs of `bytes` in all. */
double collio__cost_pack(const collio__cost *m, double pieces, double bytes);

/* List I/O's cost per request at pieces of `bytes`, every rank at once. */
double collio__cost_list_request(const collio__cost *m, double bytes);

#endif /* COLLIO_MACHINE_MACHINE_H */
