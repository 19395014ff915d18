/*
 * policy.c -- whether collio or the MPI library does a pattern's calls,
 * from what the calls measure (docs/mpiio.md, "Never slower than the MPI
 * library"; the constants in cmio.h).
 *
 * Strategy auto's model prices MPI's own collective as its candidate
 * two_phase; where auto would run it, the call goes to MPI (take.c,
 * decide). Where the model prefers collio, it may still be wrong about
 * this program on this machine -- and collio's calls carry the
 * interposer's own work besides. So, per pattern and operation:
 *
 *  - predicted CMIO_CLEAR_WIN times faster than MPI's collective where
 *    that takes CMIO_CLEAR_WIN_S or more (a vector in blocks of one
 *    element: hundreds of times, seconds), the calls are collio's from the
 *    first, and kept once CMIO_JUDGE_CALLS are timed;
 *  - otherwise -- and always on one rank, where there is nothing to
 *    aggregate -- after collio's first call (which made its plan) the
 *    calls go to MPI, timed, and to collio, timed, in turn (a first call
 *    of a pattern deferred to MPI on several nodes counts as MPI's), and
 *    once CMIO_JUDGE_CALLS of each are timed, the faster keeps the
 *    pattern: the least of collio's times against the least of MPI's (a
 *    call's first run in a process is cold: 14 us of MPI's against 3 us
 *    warm for IOR's 1 KiB transfers). MPI's time is its own call's (from
 *    after the pattern's agreement, every rank in the call); collio's the
 *    whole call, the agreement included -- with MPI keeping the pattern,
 *    calls go straight to MPI, without it (below), so that is what collio
 *    must beat, by CMIO_KEEP_MARGIN: near-ties go to MPI, the default
 *    (calls of a microsecond or two, IOR's 1 KiB transfers on one rank,
 *    fell either way from run to run). Ranks arriving apart count against
 *    collio too. The trials come after collio's first call so that
 *    both rewrite blocks a call wrote before, as later calls do: a first
 *    call into a new file allocates its blocks, slower whoever makes it.
 *
 * Times are agreed without a message of their own: each rank's time of
 * a timed call waits, per group of ranks, for the group's next call,
 * whose summary reduction takes their maximum (take.c) -- the next call
 * of any file of the same ranks (a program that writes a file per time
 * step still gets its measurements), credited where that call is of the
 * same pattern, found on every rank. Everything decided here follows from
 * agreed values and the order of collective calls, the same on every
 * rank.
 *
 * Files whose last CMIO_PASS_STREAK writes (reads) all went to MPI send
 * their writes (reads) straight there, without the pattern's agreement,
 * but for the streak's CMIO_RESAMPLE-th call, then its 2x, 4x ... up to
 * every CMIO_RESAMPLE_MAX-th, which decide in full: a call that small
 * costs MPI microseconds, and the agreement would be most of it. A
 * file's first write (read) is agreed on again: its streak starts from
 * its ranks' previous file's -- the least over the ranks, agreed in that
 * call's summary (a rank that lost the hint starts the streak anew for
 * all) -- and where that is a streak, the call goes straight on (the
 * summary's one reduction, not the pattern's two more): a program that
 * writes a file per step keeps its streak.
 */
#include "cmio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The last timed call of each group of ranks. */
#define PEND_MAX 16
typedef struct pend {
    uint64_t group, key;
    int op;
    int kind;        /* 0 none, 1 a call to MPI, 2 one of collio's */
    double t0, secs; /* (secs < 0: not done yet) */
} pend;
static pend pends[PEND_MAX];

static pend *pend_of(uint64_t group, int make)
{
    pend *free_slot = NULL;
    for (int i = 0; i < PEND_MAX; i++) {
        if (pends[i].kind != 0 && pends[i].group == group)
            return &pends[i];
        if (pends[i].kind == 0 && free_slot == NULL)
            free_slot = &pends[i];
    }
    if (!make)
        return NULL;
    if (free_slot == NULL) /* (more groups timing at once than slots: drop one) */
        free_slot = &pends[group % PEND_MAX];
    return free_slot;
}

static void arm(cmio_file *s, const cmio_entry *e, int op, int kind, double secs)
{
    pend *p = pend_of(s->group, 1);
    *p = (pend){s->group, e->key, op, kind, 0, secs};
    s->armed = kind == 1; /* (CMIO_PASS times the file's next call to MPI) */
}

/* Each group's last streaks (a hint for its next file: agreed there). */
#define GROUP_MAX 16
static struct {
    uint64_t group;
    int64_t streak[2];
} groups[GROUP_MAX];

static int64_t *group_streak(uint64_t group, int op)
{
    for (int i = 0; i < GROUP_MAX; i++)
        if (groups[i].group == group)
            return &groups[i].streak[op];
    int i = (int)(group % GROUP_MAX); /* (a lost hint only costs calls) */
    groups[i].group = group;
    groups[i].streak[0] = groups[i].streak[1] = 0;
    return &groups[i].streak[op];
}

/* 1 when a streak of n passes decides its next call in full: at n =
 * CMIO_RESAMPLE, 2x, 4x ... and then every CMIO_RESAMPLE_MAX (n is the
 * same on every rank: agreed at the file's first call, counted alike). */
static int resample_due(int64_t n)
{
    if (n < CMIO_RESAMPLE)
        return 0;
    if (n >= CMIO_RESAMPLE_MAX)
        return n % CMIO_RESAMPLE_MAX == 0;
    return (n & (n - 1)) == 0 && n % CMIO_RESAMPLE == 0;
}

int cmio_policy_streak(cmio_file *s, int op)
{
    /* a file's first call: its streak agreed in full; one rank's file has
       nothing to agree, so its group's hint holds from the first call */
    if (s->calls[op]++ == 0 && s->own_comm)
        return 0;
    if (s->calls[op] == 1)
        s->streak[op] = *group_streak(s->group, op);
    if (s->streak[op] < CMIO_PASS_STREAK || resample_due(s->streak[op]))
        return 0;
    s->streak[op]++; /* (a pass: the streak goes on) */
    return 1;
}

int64_t cmio_policy_streak_hint(const cmio_file *s, int op)
{
    return s->calls[op] == 1 ? *group_streak(s->group, op) : INT64_MAX / 2;
}

void cmio_policy_streak_agreed(cmio_file *s, int op, int64_t least)
{
    if (s->calls[op] == 1) /* (every rank: the file's first call) */
        s->streak[op] = least;
}

int cmio_policy_streak_first(const cmio_file *s, int op)
{
    return s->calls[op] == 1 && s->streak[op] >= CMIO_PASS_STREAK;
}

void cmio_policy_outcome(cmio_file *s, int op, int passed)
{
    s->streak[op] = passed ? s->streak[op] + 1 : 0;
    *group_streak(s->group, op) = s->streak[op];
}

void cmio_policy_close(const cmio_file *s)
{
    for (int op = 0; op < 2; op++)
        if (s->calls[op] > 0) /* (the straight calls counted since) */
            *group_streak(s->group, op) = s->streak[op];
}

int64_t cmio_policy_pending_ns(const cmio_file *s)
{
    const pend *p = pend_of(s->group, 0);
    return p != NULL && p->secs >= 0 ? (int64_t)(p->secs * 1e9) : -1;
}

/* COLLIO_MPIIO_LOG=1: each verdict on standard error (rank 0 of the
 * file's ranks, named by its rank in MPI_COMM_WORLD: files of one rank
 * each log from every rank). */
static void say(const cmio_file *s, const cmio_entry *e, int op, double least)
{
    static int on = -1;
    int rank = 0, world = 0;
    if (on < 0) {
        const char *v = getenv("COLLIO_MPIIO_LOG");
        on = v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
    }
    MPI_Comm_rank(s->comm, &rank);
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    if (on && rank == 0)
        fprintf(stderr,
                "collio_mpiio: rank %d: pattern %016llx %s: collio %.6g s, MPI %.6g s%s "
                "(the least of %d calls each): %s keeps it\n",
                world, (unsigned long long)e->key, op == 0 ? "write" : "read", least,
                e->mpi_n[op] > 0 ? e->mpi_s[op] : 0.0,
                e->mpi_n[op] > 0 ? "" : " (not timed: predicted 10x collio's or more)",
                CMIO_JUDGE_CALLS, e->verdict[op] == CMIO_KEEP_COLLIO ? "collio" : "MPI");
}

static void judge(const cmio_file *s, cmio_entry *e, int op)
{
    if (e->verdict[op] != CMIO_JUDGING || e->col_n[op] < CMIO_JUDGE_CALLS
        || (!e->clear[op] && e->mpi_n[op] < CMIO_JUDGE_CALLS))
        return;
    double least = e->col_s[op][0];
    for (int i = 1; i < CMIO_JUDGE_CALLS; i++)
        least = e->col_s[op][i] < least ? e->col_s[op][i] : least;
    /* collio must be clearly faster: near-ties are MPI's, the default */
    e->verdict[op] = e->mpi_n[op] > 0 && least >= CMIO_KEEP_MARGIN * e->mpi_s[op]
                         ? CMIO_KEEP_MPI
                         : CMIO_KEEP_COLLIO;
    say(s, e, op, least);
}

void cmio_policy_credit(const cmio_file *s, cmio_entry *e, int made, int64_t max_ns)
{
    pend *p = pend_of(s->group, 0);
    if (p == NULL)
        return;
    const pend got = *p;
    p->kind = 0; /* consumed, credited or not */
    if (made || e->key != got.key || max_ns < 0)
        return;
    const int op = got.op;
    const double t = (double)max_ns * 1e-9;
    if (got.kind == 1) { /* (the least of them) */
        e->mpi_s[op] = e->mpi_n[op] == 0 || t < e->mpi_s[op] ? t : e->mpi_s[op];
        e->mpi_n[op]++;
    } else if (got.kind == 2 && e->col_n[op] < CMIO_JUDGE_CALLS) {
        e->col_s[op][e->col_n[op]++] = t;
    }
    judge(s, e, op);
}

void cmio_policy_arm_mpi(cmio_file *s, const cmio_entry *e, int op)
{
    arm(s, e, op, 1, -1);
}

void cmio_policy_predicted(cmio_file *s, cmio_entry *e, int op)
{
    int cand = -1, P = 1;
    double secs = 0, mpi = -1;
    MPI_Comm_size(s->comm, &P);
    collio_plan_predict(e->plan, s->cf, op == 0, &cand, &secs);
    collio_plan_stat(e->plan, "auto.predicted_two_phase_s", &mpi);
    /* one rank: nothing to aggregate, MPI's own until measured slower */
    e->clear[op] =
        P > 1 && secs > 0 && mpi >= CMIO_CLEAR_WIN * secs && mpi >= CMIO_CLEAR_WIN_S;
}

cmio_why cmio_policy_route(cmio_file *s, cmio_entry *e, int op, int made)
{
    switch (e->verdict[op]) {
    case CMIO_KEEP_MPI:
        return CMIO_WHY_MEASURED;
    case CMIO_KEEP_COLLIO:
        return CMIO_TAKEN;
    default:
        /* MPI's trials after collio's first call, which made the plan, and
         * in turn with collio's: both then rewrite what a call wrote before
         * (a first call into a new file allocates its blocks: slower,
         * whoever makes it), at the same stretch of the machine's time */
        if (!made && !e->clear[op] && e->mpi_n[op] < CMIO_JUDGE_CALLS
            && e->mpi_n[op] <= e->col_n[op]) {
            arm(s, e, op, 1, -1); /* MPI's call, timed (CMIO_PASS) */
            return CMIO_WHY_TRIAL;
        }
        return CMIO_TAKEN;
    }
}

cmio_why cmio_policy_route_untimed(const cmio_entry *e, int op)
{
    return e->verdict[op] == CMIO_KEEP_MPI ? CMIO_WHY_MEASURED : CMIO_TAKEN;
}

void cmio_policy_taken(cmio_file *s, const cmio_entry *e, int op, int made, double secs)
{
    if (e->verdict[op] == CMIO_JUDGING && !made)
        arm(s, e, op, 2, secs);
}

void cmio_policy_pass_begin(cmio_file *s)
{
    pend *p = s != NULL && s->armed ? pend_of(s->group, 0) : NULL;
    if (p != NULL && p->kind == 1 && p->secs < 0)
        p->t0 = MPI_Wtime();
}

int cmio_policy_pass_end(cmio_file *s, int rc)
{
    pend *p = s != NULL && s->armed ? pend_of(s->group, 0) : NULL;
    if (p != NULL && p->kind == 1 && p->secs < 0)
        p->secs = MPI_Wtime() - p->t0;
    if (s != NULL)
        s->armed = 0;
    return rc;
}
