/*
 * mpi_mesh.c -- replicated layouts on a real mesh: meshes/tiny.geo is
 * meshed by the gmsh program, read through gmsh's C API and partitioned
 * over the P ranks by METIS (bench/mesh.c), each part holding its nodes
 * and its halo. For gmsh's node order and for RCM order, every replica
 * policy with every canonical strategy writes byte-exact files (element i
 * = the pattern of i, testutil), each element once (the file bytes of all
 * ranks sum to the file), and reads fill every copy; the plan is reused.
 * The plan's interval count and replication percentage equal the ones
 * computed here from a sequential IDG over the partition (seed 003).
 *
 * Usage: mpi_mesh [FILTER]. Needs COLLIO_GMSH and COLLIO_SOURCE_DIR (set
 * by CMake at build time).
 */
#include "mesh.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const strategies[] = {"serial", "independent", "two_phase",
                                         "multiphase", "subgroup"};
#define NSTRAT ((int)(sizeof strategies / sizeof strategies[0]))
#define LOAD 3 /* float64 values per node: 24-byte elements */

/* The mesh file, made once by rank 0 with the gmsh program. */
static int make_mesh(tu_ctx *t, char *path, size_t len)
{
    tu_temp_path(t, "tiny.msh", path, len);
    int ok = 1;
    if (t->rank == 0) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd,
                 "'%s' -3 -format msh41 -o '%s' '%s/meshes/tiny.geo' >/dev/null",
                 COLLIO_GMSH, path, COLLIO_SOURCE_DIR);
        ok = system(cmd) == 0;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, t->comm);
    return ok;
}

/* Sequential IDG over the whole partition (the definition in collio.h):
 * intervals and replicated elements, to compare with the plan's stats. */
static void reference_stats(const bench_mesh *m, const int32_t *part, int P,
                            int64_t *intervals, int64_t *replicated)
{
    int64_t N = m->nnodes;
    unsigned char *holds = calloc((size_t)(N * P), 1);
    for (int64_t x = 0; x < N; x++) {
        holds[x * P + part[x]] = 1;
        for (int64_t k = m->xadj[x]; k < m->xadj[x + 1]; k++)
            holds[x * P + part[m->adjncy[k]]] = 1;
    }
    *intervals = 0;
    *replicated = 0;
    int prev = -1;
    for (int64_t x = 0; x < N; x++) {
        int nh = 0;
        for (int r = 0; r < P; r++)
            nh += holds[x * P + r];
        int w = part[x];
        if (nh > 1) {
            (*replicated)++;
            if (prev >= 0 && holds[x * P + prev])
                w = prev;
            else if (x + 1 < N && holds[x * P + part[x + 1]])
                w = part[x + 1];
        }
        *intervals += w != prev;
        prev = w;
    }
    free(holds);
}

static void run_order(tu_ctx *t, const char *mshpath, int rcm)
{
    char err[512] = "";
    bench_mesh m;
    memset(&m, 0, sizeof m);
    int ok = bench_mesh_load(mshpath, rcm, &m, err, sizeof err) == 0;
    int32_t *part = malloc((size_t)(m.nnodes + 1) * sizeof *part);
    if (ok && t->rank == 0)
        ok = bench_mesh_partition(&m, t->nranks, NULL, part, err, sizeof err) == 0;
    MPI_Bcast(&ok, 1, MPI_INT, 0, t->comm);
    tu_case(t, "mesh %s order: load and partition", rcm ? "rcm" : "gmsh");
    if (!TU_CHECK(t, ok, "mesh: %s", err)) {
        free(part);
        bench_mesh_free(&m);
        return;
    }
    MPI_Bcast(part, (int)m.nnodes, MPI_INT32_T, 0, t->comm);
    int64_t n, ref_intervals, ref_replicated;
    int64_t *idx;
    unsigned char *own;
    bench_mesh_part_nodes(&m, part, t->rank, &n, &idx, &own);
    reference_stats(&m, part, t->nranks, &ref_intervals, &ref_replicated);
    size_t es = LOAD * sizeof(double), bytes = (size_t)n * es;
    unsigned char *buf = malloc(bytes + 1), *back = malloc(bytes + 1);
    for (int64_t i = 0; i < n; i++)
        collio_pattern_element((uint64_t)idx[i], 9, es, buf + (size_t)i * es);

    for (int policy = 0; policy < TU_REPLICAS__COUNT; policy++)
        for (int s = 0; s < NSTRAT; s++) {
            tu_case(t, "mesh %s order (%lld nodes): %s with %s", rcm ? "rcm" : "gmsh",
                    (long long)m.nnodes, tu_replicas_name(policy), strategies[s]);
            if (!tu_case_enabled(t))
                continue;
            collio_layout *l = NULL;
            collio_plan *p = NULL;
            collio_hints *o = TU_HINTS(t, "replicas.policy=%s", tu_replicas_name(policy));
            int rc = collio_layout_index_list_replicated(t->comm, m.nnodes, n, idx, own,
                                                         es, &l);
            if (rc == COLLIO_OK)
                rc = collio_plan_create(t->comm, l, strategies[s], o, &p);
            collio_hints_free(&o);
            if (!TU_RC_ALL(t, rc, COLLIO_OK, "layout and plan")) {
                collio_layout_free(&l);
                continue;
            }
            collio_stats st;
            collio_plan_stats(p, &st);
            if (policy == TU_REPLICAS_IDG) {
                double ipr = TU_STAT(t, p, "replicas.intervals_per_rank");
                TU_CHECK(t, (int64_t)(ipr * t->nranks + 0.5) == ref_intervals,
                         "intervals %g x %d, reference %lld", ipr, t->nranks,
                         (long long)ref_intervals);
                double want = 100.0 * (double)ref_replicated / (double)m.nnodes;
                double pct = TU_STAT(t, p, "replicas.replicated_pct");
                TU_CHECK(t, pct > want - 1e-9 && pct < want + 1e-9,
                         "replicated %g%%, reference %g%%", pct, want);
            }
            char path[600];
            tu_temp_path(t, "mesh", path, sizeof path);
            for (int call = 0; call < 2; call++) {
                if (!tu_plan_io(t, p, path, NULL, 1, buf, bytes))
                    break;
                collio_plan_stats(p, &st);
                int64_t mine[2] = {st.file_bytes,
                                   (int64_t)TU_STAT(t, p, "replicas.written")},
                        sum[2];
                MPI_Allreduce(mine, sum, 2, MPI_INT64_T, MPI_SUM, t->comm);
                TU_CHECK(t, sum[0] == m.nnodes * (int64_t)es && sum[1] == m.nnodes,
                         "each node written once: %lld bytes, %lld nodes",
                         (long long)sum[0], (long long)sum[1]);
                TU_CHECK(t, tu_check_file(t, path, m.nnodes, es, 9, 0, 0, 1) == 0,
                         "file byte-exact");
                memset(back, 0xEE, bytes + 1);
                if (!tu_plan_io(t, p, path, NULL, 0, back, bytes))
                    break;
                TU_CHECK(t, memcmp(back, buf, bytes) == 0 && back[bytes] == 0xEE,
                         "read fills every copy");
            }
            tu_remove(t, path);
            collio_plan_free(&p);
            collio_layout_free(&l);
        }
    free(buf);
    free(back);
    free(idx);
    free(own);
    free(part);
    bench_mesh_free(&m);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_mesh");
    char msh[600];
    tu_case(&t, "gmsh meshes meshes/tiny.geo");
    if (TU_CHECK(&t, make_mesh(&t, msh, sizeof msh), "gmsh failed")) {
        run_order(&t, msh, 0);
        run_order(&t, msh, 1);
    }
    tu_remove(&t, msh);
    return tu_finish(&t);
}
