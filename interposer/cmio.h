/*
 * cmio.h -- libcollio_mpiio, the MPI-IO interposer (docs/mpiio.md):
 * what its parts share. wrappers.c defines the MPI_File_* entry points
 * (PMPI profiling interface) and keeps each open file's state; take.c
 * decides, per collective call, whether collio or the MPI library does it,
 * and does it; report.c counts and reports; flatten.c turns datatypes
 * into byte blocks (cached), access.c a view and a memory datatype into
 * one access's byte extents (extents.c: their lists).
 */
#ifndef CMIO_H
#define CMIO_H

#include "collio.h"
#include "flatten.h"

#include <mpi.h>
#include <stdint.h>

/* Plans kept (for every file of the process), least recently used out
 * (docs/mpiio.md). */
#define CMIO_CACHE_MAX 16

/* On a file whose ranks span several nodes, the first call of a pattern
 * whose pieces are this large on every rank (the mean piece, bytes) goes
 * to the MPI library, and the plan is made at the pattern's second call:
 * MPI-IO does large pieces well, and there a plan's first call (network
 * collectives, the link probe, collio's open of the file) costs more than
 * MPI's whole call, so a pattern written once is not charged a plan that
 * would not pay for itself; a pattern written again pays one call of
 * MPI's. On one node the first call with its plan is faster than MPI's
 * (docs/mpiio.md, "The first call of a pattern"). */
#define CMIO_DEFER_PIECE_BYTES 1024

/* The take-or-pass policy (policy.c; docs/mpiio.md, "Never slower than
 * the MPI library"). MPI's own collective is a candidate like collio's:
 *  - a pattern collio is predicted to do this many times faster than the
 *    MPI library's collective (strategy auto's two_phase, the MPI
 *    library's own cost) is taken at once, measured against nothing: the
 *    model's error on two_phase stays well inside it (its predictions were
 *    0.5-2.5x the measured times here, quickly calibrated: a factor of 2
 *    let MPI's 8 ms calls of 16 KiB pieces pass as collio's clear wins),
 *    and a call of MPI's where it is that slow costs seconds;
 *  - any other -- and every pattern on one rank -- after collio's first
 *    call hands its calls to MPI and to collio in turn, each timed: once
 *    CMIO_JUDGE_CALLS of each are timed, the faster by the least of its
 *    times keeps the pattern; */
#define CMIO_CLEAR_WIN 10.0
/*    -- where MPI's call is predicted to take CMIO_CLEAR_WIN_S or more: a
 *    trial of it would cost that. A call predicted shorter is timed
 *    whatever the model says: a small call's time is mostly what the
 *    calibration's smallest calls measured, at another rank count, and
 *    collio's agreement (collective calls of its own) may be most of it; */
#define CMIO_CLEAR_WIN_S 0.05
/*    collio keeps a pattern it measured faster than this fraction of MPI's
 *    time (near-ties: MPI's, the default); */
#define CMIO_KEEP_MARGIN 0.9
#define CMIO_JUDGE_CALLS 2
/*  - a file whose last CMIO_PASS_STREAK writes (reads) all went to MPI
 *    sends its writes (reads) straight to MPI, without the pattern's
 *    agreement (flattening, allreduces), but for the streak's
 *    CMIO_RESAMPLE-th call and then at twice the length each time, up to
 *    every CMIO_RESAMPLE_MAX-th, which decides in full again (a call
 *    collio takes ends the streak);
 *  - a pattern of fewer bytes than CMIO_MEASURE_BYTES in all is not worth
 *    measuring its file system for: its plan prices it with what the
 *    calibration has or the built-in costs (auto.calibrate=0), and the
 *    timed calls decide. */
#define CMIO_PASS_STREAK 8
/* (a call decided in full costs its agreement: at 64 calls per sample,
 * IOR's 1 KiB transfers under MPICH paid 5 % of their time in it) */
#define CMIO_RESAMPLE 256
/* (a file per step of 512 calls of 1 KiB, IOR's, paid 7 % of its calls'
 * time for two such calls a file at a fixed 256; a pattern that changes
 * within a streak goes to MPI, as it would without collio, until then) */
#define CMIO_RESAMPLE_MAX 16384
#define CMIO_MEASURE_BYTES ((int64_t)1 << 20)

struct cmio_async;

/* COLLIO_MPIIO / info key "collio_mpiio". */
typedef enum cmio_mode { CMIO_AUTO = 0, CMIO_OFF, CMIO_FORCE } cmio_mode;

/* Why a call went to the MPI library (report.c names them). */
typedef enum cmio_why {
    CMIO_TAKEN = 0,
    CMIO_WHY_OFF,        /* COLLIO_MPIIO=off or info collio_mpiio=off */
    CMIO_WHY_DATAREP,    /* a datarep other than "native" */
    CMIO_WHY_ATOMIC,     /* atomic mode */
    CMIO_WHY_SEQUENTIAL, /* MPI_MODE_SEQUENTIAL */
    CMIO_WHY_RDONLY,     /* a write on a file opened read-only / the reverse */
    CMIO_WHY_VIEW,       /* file extents of the access that do not increase */
    CMIO_WHY_TYPE,       /* a datatype the flattener refused */
    CMIO_WHY_EOF,        /* a read past the end of the file */
    CMIO_WHY_OVERLAP,    /* ranks' extents overlap (or collio refused them) */
    CMIO_WHY_MODEL,      /* auto: MPI-IO's own collective predicted fastest */
    CMIO_WHY_PATH,       /* the file's path is unusable for collio */
    CMIO_WHY_FIRST,      /* a pattern's first call, large pieces (deferred) */
    CMIO_WHY_TRIAL,      /* MPI's own collective timed, against collio's */
    CMIO_WHY_MEASURED,   /* collio's calls measured slower than MPI's */
    CMIO_WHY_STREAK,     /* the file's calls go to MPI (CMIO_PASS_STREAK) */
    CMIO_NWHY
} cmio_why;

/* One cached pattern: the same extents on every rank relative to their
 * lowest byte, on the same ranks; reused by the next call with them, on
 * any file of those ranks (the next time step, in the same file at
 * another offset or in the next file). plan NULL: the pattern goes to
 * MPI. */
typedef enum { CMIO_JUDGING = 0, CMIO_KEEP_COLLIO, CMIO_KEEP_MPI } cmio_verdict;

typedef struct cmio_entry {
    uint64_t key, group; /* the pattern's key, the ranks' (cmio_file) */
    uint64_t used;       /* LRU clock */
    collio_plan *plan;
    int deferred;           /* seen once, no plan yet (CMIO_DEFER_PIECE_BYTES) */
    cmio_why why[2];        /* per write (0) / read (1): CMIO_TAKEN or why not */
    uint64_t decided_on[2]; /* the file (serial) the decision was made for */
    /* what was measured of the pattern (policy.c), per operation: MPI's
     * calls (the least time of them), collio's after the one that made
     * the plan (the first CMIO_JUDGE_CALLS), and what they decided */
    int clear[2]; /* collio predicted CMIO_CLEAR_WIN times faster */
    int mpi_n[2], col_n[2];
    double mpi_s[2], col_s[2][CMIO_JUDGE_CALLS];
    cmio_verdict verdict[2];
} cmio_entry;

/* One open MPI file. */
typedef struct cmio_file {
    MPI_File fh;
    MPI_Comm comm; /* a dup of the open's (MPI_COMM_SELF for one rank) */
    int own_comm;  /* 1: comm is a dup of the file's (of more than one rank) */
    int kept_comm; /* 1: that dup is its group's, kept (wrappers.c), not freed */
    char *path;    /* for collio's own open (the ROMIO prefix stripped) */
    int amode;
    cmio_mode mode;
    char strategy[64]; /* info collio_strategy: "" = auto */
    char hints[512];   /* info collio_hints */
    /* the view, as set_view gave it */
    MPI_Offset disp;
    int64_t esize;       /* the etype's size in bytes */
    const cmio_flat *ft; /* the filetype's flat, held (flatten.h); NULL: collio
                            off, or a type the flattener does not take */
    int native;          /* datarep "native" */
    collio_file *cf;     /* collio's open of the same file, lazily */
    int cf_failed;       /* it could not be opened: pass */
    uint64_t group;      /* digest of the ranks (world ranks) */
    uint64_t serial;     /* this open's number in the process, >= 1 */
    int nodes;           /* 0 not known yet, 1 one node, 2 several (take.c) */
    cmio_extents fx, mx; /* the last access's extents (arrays reused) */
    struct cmio_file *next;
    /* a split collective in progress (_begin taken: its status, or the
     * access still running: nonblocking.c) */
    int split_taken;
    struct cmio_async *split_async;
    /* policy.c, per write (0) and read (1): the file's collective data
     * calls (the same count on every rank: collective calls come in one
     * order), and how many of the last went to MPI in a row */
    uint64_t calls[2];
    int64_t streak[2];
    int armed; /* its next call to MPI is timed (a trial) */
} cmio_file;

/* 1 when the program runs another MPI library than the one this
 * interposer was built for: every call then goes to it untouched
 * (entry.c, which says so once). */
int cmio_foreign(void);
/* The C entry points: on x86-64 trampolines (entry.c) in front of the
 * wrappers, which then carry the names cmio_MPI_...; elsewhere the
 * wrappers themselves. */
#if defined(__x86_64__)
#define CMIO_TRAMPOLINES 1
#define CMIO_NAME(name) cmio_##name
#else
#define CMIO_NAME(name) name
#endif

/* The interposer's mode from COLLIO_MPIIO (read once). */
cmio_mode cmio_env_mode(void);

/* take.c: one collective data access on s (explicit offset in etypes, or
 * at < 0: the individual file pointer). Returns 1 when collio did it (*err
 * then the MPI error code, the same on every rank), 0 when the caller must
 * hand the call to the MPI library -- through CMIO_PASS, which times it
 * where the policy measures MPI's calls. Collective over s->comm.
 * async not NULL: a non-blocking call (MPI_File_iwrite_all, a split
 * _begin): taken, it is started (*async, nonblocking.c; st unused) and
 * the caller completes it; passed, the caller hands it to MPI untimed
 * (its time is not the access's), and no trial of MPI's is made. */
int cmio_collective(cmio_file *s, MPI_Offset at, void *buf, int64_t count,
                    MPI_Datatype dt, MPI_Status *st, int writing, int *err,
                    struct cmio_async **async);

/* nonblocking.c: collio's side of the non-blocking calls it takes. A
 * taken call is a collio request (collio_iwrite_at / collio_iread_at on
 * the pattern's plan) run by collio's helper thread where MPI gives
 * MPI_THREAD_MULTIPLE (COLLIO_MPIIO_THREAD_MULTIPLE=1 asks for it at
 * MPI_Init), else at once, in the starting call; its completion --
 * the application's MPI_Wait / MPI_Test on a generalized request, or a
 * split collective's _end -- fills the status with the bytes moved. */
typedef struct cmio_async {
    collio_request *req; /* collio's; NULL once completed */
    int rc;              /* MPI's code, once completed */
    MPI_Count bytes;     /* the status's count (bytes) when it succeeds */
    void *buf;           /* the application's buffer */
    char *staged;        /* the packed copy of a non-contiguous buffer (owned) */
    cmio_extents mx;     /* a staged read's memory extents (owned) */
    int writing;
    MPI_File fh;                    /* for its error handler */
    const cmio_entry *e;            /* its pattern (cmio_async_settle) */
    const collio_file *cf;          /* collio's open of the file */
    MPI_Request greq;               /* the application's, if any */
    struct cmio_async *next, *prev; /* the outstanding ones */
} cmio_async;
/* Local: a started access, tracked until completed (a owned by the
 * tracker from here). */
void cmio_async_track(cmio_async *a);
/* Returns an MPI request the application completes (a generalized
 * request; the run completes it from collio's helper thread, or here). */
int cmio_async_grequest(cmio_async *a, MPI_Request *req);
/* Local: completes (asleep, where collio's helper thread runs them) the
 * accesses of collio's among the n requests, before the program's
 * MPI_Wait / MPI_Waitall hands them to MPI. */
void cmio_async_sleep(const MPI_Request *reqs, int n);
/* Local: before the program's MPI_Waitany / MPI_Waitsome, where every
 * request of the n that is not MPI_REQUEST_NULL is one of collio's, the
 * one that completes first (the earliest started: collio runs them in
 * order) completed asleep; else nothing (another may complete first,
 * which MPI's call finds). */
void cmio_async_sleep_first(const MPI_Request *reqs, int n);
/* A completed access's status as MPI's own call gives it: `bytes` moved
 * (counted in any datatype by MPI_Get_count), not cancelled, no source
 * or tag. */
void cmio_status_bytes(MPI_Status *st, MPI_Count bytes);
/* A split collective's _begin: kept on s until _end (cmio_async_end). */
void cmio_async_split(cmio_file *s, cmio_async *a);
/* _end: completes s's split access, its status; MPI's code. */
int cmio_async_end(cmio_file *s, MPI_Status *st);
/* Local (collective in effect where one has not run): completes every
 * access started on plan e's pattern (e not NULL) or collio's open cf
 * (cf not NULL), or all (both NULL) -- before e's plan or cf is freed;
 * the application's requests then complete with their codes. */
void cmio_async_settle(const cmio_entry *e, const collio_file *cf);

/* policy.c: what take.c asks of the policy. */
/* Local (agreed by construction): 1 when s's call of operation op goes
 * straight to MPI (a streak of passes, CMIO_PASS_STREAK), counting the
 * call. A file's first call of each operation is agreed on: its streak
 * starts from the group's (the ranks' previous files), agreed in that
 * call's summary -- the least of the ranks' (cmio_policy_streak_hint,
 * _agreed, _first). */
int cmio_policy_streak(cmio_file *s, int op);
int64_t cmio_policy_streak_hint(const cmio_file *s, int op);
void cmio_policy_streak_agreed(cmio_file *s, int op, int64_t least);
/* Local (from the agreed streak): 1 when a file's first call of op, its
 * streak agreed, goes straight to MPI. */
int cmio_policy_streak_first(const cmio_file *s, int op);
/* Local: this rank's elapsed time of the group's last timed call, in ns
 * (-1: none), for the pattern's summary reduction to agree on. */
int64_t cmio_policy_pending_ns(const cmio_file *s);
/* Local, with the agreed maximum of the pending times: the group's last
 * timed call credited to its pattern, where e is that pattern and was
 * found on every rank (made 0). */
void cmio_policy_credit(const cmio_file *s, cmio_entry *e, int made, int64_t max_ns);
/* Local: the first call of a pattern deferred to MPI (CMIO_DEFER_PIECE_
 * BYTES): timed as MPI's. */
void cmio_policy_arm_mpi(cmio_file *s, const cmio_entry *e, int op);
/* Collective (the plan's prepare): where the model takes the pattern, what
 * it predicted (a clear win or not); once per pattern and operation. */
void cmio_policy_predicted(cmio_file *s, cmio_entry *e, int op);
/* Local (from agreed state): CMIO_TAKEN, or why this call of a pattern the
 * model takes goes to MPI (a trial of MPI's, or measured slower); arms
 * the timing of the call. made: the plan was made in this call. */
cmio_why cmio_policy_route(cmio_file *s, cmio_entry *e, int op, int made);
/* Local: the same for a non-blocking call, which is never a trial nor
 * timed: MPI's where the pattern's calls measured MPI faster, else
 * collio's. */
cmio_why cmio_policy_route_untimed(const cmio_entry *e, int op);
/* Local: a taken call ended, secs after it began (this rank), made: its
 * plan was made in it (not timed for judging). */
void cmio_policy_taken(cmio_file *s, const cmio_entry *e, int op, int made, double secs);
/* Local: the outcome of a call of operation op for the streak: 1 passed,
 * 0 taken. */
void cmio_policy_outcome(cmio_file *s, int op, int passed);
/* Local: the timing of a call handed to MPI (CMIO_PASS). */
void cmio_policy_pass_begin(cmio_file *s);
int cmio_policy_pass_end(cmio_file *s, int rc);
/* Hands a call to MPI: `call` (the PMPI_ call) timed where the policy
 * armed it; its return code. */
#define CMIO_PASS(s, call) (cmio_policy_pass_begin(s), cmio_policy_pass_end((s), (call)))
/* Local: s closes; its streaks are its group's hint for the next file. */
void cmio_policy_close(const cmio_file *s);
/* take.c: frees collio's open of s (collective over s->comm). */
void cmio_release(cmio_file *s);
/* take.c: frees every cached plan (local; at MPI_Finalize). */
void cmio_cache_clear(void);

/* report.c */
void cmio_count(int writing, cmio_why why, const char *strategy, int first,
                double seconds);
/* A taken non-blocking call: run by collio's helper thread (background
 * 1) or in the starting call (0). */
void cmio_count_async(int writing, int background);
/* The file costs strategy auto priced a taken call with (its stats
 * auto.calibrated and auto.networked): counted for the report. */
typedef enum {
    CMIO_PRICED_CALIBRATED, /* a calibration file's entry */
    CMIO_PRICED_MEASURED,   /* an entry this process measured (auto.calibrate) */
    CMIO_PRICED_LOCAL,      /* the built-in costs of a local file system */
    CMIO_PRICED_NETWORKED,  /* ... of a networked one */
    CMIO_NPRICED
} cmio_priced_by;
void cmio_priced(cmio_priced_by by);
void cmio_report(MPI_Comm comm); /* at MPI_Finalize, if COLLIO_MPIIO_REPORT */
const char *cmio_why_text(cmio_why why);

#endif
