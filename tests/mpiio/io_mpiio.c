/*
 * io_mpiio.c -- plain MPI-IO as an application writes it: a 1-D float32
 * vector of nx elements, block-cyclic with block bx over the ranks (or the
 * irregular "climate" pieces, mpiio_common.h), described by a filetype
 * (MPI_Type_create_darray, MPI_Type_vector or MPI_Type_indexed), set as
 * the view, written collectively, read back collectively and compared with
 * the expected values; rank 0 then reads the whole file with POSIX calls
 * (independent of MPI-IO and of any interposer) and checks every element,
 * the untouched header bytes and the size.
 *
 * usage: io_mpiio FILE [--nx N] [--bx B] [--mode MODE] [--type TYPE]
 *                      [--irregular] [--seed S] [--disp BYTES]
 *   MODE: all     MPI_File_write_all / MPI_File_read_all (default)
 *         at_all  two MPI_File_write_at_all / read_at_all (halves, offsets)
 *         split   MPI_File_write_all_begin/end / read_all_begin/end
 *         iall    MPI_File_iwrite_all + MPI_Wait / iread_all + MPI_Wait
 *         ptr2    two MPI_File_write_all / read_all (individual pointer)
 *         steps   --steps S MPI_File_write_at_all of the whole vector at
 *                 offset 0 (a checkpoint rewritten every time step), then S
 *                 read_at_all
 *         large   MPI_File_write_all_c / read_all_c, MPI-4's large-count
 *                 forms (exit 77, skipped, where the MPI has none)
 *         self    every rank its own file FILE.rR on MPI_COMM_SELF, its
 *                 elements contiguous, --steps S write_at_all then S
 *                 read_at_all; each rank checks its file through POSIX
 *   TYPE: darray (default), vector (MPI_Type_vector + the partial last
 *         block), indexed (MPI_Type_indexed; always with --irregular)
 *   --disp: the view's displacement; the bytes before it stay a hole.
 * Exits 1 when anything read differs from the expected values.
 */
#include "mpiio_common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *usage =
    "usage: io_mpiio FILE [--nx N] [--bx B]\n"
    "                [--mode all|at_all|split|iall|ptr2|steps|large|self]\n"
    "                [--steps S] [--type darray|vector|indexed] [--irregular]\n"
    "                [--seed S] [--disp BYTES]\n";

static int g_steps = 12; /* --steps */

/* The filetype of rank r's pieces (sorted), relative to displacement 0. */
static MPI_Datatype make_filetype(const char *type, const mpiio_pieces *ps, int64_t nx,
                                  int64_t bx, int P, int r)
{
    MPI_Datatype ft;
    if (strcmp(type, "darray") == 0) {
        int gsize = (int)nx, distrib = MPI_DISTRIBUTE_CYCLIC, darg = (int)bx, psize = P;
        MPI_Type_create_darray(P, r, 1, &gsize, &distrib, &darg, &psize, MPI_ORDER_C,
                               MPI_FLOAT, &ft);
    } else if (strcmp(type, "vector") == 0) {
        /* full blocks: one vector from the first; a partial block can only
         * be the last of all */
        int64_t nfull = 0, tail = 0;
        for (int64_t i = 0; i < ps->n; i++) {
            if (ps->p[i].len == bx)
                nfull++;
            else
                tail = ps->p[i].len;
        }
        MPI_Datatype vec, parts[2];
        MPI_Type_vector((int)nfull, (int)bx, (int)(bx * P), MPI_FLOAT, &vec);
        MPI_Aint first = ps->n ? (MPI_Aint)(ps->p[0].off * 4) : 0;
        if (tail) {
            int lens[2] = {1, (int)tail};
            MPI_Aint displs[2] = {first, (MPI_Aint)(ps->p[ps->n - 1].off * 4)};
            parts[0] = vec;
            parts[1] = MPI_FLOAT;
            MPI_Type_create_struct(2, lens, displs, parts, &ft);
        } else {
            int one = 1;
            MPI_Aint displ = first;
            MPI_Type_create_struct(1, &one, &displ, &vec, &ft);
        }
        MPI_Type_free(&vec);
    } else {
        int *lens = (int *)mpiio_xmalloc((size_t)ps->n * sizeof(int));
        int *displs = (int *)mpiio_xmalloc((size_t)ps->n * sizeof(int));
        for (int64_t i = 0; i < ps->n; i++) {
            lens[i] = (int)ps->p[i].len;
            displs[i] = (int)ps->p[i].off;
        }
        MPI_Type_indexed((int)ps->n, lens, displs, MPI_FLOAT, &ft);
        free(lens);
        free(displs);
    }
    /* one tile spans the whole vector (darray already does) */
    MPI_Datatype resized;
    MPI_Type_create_resized(ft, 0, (MPI_Aint)(nx * 4), &resized);
    MPI_Type_free(&ft);
    MPI_Type_commit(&resized);
    return resized;
}

static int64_t status_count(MPI_Status *st)
{
    int c = -1;
    MPI_Get_count(st, MPI_FLOAT, &c);
    return c;
}

/* Writes (or reads) n floats through the view with the calls of `mode`.
 * Returns the elements the statuses report. */
static int64_t transfer(MPI_File fh, const char *mode, int write, float *buf, int64_t n)
{
    MPI_Status st;
    MPI_Request rq;
    int h = (int)(n / 2), rest = (int)(n - n / 2), c = (int)n;
    int64_t done = 0;
    if (strcmp(mode, "all") == 0) {
        if (write)
            MPI_File_write_all(fh, buf, c, MPI_FLOAT, &st);
        else
            MPI_File_read_all(fh, buf, c, MPI_FLOAT, &st);
        done = status_count(&st);
    } else if (strcmp(mode, "at_all") == 0) {
        /* second half first: offsets are the view's, not the pointer's */
        if (write) {
            MPI_File_write_at_all(fh, h, buf + h, rest, MPI_FLOAT, &st);
            done = status_count(&st);
            MPI_File_write_at_all(fh, 0, buf, h, MPI_FLOAT, &st);
        } else {
            MPI_File_read_at_all(fh, h, buf + h, rest, MPI_FLOAT, &st);
            done = status_count(&st);
            MPI_File_read_at_all(fh, 0, buf, h, MPI_FLOAT, &st);
        }
        done += status_count(&st);
    } else if (strcmp(mode, "split") == 0) {
        if (write) {
            MPI_File_write_all_begin(fh, buf, c, MPI_FLOAT);
            MPI_File_write_all_end(fh, buf, &st);
        } else {
            MPI_File_read_all_begin(fh, buf, c, MPI_FLOAT);
            MPI_File_read_all_end(fh, buf, &st);
        }
        done = status_count(&st);
    } else if (strcmp(mode, "iall") == 0) {
        if (write)
            MPI_File_iwrite_all(fh, buf, c, MPI_FLOAT, &rq);
        else
            MPI_File_iread_all(fh, buf, c, MPI_FLOAT, &rq);
        MPI_Wait(&rq, &st);
        done = status_count(&st);
    } else if (strcmp(mode, "steps") == 0 || strcmp(mode, "self") == 0) {
        for (int k = 0; k < g_steps; k++) {
            if (write)
                MPI_File_write_at_all(fh, 0, buf, c, MPI_FLOAT, &st);
            else
                MPI_File_read_at_all(fh, 0, buf, c, MPI_FLOAT, &st);
            done = status_count(&st); /* (each the whole vector) */
        }
    } else if (strcmp(mode, "large") == 0) {
#if MPI_VERSION >= 4
        MPI_Count big = 0;
        if (write)
            MPI_File_write_all_c(fh, buf, (MPI_Count)n, MPI_FLOAT, &st);
        else
            MPI_File_read_all_c(fh, buf, (MPI_Count)n, MPI_FLOAT, &st);
        MPI_Get_count_c(&st, MPI_FLOAT, &big);
        done = (int64_t)big;
#endif
    } else { /* ptr2 */
        if (write) {
            MPI_File_write_all(fh, buf, h, MPI_FLOAT, &st);
            done = status_count(&st);
            MPI_File_write_all(fh, buf + h, rest, MPI_FLOAT, &st);
        } else {
            MPI_File_read_all(fh, buf, h, MPI_FLOAT, &st);
            done = status_count(&st);
            MPI_File_read_all(fh, buf + h, rest, MPI_FLOAT, &st);
        }
        done += status_count(&st);
    }
    return done;
}

/* Rank 0: the whole file through POSIX read(). */
static int64_t posix_check(const char *path, int64_t disp, int64_t nx)
{
    int64_t bad = 0;
    struct stat sb;
    if (stat(path, &sb) != 0) {
        perror(path);
        return 1;
    }
    if ((int64_t)sb.st_size != disp + nx * 4) {
        fprintf(stderr, "rank 0: %s is %lld bytes, expected %lld\n", path,
                (long long)sb.st_size, (long long)(disp + nx * 4));
        bad++;
    }
    unsigned char *all = (unsigned char *)mpiio_xmalloc((size_t)(disp + nx * 4));
    memset(all, 0xff, (size_t)(disp + nx * 4));
    int fd = open(path, O_RDONLY);
    int64_t got = 0;
    while (fd >= 0 && got < disp + nx * 4) {
        ssize_t k = read(fd, all + got, (size_t)(disp + nx * 4 - got));
        if (k <= 0)
            break;
        got += k;
    }
    if (fd >= 0)
        close(fd);
    for (int64_t i = 0; i < disp; i++) {
        if (all[i] != 0) {
            fprintf(stderr, "rank 0: byte %lld before the displacement is %d, not 0\n",
                    (long long)i, all[i]);
            bad++;
            break;
        }
    }
    float *data = (float *)mpiio_xmalloc((size_t)nx * sizeof(float));
    memcpy(data, all + disp, (size_t)nx * sizeof(float));
    bad += mpiio_check_full("POSIX read of the whole file", 0, data, 0, nx);
    free(data);
    free(all);
    return bad;
}

/* --mode self: this rank's elements, contiguous, in its own file on
 * MPI_COMM_SELF, written and read g_steps times; checked through MPI and
 * through POSIX (this rank's file). Finalizes; the exit status. */
static int run_self(const char *path, int64_t nx, int64_t bx, int rank, int P)
{
    mpiio_pieces ps = mpiio_block_cyclic(nx, bx, P, rank);
    float *want = mpiio_pieces_expected(&ps, 0), *buf = mpiio_pieces_expected(&ps, 0);
    const int64_t n = ps.total;
    char mine[1100];
    snprintf(mine, sizeof mine, "%s.r%d", path, rank);
    unlink(mine);
    int64_t bad = 0;
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_SELF, mine, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                      &fh)
        != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_File_open(%s) failed\n", rank, mine);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    bad += transfer(fh, "self", 1, buf, n) != n;
    memset(buf, 0, (size_t)n * sizeof(float));
    bad += transfer(fh, "self", 0, buf, n) != n;
    MPI_File_close(&fh);
    bad += mpiio_compare("read back on MPI_COMM_SELF", rank, buf, want, n);
    memset(buf, 0, (size_t)n * sizeof(float));
    int fd = open(mine, O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size != n * 4
        || read(fd, buf, (size_t)n * 4) != (ssize_t)(n * 4)) {
        fprintf(stderr, "rank %d: %s: not %lld bytes\n", rank, mine, (long long)(n * 4));
        bad++;
    }
    if (fd >= 0)
        close(fd);
    bad += mpiio_compare("POSIX read of its own file", rank, buf, want, n);
    unlink(mine);
    long long total = mpiio_sum(bad, MPI_COMM_WORLD);
    if (rank == 0)
        printf("io_mpiio: nx=%lld bx=%lld mode=self steps=%d P=%d: %s\n", (long long)nx,
               (long long)bx, g_steps, P, total ? "MISMATCH" : "ok");
    free(buf);
    free(want);
    mpiio_pieces_free(&ps);
    MPI_Finalize();
    return total ? 1 : 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    mpiio_report_interposer("io_mpiio", rank);

    const char *path = NULL, *mode = "all", *type = "darray", *v;
    int64_t nx = 10007, bx = 7, seed = 1, disp = 0;
    int irregular = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = mpiio_opt(&i, argc, argv, "--nx")))
            nx = mpiio_parse_i64("--nx", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--bx")))
            bx = mpiio_parse_i64("--bx", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--seed")))
            seed = mpiio_parse_i64("--seed", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--disp")))
            disp = mpiio_parse_i64("--disp", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--mode")))
            mode = v;
        else if ((v = mpiio_opt(&i, argc, argv, "--type")))
            type = v;
        else if ((v = mpiio_opt(&i, argc, argv, "--steps")))
            g_steps = (int)mpiio_parse_i64("--steps", v);
        else if (strcmp(argv[i], "--irregular") == 0)
            irregular = 1;
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else
            mpiio_usage_exit(rank, usage, argv[i]);
    }
    if (!path || bx < 1 || nx < 1 || nx * 4 > 0x7fffffff
        || (strcmp(mode, "all") && strcmp(mode, "at_all") && strcmp(mode, "split")
            && strcmp(mode, "iall") && strcmp(mode, "ptr2") && strcmp(mode, "steps")
            && strcmp(mode, "large") && strcmp(mode, "self"))
        || g_steps < 1
        || (strcmp(type, "darray") && strcmp(type, "vector") && strcmp(type, "indexed")))
        mpiio_usage_exit(rank, usage, NULL);
    if (irregular)
        type = "indexed";
#if MPI_VERSION < 4
    if (strcmp(mode, "large") == 0) {
        if (rank == 0)
            printf("io_mpiio: MPI %d.%d has no large-count forms: skipped\n", MPI_VERSION,
                   MPI_SUBVERSION);
        MPI_Finalize();
        return 77;
    }
#endif
    if (strcmp(mode, "self") == 0)
        return run_self(path, nx, bx, rank, P);

    mpiio_pieces ps = irregular ? mpiio_irregular(nx, P, rank, (uint64_t)seed)
                                : mpiio_block_cyclic(nx, bx, P, rank);
    mpiio_pieces_sort(&ps); /* a filetype goes forward through the file */
    MPI_Datatype ft = make_filetype(type, &ps, nx, bx, P, rank);
    float *want = mpiio_pieces_expected(&ps, 0);
    float *buf = mpiio_pieces_expected(&ps, 0);
    int64_t bad = 0;

    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                           MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_File_open(%s) failed\n", rank, path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File_set_view(fh, (MPI_Offset)disp, MPI_FLOAT, ft, "native", MPI_INFO_NULL);
    int64_t done = transfer(fh, mode, 1, buf, ps.total);
    if (done != ps.total) {
        fprintf(stderr, "rank %d: write status counts %lld elements, wrote %lld\n", rank,
                (long long)done, (long long)ps.total);
        bad++;
    }
    MPI_File_close(&fh);

    memset(buf, 0, (size_t)ps.total * sizeof(float));
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, (MPI_Offset)disp, MPI_FLOAT, ft, "native", MPI_INFO_NULL);
    done = transfer(fh, mode, 0, buf, ps.total);
    if (done != ps.total) {
        fprintf(stderr, "rank %d: read status counts %lld elements, read %lld\n", rank,
                (long long)done, (long long)ps.total);
        bad++;
    }
    MPI_File_close(&fh);
    bad += mpiio_compare("read back through the view", rank, buf, want, ps.total);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        bad += posix_check(path, disp, nx);

    long long total = mpiio_sum(bad, MPI_COMM_WORLD);
    if (rank == 0)
        printf("io_mpiio: nx=%lld bx=%lld mode=%s type=%s%s P=%d: %s\n", (long long)nx,
               (long long)bx, mode, type, irregular ? " irregular" : "", P,
               total ? "MISMATCH" : "ok");
    MPI_Type_free(&ft);
    free(buf);
    free(want);
    mpiio_pieces_free(&ps);
    MPI_Finalize();
    return total ? 1 : 0;
}
