/*
 * take.c -- one collective MPI-IO data access: collio's or the MPI
 * library's, and collio's execution of it.
 *
 * Per call (collective over the file's communicator):
 *  1. local: can collio do it at all? (datarep "native", not atomic, not
 *     MPI_MODE_SEQUENTIAL, datatypes the flattener takes, file extents
 *     that increase, a read inside the file) -- the byte extents of the
 *     access (flatten.c) and a digest of them. The extents are checked,
 *     not the filetype alone: HDF5's chunked datasets give filetypes whose
 *     data reach past their extent (they would overlap if tiled), legal
 *     and increasing for an access that stays in the first copy;
 *  2. two allreduces: the worst reason not to (any rank's), the extents'
 *     lowest and highest byte, the largest power of two (<= 8) dividing
 *     every offset and length (the element size collio plans with); then
 *     the XOR of every rank's digest of its extents relative to the
 *     lowest byte: the pattern's key, the same on every rank, the same for
 *     the same decomposition written at another offset (the next record,
 *     dataset or variable);
 *  3. the plan cache (CMIO_CACHE_MAX entries for the process, least
 *     recently used out, keyed by the pattern and the ranks): a hit --
 *     agreed by every rank (one more allreduce: ranks that also write
 *     files of other groups may have evicted other entries) -- reuses the
 *     plan (the next time step, in this file or the next); a miss makes
 *     the sparse extents layout (collio_layout_extents, rebased to the
 *     lowest byte) and its plan -- unless the ranks span several nodes
 *     and every rank's pieces are large (CMIO_DEFER_PIECE_BYTES, cmio.h):
 *     then the miss only notes the pattern and the call goes to MPI, and
 *     the pattern's next call makes the plan (not forced, no strategy
 *     named);
 *  4. take or pass, decided once per pattern and operation: forced
 *     (COLLIO_MPIIO=force, or a strategy named in the info), or, by
 *     default, collio's model (collio_plan_predict): when "auto" would run
 *     two_phase -- the MPI library's own collective I/O -- the call goes to
 *     the MPI library unchanged;
 *  5. collio_write_at / collio_read_at at the pattern's lowest byte,
 *     POSIX on the application's file (collio_file_open INPLACE, opened on
 *     first use): no temporary, no rename. The call ends with every rank's
 *     requests done (collio agrees on the result), so after it -- as after
 *     MPI's own collective -- every rank's reads see the data
 *     (docs/mpiio.md, "Consistency"). The individual file pointer moves as
 *     MPI moves it (PMPI_File_seek), the status counts the bytes moved,
 *     errors go through the file's error handler as MPI_ERR_IO.
 */
#include "cmio.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 31);
}

/* Local reasons collio cannot take this call on this rank. */
/* 1 when the (coalesced) extents strictly increase without overlapping. */
static int increasing(const cmio_extents *x)
{
    for (int64_t i = 1; i < x->n; i++)
        if (x->off[i - 1] + x->len[i - 1] > x->off[i])
            return 0;
    return 1;
}

static cmio_why local_why(const cmio_file *s, int writing)
{
    if (s->mode == CMIO_OFF)
        return CMIO_WHY_OFF;
    if (!s->native)
        return CMIO_WHY_DATAREP;
    if (s->amode & MPI_MODE_SEQUENTIAL)
        return CMIO_WHY_SEQUENTIAL;
    if ((writing && (s->amode & MPI_MODE_RDONLY))
        || (!writing && (s->amode & MPI_MODE_WRONLY)))
        return CMIO_WHY_RDONLY;
    if (s->cf_failed)
        return CMIO_WHY_PATH;
    int atomic = 0;
    PMPI_File_get_atomicity(s->fh, &atomic);
    return atomic ? CMIO_WHY_ATOMIC : CMIO_TAKEN;
}

/* collio forced on this file: every call it can take is taken, planned
 * at its first call. */
static int forced(const cmio_file *s)
{
    return s->mode == CMIO_FORCE || s->strategy[0] != '\0';
}

/* The answer of spans_nodes for each group of ranks that asked: kept for
 * the process's life and never evicted, so that every rank of a group
 * holds it from the same call on (a group's files are opened, and their
 * first calls made, by all its ranks together) and none enters the split
 * while another skips it. A program with a file per step asks once, not
 * per file: the split makes a communicator, as costly as a small file's
 * calls. */
typedef struct group_nodes {
    uint64_t group;
    int nodes;
    struct group_nodes *next;
} group_nodes;
static group_nodes *known_nodes = NULL;

/* Collective over s->comm, once per group of ranks: 1 when its ranks run
 * on several nodes (MPI's shared-memory split; the same answer on every
 * rank). */
static int spans_nodes(cmio_file *s)
{
    int size = 1;
    MPI_Comm_size(s->comm, &size);
    if (s->nodes == 0 && size == 1) /* (one rank: one node, nothing to ask) */
        s->nodes = 1;
    for (group_nodes *k = known_nodes; s->nodes == 0 && k != NULL; k = k->next)
        if (k->group == s->group)
            s->nodes = k->nodes;
    if (s->nodes == 0) {
        MPI_Comm node = MPI_COMM_NULL;
        int n = 0, P = 0;
        MPI_Comm_size(s->comm, &P);
        if (MPI_Comm_split_type(s->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node)
                == MPI_SUCCESS
            && node != MPI_COMM_NULL) {
            MPI_Comm_size(node, &n);
            MPI_Comm_free(&node);
        }
        s->nodes = n > 0 && n < P ? 2 : 1;
        group_nodes *k = malloc(sizeof *k);
        if (k != NULL && s->group != 0) { /* (0: no digest, never reused) */
            *k = (group_nodes){s->group, s->nodes, known_nodes};
            known_nodes = k;
        } else {
            free(k);
        }
    }
    return s->nodes == 2;
}

/* The pattern's summary, reduced over the file's ranks. */
typedef struct summary {
    cmio_why why;
    int64_t lo, hi; /* lowest byte, end of the highest */
    int tz;         /* trailing zero bits common to every offset and length */
    int large;      /* several nodes, every rank's mean piece >=
                       CMIO_DEFER_PIECE_BYTES, none forced */
    uint64_t key;
    int64_t pend_ns; /* the group's last timed call: the slowest rank's (policy.c) */
} summary;

static int summarize(cmio_file *s, cmio_why why, int writing, summary *out)
{
    const cmio_extents *fx = &s->fx;
    int64_t lo = INT64_MAX, hi = 0;
    uint64_t bits = 0;
    for (int64_t i = 0; why == CMIO_TAKEN && i < fx->n; i++) {
        int64_t a = fx->off[i], b = fx->off[i] + fx->len[i];
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
        bits |= (uint64_t)a | (uint64_t)fx->len[i];
    }
    if (why == CMIO_TAKEN && !writing && hi > 0) {
        MPI_Offset size = 0;
        if (PMPI_File_get_size(s->fh, &size) != MPI_SUCCESS || size < hi)
            why = CMIO_WHY_EOF; /* MPI reads short there; collio would refuse */
    }
    int rank = 0;
    MPI_Comm_rank(s->comm, &rank);
    int tz = bits == 0 ? 3 : __builtin_ctzll(bits);
    /* any rank's small pieces, or collio forced on it, or one node: plan at
     * once (a rank without data has no small pieces) */
    int64_t small =
        forced(s) || (fx->n > 0 && fx->bytes < (int64_t)CMIO_DEFER_PIECE_BYTES * fx->n);
    if (!spans_nodes(s)) /* (on every rank: collective, the first time) */
        small = 1;
    const int op = writing ? 0 : 1;
    int64_t in[7] = {(int64_t)why,
                     -lo,
                     hi,
                     -(int64_t)(tz < 3 ? tz : 3),
                     small,
                     cmio_policy_pending_ns(s),
                     -cmio_policy_streak_hint(s, op)},
            o[7];
    if (MPI_Allreduce(in, o, 7, MPI_INT64_T, MPI_MAX, s->comm) != MPI_SUCCESS)
        return MPI_ERR_OTHER;
    cmio_policy_streak_agreed(s, op, -o[6]);
    out->why = (cmio_why)o[0];
    out->lo = -o[1];
    out->hi = o[2];
    out->tz = (int)-o[3];
    out->large = o[4] == 0;
    out->pend_ns = o[5];
    out->key = 0;
    if (out->why != CMIO_TAKEN || out->hi == 0)
        return MPI_SUCCESS;
    /* the extents relative to the lowest byte of all: the same
     * decomposition elsewhere in the file is the same pattern */
    uint64_t h = mix(0x636d696f, (uint64_t)rank + 1), hout = 0;
    for (int64_t i = 0; i < fx->n; i++)
        h = mix(mix(h, (uint64_t)(fx->off[i] - out->lo)), (uint64_t)fx->len[i]);
    if (MPI_Allreduce(&h, &hout, 1, MPI_UINT64_T, MPI_BXOR, s->comm) != MPI_SUCCESS)
        return MPI_ERR_OTHER;
    out->key = mix(mix(hout, (uint64_t)(out->hi - out->lo)), (uint64_t)out->tz);
    return MPI_SUCCESS;
}

static cmio_entry cache[CMIO_CACHE_MAX];
static uint64_t cache_clock = 0;

/* Collective: the cache entry of (key, s's ranks), found on every rank
 * (*made 0), or (re)made (*made 1, an old plan freed): in the least
 * recently used slot where this rank had none. */
static cmio_entry *lookup(cmio_file *s, uint64_t key, int *made)
{
    cmio_entry *e = NULL, *victim = &cache[0];
    for (int i = 0; i < CMIO_CACHE_MAX; i++) {
        cmio_entry *c = &cache[i];
        if (c->used > 0 && c->key == key && c->group == s->group)
            e = c;
        if (c->used < victim->used)
            victim = c;
    }
    int hit = e != NULL, all = 0;
    if (MPI_Allreduce(&hit, &all, 1, MPI_INT, MPI_MIN, s->comm) != MPI_SUCCESS)
        all = 0;
    *made = !all;
    if (e == NULL)
        e = victim;
    if (!all) {
        cmio_async_settle(e, NULL); /* (its accesses' requests, before the plan) */
        collio_plan_free(&e->plan);
        memset(e, 0, sizeof *e);
        e->key = key;
        e->group = s->group;
    }
    e->used = ++cache_clock;
    return e;
}

void cmio_cache_clear(void)
{
    cmio_async_settle(NULL, NULL);
    for (int i = 0; i < CMIO_CACHE_MAX; i++) {
        collio_plan_free(&cache[i].plan);
        memset(&cache[i], 0, sizeof cache[i]);
    }
}

/* Collective: the pattern's plan (rebased to its lowest byte, elements of
 * 2^tz bytes); NULL in e->plan when collio refuses the extents. */
static void make_plan(cmio_file *s, const summary *g, cmio_entry *e)
{
    const int64_t es = (int64_t)1 << g->tz;
    int64_t n = s->fx.n;
    int64_t *off = malloc((size_t)(n > 0 ? n : 1) * sizeof *off);
    int64_t *len = malloc((size_t)(n > 0 ? n : 1) * sizeof *len);
    int ok = off != NULL && len != NULL;
    for (int64_t i = 0; ok && i < n; i++) {
        off[i] = (s->fx.off[i] - g->lo) / es;
        len[i] = s->fx.len[i] / es;
    }
    collio_layout *l = NULL;
    collio_hints *h = NULL;
    int rc = collio_layout_extents(s->comm, ok ? n : -1, off, len, (size_t)es, &l);
    if (rc == COLLIO_OK)
        rc = collio_hints_create(&h);
    /* a small pattern: not worth measuring its file system (the timed
     * calls decide, policy.c); the application's hints may say otherwise */
    if (rc == COLLIO_OK && g->hi - g->lo < CMIO_MEASURE_BYTES)
        rc = collio_hints_set(h, "auto.calibrate", "0");
    if (rc == COLLIO_OK && s->hints[0] != '\0')
        rc = collio_hints_parse(h, s->hints);
    if (rc == COLLIO_OK)
        rc = collio_plan_create(s->comm, l, s->strategy[0] ? s->strategy : NULL, h,
                                &e->plan);
    if (rc != COLLIO_OK)
        e->plan = NULL;
    collio_hints_free(&h);
    collio_layout_free(&l);
    free(off);
    free(len);
}

/* Collective: collio's open of the application's file, on first use. */
static int open_cf(cmio_file *s)
{
    if (s->cf != NULL || s->cf_failed)
        return s->cf != NULL;
    collio_file_mode m =
        (s->amode & MPI_MODE_RDONLY) ? COLLIO_FILE_READ : COLLIO_FILE_INPLACE;
    int rc = collio_file_open(s->comm, s->path, m, NULL, &s->cf);
    if (rc != COLLIO_OK) {
        s->cf = NULL;
        s->cf_failed = 1;
    }
    return s->cf != NULL;
}

/* Once per pattern and operation: collio's, or why not. */
static cmio_why decide(cmio_file *s, cmio_entry *e, int writing)
{
    if (e->plan == NULL)
        return CMIO_WHY_OVERLAP;
    if (!open_cf(s))
        return CMIO_WHY_PATH;
    if (forced(s)) {
        e->verdict[writing ? 0 : 1] = CMIO_KEEP_COLLIO;
        return CMIO_TAKEN;
    }
    /* the choice the first call would make, now: an uncalibrated file
     * system measured (auto.calibrate), the plan chosen */
    int rc = collio_plan_prepare(e->plan, s->cf, writing);
    if (rc != COLLIO_OK)
        return CMIO_WHY_OVERLAP; /* (refused: as a plan collio could not make) */
    int cand = -1;
    double secs = 0;
    collio_plan_predict(e->plan, s->cf, writing, &cand, &secs);
    /* (a candidate c is value c + 1 of hint auto.only) */
    const char *name = cand >= 0 ? collio_option_value_name("auto.only", cand + 1) : NULL;
    if (name != NULL && collio_strategy_is_mpi_collective(name) == 1)
        return CMIO_WHY_MODEL;
    cmio_policy_predicted(s, e, writing ? 0 : 1);
    return CMIO_TAKEN;
}

/* The strategy a taken call ran (auto: its candidate). */
static const char *ran(const collio_plan *p, int writing)
{
    double c = -1;
    if (collio_plan_stat(p, writing ? "auto.write_choice" : "auto.read_choice", &c)
            == COLLIO_OK
        && c >= 0)
        return collio_option_value_name("auto.only", (int)c + 1);
    return collio_plan_strategy(p);
}

/* Local: the user's buffer <-> the packed stream, through the memory
 * extents. */
static void copy_mem(const cmio_extents *mx, char *buf, char *packed, int to_packed)
{
    int64_t at = 0;
    for (int64_t i = 0; i < mx->n; i++) {
        if (to_packed)
            memcpy(packed + at, buf + mx->off[i], (size_t)mx->len[i]);
        else
            memcpy(buf + mx->off[i], packed + at, (size_t)mx->len[i]);
        at += mx->len[i];
    }
}

static int execute(cmio_file *s, cmio_entry *e, MPI_Offset pos, int explicit_off,
                   void *buf, MPI_Status *st, int writing, int64_t base)
{
    const int64_t nb = s->fx.bytes;
    char *packed = NULL;
    int direct = s->mx.n <= 1;
    if (direct)
        packed = s->mx.n == 1 ? (char *)buf + s->mx.off[0] : (char *)buf;
    else
        packed = malloc((size_t)nb);
    int rc = direct || packed != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM;
    if (rc == COLLIO_OK && writing && !direct)
        copy_mem(&s->mx, buf, packed, 1);
    /* (a NOMEM here is one rank's: collio's call agrees on it) */
    if (writing)
        rc = collio_write_at(e->plan, s->cf, base, rc == COLLIO_OK ? packed : NULL,
                             rc == COLLIO_OK ? (size_t)nb : (size_t)-1);
    else
        rc = collio_read_at(e->plan, s->cf, base, rc == COLLIO_OK ? packed : NULL,
                            rc == COLLIO_OK ? (size_t)nb : (size_t)-1);
    if (rc == COLLIO_OK && !writing && !direct)
        copy_mem(&s->mx, buf, packed, 0);
    if (!direct)
        free(packed);
    if (rc == COLLIO_OK && !explicit_off) {
        /* the individual file pointer moves past the data, in etypes */
        PMPI_File_seek(s->fh, pos + (MPI_Offset)(nb / (s->esize > 0 ? s->esize : 1)),
                       MPI_SEEK_SET);
    }
    if (st != MPI_STATUS_IGNORE)
        MPI_Status_set_elements_x(st, MPI_BYTE, rc == COLLIO_OK ? (MPI_Count)nb : 0);
    if (rc != COLLIO_OK) {
        /* agreed by collio: the same class on every rank */
        PMPI_File_call_errhandler(s->fh, MPI_ERR_IO);
        return MPI_ERR_IO;
    }
    return MPI_SUCCESS;
}

/* A non-blocking access taken: collio's request started on the pattern's
 * plan, what its completion needs kept (nonblocking.c). The individual
 * file pointer moves now, as MPI moves it when the call starts. */
static int execute_async(cmio_file *s, cmio_entry *e, MPI_Offset pos, int explicit_off,
                         void *buf, int writing, int64_t base, cmio_async **out)
{
    const int64_t nb = s->fx.bytes;
    cmio_async *a = calloc(1, sizeof *a);
    const int direct = s->mx.n <= 1;
    char *packed = NULL;
    if (direct)
        packed = s->mx.n == 1 ? (char *)buf + s->mx.off[0] : (char *)buf;
    else if (a != NULL)
        packed = a->staged = malloc((size_t)(nb > 0 ? nb : 1));
    /* (short of memory on this rank: its request fails when it runs, on
     * every rank, as a blocking call's would) */
    const int ok = a != NULL && packed != NULL;
    if (ok && writing && !direct)
        copy_mem(&s->mx, buf, packed, 1);
    collio_request *r = NULL;
    if (writing)
        collio_iwrite_at(e->plan, s->cf, base, ok ? packed : NULL,
                         ok ? (size_t)nb : (size_t)-1, &r);
    else
        collio_iread_at(e->plan, s->cf, base, ok ? packed : NULL,
                        ok ? (size_t)nb : (size_t)-1, &r);
    if (!explicit_off)
        PMPI_File_seek(s->fh, pos + (MPI_Offset)(nb / (s->esize > 0 ? s->esize : 1)),
                       MPI_SEEK_SET);
    if (a == NULL) { /* nothing to track it with: done now (failing) */
        collio_wait(&r);
        PMPI_File_call_errhandler(s->fh, MPI_ERR_NO_MEM);
        *out = NULL;
        return MPI_ERR_NO_MEM;
    }
    a->req = r;
    a->bytes = (MPI_Count)nb;
    a->buf = buf;
    a->writing = writing;
    a->fh = s->fh;
    a->e = e;
    a->cf = s->cf;
    a->greq = MPI_REQUEST_NULL;
    if (!writing && !direct) { /* the read's unpacking, at its completion */
        a->mx = s->mx;
        memset(&s->mx, 0, sizeof s->mx);
    }
    cmio_async_track(a);
    *out = a;
    return MPI_SUCCESS;
}

/* The file costs strategy auto priced a taken call with, for the report. */
static void count_priced(const collio_plan *p)
{
    double by = -1, net = -1; /* (an auto plan's; a forced strategy has neither) */
    if (collio_plan_stat(p, "auto.priced_by", &by) == COLLIO_OK
        && collio_plan_stat(p, "auto.networked", &net) == COLLIO_OK)
        cmio_priced(by == 1   ? CMIO_PRICED_CALIBRATED
                    : by == 2 ? CMIO_PRICED_MEASURED
                    : net > 0 ? CMIO_PRICED_NETWORKED
                              : CMIO_PRICED_LOCAL);
}

/* A call handed to MPI (why): counted, and for the streak. */
static int pass(cmio_file *s, int writing, cmio_why why, int made, double t0)
{
    cmio_count(writing, why, NULL, made, MPI_Wtime() - t0);
    cmio_policy_outcome(s, writing ? 0 : 1, 1);
    return 0;
}

int cmio_collective(cmio_file *s, MPI_Offset at, void *buf, int64_t count,
                    MPI_Datatype dt, MPI_Status *st, int writing, int *err,
                    cmio_async **async)
{
    if (s->mode == CMIO_OFF) { /* the same everywhere: no message */
        cmio_count(writing, CMIO_WHY_OFF, NULL, 0, 0);
        return 0;
    }
    /* a streak: straight to MPI, before anything that costs (local_why asks
     * MPI for the atomicity): a call of a microsecond pays what it must */
    if (cmio_policy_streak(s, writing ? 0 : 1)) { /* (the same everywhere) */
        cmio_count(writing, CMIO_WHY_STREAK, NULL, 0, 0);
        return 0;
    }
    double t0 = MPI_Wtime();
    cmio_why why = local_why(s, writing);
    MPI_Offset pos = at;
    if (why == CMIO_TAKEN && at < 0 && PMPI_File_get_position(s->fh, &pos) != MPI_SUCCESS)
        why = CMIO_WHY_TYPE;
    const cmio_flat *ft = s->ft; /* (set_view's) */
    if (why == CMIO_TAKEN && (ft == NULL || !ft->monotonic))
        why = ft == NULL ? CMIO_WHY_TYPE : CMIO_WHY_VIEW;
    if (why == CMIO_TAKEN
        && cmio_access_extents_flat(s->disp, s->esize, ft, pos, dt, count, &s->fx, &s->mx)
               != MPI_SUCCESS)
        why = CMIO_WHY_TYPE;
    if (why == CMIO_TAKEN && !ft->tile_monotonic && !increasing(&s->fx))
        why = CMIO_WHY_VIEW; /* copies of the filetype overlap within this access */
    summary g;
    if (summarize(s, why, writing, &g) != MPI_SUCCESS)
        return 0; /* MPI itself failed: let it say so on the real call */
    /* a file's first call, its ranks' streak agreed in the summary: on
     * with it, not the pattern's key and lookup (two more reductions) */
    if (cmio_policy_streak_first(s, writing ? 0 : 1))
        return pass(s, writing, CMIO_WHY_STREAK, 0, t0);
    if (g.why != CMIO_TAKEN || g.hi == 0)
        return pass(s, writing, g.why != CMIO_TAKEN ? g.why : CMIO_WHY_MODEL, 0, t0);
    int made = 0;
    cmio_entry *e = lookup(s, g.key, &made);
    cmio_policy_credit(s, e, made, g.pend_ns);
    const int op = writing ? 0 : 1;
    /* (the same on every rank: the lookup and g are agreed, and deferred
     * was set on all of them) */
    if (made && g.large) {
        e->deferred = 1;
        if (async == NULL)
            cmio_policy_arm_mpi(s, e, op); /* MPI's call, timed */
        return pass(s, writing, CMIO_WHY_FIRST, 0, t0);
    }
    if (!made && e->deferred) {
        e->deferred = 0;
        made = 1;
    }
    if (made)
        make_plan(s, &g, e);
    /* per file (its file system), unless the calls measured MPI faster
     * already: then collio does not even open the file */
    if (e->decided_on[op] != s->serial && e->verdict[op] != CMIO_KEEP_MPI) {
        e->why[op] = decide(s, e, writing);
        e->decided_on[op] = s->serial;
    }
    /* (a non-blocking call is neither a trial of MPI's nor timed: its
     * start is not its access; it goes where the verdict so far says) */
    why = e->why[op] != CMIO_TAKEN ? e->why[op]
          : async != NULL          ? cmio_policy_route_untimed(e, op)
                                   : cmio_policy_route(s, e, op, made);
    if (why != CMIO_TAKEN)
        return pass(s, writing, why, made, t0);
    if (async != NULL) {
        *err = execute_async(s, e, pos, at >= 0, buf, writing, g.lo, async);
    } else {
        *err = execute(s, e, pos, at >= 0, buf, st, writing, g.lo);
        /* collio's whole call, the pattern's agreement in it: with MPI
         * keeping the pattern, the calls go straight there (streak),
         * without it */
        cmio_policy_taken(s, e, op, made, MPI_Wtime() - t0);
    }
    cmio_policy_outcome(s, op, 0);
    cmio_count(writing, CMIO_TAKEN, ran(e->plan, writing), made, MPI_Wtime() - t0);
    count_priced(e->plan);
    return 1;
}

void cmio_release(cmio_file *s)
{
    if (s->cf != NULL) {
        cmio_async_settle(NULL,
                          s->cf); /* (MPI: completed before the close; if not, here) */
        collio_file_close(&s->cf);
    }
    cmio_extents_free(&s->fx);
    cmio_extents_free(&s->mx);
}
