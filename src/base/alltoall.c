/*
 * alltoall.c -- the sparse all-to-all of the distributed inspectors (the
 * index-list validation, the replica classification and the answer to
 * the holders, the replica fill's requests, multiphase's descriptors):
 * records of a fixed number of int64 words, some to each rank. The counts
 * go first (MPI_Alltoall), the receive side is sized from them (int
 * displacements checked), then the records move in one MPI_Alltoallv of
 * a contiguous record type. Collective; every step agreed, so that a rank
 * that fails locally never leaves the others in a collective it skipped.
 */
#include "base/base.h"

int collio__alltoall_records(MPI_Comm comm, int rc, const int64_t *sbuf, int words,
                             const int *scount, const int *sdispl, int *rcount,
                             int *rdispl, int64_t **rbuf, int64_t *nrecv)
{
    int P = 0;
    MPI_Comm_size(comm, &P);
    *rbuf = NULL;
    *nrecv = 0;
    rc = collio__agree(comm, rc);
    if (rc == COLLIO_OK
        && MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm) != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    if (rc == COLLIO_OK)
        rc = collio__displs(rcount, rdispl, P, nrecv);
    if (rc == COLLIO_OK) {
        *rbuf = malloc((size_t)(*nrecv > 0 ? *nrecv : 1) * (size_t)words * sizeof **rbuf);
        if (*rbuf == NULL)
            rc = COLLIO_ERR_NOMEM;
    }
    rc = collio__agree(comm, rc);
    MPI_Datatype rec = MPI_DATATYPE_NULL;
    if (rc == COLLIO_OK
        && (MPI_Type_contiguous(words, MPI_INT64_T, &rec) != MPI_SUCCESS
            || MPI_Type_commit(&rec) != MPI_SUCCESS
            || MPI_Alltoallv(sbuf, scount, sdispl, rec, *rbuf, rcount, rdispl, rec, comm)
                   != MPI_SUCCESS))
        rc = COLLIO_ERR_MPI;
    if (rec != MPI_DATATYPE_NULL)
        MPI_Type_free(&rec);
    rc = collio__agree(comm, rc);
    if (rc != COLLIO_OK) {
        free(*rbuf);
        *rbuf = NULL;
        *nrecv = 0;
    }
    return rc;
}
