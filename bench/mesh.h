/*
 * mesh.h -- unstructured tetrahedral meshes for the benchmark's mesh
 * workload (no MPI here): a Gmsh MSH file read through gmsh's C API into
 * a node graph, optionally renumbered by reverse Cuthill-McKee, partitioned
 * over nodes by METIS (or read from a METIS .npart file), and what one part
 * holds: its own nodes plus the halo (a node with a graph neighbour in
 * another part is replicated on every such part).
 *
 * The file layout this models: node i is file element i (gmsh tag i+1,
 * after the optional renumbering).
 */
#ifndef COLLIO_BENCH_MESH_H
#define COLLIO_BENCH_MESH_H

#include <stddef.h>
#include <stdint.h>

typedef struct bench_mesh {
    int64_t nnodes; /* nodes; node i is file element i (gmsh tag i+1 after optional
                       renumbering) */
    int64_t ntets;
    int64_t *xadj, *adjncy; /* CSR node graph (undirected, no self loops, no
                               duplicates), built from the tetrahedra's edges */
    int64_t *orig;          /* order_rcm=1: node i was the file's node orig[i] (gmsh tag
                               orig[i]+1); NULL when not renumbered */
} bench_mesh;

/* Reads a Gmsh MSH file (4.1 ASCII or binary) through gmsh's C API: the
 * nodes (tags must be 1..N) and the tetrahedra (type 4, and type 11 by its
 * 4 corner nodes), and builds the node graph, each adjacency row sorted.
 * order_rcm=1 renumbers the nodes by reverse Cuthill-McKee first. Returns
 * 0, or -1 with a message in err. */
int bench_mesh_load(const char *path, int order_rcm, bench_mesh *m, char *err,
                    size_t errlen);

/* Node partition into nparts parts (part[i] in [0,nparts)): METIS k-way on
 * the node graph with seed 1 (reproducible), or, when partition_file is not
 * NULL, a METIS .npart file (one part number per line, one line per node).
 * Returns 0, or -1 with a message in err. */
int bench_mesh_partition(const bench_mesh *m, int nparts, const char *partition_file,
                         int32_t *part, char *err, size_t errlen);

/* What part p holds: its owned nodes (part[i]==p) and every node of another
 * part with a neighbour in p. *n nodes in increasing index order in the
 * malloc'd *idx; (*owned)[k]=1 if idx[k] is owned by p. Returns 0, or -1
 * (out of memory). */
int bench_mesh_part_nodes(const bench_mesh *m, const int32_t *part, int p, int64_t *n,
                          int64_t **idx, unsigned char **owned);

/* Writes part[0..n) as a METIS .npart file. Returns 0, or -1 with err. */
int bench_mesh_write_partition(const char *path, int64_t n, const int32_t *part,
                               char *err, size_t errlen);

/* Largest |i - j| over the graph's edges (what RCM makes small). */
int64_t bench_mesh_bandwidth(const bench_mesh *m);

void bench_mesh_free(bench_mesh *m);

#endif
