/*
 * io_passthrough.c -- MPI-IO calls the interposer must leave to the MPI
 * library unchanged (docs/mpiio-tests.md); run with COLLIO_MPIIO=force,
 * the file must still be the plain run's, byte for byte.
 *
 * The file is REG-byte regions, one per case, that rank 0 first fills
 * with a known pattern through POSIX (the holes are checked too):
 *   0 sequential   MPI_MODE_SEQUENTIAL: a write_all (erroneous there: the
 *                  MPI may refuse it; every rank gives the same data),
 *                  then MPI_File_write_ordered over it
 *   1 atomic       MPI_File_set_atomicity 1, write_all / read_all
 *   2 external32   a view with datarep "external32": write_at_all /
 *                  read_at_all; the file must hold big-endian ints
 *   3 shared       MPI_File_write_ordered, then write_shared rank after
 *                  rank; read_ordered / read_shared back
 *   4 overlap      write_at_all: rank r's ints overlap rank r+1's; the
 *                  overlap gets the same values from both
 *   5 overlap_all  write_all: every rank writes the same ints
 *   6 nonmonotonic a filetype whose displacements decrease (MPI forbids
 *                  it: the MPI's error, if any, is recorded), and one whose
 *                  tiles overlap (extent shorter than its data), one tile
 *   7 eof          (untouched) read_at_all and read_all across the end of
 *                  the file: short reads
 * Each case reads its data back and checks it. Rank 0 then reads the whole
 * file through POSIX and checks every byte against values computed here
 * (an int at int index g of region k holds value(k, g)). What the MPI
 * decides for itself -- the error classes of erroneous calls, the counts
 * of the short reads, which order a non-monotonic filetype's data takes --
 * is written as a text record after the regions, so compare.sh's byte
 * comparison checks that the run with the interposer got the same.
 *
 * usage: io_passthrough FILE     (exits 1 on any mismatch)
 */
#include "mpiio_common.h"

#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#define REG 4096
#define NREG 8

static int rank, P;
static char record[4096];
static size_t reclen;

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(record + reclen, sizeof record - reclen, fmt, ap);
    va_end(ap);
    if (n > 0)
        reclen +=
            (size_t)n < sizeof record - reclen ? (size_t)n : sizeof record - reclen - 1;
}

/* The background: 1..127 in every byte. */
static unsigned char fill(int64_t pos)
{
    return (unsigned char)(1 + mpiio_mix32((uint32_t)pos * 2654435761U) % 127);
}

/* The int at int index g of region k: every byte >= 0x80 (never the
 * background). */
static int value(int k, int64_t g)
{
    return (int)(mpiio_mix32((uint32_t)(k * 1000003) + (uint32_t)g * 0x9e3779b1U)
                 | 0x80808080U);
}

/* Every rank's line s into rank 0's record (and on stdout). */
static void note_all(const char *what, const char *s)
{
    char all[16][96];
    MPI_Gather(s, 96, MPI_CHAR, all, 96, MPI_CHAR, 0, MPI_COMM_WORLD);
    for (int q = 0; rank == 0 && q < P; q++) {
        if (q == 0 || strcmp(all[q], all[0]) != 0) {
            note("%s: rank %d: %s\n", what, q, all[q]);
            printf("%s: rank %d: %s\n", what, q, all[q]);
        }
    }
}

static int err_class(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

/* Checks n ints read from region k at int indices g0, g0+1, ... */
static long check_ints(const char *what, const int *got, int k, int64_t g0, int n)
{
    long bad = 0;
    for (int i = 0; i < n; i++) {
        if (got[i] != value(k, g0 + i)) {
            if (!bad)
                fprintf(stderr,
                        "rank %d: %s: int %d read back is 0x%08x, expected 0x%08x\n",
                        rank, what, i, (unsigned)got[i], (unsigned)value(k, g0 + i));
            bad++;
        }
    }
    return bad;
}

static long check_count(const char *what, MPI_Status *st, MPI_Datatype t, int want)
{
    int c = -1;
    MPI_Get_count(st, t, &c);
    if (c != want) {
        fprintf(stderr, "rank %d: %s: MPI_Get_count %d, expected %d\n", rank, what, c,
                want);
        return 1;
    }
    return 0;
}

static long report(const char *name, long bad)
{
    long all = mpiio_sum(bad, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s\n", all ? "FAIL" : "ok", name);
    return all;
}

/* The expected file (regions only), filled in by the cases as they learn
 * what the MPI did; rank 0's copy is the one checked. */
static unsigned char want[NREG * REG];

static void want_int(int k, int64_t g, int big_endian)
{
    unsigned v = (unsigned)value(k, g);
    unsigned char *p = want + (int64_t)k * REG + 4 * g;
    if (big_endian)
        for (int b = 0; b < 4; b++)
            p[b] = (unsigned char)(v >> (24 - 8 * b));
    else
        memcpy(p, &v, 4);
}

/* ---------------------------------------------------------------- cases */

/* 0: a file opened with MPI_MODE_SEQUENTIAL (before the main handle). */
static long sequential(const char *path)
{
    MPI_File fh;
    MPI_Status st;
    long bad = 0;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
                           MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) {
        if (rank == 0)
            printf("skip sequential: this MPI refuses MPI_MODE_SEQUENTIAL (class %d)\n",
                   err_class(rc));
        note("sequential: open refused, class %d\n", err_class(rc));
        return 0;
    }
    /* individual file pointer: erroneous in this mode; the MPI may do it
     * (at offset 0) or refuse. Every rank writes ints 0 and 1, which the
     * ordered write below covers with the same values. */
    int two[2] = {value(0, 0), value(0, 1)};
    rc = MPI_File_write_all(fh, two, 2, MPI_INT, &st);
    note("sequential: write_all class %d\n", err_class(rc));
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    /* rank r: r + 2 ints after those of the ranks before it */
    int64_t g0 = 0;
    for (int q = 0; q < rank; q++)
        g0 += q + 2;
    int buf[16];
    for (int i = 0; i < rank + 2; i++)
        buf[i] = value(0, g0 + i);
    rc = MPI_File_write_ordered(fh, buf, rank + 2, MPI_INT, &st);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: sequential: write_ordered failed (class %d)\n", rank,
                err_class(rc));
        bad++;
    } else {
        bad += check_count("sequential: write_ordered", &st, MPI_INT, rank + 2);
    }
    MPI_File_close(&fh);
    for (int64_t g = 0; g < (int64_t)P * (P + 3) / 2; g++)
        want_int(0, g, 0);
    return bad;
}

/* 0, read back through the main handle. */
static long sequential_back(MPI_File fh)
{
    int64_t g0 = 0;
    int buf[16] = {0};
    MPI_Status st;
    for (int q = 0; q < rank; q++)
        g0 += q + 2;
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_File_read_at_all(fh, g0, buf, rank + 2, MPI_INT, &st);
    return check_count("sequential: read back", &st, MPI_INT, rank + 2)
           + check_ints("sequential: read back", buf, 0, g0, rank + 2);
}

/* The filetype of regions 1 and 2: 3 ints at 16r in tiles of 16P bytes
 * (4-byte holes); int i of rank r's stream lies at int index
 * i / 3 * 4P + 4r + i % 3. */
static MPI_Datatype holes_type(void)
{
    MPI_Datatype h, t;
    int three = 3;
    MPI_Aint d = 16 * rank;
    MPI_Type_create_hindexed(1, &three, &d, MPI_INT, &h);
    MPI_Type_create_resized(h, 0, 16 * P, &t);
    MPI_Type_free(&h);
    MPI_Type_commit(&t);
    return t;
}

static int64_t holes_index(int r, int i)
{
    return (int64_t)i / 3 * 4 * P + 4 * r + i % 3;
}

/* 1 (atomic) and 2 (external32): 9 ints of each rank through holes_type. */
static long holes_case(MPI_File fh, int k)
{
    const char *rep = k == 2 ? "external32" : "native",
               *name = k == 2 ? "external32" : "atomic";
    MPI_Datatype ft = holes_type();
    MPI_Status st;
    int buf[9], back[9] = {0}, rc, flag = 0;
    long bad = 0;
    char what[64];
    for (int i = 0; i < 9; i++)
        buf[i] = value(k, holes_index(rank, i));
    rc = MPI_File_set_view(fh, (MPI_Offset)k * REG, MPI_INT, ft, rep, MPI_INFO_NULL);
    if (mpiio_sum(rc != MPI_SUCCESS, MPI_COMM_WORLD)) {
        if (rank == 0)
            printf("skip %s: this MPI refuses the view (class %d)\n", name,
                   err_class(rc));
        note("%s: set_view refused, class %d\n", name, err_class(rc));
        MPI_Type_free(&ft);
        return 0;
    }
    if (k == 1) {
        MPI_File_set_atomicity(fh, 1);
        MPI_File_get_atomicity(fh, &flag);
        if (!flag) {
            fprintf(stderr, "rank %d: atomic: MPI_File_get_atomicity says 0\n", rank);
            bad++;
        }
        rc = MPI_File_write_all(fh, buf, 9, MPI_INT, &st);
    } else {
        rc = MPI_File_write_at_all(fh, 0, buf, 9, MPI_INT, &st);
    }
    snprintf(what, sizeof what, "%s: write", name);
    bad += rc != MPI_SUCCESS ? 1 : check_count(what, &st, MPI_INT, 9);
    if (k == 1) {
        MPI_File_seek(fh, 0, MPI_SEEK_SET);
        rc = MPI_File_read_all(fh, back, 9, MPI_INT, &st);
    } else {
        rc = MPI_File_read_at_all(fh, 0, back, 9, MPI_INT, &st);
    }
    snprintf(what, sizeof what, "%s: read", name);
    bad += rc != MPI_SUCCESS ? 1 : check_count(what, &st, MPI_INT, 9);
    for (int i = 0; i < 9; i++)
        if (back[i] != buf[i]) {
            fprintf(stderr, "rank %d: %s: int %d read back is 0x%08x, wrote 0x%08x\n",
                    rank, name, i, (unsigned)back[i], (unsigned)buf[i]);
            bad++;
            break;
        }
    if (k == 1)
        MPI_File_set_atomicity(fh, 0);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    for (int r = 0; r < P; r++)
        for (int i = 0; i < 9; i++)
            want_int(k, holes_index(r, i), k == 2);
    note("%s: done\n", name);
    MPI_Type_free(&ft);
    return bad;
}

/* 3: shared file pointer. */
static long shared(MPI_File fh)
{
    MPI_Status st;
    long bad = 0;
    int buf[16], back[16] = {0};
    int64_t g0 = (int64_t)rank * (rank + 1) / 2, gs = (int64_t)P * (P + 1) / 2 + 2 * rank;
    MPI_File_set_view(fh, 3 * REG, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    for (int i = 0; i < rank + 1; i++)
        buf[i] = value(3, g0 + i);
    int rc = MPI_File_write_ordered(fh, buf, rank + 1, MPI_INT, &st);
    bad += rc != MPI_SUCCESS ? 1 : check_count("write_ordered", &st, MPI_INT, rank + 1);
    /* write_shared rank after rank: a deterministic file */
    int two[2] = {value(3, gs), value(3, gs + 1)};
    for (int q = 0; q < P; q++) {
        if (q == rank) {
            rc = MPI_File_write_shared(fh, two, 2, MPI_INT, &st);
            bad += rc != MPI_SUCCESS ? 1 : check_count("write_shared", &st, MPI_INT, 2);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    rc = MPI_File_read_ordered(fh, back, rank + 1, MPI_INT, &st);
    bad += rc != MPI_SUCCESS ? 1 : check_count("read_ordered", &st, MPI_INT, rank + 1);
    bad += check_ints("read_ordered", back, 3, g0, rank + 1);
    for (int q = 0; q < P; q++) {
        if (q == rank) {
            rc = MPI_File_read_shared(fh, back, 2, MPI_INT, &st);
            bad += rc != MPI_SUCCESS ? 1 : check_count("read_shared", &st, MPI_INT, 2);
            bad += check_ints("read_shared", back, 3, gs, 2);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    for (int64_t g = 0; g < (int64_t)P * (P + 1) / 2 + 2 * P; g++)
        want_int(3, g, 0);
    return bad;
}

/* 4: rank r writes ints [8r, 8r + 12): 4 in common with rank r + 1 (the
 * same values); 5: every rank writes the same 16 ints. */
static long overlap(MPI_File fh, int all)
{
    const int k = all ? 5 : 4, n = all ? 16 : 12;
    const int64_t g0 = all ? 0 : 8 * rank;
    MPI_Status st;
    int buf[16], back[16] = {0}, rc;
    long bad = 0;
    for (int i = 0; i < n; i++)
        buf[i] = value(k, g0 + i);
    MPI_File_set_view(fh, (MPI_Offset)k * REG, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    if (all) {
        rc = MPI_File_write_all(fh, buf, n, MPI_INT, &st);
    } else {
        rc = MPI_File_write_at_all(fh, g0, buf, n, MPI_INT, &st);
    }
    bad += rc != MPI_SUCCESS ? 1 : check_count("overlap: write", &st, MPI_INT, n);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    if (all) {
        MPI_File_seek(fh, 0, MPI_SEEK_SET);
        rc = MPI_File_read_all(fh, back, n, MPI_INT, &st);
    } else {
        rc = MPI_File_read_at_all(fh, g0, back, n, MPI_INT, &st);
    }
    bad += rc != MPI_SUCCESS ? 1 : check_count("overlap: read", &st, MPI_INT, n);
    bad += check_ints("overlap: read", back, k, g0, n);
    for (int64_t g = 0; g < (all ? 16 : 8 * (int64_t)P + 4); g++)
        want_int(k, g, 0);
    return bad;
}

/* 6: (a) hindexed {16r + 8, 16r}: displacements decrease; (b) at 2048 +
 * 16r, 2 ints in a filetype of extent 4 (its tiles would overlap), one
 * tile written. */
static long nonmonotonic(MPI_File fh, int *order)
{
    MPI_Datatype h, ft;
    MPI_Status st;
    long bad = 0;
    int one[2] = {1, 1}, two = 2, rc, buf[2], back[2] = {0, 0};
    MPI_Aint d[2] = {16 * rank + 8, 16 * rank}, d2 = 2048 + 16 * rank;
    char s[96] = "";

    MPI_Type_create_hindexed(2, one, d, MPI_INT, &h);
    MPI_Type_create_resized(h, 0, 16 * P, &ft);
    MPI_Type_free(&h);
    MPI_Type_commit(&ft);
    buf[0] = value(6, 4 * rank + 2), buf[1] = value(6, 4 * rank); /* type-map order */
    rc = MPI_File_set_view(fh, 6 * REG, MPI_INT, ft, "native", MPI_INFO_NULL);
    int cls = err_class(rc), anyfail = (int)mpiio_sum(rc != MPI_SUCCESS, MPI_COMM_WORLD);
    snprintf(s, sizeof s, "decreasing: set_view class %d", cls);
    *order = 0;
    if (!anyfail) {
        rc = MPI_File_write_all(fh, buf, 2, MPI_INT, &st);
        snprintf(s + strlen(s), sizeof s - strlen(s), ", write_all class %d",
                 err_class(rc));
        if (rc == MPI_SUCCESS) {
            MPI_File_seek(fh, 0, MPI_SEEK_SET);
            MPI_File_read_all(fh, back, 2, MPI_INT, &st);
            if (back[0] != buf[0] || back[1] != buf[1]) {
                fprintf(stderr, "rank %d: decreasing filetype: read back differs\n",
                        rank);
                bad++;
            }
            *order = 1;
        }
    }
    note_all("nonmonotonic", s);
    MPI_Type_free(&ft);

    MPI_Type_create_hindexed(1, &two, &d2, MPI_INT, &h);
    MPI_Type_create_resized(h, 0, 4, &ft);
    MPI_Type_free(&h);
    MPI_Type_commit(&ft);
    buf[0] = value(6, 512 + 4 * rank), buf[1] = value(6, 513 + 4 * rank);
    rc = MPI_File_set_view(fh, 6 * REG, MPI_INT, ft, "native", MPI_INFO_NULL);
    cls = err_class(rc);
    anyfail = (int)mpiio_sum(rc != MPI_SUCCESS, MPI_COMM_WORLD);
    snprintf(s, sizeof s, "overlapping tiles: set_view class %d", cls);
    if (!anyfail) {
        rc = MPI_File_write_at_all(fh, 0, buf, 2, MPI_INT, &st);
        snprintf(s + strlen(s), sizeof s - strlen(s), ", write_at_all class %d",
                 err_class(rc));
        if (rc == MPI_SUCCESS) {
            MPI_File_read_at_all(fh, 0, back, 2, MPI_INT, &st);
            bad += check_ints("overlapping tiles: read back", back, 6, 512 + 4 * rank, 2);
            *order |= 2;
        }
    }
    note_all("nonmonotonic", s);
    MPI_Type_free(&ft);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    return bad;
}

/* 7: reads across the end of the file. */
static long eof(MPI_File fh, int counts[2])
{
    MPI_Offset size = 0;
    MPI_Status st;
    int back[16], rc, avail;
    long bad = 0;
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_get_size(fh, &size);
    if (size != NREG * REG) {
        fprintf(stderr, "rank %d: eof: the file is %lld bytes, expected %d\n", rank,
                (long long)size, NREG * REG);
        return 1;
    }
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    const int64_t nints = size / 4;
    for (int pass = 0; pass < 2; pass++) {
        /* read_at_all: rank r reads 8 ints from r + 1 before the end;
         * read_all: odd ranks inside the file, even ones across its end */
        int64_t at = pass == 0 ? nints - (rank + 1) : nints - (rank % 2 ? 20 : 2);
        int n = pass == 0 ? 8 : 10;
        avail = (int)(nints - at < n ? nints - at : n);
        memset(back, 0, sizeof back);
        if (pass == 0) {
            rc = MPI_File_read_at_all(fh, at, back, n, MPI_INT, &st);
        } else {
            MPI_File_seek(fh, at, MPI_SEEK_SET);
            rc = MPI_File_read_all(fh, back, n, MPI_INT, &st);
        }
        counts[pass] = -1;
        MPI_Get_count(&st, MPI_INT, &counts[pass]);
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: eof: read failed (class %d)\n", rank,
                    err_class(rc));
            bad++;
        }
        /* the MPI reports what it reports (ROMIO's collective reads count
         * the whole request); the record compares it with the plain run */
        if (counts[pass] != avail && rank == 0 && pass == 0)
            printf("eof: note: this MPI's status counts %d ints where %d exist\n",
                   counts[pass], avail);
        for (int i = 0; i < avail; i++)
            for (int b = 0; b < 4; b++) {
                unsigned char got = ((unsigned char *)back)[4 * i + b];
                if (got != fill(4 * (at + i) + b)) {
                    if (!bad)
                        fprintf(stderr, "rank %d: eof: byte %d read is %d, expected %d\n",
                                rank, 4 * i + b, got, fill(4 * (at + i) + b));
                    bad++;
                }
            }
    }
    return bad;
}

/* Rank 0: the regions through POSIX. */
static long posix_check(const char *path)
{
    static unsigned char got[NREG * REG];
    long bad = 0;
    struct stat sb;
    int fd = open(path, O_RDONLY);
    if (fd < 0 || fstat(fd, &sb) != 0) {
        perror(path);
        return 1;
    }
    if (sb.st_size != NREG * REG) {
        fprintf(stderr, "io_passthrough: %s is %lld bytes, expected %d\n", path,
                (long long)sb.st_size, NREG * REG);
        bad++;
    }
    ssize_t n = read(fd, got, sizeof got);
    close(fd);
    for (int k = 0; k < NREG; k++) {
        long wrong = 0;
        for (int64_t i = (int64_t)k * REG; i < (int64_t)(k + 1) * REG; i++) {
            int g = i < n ? got[i] : -1;
            if (g != want[i]) {
                if (!wrong)
                    fprintf(stderr,
                            "io_passthrough: POSIX read: region %d, byte %lld is %d, "
                            "expected %d (first mismatch)\n",
                            k, (long long)(i - (int64_t)k * REG), g, want[i]);
                wrong++;
            }
        }
        bad += wrong;
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    mpiio_report_interposer("io_passthrough", rank);
    if (argc != 2 || P > 16)
        mpiio_usage_exit(rank, "usage: io_passthrough FILE (at most 16 ranks)\n", NULL);
    const char *path = argv[1];
    long failed = 0;

    for (int64_t i = 0; i < NREG * REG; i++)
        want[i] = fill(i);
    if (rank == 0) {
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0 || write(fd, want, sizeof want) != (ssize_t)sizeof want
            || close(fd) != 0)
            perror(path);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    long bad = sequential(path);
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh)
        != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_File_open(%s) failed\n", rank, path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (strncmp(record, "sequential: open refused", 24) != 0)
        bad += sequential_back(fh);
    failed += report("sequential (MPI_MODE_SEQUENTIAL)", bad);
    failed += report("atomic (MPI_File_set_atomicity 1)", holes_case(fh, 1));
    failed += report("external32 view", holes_case(fh, 2));
    failed += report("shared file pointer (write_ordered, write_shared)", shared(fh));
    failed += report("overlapping write_at_all (ranks r, r+1)", overlap(fh, 0));
    failed += report("overlapping write_all (every rank the same)", overlap(fh, 1));
    int order = 0;
    failed += report("non-monotonic filetypes", nonmonotonic(fh, &order));
    int counts[2];
    failed += report("reads past the end of the file", eof(fh, counts));
    MPI_File_close(&fh);

    /* what the MPI decided, from every rank, into the record */
    int mine[2] = {counts[0], counts[1]}, all[32];
    MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
    note("eof: counts (read_at_all, read_all) per rank:");
    for (int q = 0; rank == 0 && q < P; q++)
        note(" (%d, %d)", all[2 * q], all[2 * q + 1]);
    note("\n");
    /* the non-monotonic view's data, where the MPI wrote it */
    int b = 0;
    for (int r = 0; r < P; r++) {
        if (order & 1) { /* where it went: in type-map or sorted order */
            int v0 = value(6, 4 * r + 2), v1 = value(6, 4 * r);
            int64_t at = 6 * REG + 16 * r;
            if (rank == 0) {
                int got[3];
                int fd = open(path, O_RDONLY);
                if (fd < 0 || pread(fd, got, 12, at) != 12)
                    got[0] = got[2] = 0;
                if (fd >= 0)
                    close(fd);
                int sorted = got[0] == v0 && got[2] == v1;
                b += !sorted && !(got[0] == v1 && got[2] == v0);
                memcpy(want + at, sorted ? &v0 : &v1, 4);
                memcpy(want + at + 8, sorted ? &v1 : &v0, 4);
                if (r == 0)
                    note("nonmonotonic: data in %s order\n",
                         sorted ? "sorted" : "type-map");
            }
        }
        if (order & 2) {
            want_int(6, 512 + 4 * r, 0);
            want_int(6, 513 + 4 * r, 0);
        }
    }
    if (rank == 0 && b) {
        fprintf(stderr, "io_passthrough: the decreasing filetype's data are not where "
                        "it puts them\n");
        failed += b;
    }

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        long pb = posix_check(path);
        printf("%s POSIX read of the whole file\n", pb ? "FAIL" : "ok");
        failed += pb;
        /* the record, after the regions: compared by compare.sh */
        int fd = open(path, O_WRONLY | O_APPEND);
        if (fd < 0 || write(fd, record, reclen) != (ssize_t)reclen || close(fd) != 0)
            perror(path);
        printf("record:\n%s", record);
    }
    MPI_Bcast(&failed, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("io_passthrough: P=%d: %s\n", P, failed ? "MISMATCH" : "ok");
    MPI_Finalize();
    return failed ? 1 : 0;
}
