/*
 * unit_mesh.c -- the benchmark's mesh module (bench/mesh.c) without MPI.
 *
 * meshes/tiny.geo is meshed by the gmsh CLI (found at configure time) into
 * a temporary directory as MSH 4.1 ASCII, binary, and second order (10-node
 * tets). The references are independent of the code under test: the tets
 * read here through gmsh's API give a brute-force adjacency matrix, the
 * ASCII file's $Nodes header gives the node count, and the halo of a part
 * is computed from the tets, not from the CSR graph.
 */
#include "mesh.h"

#include <gmshc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_check.h"

#ifndef COLLIO_GMSH
#error "COLLIO_GMSH (the gmsh executable) must be defined by the build"
#endif

static char g_dir[512];

/* Meshes tiny.geo into g_dir/name with extra gmsh flags; returns 0 on success. */
static int gen(const char *name, const char *flags)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' -3 %s -o '%s/%s' '%s' >'%s/%s.log' 2>&1", COLLIO_GMSH,
             flags, g_dir, name, COLLIO_TINY_GEO, g_dir, name);
    return system(cmd);
}

static void path_of(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", g_dir, name);
}

/* Node count from the ASCII file's "$Nodes" header line
 * "numEntityBlocks numNodes minNodeTag maxNodeTag"; -1 if not found or the
 * tags are not 1..numNodes. */
static long long ascii_node_count(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[256];
    long long blocks, n = -1, lo, hi;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "$Nodes", 6) == 0) {
            if (!fgets(line, sizeof line, f)
                || sscanf(line, "%lld %lld %lld %lld", &blocks, &n, &lo, &hi) != 4
                || lo != 1 || hi != n)
                n = -1;
            break;
        }
    if (f)
        fclose(f);
    return n;
}

/* The tets' corner nodes (0-based) read through gmsh here, type 4 only. */
static int64_t *read_tets(const char *path, int64_t *ntets)
{
    int ierr = 0;
    size_t *et = NULL, *nt = NULL, ne = 0, nn = 0;
    gmshInitialize(0, NULL, 0, &ierr);
    gmshOptionSetNumber("General.Terminal", 0, &ierr);
    gmshOpen(path, &ierr);
    gmshModelMeshGetElementsByType(4, &et, &ne, &nt, &nn, -1, 0, 1, &ierr);
    gmshFinalize(&ierr);
    int64_t *t = malloc(nn * sizeof *t + 1);
    for (size_t k = 0; k < nn; k++)
        t[k] = (int64_t)nt[k] - 1;
    *ntets = (int64_t)(nn / 4);
    gmshFree(et);
    gmshFree(nt);
    return t;
}

/* n x n adjacency matrix: a[i*n+j] = 1 iff i != j share a tet. */
static unsigned char *brute_adj(const int64_t *t, int64_t ntets, int64_t n)
{
    unsigned char *a = calloc((size_t)(n * n), 1);
    for (int64_t e = 0; e < ntets; e++)
        for (int c = 0; c < 4; c++)
            for (int d = 0; d < 4; d++)
                if (c != d)
                    a[t[e * 4 + c] * n + t[e * 4 + d]] = 1;
    return a;
}

/* CSR equals the matrix: rows strictly increasing (sorted, no duplicates),
 * no self loops, exactly the matrix's neighbours. */
static void check_graph(const bench_mesh *m, const unsigned char *a)
{
    int64_t n = m->nnodes, bad = 0, deg = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t cnt = 0;
        for (int64_t j = 0; j < n; j++)
            cnt += a[i * n + j];
        bad += cnt != m->xadj[i + 1] - m->xadj[i];
        for (int64_t k = m->xadj[i]; k < m->xadj[i + 1]; k++) {
            int64_t j = m->adjncy[k];
            bad += j < 0 || j >= n || j == i || !a[i * n + j];
            bad += k > m->xadj[i] && m->adjncy[k - 1] >= j;
        }
        deg += cnt;
    }
    CHECK(bad == 0, "%lld CSR rows differ from the brute-force edge set", (long long)bad);
    CHECK(m->xadj[n] == deg, "edge count %lld vs %lld", (long long)m->xadj[n],
          (long long)deg);
}

static int same_mesh(const bench_mesh *a, const bench_mesh *b)
{
    return a->nnodes == b->nnodes && a->ntets == b->ntets
           && memcmp(a->xadj, b->xadj, (size_t)(a->nnodes + 1) * sizeof *a->xadj) == 0
           && memcmp(a->adjncy, b->adjncy, (size_t)a->xadj[a->nnodes] * sizeof(int64_t))
                  == 0;
}

/* RCM: orig[] is a permutation, (i,j) is an edge iff (orig[i],orig[j]) was
 * one, and the bandwidth did not grow. */
static void check_rcm(const bench_mesh *m, const bench_mesh *r, const unsigned char *a)
{
    int64_t n = m->nnodes, bad = 0;
    CHECK(r->orig != NULL && m->orig == NULL, "orig set only when renumbered");
    if (!r->orig || r->nnodes != n)
        return;
    unsigned char *seen = calloc((size_t)n, 1);
    for (int64_t i = 0; i < n; i++) {
        int64_t o = r->orig[i];
        bad += o < 0 || o >= n || seen[o];
        if (o >= 0 && o < n)
            seen[o] = 1;
    }
    free(seen);
    CHECK(bad == 0, "RCM order is not a permutation (%lld bad)", (long long)bad);
    CHECK(r->xadj[n] == m->xadj[n], "RCM edges %lld vs %lld", (long long)r->xadj[n],
          (long long)m->xadj[n]);
    for (int64_t i = 0; bad == 0 && i < n; i++)
        for (int64_t k = r->xadj[i]; k < r->xadj[i + 1]; k++)
            bad += !a[r->orig[i] * n + r->orig[r->adjncy[k]]];
    CHECK(bad == 0, "RCM graph is not the original one relabelled (%lld)",
          (long long)bad);
    int64_t b0 = bench_mesh_bandwidth(m), b1 = bench_mesh_bandwidth(r);
    CHECK(b1 <= b0, "RCM bandwidth %lld > original %lld", (long long)b1, (long long)b0);
    printf("bandwidth %lld, after RCM %lld\n", (long long)b0, (long long)b1);
}

/* part_nodes against the halo computed from the tets: i is held by p if
 * part[i]==p or i shares a tet with a node of p. */
static void check_halo(const bench_mesh *m, const int32_t *part, int nparts,
                       const int64_t *t, int64_t ntets)
{
    int64_t n = m->nnodes;
    unsigned char *held = malloc((size_t)n + 1);
    for (int p = 0; p < nparts; p++) {
        for (int64_t i = 0; i < n; i++)
            held[i] = part[i] == p;
        for (int64_t e = 0; e < ntets; e++) {
            int in = 0;
            for (int c = 0; c < 4; c++)
                in |= part[t[e * 4 + c]] == p;
            for (int c = 0; in && c < 4; c++)
                held[t[e * 4 + c]] = 1;
        }
        int64_t cnt, *idx, k = 0, bad = 0;
        unsigned char *own;
        CHECK(bench_mesh_part_nodes(m, part, p, &cnt, &idx, &own) == 0, "part_nodes");
        for (int64_t i = 0; i < n; i++) {
            if (!held[i])
                continue;
            bad += k >= cnt || idx[k] != i || own[k] != (part[i] == p);
            k++;
        }
        CHECK(bad == 0 && k == cnt,
              "part %d of %d: halo differs (%lld bad, %lld vs %lld)", p, nparts,
              (long long)bad, (long long)k, (long long)cnt);
        free(idx);
        free(own);
    }
    free(held);
}

static void check_partitions(const bench_mesh *m, const int64_t *t, int64_t ntets)
{
    int32_t *part = malloc((size_t)m->nnodes * sizeof *part);
    char err[512];
    static const int np[] = {1, 2, 3, 5};
    for (size_t s = 0; s < sizeof np / sizeof np[0]; s++) {
        int rc = bench_mesh_partition(m, np[s], NULL, part, err, sizeof err);
        CHECK(rc == 0, "METIS %d parts: %s", np[s], err);
        int64_t size[8] = {0}, bad = 0;
        for (int64_t i = 0; i < m->nnodes; i++) {
            bad += part[i] < 0 || part[i] >= np[s];
            if (part[i] >= 0 && part[i] < np[s])
                size[part[i]]++;
        }
        for (int p = 0; p < np[s]; p++)
            bad += size[p] == 0;
        CHECK(bad == 0, "%d parts: values out of range or empty parts", np[s]);
        check_halo(m, part, np[s], t, ntets);
    }
    free(part);
}

static void write_lines(const char *path, const int32_t *v, int64_t n, const char *extra)
{
    FILE *f = fopen(path, "w");
    for (int64_t i = 0; i < n; i++)
        fprintf(f, "%d\n", (int)v[i]);
    if (extra)
        fputs(extra, f);
    fclose(f);
}

/* .npart round trips (written here, and by the module), and bad files. */
static void check_partition_files(const bench_mesh *m)
{
    int64_t n = m->nnodes;
    int32_t *part = malloc((size_t)n * sizeof *part), *back = malloc((size_t)n * 4);
    char err[512], f[600];
    path_of(f, sizeof f, "p.npart");
    CHECK(bench_mesh_partition(m, 3, NULL, part, err, sizeof err) == 0, "%s", err);
    write_lines(f, part, n, NULL);
    CHECK(bench_mesh_partition(m, 3, f, back, err, sizeof err) == 0, "read: %s", err);
    CHECK(memcmp(part, back, (size_t)n * 4) == 0, "npart round trip differs");
    memset(back, 0xff, (size_t)n * 4);
    CHECK(bench_mesh_write_partition(f, n, part, err, sizeof err) == 0, "%s", err);
    CHECK(bench_mesh_partition(m, 3, f, back, err, sizeof err) == 0, "read: %s", err);
    CHECK(memcmp(part, back, (size_t)n * 4) == 0, "write_partition round trip differs");

    struct {
        int64_t lines;
        const char *extra, *what;
        int nparts;
    } bad[] = {{n - 1, NULL, "too few lines", 3},
               {n, "0\n", "too many lines", 3},
               {n, NULL, "value out of range", 2},
               {n - 1, "x\n", "not a number", 3},
               {n - 1, "-1\n", "negative", 3}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        write_lines(f, part, bad[k].lines, bad[k].extra);
        err[0] = 0;
        int rc = bench_mesh_partition(m, bad[k].nparts, f, back, err, sizeof err);
        CHECK(rc == -1 && err[0], "bad partition file (%s) accepted", bad[k].what);
        printf("%s: %s\n", bad[k].what, err);
    }
    path_of(f, sizeof f, "missing.npart");
    CHECK(bench_mesh_partition(m, 3, f, back, err, sizeof err) == -1, "missing file");
    free(part);
    free(back);
}

/* Files the loader must refuse: a gap in the node tags, no tetrahedra, no file. */
static void check_bad_meshes(void)
{
    static const char head[] = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n";
    static const char gap[] =
        "$Nodes\n1 4 1 5\n3 1 0 4\n1\n2\n3\n5\n0 0 0\n1 0 0\n0 1 0\n"
        "0 0 1\n$EndNodes\n$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3 5\n"
        "$EndElements\n";
    static const char tri[] = "$Nodes\n1 3 1 3\n2 1 0 3\n1\n2\n3\n0 0 0\n1 0 0\n0 1 0\n"
                              "$EndNodes\n$Elements\n1 1 1 1\n2 1 2 1\n1 1 2 3\n"
                              "$EndElements\n";
    const char *body[] = {gap, tri}, *name[] = {"gap.msh", "tri.msh"};
    char p[600], err[512];
    bench_mesh m;
    for (int k = 0; k < 2; k++) {
        path_of(p, sizeof p, name[k]);
        FILE *f = fopen(p, "w");
        fputs(head, f);
        fputs(body[k], f);
        fclose(f);
        err[0] = 0;
        CHECK(bench_mesh_load(p, 0, &m, err, sizeof err) == -1 && err[0], "%s accepted",
              name[k]);
        printf("%s: %s\n", name[k], err);
    }
    path_of(p, sizeof p, "none.msh");
    CHECK(bench_mesh_load(p, 0, &m, err, sizeof err) == -1, "missing file accepted");
}

/* Second order (10-node tets): the graph is the corners' graph; the
 * mid-edge nodes are in the file but have no neighbours. */
static void check_order2(const bench_mesh *m1)
{
    char p[600], err[512];
    bench_mesh m2;
    path_of(p, sizeof p, "tiny2.msh");
    CHECK(gen("tiny2.msh", "-order 2 -format msh41") == 0, "gmsh -order 2 failed");
    CHECK(bench_mesh_load(p, 0, &m2, err, sizeof err) == 0, "%s", err);
    int64_t e1 = m1->xadj[m1->nnodes] / 2, iso = 0;
    for (int64_t i = 0; i < m2.nnodes; i++)
        iso += m2.xadj[i + 1] == m2.xadj[i];
    CHECK(m2.ntets == m1->ntets, "tet10 count %lld vs %lld", (long long)m2.ntets,
          (long long)m1->ntets);
    CHECK(m2.xadj[m2.nnodes] / 2 == e1, "tet10 corner edges %lld vs %lld",
          (long long)(m2.xadj[m2.nnodes] / 2), (long long)e1);
    CHECK(m2.nnodes == m1->nnodes + e1 && iso == e1,
          "tet10: %lld nodes, %lld without neighbours (expected %lld + %lld)",
          (long long)m2.nnodes, (long long)iso, (long long)m1->nnodes, (long long)e1);
    bench_mesh_free(&m2);
}

static int make_dir(void)
{
    const char *base = getenv("COLLIO_TEST_TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/unit_mesh.XXXXXX", base && *base ? base : "/tmp");
    return mkdtemp(g_dir) ? 0 : -1;
}

int main(void)
{
    char asc[600], bin[600], err[512];
    if (make_dir() || gen("tiny.msh", "-format msh41")
        || gen("tinyb.msh", "-bin -format msh41")) {
        fprintf(stderr, "unit_mesh: cannot mesh %s with %s in %s\n", COLLIO_TINY_GEO,
                COLLIO_GMSH, g_dir);
        return 1;
    }
    path_of(asc, sizeof asc, "tiny.msh");
    path_of(bin, sizeof bin, "tinyb.msh");
    bench_mesh m, mb, r;
    CHECK(bench_mesh_load(asc, 0, &m, err, sizeof err) == 0, "ascii: %s", err);
    CHECK(bench_mesh_load(bin, 0, &mb, err, sizeof err) == 0, "binary: %s", err);
    CHECK(bench_mesh_load(asc, 1, &r, err, sizeof err) == 0, "rcm: %s", err);
    if (g_fail)
        return unit_summary("unit_mesh");
    printf("tiny: %lld nodes, %lld tets, %lld edges\n", (long long)m.nnodes,
           (long long)m.ntets, (long long)(m.xadj[m.nnodes] / 2));
    CHECK(m.nnodes == ascii_node_count(asc), "nnodes %lld vs $Nodes header %lld",
          (long long)m.nnodes, ascii_node_count(asc));
    CHECK(same_mesh(&m, &mb), "ASCII and binary files give different meshes");
    int64_t ntets;
    int64_t *t = read_tets(asc, &ntets);
    CHECK(ntets == m.ntets, "tets %lld vs %lld", (long long)ntets, (long long)m.ntets);
    unsigned char *a = brute_adj(t, ntets, m.nnodes);
    check_graph(&m, a);
    check_rcm(&m, &r, a);
    check_partitions(&m, t, ntets);
    check_partition_files(&m);
    check_order2(&m);
    check_bad_meshes();
    free(a);
    free(t);
    bench_mesh_free(&m);
    bench_mesh_free(&mb);
    bench_mesh_free(&r);
    if (g_fail == 0) { /* keep the files of a failed run for a look */
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
        CHECK(system(cmd) == 0, "rm %s", g_dir);
    }
    return unit_summary("unit_mesh");
}
