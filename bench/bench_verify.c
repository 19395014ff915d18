/*
 * bench_verify.c -- the bench's independent reference. Buffers are filled
 * with bench/pattern.h data by global index; files are checked with plain
 * pread, each rank taking a contiguous 1/P of the file and comparing every
 * element with the pattern of its index -- or, in the holes of a sparse
 * case (computed here from bx and hole_every, not from the layout), with
 * zero bytes: the write made a fresh file and must not touch them. That
 * proves the whole file byte-for-byte without using the layout, the plan
 * or the strategy under test. Read-back buffers are compared element by
 * element the same way.
 */
#include "bench_internal.h"
#include "pattern.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK_CHUNK_BYTES ((size_t)4 << 20)

void bench_fill(const collio_layout *l, uint64_t seed, unsigned char *buf)
{
    int64_t n = collio_layout_local_count(l);
    size_t es = collio_layout_esize(l);
    for (int64_t i = 0; i < n; i++)
        collio_pattern_element((uint64_t)collio_layout_global_index(l, i), seed, es,
                               buf + (size_t)i * es);
}

int64_t bench_check_buffer(const collio_layout *l, uint64_t seed,
                           const unsigned char *buf)
{
    int64_t n = collio_layout_local_count(l), bad = 0;
    size_t es = collio_layout_esize(l);
    unsigned char want[256];
    unsigned char *w = es <= sizeof want ? want : malloc(es);
    if (!w)
        return n > 0 ? n : 1;
    for (int64_t i = 0; i < n; i++) {
        collio_pattern_element((uint64_t)collio_layout_global_index(l, i), seed, es, w);
        if (memcmp(w, buf + (size_t)i * es, es) != 0)
            bad++;
    }
    if (w != want)
        free(w);
    return bad;
}

/* 1 if file element i of case c is in a hole: its block of bx is the
 * last of a group of K (K = hole_every: blocks K-1, 2K-1, ...; none for
 * K = 0). */
static int in_hole(const bench_case *c, int64_t i)
{
    return c->hole_every > 0 && (i / c->bx) % c->hole_every == c->hole_every - 1;
}

/* Local: bad elements in file elements [lo, hi) of case c, read with
 * pread: the pattern of the index, zero bytes in a hole. */
static int64_t check_range(int fd, const bench_case *c, int64_t lo, int64_t hi, size_t es,
                           uint64_t seed)
{
    size_t per = CHECK_CHUNK_BYTES / es ? CHECK_CHUNK_BYTES / es : 1;
    unsigned char *chunk = malloc(per * es), *want = malloc(es);
    int64_t bad = 0;
    if (!chunk || !want) {
        free(chunk);
        free(want);
        return hi - lo > 0 ? hi - lo : 1;
    }
    for (int64_t at = lo; at < hi;) {
        size_t n = (size_t)(hi - at) < per ? (size_t)(hi - at) : per;
        size_t want_bytes = n * es, got = 0;
        while (got < want_bytes) { /* short reads: go on */
            ssize_t r =
                pread(fd, chunk + got, want_bytes - got, (off_t)((size_t)at * es + got));
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (got < want_bytes) { /* missing data counts as bad elements */
            bad += hi - at;
            break;
        }
        for (size_t k = 0; k < n; k++) {
            if (in_hole(c, at + (int64_t)k))
                memset(want, 0, es);
            else
                collio_pattern_element((uint64_t)at + k, seed, es, want);
            if (memcmp(want, chunk + k * es, es) != 0)
                bad++;
        }
        at += (int64_t)n;
    }
    free(chunk);
    free(want);
    return bad;
}

int64_t bench_check_file(MPI_Comm comm, const char *path, const bench_case *c,
                         size_t esize, uint64_t seed)
{
    const int64_t nglobal = bench_case_span(c);
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    /* [lo, hi): this rank's contiguous share of the file's elements */
    int64_t lo =
        nglobal / nranks * rank + (rank < nglobal % nranks ? rank : nglobal % nranks);
    int64_t hi = lo + nglobal / nranks + (rank < nglobal % nranks ? 1 : 0);
    int64_t bad = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        bad = 1;
    } else {
        if (rank == 0) {
            struct stat st;
            if (fstat(fd, &st) != 0 || st.st_size != (off_t)((size_t)nglobal * esize))
                bad++;
        }
        bad += check_range(fd, c, lo, hi, esize, seed);
        close(fd);
    }
    int64_t total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT64_T, MPI_SUM, comm);
    return total;
}
