/*
 * bench_calibrate.c -- `collio-bench calibrate`: measures this machine's
 * constants for the cost model of strategy "auto" with the library's
 * collio_calibrate (network, memory, the node, and the file system of
 * --dir: docs/auto.md, "Calibration"), prints them and adds them to the
 * calibration file (collio_calibration_store: the entry of --dir's file
 * system for this job's rank layout; the file's other entries kept).
 * Values not measured (no partner on another node, ...) keep what the
 * file had, else the built-in defaults. Failures are agreed over the
 * ranks (rank 0 prints the first failing rank's message, exit 1), never
 * a hang on one rank's error. Only the public API and MPI.
 */
#include "bench_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CAL_ERR_LEN 512

typedef struct cal_args {
    char dir[COLLIO_BENCH_PATH_LEN];
    char out[COLLIO_BENCH_PATH_LEN]; /* "": collio_calibration_path */
    int mb;                          /* MiB per rank, large requests */
    int pieces;                      /* MPI-IO pieces per rank */
    int quick;                       /* COLLIO_CALIBRATE_QUICK */
    int quiet;
} cal_args;

static void cal_usage(FILE *out)
{
    fprintf(out, "usage: collio-bench calibrate [--dir DIR] [--out FILE] [--mb M]\n"
                 "                              [--pieces N] [--quick] [--quiet]\n"
                 "  measures the constants of strategy auto's cost model and saves\n"
                 "  them (docs/auto.md): network, memory, the node, and the file\n"
                 "  system of DIR (default .; made if missing; a scratch file\n"
                 "  DIR/.collio-calibrate.PID is removed after). --out: the\n"
                 "  calibration file (default: $COLLIO_CALIBRATION, else\n"
                 "  ~/.config/collio/calibration.json); its other entries are kept.\n"
                 "  --mb: MiB per rank of the large requests (8); --pieces: pieces\n"
                 "  per rank of the MPI-IO collective (16384); --quick: the shorter\n"
                 "  measurement auto makes by itself at a first call on a file\n"
                 "  system no calibration covers. Run it through scripts/mpirun N.\n");
}

static int cal_int(const char *s, int lo, int hi, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || end == s || *end || x < lo || x > hi)
        return -1;
    *v = (int)x;
    return 0;
}

static int cal_str(const char *s, char *dst, size_t n)
{
    if (strlen(s) >= n)
        return -1;
    strcpy(dst, s);
    return 0;
}

/* argv[1] is "calibrate". 0, 1 (help printed), 2 (err says why). */
static int cal_parse(int argc, char **argv, cal_args *a, FILE *out, char *err, size_t n)
{
    memset(a, 0, sizeof *a);
    strcpy(a->dir, ".");
    /* --mb, --pieces: 0, the level's (8 and 16384 for a full one) */
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
            if (out)
                cal_usage(out);
            return 1;
        } else if (strcmp(o, "--quiet") == 0) {
            a->quiet = 1;
            continue;
        } else if (strcmp(o, "--quick") == 0) {
            a->quick = 1;
            continue;
        }
        int known = strcmp(o, "--dir") == 0 || strcmp(o, "--out") == 0
                    || strcmp(o, "--mb") == 0 || strcmp(o, "--pieces") == 0;
        if (!known || v == NULL) {
            snprintf(err, n,
                     known ? "calibrate: %s needs a value"
                           : "calibrate: unknown option '%s'",
                     o);
            return 2;
        }
        int bad = strcmp(o, "--dir") == 0   ? cal_str(v, a->dir, sizeof a->dir)
                  : strcmp(o, "--out") == 0 ? cal_str(v, a->out, sizeof a->out)
                  : strcmp(o, "--mb") == 0  ? cal_int(v, 1, 4096, &a->mb)
                                            : cal_int(v, 1, 1 << 26, &a->pieces);
        if (bad) {
            snprintf(err, n, "calibrate: bad value for %s: '%s'", o, v);
            return 2;
        }
        i++;
    }
    return 0;
}

static void cal_print(const collio_calibration *c, const collio_fs_costs *f,
                      const collio_calibrate_info *in, int nranks)
{
    const char *kept = " (not measured: kept)";
    printf("collio-bench calibrate: %d ranks, %d node(s), %d cores per node%s\n", nranks,
           in->nodes, c->cores_per_node, f->quick ? " (quick)" : "");
    printf("  intra_node  latency_s %.3g  bandwidth_Bps %.3g%s\n", c->latency_s[0],
           c->bandwidth_Bps[0], in->measured_intra ? "" : kept);
    printf("  inter_node  latency_s %.3g  bandwidth_Bps %.3g%s\n", c->latency_s[1],
           c->bandwidth_Bps[1], in->measured_inter ? "" : kept);
    printf("  copy_Bps %.3g  piece_s %.3g  shm_window %d\n", c->copy_Bps, c->piece_s,
           c->shm_window);
    printf("  file system %s on %s (%s):\n", f->id.type, f->id.mount, f->id.source);
    printf("    write_request_s %.3g  write_Bps %.3g  mpiio_write_piece_s %.3g\n",
           f->write_request_s, f->write_Bps, f->mpiio_write_piece_s);
    printf("    read_request_s  %.3g  read_Bps  %.3g  mpiio_read_piece_s  %.3g\n",
           f->read_request_s, f->read_Bps, f->mpiio_read_piece_s);
    printf("    mpiio_write_call_s %.3g  mpiio_read_call_s %.3g\n", f->mpiio_write_call_s,
           f->mpiio_read_call_s);
    printf("    mpiio_write_byte_s %.3g  mpiio_read_byte_s %.3g\n", f->mpiio_write_byte_s,
           f->mpiio_read_byte_s);
    for (int i = 0; i < f->nterms && f->call_ranks > 0; i++) /* the strategies' own */
        printf("    %-18s write %.3g s, read %.3g s (%d ranks)\n", f->terms[i].key,
               f->terms[i].write_s, f->terms[i].read_s, f->call_ranks);
    for (int i = 0; i < f->ninterleaved; i++)
        printf("    list i/o, %6.0f-byte pieces: write %.3g s, read %.3g s per request\n",
               f->interleaved_bytes[i], f->write_interleaved_s[i],
               f->read_interleaved_s[i]);
    printf("  stages (s):");
    for (int i = 0; i < in->nstages; i++)
        printf(" %s %.2f%s", in->stage[i], in->stage_s[i],
               i + 1 < in->nstages ? "," : "\n");
}

int collio_bench_calibrate(MPI_Comm comm, int argc, char **argv)
{
    static cal_args a;
    static collio_calibration cal; /* (large) */
    char err[CAL_ERR_LEN] = "";
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int prc = cal_parse(argc, argv, &a, rank == 0 ? stdout : NULL, err, sizeof err);
    if (prc == 2 && rank == 0)
        fprintf(stderr, "collio-bench %s (calibrate --help lists the options)\n", err);
    if (prc)
        return prc == 1 ? 0 : 2;
    /* rank 0 starts from what --out holds (the defaults if nothing); json-c
     * is needed to save at all */
    int status = 0;
    if (rank == 0) {
        int rc =
            a.out[0] != '\0' ? COLLIO_OK : collio_calibration_path(a.out, sizeof a.out);
        if (rc == COLLIO_OK)
            rc = collio_calibration_load(a.out, &cal);
        status = rc == COLLIO_ERR_UNSUPPORTED || a.out[0] == '\0';
        if (status)
            fprintf(stderr, "collio-bench calibrate: %s\n", collio_last_error());
        else if (rc != COLLIO_OK && rc != COLLIO_ERR_IO && !a.quiet)
            printf("note: %s -- starting from the defaults\n", collio_last_error());
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, comm);
    if (status)
        return 1;
    MPI_Bcast(&cal, (int)sizeof cal, MPI_BYTE, 0, comm);
    collio_calibrate_opts opts = {
        a.quick ? COLLIO_CALIBRATE_QUICK : COLLIO_CALIBRATE_FULL, a.mb, a.pieces};
    collio_fs_costs fs;
    collio_calibrate_info info;
    int rc = collio_calibrate(comm, a.dir, &opts, &cal, &fs, &info);
    if (rc != COLLIO_OK) {
        if (rank == 0)
            fprintf(stderr, "collio-bench calibrate: %s\n", collio_last_error());
        return 1;
    }
    if (rank == 0) {
        rc = collio_calibration_store(a.out, &cal, &fs);
        if (!a.quiet)
            cal_print(&cal, &fs, &info, size);
        if (rc != COLLIO_OK)
            fprintf(stderr, "collio-bench calibrate: %s\n", collio_last_error());
        else
            printf("wrote %s\n", a.out);
        if (!a.quiet)
            printf("calibrate took %.1f s\n", info.total_s);
        status = rc != COLLIO_OK;
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, comm);
    return status;
}
