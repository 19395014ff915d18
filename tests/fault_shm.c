/*
 * fault_shm.c -- multiphase where /dev/shm is too small for its shared-
 * memory window (run by ctest inside tests/in-tmpfs.sh with a small tmpfs
 * over /dev/shm, as in a default Docker container). The default plan must
 * fall back to MPI messages -- not abort the job, not fail -- and say so
 * in its stats, and the file must be byte-exact and read back. The
 * expectation is the rule collio.h documents (a window of the whole file
 * plus 64 MiB must fit in /dev/shm), from this test's own statvfs.
 * Usage: fault_shm [NX] (float32 elements; default 25 Mi = 100 MB).
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

static int one_node(tu_ctx *t)
{
    MPI_Comm node;
    int local = 0, all = 0;
    MPI_Comm_split_type(t->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    int one = local == t->nranks;
    MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_MIN, t->comm);
    return all;
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "fault_shm");
    int64_t nx = argc > 1 ? atoll(argv[1]) : (int64_t)25 << 20;
    t.filter = NULL;
    struct statvfs sv;
    int room = 1;
    if (statvfs("/dev/shm", &sv) == 0) {
        uint64_t avail = (uint64_t)sv.f_bavail * sv.f_frsize;
        uint64_t need = ((uint64_t)nx + (uint64_t)t.nranks * t.nranks) * 4;
        room = need <= avail && avail - need >= ((uint64_t)64 << 20);
    }
    int node = one_node(&t);
    const int64_t bxs[] = {1, 4096};
    for (int b = 0; b < 2; b++) {
        tu_case(&t, "multiphase default, nx=%lld bx=%lld, /dev/shm %s", (long long)nx,
                (long long)bxs[b], room ? "has room" : "too small");
        tu_layout_desc d;
        tu_desc_block_cyclic(&d, nx, bxs[b], 4);
        collio_layout *l = NULL;
        collio_plan *p = NULL;
        int rc = tu_desc_make(&d, t.comm, &l);
        if (TU_RC_ALL(&t, rc, COLLIO_OK, "layout"))
            rc = collio_plan_create(t.comm, l, "multiphase", NULL, &p);
        collio_layout_free(&l);
        if (!TU_RC_ALL(&t, rc, COLLIO_OK, "plan_create")) {
            tu_desc_free(&d);
            continue;
        }
        int64_t *idx = NULL, n = 0;
        tu_enumerate(&d, t.rank, t.nranks, &idx, &n);
        size_t bytes = (size_t)n * 4;
        unsigned char *buf = malloc(bytes + 1);
        tu_fill(buf, idx, n, 4, 3);
        char path[1024];
        tu_temp_path(&t, "shm", path, sizeof path);
        if (tu_plan_io(&t, p, path, NULL, 1, buf, bytes)) {
            TU_CHECK(&t, tu_check_file(&t, path, nx, 4, 3, 0, 0, 1) == 0,
                     "file differs from the expectation");
            double shm = TU_STAT(&t, p, "multiphase.shared_memory");
            double fallback = TU_STAT(&t, p, "multiphase.shm_fallback");
            if (t.nranks > 1)
                TU_CHECK(&t, shm == (node && room), "shared_memory %g, want %d", shm,
                         node && room);
            TU_CHECK(&t, fallback == (node && !room), "shm_fallback %g, want %d",
                     fallback, node && !room);
            memset(buf, 0, bytes + 1);
            if (tu_plan_io(&t, p, path, NULL, 0, buf, bytes)) {
                int64_t first;
                TU_CHECK(&t, tu_compare(buf, idx, n, 4, 3, &first) == 0,
                         "read back differs (element %lld)", (long long)first);
            }
        }
        tu_remove(&t, path);
        free(buf);
        free(idx);
        collio_plan_free(&p);
        tu_desc_free(&d);
    }
    return tu_finish(&t);
}
