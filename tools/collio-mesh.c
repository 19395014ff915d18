/*
 * collio-mesh -- what the benchmark's mesh workload sees of a Gmsh mesh:
 * nodes, tetrahedra, graph edges and bandwidth, and for a node partition
 * (METIS, or a .npart file) the nodes per part and how many nodes are
 * replicated (held by more than one part as a halo copy).
 *
 *   collio-mesh FILE.msh [--parts P] [--order rcm] [--partition FILE]
 *                        [--write-partition OUT]
 */
#include "mesh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const char *mesh, *partition, *write_partition;
    int parts, rcm;
} opts;

static int usage(void)
{
    fprintf(stderr, "usage: collio-mesh FILE.msh [--parts P] [--order rcm] "
                    "[--partition FILE] [--write-partition OUT]\n"
                    "  --parts P             partition into P parts (default 1)\n"
                    "  --order rcm           renumber nodes by reverse Cuthill-McKee\n"
                    "  --partition FILE      read the partition (METIS .npart) instead\n"
                    "  --write-partition OUT write the partition as a .npart file\n");
    return 2;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Returns 0, or -1 on bad arguments. */
static int parse_args(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->parts = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (a[0] != '-') {
            if (o->mesh)
                return -1;
            o->mesh = a;
            continue;
        }
        if (!v)
            return -1;
        i++;
        if (strcmp(a, "--parts") == 0) {
            char *end;
            long p = strtol(v, &end, 10);
            if (*end || p < 1 || p > 1 << 20)
                return -1;
            o->parts = (int)p;
        } else if (strcmp(a, "--order") == 0 && strcmp(v, "rcm") == 0) {
            o->rcm = 1;
        } else if (strcmp(a, "--partition") == 0) {
            o->partition = v;
        } else if (strcmp(a, "--write-partition") == 0) {
            o->write_partition = v;
        } else {
            return -1;
        }
    }
    return o->mesh ? 0 : -1;
}

/* A node is replicated iff some neighbour is in another part: it is then
 * held by its own part and that one. */
static int64_t replicated(const bench_mesh *m, const int32_t *part)
{
    int64_t r = 0;
    for (int64_t i = 0; i < m->nnodes; i++)
        for (int64_t k = m->xadj[i]; k < m->xadj[i + 1]; k++)
            if (part[m->adjncy[k]] != part[i]) {
                r++;
                break;
            }
    return r;
}

static int print_parts(const bench_mesh *m, const int32_t *part, int nparts)
{
    int64_t omin = INT64_MAX, omax = 0, hmin = INT64_MAX, hmax = 0, held = 0;
    for (int p = 0; p < nparts; p++) {
        int64_t n, own = 0, *idx;
        unsigned char *owned;
        if (bench_mesh_part_nodes(m, part, p, &n, &idx, &owned)) {
            fprintf(stderr, "collio-mesh: out of memory\n");
            return -1;
        }
        for (int64_t k = 0; k < n; k++)
            own += owned[k];
        free(idx);
        free(owned);
        omin = own < omin ? own : omin;
        omax = own > omax ? own : omax;
        hmin = n < hmin ? n : hmin;
        hmax = n > hmax ? n : hmax;
        held += n;
    }
    int64_t r = replicated(m, part);
    printf("parts %d\n", nparts);
    printf("owned nodes per part min %lld max %lld\n", (long long)omin, (long long)omax);
    printf("held nodes per part (owned + halo) min %lld max %lld, total %lld\n",
           (long long)hmin, (long long)hmax, (long long)held);
    printf("replicated nodes %lld (%.2f%% of nodes)\n", (long long)r,
           m->nnodes ? 100.0 * (double)r / (double)m->nnodes : 0.0);
    return 0;
}

static int run(const opts *o)
{
    char err[512];
    bench_mesh m;
    double t0 = now();
    if (bench_mesh_load(o->mesh, o->rcm, &m, err, sizeof err)) {
        fprintf(stderr, "collio-mesh: %s\n", err);
        return 1;
    }
    double t1 = now();
    printf("nodes %lld\ntets %lld\nedges %lld\nbandwidth %lld%s\nload %.3f s\n",
           (long long)m.nnodes, (long long)m.ntets, (long long)(m.xadj[m.nnodes] / 2),
           (long long)bench_mesh_bandwidth(&m), o->rcm ? " (rcm)" : "", t1 - t0);
    int32_t *part = malloc((size_t)m.nnodes * sizeof *part + 1);
    int rc = 1;
    if (!part)
        fprintf(stderr, "collio-mesh: out of memory\n");
    else if (bench_mesh_partition(&m, o->parts, o->partition, part, err, sizeof err))
        fprintf(stderr, "collio-mesh: %s\n", err);
    else if (printf("partition %.3f s\n", now() - t1), print_parts(&m, part, o->parts))
        ;
    else if (o->write_partition
             && bench_mesh_write_partition(o->write_partition, m.nnodes, part, err,
                                           sizeof err))
        fprintf(stderr, "collio-mesh: %s\n", err);
    else
        rc = 0;
    free(part);
    bench_mesh_free(&m);
    return rc;
}

int main(int argc, char **argv)
{
    opts o;
    if (parse_args(argc, argv, &o))
        return usage();
    return run(&o);
}
