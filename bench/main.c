/*
 * main.c -- collio-bench, the thin command-line front end of the bench
 * library (bench.h): parse argv, run, turn the summary into an exit code
 * (0 all ok, 1 a run failed or did not verify, 2 usage error);
 * `collio-bench calibrate` goes to collio_bench_calibrate instead.
 * Run it through scripts/mpirun N build/bench/collio-bench ...;
 * `collio-bench --options-markdown` alone needs no MPI (docs/options.md).
 */
#include "bench.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    /* the catalogue's tables (scripts/options-doc): local, without MPI */
    if (argc == 2 && strcmp(argv[1], "--options-markdown") == 0)
        return collio_bench_options_markdown(stdout) == COLLIO_OK && fflush(stdout) == 0
                   ? 0
                   : 1;
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    collio_bench_config cfg;
    collio_bench_config_init(&cfg);
    char err[512] = "";
    int calibrate = argc >= 2 && strcmp(argv[1], "calibrate") == 0;
    int prc = calibrate ? 0
                        : collio_bench_parse(argc, argv, &cfg, rank == 0 ? stdout : NULL,
                                             err, sizeof err);
    int status;
    if (calibrate) {
        status = collio_bench_calibrate(MPI_COMM_WORLD, argc, argv);
    } else if (prc == 1) {
        status = 0;
    } else if (prc == 2) {
        if (rank == 0)
            fprintf(stderr, "collio-bench: %s%s\n", err,
                    strstr(err, "--help") ? "" : " (--help lists the options)");
        status = 2;
    } else {
        collio_bench_summary sum;
        int rc = collio_bench_run(MPI_COMM_WORLD, &cfg, &sum);
        status = rc == COLLIO_ERR_STRATEGY || rc == COLLIO_ERR_ARG ? 2
                 : rc || sum.failed || sum.errors                  ? 1
                                                                   : 0;
        if (rank == 0 && !rc)
            fprintf(stderr,
                    "[collio-bench] %d runs, %d verified, %d failed, "
                    "%d errors\n",
                    sum.runs, sum.verified, sum.failed, sum.errors);
    }
    MPI_Finalize();
    return status;
}
