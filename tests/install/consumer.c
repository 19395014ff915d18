/* Smallest real user of an installed collio: lists the strategies and
 * writes/reads a tiny block-cyclic vector on MPI_COMM_WORLD. */
#include <collio.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, fail = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    collio_layout *l = NULL;
    collio_plan *p = NULL;
    collio_file *f = NULL;
    int rc = collio_layout_block_cyclic(MPI_COMM_WORLD, 1000, 3, sizeof(int), &l);
    if (rc == COLLIO_OK)
        rc = collio_plan_create(MPI_COMM_WORLD, l, "independent", NULL, &p);
    int buf[1000], back[1000];
    int64_t n = collio_layout_local_count(l);
    for (int64_t i = 0; i < n; i++)
        buf[i] = (int)collio_layout_global_index(l, i);
    const char *path = argc > 1 ? argv[1] : "consumer.bin";
    if (rc == COLLIO_OK)
        rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, NULL, &f);
    if (rc == COLLIO_OK)
        rc = collio_write(p, f, buf, collio_layout_buffer_bytes(l));
    if (f)
        rc = rc == COLLIO_OK ? collio_file_close(&f) : (collio_file_abort(&f), rc);
    if (rc == COLLIO_OK)
        rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_READ, NULL, &f);
    memset(back, 0, sizeof back);
    if (rc == COLLIO_OK)
        rc = collio_read(p, f, back, collio_layout_buffer_bytes(l));
    if (f)
        collio_file_close(&f);
    if (rc != COLLIO_OK || memcmp(buf, back, (size_t)n * sizeof(int)) != 0)
        fail = 1;
    if (rank == 0)
        printf("consumer: %d strategies, round trip %s (%s)\n", collio_strategy_count(),
               fail ? "FAILED" : "ok", collio_strerror(rc));
    collio_plan_free(&p);
    collio_layout_free(&l);
    MPI_Finalize();
    return fail;
}
