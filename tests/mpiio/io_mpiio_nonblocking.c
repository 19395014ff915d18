/*
 * io_mpiio_nonblocking.c -- MPI-IO's non-blocking collective calls as a
 * history file writes them: K float32 variables of one decomposition (a
 * vector of nx elements, block-cyclic with block bx, or the irregular
 * "climate" pieces; the rank's pieces an indexed filetype, one tile per
 * variable), each started with its own call before any completes, then
 * completed together; read back the same way and compared with the
 * expected values; rank 0 then reads the whole file with POSIX calls and
 * checks every element of every variable and the size. Every request's
 * status must count the rank's elements (MPI_Get_count, MPI_Get_elements_x).
 *
 * usage: io_mpiio_nonblocking FILE [--nx N] [--bx B] [--vars K] [--irregular]
 *                             [--complete HOW] [--strided] [--threads]
 *   HOW:  waitall  MPI_File_iwrite_at_all per variable, one MPI_Waitall (default)
 *         wait     the same, MPI_Wait on each, last started first
 *         test     the same, MPI_Test on the oldest until it is done, then
 *                  on the next, computing between the tests
 *         ptr      MPI_File_iwrite_all per variable (the individual file
 *                  pointer moves at each start), one MPI_Waitall
 *         split    MPI_File_write_at_all_begin, compute, _end, per variable
 *         any      as waitall, completed by MPI_Waitany until all are done
 *         some     the same by MPI_Waitsome
 *   --strided: each variable's memory holds its elements at every other
 *              float (a vector datatype): the data is staged, and a read's
 *              is unpacked at its completion
 *   --threads: MPI_Init_thread(MPI_THREAD_MULTIPLE): collio's helper thread
 *              runs the accesses while the program computes
 *   --expect-error: the writes must fail (a full file system): MPI_ERRORS_RETURN
 *              on MPI_COMM_WORLD (where MPI reports a generalized request's
 *              error), and every rank's completion must return an error
 * Exits 1 when anything read, any status or the file differs (with
 * --expect-error: when any rank's writes succeed).
 */
#include "mpiio_common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *usage =
    "usage: io_mpiio_nonblocking FILE [--nx N] [--bx B] [--vars K] [--irregular]\n"
    "                            [--complete waitall|wait|test|ptr|split|any|some]\n"
    "                            [--strided]\n"
    "                            [--threads] [--expect-error]\n";

/* A few milliseconds of work between start and completion. */
static double compute(int ms)
{
    double x = 0, t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < ms * 1e-3)
        for (int i = 0; i < 1000; i++)
            x += 1e-9 * i;
    return x;
}

/* Checks a completed request's status: n floats (one memory datatype mt
 * of n elements where strided). */
static int64_t check_status(const MPI_Status *st, int strided, int64_t n, int rank,
                            const char *what, int v)
{
    MPI_Count el = -1;
    int c = -1;
    MPI_Get_elements_x(st, MPI_FLOAT, &el);
    MPI_Get_count(st, MPI_FLOAT, &c);
    if (el == (MPI_Count)n && (strided || c == (int)n))
        return 0;
    fprintf(stderr,
            "rank %d: %s of variable %d: status counts %lld elements (%d), not %lld\n",
            rank, what, v, (long long)el, c, (long long)n);
    return 1;
}

int main(int argc, char **argv)
{
    int threads = 0;
    for (int i = 1; i < argc; i++)
        threads |= strcmp(argv[i], "--threads") == 0;
    if (threads) {
        int provided = 0;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    } else {
        MPI_Init(&argc, &argv);
    }
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    mpiio_report_interposer("io_mpiio_nonblocking", rank);

    const char *path = NULL, *how = "waitall", *v;
    int64_t nx = 10007, bx = 7, K = 5;
    int irregular = 0, strided = 0, expect_error = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = mpiio_opt(&i, argc, argv, "--nx")))
            nx = mpiio_parse_i64("--nx", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--bx")))
            bx = mpiio_parse_i64("--bx", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--vars")))
            K = mpiio_parse_i64("--vars", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--complete")))
            how = v;
        else if (strcmp(argv[i], "--irregular") == 0)
            irregular = 1;
        else if (strcmp(argv[i], "--strided") == 0)
            strided = 1;
        else if (strcmp(argv[i], "--threads") == 0)
            continue;
        else if (strcmp(argv[i], "--expect-error") == 0)
            expect_error = 1;
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else
            mpiio_usage_exit(rank, usage, argv[i]);
    }
    if (!path || bx < 1 || nx < 1 || K < 1 || K > 64 || nx * 4 * K > 0x7fffffff
        || (strcmp(how, "waitall") && strcmp(how, "wait") && strcmp(how, "test")
            && strcmp(how, "ptr") && strcmp(how, "split") && strcmp(how, "any")
            && strcmp(how, "some")))
        mpiio_usage_exit(rank, usage, NULL);

    mpiio_pieces ps =
        irregular ? mpiio_irregular(nx, P, rank, 1) : mpiio_block_cyclic(nx, bx, P, rank);
    mpiio_pieces_sort(&ps);
    const int64_t n = ps.total;
    /* the filetype: the rank's pieces, one tile spanning the vector */
    int *lens = mpiio_xmalloc((size_t)(ps.n > 0 ? ps.n : 1) * sizeof(int));
    int *displs = mpiio_xmalloc((size_t)(ps.n > 0 ? ps.n : 1) * sizeof(int));
    for (int64_t i = 0; i < ps.n; i++) {
        lens[i] = (int)ps.p[i].len;
        displs[i] = (int)ps.p[i].off;
    }
    MPI_Datatype idx, ft, mt = MPI_FLOAT;
    MPI_Type_indexed((int)ps.n, lens, displs, MPI_FLOAT, &idx);
    MPI_Type_create_resized(idx, 0, (MPI_Aint)(nx * 4), &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&idx);
    free(lens);
    free(displs);
    int count = (int)n;
    if (strided) { /* n floats at every other one */
        MPI_Type_vector((int)n, 1, 2, MPI_FLOAT, &mt);
        MPI_Type_commit(&mt);
        count = n > 0 ? 1 : 0;
    }
    const int64_t stride = strided ? 2 : 1;
    float **want = mpiio_xmalloc((size_t)K * sizeof *want);
    float **buf = mpiio_xmalloc((size_t)K * sizeof *buf);
    for (int64_t k = 0; k < K; k++) {
        want[k] = mpiio_pieces_expected(&ps, (int)k);
        buf[k] = mpiio_xmalloc((size_t)(n > 0 ? n * stride : 1) * sizeof(float));
    }
    MPI_Request *rq = mpiio_xmalloc((size_t)K * sizeof *rq);
    MPI_Status *st = mpiio_xmalloc((size_t)K * sizeof *st);
    int64_t bad = 0;

    if (rank == 0)
        unlink(path);
    if (expect_error)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int pass = 0; pass < (expect_error ? 1 : 2); pass++) {
        const int writing = pass == 0;
        const char *what = writing ? "write" : "read";
        for (int64_t k = 0; k < K; k++) /* a write's data; a read's poison */
            for (int64_t i = 0; i < n; i++) {
                buf[k][i * stride] = writing ? want[k][i] : -1.0f;
                if (strided)
                    buf[k][i * stride + 1] = -2.0f; /* the gaps: never touched */
            }
        MPI_File fh;
        if (MPI_File_open(MPI_COMM_WORLD, path,
                          writing ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY,
                          MPI_INFO_NULL, &fh)
            != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: MPI_File_open(%s) failed\n", rank, path);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_File_set_view(fh, 0, MPI_FLOAT, ft, "native", MPI_INFO_NULL);
        int rc = MPI_SUCCESS;
        if (strcmp(how, "split") == 0) {
            for (int64_t k = 0; k < K && rc == MPI_SUCCESS; k++) {
                rc = writing ? MPI_File_write_at_all_begin(fh, k * n, buf[k], count, mt)
                             : MPI_File_read_at_all_begin(fh, k * n, buf[k], count, mt);
                compute(2);
                if (rc == MPI_SUCCESS)
                    rc = writing ? MPI_File_write_at_all_end(fh, buf[k], &st[k])
                                 : MPI_File_read_at_all_end(fh, buf[k], &st[k]);
            }
        } else {
            for (int64_t k = 0; k < K && rc == MPI_SUCCESS; k++) {
                if (strcmp(how, "ptr") == 0)
                    rc = writing ? MPI_File_iwrite_all(fh, buf[k], count, mt, &rq[k])
                                 : MPI_File_iread_all(fh, buf[k], count, mt, &rq[k]);
                else
                    rc =
                        writing
                            ? MPI_File_iwrite_at_all(fh, k * n, buf[k], count, mt, &rq[k])
                            : MPI_File_iread_at_all(fh, k * n, buf[k], count, mt, &rq[k]);
            }
            compute(5);
            if (strcmp(how, "wait") == 0) {
                for (int64_t k = K - 1; k >= 0 && rc == MPI_SUCCESS; k--)
                    rc = MPI_Wait(&rq[k], &st[k]);
            } else if (strcmp(how, "test") == 0) {
                /* the oldest until it is done, then the next, computing
                 * between the tests */
                for (int64_t k = 0; k < K && rc == MPI_SUCCESS; k++) {
                    int flag = 0;
                    while (!flag && rc == MPI_SUCCESS) {
                        rc = MPI_Test(&rq[k], &flag, &st[k]);
                        if (!flag)
                            compute(1);
                    }
                }
            } else if (strcmp(how, "any") == 0 || strcmp(how, "some") == 0) {
                /* until every one is done, each status where its index
                 * says; MPI_Waitany's index must be a request not done
                 * before */
                int left = (int)K, got[64], ng = 0;
                char done[64] = {0};
                while (left > 0 && rc == MPI_SUCCESS) {
                    MPI_Status one[64];
                    if (strcmp(how, "any") == 0) {
                        rc = MPI_Waitany((int)K, rq, &got[0], &one[0]);
                        ng = got[0] == MPI_UNDEFINED ? 0 : 1;
                    } else {
                        rc = MPI_Waitsome((int)K, rq, &ng, got, one);
                    }
                    for (int j = 0; j < ng && rc == MPI_SUCCESS; j++) {
                        if (got[j] < 0 || got[j] >= K || done[got[j]]) {
                            fprintf(stderr, "rank %d: MPI_Wait%s gave index %d\n", rank,
                                    how, got[j]);
                            bad++;
                            left = 0;
                            break;
                        }
                        done[got[j]] = 1;
                        st[got[j]] = one[j];
                        left--;
                    }
                    if (ng == 0 || ng == MPI_UNDEFINED) {
                        fprintf(stderr, "rank %d: MPI_Wait%s: none done, %d left\n", rank,
                                how, left);
                        bad++;
                        break;
                    }
                }
            } else {
                rc = MPI_Waitall((int)K, rq, st);
            }
        }
        if (expect_error) {
            if (rc == MPI_SUCCESS) {
                fprintf(stderr, "rank %d: the %ss did not fail\n", rank, what);
                bad++;
            } else {
                char msg[MPI_MAX_ERROR_STRING];
                int len = 0, cls = 0;
                MPI_Error_class(rc, &cls);
                MPI_Error_string(rc, msg, &len);
                printf("rank %d: the %ss failed as expected: %s (class %d)\n", rank, what,
                       msg, cls);
            }
            MPI_File_close(&fh);
            break;
        }
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: the %ss failed (MPI error %d)\n", rank, what, rc);
            bad++;
        }
        for (int64_t k = 0; k < K && rc == MPI_SUCCESS; k++)
            bad += check_status(&st[k], strided, n, rank, what, (int)k);
        if (strcmp(how, "ptr") == 0) { /* the pointer moved past every variable */
            MPI_Offset at = -1;
            MPI_File_get_position(fh, &at);
            if (at != K * n) {
                fprintf(stderr,
                        "rank %d: after the %ss the file pointer is %lld, not %lld\n",
                        rank, what, (long long)at, (long long)(K * n));
                bad++;
            }
        }
        MPI_File_close(&fh);
        if (!writing)
            for (int64_t k = 0; k < K; k++) {
                int64_t gaps = 0;
                float *got = mpiio_xmalloc((size_t)(n > 0 ? n : 1) * sizeof(float));
                for (int64_t i = 0; i < n; i++) {
                    got[i] = buf[k][i * stride];
                    gaps += strided && buf[k][i * stride + 1] != -2.0f;
                }
                char w[64];
                snprintf(w, sizeof w, "variable %d read back", (int)k);
                bad += mpiio_compare(w, rank, got, want[k], n);
                if (gaps) {
                    fprintf(stderr, "rank %d: %s: %lld gaps of its memory written\n",
                            rank, w, (long long)gaps);
                    bad++;
                }
                free(got);
            }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && !expect_error) { /* the whole file through POSIX */
        struct stat sb;
        const int64_t bytes = K * nx * 4;
        if (stat(path, &sb) != 0 || (int64_t)sb.st_size != bytes) {
            fprintf(stderr, "rank 0: %s is not %lld bytes\n", path, (long long)bytes);
            bad++;
        }
        float *all = mpiio_xmalloc((size_t)bytes);
        int fd = open(path, O_RDONLY);
        if (fd < 0 || pread(fd, all, (size_t)bytes, 0) != (ssize_t)bytes) {
            fprintf(stderr, "rank 0: cannot read %lld bytes of %s\n", (long long)bytes,
                    path);
            bad++;
        } else {
            for (int64_t k = 0; k < K; k++)
                bad += mpiio_check_full("POSIX read of the file", 0, all + k * nx, (int)k,
                                        nx);
        }
        if (fd >= 0)
            close(fd);
        free(all);
    }
    long long total = mpiio_sum(bad, MPI_COMM_WORLD);
    if (rank == 0)
        printf("io_mpiio_nonblocking: nx=%lld bx=%lld vars=%lld complete=%s%s%s%s P=%d: "
               "%s\n",
               (long long)nx, (long long)bx, (long long)K, how,
               irregular ? " irregular" : "", strided ? " strided" : "",
               threads ? " threads" : "", P, total ? "MISMATCH" : "ok");
    for (int64_t k = 0; k < K; k++) {
        free(want[k]);
        free(buf[k]);
    }
    free(want);
    free(buf);
    free(rq);
    free(st);
    MPI_Type_free(&ft);
    if (strided)
        MPI_Type_free(&mt);
    mpiio_pieces_free(&ps);
    MPI_Finalize();
    return total ? 1 : 0;
}
