/*
 * unit_alias.c -- reads and copies around the CPU copy's 4 KiB aliasing
 * penalty (src/machine/alias.c, src/files/posix.c), with the bounce forced on
 * (COLLIO_COPY_ALIAS=1) so that it runs whatever this CPU is:
 *
 *  - the window, by hand: a read bounces where its destination lies 1..63
 *    bytes past its file offset modulo 4096 and it moves 2048 bytes or
 *    more, and the bounce buffer takes the bytes of offset off 64 bytes
 *    past off's alignment; COLLIO_COPY_ALIAS=0 never bounces;
 *  - the POSIX backend's pread and preadv against the file's bytes as
 *    written with plain pwrite (the reference): destinations in the
 *    window and out of it, reads larger than the bounce buffer, reads
 *    that start mid-page, vectored reads that mix pieces in the window,
 *    small pieces and pieces out of it; the bytes around each destination
 *    untouched; a read past the end is COLLIO_ERR_EOF through the bounce
 *    too;
 *  - collio__copy against memcpy into a second buffer: sizes around the
 *    step (2048) and far beyond it, destinations in the window and out of
 *    it, stepped or not, the bytes around each destination untouched.
 */
#include "machine/machine.h"
#include "files/files.h"
#include "unit_check.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define FILE_BYTES ((size_t)3 * 1024 * 1024 + 123)
#define GUARD 4096

static unsigned char byte_at(size_t i)
{
    return (unsigned char)(i * 2654435761u >> 13);
}

/* A POSIX file object on fd, as collio_file_open would make one. */
static collio_file *file_on(int fd, const char *path)
{
    collio_file *f = calloc(1, sizeof *f);
    f->fd = fd;
    f->path = strdup(path);
    f->lock_fd = -1;
    f->ops = &collio__file_posix_ops;
    return f;
}

static void file_free(collio_file *f)
{
    free(f->bounce);
    free(f->path);
    free(f);
}

/* Bytes of area before dst, and GUARD bytes after dst + n, that are no
 * longer 0xee (the fill before each call). */
static size_t touched_around(const unsigned char *area, const unsigned char *dst,
                             size_t n)
{
    size_t touched = 0;
    for (const unsigned char *q = area; q < dst; q++)
        touched += *q != 0xee;
    for (size_t i = 0; i < GUARD; i++)
        touched += dst[n + i] != 0xee;
    return touched;
}

/* Bytes [off, off + n) of the file, read by the backend into a buffer at
 * page offset `at` (guarded on both sides), match the reference? */
static void check_pread(collio_file *f, unsigned char *area, size_t at, int64_t off,
                        size_t n)
{
    unsigned char *dst = area + GUARD + at;
    memset(area, 0xee, GUARD + at + n + GUARD);
    int rc = collio__file_posix_ops.pread(f, off, dst, n);
    CHECK(rc == COLLIO_OK, "pread at %lld, %zu bytes into page offset %zu: %d",
          (long long)off, n, at, rc);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += dst[i] != byte_at((size_t)off + i);
    CHECK(bad == 0, "pread at %lld, %zu bytes into page offset %zu: %zu bytes wrong",
          (long long)off, n, at, bad);
    size_t touched = touched_around(area, dst, n);
    CHECK(touched == 0, "pread at %lld into page offset %zu: %zu bytes around it written",
          (long long)off, at, touched);
}

/* A vectored read of [off, off + sum of sizes) into pieces laid out in
 * reverse order in a buffer at page offset `at`: each piece's bytes. */
static void check_preadv(collio_file *f, unsigned char *area, size_t at, int64_t off,
                         const size_t *sizes, int npieces)
{
    struct iovec iov[64];
    size_t total = 0;
    for (int i = 0; i < npieces; i++)
        total += sizes[i];
    unsigned char *dst = area + GUARD + at;
    memset(area, 0xee, GUARD + at + total + GUARD);
    size_t pos = total; /* piece i ends where piece i - 1 starts */
    for (int i = 0; i < npieces; i++) {
        pos -= sizes[i];
        iov[i].iov_base = dst + pos;
        iov[i].iov_len = sizes[i];
    }
    int rc = collio__file_posix_ops.preadv(f, off, iov, npieces);
    CHECK(rc == COLLIO_OK, "preadv at %lld into page offset %zu: %d", (long long)off, at,
          rc);
    size_t bad = 0, foff = (size_t)off;
    for (int i = 0; i < npieces; i++) {
        const unsigned char *p = iov[i].iov_base;
        for (size_t k = 0; k < sizes[i]; k++)
            bad += p[k] != byte_at(foff + k);
        foff += sizes[i];
    }
    CHECK(bad == 0, "preadv at %lld, %d pieces into page offset %zu: %zu bytes wrong",
          (long long)off, npieces, at, bad);
    size_t touched = touched_around(area, dst, total);
    CHECK(touched == 0, "preadv into page offset %zu: %zu bytes around it written", at,
          touched);
}

int main(void)
{
    /* the window, by hand */
    setenv("COLLIO_COPY_ALIAS", "1", 1);
    unsigned char *area = NULL;
    if (posix_memalign((void **)&area, 4096, FILE_BYTES + 4 * GUARD) != 0)
        return 1;
    const unsigned char *p0 = area + GUARD; /* page-aligned */
    CHECK(collio__alias_hit(p0 + 16, 0, 4096) == 1, "16 bytes past: in the window");
    CHECK(collio__alias_hit(p0 + 1, 0, 4096) == 1, "1 byte past: in the window");
    CHECK(collio__alias_hit(p0 + 63, 0, 4096) == 1, "63 bytes past: in the window");
    CHECK(collio__alias_hit(p0, 0, 4096) == 0, "aligned: out of the window");
    CHECK(collio__alias_hit(p0 + 64, 0, 4096) == 0, "64 bytes past: out of the window");
    CHECK(collio__alias_hit(p0 + 4080, 0, 4096) == 0, "16 bytes before: out of it");
    CHECK(collio__alias_hit(p0 + 16, 0, 2047) == 0, "2047 bytes: too small to bounce");
    CHECK(collio__alias_hit(p0 + 16, 0, 2048) == 1, "2048 bytes: bounced");
    CHECK(collio__alias_hit(p0 + 20, 4, 8192) == 1, "off 4 into 20: 16 past");
    CHECK(collio__alias_hit(p0 + 100, 4096 * 3 + 60, 8192) == 1, "40 past, mid-page");
    CHECK(collio__alias_hit(p0 + 100, 4096 * 3 + 100, 8192) == 0, "0 past, mid-page");
    CHECK(collio__alias_place(0) == 64, "place(0) = %zu", collio__alias_place(0));
    CHECK(collio__alias_place(4032) == 0, "place(4032) = %zu", collio__alias_place(4032));
    CHECK(collio__alias_place(4095) == 63, "place(4095) = %zu",
          collio__alias_place(4095));
    CHECK(collio__alias_place((int64_t)1 << 40) == 64, "place(2^40) = %zu",
          collio__alias_place((int64_t)1 << 40));
    setenv("COLLIO_COPY_ALIAS", "0", 1);
    CHECK(collio__alias_hit(p0 + 16, 0, 4096) == 0, "COLLIO_COPY_ALIAS=0: never");
    CHECK(collio__alias_avoid() == 0, "COLLIO_COPY_ALIAS=0: off");

    /* the reference file, written with plain pwrite */
    char path[512];
    const char *dir =
        getenv("COLLIO_TEST_TMPDIR") ? getenv("COLLIO_TEST_TMPDIR") : "/tmp";
    snprintf(path, sizeof path, "%s/unit_alias.%d", dir, (int)getpid());
    int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
    CHECK(fd >= 0, "open %s", path);
    if (fd < 0)
        return unit_summary("unit_alias");
    unsigned char *ref = malloc(FILE_BYTES);
    for (size_t i = 0; i < FILE_BYTES; i++)
        ref[i] = byte_at(i);
    CHECK(pwrite(fd, ref, FILE_BYTES, 0) == (ssize_t)FILE_BYTES, "write the reference");
    free(ref);

    const char *modes[] = {"1", "0"};
    for (int m = 0; m < 2; m++) {
        setenv("COLLIO_COPY_ALIAS", modes[m], 1);
        collio_file *f = file_on(fd, path);
        const size_t ats[] = {0, 16, 40, 63, 64, 4080};
        for (size_t a = 0; a < sizeof ats / sizeof ats[0]; a++) {
            check_pread(f, area, ats[a], 0, FILE_BYTES);           /* 13 bounces */
            check_pread(f, area, ats[a], 4096 + 5, 300000);        /* mid-page */
            check_pread(f, area, ats[a], 8192, 2048);              /* the smallest */
            check_pread(f, area, ats[a], 100, 1000);               /* small: direct */
            check_pread(f, area, ats[a], FILE_BYTES - 5000, 5000); /* to the end */
            const size_t mixed[] = {4096, 1024, 4096, 5000, 100, 300000, 2048, 4096, 7};
            check_preadv(f, area, ats[a], 0, mixed, 9);
            check_preadv(f, area, ats[a], 4096 * 7 + 16, mixed, 9);
            const size_t small[] = {1024, 1024, 1000, 24};
            check_preadv(f, area, ats[a], 12288, small, 4);
        }
        /* past the end: EOF, bounced or not */
        int rc = collio__file_posix_ops.pread(f, (int64_t)FILE_BYTES - 100,
                                              area + GUARD + 16, 4096);
        CHECK(rc == COLLIO_ERR_EOF, "read past the end (bounce %s): %d, want EOF",
              modes[m], rc);
        CHECK(m == 1 || f->bounce != NULL, "the forced bounce made its buffer");
        CHECK(m == 0 || f->bounce == NULL, "COLLIO_COPY_ALIAS=0 made no buffer");
        file_free(f);
    }
    close(fd);
    unlink(path);

    /* collio__copy: stepped in the window (forced on), plain memcpy out
     * of it or forced off; the bytes against memcpy's */
    unsigned char *src = NULL, *want = malloc(FILE_BYTES);
    if (posix_memalign((void **)&src, 4096, 400000 + 4096) != 0)
        return 1;
    for (size_t i = 0; i < 400000; i++)
        src[i] = byte_at(i * 7 + 3);
    for (int m = 0; m < 2; m++) {
        setenv("COLLIO_COPY_ALIAS", modes[m], 1);
        const size_t ns[] = {1, 100, 2048, 2049, 4096, 16389, 300000};
        const size_t ats[] = {0, 16, 40, 63, 64, 4080};
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
            for (size_t a = 0; a < sizeof ats / sizeof ats[0]; a++)
                for (size_t from = 0; from < 2; from++) { /* src page-aligned or not */
                    const unsigned char *s0 = src + from * 100;
                    unsigned char *dst = area + GUARD + from * 100 + ats[a];
                    memset(area, 0xee, 2 * GUARD + 400000);
                    collio__copy(dst, s0, ns[k]);
                    memcpy(want, s0, ns[k]);
                    size_t bad = 0, touched = touched_around(area, dst, ns[k]);
                    for (size_t i = 0; i < ns[k]; i++)
                        bad += dst[i] != want[i];
                    CHECK(
                        bad == 0 && touched == 0,
                        "collio__copy of %zu bytes, %zu past (alias %s): %zu wrong, %zu "
                        "around it written",
                        ns[k], ats[a], modes[m], bad, touched);
                }
    }
    free(src);
    free(want);
    free(area);
    unsetenv("COLLIO_COPY_ALIAS");
    printf("unit_alias: this CPU %s the copy's aliasing penalty (measured)\n",
           collio__alias_avoid() ? "pays" : "does not pay");
    return unit_summary("unit_alias");
}
