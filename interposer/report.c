/*
 * report.c -- what the interposer did, reported at MPI_Finalize when
 * COLLIO_MPIIO_REPORT is set ("1" or "stderr": standard error of rank 0;
 * any other value: a file of that name, appended). Per operation: calls
 * taken and by which strategy (the first call of a pattern -- its plan's
 * inspector -- apart from the later ones, which reuse the plan), calls
 * passed to the MPI library and why, and the time in each (the slowest
 * rank's); and which file costs strategy auto priced the taken calls
 * with (a calibration entry or the built-in ones), so that a user sees
 * where calibrating would help; and where the non-blocking calls taken
 * ran (in the background, or in the starting call). Nothing is printed unless asked.
 */
#include "cmio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMES 16

/* counts and seconds per operation (write, read) and reason; taken calls
 * per strategy name and first / later */
static double n_why[2][CMIO_NWHY], s_why[2][CMIO_NWHY];
static const char *names[MAX_NAMES];
static double n_ran[2][MAX_NAMES][2], s_ran[2][MAX_NAMES][2];
static int nnames = 0;
/* taken calls under strategy auto, by the file costs it priced them with
 * (cmio_priced) */
static double n_priced[CMIO_NPRICED];
/* taken non-blocking calls (split collectives included) per operation:
 * run in the starting call (0) or by collio's helper thread (1) */
static double n_async[2][2];

const char *cmio_why_text(cmio_why why)
{
    static const char *const text[CMIO_NWHY] = {
        [CMIO_TAKEN] = "taken",
        [CMIO_WHY_OFF] = "collio off (COLLIO_MPIIO or info collio_mpiio)",
        [CMIO_WHY_DATAREP] = "a datarep other than native",
        [CMIO_WHY_ATOMIC] = "atomic mode",
        [CMIO_WHY_SEQUENTIAL] = "MPI_MODE_SEQUENTIAL",
        [CMIO_WHY_RDONLY] = "the access mode forbids it",
        [CMIO_WHY_VIEW] = "file extents that do not increase (filetype)",
        [CMIO_WHY_TYPE] = "a datatype or offset collio cannot take",
        [CMIO_WHY_EOF] = "a read past the end of the file",
        [CMIO_WHY_OVERLAP] = "extents overlap between ranks (or collio refused them)",
        [CMIO_WHY_MODEL] =
            "the model predicts MPI-IO's own collective fastest (or no data)",
        [CMIO_WHY_PATH] = "collio could not open the file's path",
        [CMIO_WHY_FIRST] = "the first call of a pattern of large pieces (planned at its "
                           "second)",
        [CMIO_WHY_TRIAL] = "MPI's own collective timed, to compare collio's with",
        [CMIO_WHY_MEASURED] = "collio's calls measured slower than MPI's own collective",
        [CMIO_WHY_STREAK] = "the file's calls all went to MPI of late: straight there "
                            "(its 256th, 512th ... decided again)",
    };
    return why < CMIO_NWHY ? text[why] : "?";
}

void cmio_count(int writing, cmio_why why, const char *strategy, int first,
                double seconds)
{
    int op = writing ? 0 : 1;
    n_why[op][why] += 1;
    s_why[op][why] += seconds;
    if (why != CMIO_TAKEN || strategy == NULL)
        return;
    int k = 0;
    while (k < nnames && strcmp(names[k], strategy) != 0)
        k++;
    if (k == nnames && nnames < MAX_NAMES)
        names[nnames++] = strategy; /* the library's own strings */
    if (k < MAX_NAMES) {
        n_ran[op][k][first ? 0 : 1] += 1;
        s_ran[op][k][first ? 0 : 1] += seconds;
    }
}

void cmio_count_async(int writing, int background)
{
    n_async[writing ? 0 : 1][background ? 1 : 0] += 1;
}

void cmio_priced(cmio_priced_by by)
{
    if (by < CMIO_NPRICED)
        n_priced[by] += 1;
}

void cmio_report(MPI_Comm comm)
{
    const char *to = getenv("COLLIO_MPIIO_REPORT");
    if (to == NULL || *to == '\0' || strcmp(to, "0") == 0)
        return;
    int rank = 0, P = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    /* counts: rank 0's (every rank makes the same collective calls);
     * seconds: the slowest rank's */
    double s1[2][CMIO_NWHY], s2[2][MAX_NAMES][2];
    MPI_Reduce(s_why, s1, 2 * CMIO_NWHY, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(s_ran, s2, 2 * MAX_NAMES * 2, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (rank != 0)
        return;
    int to_stderr = strcmp(to, "1") == 0 || strcmp(to, "stderr") == 0;
    FILE *out = to_stderr ? stderr : fopen(to, "a");
    if (out == NULL)
        return;
    fprintf(out, "collio_mpiio report (%d ranks; times: the slowest rank's)\n", P);
    for (int op = 0; op < 2; op++) {
        double seen = 0;
        for (int w = 0; w < CMIO_NWHY; w++)
            seen += n_why[op][w];
        if (seen == 0)
            continue;
        fprintf(out, "  %s calls: %.0f seen, %.0f taken by collio\n",
                op == 0 ? "collective write" : "collective read", seen,
                n_why[op][CMIO_TAKEN]);
        for (int k = 0; k < nnames; k++)
            for (int f = 0; f < 2; f++)
                if (n_ran[op][k][f] > 0)
                    fprintf(out, "    %-12s %6.0f %s  %10.6f s\n", names[k],
                            n_ran[op][k][f],
                            f == 0 ? "first of a pattern (plan made)"
                                   : "later (plan reused) ",
                            s2[op][k][f]);
        for (int w = 1; w < CMIO_NWHY; w++)
            if (n_why[op][w] > 0)
                fprintf(out, "    passed to MPI: %6.0f  %10.6f s  %s\n", n_why[op][w],
                        s1[op][w], cmio_why_text((cmio_why)w));
        if (n_async[op][0] + n_async[op][1] > 0)
            fprintf(out,
                    "    non-blocking (split included) taken: %.0f by collio's helper "
                    "thread, in the background; %.0f in the starting call%s\n",
                    n_async[op][1], n_async[op][0],
                    n_async[op][0] > 0 ? " (no MPI_THREAD_MULTIPLE: "
                                         "COLLIO_MPIIO_THREAD_MULTIPLE=1 asks for it)"
                                       : "");
    }
    double priced = 0;
    for (int k = 0; k < CMIO_NPRICED; k++)
        priced += n_priced[k];
    if (priced > 0)
        fprintf(out,
                "  auto priced the file system of the calls it took with: a stored "
                "calibration %.0f, one measured by this run %.0f, the built-in local "
                "costs %.0f, the built-in networked costs %.0f\n",
                n_priced[CMIO_PRICED_CALIBRATED], n_priced[CMIO_PRICED_MEASURED],
                n_priced[CMIO_PRICED_LOCAL], n_priced[CMIO_PRICED_NETWORKED]);
    if (n_priced[CMIO_PRICED_LOCAL] + n_priced[CMIO_PRICED_NETWORKED] > 0)
        fprintf(out, "  (built-in costs are a guess: a pattern of 1 MiB or more measures "
                     "its file system itself, or `collio-bench calibrate --dir DIR` "
                     "measures it fully, docs/auto.md)\n");
    if (!to_stderr)
        fclose(out);
}
