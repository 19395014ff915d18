/*
 * machine/measure_fs.c -- a calibration's file system stages, on the
 * scratch file x->path: small requests on rank 0, large requests on every
 * rank at once, list I/O (every rank's pieces interleaved with the
 * others', all at once) at a few piece sizes, and the MPI library's
 * collective write and read -- per piece, per call, per byte. Amounts
 * come from the budget (machine.h): per rank, so that a calibration's
 * time does not grow with P beyond its collectives. docs/auto.md,
 * "Calibration", says what each measures and why so.
 */
#include "machine/machine.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHUNK ((size_t)1 << 20) /* the large requests */

/* ---- small requests: rank 0 alone, 4 bytes each, 64 bytes apart; at
 * most the budget's count, and its time (checked every 64) */

static int requests_rank0(collio__cal_ctx *x)
{
    int fd = open(x->path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
    if (fd < 0)
        return collio__cal_errno(x, "open");
    float v = 1.0f;
    int ok = 1, n = x->b.requests, i;
    const double most = x->b.requests_s > 0 ? x->b.requests_s : 1e30;
    double t0 = MPI_Wtime();
    for (i = 0; i < n && ok && (i % 64 != 63 || MPI_Wtime() - t0 < most); i++)
        ok = pwrite(fd, &v, 4, (off_t)64 * i) == 4 || collio__cal_errno(x, "pwrite");
    x->fs.write_request_s = (MPI_Wtime() - t0) / (i > 0 ? i : 1);
    n = i, t0 = MPI_Wtime();
    for (i = 0; i < n && ok; i++)
        ok = pread(fd, &v, 4, (off_t)64 * i) == 4 || collio__cal_errno(x, "pread");
    x->fs.read_request_s = (MPI_Wtime() - t0) / (n > 0 ? n : 1);
    if (close(fd) != 0 && ok)
        ok = collio__cal_errno(x, "close");
    return ok;
}

int collio__cal_requests(collio__cal_ctx *x)
{
    return collio__cal_failed(x, x->rank == 0 ? requests_rank0(x) : 1);
}

/* ---- large requests: every rank its stream_bytes at rank * stream_bytes */

static int stream_rank(collio__cal_ctx *x, int fd, int writing, unsigned char *buf)
{
    const int64_t each = x->b.stream_bytes;
    for (int64_t k = 0; k < each; k += (int64_t)CHUNK) {
        size_t n = each - k < (int64_t)CHUNK ? (size_t)(each - k) : CHUNK;
        off_t off = (off_t)x->rank * each + k;
        ssize_t got = writing ? pwrite(fd, buf, n, off) : pread(fd, buf, n, off);
        if (got != (ssize_t)n) {
            if (got >= 0)
                errno = writing ? ENOSPC : EIO; /* short: disk full, or EOF */
            return collio__cal_errno(x, writing ? "pwrite" : "pread");
        }
    }
    return 1;
}

/* Every rank at once; *Bps = P * stream_bytes / (the median over
 * stream_reps passes of the max elapsed over ranks, from a barrier to a
 * barrier). One pass came out 0.7x and 1.5x of the usual here (the VM's
 * page-cache pages): a median. Each write pass into an emptied file, as
 * collio's into a new one. */
static int stream(collio__cal_ctx *x, int writing, double *Bps)
{
    unsigned char *buf = malloc(CHUNK);
    int fd = open(x->path, O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    int ok = buf != NULL && fd >= 0;
    if (!ok) {
        errno = buf == NULL ? ENOMEM : errno;
        collio__cal_errno(x, buf == NULL ? "a 1 MiB buffer for" : "open");
    } else {
        memset(buf, 0x5a, CHUNK);
    }
    double t[16];
    const int reps = x->b.stream_reps < 16 ? x->b.stream_reps : 16;
    for (int k = 0; k < reps; k++) { /* every rank every pass */
        if (writing && ok && x->rank == 0 && ftruncate(fd, 0) != 0)
            ok = collio__cal_errno(x, "ftruncate");
        MPI_Barrier(x->comm);
        double t0 = MPI_Wtime();
        if (ok)
            ok = stream_rank(x, fd, writing, buf);
        MPI_Barrier(x->comm); /* the span, even where ranks take turns on a core */
        t[k] = collio__cal_max(x, MPI_Wtime() - t0);
    }
    if (fd >= 0 && close(fd) != 0 && ok)
        ok = collio__cal_errno(x, "close");
    free(buf);
    *Bps = x->size * (double)x->b.stream_bytes / collio__cal_median(t, reps);
    return collio__cal_failed(x, ok);
}

int collio__cal_fs_write(collio__cal_ctx *x)
{
    return stream(x, 1, &x->fs.write_Bps);
}

int collio__cal_fs_read(collio__cal_ctx *x)
{
    return stream(x, 0, &x->fs.read_Bps);
}

/* ---- list I/O: interleaved pieces, every rank at once */

/* The piece sizes measured (bytes; the model interpolates between them in
 * log(size), and takes the last one's cost beyond it): the smallest
 * request, a kilobyte, a few pages, and 64 KiB -- pieces of tens of
 * kilobytes (a mesh's partitions in RCM order, a vector's blocks of
 * thousands of elements) cost per request more than 16 KiB ones do here,
 * interleaved with the other ranks' (docs/auto.md). */
static const double piece_bytes[] = {4, 1024, 16384, 65536};
#define NPIECE ((int)(sizeof piece_bytes / sizeof piece_bytes[0]))
_Static_assert(NPIECE <= COLLIO_CAL_INTERLEAVED_MAX, "the calibration file holds them");
#define LIST_PILOT_BYTES (512 * 1024) /* most bytes per rank of the pilot run */
#define LIST_IOV 1024                 /* a contiguous range: pieces per request */

/* Every rank writes (reads) n pieces of b bytes from buf, all at once:
 * interleaved, its piece k at (k * P + rank) * b, one request each (list
 * I/O); or, contig, as one range at rank * n * b, LIST_IOV pieces per
 * request -- the same bytes in the same file, as large requests, which the
 * model charges at the file's bandwidth. *t: max elapsed over ranks.
 * Collective; 1 on failure (agreed). */
static int list_run(collio__cal_ctx *x, int fd, int writing, int contig, size_t b, int n,
                    unsigned char *buf, double *t)
{
    struct iovec iov[LIST_IOV];
    for (int k = 0; k < LIST_IOV; k++)
        iov[k] = (struct iovec){buf, b};
    int ok = 1;
    MPI_Barrier(x->comm);
    double t0 = MPI_Wtime();
    for (int k = 0; k < n && ok;) {
        int m = contig ? (n - k < LIST_IOV ? n - k : LIST_IOV) : 1;
        off_t off = contig ? ((off_t)x->rank * n + k) * (off_t)b
                           : ((off_t)k * x->size + x->rank) * (off_t)b;
        ssize_t got = writing ? pwritev(fd, iov, m, off) : preadv(fd, iov, m, off);
        if (got != (ssize_t)(m * b)) {
            if (got >= 0)
                errno = writing ? ENOSPC : EIO;
            ok = collio__cal_errno(x, writing ? "pwritev" : "preadv");
        }
        k += m;
    }
    MPI_Barrier(x->comm);
    *t = collio__cal_max(x, MPI_Wtime() - t0);
    return collio__cal_failed(x, ok);
}

/* Rank 0 empties the scratch file between runs (list I/O meets fresh
 * files: the writes allocate as they go). Collective. */
static int list_truncate(collio__cal_ctx *x, int fd)
{
    MPI_Barrier(x->comm);
    int ok = x->rank != 0 || ftruncate(fd, 0) == 0 || collio__cal_errno(x, "ftruncate");
    return collio__cal_failed(x, ok);
}

/* The node's oversubscription: CPU-bound work of a rank slows by it. */
static double cpu_of(const collio__cal_ctx *x)
{
    int cores = x->cal.cores_per_node > 0 ? x->cal.cores_per_node : 1;
    return x->rpn_max > cores ? (double)x->rpn_max / cores : 1.0;
}

/* One piece size: the cost per request beyond the bytes, per process, of
 * writes and reads: list_reps reps each write and read the pieces
 * interleaved and the same bytes contiguously, each write into an emptied
 * file, in alternating order; the least time of the interleaved runs less
 * the least of the contiguous ones, per piece and process. The file
 * system's stalls (writeback, reclaim: up to 80 ms in a run of 0.04 s
 * here) only ever add, and hit either kind: so measured, the cost was
 * 9-16 us (16 KiB) and 15-26 us (64 KiB) over eight calibrations, where
 * the median of the reps' differences gave -5 to 18 us at 64 KiB, and the
 * interleaved runs less the bytes at the bandwidth calibrated before (a
 * small difference of large times measured at other moments) 0-26 us. */
static int list_size(collio__cal_ctx *x, int fd, size_t b, unsigned char *buf, double *w,
                     double *r)
{
    double t;
    int pilot = (int)(LIST_PILOT_BYTES / b);
    pilot = pilot < 2 ? 2 : pilot > x->b.list_pilot ? x->b.list_pilot : pilot;
    if (list_truncate(x, fd) || list_run(x, fd, 1, 0, b, pilot, buf, &t))
        return 1;
    double per = t / pilot; /* the same on every rank (a max) */
    int n = per > 0 ? (int)(x->b.list_s / per) : x->b.list_max;
    n = n < 2 ? 2 : n > x->b.list_max ? x->b.list_max : n;
    double tw[2] = {INFINITY, INFINITY}, tr[2] = {INFINITY, INFINITY}; /* [contig] */
    for (int k = 0; k < x->b.list_reps; k++)
        for (int j = 0; j < 2; j++) {
            int contig = (j + k) % 2; /* interleaved first in even reps */
            double a, c;
            if (list_truncate(x, fd) || list_run(x, fd, 1, contig, b, n, buf, &a)
                || list_run(x, fd, 0, contig, b, n, buf, &c))
                return 1;
            tw[contig] = fmin(tw[contig], a);
            tr[contig] = fmin(tr[contig], c);
        }
    *w = fmax(0, (tw[0] - tw[1]) / n / cpu_of(x));
    *r = fmax(0, (tr[0] - tr[1]) / n / cpu_of(x));
    return 0;
}

int collio__cal_list(collio__cal_ctx *x)
{
    size_t most = (size_t)piece_bytes[NPIECE - 1];
    unsigned char *buf = malloc(most);
    int fd = open(x->path, O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    int ok = buf != NULL && fd >= 0;
    if (!ok)
        collio__cal_errno(x, buf == NULL ? "a piece buffer for" : "open");
    else
        memset(buf, 0x3c, most);
    int failed = collio__cal_failed(x, ok);
    for (int i = 0; i < NPIECE && !failed; i++) {
        failed = list_size(x, fd, (size_t)piece_bytes[i], buf,
                           &x->fs.write_interleaved_s[i], &x->fs.read_interleaved_s[i]);
        x->fs.interleaved_bytes[i] = piece_bytes[i];
    }
    x->fs.ninterleaved = failed ? 0 : NPIECE;
    if (fd >= 0)
        close(fd);
    free(buf);
    return failed;
}

/* ---- the MPI library's collective I/O */

/* Local: 1 if rc is MPI_SUCCESS, else records MPI's message; 0. */
static int mpi_ok(collio__cal_ctx *x, int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc == MPI_SUCCESS)
        return 1;
    MPI_Error_string(rc, msg, &len);
    snprintf(x->err, sizeof x->err, "%s %.250s: %.200s", what, x->path, msg);
    return 0;
}

/* One collective write_all or read_all of n elements of the view; *t =
 * max over ranks. */
static int collective(collio__cal_ctx *x, MPI_File fh, int writing, float *buf, int n,
                      double *t)
{
    int rc = PMPI_File_seek(fh, 0, MPI_SEEK_SET);
    MPI_Barrier(x->comm);
    double t0 = MPI_Wtime();
    if (rc == MPI_SUCCESS)
        rc = writing ? PMPI_File_write_all(fh, buf, n, MPI_FLOAT, MPI_STATUS_IGNORE)
                     : PMPI_File_read_all(fh, buf, n, MPI_FLOAT, MPI_STATUS_IGNORE);
    MPI_Barrier(x->comm);
    *t = collio__cal_max(x, MPI_Wtime() - t0);
    return collio__cal_failed(
        x, mpi_ok(x, rc, writing ? "MPI_File_write_all" : "MPI_File_read_all"));
}

/* A view of n pieces of e floats per rank, cyclic over the ranks. */
static int set_cyclic(collio__cal_ctx *x, MPI_File fh, int n, int e)
{
    MPI_Datatype vec, ft;
    MPI_Type_vector(n, e, e * x->size, MPI_FLOAT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)n * e * x->size * 4, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&vec);
    int rc = PMPI_File_set_view(fh, (MPI_Offset)x->rank * e * 4, MPI_FLOAT, ft, "native",
                                MPI_INFO_NULL);
    MPI_Type_free(&ft);
    return collio__cal_failed(x, mpi_ok(x, rc, "MPI_File_set_view"));
}

/* The per-byte measurement's pieces (their count is the per-piece
 * measurement's business). */
#define MPIIO_PIECE (64 * 1024)

/* What the MPI library's collective costs per byte of a rank beyond the
 * file's bytes -- the exchange through its aggregators' buffers, its
 * copies --, one process per core: the same cyclic view with 64 KiB
 * pieces, as many as make about mpiio_bytes_s of the file's bandwidth
 * (or of a node's link where the job spans nodes, if less; at most
 * stream_bytes per rank), each write into an emptied file (as collio's
 * into a new one), the median of mpiio_reps, less the pieces' and the
 * call's costs just measured and the bytes at write_Bps / read_Bps. */
static int mpiio_bytes(collio__cal_ctx *x, MPI_File fh, double cpu)
{
    /* rank 0's constants (it keeps them) */
    double Bps = x->fs.write_Bps / x->size;
    if (x->nnodes > 1 && x->cal.bandwidth_Bps[1] / x->rpn_max < Bps)
        Bps = x->cal.bandwidth_Bps[1] / x->rpn_max;
    const double most = (double)x->b.stream_bytes / MPIIO_PIECE;
    double want = x->b.mpiio_bytes_s * Bps / MPIIO_PIECE;
    int n = want > most ? (int)most : want < 1 ? 1 : (int)want;
    MPI_Bcast(&n, 1, MPI_INT, 0, x->comm);
    const int e = MPIIO_PIECE / (int)sizeof(float);
    const double b = (double)n * MPIIO_PIECE, total = b * x->size;
    float *buf = calloc((size_t)n * (size_t)e, sizeof *buf);
    errno = ENOMEM;
    if (collio__cal_failed(x,
                           buf != NULL || collio__cal_errno(x, "a buffer of pieces for"))
        || set_cyclic(x, fh, n, e)) {
        free(buf);
        return 1;
    }
    double tw[16], tr[16];
    const int reps = x->b.mpiio_reps < 16 ? x->b.mpiio_reps : 16;
    int failed = 0;
    for (int k = 0; k < reps && !failed; k++)
        failed = collio__cal_failed(
                     x, mpi_ok(x, PMPI_File_set_size(fh, 0), "MPI_File_set_size"))
                 || collective(x, fh, 1, buf, n * e, &tw[k])
                 || collective(x, fh, 0, buf, n * e, &tr[k]);
    free(buf);
    if (failed)
        return 1;
    double w = collio__cal_median(tw, reps) - n * x->fs.mpiio_write_piece_s * cpu
               - x->fs.mpiio_write_call_s - total / x->fs.write_Bps;
    double r = collio__cal_median(tr, reps) - n * x->fs.mpiio_read_piece_s * cpu
               - x->fs.mpiio_read_call_s - total / x->fs.read_Bps;
    x->fs.mpiio_write_byte_s = fmax(0, w / b / cpu);
    x->fs.mpiio_read_byte_s = fmax(0, r / b / cpu);
    return 0;
}

/* Per piece and per call: all of mpiio_pieces 4-byte pieces, then a 64th
 * of them; the cost per piece is the whole call's (robust to noise), and
 * what the small call costs beyond its share of the large one's is the
 * call's own cost (file domains, rounds, the file system's locks). */
static int mpiio_run(collio__cal_ctx *x, MPI_File fh, float *buf)
{
    if (set_cyclic(x, fh, x->b.mpiio_pieces, 1))
        return 1;
    const double cpu = cpu_of(x);
    double tw, tr, sw, sr;
    int n = x->b.mpiio_pieces, small = n / 64 > 0 ? n / 64 : 1;
    if (collective(x, fh, 1, buf, n, &tw) || collective(x, fh, 0, buf, n, &tr)
        || collective(x, fh, 1, buf, small, &sw) || collective(x, fh, 0, buf, small, &sr))
        return 1;
    x->fs.mpiio_write_piece_s = tw / n / cpu;
    x->fs.mpiio_read_piece_s = tr / n / cpu;
    x->fs.mpiio_write_call_s = fmax(0, sw - tw * small / n);
    x->fs.mpiio_read_call_s = fmax(0, sr - tr * small / n);
    return mpiio_bytes(x, fh, cpu);
}

int collio__cal_mpiio(collio__cal_ctx *x)
{
    MPI_File fh = MPI_FILE_NULL;
    float *buf = calloc((size_t)x->b.mpiio_pieces, sizeof *buf);
    errno = ENOMEM;
    if (collio__cal_failed(x, buf != NULL
                                  || collio__cal_errno(x, "a buffer of pieces for"))) {
        free(buf);
        return 1;
    }
    int rc = PMPI_File_open(x->comm, x->path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                            MPI_INFO_NULL, &fh);
    /* a handle that opened where another rank's open failed is left
     * open: closing it is collective and would hang */
    if (collio__cal_failed(x, mpi_ok(x, rc, "MPI_File_open"))) {
        free(buf);
        return 1;
    }
    PMPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    int failed = mpiio_run(x, fh, buf);
    rc = PMPI_File_close(&fh);
    free(buf);
    return failed || collio__cal_failed(x, mpi_ok(x, rc, "MPI_File_close"));
}
