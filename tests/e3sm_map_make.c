/*
 * e3sm_map_make.c -- writes a small decomposition map in the HDF5 form of
 * E3SM-IO's map files (bench/e3sm_map.h), for collio-history --map's
 * tests: an independent generator, not the reader under test.
 *
 * usage: e3sm_map_make FILE NPROCS [N1]
 *   D1: a 1-D array of N1 elements (default 5003; attribute D1.dims), every 7th left
 *       out (held by no process), the rest shuffled and dealt round-robin
 *       to NPROCS processes, in the raw form: D1.raw_nreqs per process,
 *       D1.raw_offsets 1-based with a 0 (no element) after every 5th;
 *   D2: a 2-D array of 3 x 1001 (D2.dims), cut into runs of 1 to 4
 *       elements, the runs shuffled and dealt round-robin, in the run
 *       form: D2.nreqs, D2.offsets (0-based), D2.lengths.
 * Integers as E3SM-IO stores them (32-bit). Exit 0, 1 on an HDF5 error.
 */
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static void shuffle(int *a, int n, uint64_t *s)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rnd(s) % (uint64_t)(i + 1)), t = a[i];
        a[i] = a[j], a[j] = t;
    }
}

static int put(hid_t f, const char *name, const int *v, hsize_t n)
{
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d =
        H5Dcreate2(f, name, H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    herr_t e = n > 0 ? H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) : 0;
    H5Dclose(d);
    H5Sclose(s);
    return d < 0 || e < 0 ? -1 : 0;
}

static int dims(hid_t f, const char *name, const int *v, hsize_t n)
{
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t a = H5Acreate2(f, name, H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT);
    herr_t e = H5Awrite(a, H5T_NATIVE_INT, v);
    H5Aclose(a);
    H5Sclose(s);
    return a < 0 || e < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    int np = argc == 3 || argc == 4 ? atoi(argv[2]) : 0;
    const int n1 = argc == 4 ? atoi(argv[3]) : 5003;
    if (np < 1 || n1 < 7) {
        fprintf(stderr, "usage: e3sm_map_make FILE NPROCS [N1 >= 7]\n");
        return 2;
    }
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return 1;
    uint64_t s = 12345;
    int bad = 0;

    /* D1: raw offsets */
    int *el = malloc(n1 * sizeof *el), m = 0;
    for (int g = 0; g < n1; g++)
        if (g % 7 != 3)
            el[m++] = g;
    shuffle(el, m, &s);
    int *nreq = calloc((size_t)np, sizeof *nreq);
    int *raw = malloc((size_t)(2 * m + 1) * sizeof *raw), k = 0;
    for (int p = 0; p < np; p++)
        for (int i = p, c = 0; i < m; i += np, c++) {
            raw[k++] = el[i] + 1;
            nreq[p]++;
            if (c % 5 == 4) {
                raw[k++] = 0;
                nreq[p]++;
            }
        }
    bad |= dims(f, "D1.dims", &n1, 1);
    bad |= put(f, "D1.raw_nreqs", nreq, (hsize_t)np);
    bad |= put(f, "D1.raw_offsets", raw, (hsize_t)k);

    /* D2: runs */
    const int d2[2] = {3, 1001}, n2 = 3 * 1001;
    int *ro = malloc(n2 * sizeof *ro), *rl = malloc(n2 * sizeof *rl), nr = 0;
    for (int g = 0; g < n2;) {
        int l = 1 + (int)(rnd(&s) % 4);
        l = g + l > n2 ? n2 - g : l;
        ro[nr] = g, rl[nr++] = l;
        g += l;
    }
    int *order = malloc(nr * sizeof *order);
    for (int i = 0; i < nr; i++)
        order[i] = i;
    shuffle(order, nr, &s);
    int *off = malloc(nr * sizeof *off), *len = malloc(nr * sizeof *len);
    k = 0;
    for (int p = 0; p < np; p++) {
        nreq[p] = 0;
        for (int i = p; i < nr; i += np) {
            off[k] = ro[order[i]], len[k++] = rl[order[i]];
            nreq[p]++;
        }
    }
    bad |= dims(f, "D2.dims", d2, 2);
    bad |= put(f, "D2.nreqs", nreq, (hsize_t)np);
    bad |= put(f, "D2.offsets", off, (hsize_t)k);
    bad |= put(f, "D2.lengths", len, (hsize_t)k);
    bad |= H5Fclose(f) < 0;
    free(el), free(nreq), free(raw), free(ro), free(rl), free(order), free(off),
        free(len);
    return bad ? 1 : 0;
}
