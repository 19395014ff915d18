/*
 * io_pnetcdf.c -- PnetCDF (classic netCDF formats) as an application
 * writes it: blocking collective vara and varn puts, nonblocking iput_vara
 * with wait_all, record variables (which interleave in the file), read
 * back with get_vara_all / get_varn_all / iget_vara and compared with the
 * expected values; then every rank reads every variable whole and checks
 * every element.
 *
 * usage: io_pnetcdf FILE [--case CASE] [--nx N] [--bx B] [--dims2 A,B]
 *                        [--nrec T] [--irregular] [--sorted] [--seed S]
 *                        [--format 1|2|5]
 *   CASE: vara   "block" (nx, a contiguous block per rank) and "sub2d"
 *                (dims2, a block of a process grid) with ncmpi_put_vara_all
 *         varn   "block_cyclic" (nx, block bx): one ncmpi_put_varn_all of
 *                a start/count per block; with --irregular "irregular":
 *                the "climate" pieces (mpiio_common.h), thousands of
 *                1..8-element requests per rank in shuffled order (file
 *                order with --sorted)
 *         iput   "iput_cyclic" (nx, block bx, one ncmpi_iput_vara per block)
 *                and "iput_sub2d" (one iput_vara), one ncmpi_wait_all
 *         rec    record variables r1(time, nx) and r2(time, nx/3+1): per
 *                record one iput_vara of each (a block per rank) and a
 *                wait_all; T records (default 3)
 *         multi  all of the above in one file (default)
 *   --format: 1 classic, 2 64-bit offset (default), 5 64-bit data (CDF-5)
 * Exits 1 when anything read differs from the expected values.
 */
#include "mpiio_common.h"

#include <pnetcdf.h>
#include <unistd.h>

static const char *usage =
    "usage: io_pnetcdf FILE [--case vara|varn|iput|rec|multi] [--nx N] [--bx B]\n"
    "                  [--dims2 A,B] [--nrec T] [--irregular] [--sorted] [--seed S]\n"
    "                  [--format 1|2|5]\n";

#define NC(x)                                                                            \
    do {                                                                                 \
        int err_ = (x);                                                                  \
        if (err_ != NC_NOERR) {                                                          \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                   \
                    ncmpi_strerror(err_));                                               \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                \
        }                                                                                \
    } while (0)

/* A variable of this test and this rank's part of it. */
typedef struct {
    const char *name;
    int var; /* value family (mpiio_value) */
    int nd;
    int64_t dims[2];
    int kind; /* 0 vara box, 1 varn pieces, 2 iput pieces, 3 iput box */
    mpiio_box box;
    mpiio_pieces ps;
    MPI_Offset **starts, **counts; /* varn: one pair per piece */
    MPI_Offset *sc;                /* their storage */
    float *want;
    int64_t n;
    int id;
} pvar;

static void set_box(pvar *v, int nd, const int64_t *dims, int P, int r)
{
    v->nd = nd;
    for (int d = 0; d < nd; d++)
        v->dims[d] = dims[d];
    v->box = mpiio_grid_box(nd, dims, P, r);
    v->n = mpiio_box_elems(&v->box);
    v->want = mpiio_box_expected(&v->box, v->var);
}

static void set_pieces(pvar *v, mpiio_pieces ps, int64_t nx)
{
    v->nd = 1;
    v->dims[0] = nx;
    v->ps = ps;
    v->n = ps.total;
    v->want = mpiio_pieces_expected(&ps, v->var);
    v->starts = (MPI_Offset **)mpiio_xmalloc((size_t)ps.n * sizeof(MPI_Offset *));
    v->counts = (MPI_Offset **)mpiio_xmalloc((size_t)ps.n * sizeof(MPI_Offset *));
    MPI_Offset *sc = (MPI_Offset *)mpiio_xmalloc((size_t)ps.n * 2 * sizeof(MPI_Offset));
    v->sc = sc;
    for (int64_t i = 0; i < ps.n; i++) {
        sc[2 * i] = ps.p[i].off;
        sc[2 * i + 1] = ps.p[i].len;
        v->starts[i] = &sc[2 * i];
        v->counts[i] = &sc[2 * i + 1];
    }
}

static void box_sc(const mpiio_box *b, MPI_Offset *start, MPI_Offset *count)
{
    for (int d = 0; d < b->nd; d++) {
        start[d] = b->start[d];
        count[d] = b->count[d];
    }
}

/* Posts (write) or performs this variable's part of the I/O. Nonblocking
 * kinds append their requests to req[*nreq]. */
static void io_var(int ncid, pvar *v, int write, float *buf, int *req, int *nreq)
{
    MPI_Offset start[2], count[2];
    switch (v->kind) {
    case 0:
        box_sc(&v->box, start, count);
        if (write)
            NC(ncmpi_put_vara_all(ncid, v->id, start, count, buf, v->n, MPI_FLOAT));
        else
            NC(ncmpi_get_vara_all(ncid, v->id, start, count, buf, v->n, MPI_FLOAT));
        break;
    case 1:
        if (write)
            NC(ncmpi_put_varn_all(ncid, v->id, (int)v->ps.n, v->starts, v->counts, buf,
                                  v->n, MPI_FLOAT));
        else
            NC(ncmpi_get_varn_all(ncid, v->id, (int)v->ps.n, v->starts, v->counts, buf,
                                  v->n, MPI_FLOAT));
        break;
    case 2: {
        int64_t k = 0;
        for (int64_t i = 0; i < v->ps.n; i++) {
            MPI_Offset len = v->ps.p[i].len;
            if (write)
                NC(ncmpi_iput_vara(ncid, v->id, v->starts[i], v->counts[i], buf + k, len,
                                   MPI_FLOAT, &req[(*nreq)++]));
            else
                NC(ncmpi_iget_vara(ncid, v->id, v->starts[i], v->counts[i], buf + k, len,
                                   MPI_FLOAT, &req[(*nreq)++]));
            k += len;
        }
        break;
    }
    case 3:
        box_sc(&v->box, start, count);
        if (write)
            NC(ncmpi_iput_vara(ncid, v->id, start, count, buf, v->n, MPI_FLOAT,
                               &req[(*nreq)++]));
        else
            NC(ncmpi_iget_vara(ncid, v->id, start, count, buf, v->n, MPI_FLOAT,
                               &req[(*nreq)++]));
        break;
    }
}

static void wait_all(int ncid, int *req, int *nreq)
{
    int *st = (int *)mpiio_xmalloc((size_t)(*nreq ? *nreq : 1) * sizeof(int));
    NC(ncmpi_wait_all(ncid, *nreq, req, st));
    for (int i = 0; i < *nreq; i++)
        NC(st[i]);
    free(st);
    *nreq = 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    mpiio_report_interposer("io_pnetcdf", rank);

    const char *path = NULL, *cs = "multi", *v;
    int64_t nx = 10007, bx = 7, seed = 1, nrec = 3, format = 2;
    int64_t dims2[2] = {37, 53};
    int irregular = 0, sorted = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = mpiio_opt(&i, argc, argv, "--nx")))
            nx = mpiio_parse_i64("--nx", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--bx")))
            bx = mpiio_parse_i64("--bx", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--seed")))
            seed = mpiio_parse_i64("--seed", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--nrec")))
            nrec = mpiio_parse_i64("--nrec", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--format")))
            format = mpiio_parse_i64("--format", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--case")))
            cs = v;
        else if ((v = mpiio_opt(&i, argc, argv, "--dims2"))) {
            if (mpiio_parse_list("--dims2", v, dims2, 2) != 2)
                mpiio_usage_exit(rank, usage, argv[i]);
        } else if (strcmp(argv[i], "--irregular") == 0)
            irregular = 1;
        else if (strcmp(argv[i], "--sorted") == 0)
            sorted = 1;
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else
            mpiio_usage_exit(rank, usage, argv[i]);
    }
    int multi = strcmp(cs, "multi") == 0;
    int c_vara = multi || !strcmp(cs, "vara"), c_varn = multi || !strcmp(cs, "varn");
    int c_iput = multi || !strcmp(cs, "iput"), c_rec = multi || !strcmp(cs, "rec");
    if (!path || nx < 1 || bx < 1 || (format != 1 && format != 2 && format != 5)
        || !(c_vara || c_varn || c_iput || c_rec))
        mpiio_usage_exit(rank, usage, NULL);
    if (irregular)
        c_varn = 1;

    pvar vs[8];
    int nv = 0;
    if (c_vara) {
        vs[nv] = (pvar){.name = "block", .var = 10, .kind = 0};
        set_box(&vs[nv++], 1, &nx, P, rank);
        vs[nv] = (pvar){.name = "sub2d", .var = 11, .kind = 0};
        set_box(&vs[nv++], 2, dims2, P, rank);
    }
    if (c_varn) {
        if (irregular) {
            mpiio_pieces ps = mpiio_irregular(nx, P, rank, (uint64_t)seed);
            if (sorted)
                mpiio_pieces_sort(&ps);
            vs[nv] = (pvar){.name = "irregular", .var = 13, .kind = 1};
            set_pieces(&vs[nv++], ps, nx);
        } else {
            vs[nv] = (pvar){.name = "block_cyclic", .var = 12, .kind = 1};
            set_pieces(&vs[nv++], mpiio_block_cyclic(nx, bx, P, rank), nx);
        }
    }
    if (c_iput) {
        vs[nv] = (pvar){.name = "iput_cyclic", .var = 14, .kind = 2};
        set_pieces(&vs[nv++], mpiio_block_cyclic(nx, bx, P, rank), nx);
        vs[nv] = (pvar){.name = "iput_sub2d", .var = 15, .kind = 3};
        set_box(&vs[nv++], 2, dims2, P, rank);
    }
    /* record variables: a block of each record per rank */
    int64_t rlen[2] = {nx, nx / 3 + 1};
    mpiio_box rbox[2];
    for (int k = 0; k < 2; k++)
        rbox[k] = mpiio_grid_box(1, &rlen[k], P, rank);

    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);

    int cmode = NC_CLOBBER | (format == 2 ? NC_64BIT_OFFSET : 0)
                | (format == 5 ? NC_64BIT_DATA : 0);
    int ncid, rid[2] = {-1, -1};
    NC(ncmpi_create(MPI_COMM_WORLD, path, cmode, MPI_INFO_NULL, &ncid));
    NC(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 18, "collio mpiio tests"));
    int d_nx, d_y, d_x, d_t = -1, d_r2 = -1;
    NC(ncmpi_def_dim(ncid, "n", nx, &d_nx));
    NC(ncmpi_def_dim(ncid, "y", dims2[0], &d_y));
    NC(ncmpi_def_dim(ncid, "x", dims2[1], &d_x));
    for (int k = 0; k < nv; k++) {
        int dd[2] = {vs[k].nd == 1 ? d_nx : d_y, d_x};
        NC(ncmpi_def_var(ncid, vs[k].name, NC_FLOAT, vs[k].nd, dd, &vs[k].id));
    }
    if (c_rec) {
        NC(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d_t));
        NC(ncmpi_def_dim(ncid, "m", rlen[1], &d_r2));
        int dd1[2] = {d_t, d_nx}, dd2[2] = {d_t, d_r2};
        NC(ncmpi_def_var(ncid, "r1", NC_FLOAT, 2, dd1, &rid[0]));
        NC(ncmpi_def_var(ncid, "r2", NC_FLOAT, 2, dd2, &rid[1]));
    }
    NC(ncmpi_enddef(ncid));

    int64_t maxreq = 4;
    for (int k = 0; k < nv; k++)
        maxreq += vs[k].kind == 2 ? vs[k].ps.n : 1;
    int *req = (int *)mpiio_xmalloc((size_t)maxreq * sizeof(int)), nreq = 0;
    /* blocking ones, then the nonblocking ones with one wait_all */
    for (int k = 0; k < nv; k++)
        if (vs[k].kind < 2)
            io_var(ncid, &vs[k], 1, vs[k].want, req, &nreq);
    for (int k = 0; k < nv; k++)
        if (vs[k].kind >= 2)
            io_var(ncid, &vs[k], 1, vs[k].want, req, &nreq);
    wait_all(ncid, req, &nreq);
    float *rbuf[2];
    for (int k = 0; k < 2; k++)
        rbuf[k] = (float *)mpiio_xmalloc((size_t)(rlen[k] * (nrec ? nrec : 1)) * 4);
    for (int64_t t = 0; c_rec && t < nrec; t++) {
        for (int k = 0; k < 2; k++) {
            MPI_Offset start[2] = {t, rbox[k].start[0]}, count[2] = {1, rbox[k].count[0]};
            float *b = rbuf[k] + t * rlen[k];
            for (int64_t j = 0; j < rbox[k].count[0]; j++)
                b[j] = mpiio_value(20 + 20 * k + (int)t, rbox[k].start[0] + j);
            NC(ncmpi_iput_vara(ncid, rid[k], start, count, b, count[1], MPI_FLOAT,
                               &req[nreq++]));
        }
        wait_all(ncid, req, &nreq);
    }
    NC(ncmpi_close(ncid));

    /* read back: each variable's own part, then whole */
    int64_t bad = 0;
    char what[96];
    NC(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
    float **got = (float **)mpiio_xmalloc((size_t)nv * sizeof(float *));
    for (int k = 0; k < nv; k++) {
        NC(ncmpi_inq_varid(ncid, vs[k].name, &vs[k].id));
        got[k] = (float *)mpiio_xmalloc((size_t)vs[k].n * sizeof(float));
        memset(got[k], 0, (size_t)vs[k].n * sizeof(float));
        io_var(ncid, &vs[k], 0, got[k], req, &nreq);
    }
    wait_all(ncid, req, &nreq);
    for (int k = 0; k < nv; k++) {
        snprintf(what, sizeof what, "%s: own part read back", vs[k].name);
        bad += mpiio_compare(what, rank, got[k], vs[k].want, vs[k].n);
        free(got[k]);
        int64_t all = vs[k].nd == 1 ? vs[k].dims[0] : vs[k].dims[0] * vs[k].dims[1];
        float *whole = (float *)mpiio_xmalloc((size_t)all * sizeof(float));
        NC(ncmpi_get_var_float_all(ncid, vs[k].id, whole));
        snprintf(what, sizeof what, "%s: whole variable read back", vs[k].name);
        bad += mpiio_check_full(what, rank, whole, vs[k].var, all);
        free(whole);
    }
    if (c_rec) {
        MPI_Offset nrec_file = 0;
        NC(ncmpi_inq_dimlen(ncid, d_t, &nrec_file));
        if (nrec_file != nrec) {
            fprintf(stderr, "rank %d: %lld records in the file, wrote %lld\n", rank,
                    (long long)nrec_file, (long long)nrec);
            bad++;
        }
        for (int k = 0; k < 2; k++) {
            NC(ncmpi_inq_varid(ncid, k ? "r2" : "r1", &rid[k]));
            float *mine = (float *)mpiio_xmalloc((size_t)rlen[k] * 4);
            for (int64_t t = 0; t < nrec; t++) {
                MPI_Offset start[2] = {t, rbox[k].start[0]},
                           count[2] = {1, rbox[k].count[0]};
                NC(ncmpi_get_vara_all(ncid, rid[k], start, count, mine, count[1],
                                      MPI_FLOAT));
                snprintf(what, sizeof what, "r%d record %lld: own part read back", k + 1,
                         (long long)t);
                bad += mpiio_compare(what, rank, mine, rbuf[k] + t * rlen[k], count[1]);
                MPI_Offset s0[2] = {t, 0}, c0[2] = {1, rlen[k]};
                NC(ncmpi_get_vara_all(ncid, rid[k], s0, c0, mine, rlen[k], MPI_FLOAT));
                snprintf(what, sizeof what, "r%d record %lld: whole record read back",
                         k + 1, (long long)t);
                bad += mpiio_check_full(what, rank, mine, 20 + 20 * k + (int)t, rlen[k]);
            }
            free(mine);
        }
    }
    NC(ncmpi_close(ncid));

    long long total = mpiio_sum(bad, MPI_COMM_WORLD);
    if (rank == 0)
        printf("io_pnetcdf: case=%s nx=%lld bx=%lld format=%lld%s%s P=%d: %s\n", cs,
               (long long)nx, (long long)bx, (long long)format,
               irregular ? " irregular" : "", sorted ? " sorted" : "", P,
               total ? "MISMATCH" : "ok");
    for (int k = 0; k < nv; k++) {
        free(vs[k].want);
        if (vs[k].starts) {
            free(vs[k].sc);
            free(vs[k].starts);
            free(vs[k].counts);
            mpiio_pieces_free(&vs[k].ps);
        }
    }
    free(got);
    free(req);
    free(rbuf[0]);
    free(rbuf[1]);
    MPI_Finalize();
    return total ? 1 : 0;
}
