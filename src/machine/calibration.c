/*
 * machine/calibration.c -- the machine's constants for the cost model of
 * strategy "auto": built-in defaults, and a small JSON file that
 * `collio-bench calibrate` writes (docs/auto.md gives its format and
 * place), read and written with json-c (Debian's libjson-c-dev).
 *
 * The file is advice, never a requirement: a missing, unreadable or
 * corrupt file leaves the defaults in place and says why; a plan reads it
 * on one rank and broadcasts it, so that a rank that sees another file (or
 * none) cannot make the ranks choose differently.
 */
#include "base/base.h"
#include "machine/machine.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef COLLIO_HAVE_JSONC
#include <json-c/json.h>
#endif

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
    FS_NUM(write_request_s, 0),          FS_NUM(write_Bps, 0),
    FS_NUM(read_request_s, 0),           FS_NUM(read_Bps, 0),
    FS_NUM(mpiio_write_piece_s, 0),      FS_NUM(mpiio_read_piece_s, 0),
    FS_NUM(mpiio_write_call_s, 1),       FS_NUM(mpiio_read_call_s, 1),
    FS_NUM(mpiio_write_byte_s, 1),       FS_NUM(mpiio_read_byte_s, 1),
    FS_NUM(serial_write_byte_s, 1),      FS_NUM(serial_read_byte_s, 1),
    FS_NUM(multiphase_write_round_s, 1), FS_NUM(multiphase_read_round_s, 1),
#undef FS_NUM
};
const int collio__cal_fs_nnums =
    (int)(sizeof collio__cal_fs_nums / sizeof collio__cal_fs_nums[0]);

#ifdef COLLIO_HAVE_JSONC

/* The number at `key` of object o into *v: finite, and > 0 (>= 0 where
 * zero_ok). Records what is wrong. */
static int get_num(json_object *o, const char *where, const char *key, int zero_ok,
                   double *v)
{
    json_object *x = NULL;
    if (!json_object_object_get_ex(o, key, &x)
        || !(json_object_is_type(x, json_type_double)
             || json_object_is_type(x, json_type_int))) {
        collio__error_set(COLLIO_ERR_ARG, "calibration file: %s%s has no number '%s'",
                          where, where[0] ? "" : "the top level", key);
        return COLLIO_ERR_ARG;
    }
    *v = json_object_get_double(x);
    if (!isfinite(*v) || *v < 0 || (*v == 0 && !zero_ok)) {
        collio__error_set(COLLIO_ERR_ARG,
                          "calibration file: %s%s: %s = %g is out of range", where,
                          where[0] ? "" : "the top level", key, *v);
        return COLLIO_ERR_ARG;
    }
    return COLLIO_OK;
}

/* The integer at `key` of o into *v: a JSON number with no fraction,
 * lo <= v <= hi (a count, a magic number). Records what is wrong. */
static int get_int(json_object *o, const char *where, const char *key, double lo,
                   double hi, double *v)
{
    int rc = get_num(o, where, key, 1, v);
    if (rc == COLLIO_OK && (*v != floor(*v) || *v < lo || *v > hi)) {
        collio__error_set(COLLIO_ERR_ARG,
                          "calibration file: %s%s: %s = %g is no integer in [%g, %g]",
                          where, where[0] ? "" : "the top level", key, *v, lo, hi);
        rc = COLLIO_ERR_ARG;
    }
    return rc;
}

/* The optional boolean at `key` of o into *v (kept where absent): JSON
 * true or false, never a string or a number. */
static int get_bool(json_object *o, const char *key, int *v)
{
    json_object *x = NULL;
    if (!json_object_object_get_ex(o, key, &x))
        return COLLIO_OK;
    if (!json_object_is_type(x, json_type_boolean)) {
        collio__error_set(COLLIO_ERR_ARG,
                          "calibration file: '%s' is no boolean (true or false)", key);
        return COLLIO_ERR_ARG;
    }
    *v = json_object_get_boolean(x);
    return COLLIO_OK;
}

static int get_str(json_object *o, const char *key, char *out, size_t n)
{
    json_object *x = NULL;
    if (!json_object_object_get_ex(o, key, &x)
        || !json_object_is_type(x, json_type_string)) {
        collio__error_set(COLLIO_ERR_ARG,
                          "calibration file: a file system has no string '%s'", key);
        return COLLIO_ERR_ARG;
    }
    snprintf(out, n, "%s", json_object_get_string(x));
    return COLLIO_OK;
}

static int parse_link(json_object *net, const char *key, double *lat, double *bw)
{
    json_object *l = NULL;
    if (!json_object_object_get_ex(net, key, &l)
        || !json_object_is_type(l, json_type_object)) {
        collio__error_set(COLLIO_ERR_ARG, "calibration file: network has no object '%s'",
                          key);
        return COLLIO_ERR_ARG;
    }
    int rc = get_num(l, key, "latency_s", 0, lat);
    return rc == COLLIO_OK ? get_num(l, key, "bandwidth_Bps", 0, bw) : rc;
}

/* "interleaved": [{"bytes": B, "write_s": W, "read_s": R}, ...] with B
 * increasing: optional (files of older collios have none). */
static int parse_interleaved(json_object *o, collio_fs_costs *fs)
{
    json_object *arr = NULL;
    fs->ninterleaved = 0;
    if (!json_object_object_get_ex(o, "interleaved", &arr))
        return COLLIO_OK;
    size_t n =
        json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
    if (!json_object_is_type(arr, json_type_array) || n > COLLIO_CAL_INTERLEAVED_MAX) {
        collio__error_set(COLLIO_ERR_ARG,
                          "calibration file: filesystems[].interleaved is no array of "
                          "at most %d entries",
                          COLLIO_CAL_INTERLEAVED_MAX);
        return COLLIO_ERR_ARG;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        const char *w = "filesystems[].interleaved[]";
        int rc = json_object_is_type(e, json_type_object) ? COLLIO_OK : COLLIO_ERR_ARG;
        if (rc != COLLIO_OK)
            collio__error_set(rc, "calibration file: %s is no object", w);
        if (rc == COLLIO_OK)
            rc = get_num(e, w, "bytes", 0, &fs->interleaved_bytes[i]);
        if (rc == COLLIO_OK)
            rc = get_num(e, w, "write_s", 1, &fs->write_interleaved_s[i]);
        if (rc == COLLIO_OK)
            rc = get_num(e, w, "read_s", 1, &fs->read_interleaved_s[i]);
        if (rc == COLLIO_OK && i > 0
            && fs->interleaved_bytes[i] <= fs->interleaved_bytes[i - 1]) {
            rc = COLLIO_ERR_ARG;
            collio__error_set(rc, "calibration file: %s: bytes do not increase", w);
        }
        if (rc != COLLIO_OK)
            return rc;
    }
    fs->ninterleaved = (int)n;
    return COLLIO_OK;
}

/* "calls": {"ranks": P, "ranks_per_node": R, "serial": {"write_s": W,
 * "read_s": R}, ... one per base strategy}: optional (files of older
 * collios have none; so may a strategy), 0 ranks then. */
static int parse_calls(json_object *o, collio_fs_costs *fs)
{
    static const char *const names[COLLIO_CAL_NCALLS] = COLLIO_CAL_CALL_STRATEGIES;
    const char *w = "filesystems[].calls";
    json_object *calls = NULL, *e = NULL;
    fs->call_ranks = fs->call_ranks_per_node = 0;
    if (!json_object_object_get_ex(o, "calls", &calls))
        return COLLIO_OK;
    if (!json_object_is_type(calls, json_type_object)) {
        collio__error_set(COLLIO_ERR_ARG, "calibration file: %s is no object", w);
        return COLLIO_ERR_ARG;
    }
    double ranks = 0, rpn = 0;
    int rc = get_int(calls, w, "ranks", 1, 1e9, &ranks);
    if (rc == COLLIO_OK)
        rc = get_int(calls, w, "ranks_per_node", 1, 1e9, &rpn);
    if (rc == COLLIO_OK && rpn > ranks) {
        rc = COLLIO_ERR_ARG;
        collio__error_set(rc, "calibration file: %s: ranks %g, ranks_per_node %g", w,
                          ranks, rpn);
    }
    for (int i = 0; rc == COLLIO_OK && i < COLLIO_CAL_NCALLS; i++) {
        if (!json_object_object_get_ex(calls, names[i], &e))
            continue;
        rc = get_num(e, w, "write_s", 1, &fs->write_call_s[i]);
        if (rc == COLLIO_OK)
            rc = get_num(e, w, "read_s", 1, &fs->read_call_s[i]);
    }
    if (rc == COLLIO_OK) {
        fs->call_ranks = (int)ranks;
        fs->call_ranks_per_node = (int)rpn;
    }
    return rc;
}

static double *fs_num(collio_fs_costs *fs, const collio__cal_num *n)
{
    return (double *)((char *)fs + n->offset);
}

static int parse_fs(json_object *o, collio_fs_costs *fs)
{
    int rc = get_str(o, "type", fs->id.type, sizeof fs->id.type);
    if (rc == COLLIO_OK)
        rc = get_str(o, "mount", fs->id.mount, sizeof fs->id.mount);
    if (rc == COLLIO_OK)
        rc = get_str(o, "source", fs->id.source, sizeof fs->id.source);
    double magic = 0;
    if (rc == COLLIO_OK)
        rc = get_int(o, "filesystems[]", "magic", 0, 18446744073709549568.0, &magic);
    fs->id.magic = (unsigned long)magic;
    json_object *m = NULL;
    fs->mpi[0] = '\0';
    if (rc == COLLIO_OK && json_object_object_get_ex(o, "mpi", &m))
        rc = get_str(o, "mpi", fs->mpi, sizeof fs->mpi);
    fs->quick = 0;
    if (rc == COLLIO_OK && json_object_object_get_ex(o, "method", &m)) {
        const char *v =
            json_object_is_type(m, json_type_string) ? json_object_get_string(m) : "";
        fs->quick = strcmp(v, "quick") == 0;
        if (!fs->quick && strcmp(v, "full") != 0) {
            rc = COLLIO_ERR_ARG;
            collio__error_set(rc, "calibration file: filesystems[].method is neither "
                                  "\"full\" nor \"quick\"");
        }
    }
    for (int i = 0; rc == COLLIO_OK && i < collio__cal_fs_nnums; i++) {
        const collio__cal_num *k = &collio__cal_fs_nums[i];
        json_object *x = NULL;
        double *v = fs_num(fs, k);
        *v = 0;
        if (!k->optional || json_object_object_get_ex(o, k->key, &x))
            rc = get_num(o, "filesystems[]", k->key, k->optional, v);
    }
    if (rc == COLLIO_OK)
        rc = parse_calls(o, fs);
    return rc == COLLIO_OK ? parse_interleaved(o, fs) : rc;
}

static int parse(json_object *root, collio_calibration *c)
{
    json_object *x = NULL, *net = NULL, *fss = NULL;
    if (!json_object_is_type(root, json_type_object)
        || !json_object_object_get_ex(root, "format", &x)
        || !json_object_is_type(x, json_type_string)
        || strcmp(json_object_get_string(x), "collio-calibration") != 0) {
        collio__error_set(COLLIO_ERR_ARG,
                          "calibration file: not a collio calibration (no \"format\": "
                          "\"collio-calibration\")");
        return COLLIO_ERR_ARG;
    }
    if (!json_object_object_get_ex(root, "version", &x)
        || !json_object_is_type(x, json_type_int) || json_object_get_int(x) != 1) {
        collio__error_set(COLLIO_ERR_ARG,
                          "calibration file: version %s, this collio reads 1",
                          x != NULL ? json_object_to_json_string(x) : "missing");
        return COLLIO_ERR_ARG;
    }
    if (!json_object_object_get_ex(root, "network", &net)
        || !json_object_is_type(net, json_type_object)) {
        collio__error_set(COLLIO_ERR_ARG, "calibration file: no object 'network'");
        return COLLIO_ERR_ARG;
    }
    int rc = parse_link(net, "intra_node", &c->latency_s[0], &c->bandwidth_Bps[0]);
    if (rc == COLLIO_OK)
        rc = parse_link(net, "inter_node", &c->latency_s[1], &c->bandwidth_Bps[1]);
    if (rc == COLLIO_OK)
        rc = get_num(root, "", "copy_Bps", 0, &c->copy_Bps);
    if (rc == COLLIO_OK)
        rc = get_num(root, "", "piece_s", 1, &c->piece_s);
    double cores = 0;
    if (rc == COLLIO_OK)
        rc = get_int(root, "", "cores_per_node", 0, 1e6, &cores);
    c->cores_per_node = (int)cores;
    if (rc == COLLIO_OK)
        rc = get_bool(root, "shm_window", &c->shm_window);
    if (rc == COLLIO_OK
        && (!json_object_object_get_ex(root, "filesystems", &fss)
            || !json_object_is_type(fss, json_type_array))) {
        collio__error_set(COLLIO_ERR_ARG, "calibration file: no array 'filesystems'");
        rc = COLLIO_ERR_ARG;
    }
    if (rc != COLLIO_OK)
        return rc;
    size_t n = json_object_array_length(fss);
    for (size_t i = 0; i < n && c->nfs < COLLIO_CALIBRATION_MAX_FS && rc == COLLIO_OK;
         i++) {
        json_object *o = json_object_array_get_idx(fss, i);
        if (!json_object_is_type(o, json_type_object)) {
            collio__error_set(COLLIO_ERR_ARG,
                              "calibration file: filesystems[%zu] is no object", i);
            return COLLIO_ERR_ARG;
        }
        rc = parse_fs(o, &c->fs[c->nfs]);
        c->nfs += rc == COLLIO_OK;
    }
    return rc;
}

int collio_calibration_load(const char *path, collio_calibration *out)
{
    char def[4096];
    if (out == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "collio_calibration_load: out is NULL");
        return COLLIO_ERR_ARG;
    }
    collio_calibration_defaults(out);
    if (path == NULL) {
        int rc = collio_calibration_path(def, sizeof def);
        if (rc != COLLIO_OK)
            return rc;
        path = def;
    }
    /* non-blocking, and only a regular file: a FIFO or a device at the
     * path would block the open or the read (and rank 0 with it, the
     * other ranks waiting in the plan's reduction) */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        collio__error_set(COLLIO_ERR_IO, "calibration file %.900s: %s", path,
                          strerror(e));
        return COLLIO_ERR_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        collio__error_set(COLLIO_ERR_IO,
                          "calibration file %.900s: not a regular file (%s)", path,
                          S_ISFIFO(st.st_mode)   ? "a FIFO"
                          : S_ISDIR(st.st_mode)  ? "a directory"
                          : S_ISCHR(st.st_mode)  ? "a character device"
                          : S_ISBLK(st.st_mode)  ? "a block device"
                          : S_ISSOCK(st.st_mode) ? "a socket"
                                                 : "not a file");
        return COLLIO_ERR_IO;
    }
    /* small by design: a few kilobytes; refuse anything absurd */
    enum { MAX_BYTES = 1 << 20 };
    char *text = st.st_size <= MAX_BYTES ? malloc(MAX_BYTES + 1) : NULL;
    size_t n = 0;
    int rd_err = 0;
    while (text != NULL && n <= MAX_BYTES) {
        ssize_t got = read(fd, text + n, MAX_BYTES + 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            rd_err = got < 0;
            break;
        }
        n += (size_t)got;
    }
    close(fd);
    if (text == NULL || rd_err || n > MAX_BYTES) {
        const int big = st.st_size > MAX_BYTES || n > MAX_BYTES;
        const int code = big || text != NULL ? COLLIO_ERR_IO : COLLIO_ERR_NOMEM;
        free(text);
        collio__error_set(code, "calibration file %.900s: %s", path,
                          big      ? "larger than 1 MiB"
                          : rd_err ? "read error"
                                   : "no memory");
        return code;
    }
    text[n] = '\0';
    json_tokener *tok = json_tokener_new();
    json_object *root = tok != NULL ? json_tokener_parse_ex(tok, text, (int)n + 1) : NULL;
    int rc;
    if (root == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "calibration file %.900s: not JSON (%s)", path,
                          tok != NULL
                              ? json_tokener_error_desc(json_tokener_get_error(tok))
                              : "no memory");
        rc = COLLIO_ERR_ARG;
    } else {
        collio_calibration c;
        collio_calibration_defaults(&c);
        rc = parse(root, &c);
        if (rc == COLLIO_OK) {
            c.from_file = 1;
            *out = c;
        }
    }
    json_object_put(root);
    if (tok != NULL)
        json_tokener_free(tok);
    free(text);
    return rc;
}

#else /* !COLLIO_HAVE_JSONC */

int collio_calibration_load(const char *path, collio_calibration *out)
{
    (void)path;
    collio_calibration_defaults(out);
    collio__error_set(COLLIO_ERR_UNSUPPORTED,
                      "collio was built without json-c: no calibration file is read");
    return COLLIO_ERR_UNSUPPORTED;
}

#endif
