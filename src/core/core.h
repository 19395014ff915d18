/*
 * core/core.h -- the core: a strategy's table, the registry, plans (the inspector) and
 * their execution, node maps, the stats of a plan (the files of
 * src/core/). What a strategy uses of the library, with the parts below.
 */
#ifndef COLLIO_CORE_CORE_H
#define COLLIO_CORE_CORE_H

#include "collio.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "base/base.h"
#include "machine/machine.h"
#include "options/options.h"
/* ------------------------------------------------------------- strategies */

/*
 * A strategy: a small table of functions and of its options and stats,
 * registered once in core/registry.c. plan() is the inspector;
 * write()/read() are the executor and work on the packed stream (the
 * rank's elements in layout order, contiguous; plan.c packs/unpacks other
 * memory kinds). Each returns a local code; plan.c agrees on it across
 * ranks afterwards, so a function must still complete every collective /
 * matching message it started when a local step fails (record the error,
 * carry on with the communication, return it at the end). Timing: add
 * exchange time to p->stats.exchange_s and file time to p->stats.file_s;
 * count into p->stats counters. plan.c resets these per execution and
 * measures total_s.
 *
 * Options and stats of one strategy are its own section of the catalogue:
 * `section.name` is the strategy's name, its tables are static in its
 * file, and it reads its values with collio__opt(p, i) (i: the index in
 * its table) and keeps its stats with collio__stat_set / _add. Values are
 * parsed and range-checked by the catalogue; check() (may be NULL) is
 * for what the table cannot say -- options that do not go together --
 * and runs at plan creation once every rank is known to hold the same
 * options (so it returns the same code everywhere; plan.c agrees all the
 * same), recording its error. A strategy that runs another (subgroup)
 * hands it every option as hints; the inner plan checks its own.
 *
 * Hooks for the replica policies (replicas/plan.c, replicas/policy.c),
 * so that no policy knows a strategy by name: replicas_auto, the policy
 * AUTO becomes under this strategy, by name (a value of hint
 * replicas.policy; NULL: the default, IDG); rank_domain,
 * the file domain (of P balanced ones) a rank writes (NULL: domain r on
 * rank r), which the DOMAIN policy keeps elements on.
 */
/*
 * A candidate of strategy "auto": the strategy run with the hints below
 * (on top of the plan's own), priced by `terms` -- its formula, built
 * from the kit of machine/cost.h, beside the strategy in its own file.
 * A strategy lists its candidates in its table (candidates,
 * ncandidates); auto walks the registry for them (strategies/auto/
 * model.c), tier 0 first (a strategy's own forms), then tier 1
 * (variants: fewer phases, another inner strategy), in the registry's
 * order within a tier. That order is the one of auto's stats, of
 * hint auto.only's values and of a tie (the earlier wins). To every
 * candidate's terms auto adds the floor of the calibrated smallest call
 * of strategy `floor` (its term "<floor>.call") -- what that call took
 * beyond the terms of the candidate marked `base` for it --, and the
 * replicas' work.
 */
enum { COLLIO__CAND_HINTS = 2 };
typedef struct collio__candidate {
    const char *label; /* "subgroup_g4": hint auto.only, stat predicted_<label>_s */
    const char *hint_key[COLLIO__CAND_HINTS], *hint_value[COLLIO__CAND_HINTS];
    int tier;
    const char *floor; /* the strategy whose smallest call's floor it pays
                          (the calibration's term "<floor>.call") */
    int base;          /* 1: that call is this candidate's own */
    /* the predicted seconds of one write (m->writing) or read of shape s
     * by it, without the call's floor; INFINITY: it cannot run there.
     * arg: the candidate's own (a group size, a phase count) */
    double (*terms)(const collio__cost *m, const collio__cost_shape *s, int arg);
    int arg;
    const char
        *what; /* in words, for its stat's line ("subgroup (g = 2)"); NULL: label */
} collio__candidate;

/* a plan's replicas' state (replicas/replicas.h: it runs around the
 * plan's strategy, above the core) */
typedef struct collio__repl collio__repl;

/* What a strategy's measurement of its own cost terms may use: the
 * calibration (collio_calibrate's last stage, strategies/auto/
 * calibrate.c) hands it over once it has timed every strategy's smallest
 * call ("NAME.call"). Collective over comm; a measurement sets its terms
 * in fs with collio_fs_costs_set_term and returns the library's code,
 * agreed. */
typedef struct collio__measure_kit {
    MPI_Comm comm;
    int rank, size;
    int reps;            /* timed calls per measurement (the budget's) */
    int64_t big_bytes;   /* a large call's bytes in all: the budget's seconds
                            at the file's rate (across nodes: the link's), at
                            most 8 MiB */
    collio_fs_costs *fs; /* the terms measured so far, the smallest calls' */
    void *cal;           /* the calibration's own (for time_pair) */
    /* one write of plan from buf (bytes; every byte rank + 1) into a new
     * file and one read back, checked (COLLIO_ERR_IO if other bytes came
     * back), each timed from a barrier to the slowest rank's return */
    int (*time_pair)(const struct collio__measure_kit *k, collio_plan *plan,
                     unsigned char *buf, size_t bytes, double *tw, double *tr);
} collio__measure_kit;

typedef struct collio__strategy {
    collio__section section; /* name, options and stats */
    const char *summary;
    int canonical;      /* writes canonical file order */
    int mpi_collective; /* the MPI library's own collective I/O does it */
    /* 1: plan() is local and light -- no collective call, no MPI
     * datatype, no memory beyond an index of the rank's own pieces and a
     * few kilobytes -- so a plan made in vain costs next to nothing:
     * auto makes such a plan at plan creation for the read it predicts,
     * where it leaves others to the first read (strategies/auto/auto.c) */
    int light_plan;
    int (*check)(collio_plan *p);
    int (*plan)(collio_plan *p);
    int (*write)(collio_plan *p, collio_file *f, const char *stream);
    int (*read)(collio_plan *p, collio_file *f, char *stream);
    void (*free)(collio_plan *p);
    const char *replicas_auto;
    int (*rank_domain)(int nranks, int rank);
    /* optional, local: the candidate and predicted seconds the strategy
     * would run for a write / read of f (collio_plan_predict) */
    void (*predict)(const collio_plan *p, const collio_file *f, int writing,
                    int *candidate, double *seconds);
    /* optional, collective: do now what the first write (read) of f would
     * do before it runs -- auto: measure f's file system where no
     * calibration covers it, choose, make the chosen plan
     * (collio_plan_prepare). This rank's code (agreed by the caller) */
    int (*prepare)(collio_plan *p, collio_file *f, int writing);
    /* optional, local, pure: what auto's model counts of an execution
     * with the strategy's default options beyond its general terms, for a
     * layout of nglobal elements over nranks whose blocks hold mean_block
     * bytes on average, all ranks on one node or not, where the node can
     * share a window (collio__exec_profile) */
    void (*profile)(int64_t nglobal, int nranks, int64_t mean_block, int one_node,
                    collio__exec_profile *out);
    /* optional: its section as made at run time, once the registry is
     * sealed (auto: hint auto.only's values and a stat per candidate come
     * from the other strategies' tables); NULL: `section` */
    const collio__section *(*sealed_section)(void);
    /* optional, NULL-terminated: the calibration's terms it owns
     * ("NAME.KIND", collio_cost_term): "NAME.call" where auto's
     * calibration times its smallest call, others its formulas read */
    const char *const *cost_terms;
    /* optional: the strategy as candidates of auto (above) */
    const collio__candidate *candidates;
    int ncandidates;
    /* optional, collective: measures the terms it owns beyond NAME.call
     * (the calibration times that one for every strategy that declares
     * it), through the kit above; the library's code, agreed */
    int (*measure)(const collio__measure_kit *kit);
} collio__strategy;

/* A strategy added to the registry from outside core/registry.c (a test's,
 * or a program's own): before the first use of the catalogue (any plan,
 * hint or catalogue call), which seals the registry; COLLIO_ERR_STATE
 * after that, when the table is full or the name is taken. Not thread
 * safe: call it first thing. */
int collio__strategy_register(const collio__strategy *s);
void collio__strategies_seal(void);

/* The strategy of a plan created with strategy NULL. */
#define COLLIO__DEFAULT_STRATEGY "auto"

/* Lookup in the registry; NULL if unknown. collio__strategy_at: the i-th. */
const collio__strategy *collio__strategy_find(const char *name);
const collio__strategy *collio__strategy_at(int i);

/* Collective over p's communicator: one execution of plan p on a packed
 * stream, for collio_write / collio_read and for strategies that run an
 * inner plan on a sub-communicator (subgroup): resets p's execution
 * stats, runs its strategy's write (or read into stream), agrees on the
 * result over p->comm and marks f failed after a failure. scratch: stream
 * may be overwritten (a write's work space; a read's output always is).
 * The caller has checked sizes. */
int collio__plan_exec(collio_plan *p, collio_file *f, char *stream, int writing,
                      int scratch);

/* Collective, like collio__plan_exec but without its agreement: for a
 * strategy that runs another's plan on its own ranks (auto), whose own
 * execution agrees on the code right after (and marks f failed). Returns
 * this rank's code. */
int collio__plan_run_unagreed(collio_plan *p, collio_file *f, char *stream, int writing,
                              int scratch);

/* Collective over p's communicator: collio_write_at (writing) or
 * collio_read_at of plan on f, named fn in its errors, without waiting for
 * the queued requests first -- what a request runs. collio__exec_check:
 * its local argument checks alone. */
int collio__exec_at(collio_plan *plan, collio_file *f, int64_t offset, void *buf,
                    size_t buf_bytes, int writing, const char *fn);
int collio__exec_check(const collio_plan *p, const collio_file *f, int64_t offset,
                       const void *buf, size_t buf_bytes, int writing, const char *fn);

struct collio_plan {
    MPI_Comm comm;     /* dup (an inner plan's: its outer plan's) */
    int comm_borrowed; /* 1: comm is another plan's, not freed here */
    int rank, nranks;
    const collio__strategy *strategy;
    collio_layout *layout;              /* the plan's own copy */
    collio__optvals opts;               /* every option's value (the catalogue's order) */
    int own_opt, own_stat;              /* where the strategy's section starts in them */
    const collio__section *own_section; /* the catalogue's (its stats' table) */
    collio_stats stats;
    double *statv;      /* every section's stats (the catalogue's order) */
    int oversubscribed; /* more ranks than cores on some node: wait politely */
    /* During an execution: the stream the strategy gets, when it may also
     * serve as scratch space (a read's output, the library's own packed
     * copy, or the user's buffer under destroy_input); else NULL. */
    char *scratch;
    void *impl; /* the strategy's state */
    /* Replicated layouts: what maps the user's layout (which the user's
     * buffer follows) to `layout`, which then holds only the elements this
     * rank writes; NULL for every other layout. */
    collio__repl *repl;
    int *node_of; /* node index of every rank (nodes.c) */
    /* The executor's own streams (core/execute.c): the user's elements in
     * layout order where the buffer is not packed, the written ones of a
     * replicated layout; made at first use, kept between calls under
     * plan.keep_buffers, else freed at each call's end. */
    char *user_stream, *strat_stream;
    /* The last execution's time on this rank, seconds, from the
     * reduction that starts it to the agreement that ends it (core/execute.c:
     * both synchronise the ranks), less exec_skip_s, what the strategy set
     * aside (auto: its choosing); and at the next execution's start its
     * maximum over the ranks, agreed in the reduction the call makes
     * anyway (agree_target): a strategy learns its calls' times from it
     * without a message of its own. -1: none. */
    double exec_s, exec_prev_max_s, exec_skip_s;
    /* The plan of k executions stacked in one (src/requests/): k of its
     * own, or its own first and other plans' after it, for the plans and
     * offsets whose digest is stack_key; freed with the plan. */
    collio_plan *stack;
    uint64_t stack_key;
    uint64_t serial;      /* this process's number for the plan: never reused */
    uint64_t opts_digest; /* collio__optvals_digest(&opts), agreed at creation */
};

/* A strategy's own option i (its table's index) and stat i. */
static inline int64_t collio__opt(const collio_plan *p, int i)
{
    return p->opts.v[p->own_opt + i];
}
static inline const char *collio__opt_str(const collio_plan *p, int i)
{
    return p->opts.str[p->own_opt + i];
}
static inline void collio__stat_set(collio_plan *p, int i, double v)
{
    p->statv[p->own_stat + i] = v;
}
static inline void collio__stat_add(collio_plan *p, int i, double v)
{
    p->statv[p->own_stat + i] += v;
}
/* A generic option ("plan" section, COLLIO__PLAN_*). */
static inline int64_t collio__plan_opt(const collio_plan *p, int i)
{
    return p->opts.v[i];
}
/* One of the plan's work buffers (collio__bigbuf) of n bytes, made at
 * the first call that needs it (NULL if out of memory: tried again at the
 * next call). Use: buf = collio__plan_buf(buf, n). */
static inline void *collio__plan_buf(void *buf, size_t n)
{
    return buf != NULL ? buf : collio__bigbuf_alloc(n > 0 ? n : 1);
}
/* The end of a call for one of the plan's work buffers (collio__bigbuf):
 * under plan.keep_buffers (the default) it stays for the next call and is
 * returned; otherwise it is freed and NULL returned (made again at the
 * next call's first use). Use: buf = collio__plan_buf_done(p, buf). */
static inline void *collio__plan_buf_done(const collio_plan *p, void *buf)
{
    if (collio__plan_opt(p, COLLIO__PLAN_KEEP_BUFFERS))
        return buf;
    collio__bigbuf_free(buf);
    return NULL;
}

/* Stats (stats.c): the generic fields of collio_stats as a table (the
 * stats of section "plan"), so that resets, sums and every binding walk
 * one list. reset: the per-call ones, generic and every section's. add:
 * an inner plan's execution into an outer one's (subgroup): the generic
 * per-call counters and times summed, every
 * section's stats taken (or summed where `sum`) but the outer plan's own
 * strategy's and the replicas' (resolved by the outer plan). */
void collio__stats_reset(collio_plan *p);
void collio__stats_add_inner(collio_plan *outer, const collio_plan *inner);
/* The values of the plan's strategy's own stat i (an array stat's first;
 * options/options.h): a strategy's per-phase figures, ... */
double *collio__stat_values(collio_plan *p, int i);

/* Frees what a (possibly half-built) plan owns (plan.c). Not collective by
 * itself except for MPI_Comm_free of a communicator it owns, which every
 * rank reaches together. */
void collio__plan_destroy(collio_plan *p);

/* Collective over comm (plan.c): collio_plan_create for a strategy that
 * runs another on its own communicator and layout (subgroup's masters),
 * with `hints` its own resolved options (collio__optvals_to_hints): the
 * environment's COLLIO_HINTS is in them already and not applied again,
 * so it cannot override what was set over it (auto's candidate hints). */
int collio__plan_create_nested(MPI_Comm comm, const collio_layout *layout,
                               const char *strategy, const collio_hints *hints,
                               collio_plan **out);

/* Collective over outer's ranks (plan_inner.c): a plan of `strategy` on outer's
 * layout with `hints`, run by a strategy that chooses another (auto). What
 * collio_plan_create checks and builds is outer's and agreed already, so
 * only the options are resolved and the strategy's check and plan() run;
 * it shares outer's communicator and node map, and must be freed before
 * outer's communicator is (by outer's strategy's free). rc: this rank's
 * result so far (making the hints), agreed with the rest. Agreed code. */
int collio__plan_create_inner(const collio_plan *outer, const char *strategy,
                              const collio_hints *hints, int rc, collio_plan **out);

/* The same, on another layout of outer's ranks (k of outer's
 * executions stacked in one: src/requests/). */
int collio__plan_create_on(const collio_plan *outer, const collio_layout *layout,
                           const char *strategy, const collio_hints *hints, int rc,
                           collio_plan **out);

/* Nodes (nodes.c). Collective, at plan creation: p->node_of and
 * p->stats.nnodes. Agreed code. */
int collio__plan_nodes(collio_plan *p);
/* Local: one point-to-point message with rank `peer` posted by this rank
 * (sent_bytes: what it sends, 0 for a receive): counted in messages and
 * bytes_sent, and in messages_offnode / bytes_offnode when the peer is on
 * another node. */
void collio__count_p2p(collio_plan *p, int peer, int64_t sent_bytes);

#endif /* COLLIO_CORE_CORE_H */
