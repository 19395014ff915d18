/*
 * bench_mesh.c -- the seed 003 workload: a field on the nodes of an
 * unstructured tetrahedral mesh (BIPS3D's devices), partitioned over the P
 * ranks by METIS, each shared node replicated on every part of its
 * neighbours. Node i (gmsh tag i+1) is file element i, with `load` float64
 * values: one case per --load. The layout is a replicated index list; the
 * replica policy is a variant option (--replicas).
 *
 * Setting up is the application's part, not the library's: rank 0 reads
 * the mesh (bench/mesh.c: gmsh's C API, METIS) and sends every rank its
 * nodes. The library's inspector then works distributed. The mesh is kept
 * between cases (same file, order and partition: same nodes).
 */
#include "bench_internal.h"
#include "mesh.h"

#include <stdlib.h>
#include <string.h>

static struct {
    char key[3 * COLLIO_BENCH_PATH_LEN];
    int64_t nnodes, n; /* mesh nodes; nodes this rank holds */
    int64_t *idx;
    unsigned char *owned;
} cache;

int64_t bench_mesh_nodes(void)
{
    return cache.nnodes;
}

/* Rank 0: the mesh, its partition and every part's nodes, concatenated
 * in rank order (counts[p] nodes for part p). */
static int load_parts(const collio_bench_config *cfg, int P, int64_t *nnodes, int *counts,
                      int64_t **idx, unsigned char **owned)
{
    char err[512] = "";
    bench_mesh m;
    memset(&m, 0, sizeof m);
    int rc = bench_mesh_load(cfg->mesh, cfg->order_rcm, &m, err, sizeof err);
    int32_t *part = NULL;
    if (rc == 0) {
        part = malloc((size_t)(m.nnodes > 0 ? m.nnodes : 1) * sizeof *part);
        rc = part ? bench_mesh_partition(&m, P, cfg->partition[0] ? cfg->partition : NULL,
                                         part, err, sizeof err)
                  : -1;
    }
    int64_t total = 0;
    *idx = NULL;
    *owned = NULL;
    for (int p = 0; rc == 0 && p < P; p++) {
        int64_t n;
        int64_t *pi;
        unsigned char *po;
        if (bench_mesh_part_nodes(&m, part, p, &n, &pi, &po) != 0 || n > INT32_MAX) {
            snprintf(err, sizeof err, "part %d: out of memory", p);
            rc = -1;
            break;
        }
        int64_t *ni = realloc(*idx, (size_t)(total + n + 1) * sizeof *ni);
        unsigned char *no = ni ? realloc(*owned, (size_t)(total + n + 1)) : NULL;
        if (ni)
            *idx = ni;
        if (no)
            *owned = no;
        if (!ni || !no) {
            rc = -1;
            snprintf(err, sizeof err, "out of memory");
        } else {
            memcpy(*idx + total, pi, (size_t)n * sizeof *pi);
            memcpy(*owned + total, po, (size_t)n);
            counts[p] = (int)n;
            total += n;
        }
        free(pi);
        free(po);
    }
    if (rc == 0 && total > INT32_MAX) {
        rc = -1;
        snprintf(err, sizeof err, "%lld replicas: more than one MPI message holds",
                 (long long)total);
    }
    if (rc != 0)
        fprintf(stderr, "collio-bench: mesh %s: %s\n", cfg->mesh, err);
    *nnodes = m.nnodes;
    free(part);
    bench_mesh_free(&m);
    return rc == 0 ? COLLIO_OK : COLLIO_ERR_ARG;
}

/* Collective: this rank's nodes of the configured mesh, in cache. */
static int mesh_prepare(MPI_Comm comm, const collio_bench_config *cfg)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    char key[sizeof cache.key];
    snprintf(key, sizeof key, "%s|%d|%s|%d", cfg->mesh, cfg->order_rcm, cfg->partition,
             P);
    if (strcmp(key, cache.key) == 0)
        return COLLIO_OK;
    free(cache.idx);
    free(cache.owned);
    memset(&cache, 0, sizeof cache);
    int *counts = calloc((size_t)P, sizeof *counts),
        *displs = calloc((size_t)P, sizeof *displs);
    int64_t *all = NULL;
    unsigned char *allo = NULL;
    int rc = counts && displs ? COLLIO_OK : COLLIO_ERR_NOMEM;
    if (me == 0 && rc == COLLIO_OK)
        rc = load_parts(cfg, P, &cache.nnodes, counts, &all, &allo);
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    int mine = 0;
    if (rc == COLLIO_OK) {
        MPI_Bcast(&cache.nnodes, 1, MPI_INT64_T, 0, comm);
        MPI_Scatter(counts, 1, MPI_INT, &mine, 1, MPI_INT, 0, comm);
        for (int p = 1; p < P; p++)
            displs[p] = displs[p - 1] + counts[p - 1];
        cache.n = mine;
        cache.idx = malloc((size_t)(mine + 1) * sizeof *cache.idx);
        cache.owned = malloc((size_t)mine + 1);
        MPI_Scatterv(all, counts, displs, MPI_INT64_T, cache.idx, mine, MPI_INT64_T, 0,
                     comm);
        MPI_Scatterv(allo, counts, displs, MPI_UNSIGNED_CHAR, cache.owned, mine,
                     MPI_UNSIGNED_CHAR, 0, comm);
        snprintf(cache.key, sizeof cache.key, "%s", key);
    }
    free(all);
    free(allo);
    free(counts);
    free(displs);
    return rc;
}

static int mesh_cases(MPI_Comm comm, const collio_bench_config *cfg, bench_case *cases,
                      int *ncases)
{
    int rc = mesh_prepare(comm, cfg);
    if (rc != COLLIO_OK)
        return rc;
    int n = cfg->nloads > 0 ? cfg->nloads : 1;
    for (int i = 0; i < n; i++) {
        bench_case *k = &cases[i];
        memset(k, 0, sizeof *k);
        k->load = cfg->nloads > 0 ? cfg->loads[i] : 1;
        snprintf(k->label, sizeof k->label, "%lld", (long long)k->load);
        k->nx = cache.nnodes;
        k->esize = (size_t)k->load * sizeof(double);
    }
    *ncases = n;
    return COLLIO_OK;
}

static int mesh_layout(MPI_Comm comm, const collio_bench_config *cfg, const bench_case *c,
                       collio_layout **out)
{
    int rc = mesh_prepare(comm, cfg);
    if (rc != COLLIO_OK)
        return rc;
    return collio_layout_index_list_replicated(comm, cache.nnodes, cache.n, cache.idx,
                                               cache.owned, c->esize, out);
}

const bench_workload_ops bench_mesh_workload = {
    .name = "mesh",
    .case_column = "load",
    .cases = mesh_cases,
    .layout = mesh_layout,
};
