/*
 * bench_calibrate.c -- `collio-bench calibrate`: measures this machine's
 * constants for the cost model of strategy "auto" (collio_calibration,
 * collio_fs_costs in collio.h) and saves them in the calibration file.
 *
 * Network: rank 0 ping-pongs with rank 1 (same node) and with the lowest
 * rank of another node; memory: memcpy and a strided pack on rank 0; the
 * node: cores and whether a shared-memory window works; the file system
 * of --dir: small requests on rank 0, large requests on every rank at
 * once, list I/O (every rank's pieces interleaved, at once) at a few piece
 * sizes, and MPI-IO's collective write/read of cyclically interleaved
 * pieces, and the smallest call of each base strategy (calibrate_calls.c).
 * Values not measured (no partner on another node, ...) keep
 * what the file had, else the built-in defaults. Every stage agrees on
 * failure over the ranks (the first failing rank's message, exit 1),
 * never hangs on one rank's error. Only the public API and MPI.
 */
#include "bench_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define MIB (1024.0 * 1024.0)
#define CAL_ERR_LEN 512
#define CAL_REQUESTS 20000

typedef struct cal_args {
    char dir[COLLIO_BENCH_PATH_LEN];
    char out[COLLIO_BENCH_PATH_LEN]; /* "": collio_calibration_path */
    int mb;                          /* MiB per rank, large requests */
    int pieces;                      /* MPI-IO pieces per rank */
    int quiet;
} cal_args;

typedef struct cal_ctx {
    MPI_Comm comm, node;
    int rank, size, nnodes, rpn_max; /* rpn_max: most ranks on one node */
    int intra, inter;                /* partners of rank 0, -1: none */
    cal_args args;
    char path[COLLIO_BENCH_PATH_LEN + 64]; /* the scratch file */
    collio_calibration cal;                /* rank 0: what is saved */
    collio_fs_costs fs;                    /* rank 0: this file system's */
    char err[CAL_ERR_LEN];                 /* this rank's last failure */
} cal_ctx;

static void cal_usage(FILE *out)
{
    fprintf(out, "usage: collio-bench calibrate [--dir DIR] [--out FILE] [--mb M]\n"
                 "                              [--pieces N] [--quiet]\n"
                 "  measures the constants of strategy auto's cost model and saves\n"
                 "  them (docs/auto.md): network, memory, the node, and the file\n"
                 "  system of DIR (default .; a scratch file DIR/.collio-calibrate.PID\n"
                 "  is removed after). --out: the calibration file (default:\n"
                 "  $COLLIO_CALIBRATION, else ~/.config/collio/calibration.json);\n"
                 "  its other file systems' entries are kept. --mb: MiB per rank of\n"
                 "  the large requests (8); --pieces: pieces per rank of the MPI-IO\n"
                 "  collective (16384). Run it through scripts/mpirun N.\n");
}

static int cal_int(const char *s, int lo, int hi, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || end == s || *end || x < lo || x > hi)
        return -1;
    *v = (int)x;
    return 0;
}

static int cal_str(const char *s, char *dst, size_t n)
{
    if (strlen(s) >= n)
        return -1;
    strcpy(dst, s);
    return 0;
}

/* argv[1] is "calibrate". 0, 1 (help printed), 2 (err says why). */
static int cal_parse(int argc, char **argv, cal_args *a, FILE *out, char *err, size_t n)
{
    memset(a, 0, sizeof *a);
    strcpy(a->dir, ".");
    a->mb = 8;
    a->pieces = 16384;
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
            if (out)
                cal_usage(out);
            return 1;
        } else if (strcmp(o, "--quiet") == 0) {
            a->quiet = 1;
            continue;
        }
        int known = strcmp(o, "--dir") == 0 || strcmp(o, "--out") == 0
                    || strcmp(o, "--mb") == 0 || strcmp(o, "--pieces") == 0;
        if (!known || v == NULL) {
            snprintf(err, n,
                     known ? "calibrate: %s needs a value"
                           : "calibrate: unknown option '%s'",
                     o);
            return 2;
        }
        int bad = strcmp(o, "--dir") == 0   ? cal_str(v, a->dir, sizeof a->dir)
                  : strcmp(o, "--out") == 0 ? cal_str(v, a->out, sizeof a->out)
                  : strcmp(o, "--mb") == 0  ? cal_int(v, 1, 4096, &a->mb)
                                            : cal_int(v, 1, 1 << 26, &a->pieces);
        if (bad) {
            snprintf(err, n, "calibrate: bad value for %s: '%s'", o, v);
            return 2;
        }
        i++;
    }
    return 0;
}

/* Collective: 0 if ok on every rank; else rank 0 prints the first failing
 * rank's message (x->err) and every rank returns 1. */
static int cal_failed(cal_ctx *x, int ok)
{
    int me = ok ? x->size : x->rank, bad;
    MPI_Allreduce(&me, &bad, 1, MPI_INT, MPI_MIN, x->comm);
    if (bad == x->size)
        return 0;
    MPI_Bcast(x->err, CAL_ERR_LEN, MPI_CHAR, bad, x->comm);
    if (x->rank == 0)
        fprintf(stderr, "collio-bench calibrate: rank %d: %s\n", bad, x->err);
    return 1;
}

/* Local: records a failed system call on x->path; returns 0 (not ok). */
static int cal_errno(cal_ctx *x, const char *what)
{
    snprintf(x->err, CAL_ERR_LEN, "%s %.400s: %s", what, x->path, strerror(errno));
    return 0;
}

/* Local: 1 if rc is MPI_SUCCESS, else records MPI's message and returns 0. */
static int cal_mpi_ok(cal_ctx *x, int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc == MPI_SUCCESS)
        return 1;
    MPI_Error_string(rc, msg, &len);
    snprintf(x->err, CAL_ERR_LEN, "%s %.250s: %.200s", what, x->path, msg);
    return 0;
}

static double cal_max(cal_ctx *x, double v)
{
    double m;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, x->comm);
    return m;
}

/* ---- the network */

/* Rank 0 and `peer` only: the median half round trip of `bytes` messages
 * on rank 0 (0 on the peer). */
static double cal_pingpong(cal_ctx *x, int peer, int bytes, int iters, char *buf)
{
    double *t = malloc((size_t)iters * sizeof *t);
    int warm = iters > 20 ? 10 : 2;
    for (int i = -warm; i < iters; i++) {
        double t0 = MPI_Wtime();
        if (x->rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, peer, 0, x->comm);
            MPI_Recv(buf, bytes, MPI_BYTE, peer, 0, x->comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, x->comm, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, x->comm);
        }
        if (i >= 0 && t != NULL)
            t[i] = (MPI_Wtime() - t0) / 2;
    }
    double half = t != NULL ? bench_median(t, iters) : 0;
    free(t);
    return x->rank == 0 ? half : 0;
}

/* Latency and bandwidth of link k (0 within a node, 1 between) with peer. */
static void cal_link(cal_ctx *x, int k, int peer, char *buf)
{
    if (peer < 0 || (x->rank != 0 && x->rank != peer))
        return;
    double lat = cal_pingpong(x, peer, 8, 200, buf);
    double big = cal_pingpong(x, peer, 4 << 20, 10, buf);
    if (x->rank == 0 && lat > 0 && big > 0) {
        x->cal.latency_s[k] = lat;
        x->cal.bandwidth_Bps[k] = (4 << 20) / big;
    }
}

static int cal_network(cal_ctx *x)
{
    char *buf = calloc(4 << 20, 1);
    if (cal_failed(x, buf != NULL || cal_errno(x, "a 4 MiB buffer for")))
        return free(buf), 1;
    cal_link(x, 0, x->intra, buf);
    cal_link(x, 1, x->inter, buf);
    free(buf);
    MPI_Barrier(x->comm);
    return 0;
}

/* ---- memory (rank 0 alone; the others wait at a barrier) */

static double cal_copy(unsigned char *dst, const unsigned char *src, size_t n)
{
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = MPI_Wtime();
        memcpy(dst, src, n);
        double t = MPI_Wtime() - t0;
        best = t < best ? t : best;
    }
    return best;
}

/* A strategy's pack: pieces of `len` bytes (a runtime value, as there),
 * taken with a stride of 16 bytes. Best of 3. */
static double cal_pack(unsigned char *dst, const unsigned char *src, size_t pieces)
{
    static volatile size_t piece_len = 4;
    size_t len = piece_len;
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = MPI_Wtime();
        for (size_t i = 0; i < pieces; i++)
            memcpy(dst + len * i, src + 16 * i, len);
        double t = MPI_Wtime() - t0;
        best = t < best ? t : best;
    }
    return best;
}

static int cal_memory_rank0(cal_ctx *x)
{
    const size_t n = (size_t)64 << 20, pieces = (size_t)1 << 20;
    unsigned char *src = malloc(n), *dst = malloc(n);
    int ok = src != NULL && dst != NULL;
    if (ok) {
        memset(src, 1, n);
        memset(dst, 2, n); /* both resident before timing */
        x->cal.copy_Bps = n / cal_copy(dst, src, n);
        double t = cal_pack(dst, src, pieces);
        double p = (t - 4.0 * pieces / x->cal.copy_Bps) / pieces;
        x->cal.piece_s = p > 0 ? p : 0;
        ok = dst[n / 2] == 1 && dst[4] == 1;
        if (!ok)
            snprintf(x->err, CAL_ERR_LEN, "memcpy check failed");
    } else {
        snprintf(x->err, CAL_ERR_LEN, "no memory for 2 x 64 MiB");
    }
    free(src);
    free(dst);
    return ok;
}

static int cal_memory(cal_ctx *x)
{
    int ok = x->rank == 0 ? cal_memory_rank0(x) : 1;
    MPI_Barrier(x->comm);
    return cal_failed(x, ok);
}

/* ---- the node: cores, shared-memory windows */

static int cal_node(cal_ctx *x)
{
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN), cmin, ok, all;
    MPI_Allreduce(&cores, &cmin, 1, MPI_INT, MPI_MIN, x->comm);
    void *base = NULL;
    MPI_Win win;
    MPI_Comm_set_errhandler(x->node, MPI_ERRORS_RETURN);
    ok = MPI_Win_allocate_shared(4096, 1, MPI_INFO_NULL, x->node, &base, &win)
         == MPI_SUCCESS;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, x->node);
    if (all) /* a window that failed somewhere cannot be freed collectively */
        MPI_Win_free(&win);
    MPI_Allreduce(&all, &ok, 1, MPI_INT, MPI_MIN, x->comm);
    x->cal.cores_per_node = cmin > 0 ? cmin : 0;
    x->cal.shm_window = ok;
    return 0;
}

/* ---- the file system of --dir */

/* Rank 0 alone: CAL_REQUESTS requests of 4 bytes, 64 bytes apart. */
static int cal_requests_rank0(cal_ctx *x)
{
    int fd = open(x->path, O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (fd < 0)
        return cal_errno(x, "open");
    float v = 1.0f;
    int ok = 1;
    double t0 = MPI_Wtime();
    for (int i = 0; i < CAL_REQUESTS && ok; i++)
        ok = pwrite(fd, &v, 4, (off_t)64 * i) == 4 || cal_errno(x, "pwrite");
    x->fs.write_request_s = (MPI_Wtime() - t0) / CAL_REQUESTS;
    t0 = MPI_Wtime();
    for (int i = 0; i < CAL_REQUESTS && ok; i++)
        ok = pread(fd, &v, 4, (off_t)64 * i) == 4 || cal_errno(x, "pread");
    x->fs.read_request_s = (MPI_Wtime() - t0) / CAL_REQUESTS;
    if (close(fd) != 0 && ok)
        ok = cal_errno(x, "close");
    return ok;
}

static int cal_requests(cal_ctx *x)
{
    return cal_failed(x, x->rank == 0 ? cal_requests_rank0(x) : 1);
}

/* This rank's M MiB at rank * M MiB in 1 MiB requests. */
static int cal_stream_rank(cal_ctx *x, int fd, int writing, unsigned char *buf)
{
    const size_t chunk = 1 << 20;
    for (int k = 0; k < x->args.mb; k++) {
        off_t off = ((off_t)x->rank * x->args.mb + k) * (off_t)chunk;
        ssize_t n = writing ? pwrite(fd, buf, chunk, off) : pread(fd, buf, chunk, off);
        if (n != (ssize_t)chunk) {
            if (n >= 0)
                errno = writing ? ENOSPC : EIO; /* short: disk full, or EOF */
            return cal_errno(x, writing ? "pwrite" : "pread");
        }
    }
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

/* Passes of the stream measurement: its median (one pass came out 0.7x
 * and 1.5x of the usual in single-pass calibrations here -- the VM's
 * page-cache pages --, and list I/O's per-request costs, which take the
 * bytes out at this bandwidth, went to 0 with it). */
#define CAL_STREAM_REPS 5

/* Every rank at once; *Bps = P * M MiB / (the median over CAL_STREAM_REPS
 * passes of the max elapsed over ranks, from a barrier to a barrier).
 * Each write pass into an emptied file, as collio's into a new one. */
static int cal_stream(cal_ctx *x, int writing, double *Bps)
{
    unsigned char *buf = malloc(1 << 20);
    int fd = open(x->path, O_CREAT | O_RDWR, 0644);
    int ok = buf != NULL && fd >= 0;
    if (!ok)
        cal_errno(x, buf == NULL ? "1 MiB buffer for" : "open");
    else
        memset(buf, 0x5a, 1 << 20);
    double t[CAL_STREAM_REPS];
    for (int k = 0; k < CAL_STREAM_REPS; k++) { /* every rank every pass */
        if (writing && ok && x->rank == 0 && ftruncate(fd, 0) != 0)
            ok = cal_errno(x, "ftruncate");
        MPI_Barrier(x->comm);
        double t0 = MPI_Wtime();
        if (ok)
            ok = cal_stream_rank(x, fd, writing, buf);
        MPI_Barrier(x->comm); /* the span, even where ranks take turns on a core */
        t[k] = cal_max(x, MPI_Wtime() - t0);
    }
    if (fd >= 0 && close(fd) != 0 && ok)
        ok = cal_errno(x, "close");
    free(buf);
    qsort(t, CAL_STREAM_REPS, sizeof t[0], cmp_double);
    *Bps = x->size * x->args.mb * MIB / t[CAL_STREAM_REPS / 2];
    return cal_failed(x, ok);
}

/* The filetype of n 4-byte pieces per rank, cyclic over the ranks. */
static MPI_Datatype cal_cyclic(int n, int P)
{
    MPI_Datatype vec, ft;
    MPI_Type_vector(n, 1, P, MPI_FLOAT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)n * P * 4, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&vec);
    return ft;
}

/* One collective write_all or read_all of n pieces of the view; *t = max
 * over ranks. */
static int cal_collective(cal_ctx *x, MPI_File fh, int writing, float *buf, int n,
                          double *t)
{
    int rc = MPI_File_seek(fh, 0, MPI_SEEK_SET);
    MPI_Barrier(x->comm);
    double t0 = MPI_Wtime();
    if (rc == MPI_SUCCESS)
        rc = writing ? MPI_File_write_all(fh, buf, n, MPI_FLOAT, MPI_STATUS_IGNORE)
                     : MPI_File_read_all(fh, buf, n, MPI_FLOAT, MPI_STATUS_IGNORE);
    MPI_Barrier(x->comm);
    *t = cal_max(x, MPI_Wtime() - t0);
    return cal_failed(
        x, cal_mpi_ok(x, rc, writing ? "MPI_File_write_all" : "MPI_File_read_all"));
}

/* The per-byte measurement: pieces this large (their count is the
 * per-piece measurement's business), bytes of about this many seconds at
 * the file's bandwidth or the network's, the median of this many
 * write-read pairs. */
#define CAL_MPIIO_PIECE (64 * 1024)
#define CAL_MPIIO_BYTES_S 0.05
#define CAL_MPIIO_REPS 5

/* What the MPI library's collective costs per byte of a rank beyond the
 * file's bytes -- the exchange through its aggregators' buffers, its
 * copies --, one process per core: the same cyclic view with 64 KiB
 * pieces, each write into an emptied file (as collio's into a new one),
 * less the pieces' and the call's costs just measured and the bytes at
 * write_Bps / read_Bps. */
static int cal_mpiio_bytes(cal_ctx *x, MPI_File fh, double cpu)
{
    /* rank 0's constants (it saves them): each rank's share of the file's
     * bandwidth, or where the job spans nodes of a node's link if less */
    double Bps = x->fs.write_Bps / x->size;
    if (x->nnodes > 1 && x->cal.bandwidth_Bps[1] / x->rpn_max < Bps)
        Bps = x->cal.bandwidth_Bps[1] / x->rpn_max;
    const double most = x->args.mb * MIB / CAL_MPIIO_PIECE;
    double want = CAL_MPIIO_BYTES_S * Bps / CAL_MPIIO_PIECE;
    int n = want > most ? (int)most : want < 1 ? 1 : (int)want;
    MPI_Bcast(&n, 1, MPI_INT, 0, x->comm);
    const int e = CAL_MPIIO_PIECE / (int)sizeof(float);
    const double b = (double)n * CAL_MPIIO_PIECE, total = b * x->size;
    float *buf = calloc((size_t)n * (size_t)e, sizeof *buf);
    if (cal_failed(x, buf != NULL || cal_errno(x, "a buffer of pieces for")))
        return 1;
    MPI_Datatype vec, ft;
    MPI_Type_vector(n, e, e * x->size, MPI_FLOAT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)total, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&vec);
    int rc = MPI_File_set_view(fh, (MPI_Offset)x->rank * CAL_MPIIO_PIECE, MPI_FLOAT, ft,
                               "native", MPI_INFO_NULL);
    MPI_Type_free(&ft);
    int failed = cal_failed(x, cal_mpi_ok(x, rc, "MPI_File_set_view"));
    double tw[CAL_MPIIO_REPS], tr[CAL_MPIIO_REPS];
    for (int k = 0; k < CAL_MPIIO_REPS && !failed; k++) {
        failed =
            cal_failed(x, cal_mpi_ok(x, MPI_File_set_size(fh, 0), "MPI_File_set_size"))
            || cal_collective(x, fh, 1, buf, n * e, &tw[k])
            || cal_collective(x, fh, 0, buf, n * e, &tr[k]);
    }
    free(buf);
    if (failed)
        return 1;
    qsort(tw, CAL_MPIIO_REPS, sizeof *tw, cmp_double);
    qsort(tr, CAL_MPIIO_REPS, sizeof *tr, cmp_double);
    double w = tw[CAL_MPIIO_REPS / 2] - n * x->fs.mpiio_write_piece_s * cpu
               - x->fs.mpiio_write_call_s - total / x->fs.write_Bps;
    double r = tr[CAL_MPIIO_REPS / 2] - n * x->fs.mpiio_read_piece_s * cpu
               - x->fs.mpiio_read_call_s - total / x->fs.read_Bps;
    x->fs.mpiio_write_byte_s = fmax(0, w / b / cpu);
    x->fs.mpiio_read_byte_s = fmax(0, r / b / cpu);
    return 0;
}

static int cal_mpiio_run(cal_ctx *x, MPI_File fh, float *buf)
{
    MPI_Datatype ft = cal_cyclic(x->args.pieces, x->size);
    int rc = MPI_File_set_view(fh, (MPI_Offset)x->rank * 4, MPI_FLOAT, ft, "native",
                               MPI_INFO_NULL);
    MPI_Type_free(&ft);
    if (cal_failed(x, cal_mpi_ok(x, rc, "MPI_File_set_view")))
        return 1;
    int cores = x->cal.cores_per_node > 0 ? x->cal.cores_per_node : 1;
    double cpu = x->rpn_max > cores ? (double)x->rpn_max / cores : 1.0, tw, tr, sw, sr;
    /* all the pieces, then a 64th of them: the cost per piece (the whole
     * call's, as before: robust to noise), and what the small call costs
     * beyond its pieces -- the call's own cost (file domains, rounds, the
     * file system's locks) */
    int n = x->args.pieces, small = n / 64 > 0 ? n / 64 : 1;
    if (cal_collective(x, fh, 1, buf, n, &tw) || cal_collective(x, fh, 0, buf, n, &tr)
        || cal_collective(x, fh, 1, buf, small, &sw)
        || cal_collective(x, fh, 0, buf, small, &sr))
        return 1;
    x->fs.mpiio_write_piece_s = tw / n / cpu;
    x->fs.mpiio_read_piece_s = tr / n / cpu;
    x->fs.mpiio_write_call_s = fmax(0, sw - tw * small / n);
    x->fs.mpiio_read_call_s = fmax(0, sr - tr * small / n);
    return cal_mpiio_bytes(x, fh, cpu);
}

static int cal_mpiio(cal_ctx *x)
{
    MPI_File fh = MPI_FILE_NULL;
    float *buf = calloc((size_t)x->args.pieces, sizeof *buf);
    if (cal_failed(x, buf != NULL || cal_errno(x, "a buffer of pieces for")))
        return free(buf), 1;
    int rc = MPI_File_open(x->comm, x->path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                           MPI_INFO_NULL, &fh);
    /* a handle that opened where another rank's open failed is left
     * open: closing it is collective and would hang */
    if (cal_failed(x, cal_mpi_ok(x, rc, "MPI_File_open")))
        return free(buf), 1;
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    int failed = cal_mpiio_run(x, fh, buf);
    rc = MPI_File_close(&fh);
    free(buf);
    return failed || cal_failed(x, cal_mpi_ok(x, rc, "MPI_File_close"));
}

static int cal_fs_write(cal_ctx *x)
{
    return cal_stream(x, 1, &x->fs.write_Bps);
}

static int cal_fs_read(cal_ctx *x)
{
    return cal_stream(x, 0, &x->fs.read_Bps);
}

/* ---- list I/O: interleaved pieces, every rank at once */

/* The piece sizes measured (bytes; the model interpolates between them in
 * log(size), and takes the last one's cost beyond it): the smallest
 * request, a kilobyte, a few pages, and 64 KiB -- pieces of tens of
 * kilobytes (a mesh's partitions in RCM order, a vector's blocks of
 * thousands of elements) cost per request more than 16 KiB ones do here,
 * interleaved with the other ranks' (docs/auto.md). */
static const double cal_piece_bytes[] = {4, 1024, 16384, 65536};
#define CAL_NPIECE ((int)(sizeof cal_piece_bytes / sizeof cal_piece_bytes[0]))
_Static_assert(CAL_NPIECE <= COLLIO_CAL_INTERLEAVED_MAX,
               "the calibration file holds them");
#define CAL_LIST_S 0.05   /* seconds aimed at per size, operation and rep */
#define CAL_LIST_PILOT 32 /* most pieces per rank of the pilot run ... */
#define CAL_LIST_PILOT_BYTES (512 * 1024) /* ... and most bytes (a slow file system) */
#define CAL_LIST_MAX 4096                 /* most pieces per rank */
#define CAL_LIST_REPS 5                   /* the least of these */

/* Requests of one contiguous range (below): at most this many pieces. */
#define CAL_LIST_IOV 1024

/* Every rank writes (reads) n pieces of b bytes from buf, all at once:
 * interleaved, its piece k at (k * P + rank) * b, one request each (list
 * I/O); or, contig, as one range at rank * n * b, CAL_LIST_IOV pieces per
 * request -- the same bytes in the same file, as large requests, which the
 * model charges at the file's bandwidth. *t: max elapsed over ranks.
 * Collective; 1 on failure (agreed). */
static int cal_list_run(cal_ctx *x, int fd, int writing, int contig, size_t b, int n,
                        unsigned char *buf, double *t)
{
    struct iovec iov[CAL_LIST_IOV];
    for (int k = 0; k < CAL_LIST_IOV; k++)
        iov[k] = (struct iovec){buf, b};
    int ok = 1;
    MPI_Barrier(x->comm);
    double t0 = MPI_Wtime();
    for (int k = 0; k < n && ok;) {
        int m = contig ? (n - k < CAL_LIST_IOV ? n - k : CAL_LIST_IOV) : 1;
        off_t off = contig ? ((off_t)x->rank * n + k) * (off_t)b
                           : ((off_t)k * x->size + x->rank) * (off_t)b;
        ssize_t got = writing ? pwritev(fd, iov, m, off) : preadv(fd, iov, m, off);
        if (got != (ssize_t)(m * b)) {
            if (got >= 0)
                errno = writing ? ENOSPC : EIO;
            ok = cal_errno(x, writing ? "pwritev" : "preadv");
        }
        k += m;
    }
    MPI_Barrier(x->comm);
    *t = cal_max(x, MPI_Wtime() - t0);
    return cal_failed(x, ok);
}

/* Rank 0 empties the scratch file between runs (list I/O meets fresh
 * files: the writes allocate as they go). Collective. */
static int cal_list_truncate(cal_ctx *x, int fd)
{
    MPI_Barrier(x->comm);
    int ok = x->rank != 0 || ftruncate(fd, 0) == 0 || cal_errno(x, "ftruncate");
    return cal_failed(x, ok);
}

/* One piece size: the cost per request beyond the bytes, per process, of
 * writes and reads: CAL_LIST_REPS reps each write and read the pieces
 * interleaved and the same bytes contiguously, each write into an emptied
 * file, in alternating order; the least time of the interleaved runs less
 * the least of the contiguous ones, per piece and process. The file
 * system's stalls (writeback, reclaim: up to 80 ms in a run of 0.04 s
 * here) only ever add, and hit either kind: so measured, the cost was
 * 9-16 us (16 KiB) and 15-26 us (64 KiB) over eight calibrations, where
 * the median of the reps' differences gave -5 to 18 us at 64 KiB, and the
 * interleaved runs less the bytes at the bandwidth calibrated before (a
 * small difference of large times measured at other moments) 0-26 us. */
static int cal_list_size(cal_ctx *x, int fd, size_t b, unsigned char *buf, double *w,
                         double *r)
{
    int cores = x->cal.cores_per_node > 0 ? x->cal.cores_per_node : 1;
    double cpu = x->rpn_max > cores ? (double)x->rpn_max / cores : 1.0, t;
    int pilot = (int)(CAL_LIST_PILOT_BYTES / b);
    pilot = pilot < 2 ? 2 : pilot > CAL_LIST_PILOT ? CAL_LIST_PILOT : pilot;
    if (cal_list_truncate(x, fd) || cal_list_run(x, fd, 1, 0, b, pilot, buf, &t))
        return 1;
    double per = t / pilot; /* the same on every rank (a max) */
    int n = per > 0 ? (int)(CAL_LIST_S / per) : CAL_LIST_MAX;
    n = n < pilot ? pilot : n > CAL_LIST_MAX ? CAL_LIST_MAX : n;
    double tw[2] = {INFINITY, INFINITY}, tr[2] = {INFINITY, INFINITY}; /* [contig] */
    for (int k = 0; k < CAL_LIST_REPS; k++)
        for (int j = 0; j < 2; j++) {
            int contig = (j + k) % 2; /* interleaved first in even reps */
            double a, c;
            if (cal_list_truncate(x, fd) || cal_list_run(x, fd, 1, contig, b, n, buf, &a)
                || cal_list_run(x, fd, 0, contig, b, n, buf, &c))
                return 1;
            tw[contig] = fmin(tw[contig], a);
            tr[contig] = fmin(tr[contig], c);
        }
    *w = fmax(0, (tw[0] - tw[1]) / n / cpu);
    *r = fmax(0, (tr[0] - tr[1]) / n / cpu);
    return 0;
}

static int cal_list(cal_ctx *x)
{
    size_t most = (size_t)cal_piece_bytes[CAL_NPIECE - 1];
    unsigned char *buf = malloc(most);
    int fd = open(x->path, O_CREAT | O_RDWR, 0644);
    int ok = buf != NULL && fd >= 0;
    if (!ok)
        cal_errno(x, buf == NULL ? "a piece buffer for" : "open");
    else
        memset(buf, 0x3c, most);
    int failed = cal_failed(x, ok);
    for (int i = 0; i < CAL_NPIECE && !failed; i++) {
        failed =
            cal_list_size(x, fd, (size_t)cal_piece_bytes[i], buf,
                          &x->fs.write_interleaved_s[i], &x->fs.read_interleaved_s[i]);
        x->fs.interleaved_bytes[i] = cal_piece_bytes[i];
    }
    x->fs.ninterleaved = failed ? 0 : CAL_NPIECE;
    if (fd >= 0)
        close(fd);
    free(buf);
    return failed;
}

/* ---- the smallest call of each base strategy (calibrate_calls.c) */

/* serial's large calls: bytes of about this many seconds into rank 0 at
 * the file's bandwidth, or where the job spans nodes its link's, at most
 * --mb MiB */
#define CAL_SERIAL_BYTES_S 0.02

static int cal_calls(cal_ctx *x)
{
    double Bps = x->fs.write_Bps;
    if (x->nnodes > 1 && x->cal.bandwidth_Bps[1] < Bps)
        Bps = x->cal.bandwidth_Bps[1];
    double bytes = fmin(CAL_SERIAL_BYTES_S * Bps, x->args.mb * MIB);
    MPI_Bcast(&bytes, 1, MPI_DOUBLE, 0, x->comm); /* rank 0's constants */
    return cal_failed(x, collio_bench_calibrate_calls(x->comm, x->path, x->rpn_max,
                                                      (int64_t)bytes, &x->fs, x->err,
                                                      sizeof x->err));
}

/* ---- setup, the stages, the output */

/* Node ids (the lowest rank of each node) give rank 0's partners. */
static void cal_topology(cal_ctx *x)
{
    int leader, nsize, *ids = malloc((size_t)x->size * sizeof *ids);
    MPI_Comm_split_type(x->comm, MPI_COMM_TYPE_SHARED, x->rank, MPI_INFO_NULL, &x->node);
    MPI_Comm_size(x->node, &nsize);
    MPI_Allreduce(&x->rank, &leader, 1, MPI_INT, MPI_MIN, x->node);
    MPI_Allreduce(&nsize, &x->rpn_max, 1, MPI_INT, MPI_MAX, x->comm);
    MPI_Allgather(&leader, 1, MPI_INT, ids, 1, MPI_INT, x->comm);
    x->intra = x->size > 1 && ids[1] == ids[0] ? 1 : -1;
    x->inter = -1;
    x->nnodes = 0;
    for (int r = 0; r < x->size; r++) {
        x->nnodes += ids[r] == r;
        if (x->inter < 0 && ids[r] != ids[0])
            x->inter = r;
    }
    free(ids);
}

/* Rank 0 loads what --out holds (defaults if nothing); every rank learns
 * whether calibration files work at all (json-c). 0, or 1 on error. */
static int cal_setup(cal_ctx *x)
{
    long pid = (long)getpid();
    MPI_Bcast(&pid, 1, MPI_LONG, 0, x->comm);
    snprintf(x->path, sizeof x->path, "%s/.collio-calibrate.%ld", x->args.dir, pid);
    cal_topology(x);
    int ok = 1;
    if (x->rank == 0) {
        int prc = x->args.out[0] != '\0'
                      ? COLLIO_OK
                      : collio_calibration_path(x->args.out, sizeof x->args.out);
        int rc = prc == COLLIO_OK ? collio_calibration_load(x->args.out, &x->cal) : prc;
        ok = prc == COLLIO_OK && rc != COLLIO_ERR_UNSUPPORTED; /* json-c: needed */
        if (!ok)
            snprintf(x->err, CAL_ERR_LEN, "%s", collio_last_error());
        else if (rc != COLLIO_OK && rc != COLLIO_ERR_IO && !x->args.quiet)
            printf("note: %s -- starting from the defaults\n", collio_last_error());
        collio_fs_identify(x->args.dir, &x->fs.id);
    }
    return cal_failed(x, ok);
}

typedef struct cal_stage {
    const char *name;
    int (*run)(cal_ctx *x);
} cal_stage;

static const cal_stage cal_stages[] = {
    {"network", cal_network},   {"memory", cal_memory},       {"node", cal_node},
    {"requests", cal_requests}, {"file write", cal_fs_write}, {"file read", cal_fs_read},
    {"list i/o", cal_list},     {"mpi-io", cal_mpiio},        {"calls", cal_calls},
};
#define CAL_NSTAGES ((int)(sizeof cal_stages / sizeof cal_stages[0]))

/* Runs every stage, each timed into secs[]; 1 at the first failure. */
static int cal_measure(cal_ctx *x, double *secs)
{
    for (int i = 0; i < CAL_NSTAGES; i++) {
        double t0 = MPI_Wtime();
        if (cal_stages[i].run(x))
            return 1;
        secs[i] = MPI_Wtime() - t0;
    }
    return 0;
}

/* Rank 0: this file system's entry replaces its old one, else is
 * appended (the last one replaced when full). */
static void cal_put_fs(collio_calibration *c, const collio_fs_costs *fs)
{
    int i = collio_calibration_find_fs(c, &fs->id);
    if (i < 0)
        i = c->nfs < COLLIO_CALIBRATION_MAX_FS ? c->nfs++ : COLLIO_CALIBRATION_MAX_FS - 1;
    c->fs[i] = *fs;
}

static void cal_print(const cal_ctx *x, const double *secs)
{
    const collio_calibration *c = &x->cal;
    const collio_fs_costs *f = &x->fs;
    const char *kept = " (not measured: kept)";
    printf("collio-bench calibrate: %d ranks, %d node(s), %d cores per node\n", x->size,
           x->nnodes, c->cores_per_node);
    printf("  intra_node  latency_s %.3g  bandwidth_Bps %.3g%s\n", c->latency_s[0],
           c->bandwidth_Bps[0], x->intra < 0 ? kept : "");
    printf("  inter_node  latency_s %.3g  bandwidth_Bps %.3g%s\n", c->latency_s[1],
           c->bandwidth_Bps[1], x->inter < 0 ? kept : "");
    printf("  copy_Bps %.3g  piece_s %.3g  shm_window %d\n", c->copy_Bps, c->piece_s,
           c->shm_window);
    printf("  file system %s on %s (%s):\n", f->id.type, f->id.mount, f->id.source);
    printf("    write_request_s %.3g  write_Bps %.3g  mpiio_write_piece_s %.3g\n",
           f->write_request_s, f->write_Bps, f->mpiio_write_piece_s);
    printf("    read_request_s  %.3g  read_Bps  %.3g  mpiio_read_piece_s  %.3g\n",
           f->read_request_s, f->read_Bps, f->mpiio_read_piece_s);
    printf("    mpiio_write_call_s %.3g  mpiio_read_call_s %.3g\n", f->mpiio_write_call_s,
           f->mpiio_read_call_s);
    printf("    mpiio_write_byte_s %.3g  mpiio_read_byte_s %.3g\n", f->mpiio_write_byte_s,
           f->mpiio_read_byte_s);
    static const char *const calls[COLLIO_CAL_NCALLS] = COLLIO_CAL_CALL_STRATEGIES;
    for (int i = 0; i < COLLIO_CAL_NCALLS && f->call_ranks > 0; i++)
        printf("    smallest call of %-11s write %.3g s, read %.3g s (%d ranks)\n",
               calls[i], f->write_call_s[i], f->read_call_s[i], f->call_ranks);
    if (f->call_ranks > 0)
        printf("    serial per byte beyond it: write %.3g s, read %.3g s\n"
               "    multiphase per pull round: write %.3g s, read %.3g s\n",
               f->serial_write_byte_s, f->serial_read_byte_s, f->multiphase_write_round_s,
               f->multiphase_read_round_s);
    for (int i = 0; i < f->ninterleaved; i++)
        printf("    list i/o, %6.0f-byte pieces: write %.3g s, read %.3g s per request\n",
               f->interleaved_bytes[i], f->write_interleaved_s[i],
               f->read_interleaved_s[i]);
    printf("  stages (s):");
    for (int i = 0; i < CAL_NSTAGES; i++)
        printf(" %s %.2f%s", cal_stages[i].name, secs[i],
               i + 1 < CAL_NSTAGES ? "," : "\n");
}

/* Rank 0 saves (and prints); the status, the same on every rank. */
static int cal_finish(cal_ctx *x, const double *secs)
{
    int status = 0;
    if (x->rank == 0) {
        cal_put_fs(&x->cal, &x->fs);
        int rc = collio_calibration_save(x->args.out, &x->cal);
        if (!x->args.quiet)
            cal_print(x, secs);
        if (rc != COLLIO_OK)
            fprintf(stderr, "collio-bench calibrate: %s\n", collio_last_error());
        else
            printf("wrote %s\n", x->args.out);
        status = rc != COLLIO_OK;
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, x->comm);
    return status;
}

int collio_bench_calibrate(MPI_Comm comm, int argc, char **argv)
{
    static cal_ctx x; /* large (the calibration); one per process */
    char err[CAL_ERR_LEN] = "";
    memset(&x, 0, sizeof x);
    x.comm = comm;
    MPI_Comm_rank(comm, &x.rank);
    MPI_Comm_size(comm, &x.size);
    int prc =
        cal_parse(argc, argv, &x.args, x.rank == 0 ? stdout : NULL, err, sizeof err);
    if (prc == 2 && x.rank == 0)
        fprintf(stderr, "collio-bench %s (calibrate --help lists the options)\n", err);
    if (prc)
        return prc == 1 ? 0 : 2;
    double t0 = MPI_Wtime(), secs[CAL_NSTAGES] = {0};
    if (cal_setup(&x)) {
        MPI_Comm_free(&x.node);
        return 1;
    }
    int status = cal_measure(&x, secs);
    MPI_Barrier(comm);
    if (x.rank == 0)
        unlink(x.path);
    status = status ? 1 : cal_finish(&x, secs);
    if (x.rank == 0 && !x.args.quiet)
        printf("calibrate took %.1f s\n", MPI_Wtime() - t0);
    MPI_Comm_free(&x.node);
    return status;
}
