/*
 * io_netcdf4.c -- parallel netCDF-4 (nc_create_par with NC_NETCDF4 |
 * NC_MPIIO, nc_var_par_access NC_COLLECTIVE; HDF5 underneath) as an
 * application writes it: float variables written with nc_put_vara_float
 * (and nc_put_vars_float), read back with the same calls and compared with
 * the expected values; then every rank reads every variable whole and
 * checks every element.
 *
 * usage: io_netcdf4 FILE [--case CASE] [--nx N] [--bx B] [--dims2 A,B]
 *                        [--nrec T] [--irregular] [--seed S] [--chunked]
 *                        [--chunk C]
 *   CASE: vara   "block" (nx, a contiguous block per rank) and "sub2d"
 *                (dims2, a block of a process grid): one put_vara each
 *         bc1d   "block_cyclic" (nx, block bx): with bx = 1 one
 *                nc_put_vars_float (stride P), else one nc_put_vara_float
 *                per block (collective: every rank makes as many calls as
 *                the rank with the most blocks, the extra ones empty); with
 *                --irregular "irregular": the "climate" pieces
 *                (mpiio_common.h), one put_vara per piece -- keep nx small,
 *                each piece is a collective HDF5 write
 *         rec    "rec" (time, nx) with an unlimited dimension: T records
 *                (default 2), a block of each per rank
 *         multi  all of the above in one file (default)
 *   --chunked: chunked variables (chunk C per dimension, default a third
 *              of each dimension), else contiguous (records: always
 *              chunked, as netCDF-4 requires).
 * Exits 1 when anything read differs from the expected values.
 */
#include "mpiio_common.h"

#include <netcdf.h>
#include <netcdf_par.h>
#include <unistd.h>

static const char *usage =
    "usage: io_netcdf4 FILE [--case vara|bc1d|rec|multi] [--nx N] [--bx B]\n"
    "                  [--dims2 A,B] [--nrec T] [--irregular] [--seed S] [--chunked]\n"
    "                  [--chunk C]\n";

#define NCE(x)                                                                           \
    do {                                                                                 \
        int err_ = (x);                                                                  \
        if (err_ != NC_NOERR) {                                                          \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                   \
                    nc_strerror(err_));                                                  \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                \
        }                                                                                \
    } while (0)

typedef struct {
    const char *name;
    int var; /* value family (mpiio_value) */
    int nd;
    int64_t dims[2];
    int kind; /* 0 box (vara), 1 pieces (vara per piece), 2 stride (vars) */
    mpiio_box box;
    mpiio_pieces ps;
    int64_t calls; /* kind 1: calls every rank makes */
    float *want;
    int64_t n;
    int id;
} nvar;

/* This variable's I/O, collective: the same number of calls on every rank. */
static void io_var(int ncid, const nvar *v, int write, float *buf, int P, int r)
{
    size_t start[2] = {0, 0}, count[2] = {0, 0};
    if (v->kind == 0) {
        for (int d = 0; d < v->nd; d++) {
            start[d] = (size_t)v->box.start[d];
            count[d] = (size_t)v->box.count[d];
        }
        if (!v->n) /* an empty block may start at the end: start at 0 */
            start[0] = start[1] = 0;
        NCE(write ? nc_put_vara_float(ncid, v->id, start, count, buf)
                  : nc_get_vara_float(ncid, v->id, start, count, buf));
    } else if (v->kind == 2) {
        ptrdiff_t stride = P;
        start[0] = v->n ? (size_t)r : 0;
        count[0] = (size_t)v->n;
        NCE(write ? nc_put_vars_float(ncid, v->id, start, count, &stride, buf)
                  : nc_get_vars_float(ncid, v->id, start, count, &stride, buf));
    } else {
        int64_t k = 0;
        for (int64_t i = 0; i < v->calls; i++) {
            start[0] = i < v->ps.n ? (size_t)v->ps.p[i].off : 0;
            count[0] = i < v->ps.n ? (size_t)v->ps.p[i].len : 0;
            NCE(write ? nc_put_vara_float(ncid, v->id, start, count, buf + k)
                      : nc_get_vara_float(ncid, v->id, start, count, buf + k));
            k += (int64_t)count[0];
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    mpiio_report_interposer("io_netcdf4", rank);

    const char *path = NULL, *cs = "multi", *v;
    int64_t nx = 1009, bx = 7, seed = 1, nrec = 2, chunk = 0;
    int64_t dims2[2] = {37, 53};
    int irregular = 0, chunked = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = mpiio_opt(&i, argc, argv, "--nx")))
            nx = mpiio_parse_i64("--nx", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--bx")))
            bx = mpiio_parse_i64("--bx", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--seed")))
            seed = mpiio_parse_i64("--seed", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--nrec")))
            nrec = mpiio_parse_i64("--nrec", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--chunk")))
            chunk = mpiio_parse_i64("--chunk", v), chunked = 1;
        else if ((v = mpiio_opt(&i, argc, argv, "--case")))
            cs = v;
        else if ((v = mpiio_opt(&i, argc, argv, "--dims2"))) {
            if (mpiio_parse_list("--dims2", v, dims2, 2) != 2)
                mpiio_usage_exit(rank, usage, argv[i]);
        } else if (strcmp(argv[i], "--irregular") == 0)
            irregular = 1;
        else if (strcmp(argv[i], "--chunked") == 0)
            chunked = 1;
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else
            mpiio_usage_exit(rank, usage, argv[i]);
    }
    int multi = strcmp(cs, "multi") == 0;
    int c_vara = multi || !strcmp(cs, "vara"), c_bc = multi || !strcmp(cs, "bc1d");
    int c_rec = multi || !strcmp(cs, "rec");
    if (!path || nx < 1 || bx < 1 || !(c_vara || c_bc || c_rec))
        mpiio_usage_exit(rank, usage, NULL);
    if (irregular)
        c_bc = 1;

    nvar vs[4];
    int nv = 0;
    if (c_vara) {
        vs[nv] = (nvar){.name = "block", .var = 30, .nd = 1, .dims = {nx}, .kind = 0};
        vs[nv].box = mpiio_grid_box(1, &nx, P, rank);
        nv++;
        vs[nv] = (nvar){.name = "sub2d", .var = 31, .nd = 2, .kind = 0};
        vs[nv].dims[0] = dims2[0];
        vs[nv].dims[1] = dims2[1];
        vs[nv].box = mpiio_grid_box(2, dims2, P, rank);
        nv++;
    }
    for (int k = 0; k < nv; k++) {
        vs[k].n = mpiio_box_elems(&vs[k].box);
        vs[k].want = mpiio_box_expected(&vs[k].box, vs[k].var);
    }
    if (c_bc) {
        nvar *b = &vs[nv++];
        *b = (nvar){.name = irregular ? "irregular" : "block_cyclic",
                    .var = 32,
                    .nd = 1,
                    .dims = {nx}};
        b->ps = irregular ? mpiio_irregular(nx, P, rank, (uint64_t)seed)
                          : mpiio_block_cyclic(nx, bx, P, rank);
        b->kind = !irregular && bx == 1 ? 2 : 1;
        b->n = b->ps.total;
        b->want = mpiio_pieces_expected(&b->ps, b->var);
        long long mine = (long long)b->ps.n, most = 0;
        MPI_Allreduce(&mine, &most, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        b->calls = most;
    }

    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);

    int ncid, d_n, d_y, d_x, d_t, rid = -1;
    NCE(nc_create_par(path, NC_NETCDF4 | NC_MPIIO, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    NCE(nc_put_att_text(ncid, NC_GLOBAL, "title", 18, "collio mpiio tests"));
    NCE(nc_def_dim(ncid, "n", (size_t)nx, &d_n));
    NCE(nc_def_dim(ncid, "y", (size_t)dims2[0], &d_y));
    NCE(nc_def_dim(ncid, "x", (size_t)dims2[1], &d_x));
    for (int k = 0; k < nv; k++) {
        int dd[2] = {vs[k].nd == 1 ? d_n : d_y, d_x};
        NCE(nc_def_var(ncid, vs[k].name, NC_FLOAT, vs[k].nd, dd, &vs[k].id));
        if (chunked) {
            size_t cd[2];
            for (int j = 0; j < vs[k].nd; j++) {
                int64_t c = chunk ? chunk : (vs[k].dims[j] + 2) / 3;
                cd[j] = (size_t)(c > vs[k].dims[j] ? vs[k].dims[j] : c);
            }
            NCE(nc_def_var_chunking(ncid, vs[k].id, NC_CHUNKED, cd));
        } else {
            NCE(nc_def_var_chunking(ncid, vs[k].id, NC_CONTIGUOUS, NULL));
        }
        NCE(nc_var_par_access(ncid, vs[k].id, NC_COLLECTIVE));
    }
    if (c_rec) {
        NCE(nc_def_dim(ncid, "time", NC_UNLIMITED, &d_t));
        int dd[2] = {d_t, d_n};
        NCE(nc_def_var(ncid, "rec", NC_FLOAT, 2, dd, &rid));
        size_t cd[2] = {1, (size_t)(chunk && chunk < nx ? chunk : nx)};
        NCE(nc_def_var_chunking(ncid, rid, NC_CHUNKED, cd));
        NCE(nc_var_par_access(ncid, rid, NC_COLLECTIVE));
    }
    NCE(nc_enddef(ncid));
    for (int k = nv - 1; k >= 0; k--) /* not in file order */
        io_var(ncid, &vs[k], 1, vs[k].want, P, rank);
    mpiio_box rb = mpiio_grid_box(1, &nx, P, rank);
    float *rbuf = (float *)mpiio_xmalloc((size_t)nx * sizeof(float));
    for (int64_t t = 0; c_rec && t < nrec; t++) {
        size_t start[2] = {(size_t)t, rb.count[0] ? (size_t)rb.start[0] : 0},
               count[2] = {1, (size_t)rb.count[0]};
        for (int64_t j = 0; j < rb.count[0]; j++)
            rbuf[j] = mpiio_value(50 + (int)t, rb.start[0] + j);
        NCE(nc_put_vara_float(ncid, rid, start, count, rbuf));
    }
    NCE(nc_close(ncid));

    int64_t bad = 0;
    char what[96];
    NCE(nc_open_par(path, NC_NOWRITE | NC_MPIIO, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    for (int k = 0; k < nv; k++) {
        NCE(nc_inq_varid(ncid, vs[k].name, &vs[k].id));
        NCE(nc_var_par_access(ncid, vs[k].id, NC_COLLECTIVE));
        float *got = (float *)mpiio_xmalloc((size_t)vs[k].n * sizeof(float));
        memset(got, 0, (size_t)vs[k].n * sizeof(float));
        io_var(ncid, &vs[k], 0, got, P, rank);
        snprintf(what, sizeof what, "%s: own part read back", vs[k].name);
        bad += mpiio_compare(what, rank, got, vs[k].want, vs[k].n);
        free(got);
        int64_t all = vs[k].nd == 1 ? vs[k].dims[0] : vs[k].dims[0] * vs[k].dims[1];
        got = (float *)mpiio_xmalloc((size_t)all * sizeof(float));
        NCE(nc_get_var_float(ncid, vs[k].id, got));
        snprintf(what, sizeof what, "%s: whole variable read back", vs[k].name);
        bad += mpiio_check_full(what, rank, got, vs[k].var, all);
        free(got);
    }
    if (c_rec) {
        size_t len = 0;
        NCE(nc_inq_varid(ncid, "rec", &rid));
        NCE(nc_inq_dimid(ncid, "time", &d_t));
        NCE(nc_inq_dimlen(ncid, d_t, &len));
        NCE(nc_var_par_access(ncid, rid, NC_COLLECTIVE));
        if ((int64_t)len != nrec) {
            fprintf(stderr, "rank %d: %zu records in the file, wrote %lld\n", rank, len,
                    (long long)nrec);
            bad++;
        }
        for (int64_t t = 0; t < nrec; t++) {
            size_t start[2] = {(size_t)t, 0}, count[2] = {1, (size_t)nx};
            NCE(nc_get_vara_float(ncid, rid, start, count, rbuf));
            snprintf(what, sizeof what, "rec record %lld: read back", (long long)t);
            bad += mpiio_check_full(what, rank, rbuf, 50 + (int)t, nx);
        }
    }
    NCE(nc_close(ncid));

    long long total = mpiio_sum(bad, MPI_COMM_WORLD);
    if (rank == 0)
        printf("io_netcdf4: case=%s nx=%lld bx=%lld%s%s P=%d: %s\n", cs, (long long)nx,
               (long long)bx, irregular ? " irregular" : "", chunked ? " chunked" : "", P,
               total ? "MISMATCH" : "ok");
    for (int k = 0; k < nv; k++) {
        free(vs[k].want);
        mpiio_pieces_free(&vs[k].ps);
    }
    free(rbuf);
    MPI_Finalize();
    return total ? 1 : 0;
}
