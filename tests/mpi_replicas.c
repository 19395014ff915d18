/*
 * mpi_replicas.c -- replicated layouts (mesh halo nodes) and the replica
 * policies of seed 003.
 *
 * Which rank wrote an element is made visible by giving every replica a
 * value that names its holder: element x on rank r is the 8-byte word
 * x << 8 | r, so the file itself says who wrote each element. The writers
 * are compared with references written here from the policies'
 * definitions (collio.h, seed 003): the seed's own example (Table 1 ->
 * Table 2), and random replicated layouts -- long runs held by several
 * ranks, so that IDG's chain crosses many ranks' file-order domains --
 * against a sequential IDG in a dozen lines. Round trips with consistent
 * replicas (the pattern of the element on every holder) check every
 * policy with every executor byte-exact (packed, global-array and
 * datatype memory), a read filling every replica,
 * each plan reused 3 times; every policy writes each element exactly once
 * (the file bytes of all ranks sum to the file). Bad replicated layouts
 * give the documented code on every rank.
 *
 * Usage: mpi_replicas [FILTER] (only cases whose description contains it).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const strategies[] = {"serial",     "independent", "two_phase",
                                         "multiphase", "subgroup",    "auto"};
#define NSTRAT ((int)(sizeof strategies / sizeof strategies[0]))

/* ------------------------------------------------- a replicated "mesh" */

/* holds[x * P + r]: rank r holds element x; owner[x]. Same on every rank. */
typedef struct mesh {
    int64_t n;
    int P;
    unsigned char *holds;
    int *owner;
} mesh;

static uint64_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* Runs of 1..24 elements owned by one rank; some runs are also held whole
 * by a companion rank (chains of replicas across domains); single extra
 * holders here and there, more where the owner changes (like a halo). */
static void mesh_random(mesh *m, int64_t n, int P, uint64_t seed)
{
    uint64_t s = seed * 7919 + 17;
    m->n = n;
    m->P = P;
    m->holds = calloc((size_t)(n * P + 1), 1);
    m->owner = malloc((size_t)(n + 1) * sizeof *m->owner);
    int64_t x = 0;
    while (x < n) {
        int64_t len = 1 + (int64_t)(rnd(&s) % 24);
        int own = (int)(rnd(&s) % (uint64_t)P);
        int comp = rnd(&s) % 3 == 0 ? (int)(rnd(&s) % (uint64_t)P) : -1;
        for (int64_t k = 0; k < len && x < n; k++, x++) {
            m->owner[x] = own;
            m->holds[x * P + own] = 1;
            if (comp >= 0)
                m->holds[x * P + comp] = 1;
            if (k == 0 || k == len - 1 || rnd(&s) % 8 == 0)
                m->holds[x * P + rnd(&s) % (uint64_t)P] = 1;
        }
    }
}

/* Seed 003, Table 1: 8 nodes on 2 partitions. */
static void mesh_table1(mesh *m)
{
    static const int owner[8] = {0, 0, 1, 0, 1, 0, 1, 0};
    static const int shared[8] = {0, 1, 1, 0, 1, 1, 0, 1};
    m->n = 8;
    m->P = 2;
    m->holds = calloc(16, 1);
    m->owner = malloc(8 * sizeof *m->owner);
    for (int x = 0; x < 8; x++) {
        m->owner[x] = owner[x];
        m->holds[x * 2 + owner[x]] = 1;
        if (shared[x])
            m->holds[x * 2 + 0] = m->holds[x * 2 + 1] = 1;
    }
}

static void mesh_free(mesh *m)
{
    free(m->holds);
    free(m->owner);
}

static int held(const mesh *m, int64_t x, int r)
{
    return r >= 0 && r < m->P && m->holds[x * m->P + r];
}

static int nholders(const mesh *m, int64_t x)
{
    int c = 0;
    for (int r = 0; r < m->P; r++)
        c += held(m, x, r);
    return c;
}

/* This rank's elements, in a shuffled buffer order, and owned flags. */
static int64_t mesh_local(const mesh *m, int rank, uint64_t seed, int64_t **idx,
                          unsigned char **own)
{
    int64_t n = 0;
    *idx = malloc((size_t)(m->n + 1) * sizeof **idx);
    *own = malloc((size_t)(m->n + 1));
    for (int64_t x = 0; x < m->n; x++)
        if (held(m, x, rank))
            (*idx)[n++] = x;
    uint64_t s = seed + (uint64_t)rank * 31;
    for (int64_t i = n - 1; i > 0 && seed % 2 == 1; i--) { /* odd seeds: shuffled */
        int64_t j = (int64_t)(rnd(&s) % (uint64_t)(i + 1)), t = (*idx)[i];
        (*idx)[i] = (*idx)[j];
        (*idx)[j] = t;
    }
    for (int64_t i = 0; i < n; i++)
        (*own)[i] = m->owner[(*idx)[i]] == rank;
    return n;
}

/* ------------------------------------------------ reference writers */

/* The definitions of collio.h / seed 003, sequentially. */
static void reference(const mesh *m, int policy, int *w)
{
    int prev = -1;
    for (int64_t x = 0; x < m->n; x++) {
        int o = m->owner[x];
        switch (policy) {
        case TU_REPLICAS_OWNER:
            w[x] = o;
            break;
        case TU_REPLICAS_FIRST:
            for (w[x] = 0; !held(m, x, w[x]); w[x]++)
                ;
            break;
        default: /* IDG */
            if (nholders(m, x) == 1)
                w[x] = o;
            else if (held(m, x, prev))
                w[x] = prev;
            else if (x + 1 < m->n && held(m, x, m->owner[x + 1]))
                w[x] = m->owner[x + 1];
            else
                w[x] = o;
        }
        prev = w[x];
    }
}

/* --------------------------------------------------------- running */

typedef struct run {
    collio_stats st;
    /* the plan's "replicas" stats (collio_plan_stat) */
    double policy, intervals_per_rank, replicated_pct, lb_pct;
    int64_t written;
    int ok;
} run;

/* Writes holder-tagged words through (strategy, policy) on comm and
 * returns the writer of every element as read back from the file
 * (rank 0 of comm reads it; broadcast). */
static int *write_tagged(tu_ctx *t, MPI_Comm comm, const mesh *m, uint64_t seed,
                         const char *strategy, int policy, uint64_t rseed, run *out)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    int64_t *idx;
    unsigned char *own;
    int64_t n = mesh_local(m, rank, seed, &idx, &own);
    uint64_t *buf = malloc((size_t)(n + 1) * sizeof *buf);
    for (int64_t i = 0; i < n; i++)
        buf[i] = (uint64_t)idx[i] << 8 | (uint64_t)rank;
    collio_layout *l = NULL;
    collio_plan *p = NULL;
    collio_hints *o = TU_HINTS(t, "replicas.policy=%s,replicas.seed=%llu",
                               tu_replicas_name(policy), (unsigned long long)rseed);
    int *w = NULL;
    out->ok = 0;
    int rc = collio_layout_index_list_replicated(comm, m->n, n, idx, own, 8, &l);
    if (TU_RC(t, rc, COLLIO_OK, "layout"))
        rc = collio_plan_create(comm, l, strategy, o, &p);
    collio_hints_free(&o);
    if (rc == COLLIO_OK && TU_RC(t, rc, COLLIO_OK, "plan")) {
        /* named by rank 0 of comm: comm may be a part of the world */
        static long long made;
        char path[600];
        snprintf(path, sizeof path, "%s/collio-replicas-%ld-%lld.bin", t->tmpdir,
                 (long)t->pid0, made++);
        MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, comm);
        collio_file *f = NULL;
        rc = collio_file_open(comm, path, COLLIO_FILE_CREATE, NULL, &f);
        if (rc == COLLIO_OK)
            rc = collio_write(p, f, buf, (size_t)n * 8);
        int rc2 = f ? collio_file_close(&f) : rc;
        collio_plan_stats(p, &out->st);
        out->policy = TU_STAT(t, p, "replicas.policy");
        out->intervals_per_rank = TU_STAT(t, p, "replicas.intervals_per_rank");
        out->replicated_pct = TU_STAT(t, p, "replicas.replicated_pct");
        out->lb_pct = TU_STAT(t, p, "replicas.lb_pct");
        out->written = (int64_t)TU_STAT(t, p, "replicas.written");
        TU_CHECK(t, out->policy == policy, "stat replicas.policy %g, hint %s",
                 out->policy, tu_replicas_name(policy));
        if (TU_RC(t, rc ? rc : rc2, COLLIO_OK, "write")) {
            w = malloc((size_t)m->n * sizeof *w);
            uint64_t *file = malloc((size_t)m->n * 8 + 1);
            int good = 0;
            if (rank == 0) {
                FILE *fp = fopen(path, "rb");
                good = fp && fread(file, 8, (size_t)m->n, fp) == (size_t)m->n;
                if (fp)
                    fclose(fp);
                for (int64_t x = 0; good && x < m->n; x++) {
                    w[x] = (int)(file[x] & 0xff);
                    good = file[x] >> 8 == (uint64_t)x;
                }
                remove(path);
            }
            MPI_Bcast(&good, 1, MPI_INT, 0, comm);
            MPI_Bcast(w, (int)m->n, MPI_INT, 0, comm);
            TU_CHECK(t, good, "the file holds every element's own index");
            out->ok = good;
            free(file);
        }
    }
    collio_plan_free(&p);
    collio_layout_free(&l);
    free(idx);
    free(own);
    free(buf);
    return w;
}

/* Seed 003's example at 2 ranks (ranks 0 and 1 of the world; the others
 * sit this one out). */
static void test_table(tu_ctx *t)
{
    if (t->nranks < 2) {
        tu_skip(t, "the seed's example needs 2 ranks");
        return;
    }
    MPI_Comm two;
    MPI_Comm_split(t->comm, t->rank < 2 ? 0 : MPI_UNDEFINED, t->rank, &two);
    if (two == MPI_COMM_NULL)
        return;
    mesh m;
    mesh_table1(&m);
    static const struct {
        int policy;
        int want[8];
    } cases[] = {
        {TU_REPLICAS_IDG, {0, 0, 0, 0, 0, 0, 1, 1}}, /* seed 003 Table 2 */
        {TU_REPLICAS_OWNER, {0, 0, 1, 0, 1, 0, 1, 0}},
        {TU_REPLICAS_FIRST, {0, 0, 0, 0, 0, 0, 1, 0}},
    };
    for (int c = 0; c < 3; c++)
        for (int s = 0; s < NSTRAT; s++) {
            tu_case(t, "table 1 -> 2: %s with %s", tu_replicas_name(cases[c].policy),
                    strategies[s]);
            run r;
            int *w = write_tagged(t, two, &m, 2, strategies[s], cases[c].policy, 0, &r);
            int same = w != NULL;
            for (int x = 0; w && x < 8; x++)
                same &= w[x] == cases[c].want[x];
            TU_CHECK(t, same, "writers equal the table");
            if (cases[c].policy == TU_REPLICAS_IDG && r.ok) {
                /* 2 intervals ([0,6) on rank 0, [6,8) on rank 1), 5 of 8
                 * replicated, written 6 and 2: LB = 4 / 4 */
                TU_CHECK(t, r.intervals_per_rank == 1.0, "intervals %g",
                         r.intervals_per_rank);
                TU_CHECK(t, r.replicated_pct == 62.5, "replicated %g", r.replicated_pct);
                TU_CHECK(t, r.lb_pct == 100.0, "lb %g", r.lb_pct);
                TU_CHECK(t, r.written == (t->rank == 0 ? 6 : 2), "written");
            }
            free(w);
        }
    mesh_free(&m);
    MPI_Comm_free(&two);
}

/* Random replicated layouts: writers equal the sequential reference. */
static void test_random_writers(tu_ctx *t)
{
    static const int policies[] = {TU_REPLICAS_IDG, TU_REPLICAS_OWNER, TU_REPLICAS_FIRST};
    for (uint64_t seed = 1; seed <= 8; seed++) {
        mesh m;
        mesh_random(&m, 40 + (int64_t)seed * 37, t->nranks, seed);
        int *want = malloc((size_t)m.n * sizeof *want);
        for (int pi = 0; pi < 3; pi++) {
            reference(&m, policies[pi], want);
            const char *strat = strategies[(seed + (uint64_t)pi) % NSTRAT];
            tu_case(t, "random layout seed %llu (%lld elements): %s with %s",
                    (unsigned long long)seed, (long long)m.n,
                    tu_replicas_name(policies[pi]), strat);
            run r;
            int *w = write_tagged(t, t->comm, &m, seed, strat, policies[pi], 0, &r);
            int64_t bad = w ? 0 : 1;
            for (int64_t x = 0; w && x < m.n; x++)
                bad += w[x] != want[x];
            TU_CHECK(t, bad == 0, "%lld writers differ from the reference",
                     (long long)bad);
            int64_t sum = 0;
            MPI_Allreduce(&r.written, &sum, 1, MPI_INT64_T, MPI_SUM, t->comm);
            TU_CHECK(t, sum == m.n, "written sums to %lld", (long long)sum);
            free(w);
        }
        /* random and domain: some holder writes each element; random is
         * reproducible for a seed */
        int *w1[2] = {NULL, NULL};
        for (int k = 0; k < 2; k++) {
            tu_case(t, "random layout seed %llu: random (seed 5), run %d",
                    (unsigned long long)seed, k);
            run r;
            w1[k] = write_tagged(t, t->comm, &m, seed, "independent", TU_REPLICAS_RANDOM,
                                 5, &r);
        }
        tu_case(t, "random layout seed %llu: domain", (unsigned long long)seed);
        run r;
        int *wd =
            write_tagged(t, t->comm, &m, seed, "multiphase", TU_REPLICAS_DOMAIN, 0, &r);
        int64_t bad = !w1[0] || !w1[1] || !wd;
        for (int64_t x = 0; !bad && x < m.n; x++)
            bad += !held(&m, x, w1[0][x]) || w1[0][x] != w1[1][x] || !held(&m, x, wd[x]);
        TU_CHECK(t, bad == 0,
                 "random/domain: %lld elements written by a non-holder or "
                 "not reproducible",
                 (long long)bad);
        free(w1[0]);
        free(w1[1]);
        free(wd);
        free(want);
        mesh_free(&m);
    }
}

/* Consistent replicas: every policy x executor round-trips byte-exact, 3
 * times per plan; a read fills every replica; the file is written once. */
/* The user's memory: packed, the full-size global array, or an MPI
 * datatype that leaves a gap of one element after each element. */
enum { MEM_PACKED = 0, MEM_GLOBAL, MEM_TYPE };
static const char *const mem_name[] = {"", " (global memory)", " (datatype memory)"};

static void test_roundtrip(tu_ctx *t, size_t esize, int mem)
{
    mesh m;
    mesh_random(&m, 333, t->nranks, 11);
    int64_t *idx;
    unsigned char *own;
    int64_t n = mesh_local(&m, t->rank, 11, &idx, &own);
    size_t bytes = mem == MEM_GLOBAL ? (size_t)m.n * esize
                   : mem == MEM_TYPE ? (size_t)(n > 0 ? 2 * n - 1 : 0) * esize
                                     : (size_t)n * esize;
    unsigned char *buf = malloc(bytes + 1), *back = malloc(bytes + 1);
    memset(buf, 0, bytes + 1);
    int64_t *at = malloc((size_t)(n + 1) * sizeof *at); /* element i's slot */
    for (int64_t i = 0; i < n; i++) {
        at[i] = mem == MEM_GLOBAL ? idx[i] : mem == MEM_TYPE ? 2 * i : i;
        collio_pattern_element((uint64_t)idx[i], 3, esize, buf + (size_t)at[i] * esize);
    }
    MPI_Datatype type = MPI_DATATYPE_NULL;
    if (mem == MEM_TYPE) {
        MPI_Type_vector((int)n, (int)esize, 2 * (int)esize, MPI_BYTE, &type);
        MPI_Type_commit(&type);
    }
    for (int policy = 0; policy < TU_REPLICAS__COUNT; policy++)
        for (int s = 0; s < NSTRAT; s++) {
            tu_case(t, "round trip esize %zu%s: %s with %s", esize, mem_name[mem],
                    tu_replicas_name(policy), strategies[s]);
            if (!tu_case_enabled(t))
                continue;
            collio_layout *l = NULL;
            collio_plan *p = NULL;
            collio_hints *o = TU_HINTS(t, "replicas.policy=%s", tu_replicas_name(policy));
            int rc =
                collio_layout_index_list_replicated(t->comm, m.n, n, idx, own, esize, &l);
            if (rc == COLLIO_OK && mem == MEM_GLOBAL)
                rc = collio_layout_set_memory_global(l);
            if (rc == COLLIO_OK && mem == MEM_TYPE)
                rc = collio_layout_set_memory_datatype(l, type, 1);
            if (rc == COLLIO_OK)
                TU_CHECK(t, collio_layout_buffer_bytes(l) == bytes,
                         "buffer bytes %zu, want %zu", collio_layout_buffer_bytes(l),
                         bytes);
            if (rc == COLLIO_OK)
                rc = collio_plan_create(t->comm, l, strategies[s], o, &p);
            collio_hints_free(&o);
            if (!TU_RC_ALL(t, rc, COLLIO_OK, "layout and plan")) {
                collio_layout_free(&l);
                continue;
            }
            char path[600];
            tu_temp_path(t, "rt", path, sizeof path);
            for (int call = 0; call < 3; call++) {
                if (!tu_plan_io(t, p, path, NULL, 1, buf, bytes))
                    break;
                collio_stats st;
                collio_plan_stats(p, &st);
                int64_t fb = st.file_bytes, sum = 0;
                MPI_Allreduce(&fb, &sum, 1, MPI_INT64_T, MPI_SUM, t->comm);
                TU_CHECK(t, sum == m.n * (int64_t)esize, "file bytes %lld, want %lld",
                         (long long)sum, (long long)(m.n * (int64_t)esize));
                TU_CHECK(t, tu_check_file(t, path, m.n, esize, 3, 0, 0, 1) == 0,
                         "file byte-exact");
                memset(back, 0xEE, bytes + 1);
                if (mem != MEM_PACKED) /* what is not an element stays as it was */
                    memcpy(back, buf, bytes);
                for (int64_t i = 0; mem != MEM_PACKED && i < n; i++)
                    memset(back + (size_t)at[i] * esize, 0xEE, esize);
                if (!tu_plan_io(t, p, path, NULL, 0, back, bytes))
                    break;
                TU_CHECK(t, memcmp(back, buf, bytes) == 0 && back[bytes] == 0xEE,
                         "read fills every replica (call %d)", call);
            }
            tu_remove(t, path);
            collio_plan_free(&p);
            collio_layout_free(&l);
        }
    if (type != MPI_DATATYPE_NULL)
        MPI_Type_free(&type);
    free(at);
    free(idx);
    free(own);
    free(buf);
    free(back);
    mesh_free(&m);
}

/* Bad replicated layouts: the documented code on every rank. */
static void test_bad(tu_ctx *t)
{
    int P = t->nranks, me = t->rank;
    int64_t per = 10, N = per * P;
    enum { TWO_OWNERS, NO_OWNER, NOBODY, TWICE, TWICE_OWNED, RANGE, FLAG, NBAD };
    static const char *const what[NBAD] = {"two owners",
                                           "held but owned by none",
                                           "held by nobody",
                                           "held twice by one rank",
                                           "owned twice by one rank",
                                           "index out of range",
                                           "owned flag 2"};
    static const int want[NBAD] = {
        COLLIO_ERR_OVERLAP, COLLIO_ERR_COVERAGE, COLLIO_ERR_COVERAGE, COLLIO_ERR_OVERLAP,
        COLLIO_ERR_OVERLAP, COLLIO_ERR_RANGE,    COLLIO_ERR_ARG};
    static const char *const text[NBAD] = {
        "owned by two ranks", "owned by none", "held by no rank", "held twice",
        "held twice",         "outside",       "not 0 or 1"};
    for (int b = 0; b < NBAD; b++) {
        tu_case(t, "bad replicated layout: %s", what[b]);
        if (b == TWO_OWNERS && P < 2) {
            tu_skip(t, "two owners need 2 ranks");
            continue;
        }
        int64_t idx[16];
        unsigned char own[16];
        int64_t n = 0;
        for (int64_t k = 0; k < per; k++) {
            idx[n] = me * per + k;
            own[n++] = 1;
        }
        if (b == TWO_OWNERS && me == 1) {
            idx[n] = 0;
            own[n++] = 1;
        }
        if (b == NO_OWNER && me == 0)
            own[0] = 0;
        if (b == NOBODY && me == 0)
            idx[0] = idx[--n];
        if (b == TWICE && me == 0) {
            idx[n] = 1;
            own[n++] = 0;
        }
        if (b == TWICE_OWNED && me == 0) {
            idx[n] = 1;
            own[n++] = 1;
        }
        if (b == RANGE && me == P - 1)
            idx[n - 1] = N;
        if (b == FLAG && me == 0)
            own[1] = 2;
        collio_layout *l = NULL;
        int rc = collio_layout_index_list_replicated(t->comm, N, n, idx, own, 4, &l);
        TU_RC_ALL(t, rc, want[b], what[b]);
        TU_CHECK(t, l == NULL, "no layout on failure");
        TU_CHECK(t, strstr(collio_last_error(), text[b]) != NULL, "error text '%s'",
                 collio_last_error());
        collio_layout_free(&l);
    }
    /* a plain index list still rejects an element held twice */
    tu_case(t, "plain index list rejects replicas");
    if (P >= 2) {
        int64_t idx[11];
        int64_t n = 0;
        for (int64_t k = 0; k < per; k++)
            idx[n++] = me * per + k;
        if (me == 1)
            idx[n++] = 0;
        collio_layout *l = NULL;
        TU_RC_ALL(t, collio_layout_index_list(t->comm, N, n, idx, 4, &l),
                  COLLIO_ERR_OVERLAP, "plain list with a replica");
        collio_layout_free(&l);
    }
    tu_case(t, "policy names");
    TU_CHECK(t, collio_option_value("replicas.policy", "idg") == TU_REPLICAS_IDG, "idg");
    TU_CHECK(t, collio_option_value("replicas.policy", "nope") == -1, "unknown name");
    TU_CHECK(t, tu_replicas_name(TU_REPLICAS__COUNT) == NULL, "out of range");
    tu_case(t, "bad policy value");
    {
        mesh m;
        mesh_random(&m, 50, P, 3);
        int64_t *idx;
        unsigned char *own;
        int64_t n = mesh_local(&m, me, 3, &idx, &own);
        collio_layout *l = NULL;
        collio_plan *p = NULL;
        /* a set of hints cannot hold it: rejected where it is set ... */
        collio_hints *o = TU_HINTS(t, "%s", "");
        TU_RC(t, collio_hints_set_int(o, "replicas.policy", TU_REPLICAS__COUNT),
              COLLIO_ERR_ARG, "policy out of range (collio_hints_set_int)");
        TU_RC(t, collio_hints_set(o, "replicas.policy", "nope"), COLLIO_ERR_ARG,
              "unknown policy name (collio_hints_set)");
        TU_CHECK(t, strstr(collio_last_error(), "replicas.policy") != NULL,
                 "'%s' names replicas.policy", collio_last_error());
        /* ... and in COLLIO_HINTS it fails the plan on every rank */
        int rc = collio_layout_index_list_replicated(t->comm, m.n, n, idx, own, 4, &l);
        setenv("COLLIO_HINTS", "replicas.policy=6", 1);
        if (rc == COLLIO_OK)
            rc = collio_plan_create(t->comm, l, "independent", o, &p);
        unsetenv("COLLIO_HINTS");
        collio_hints_free(&o);
        TU_RC_ALL(t, rc, COLLIO_ERR_ARG, "policy out of range");
        TU_CHECK(t, strstr(collio_last_error(), "replicas.policy") != NULL,
                 "'%s' names replicas.policy", collio_last_error());
        collio_plan_free(&p);
        collio_layout_free(&l);
        free(idx);
        free(own);
        mesh_free(&m);
    }
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_replicas");
    test_table(&t);
    test_random_writers(&t);
    test_roundtrip(&t, 8, MEM_PACKED);
    test_roundtrip(&t, 3, MEM_PACKED);
    test_roundtrip(&t, 17, MEM_GLOBAL);
    test_roundtrip(&t, 5, MEM_TYPE);
    test_bad(&t);
    return tu_finish(&t);
}
