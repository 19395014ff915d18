/*
 * mesh.c -- the benchmark's tetrahedral meshes (see mesh.h): reading through
 * gmsh's C API, the node graph, reverse Cuthill-McKee, METIS partitions and
 * the halo of a part. No MPI: every rank calls this on its own.
 *
 * gmsh 4.8 (Debian 12) has no gmshModelMeshComputeRenumbering, so RCM is
 * done here on the CSR graph; it also keeps the ordering independent of the
 * gmsh version.
 */
#include "mesh.h"

#include <errno.h>
#include <gmshc.h>
#include <metis.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void *xcalloc(size_t n, size_t size)
{
    return calloc(n ? n : 1, size);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* ---- reading through gmsh ---- */

/* gmsh's last error text, for messages that say more than "ierr != 0". */
static void gmsh_error(const char *path, const char *what, char *err, size_t errlen)
{
    char *msg = NULL;
    int ierr = 0;
    gmshLoggerGetLastError(&msg, &ierr);
    fail(err, errlen, "%s: %s%s%s", path, what, msg && *msg ? ": " : "", msg ? msg : "");
    gmshFree(msg);
}

/* Node tags must be exactly 1..n: node i is file element i = tag i+1. */
static int check_node_tags(const char *path, const size_t *tags, size_t n, char *err,
                           size_t errlen)
{
    unsigned char *seen = xcalloc(n, 1);
    if (!seen)
        return fail(err, errlen, "%s: out of memory", path);
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        if (tags[k] < 1 || tags[k] > n || seen[tags[k] - 1])
            rc = fail(err, errlen,
                      "%s: node tags are not 1..%zu without gaps (tag %zu): "
                      "node i must be file element i-1",
                      path, n, tags[k]);
        else
            seen[tags[k] - 1] = 1;
    }
    free(seen);
    return rc;
}

/* Appends the 4 corner nodes (0-based) of every element of one gmsh type
 * (4 = tet4, 11 = tet10: its first 4 nodes are the corners). */
static int get_tets(const char *path, int type, int nper, int64_t **tets, int64_t *ntets,
                    int64_t nnodes, char *err, size_t errlen)
{
    size_t *etags = NULL, *ntags = NULL, ne = 0, nn = 0;
    int ierr = 0;
    gmshModelMeshGetElementsByType(type, &etags, &ne, &ntags, &nn, -1, 0, 1, &ierr);
    gmshFree(etags);
    if (ierr) {
        gmshFree(ntags);
        gmsh_error(path, "reading tetrahedra", err, errlen);
        return -1;
    }
    size_t cnt = nn / (size_t)nper;
    int64_t *t = realloc(*tets, (size_t)(*ntets + (int64_t)cnt) * 4 * sizeof *t + 1);
    if (!t) {
        gmshFree(ntags);
        return fail(err, errlen, "%s: out of memory", path);
    }
    *tets = t;
    int rc = 0;
    for (size_t e = 0; e < cnt && rc == 0; e++)
        for (int c = 0; c < 4; c++) {
            size_t tag = ntags[e * (size_t)nper + (size_t)c];
            if (tag < 1 || tag > (size_t)nnodes) {
                rc = fail(err, errlen, "%s: a tetrahedron names node %zu (nodes 1..%lld)",
                          path, tag, (long long)nnodes);
                break;
            }
            t[(*ntets + (int64_t)e) * 4 + c] = (int64_t)tag - 1;
        }
    *ntets += (int64_t)cnt;
    gmshFree(ntags);
    return rc;
}

/* Opens the file in an initialised gmsh, then reads nodes and tets. */
static int read_gmsh(const char *path, int64_t *nnodes, int64_t **tets, int64_t *ntets,
                     char *err, size_t errlen)
{
    int ierr = 0;
    gmshOpen(path, &ierr);
    if (ierr) {
        gmsh_error(path, "gmsh cannot open it", err, errlen);
        return -1;
    }
    size_t *tags = NULL, ntag = 0, ncoord = 0, npar = 0;
    double *coord = NULL, *par = NULL;
    gmshModelMeshGetNodes(&tags, &ntag, &coord, &ncoord, &par, &npar, -1, -1, 0, 0,
                          &ierr);
    gmshFree(coord);
    gmshFree(par);
    if (ierr) {
        gmshFree(tags);
        gmsh_error(path, "reading nodes", err, errlen);
        return -1;
    }
    int rc = check_node_tags(path, tags, ntag, err, errlen);
    gmshFree(tags);
    *nnodes = (int64_t)ntag;
    if (rc == 0)
        rc = get_tets(path, 4, 4, tets, ntets, *nnodes, err, errlen);
    if (rc == 0)
        rc = get_tets(path, 11, 10, tets, ntets, *nnodes, err, errlen);
    if (rc == 0 && *ntets == 0)
        rc = fail(err, errlen, "%s: no tetrahedra (element types 4 or 11) in the mesh",
                  path);
    return rc;
}

/* ---- the node graph ---- */

/* node -> incident tets, CSR (start[nnodes+1], list). */
static int node_tets(int64_t nnodes, const int64_t *tets, int64_t ntets, int64_t **start,
                     int64_t **list)
{
    int64_t *s = xcalloc((size_t)nnodes + 1, sizeof *s);
    int64_t *l = xcalloc((size_t)ntets * 4, sizeof *l);
    if (!s || !l) {
        free(s);
        free(l);
        return -1;
    }
    for (int64_t k = 0; k < ntets * 4; k++)
        s[tets[k] + 1]++;
    for (int64_t i = 0; i < nnodes; i++)
        s[i + 1] += s[i];
    int64_t *fill = xcalloc((size_t)nnodes, sizeof *fill);
    if (!fill) {
        free(s);
        free(l);
        return -1;
    }
    for (int64_t k = 0; k < ntets * 4; k++)
        l[s[tets[k]] + fill[tets[k]]++] = k / 4;
    free(fill);
    *start = s;
    *list = l;
    return 0;
}

/* Neighbours of node i (the other corners of its tets), each once, written
 * to out (NULL: count only); mark[] is a scratch array of nnodes entries
 * holding the last node that marked each one, so it needs no clearing. */
static int64_t node_row(int64_t i, const int64_t *tets, const int64_t *ts,
                        const int64_t *tl, int64_t *mark, int64_t *out)
{
    int64_t n = 0;
    mark[i] = i;
    for (int64_t k = ts[i]; k < ts[i + 1]; k++)
        for (int c = 0; c < 4; c++) {
            int64_t j = tets[tl[k] * 4 + c];
            if (mark[j] != i) {
                mark[j] = i;
                if (out)
                    out[n] = j;
                n++;
            }
        }
    return n;
}

/* CSR graph of the tets' edges: every pair of corners of a tet is an edge,
 * and a node's neighbours are the other corners of its tets. */
static int build_graph(bench_mesh *m, const int64_t *tets)
{
    int64_t *ts = NULL, *tl = NULL;
    if (node_tets(m->nnodes, tets, m->ntets, &ts, &tl))
        return -1;
    int64_t *mark = malloc(((size_t)m->nnodes + 1) * sizeof *mark);
    m->xadj = xcalloc((size_t)m->nnodes + 1, sizeof *m->xadj);
    int rc = -1;
    if (mark && m->xadj) {
        for (int64_t i = 0; i < m->nnodes; i++)
            mark[i] = -1;
        for (int64_t i = 0; i < m->nnodes; i++)
            m->xadj[i + 1] = m->xadj[i] + node_row(i, tets, ts, tl, mark, NULL);
        m->adjncy = xcalloc((size_t)m->xadj[m->nnodes], sizeof *m->adjncy);
        if (m->adjncy) {
            for (int64_t i = 0; i < m->nnodes; i++)
                mark[i] = -1;
            for (int64_t i = 0; i < m->nnodes; i++) {
                node_row(i, tets, ts, tl, mark, m->adjncy + m->xadj[i]);
                qsort(m->adjncy + m->xadj[i], (size_t)(m->xadj[i + 1] - m->xadj[i]),
                      sizeof(int64_t), cmp_i64);
            }
            rc = 0;
        }
    }
    free(mark);
    free(ts);
    free(tl);
    return rc;
}

/* ---- reverse Cuthill-McKee ---- */

/* BFS from s over unvisited-by-this-BFS nodes; order[] gets the visit order
 * (neighbours by increasing degree, then index), level[] the distance.
 * Returns the number of nodes reached. lev must be -1 on the component. */
static int64_t bfs(const bench_mesh *m, int64_t s, int64_t *order, int64_t *lev)
{
    int64_t head = 0, tail = 0;
    order[tail++] = s;
    lev[s] = 0;
    while (head < tail) {
        int64_t v = order[head++], first = tail;
        for (int64_t k = m->xadj[v]; k < m->xadj[v + 1]; k++) {
            int64_t w = m->adjncy[k];
            if (lev[w] < 0) {
                lev[w] = lev[v] + 1;
                order[tail++] = w;
            }
        }
        /* insertion sort of the new ones by degree: rows are short */
        for (int64_t a = first + 1; a < tail; a++) {
            int64_t w = order[a], dw = m->xadj[w + 1] - m->xadj[w], b = a;
            while (b > first) {
                int64_t u = order[b - 1], du = m->xadj[u + 1] - m->xadj[u];
                if (du < dw || (du == dw && u < w))
                    break;
                order[b] = u;
                b--;
            }
            order[b] = w;
        }
    }
    return tail;
}

static void reset_levels(int64_t *lev, const int64_t *order, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        lev[order[k]] = -1;
}

/* Pseudo-peripheral node of s's component (George-Liu): restart the BFS
 * from the lowest-degree node of the last level while the eccentricity
 * grows. Leaves lev[] at -1 on the component. */
static int64_t peripheral(const bench_mesh *m, int64_t s, int64_t *order, int64_t *lev)
{
    int64_t ecc = -1;
    for (int iter = 0; iter < 32; iter++) {
        int64_t n = bfs(m, s, order, lev);
        int64_t e = lev[order[n - 1]], best = -1, bestdeg = 0;
        for (int64_t k = n - 1; k >= 0 && lev[order[k]] == e; k--) {
            int64_t v = order[k], d = m->xadj[v + 1] - m->xadj[v];
            if (best < 0 || d < bestdeg || (d == bestdeg && v < best))
                best = v, bestdeg = d;
        }
        reset_levels(lev, order, n);
        if (e <= ecc)
            break;
        ecc = e;
        s = best;
    }
    return s;
}

/* newof[old] = new index: Cuthill-McKee per component (components taken
 * in order of their lowest node), the whole order reversed. */
static int rcm_order(const bench_mesh *m, int64_t *newof)
{
    int64_t n = m->nnodes;
    int64_t *lev = malloc((size_t)n * sizeof *lev + 1);
    int64_t *order = malloc((size_t)n * sizeof *order + 1);
    int64_t *perm = malloc((size_t)n * sizeof *perm + 1);
    unsigned char *done = xcalloc((size_t)n, 1);
    int rc = -1;
    if (lev && order && perm && done) {
        for (int64_t i = 0; i < n; i++)
            lev[i] = -1;
        int64_t pos = 0;
        for (int64_t i = 0; i < n; i++) {
            if (done[i])
                continue;
            int64_t s = peripheral(m, i, order, lev);
            int64_t c = bfs(m, s, perm + pos, lev);
            for (int64_t k = 0; k < c; k++)
                done[perm[pos + k]] = 1;
            pos += c;
        }
        for (int64_t k = 0; k < n; k++)
            newof[perm[k]] = n - 1 - k;
        rc = 0;
    }
    free(lev);
    free(order);
    free(perm);
    free(done);
    return rc;
}

/* Relabels the tets by newof[] (the graph is rebuilt from them, which keeps
 * rows sorted and needs no second CSR code path). */
static int renumber_rcm(bench_mesh *m, int64_t *tets)
{
    int64_t *newof = malloc((size_t)m->nnodes * sizeof *newof + 1);
    if (!newof || rcm_order(m, newof)) {
        free(newof);
        return -1;
    }
    m->orig = malloc((size_t)m->nnodes * sizeof *m->orig + 1);
    if (!m->orig) {
        free(newof);
        return -1;
    }
    for (int64_t i = 0; i < m->nnodes; i++)
        m->orig[newof[i]] = i;
    for (int64_t k = 0; k < m->ntets * 4; k++)
        tets[k] = newof[tets[k]];
    free(newof);
    free(m->xadj);
    free(m->adjncy);
    m->xadj = m->adjncy = NULL;
    return build_graph(m, tets);
}

int bench_mesh_load(const char *path, int order_rcm, bench_mesh *m, char *err,
                    size_t errlen)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "rb"); /* gmsh's own message for a missing file is vague */
    if (!f)
        return fail(err, errlen, "%s: %s", path, strerror(errno));
    fclose(f);
    int ierr = 0;
    gmshInitialize(0, NULL, 0, &ierr);
    if (ierr)
        return fail(err, errlen, "gmshInitialize failed");
    gmshOptionSetNumber("General.Terminal", 0, &ierr);
    int64_t *tets = NULL;
    int rc = read_gmsh(path, &m->nnodes, &tets, &m->ntets, err, errlen);
    gmshFinalize(&ierr);
    if (rc == 0 && build_graph(m, tets))
        rc = fail(err, errlen, "%s: out of memory building the node graph", path);
    if (rc == 0 && order_rcm && renumber_rcm(m, tets))
        rc = fail(err, errlen, "%s: out of memory in the RCM ordering", path);
    free(tets);
    if (rc)
        bench_mesh_free(m);
    return rc;
}

/* ---- partitions ---- */

static int metis_partition(const bench_mesh *m, int nparts, int32_t *part, char *err,
                           size_t errlen)
{
    if (m->nnodes > INT32_MAX || m->xadj[m->nnodes] > INT32_MAX)
        return fail(err, errlen, "mesh too large for METIS with 32-bit idx_t");
    idx_t nv = (idx_t)m->nnodes, ncon = 1, np = nparts, objval = 0;
    idx_t *xadj = malloc(((size_t)nv + 1) * sizeof *xadj);
    idx_t *adj = malloc((size_t)m->xadj[nv] * sizeof *adj + 1);
    idx_t *p = malloc((size_t)nv * sizeof *p + 1);
    int rc = -1;
    if (xadj && adj && p) {
        for (idx_t i = 0; i <= nv; i++)
            xadj[i] = (idx_t)m->xadj[i];
        for (int64_t k = 0; k < m->xadj[nv]; k++)
            adj[k] = (idx_t)m->adjncy[k];
        idx_t opt[METIS_NOPTIONS];
        METIS_SetDefaultOptions(opt);
        opt[METIS_OPTION_SEED] = 1; /* same partition on every run and rank */
        int mr = METIS_PartGraphKway(&nv, &ncon, xadj, adj, NULL, NULL, NULL, &np, NULL,
                                     NULL, opt, &objval, p);
        if (mr == METIS_OK) {
            for (idx_t i = 0; i < nv; i++)
                part[i] = (int32_t)p[i];
            rc = 0;
        } else {
            fail(err, errlen, "METIS_PartGraphKway failed (%d) for %d parts", mr, nparts);
        }
    } else {
        fail(err, errlen, "out of memory for METIS");
    }
    free(xadj);
    free(adj);
    free(p);
    return rc;
}

/* One .npart line: an integer in [0,nparts), blanks around it allowed. */
static int parse_part(const char *line, int nparts, int32_t *v)
{
    char *end;
    errno = 0;
    long x = strtol(line, &end, 10);
    if (end == line || errno)
        return -1;
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    if (*end || x < 0 || x >= nparts)
        return -1;
    *v = (int32_t)x;
    return 0;
}

static int read_partition(const char *path, int64_t nnodes, int nparts, int32_t *part,
                          char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(err, errlen, "%s: %s", path, strerror(errno));
    char line[128];
    int64_t n = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        int32_t v;
        if (n >= nnodes)
            rc = fail(err, errlen, "%s: more than %lld lines (one per mesh node)", path,
                      (long long)nnodes);
        else if (parse_part(line, nparts, &v))
            rc = fail(err, errlen, "%s:%lld: '%.*s' is not a part number in [0,%d)", path,
                      (long long)n + 1, (int)strcspn(line, "\r\n"), line, nparts);
        else
            part[n++] = v;
    }
    fclose(f);
    if (rc == 0 && n != nnodes)
        rc = fail(err, errlen, "%s: %lld lines, the mesh has %lld nodes (one line each)",
                  path, (long long)n, (long long)nnodes);
    return rc;
}

int bench_mesh_partition(const bench_mesh *m, int nparts, const char *partition_file,
                         int32_t *part, char *err, size_t errlen)
{
    if (nparts < 1)
        return fail(err, errlen, "%d parts: need at least 1", nparts);
    if (partition_file)
        return read_partition(partition_file, m->nnodes, nparts, part, err, errlen);
    if (nparts == 1 || m->nnodes == 0) {
        for (int64_t i = 0; i < m->nnodes; i++)
            part[i] = 0;
        return 0;
    }
    return metis_partition(m, nparts, part, err, errlen);
}

int bench_mesh_write_partition(const char *path, int64_t n, const int32_t *part,
                               char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return fail(err, errlen, "%s: %s", path, strerror(errno));
    for (int64_t i = 0; i < n; i++)
        fprintf(f, "%d\n", (int)part[i]);
    if (ferror(f) | fclose(f)) /* both: fclose must run */
        return fail(err, errlen, "%s: write failed: %s", path, strerror(errno));
    return 0;
}

/* A node is held by p if it is p's own, or a neighbour of one of p's. */
static int held_by(const bench_mesh *m, const int32_t *part, int p, int64_t i)
{
    if (part[i] == p)
        return 1;
    for (int64_t k = m->xadj[i]; k < m->xadj[i + 1]; k++)
        if (part[m->adjncy[k]] == p)
            return 1;
    return 0;
}

int bench_mesh_part_nodes(const bench_mesh *m, const int32_t *part, int p, int64_t *n,
                          int64_t **idx, unsigned char **owned)
{
    int64_t cnt = 0;
    for (int64_t i = 0; i < m->nnodes; i++)
        cnt += held_by(m, part, p, i);
    *idx = malloc((size_t)cnt * sizeof **idx + 1);
    *owned = malloc((size_t)cnt + 1);
    if (!*idx || !*owned) {
        free(*idx);
        free(*owned);
        *idx = NULL;
        *owned = NULL;
        return -1;
    }
    int64_t k = 0;
    for (int64_t i = 0; i < m->nnodes; i++)
        if (held_by(m, part, p, i)) {
            (*idx)[k] = i;
            (*owned)[k++] = part[i] == p;
        }
    *n = cnt;
    return 0;
}

int64_t bench_mesh_bandwidth(const bench_mesh *m)
{
    int64_t bw = 0;
    for (int64_t i = 0; i < m->nnodes; i++)
        for (int64_t k = m->xadj[i]; k < m->xadj[i + 1]; k++) {
            int64_t d = m->adjncy[k] > i ? m->adjncy[k] - i : i - m->adjncy[k];
            if (d > bw)
                bw = d;
        }
    return bw;
}

void bench_mesh_free(bench_mesh *m)
{
    free(m->xadj);
    free(m->adjncy);
    free(m->orig);
    memset(m, 0, sizeof *m);
}
