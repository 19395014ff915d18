/*
 * base/base.h -- base: errors and their agreement, checked arithmetic, waiting
 * (progress), shared-memory words, big buffers, the sparse all-to-all, file domains (the
 * files of src/base/). The bottom part: it uses no other.
 */
#ifndef COLLIO_BASE_BASE_H
#define COLLIO_BASE_BASE_H

#include "collio.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* ----------------------------------------------------------------- errors */

/* Collective: every rank learns whether any rank failed. Returns the
 * largest code over ranks (COLLIO_OK if none), the same on every rank;
 * on failure every rank's collio_last_error() becomes the message of the
 * lowest rank with that code (error.c). */
int collio__agree(MPI_Comm comm, int rc);

/* Collective: collio__agree of rc and, where every rank is OK, a
 * comparison of `value` (the identity of an object every rank must pass
 * the same of) in the same single MPI_Allreduce: COLLIO_ERR_MISMATCH on
 * every rank if it differs, "rank F: WHAT differs between rank 0 and rank
 * F". Where also_max is not NULL, *also_max (this rank's) becomes its
 * maximum over the ranks, in the same reduction. */
int collio__agree_same(MPI_Comm comm, int rc, int64_t value, const char *what,
                       int64_t *also_max);

/* Local: records this thread's error detail for collio_last_error (one
 * line, printf format; no rank: collio__agree adds it). Call it where a
 * failure is found, with the code the function will return. */
void collio__error_set(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Local: a public call begins; what was recorded before is no longer its
 * detail (called first thing by every public function that can fail). */
void collio__error_begin(void);

/* Collective: COLLIO_OK if `value` is equal on every rank, else
 * COLLIO_ERR_MISMATCH on every rank, with the same detail everywhere
 * (collio_last_error): "rank F: WHAT differs across ranks: A on rank 0, B
 * on rank F" (F the lowest rank that differs from rank 0). One
 * MPI_Allreduce when the values agree; the detail costs three more
 * collectives, only on mismatch. */
int collio__check_same_i64(MPI_Comm comm, int64_t value, const char *what);

/* Same for a digest of several arguments (what: their names, plural):
 * "rank F: WHAT differ between rank 0 and rank F". */
/* Order-sensitive mix of one value into a hash, so that a constructor
 * checks all its collective arguments with one collio__check_same_i64. */
uint64_t collio__hash_mix(uint64_t h, uint64_t v);

int collio__check_same_digest(MPI_Comm comm, uint64_t digest, const char *what);

/* Same for a string (compared by hash and length; the detail quotes both,
 * shortened). */
int collio__check_same_str(MPI_Comm comm, const char *s, const char *what);

/* Collective: 1 on every rank if rc is COLLIO_OK on every rank and each
 * of v[0..n) (n <= 8; a string by collio__str_key) is the same on every
 * rank, else 0 on every rank (or where MPI failed) -- one MPI_Allreduce
 * for the usual case of several arguments; on 0 the caller runs its
 * checks one by one, whose details name the argument that differs. */
int collio__all_ok_and_same(MPI_Comm comm, int rc, const int64_t *v, int n);
/* Local: a string's key for the comparisons above, in key[0..2): its
 * length (-1 for NULL) and a hash. */
void collio__str_key(const char *s, int64_t key[2]);

/* Local: COLLIO_OK while MPI is usable (initialized, not finalized); else
 * COLLIO_ERR_STATE with the detail "FN called before MPI_Init" (or after
 * MPI_Finalize). Every public function that communicates calls it first,
 * so that no MPI call is made outside MPI's lifetime. */
int collio__mpi_usable(const char *fn);
/* Local: 1 while MPI is usable. The void frees skip their MPI frees
 * otherwise (the memory is freed, the MPI handles are gone with MPI). */
int collio__mpi_alive(void);

/* Checked arithmetic: 0 on success, COLLIO_ERR_OVERFLOW on overflow. */
int collio__mul_i64(int64_t a, int64_t b, int64_t *out);
int collio__add_i64(int64_t a, int64_t b, int64_t *out);
/* Collective (alltoall.c): records of `words` int64 each, scount[q] of
 * them at sbuf + sdispl[q] * words to rank q (counts and displacements in
 * records). Fills rcount / rdispl (arrays of P) and *rbuf (malloc'd,
 * *nrecv records, rank q's at rdispl[q]). rc: this rank's result so far,
 * agreed first. Returns the agreed code; on failure *rbuf is NULL. */
int collio__alltoall_records(MPI_Comm comm, int rc, const int64_t *sbuf, int words,
                             const int *scount, const int *sdispl, int *rcount,
                             int *rdispl, int64_t **rbuf, int64_t *nrecv);

/* MPI_Alltoallv displacements: displ[q] = count[0] + ... + count[q-1],
 * *total the sum; COLLIO_ERR_OVERFLOW where an int no longer holds it. */
int collio__displs(const int *count, int *displ, int n, int64_t *total);

double collio__now(void); /* MPI_Wtime */

/* Waiting (progress.c). collio__node_oversubscribed (collective): 1 if
 * some node runs more ranks of comm than it has cores (node_ranks: the
 * ranks of comm on this rank's node, from collio__plan_nodes). collio__waitall
 * (any n): MPI_Waitall, or when oversubscribed a poll loop that sleeps
 * between bursts of MPI_Testall so that waiting ranks leave the cores to
 * working ones. Returns COLLIO_OK or COLLIO_ERR_MPI. */
int collio__node_oversubscribed(MPI_Comm comm, int node_ranks);

/* Nonblocking posts into rq[*nr], counted in *nr: on failure the slot is
 * MPI_REQUEST_NULL, so that a later wait skips it, and *rc becomes
 * COLLIO_ERR_MPI (the plan's communicator returns MPI errors: a receive
 * that silently failed to post would leave its data out of the file). */
void collio__isend(const void *buf, int count, MPI_Datatype type, int to, int tag,
                   MPI_Comm comm, MPI_Request *rq, int *nr, int *rc);
void collio__irecv(void *buf, int count, MPI_Datatype type, int from, int tag,
                   MPI_Comm comm, MPI_Request *rq, int *nr, int *rc);
int collio__waitall(int n, MPI_Request *rq, int oversubscribed);

/* Counters in shared memory that processes sleep on (shm_word.c): post
 * adds one and wakes every sleeper; wait returns once the counter has
 * reached target (compared mod 2^32). Lock-free, so usable across
 * processes in an MPI shared-memory window. */
typedef _Atomic uint32_t collio__word;
void collio__word_post(collio__word *w);
/* The processes a waiter depends on: n process ids, each in shared memory
 * (pid[i] points at it; 0 = not known yet). */
typedef struct collio__peers {
    _Atomic int32_t *const *pid;
    int n;
} collio__peers;
/* Waits until *w reaches target: COLLIO_OK. Bounded: once a wait has
 * lasted COLLIO__WAIT_CHECK_S, the waiter checks every such interval that
 * each of `peers` (may be NULL) still exists; if one has died (a crashed
 * or killed rank) it returns COLLIO_ERR_MPI instead of sleeping forever.
 * A peer that lives but never posts (stopped in a debugger) is waited
 * for. */
#define COLLIO__WAIT_CHECK_S 1
int collio__word_wait(collio__word *w, uint32_t target, const collio__peers *peers);

/* Large per-call work buffers (bigbuf.c): huge-page backed when big, so
 * first touch does not fault every 4 KiB. Not zeroed. NULL on failure;
 * free with collio__bigbuf_free (NULL-safe). */
void *collio__bigbuf_alloc(size_t bytes);
void collio__bigbuf_free(void *p);

/* ------------------------------------------- file domains (domains.c) */

/* Domain d of ndomains balanced contiguous domains of [0, nglobal):
 * elements [*lo, *hi) (the first nglobal % ndomains hold one more). */
void collio__domain_range(int64_t nglobal, int ndomains, int d, int64_t *lo, int64_t *hi);
/* The domain holding element x, 0 <= x < nglobal. */
int collio__domain_of(int64_t nglobal, int ndomains, int64_t x);

/* ------------------------------------------------ queued work (jobs.c) */

/* A unit of collective work started by one call and completed by a later
 * one (a request, src/requests/). Every rank submits the same jobs in the
 * same order; they run in that order, on the helper thread (worker_ok,
 * where MPI gives MPI_THREAD_MULTIPLE) or in the application's completion
 * calls. */
enum { COLLIO__JOB_QUEUED = 1, COLLIO__JOB_DONE };
typedef struct collio__job collio__job;
struct collio__job {
    /* the owner's */
    const void *plan, *file; /* what it runs on: collio__jobs_forget looks */
    MPI_Comm comm;           /* where the ranks agree on a batch's size */
    int worker_ok;           /* the helper thread may run it (cleared at
                                submission when there is none) */
    int released;            /* 0: held until a completion call */
    /* j may run in one execution with head and the jobs between */
    int (*joins)(const collio__job *head, const collio__job *j);
    /* collective: runs jobs[0..n) as one execution (n >= 1), on the helper
     * thread or not; the owner keeps each job's result in its own fields */
    void (*run)(collio__job **jobs, int n, int on_thread);
    /* the queue's */
    int state, orphan; /* orphan: its plan or file went first */
    double t_start, t_end;
    void (*notify)(void *arg); /* collio__jobs_notify's, called once it has run */
    void *notify_arg;
    int ran; /* it has run (its notice taken), done or not yet */
    collio__job *next, *live_next, *live_prev;
};
/* Local (but see collio__jobs_drain): queues j, and starts the helper
 * thread at the first job that may use it. */
void collio__jobs_submit(collio__job *j);
/* Collective in effect (it may run queued jobs in this thread): releases
 * every job and returns once j is done. */
void collio__jobs_wait(const collio__job *j);
/* Releases every job and runs those the helper thread will not (all of
 * them without one): collective in effect where it runs any. */
void collio__jobs_progress(void);
/* Releases every job; 1 if j is done. Without a helper thread it runs
 * the queue up to j (collective in effect) and returns 1. */
int collio__jobs_test(const collio__job *j);
/* Collective in effect: every queued job is run. The start of every
 * collective entry of the library that is not a request's. */
void collio__jobs_drain(void);
/* Local: fn(arg) is to be called once j has run, by the thread that
 * ran it (without the queue's lock, before j counts as done: a wait for j
 * returns after it), or at once here if it has run already: returns 1. Returns 0, and
 * registers nothing, where nothing runs j without a completion call (no helper thread, or
 * j or a job before it is held or the helper thread's not). */
int collio__jobs_notify(collio__job *j, void (*fn)(void *arg), void *arg);
/* Local: j leaves the live list (its owner completed it). */
void collio__jobs_retire(collio__job *j);
/* Local: marks orphan every live job (submitted, not retired) on plan
 * (if not NULL) and on file (if not NULL), calling each on it; returns
 * how many. Call after collio__jobs_drain. */
int collio__jobs_forget(const void *plan, const void *file, void (*each)(collio__job *j));

#endif /* COLLIO_BASE_BASE_H */
