/*
 * concurrent_writer.c -- one of two MPI jobs that write the same target at
 * the same time (tests/concurrent_jobs.sh starts both): a restarted job
 * while the old one still runs, two members of an ensemble given the same
 * name.
 *
 * Usage: concurrent_writer TARGET SEED ROUNDS
 *
 * For every canonical strategy and both backends, ROUNDS times: CREATE
 * the target, write the vector of pattern SEED (block-cyclic, 3 elements
 * per block, so every rank's pieces interleave), close. Every call must
 * succeed (each job has its own temporary), and right after each close
 * rank 0 reads the target with plain POSIX: it must be one job's WHOLE
 * vector -- this job's or the other's (seed SEED ^ 1), never a mix, never
 * short. Prints "concurrent_writer SEED: N commits, M checks failed"; the
 * exit code is nonzero on any failure.
 */
#include "collio.h"
#include "pattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NG = 20011, ES = 8, BX = 3 };

/* Rank 0: 1 if path holds exactly the vector of `seed`. */
static int holds(const char *path, uint64_t seed)
{
    FILE *in = fopen(path, "rb");
    if (in == NULL)
        return 0;
    unsigned char *got = malloc((size_t)NG * ES + 1), e[ES];
    size_t n = fread(got, 1, (size_t)NG * ES + 1, in);
    fclose(in);
    int ok = n == (size_t)NG * ES;
    for (int64_t i = 0; ok && i < NG; i++) {
        collio_pattern_element((uint64_t)i, seed, ES, e);
        ok = memcmp(got + i * ES, e, ES) == 0;
    }
    free(got);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 4) {
        if (rank == 0)
            fprintf(stderr, "usage: concurrent_writer TARGET SEED ROUNDS\n");
        MPI_Finalize();
        return 2;
    }
    const char *path = argv[1];
    uint64_t seed = strtoull(argv[2], NULL, 10);
    int rounds = atoi(argv[3]);
    collio_layout *l = NULL;
    int fails = 0, commits = 0;
    if (collio_layout_block_cyclic(MPI_COMM_WORLD, NG, BX, ES, &l) != COLLIO_OK) {
        fprintf(stderr, "layout: %s\n", collio_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int64_t n = collio_layout_local_count(l);
    unsigned char *buf = malloc((size_t)n * ES + 1);
    for (int64_t k = 0; k < n; k++)
        collio_pattern_element((uint64_t)collio_layout_global_index(l, k), seed, ES,
                               buf + k * ES);
    for (int s = 0; s < collio_strategy_count(); s++) {
        const char *name = collio_strategy_name(s);
        if (collio_strategy_is_canonical(name) != 1)
            continue;
        collio_plan *p = NULL;
        if (collio_plan_create(MPI_COMM_WORLD, l, name, NULL, &p) != COLLIO_OK) {
            fprintf(stderr, "plan %s: %s\n", name, collio_last_error());
            fails++;
            continue;
        }
        for (int be = 0; be < 2; be++) {
            collio_file_options o;
            collio_file_options_init(&o);
            o.backend = (collio_backend)be;
            for (int r = 0; r < rounds; r++) {
                collio_file *f = NULL;
                int rc =
                    collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, &o, &f);
                if (rc == COLLIO_OK)
                    rc = collio_write(p, f, buf, (size_t)n * ES);
                if (rc == COLLIO_OK)
                    rc = collio_file_close(&f);
                else if (f != NULL)
                    collio_file_abort(&f);
                if (rc != COLLIO_OK) {
                    if (rank == 0)
                        fprintf(stderr, "seed %llu %s backend %d round %d: %s (%s)\n",
                                (unsigned long long)seed, name, be, r,
                                collio_strerror(rc), collio_last_error());
                    fails++;
                    continue;
                }
                commits++;
                if (rank == 0 && !holds(path, seed) && !holds(path, seed ^ 1)) {
                    fprintf(stderr,
                            "seed %llu %s backend %d round %d: the target is neither "
                            "job's whole vector\n",
                            (unsigned long long)seed, name, be, r);
                    fails++;
                }
            }
        }
        collio_plan_free(&p);
    }
    int all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("concurrent_writer %llu: %d commits, %d checks failed\n",
               (unsigned long long)seed, commits, all);
    free(buf);
    collio_layout_free(&l);
    MPI_Finalize();
    return all != 0;
}
