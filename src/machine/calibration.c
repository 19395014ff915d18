/*
 * machine/calibration.c -- the machine's constants for the cost model of
 * strategy "auto": built-in defaults, where the calibration file is
 * (docs/auto.md gives its format and place; calibration_read.c reads
 * it, calibration_store.c writes it), and the entries that cover a file
 * system.
 *
 * The file is advice, never a requirement: a missing, unreadable or
 * corrupt file leaves the defaults in place and says why; a plan reads it
 * on one rank and broadcasts it, so that a rank that sees another file (or
 * none) cannot make the ranks choose differently.
 */
#include "base/base.h"
#include "machine/machine.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The built-in constants: a commodity node (DDR memory, a local SSD
 * behind the page cache), a 10 Gbit/s network between nodes. Used where no
 * calibration file exists; docs/auto.md lists them. */
void collio_calibration_defaults(collio_calibration *c)
{
    if (c == NULL)
        return;
    memset(c, 0, sizeof *c);
    c->latency_s[0] = 1e-6;
    c->latency_s[1] = 20e-6;
    c->bandwidth_Bps[0] = 5e9;
    c->bandwidth_Bps[1] = 1.1e9;
    c->copy_Bps = 5e9;
    c->piece_s = 10e-9;
    c->shm_window = 1;
}

/* The file costs of a file system without a calibration entry, by kind.
 * [0] a local SSD behind the page cache. [1] a file system a network hop
 * away: every request that reaches it is a round trip to a server (an
 * RPC, some hundred microseconds), and the MPI library's collective call
 * pays its file system's locks and rounds -- round numbers near what the
 * emulated cluster's GlusterFS measured (docs/auto.md, "Built-in
 * constants"): a guess for one no calibration has seen, never a
 * measurement of it. */
static const collio_fs_costs builtin_fs[2] = {
    {.id = {.type = "default"},
     .write_request_s = 2e-6,
     .write_Bps = 1.5e9,
     .read_request_s = 1e-6,
     .read_Bps = 3e9,
     .mpiio_write_piece_s = 4e-6,
     .mpiio_read_piece_s = 3e-6},
    {.id = {.type = "default-networked"},
     .write_request_s = 300e-6,
     .write_Bps = 5e8,
     .read_request_s = 200e-6,
     .read_Bps = 1e9,
     .mpiio_write_piece_s = 15e-6,
     .mpiio_read_piece_s = 13e-6,
     .mpiio_write_call_s = 2e-3,
     .mpiio_read_call_s = 1e-3},
};

void collio__fs_costs_default(collio_fs_costs *fs, int networked)
{
    *fs = builtin_fs[networked != 0];
}

int collio_calibration_path(char *buf, size_t n)
{
    const char *env = getenv("COLLIO_CALIBRATION");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    int w;
    if (buf == NULL || n == 0) {
        collio__error_set(COLLIO_ERR_ARG, "collio_calibration_path: no buffer");
        return COLLIO_ERR_ARG;
    }
    if (env != NULL && env[0])
        w = snprintf(buf, n, "%s", env);
    else if (xdg != NULL && xdg[0])
        w = snprintf(buf, n, "%s/collio/calibration.json", xdg);
    else if (home != NULL && home[0])
        w = snprintf(buf, n, "%s/.config/collio/calibration.json", home);
    else {
        collio__error_set(COLLIO_ERR_ARG, "no calibration path: COLLIO_CALIBRATION, "
                                          "XDG_CONFIG_HOME and HOME are all unset");
        return COLLIO_ERR_ARG;
    }
    if (w < 0 || (size_t)w >= n) {
        collio__error_set(COLLIO_ERR_ARG, "the calibration path is longer than %zu bytes",
                          n);
        return COLLIO_ERR_ARG;
    }
    return COLLIO_OK;
}

int collio_calibration_find_fs(const collio_calibration *c, const collio_fs_id *id)
{
    if (c == NULL || id == NULL)
        return -1;
    for (int i = 0; i < c->nfs && i < COLLIO_CALIBRATION_MAX_FS; i++)
        if (strcmp(c->fs[i].id.type, id->type) == 0
            && strcmp(c->fs[i].id.source, id->source) == 0
            && strcmp(c->fs[i].id.mount, id->mount) == 0)
            return i;
    return -1;
}

void collio__mpi_library(char *out, size_t n)
{
    static char name[64];
    if (name[0] == '\0') {
        static char v[16384]; /* (MPICH's MPI_MAX_LIBRARY_VERSION_STRING: 8192) */
        int len = 0;
        if (MPI_Get_library_version(v, &len) != MPI_SUCCESS || len <= 0)
            snprintf(v, sizeof v, "unknown MPI");
        /* "MPICH Version:\t4.0.2\n..." or "Open MPI v4.1.4, package: ...":
         * the first line, to a comma, without "Version:", blanks squeezed */
        v[strcspn(v, "\n,")] = '\0';
        char *w = strstr(v, " Version:");
        if (w != NULL)
            memmove(w, w + 9, strlen(w + 9) + 1);
        size_t k = 0;
        for (const char *c = v; *c && k + 1 < sizeof name; c++)
            if (!(*c == ' ' || *c == '\t') || (k > 0 && name[k - 1] != ' '))
                name[k++] = *c == '\t' ? ' ' : *c;
        while (k > 0 && name[k - 1] == ' ')
            k--;
        name[k] = '\0';
    }
    snprintf(out, n, "%s", name);
}

int collio_calibration_covers(const collio_fs_costs *fs, int ranks, int ranks_per_node)
{
    if (fs == NULL)
        return 0;
    char mine[64];
    collio__mpi_library(mine, sizeof mine);
    if (fs->mpi[0] != '\0' && strcmp(fs->mpi, mine) != 0)
        return 0;            /* another MPI library's collective, its calls */
    if (fs->call_ranks <= 0) /* no layout recorded (older files): any */
        return 1;
    return fs->call_ranks_per_node == ranks_per_node
           && (fs->call_ranks > fs->call_ranks_per_node) == (ranks > ranks_per_node);
}

int collio_calibration_find_covering(const collio_calibration *c, const collio_fs_id *id,
                                     int ranks, int ranks_per_node)
{
    if (c == NULL || id == NULL)
        return -1;
    for (int i = 0; i < c->nfs && i < COLLIO_CALIBRATION_MAX_FS; i++)
        if (strcmp(c->fs[i].id.type, id->type) == 0
            && strcmp(c->fs[i].id.source, id->source) == 0
            && strcmp(c->fs[i].id.mount, id->mount) == 0
            && collio_calibration_covers(&c->fs[i], ranks, ranks_per_node))
            return i;
    return -1;
}

/* A file system entry's costs, in the file's order: its key, its field,
 * and whether it may be missing (files of older collios have none: 0,
 * not measured) -- optional ones may also be 0. Parsing and saving
 * (calibration_store.c) both walk this table. */
const collio__cal_num collio__cal_fs_nums[] = {
#define FS_NUM(field, optional)                                                          \
    {                                                                                    \
#field, offsetof(collio_fs_costs, field), optional                               \
    }
    FS_NUM(write_request_s, 0),     FS_NUM(write_Bps, 0),
    FS_NUM(read_request_s, 0),      FS_NUM(read_Bps, 0),
    FS_NUM(mpiio_write_piece_s, 0), FS_NUM(mpiio_read_piece_s, 0),
    FS_NUM(mpiio_write_call_s, 1),  FS_NUM(mpiio_read_call_s, 1),
    FS_NUM(mpiio_write_byte_s, 1),  FS_NUM(mpiio_read_byte_s, 1),
#undef FS_NUM
};
const int collio__cal_fs_nnums =
    (int)(sizeof collio__cal_fs_nums / sizeof collio__cal_fs_nums[0]);
