/*
 * mpiio_bench.c -- collio-mpiio-bench: the peers' workload through the
 * unmodified I/O libraries, to time them plainly and with the MPI-IO
 * interposer LD_PRELOAD'ed (docs/mpiio-tests.md). A float32 vector of nx
 * elements, block-cyclic with block bx over P ranks (or the irregular
 * "climate" pieces of tests/mpiio/mpiio_common.h), written --reps times
 * through MPI-IO (darray view + MPI_File_write_all), parallel HDF5
 * (strided hyperslab + collective H5Dwrite) or PnetCDF
 * (ncmpi_put_varn_all, a start/count per block or piece).
 *
 * Each rep writes the same pattern (like time steps) with values of its
 * own; after the timed writes the file is read back (same API, own part)
 * and compared with the last rep's values. One CSV line per (api, bx,
 * rep):
 *   api,bx,rep,nprocs,bytes,seconds,open_close_seconds
 * seconds: the write call alone (MPI_File_write_all, H5Dwrite,
 * ncmpi_put_varn_all), max over ranks, after a barrier.
 * open_close_seconds: with --reopen, open (create) .. close of the rep,
 * max over ranks; without, the rep's share of the one open .. close: its
 * write, plus the open for the first rep and the close for the last (the
 * sum over the reps is the whole session). HDF5 and PnetCDF defer work to
 * close (metadata, flushes): compare this column for them.
 * With --irregular, api is suffixed "-irregular" and bx is 0.
 *
 * With --no-verify there is no read-back: for runs under
 * tools/mpiio-nullwrite.c, whose writes write nothing (docs/mpiio.md).
 *
 * Run through scripts/mpirun N. Exit status 0, 1 when a read-back did not
 * verify (also printed loudly), 2 usage.
 */
#include "mpiio_common.h"

#include <sys/stat.h>
#include <unistd.h>
#ifdef COLLIO_BENCH_HDF5
#include <hdf5.h>
#endif
#ifdef COLLIO_BENCH_PNETCDF
#include <pnetcdf.h>
#endif

#define MAX_LIST 32

static const char *usage =
    "usage: collio-mpiio-bench [--api mpiio|hdf5|pnetcdf[,...]] [--nx N]\n"
    "         [--bx B[,B...]] [--reps N] [--reopen] [--irregular] [--seed S]\n"
    "         [--dir DIR] [--csv FILE] [--keep] [--no-verify]\n"
    "  --api      APIs to run, a list (mpiio)\n"
    "  --nx       float32 elements (4194304 = 16 MB)\n"
    "  --bx       block sizes, a list (1,16,256,4096,65536)\n"
    "  --reps     timed writes per (api, bx) (3)\n"
    "  --reopen   open (create) .. write .. close per rep; else open once,\n"
    "             write --reps times, close\n"
    "  --irregular  the irregular climate pieces (1..8 elements, shuffled,\n"
    "             round-robin) instead of block-cyclic; bx ignored\n"
    "  --dir      where the file goes (.); removed after unless --keep\n"
    "  --csv      append the CSV lines to FILE (header when it is new)\n"
    "  --no-verify  no read-back (for runs under mpiio-nullwrite.so, whose\n"
    "             collective writes write nothing: docs/mpiio.md)\n"
    "Run it through scripts/mpirun N; one CSV line per (api, bx, rep) on\n"
    "stdout: api,bx,rep,nprocs,bytes,seconds,open_close_seconds.\n";

typedef struct {
    const char *api;
    int64_t nx, bx;
    int irregular;
    uint64_t seed;
    int P, rank;
    mpiio_pieces ps; /* this rank's pieces: sorted (mpiio, hdf5) or not */
    float *buf;
    char path[1024];
    /* open handles */
    MPI_File fh;
    MPI_Datatype ft;
#ifdef COLLIO_BENCH_HDF5
    hid_t f, d, fspace, mspace, dxpl;
#endif
#ifdef COLLIO_BENCH_PNETCDF
    int ncid, varid;
    MPI_Offset **starts, **counts, *sc;
#endif
} bench;

static double maxed(double t)
{
    double m = 0;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static void fail_api(const char *what)
{
    fprintf(stderr, "collio-mpiio-bench: %s failed\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* ---- per API: open (create and describe), write, read, close ----------- */

static void b_open(bench *b, int create)
{
    if (!strcmp(b->api, "mpiio")) {
        int amode = create ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
        if (MPI_File_open(MPI_COMM_WORLD, b->path, amode, MPI_INFO_NULL, &b->fh))
            fail_api("MPI_File_open");
        MPI_File_set_view(b->fh, 0, MPI_FLOAT, b->ft, "native", MPI_INFO_NULL);
    }
#ifdef COLLIO_BENCH_HDF5
    if (!strcmp(b->api, "hdf5")) {
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
        if (create) {
            b->f = H5Fcreate(b->path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
            hsize_t n = (hsize_t)b->nx;
            hid_t space = H5Screate_simple(1, &n, NULL);
            b->d = b->f < 0 ? -1
                            : H5Dcreate2(b->f, "vector", H5T_IEEE_F32LE, space,
                                         H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            H5Sclose(space);
        } else {
            b->f = H5Fopen(b->path, H5F_ACC_RDONLY, fapl);
            b->d = b->f < 0 ? -1 : H5Dopen2(b->f, "vector", H5P_DEFAULT);
        }
        H5Pclose(fapl);
        if (b->f < 0 || b->d < 0)
            fail_api("H5Fcreate/H5Dcreate");
    }
#endif
#ifdef COLLIO_BENCH_PNETCDF
    if (!strcmp(b->api, "pnetcdf")) {
        int err;
        if (create) {
            int dim;
            err = ncmpi_create(MPI_COMM_WORLD, b->path, NC_CLOBBER | NC_64BIT_DATA,
                               MPI_INFO_NULL, &b->ncid);
            if (err == NC_NOERR)
                err = ncmpi_def_dim(b->ncid, "n", b->nx, &dim);
            if (err == NC_NOERR)
                err = ncmpi_def_var(b->ncid, "vector", NC_FLOAT, 1, &dim, &b->varid);
            if (err == NC_NOERR)
                err = ncmpi_enddef(b->ncid);
        } else {
            err =
                ncmpi_open(MPI_COMM_WORLD, b->path, NC_NOWRITE, MPI_INFO_NULL, &b->ncid);
            if (err == NC_NOERR)
                err = ncmpi_inq_varid(b->ncid, "vector", &b->varid);
        }
        if (err != NC_NOERR) {
            fprintf(stderr, "PnetCDF: %s\n", ncmpi_strerror(err));
            fail_api("ncmpi_create/open");
        }
    }
#endif
}

/* The timed call (write) or the read-back. */
static void b_io(bench *b, int write)
{
    int n = (int)b->ps.total;
    if (!strcmp(b->api, "mpiio")) {
        MPI_Status st;
        int rc = write ? MPI_File_write_all(b->fh, b->buf, n, MPI_FLOAT, &st)
                       : MPI_File_read_all(b->fh, b->buf, n, MPI_FLOAT, &st);
        if (rc != MPI_SUCCESS)
            fail_api(write ? "MPI_File_write_all" : "MPI_File_read_all");
    }
#ifdef COLLIO_BENCH_HDF5
    if (!strcmp(b->api, "hdf5")) {
        herr_t rc =
            write
                ? H5Dwrite(b->d, H5T_NATIVE_FLOAT, b->mspace, b->fspace, b->dxpl, b->buf)
                : H5Dread(b->d, H5T_NATIVE_FLOAT, b->mspace, b->fspace, b->dxpl, b->buf);
        if (rc < 0)
            fail_api(write ? "H5Dwrite" : "H5Dread");
    }
#endif
#ifdef COLLIO_BENCH_PNETCDF
    if (!strcmp(b->api, "pnetcdf")) {
        int rc = write ? ncmpi_put_varn_all(b->ncid, b->varid, (int)b->ps.n, b->starts,
                                            b->counts, b->buf, n, MPI_FLOAT)
                       : ncmpi_get_varn_all(b->ncid, b->varid, (int)b->ps.n, b->starts,
                                            b->counts, b->buf, n, MPI_FLOAT);
        if (rc != NC_NOERR) {
            fprintf(stderr, "PnetCDF: %s\n", ncmpi_strerror(rc));
            fail_api(write ? "ncmpi_put_varn_all" : "ncmpi_get_varn_all");
        }
    }
#endif
}

static void b_close(bench *b)
{
    if (!strcmp(b->api, "mpiio"))
        MPI_File_close(&b->fh);
#ifdef COLLIO_BENCH_HDF5
    if (!strcmp(b->api, "hdf5")) {
        H5Dclose(b->d);
        if (H5Fclose(b->f) < 0)
            fail_api("H5Fclose");
    }
#endif
#ifdef COLLIO_BENCH_PNETCDF
    if (!strcmp(b->api, "pnetcdf") && ncmpi_close(b->ncid) != NC_NOERR)
        fail_api("ncmpi_close");
#endif
}

/* Before the file exists: the layout in the API's terms. */
static void b_setup(bench *b)
{
    if (!strcmp(b->api, "mpiio")) {
        if (b->irregular) {
            int *lens = (int *)mpiio_xmalloc((size_t)b->ps.n * sizeof(int));
            int *displs = (int *)mpiio_xmalloc((size_t)b->ps.n * sizeof(int));
            for (int64_t i = 0; i < b->ps.n; i++) {
                lens[i] = (int)b->ps.p[i].len;
                displs[i] = (int)b->ps.p[i].off;
            }
            MPI_Type_indexed((int)b->ps.n, lens, displs, MPI_FLOAT, &b->ft);
            free(lens);
            free(displs);
        } else {
            int g = (int)b->nx, dist = MPI_DISTRIBUTE_CYCLIC, darg = (int)b->bx, p = b->P;
            MPI_Type_create_darray(b->P, b->rank, 1, &g, &dist, &darg, &p, MPI_ORDER_C,
                                   MPI_FLOAT, &b->ft);
        }
        MPI_Type_commit(&b->ft);
    }
#ifdef COLLIO_BENCH_HDF5
    if (!strcmp(b->api, "hdf5")) {
        hsize_t nx = (hsize_t)b->nx, n = (hsize_t)(b->ps.total ? b->ps.total : 1);
        b->fspace = H5Screate_simple(1, &nx, NULL);
        b->mspace = H5Screate_simple(1, &n, NULL);
        H5Sselect_none(b->fspace);
        if (!b->ps.total)
            H5Sselect_none(b->mspace);
        if (b->irregular) {
            for (int64_t i = 0; i < b->ps.n; i++) {
                hsize_t s = (hsize_t)b->ps.p[i].off, c = (hsize_t)b->ps.p[i].len;
                H5Sselect_hyperslab(b->fspace, H5S_SELECT_OR, &s, NULL, &c, NULL);
            }
        } else if (b->ps.n) {
            hsize_t nfull = 0, tail = 0, start = (hsize_t)b->ps.p[0].off;
            hsize_t stride = (hsize_t)(b->bx * b->P), block = (hsize_t)b->bx, one = 1;
            for (int64_t i = 0; i < b->ps.n; i++) {
                if (b->ps.p[i].len == b->bx)
                    nfull++;
                else
                    tail = (hsize_t)b->ps.p[i].len;
            }
            if (nfull)
                H5Sselect_hyperslab(b->fspace, H5S_SELECT_OR, &start, &stride, &nfull,
                                    &block);
            if (tail) {
                hsize_t ts = (hsize_t)b->ps.p[b->ps.n - 1].off;
                H5Sselect_hyperslab(b->fspace, H5S_SELECT_OR, &ts, NULL, &one, &tail);
            }
        }
        b->dxpl = H5Pcreate(H5P_DATASET_XFER);
        H5Pset_dxpl_mpio(b->dxpl, H5FD_MPIO_COLLECTIVE);
    }
#endif
#ifdef COLLIO_BENCH_PNETCDF
    if (!strcmp(b->api, "pnetcdf")) {
        size_t n = (size_t)(b->ps.n ? b->ps.n : 1);
        b->starts = (MPI_Offset **)mpiio_xmalloc(n * sizeof(MPI_Offset *));
        b->counts = (MPI_Offset **)mpiio_xmalloc(n * sizeof(MPI_Offset *));
        b->sc = (MPI_Offset *)mpiio_xmalloc(2 * n * sizeof(MPI_Offset));
        for (int64_t i = 0; i < b->ps.n; i++) {
            b->sc[2 * i] = b->ps.p[i].off;
            b->sc[2 * i + 1] = b->ps.p[i].len;
            b->starts[i] = &b->sc[2 * i];
            b->counts[i] = &b->sc[2 * i + 1];
        }
    }
#endif
}

static void b_teardown(bench *b)
{
    if (!strcmp(b->api, "mpiio"))
        MPI_Type_free(&b->ft);
#ifdef COLLIO_BENCH_HDF5
    if (!strcmp(b->api, "hdf5")) {
        H5Sclose(b->fspace);
        H5Sclose(b->mspace);
        H5Pclose(b->dxpl);
    }
#endif
#ifdef COLLIO_BENCH_PNETCDF
    if (!strcmp(b->api, "pnetcdf")) {
        free(b->starts);
        free(b->counts);
        free(b->sc);
    }
#endif
}

/* Values of rep `rep` in the pieces' order. */
static void fill(bench *b, int rep)
{
    int64_t k = 0;
    for (int64_t i = 0; i < b->ps.n; i++)
        for (int64_t j = 0; j < b->ps.p[i].len; j++)
            b->buf[k++] = mpiio_value(rep, b->ps.p[i].off + j);
}

static int api_available(const char *api)
{
    if (!strcmp(api, "mpiio"))
        return 1;
#ifdef COLLIO_BENCH_HDF5
    if (!strcmp(api, "hdf5"))
        return 1;
#endif
#ifdef COLLIO_BENCH_PNETCDF
    if (!strcmp(api, "pnetcdf"))
        return 1;
#endif
    return 0;
}

/* One (api, bx): reps timed writes, the read-back. Returns the elements
 * that did not verify on this rank. */
static int64_t run_case(bench *b, int reps, int reopen, int verify, FILE *csv)
{
    b->ps = b->irregular ? mpiio_irregular(b->nx, b->P, b->rank, b->seed)
                         : mpiio_block_cyclic(b->nx, b->bx, b->P, b->rank);
    if (strcmp(b->api, "pnetcdf")) /* views and hyperslabs go in file order */
        mpiio_pieces_sort(&b->ps);
    b->buf = (float *)mpiio_xmalloc((size_t)b->ps.total * sizeof(float));
    b_setup(b);
    double *w = (double *)mpiio_xmalloc((size_t)reps * sizeof(double));
    double *oc = (double *)mpiio_xmalloc((size_t)reps * sizeof(double));
    double t_open = 0, t;

    if (b->rank == 0)
        unlink(b->path);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!reopen) {
        t = MPI_Wtime();
        b_open(b, 1);
        t_open = MPI_Wtime() - t;
    }
    for (int r = 0; r < reps; r++) {
        fill(b, r);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (reopen)
            b_open(b, 1);
        else if (!strcmp(b->api, "mpiio"))
            MPI_File_seek(b->fh, 0, MPI_SEEK_SET);
        MPI_Barrier(MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        b_io(b, 1);
        double t2 = MPI_Wtime();
        if (reopen)
            b_close(b);
        double t3 = MPI_Wtime();
        w[r] = t2 - t1;
        oc[r] = reopen ? t3 - t0 : (t2 - t1) + (r == 0 ? t_open : 0);
    }
    if (!reopen) {
        t = MPI_Wtime();
        b_close(b);
        oc[reps - 1] += MPI_Wtime() - t;
    }

    /* read back the last rep, own part */
    int64_t bad = 0;
    if (verify) {
        memset(b->buf, 0, (size_t)b->ps.total * sizeof(float));
        b_open(b, 0);
        b_io(b, 0);
        b_close(b);
        float *want = mpiio_pieces_expected(&b->ps, reps - 1);
        bad = mpiio_compare(b->api, b->rank, b->buf, want, b->ps.total);
        free(want);
    }

    char api[64];
    snprintf(api, sizeof api, "%s%s", b->api, b->irregular ? "-irregular" : "");
    for (int r = 0; r < reps; r++) {
        double ws = maxed(w[r]), ocs = maxed(oc[r]);
        if (b->rank != 0)
            continue;
        char line[256];
        snprintf(line, sizeof line, "%s,%lld,%d,%d,%lld,%.6f,%.6f\n", api,
                 (long long)(b->irregular ? 0 : b->bx), r, b->P, (long long)(b->nx * 4),
                 ws, ocs);
        fputs(line, stdout);
        if (csv)
            fputs(line, csv);
    }
    fflush(stdout);
    b_teardown(b);
    free(w);
    free(oc);
    free(b->buf);
    mpiio_pieces_free(&b->ps);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);

    const char *dir = ".", *csvpath = NULL, *v;
    char apis_arg[256] = "mpiio";
    int64_t nx = 4194304, reps = 3, seed = 1;
    int64_t bxs[MAX_LIST] = {1, 16, 256, 4096, 65536};
    int nbx = 5, reopen = 0, irregular = 0, keep = 0, verify = 1;
    for (int i = 1; i < argc; i++) {
        if ((v = mpiio_opt(&i, argc, argv, "--nx")))
            nx = mpiio_parse_i64("--nx", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--bx")))
            nbx = mpiio_parse_list("--bx", v, bxs, MAX_LIST);
        else if ((v = mpiio_opt(&i, argc, argv, "--reps")))
            reps = mpiio_parse_i64("--reps", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--seed")))
            seed = mpiio_parse_i64("--seed", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--api")))
            snprintf(apis_arg, sizeof apis_arg, "%s", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--dir")))
            dir = v;
        else if ((v = mpiio_opt(&i, argc, argv, "--csv")))
            csvpath = v;
        else if (!strcmp(argv[i], "--reopen"))
            reopen = 1;
        else if (!strcmp(argv[i], "--irregular"))
            irregular = 1;
        else if (!strcmp(argv[i], "--keep"))
            keep = 1;
        else if (!strcmp(argv[i], "--no-verify"))
            verify = 0;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            if (rank == 0)
                fputs(usage, stdout);
            MPI_Finalize();
            return 0;
        } else
            mpiio_usage_exit(rank, usage, argv[i]);
    }
    if (nx < 1 || nx * 4 > 0x7fffffff || reps < 1 || nbx < 1)
        mpiio_usage_exit(rank, usage, NULL);
    for (int k = 0; k < nbx; k++)
        if (bxs[k] < 1)
            mpiio_usage_exit(rank, usage, NULL);
    if (irregular)
        nbx = 1; /* bx does not apply */

    const char *apis[8];
    int napi = 0;
    for (char *tok = strtok(apis_arg, ","); tok && napi < 8; tok = strtok(NULL, ",")) {
        if (strcmp(tok, "mpiio") && strcmp(tok, "hdf5") && strcmp(tok, "pnetcdf"))
            mpiio_usage_exit(rank, usage, tok);
        if (!api_available(tok)) {
            if (rank == 0)
                fprintf(stderr,
                        "collio-mpiio-bench: --api %s: not built in (no parallel %s for "
                        "this MPI when it was configured)\n",
                        tok, tok);
            MPI_Finalize();
            return 2;
        }
        apis[napi++] = tok;
    }

    FILE *csv = NULL;
    if (rank == 0 && csvpath) {
        struct stat sb;
        int fresh = stat(csvpath, &sb) != 0 || sb.st_size == 0;
        csv = fopen(csvpath, "a");
        if (!csv)
            perror(csvpath);
        else if (fresh)
            fputs("api,bx,rep,nprocs,bytes,seconds,open_close_seconds\n", csv);
    }
    if (rank == 0) {
        puts("api,bx,rep,nprocs,bytes,seconds,open_close_seconds");
        fflush(stdout);
    }

    long long bad_cases = 0;
    for (int a = 0; a < napi; a++) {
        for (int k = 0; k < nbx; k++) {
            bench b;
            memset(&b, 0, sizeof b);
            b.api = apis[a];
            b.nx = nx;
            b.bx = bxs[k];
            b.irregular = irregular;
            b.seed = (uint64_t)seed;
            b.P = P;
            b.rank = rank;
            snprintf(b.path, sizeof b.path, "%s/collio-mpiio-bench-%s.%s", dir, b.api,
                     !strcmp(b.api, "mpiio")  ? "dat"
                     : !strcmp(b.api, "hdf5") ? "h5"
                                              : "nc");
            long long bad =
                mpiio_sum(run_case(&b, (int)reps, reopen, verify, csv), MPI_COMM_WORLD);
            if (bad) {
                bad_cases++;
                if (rank == 0)
                    fprintf(
                        stderr,
                        "\n*** collio-mpiio-bench: VERIFICATION FAILED: api %s bx %lld: "
                        "%lld elements read back wrong ***\n\n",
                        b.api, (long long)b.bx, bad);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0 && !keep)
                unlink(b.path);
        }
    }
    if (csv)
        fclose(csv);
    if (rank == 0 && bad_cases)
        printf("# VERIFICATION FAILED in %lld case(s)\n", bad_cases);
    MPI_Finalize();
    return bad_cases ? 1 : 0;
}
