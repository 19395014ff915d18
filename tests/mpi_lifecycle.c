/*
 * mpi_lifecycle.c -- collio outside MPI's lifetime: every call that needs
 * MPI returns COLLIO_ERR_STATE before MPI_Init and after MPI_Finalize,
 * with a detail that says which ("... called before MPI_Init"), and never
 * calls into MPI (which would abort the process). The frees (void) are
 * safe after MPI_Finalize; local queries keep working.
 *
 * Its own main: testutil's tu_init calls MPI_Init, and this test must run
 * code before it. Each rank counts its checks; the exit code is nonzero if
 * any failed (mpirun reports it).
 */
#include "collio.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed, rank = -1;

static void check(int ok, const char *what)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    fprintf(stderr, "FAIL [rank %d] %s (last error: '%s')\n", rank, what,
            collio_last_error());
}

/* rc must be STATE and the detail must say `when`. */
static void state(int rc, const char *when, const char *what)
{
    char msg[300];
    snprintf(msg, sizeof msg, "%s: COLLIO_ERR_STATE, got %d", what, rc);
    check(rc == COLLIO_ERR_STATE, msg);
    snprintf(msg, sizeof msg, "%s: the detail says '%s'", what, when);
    check(strstr(collio_last_error(), when) != NULL, msg);
}

/* Every call that needs MPI, outside its lifetime; l, p, f may be valid
 * objects made while MPI lived (after MPI_Finalize) or NULL (before). */
static void outside(const char *when, collio_layout *l, collio_plan *p, collio_file *f,
                    const char *path)
{
    collio_layout *nl = NULL;
    state(collio_layout_block_cyclic(MPI_COMM_WORLD, 100, 3, 4, &nl), when,
          "block_cyclic");
    check(nl == NULL, "block_cyclic: no layout");
    int64_t g[2] = {10, 10}, d[2] = {0, 0};
    collio_distrib ds[2] = {COLLIO_DIST_NONE, COLLIO_DIST_NONE};
    int ps[2] = {1, 1};
    state(collio_layout_darray(MPI_COMM_WORLD, 2, g, ds, d, ps, COLLIO_ORDER_C, 4, &nl),
          when, "darray");
    int64_t idx[1] = {0};
    unsigned char own[1] = {1};
    state(collio_layout_index_list(MPI_COMM_WORLD, 1, 1, idx, 4, &nl), when,
          "index_list");
    state(collio_layout_index_list_replicated(MPI_COMM_WORLD, 1, 1, idx, own, 4, &nl),
          when, "index_list_replicated");
    state(collio_layout_set_memory_global(l), when, "set_memory_global");
    state(collio_layout_set_memory_datatype(l, MPI_BYTE, 4), when, "set_memory_datatype");
    collio_plan *np = NULL;
    state(collio_plan_create(MPI_COMM_WORLD, l, "serial", NULL, &np), when,
          "plan_create");
    check(np == NULL, "plan_create: no plan");
    collio_file *nf = NULL;
    state(collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, NULL, &nf), when,
          "file_open");
    check(nf == NULL, "file_open: no file");
    char buf[64] = {0};
    state(collio_write(p, f, buf, sizeof buf), when, "write");
    state(collio_read(p, f, buf, sizeof buf), when, "read");
    int64_t dims[1] = {4};
    state(collio_describe_h5(MPI_COMM_WORLD, path, path, 0, COLLIO_H5_FLOAT32, 1, dims, 0,
                             NULL),
          when, "describe_h5");
    collio_file *keep = f;
    state(collio_file_close(&f), when, "file_close");
    f = keep;
    state(collio_file_abort(&f), when, "file_abort");
    /* local queries need no MPI */
    check(collio_strerror(COLLIO_ERR_STATE)[0] != '\0', "strerror");
    check(collio_strategy_count() > 0 && collio_strategy_name(0) != NULL,
          "strategy names");
}

int main(int argc, char **argv)
{
    char path[600];
    const char *dir = getenv("COLLIO_TEST_TMPDIR");
    snprintf(path, sizeof path, "%s/collio-lifecycle-%ld.bin", dir && *dir ? dir : "/tmp",
             (long)getppid()); /* the launcher's pid: the same on every rank of a host */

    outside("before MPI_Init", NULL, NULL, NULL, path);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int nranks;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    long id = (long)getpid();
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/collio-lifecycle-np%d-%ld.bin",
             dir && *dir ? dir : "/tmp", nranks, id);
    collio_layout *l = NULL;
    collio_plan *p = NULL;
    collio_file *f = NULL;
    check(collio_layout_block_cyclic(MPI_COMM_WORLD, 1000, 7, 4, &l) == COLLIO_OK,
          "layout");
    MPI_Datatype ty; /* a layout that holds an MPI datatype, freed after MPI */
    MPI_Type_contiguous(4, MPI_BYTE, &ty);
    check(collio_layout_set_memory_datatype(l, ty, (int)collio_layout_local_count(l))
              == COLLIO_OK,
          "set_memory_datatype");
    MPI_Type_free(&ty);
    check(collio_plan_create(MPI_COMM_WORLD, l, "multiphase", NULL, &p) == COLLIO_OK,
          "plan");
    size_t bytes = collio_layout_buffer_bytes(l);
    char *buf = calloc(bytes + 1, 1);
    check(collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, NULL, &f)
              == COLLIO_OK,
          "open");
    check(collio_write(p, f, buf, bytes) == COLLIO_OK, "write while MPI lives");
    /* f stays open across MPI_Finalize: a job that ends without closing */
    MPI_Finalize();

    outside("after MPI_Finalize", l, p, f, path);
    check(collio_layout_local_count(l) >= 0, "a layout's local query after MPI_Finalize");
    collio_plan_free(&p);
    check(p == NULL, "plan_free after MPI_Finalize sets NULL");
    collio_layout_free(&l);
    check(l == NULL, "layout_free after MPI_Finalize sets NULL");
    free(buf);

    /* the temporary of the file left open (its writer ends now) */
    if (rank == 0) {
        const char *name = strrchr(path, '/') + 1;
        char stem[700], full[1300];
        snprintf(stem, sizeof stem, ".%s.collio-tmp.", name);
        char d[600];
        snprintf(d, sizeof d, "%.*s", (int)(name - path), path);
        DIR *dd = opendir(d);
        struct dirent *e;
        while (dd != NULL && (e = readdir(dd)) != NULL)
            if (strncmp(e->d_name, stem, strlen(stem)) == 0) {
                snprintf(full, sizeof full, "%s%s", d, e->d_name);
                unlink(full);
            }
        if (dd != NULL)
            closedir(dd);
        unlink(path);
        printf("mpi_lifecycle: %d passed, %d failed (rank 0)\n", passed, failed);
    }
    return failed != 0;
}
