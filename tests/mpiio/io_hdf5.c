/*
 * io_hdf5.c -- parallel HDF5 (H5Pset_fapl_mpio, H5Pset_dxpl_mpio
 * H5FD_MPIO_COLLECTIVE) as an application writes it: float32 datasets
 * written with hyperslab and point selections, read back collectively
 * with the same selections and compared with the expected values; then
 * every rank reads every dataset whole and checks every element.
 *
 * usage: io_hdf5 FILE [--case CASE] [--nx N] [--bx B] [--dims2 A,B]
 *                     [--dims3 A,B,C] [--chunked] [--chunk C] [--irregular]
 *                     [--seed S] [--notimes]
 *   CASE: bc1d    1-D dataset of nx, block-cyclic with block bx: one
 *                 strided hyperslab (stride P*bx, block bx) OR the partial
 *                 last block; with --irregular the "climate" pieces
 *                 (mpiio_common.h), one hyperslab OR-ed per piece
 *         sub2d   2-D dataset (dims2), a block of a process grid per rank
 *         sub3d   3-D dataset (dims3), likewise
 *         points  1-D dataset of nx, H5Sselect_elements: element g goes to
 *                 rank hash(g) % P
 *         multi   all four datasets in one file (default), created first
 *                 and written in another order, so every write has other
 *                 datasets' data (and HDF5 metadata) between its pieces
 *   --chunked: chunked datasets (chunk C per dimension, default a third
 *              of each dimension), else contiguous.
 *   --notimes: H5Pset_obj_track_times(0) (no modification times in the
 *              object headers).
 * Exits 1 when anything read differs from the expected values.
 */
#include "mpiio_common.h"

#include <hdf5.h>
#include <unistd.h>

static const char *usage =
    "usage: io_hdf5 FILE [--case bc1d|sub2d|sub3d|points|multi] [--nx N] [--bx B]\n"
    "               [--dims2 A,B] [--dims3 A,B,C] [--chunked] [--chunk C]\n"
    "               [--irregular] [--seed S] [--notimes]\n";

typedef struct {
    const char *name;
    int var; /* value family (mpiio_value) */
    int nd;
    hsize_t dims[3];
    hid_t fspace; /* this rank's selection */
    hid_t mspace;
    float *want; /* expected values, in the selection's memory order */
    int64_t n;   /* elements selected */
} dset;

#define CHECK(x)                                                                         \
    do {                                                                                 \
        if ((x) < 0) {                                                                   \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x);               \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                \
        }                                                                                \
    } while (0)

static void set_mspace(dset *d)
{
    hsize_t n = (hsize_t)(d->n ? d->n : 1);
    d->mspace = H5Screate_simple(1, &n, NULL);
    if (!d->n)
        CHECK(H5Sselect_none(d->mspace));
    if (!d->n)
        CHECK(H5Sselect_none(d->fspace));
}

/* 1-D block-cyclic (or irregular) selection. */
static void select_1d(dset *d, int64_t nx, int64_t bx, int irregular, uint64_t seed,
                      int P, int r)
{
    d->nd = 1;
    d->dims[0] = (hsize_t)nx;
    d->fspace = H5Screate_simple(1, d->dims, NULL);
    mpiio_pieces ps =
        irregular ? mpiio_irregular(nx, P, r, seed) : mpiio_block_cyclic(nx, bx, P, r);
    mpiio_pieces_sort(&ps); /* a hyperslab's memory order is the file's */
    CHECK(H5Sselect_none(d->fspace));
    if (irregular) {
        for (int64_t i = 0; i < ps.n; i++) {
            hsize_t start = (hsize_t)ps.p[i].off, count = (hsize_t)ps.p[i].len;
            CHECK(H5Sselect_hyperslab(d->fspace, H5S_SELECT_OR, &start, NULL, &count,
                                      NULL));
        }
    } else if (ps.n) {
        hsize_t nfull = 0, tail = 0;
        for (int64_t i = 0; i < ps.n; i++) {
            if (ps.p[i].len == bx)
                nfull++;
            else
                tail = (hsize_t)ps.p[i].len;
        }
        hsize_t start = (hsize_t)ps.p[0].off, stride = (hsize_t)(bx * P),
                block = (hsize_t)bx;
        if (nfull)
            CHECK(H5Sselect_hyperslab(d->fspace, H5S_SELECT_OR, &start, &stride, &nfull,
                                      &block));
        if (tail) {
            hsize_t one = 1, tstart = (hsize_t)ps.p[ps.n - 1].off;
            CHECK(H5Sselect_hyperslab(d->fspace, H5S_SELECT_OR, &tstart, NULL, &one,
                                      &tail));
        }
    }
    d->n = ps.total;
    d->want = mpiio_pieces_expected(&ps, d->var);
    mpiio_pieces_free(&ps);
    set_mspace(d);
}

/* N-d block of a process grid. */
static void select_box(dset *d, int nd, const int64_t *gsize, int P, int r)
{
    mpiio_box b = mpiio_grid_box(nd, gsize, P, r);
    hsize_t start[3], count[3];
    d->nd = nd;
    for (int k = 0; k < nd; k++) {
        d->dims[k] = (hsize_t)gsize[k];
        start[k] = (hsize_t)b.start[k];
        count[k] = (hsize_t)b.count[k];
    }
    d->fspace = H5Screate_simple(nd, d->dims, NULL);
    d->n = mpiio_box_elems(&b);
    if (d->n)
        CHECK(H5Sselect_hyperslab(d->fspace, H5S_SELECT_SET, start, NULL, count, NULL));
    d->want = mpiio_box_expected(&b, d->var);
    set_mspace(d);
}

/* Point selection: element g to rank mix(g) % P, listed in file order. */
static void select_points(dset *d, int64_t nx, int P, int r)
{
    d->nd = 1;
    d->dims[0] = (hsize_t)nx;
    d->fspace = H5Screate_simple(1, d->dims, NULL);
    hsize_t *coord = (hsize_t *)mpiio_xmalloc((size_t)nx * sizeof(hsize_t));
    d->want = (float *)mpiio_xmalloc((size_t)nx * sizeof(float));
    d->n = 0;
    for (int64_t g = 0; g < nx; g++) {
        if ((int)(mpiio_mix32((uint32_t)g + 0x51ed27U) % (uint32_t)P) == r) {
            coord[d->n] = (hsize_t)g;
            d->want[d->n++] = mpiio_value(d->var, g);
        }
    }
    if (d->n)
        CHECK(H5Sselect_elements(d->fspace, H5S_SELECT_SET, (size_t)d->n, coord));
    free(coord);
    set_mspace(d);
}

static const char *io_mode_name(H5D_mpio_actual_io_mode_t m)
{
    switch (m) {
    case H5D_MPIO_NO_COLLECTIVE:
        return "no collective";
    case H5D_MPIO_CHUNK_INDEPENDENT:
        return "chunk independent";
    case H5D_MPIO_CHUNK_COLLECTIVE:
        return "chunk collective";
    case H5D_MPIO_CHUNK_MIXED:
        return "chunk mixed";
    case H5D_MPIO_CONTIGUOUS_COLLECTIVE:
        return "contiguous collective";
    }
    return "?";
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    mpiio_report_interposer("io_hdf5", rank);

    const char *path = NULL, *cs = "multi", *v;
    int64_t nx = 10007, bx = 7, seed = 1, chunk = 0;
    int64_t dims2[2] = {37, 53}, dims3[3] = {11, 13, 17};
    int irregular = 0, chunked = 0, notimes = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = mpiio_opt(&i, argc, argv, "--nx")))
            nx = mpiio_parse_i64("--nx", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--bx")))
            bx = mpiio_parse_i64("--bx", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--seed")))
            seed = mpiio_parse_i64("--seed", v);
        else if ((v = mpiio_opt(&i, argc, argv, "--chunk")))
            chunk = mpiio_parse_i64("--chunk", v), chunked = 1;
        else if ((v = mpiio_opt(&i, argc, argv, "--case")))
            cs = v;
        else if ((v = mpiio_opt(&i, argc, argv, "--dims2"))) {
            if (mpiio_parse_list("--dims2", v, dims2, 2) != 2)
                mpiio_usage_exit(rank, usage, argv[i]);
        } else if ((v = mpiio_opt(&i, argc, argv, "--dims3"))) {
            if (mpiio_parse_list("--dims3", v, dims3, 3) != 3)
                mpiio_usage_exit(rank, usage, argv[i]);
        } else if (strcmp(argv[i], "--irregular") == 0)
            irregular = 1;
        else if (strcmp(argv[i], "--chunked") == 0)
            chunked = 1;
        else if (strcmp(argv[i], "--notimes") == 0)
            notimes = 1;
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else
            mpiio_usage_exit(rank, usage, argv[i]);
    }
    int multi = strcmp(cs, "multi") == 0;
    int want_bc = multi || !strcmp(cs, "bc1d"), want_2d = multi || !strcmp(cs, "sub2d");
    int want_3d = multi || !strcmp(cs, "sub3d"), want_pt = multi || !strcmp(cs, "points");
    if (!path || nx < 1 || bx < 1 || !(want_bc || want_2d || want_3d || want_pt))
        mpiio_usage_exit(rank, usage, NULL);

    /* the datasets, in the order they are created */
    dset ds[4];
    int nds = 0;
    if (want_bc) {
        ds[nds] = (dset){.name = irregular ? "irregular" : "block_cyclic", .var = 1};
        select_1d(&ds[nds++], nx, bx, irregular, (uint64_t)seed, P, rank);
    }
    if (want_2d) {
        ds[nds] = (dset){.name = "sub2d", .var = 2};
        select_box(&ds[nds++], 2, dims2, P, rank);
    }
    if (want_3d) {
        ds[nds] = (dset){.name = "sub3d", .var = 3};
        select_box(&ds[nds++], 3, dims3, P, rank);
    }
    if (want_pt) {
        ds[nds] = (dset){.name = "points", .var = 4};
        select_points(&ds[nds++], nx, P, rank);
    }
    /* written in another order: last created first, then the rest */
    int order[4];
    for (int k = 0; k < nds; k++)
        order[k] = (k + nds - 1) % nds;

    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    CHECK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));

    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f);
    hid_t did[4];
    for (int k = 0; k < nds; k++) {
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        if (chunked) {
            hsize_t cd[3];
            for (int j = 0; j < ds[k].nd; j++) {
                hsize_t c = chunk ? (hsize_t)chunk : (ds[k].dims[j] + 2) / 3;
                cd[j] = c > ds[k].dims[j] ? ds[k].dims[j] : c;
            }
            CHECK(H5Pset_chunk(dcpl, ds[k].nd, cd));
        }
        if (notimes)
            CHECK(H5Pset_obj_track_times(dcpl, 0));
        hid_t space = H5Screate_simple(ds[k].nd, ds[k].dims, NULL);
        did[k] = H5Dcreate2(f, ds[k].name, H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl,
                            H5P_DEFAULT);
        CHECK(did[k]);
        H5Sclose(space);
        H5Pclose(dcpl);
    }
    for (int o = 0; o < nds; o++) {
        dset *d = &ds[order[o]];
        CHECK(H5Dwrite(did[order[o]], H5T_NATIVE_FLOAT, d->mspace, d->fspace, dxpl,
                       d->want));
        H5D_mpio_actual_io_mode_t m;
        if (rank == 0 && H5Pget_mpio_actual_io_mode(dxpl, &m) >= 0
            && m == H5D_MPIO_NO_COLLECTIVE)
            printf("io_hdf5: note: HDF5 wrote %s as %s I/O\n", d->name, io_mode_name(m));
    }
    for (int k = 0; k < nds; k++)
        H5Dclose(did[k]);
    CHECK(H5Fclose(f));

    /* read back: the same selections, then every dataset whole */
    int64_t bad = 0;
    f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    CHECK(f);
    for (int k = 0; k < nds; k++) {
        dset *d = &ds[k];
        hid_t id = H5Dopen2(f, d->name, H5P_DEFAULT);
        CHECK(id);
        float *got = (float *)mpiio_xmalloc((size_t)(d->n ? d->n : 1) * sizeof(float));
        memset(got, 0, (size_t)d->n * sizeof(float));
        CHECK(H5Dread(id, H5T_NATIVE_FLOAT, d->mspace, d->fspace, dxpl, got));
        char what[96];
        snprintf(what, sizeof what, "%s: own selection read back", d->name);
        bad += mpiio_compare(what, rank, got, d->want, d->n);
        free(got);
        int64_t all = 1;
        for (int j = 0; j < d->nd; j++)
            all *= (int64_t)d->dims[j];
        got = (float *)mpiio_xmalloc((size_t)all * sizeof(float));
        CHECK(H5Dread(id, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, dxpl, got));
        snprintf(what, sizeof what, "%s: whole dataset read back", d->name);
        bad += mpiio_check_full(what, rank, got, d->var, all);
        free(got);
        H5Dclose(id);
    }
    CHECK(H5Fclose(f));

    long long total = mpiio_sum(bad, MPI_COMM_WORLD);
    if (rank == 0)
        printf("io_hdf5: case=%s nx=%lld bx=%lld%s%s P=%d: %s\n", cs, (long long)nx,
               (long long)bx, irregular ? " irregular" : "", chunked ? " chunked" : "", P,
               total ? "MISMATCH" : "ok");
    for (int k = 0; k < nds; k++) {
        H5Sclose(ds[k].fspace);
        H5Sclose(ds[k].mspace);
        free(ds[k].want);
    }
    H5Pclose(dxpl);
    H5Pclose(fapl);
    MPI_Finalize();
    return total ? 1 : 0;
}
