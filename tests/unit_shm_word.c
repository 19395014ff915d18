/*
 * unit_shm_word.c -- the sleeping waits of shared-memory exchanges
 * (src/base/shm_word.c) between real processes (fork, a MAP_SHARED page): a
 * counter already reached returns at once; a peer that posts later wakes
 * the waiter; a peer that dies without posting -- a crashed or killed
 * rank -- makes the wait return COLLIO_ERR_MPI after about
 * COLLIO__WAIT_CHECK_S instead of sleeping forever; a live peer that is
 * only slow (longer than a check interval) is still waited for.
 */
#include "base/base.h"
#include "unit_check.h"

#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef struct shared {
    collio__word word;
    _Atomic int32_t pid;
} shared;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A child that records its pid, sleeps `ms`, posts `posts` times, exits. */
static void child(shared *s, int ms, int posts)
{
    pid_t pid = fork();
    if (pid != 0)
        return;
    atomic_store(&s->pid, (int32_t)getpid());
    usleep((useconds_t)ms * 1000);
    for (int i = 0; i < posts; i++)
        collio__word_post(&s->word);
    _exit(0);
}

int main(void)
{
    signal(SIGCHLD, SIG_IGN); /* children reaped at once: no zombies */
    shared *s =
        mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(s != MAP_FAILED, "mmap");
    if (s == MAP_FAILED)
        return unit_summary("unit_shm_word");
    _Atomic int32_t *pids[1] = {&s->pid};
    collio__peers peers = {pids, 1};

    atomic_init(&s->word, 5);
    atomic_init(&s->pid, 0);
    CHECK(collio__word_wait(&s->word, 5, &peers) == COLLIO_OK, "reached: at once");
    CHECK(collio__word_wait(&s->word, 3, NULL) == COLLIO_OK, "passed: at once");

    /* a peer posts after 0.2 s */
    atomic_store(&s->word, 0);
    child(s, 200, 1);
    double t0 = now();
    int rc = collio__word_wait(&s->word, 1, &peers);
    CHECK(rc == COLLIO_OK && now() - t0 < COLLIO__WAIT_CHECK_S + 5.0,
          "woken by a post: rc %d after %.2f s", rc, now() - t0);

    /* a slow but live peer: posts after 2.5 check intervals */
    atomic_store(&s->word, 0);
    atomic_store(&s->pid, 0);
    child(s, 2500 * COLLIO__WAIT_CHECK_S, 1);
    rc = collio__word_wait(&s->word, 1, &peers);
    CHECK(rc == COLLIO_OK, "a slow live peer is waited for: rc %d", rc);

    /* a peer that dies without posting */
    atomic_store(&s->word, 0);
    atomic_store(&s->pid, 0);
    child(s, 100, 0);
    while (atomic_load(&s->pid) == 0)
        usleep(1000);
    t0 = now();
    rc = collio__word_wait(&s->word, 1, &peers);
    double waited = now() - t0;
    CHECK(rc == COLLIO_ERR_MPI, "a dead peer ends the wait with an error: rc %d", rc);
    CHECK(waited >= 0.05 && waited < 4.0 * COLLIO__WAIT_CHECK_S + 1.0,
          "within a few check intervals: %.2f s", waited);
    return unit_summary("unit_shm_word");
}
