/*
 * h5.c -- a description of a raw collio file for HDF5 tools: a small .h5
 * file holding one dataset whose storage is the raw file itself (HDF5
 * external storage, H5Pset_external, from a base offset), with the element
 * type and the global shape, so that h5py, ParaView or VisIt read the raw
 * file through it without a copy (collio.h, collio_describe_h5).
 *
 * Only rank 0 touches HDF5 (the serial library is enough: one small file);
 * the arguments are compared across ranks first and the result is agreed,
 * so every rank returns the same code. The .h5 is written under a
 * temporary name and renamed into place, so a failure leaves an earlier
 * description intact. Built only where CMake found HDF5 (COLLIO_HAVE_HDF5);
 * elsewhere the call is COLLIO_ERR_UNSUPPORTED on every rank.
 */
#include "base/base.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef COLLIO_HAVE_HDF5
#include <hdf5.h>
#endif

#define H5_MAX_DIMS 32

/* Records the detail of a failure and returns its code. */
#define fail(code, ...) (collio__error_set((code), __VA_ARGS__), (code))

int collio_have_h5(void)
{
#ifdef COLLIO_HAVE_HDF5
    return 1;
#else
    return 0;
#endif
}

/* Bytes of one element of each collio_h5_type. */
static const size_t type_bytes[COLLIO_H5__COUNT] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};

/* Local checks; *bytes gets the data's size. */
static int check_args(const char *h5_path, const char *raw_path, int64_t base_offset,
                      int type, int ndims, const int64_t dims[], int fortran_order,
                      int64_t *bytes)
{
    if (h5_path == NULL || raw_path == NULL || h5_path[0] == '\0' || raw_path[0] == '\0')
        return fail(COLLIO_ERR_ARG, "describe_h5: a path is NULL or empty");
    if (type < 0 || type >= COLLIO_H5__COUNT)
        return fail(COLLIO_ERR_ARG, "describe_h5: type %d is not a collio_h5_type", type);
    if (ndims < 1 || ndims > H5_MAX_DIMS || dims == NULL)
        return fail(COLLIO_ERR_ARG, "describe_h5: ndims %d (1..%d, dims non-NULL)", ndims,
                    H5_MAX_DIMS);
    if (base_offset < 0 || (fortran_order != 0 && fortran_order != 1))
        return fail(COLLIO_ERR_ARG, "describe_h5: base_offset %lld, fortran_order %d",
                    (long long)base_offset, fortran_order);
    int64_t n = (int64_t)type_bytes[type];
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 1)
            return fail(COLLIO_ERR_ARG, "describe_h5: dims[%d] = %lld", i,
                        (long long)dims[i]);
        if (n > INT64_MAX / dims[i])
            return fail(COLLIO_ERR_OVERFLOW, "describe_h5: the shape overflows");
        n *= dims[i];
    }
    if (base_offset > INT64_MAX - n)
        return fail(COLLIO_ERR_OVERFLOW, "describe_h5: base_offset + size overflows");
    *bytes = n;
    return COLLIO_OK;
}

/* The digest of every argument, compared across ranks. */
static uint64_t args_digest(const char *h5_path, const char *raw_path,
                            int64_t base_offset, int type, int ndims,
                            const int64_t dims[], int fortran_order, const char *dataset)
{
    uint64_t h = collio__hash_mix(0x6835u, (uint64_t)base_offset);
    h = collio__hash_mix(h, (uint64_t)type);
    h = collio__hash_mix(h, (uint64_t)ndims);
    h = collio__hash_mix(h, (uint64_t)fortran_order);
    /* dims only where ndims is valid: never read past a short array */
    for (int i = 0; ndims <= H5_MAX_DIMS && i < ndims && dims != NULL; i++)
        h = collio__hash_mix(h, (uint64_t)dims[i]);
    const char *s[3] = {h5_path, raw_path, dataset};
    for (int k = 0; k < 3; k++) {
        h = collio__hash_mix(h, s[k] == NULL);
        for (const char *c = s[k]; c != NULL && *c; c++)
            h = collio__hash_mix(h, (uint64_t)(unsigned char)*c);
    }
    return h;
}

#ifdef COLLIO_HAVE_HDF5
/* The raw file must hold the data, [base_offset, end). A relative path is
 * checked against this process's working directory, as HDF5 resolves it
 * against the reader's (collio.h). */
static int check_raw(const char *raw_path, int64_t end)
{
    struct stat st;
    if (stat(raw_path, &st) != 0)
        return fail(COLLIO_ERR_OPEN, "describe_h5: raw file %s: not found", raw_path);
    if ((int64_t)st.st_size < end)
        return fail(COLLIO_ERR_EOF,
                    "describe_h5: raw file %s has %lld bytes, the data ends at %lld",
                    raw_path, (long long)st.st_size, (long long)end);
    return COLLIO_OK;
}

static hid_t native_type(int type)
{
    switch (type) { /* one table of HDF5's own ids (run-time values) */
    case COLLIO_H5_INT8:
        return H5T_NATIVE_INT8;
    case COLLIO_H5_UINT8:
        return H5T_NATIVE_UINT8;
    case COLLIO_H5_INT16:
        return H5T_NATIVE_INT16;
    case COLLIO_H5_UINT16:
        return H5T_NATIVE_UINT16;
    case COLLIO_H5_INT32:
        return H5T_NATIVE_INT32;
    case COLLIO_H5_UINT32:
        return H5T_NATIVE_UINT32;
    case COLLIO_H5_INT64:
        return H5T_NATIVE_INT64;
    case COLLIO_H5_UINT64:
        return H5T_NATIVE_UINT64;
    case COLLIO_H5_FLOAT32:
        return H5T_NATIVE_FLOAT;
    default:
        return H5T_NATIVE_DOUBLE;
    }
}

/* Rank 0: writes the description under a temporary name, then renames it
 * into place. */
static int write_h5(const char *h5_path, const char *raw_path, int64_t base_offset,
                    int type, int ndims, const int64_t dims[], int fortran_order,
                    const char *dataset, int64_t bytes)
{
    int rc = check_raw(raw_path, base_offset + bytes);
    if (rc != COLLIO_OK)
        return rc;
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", h5_path, (long)getpid())
        >= sizeof tmp)
        return fail(COLLIO_ERR_ARG, "describe_h5: path too long");
    hsize_t hd[H5_MAX_DIMS];
    for (int i = 0; i < ndims; i++) /* HDF5 (and h5py) shapes are in C order */
        hd[i] = (hsize_t)dims[fortran_order ? ndims - 1 - i : i];
    H5E_auto2_t efunc = NULL;
    void *edata = NULL;
    H5Eget_auto2(H5E_DEFAULT, &efunc, &edata);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our error codes, not its stack dump */
    hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t space = f >= 0 ? H5Screate_simple(ndims, hd, NULL) : -1;
    hid_t dcpl = space >= 0 ? H5Pcreate(H5P_DATASET_CREATE) : -1;
    hid_t d = -1;
    /* the raw bytes are never written through HDF5: no fill values */
    if (dcpl >= 0 && H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0
        && H5Pset_external(dcpl, raw_path, (off_t)base_offset, (hsize_t)bytes) >= 0)
        d = H5Dcreate2(f, dataset, native_type(type), space, H5P_DEFAULT, dcpl,
                       H5P_DEFAULT);
    if (d < 0)
        rc = fail(COLLIO_ERR_IO, "describe_h5: HDF5 could not create %s in %s", dataset,
                  tmp);
    if (d >= 0 && H5Dclose(d) < 0)
        rc = fail(COLLIO_ERR_IO, "describe_h5: closing the dataset failed");
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    if (f >= 0 && H5Fclose(f) < 0 && rc == COLLIO_OK)
        rc = fail(COLLIO_ERR_IO, "describe_h5: writing %s failed", tmp);
    if (f < 0)
        rc = fail(COLLIO_ERR_OPEN, "describe_h5: cannot create %s", tmp);
    H5Eset_auto2(H5E_DEFAULT, efunc, edata);
    if (rc == COLLIO_OK && rename(tmp, h5_path) != 0)
        rc = fail(COLLIO_ERR_IO, "describe_h5: cannot rename %s to %s", tmp, h5_path);
    if (rc != COLLIO_OK)
        unlink(tmp);
    return rc;
}
#endif

int collio_describe_h5(MPI_Comm comm, const char *h5_path, const char *raw_path,
                       int64_t base_offset, int type, int ndims, const int64_t dims[],
                       int fortran_order, const char *dataset)
{
    collio__error_begin();
    int st = collio__mpi_usable("collio_describe_h5");
    if (st != COLLIO_OK)
        return st;
    if (comm == MPI_COMM_NULL)
        return fail(COLLIO_ERR_ARG, "describe_h5: comm is MPI_COMM_NULL");
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (dataset == NULL)
        dataset = "data";
    int64_t bytes = 0;
    int rc = check_args(h5_path, raw_path, base_offset, type, ndims, dims, fortran_order,
                        &bytes);
    /* the same description asked of every rank, compared also where a
     * rank's own checks failed: a difference is MISMATCH on every rank,
     * valid or not on its own, and its agreed text replaces the local one */
    int mm = collio__check_same_digest(comm,
                                       args_digest(h5_path, raw_path, base_offset, type,
                                                   ndims, dims, fortran_order, dataset),
                                       "the arguments of collio_describe_h5");
    if (mm != COLLIO_OK)
        return mm;
    rc = collio__agree(comm, rc);
    if (rc != COLLIO_OK)
        return rc;
#ifdef COLLIO_HAVE_HDF5
    if (rank == 0)
        rc = write_h5(h5_path, raw_path, base_offset, type, ndims, dims, fortran_order,
                      dataset, bytes);
    return collio__agree(comm, rc);
#else
    (void)rank;
    return fail(COLLIO_ERR_UNSUPPORTED,
                "describe_h5: collio was built without HDF5 (libhdf5-dev)");
#endif
}
