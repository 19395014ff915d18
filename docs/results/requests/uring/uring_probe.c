/*
 * uring_probe.c -- background file writes: a helper thread (what collio's
 * requests use) against Linux io_uring (liburing), measured on one writer
 * doing what a collio writer rank's file pass does: BYTES in requests of
 * REQ bytes at consecutive offsets of a new file, while the process
 * computes (a busy loop) for C seconds. Not part of the library: the
 * measurement behind docs/requests.md's choice of a thread.
 *
 *   cc -O2 -o uring_probe uring_probe.c -luring -lpthread
 *   ./uring_probe DIR [MB [REQ_KIB [REPS]]]
 *
 * Modes, each step a new file (created and removed outside the timing):
 *   blocking  write, then compute;
 *   thread    a persistent helper thread writes while the caller computes,
 *             then the caller waits for it;
 *   uring     every write submitted to an io_uring (one submit call), the
 *             caller computes, then reaps the completions.
 * C is the median blocking write's time (compute as long as the write).
 * Columns: start s (until the caller may compute: for blocking, the
 * write), compute s, step s, wait s (after the compute, until the writes
 * are done), overlap (1 - (start + wait) / blocking write: the write's
 * part the caller did not wait for; the thread's start is a wake-up),
 * medians of REPS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;
static void compute(double seconds)
{
    double t0 = now(), x = 1;
    while (now() - t0 < seconds)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

static char *buf;
static size_t total, req;

static void write_all(int fd)
{
    for (size_t at = 0; at < total; at += req)
        if (pwrite(fd, buf + at, req, (off_t)at) != (ssize_t)req) {
            perror("pwrite");
            exit(1);
        }
}

/* the helper thread: writes fd when given one */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int job_fd = -1, job_done = 0, quit = 0;

static void *helper(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    for (;;) {
        while (job_fd < 0 && !quit)
            pthread_cond_wait(&cv, &mu);
        if (quit)
            break;
        int fd = job_fd;
        pthread_mutex_unlock(&mu);
        write_all(fd);
        pthread_mutex_lock(&mu);
        job_fd = -1;
        job_done = 1;
        pthread_cond_broadcast(&cv);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

static int open_new(const char *dir, int step)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/uring-probe-%ld-%d.dat", dir, (long)getpid(), step);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    unlink(path); /* (removed at close) */
    return fd;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double med(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: uring_probe DIR [MB [REQ_KIB [REPS]]]\n");
        return 2;
    }
    const char *dir = argv[1];
    total = (size_t)(argc > 2 ? atol(argv[2]) : 16) << 20;
    req = (size_t)(argc > 3 ? atol(argv[3]) : 1024) << 10;
    int reps = argc > 4 ? atoi(argv[4]) : 7;
    if (req == 0 || total % req != 0 || reps < 1) {
        fprintf(stderr, "uring_probe: MB must be a multiple of REQ_KIB\n");
        return 2;
    }
    const unsigned nreq = (unsigned)(total / req);
    buf = aligned_alloc(4096, total);
    memset(buf, 0x5a, total);
    pthread_t th;
    pthread_create(&th, NULL, helper, NULL);
    struct io_uring ring;
    unsigned depth = nreq < 4096 ? nreq : 4096;
    int rc = io_uring_queue_init(depth, &ring, 0);
    if (rc < 0) {
        fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-rc));
        return 1;
    }
    double *t = malloc((size_t)reps * sizeof *t), *c = malloc((size_t)reps * sizeof *c),
           *w = malloc((size_t)reps * sizeof *w), *st = malloc((size_t)reps * sizeof *st);
    int step = 0;
    /* blocking: the write alone first (its median is the compute time) */
    for (int r = -1; r < reps; r++) {
        int fd = open_new(dir, step++);
        double t0 = now();
        write_all(fd);
        double t1 = now();
        if (r >= 0)
            t[r] = t1 - t0;
        close(fd);
    }
    const double W = med(t, reps), C = W;
    printf("uring_probe: %zu MiB in %u requests of %zu KiB to %s, compute %.4f s "
           "(the median blocking write), medians of %d\n",
           total >> 20, nreq, req >> 10, dir, C, reps);
    printf("%-9s %10s %10s %10s %10s %8s\n", "mode", "start s", "compute s", "step s",
           "wait s", "overlap");
    for (int mode = 0; mode < 3; mode++) {
        for (int r = -1; r < reps; r++) {
            int fd = open_new(dir, step++);
            double t0 = now(), tc0 = 0, tc1 = 0;
            if (mode == 0) {
                write_all(fd);
                tc0 = now();
                compute(C);
                tc1 = now();
            } else if (mode == 1) {
                pthread_mutex_lock(&mu);
                job_fd = fd;
                job_done = 0;
                pthread_cond_broadcast(&cv);
                pthread_mutex_unlock(&mu);
                tc0 = now();
                compute(C);
                tc1 = now();
                pthread_mutex_lock(&mu);
                while (!job_done)
                    pthread_cond_wait(&cv, &mu);
                pthread_mutex_unlock(&mu);
            } else {
                unsigned done = 0, sent = 0;
                while (sent < nreq) { /* (depth >= nreq up to 4096 requests) */
                    unsigned k = 0;
                    for (; sent < nreq && k < depth; k++, sent++) {
                        struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
                        io_uring_prep_write(sqe, fd, buf + (size_t)sent * req,
                                            (unsigned)req, (uint64_t)sent * req);
                    }
                    io_uring_submit(&ring);
                    if (sent < nreq) /* the ring is full: reap before more */
                        for (; done < sent; done++) {
                            struct io_uring_cqe *cqe;
                            io_uring_wait_cqe(&ring, &cqe);
                            io_uring_cqe_seen(&ring, cqe);
                        }
                }
                tc0 = now();
                compute(C);
                tc1 = now();
                for (; done < nreq; done++) {
                    struct io_uring_cqe *cqe;
                    io_uring_wait_cqe(&ring, &cqe);
                    if (cqe->res != (int)req) {
                        fprintf(stderr, "io_uring write: %s\n",
                                cqe->res < 0 ? strerror(-cqe->res) : "short");
                        return 1;
                    }
                    io_uring_cqe_seen(&ring, cqe);
                }
            }
            double t2 = now();
            if (r >= 0) {
                t[r] = t2 - t0;
                c[r] = tc1 - tc0;
                w[r] = mode == 0 ? 0 : t2 - tc1;
                st[r] = tc0 - t0;
            }
            close(fd);
        }
        static const char *const names[3] = {"blocking", "thread", "uring"};
        double wm = med(w, reps);
        double sm = med(st, reps);
        printf("%-9s %10.4f %10.4f %10.4f %10.4f %8.2f\n", names[mode], sm, med(c, reps),
               med(t, reps), wm, mode == 0 ? 0.0 : 1 - (wm + sm) / W);
    }
    pthread_mutex_lock(&mu);
    quit = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(th, NULL);
    io_uring_queue_exit(&ring);
    return 0;
}
