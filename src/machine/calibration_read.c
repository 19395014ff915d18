/*
 * machine/calibration_read.c -- reading the calibration file (docs/auto.md
 * gives its format; calibration_store.c writes it), with json-c
 * (Debian's libjson-c-dev): every number checked for its type and range,
 * a file system entry's strategy terms (collio_cost_term) from "calls"
 * and "terms" -- and from the two pairs of numbers collio 0.2 wrote.
 *
 * The file is advice, never a requirement: a missing, unreadable or
 * corrupt file leaves the defaults in place and says why.
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

/* A term's {"write_s": W, "read_s": R} at e, set as KEY. */
static int parse_term(json_object *e, const char *where, const char *key,
                      collio_fs_costs *fs)
{
    double w = 0, r = 0;
    int rc = json_object_is_type(e, json_type_object) ? COLLIO_OK : COLLIO_ERR_ARG;
    if (rc != COLLIO_OK)
        collio__error_set(rc, "calibration file: %s.%s is no object", where, key);
    if (rc == COLLIO_OK)
        rc = get_num(e, where, "write_s", 1, &w);
    if (rc == COLLIO_OK)
        rc = get_num(e, where, "read_s", 1, &r);
    return rc == COLLIO_OK ? collio_fs_costs_set_term(fs, key, w, r) : rc;
}

/* "calls": {"ranks": P, "ranks_per_node": R, "STRATEGY": {"write_s": W,
 * "read_s": R}, ...}: each strategy's smallest call, the term
 * "STRATEGY.call"; optional (files of older collios have none), 0 ranks
 * then. "terms": {"STRATEGY.KIND": {"write_s": W, "read_s": R}, ...}: the
 * strategies' other terms, optional; files of collio 0.2 had two of them
 * as numbers of the entry, read as such (LEGACY). */
static const struct {
    const char *write, *read, *key;
} legacy[] = {
    {"serial_write_byte_s", "serial_read_byte_s", "serial.byte"},
    {"multiphase_write_round_s", "multiphase_read_round_s", "multiphase.round"}};

static int parse_terms(json_object *o, collio_fs_costs *fs)
{
    const char *w = "filesystems[].calls";
    json_object *calls = NULL, *terms = NULL;
    fs->call_ranks = fs->call_ranks_per_node = 0;
    fs->nterms = 0;
    int rc = COLLIO_OK;
    for (size_t i = 0; rc == COLLIO_OK && i < sizeof legacy / sizeof legacy[0]; i++) {
        json_object *x = NULL;
        double vw = 0, vr = 0;
        if (!json_object_object_get_ex(o, legacy[i].write, &x))
            continue;
        rc = get_num(o, "filesystems[]", legacy[i].write, 1, &vw);
        if (rc == COLLIO_OK)
            rc = get_num(o, "filesystems[]", legacy[i].read, 1, &vr);
        if (rc == COLLIO_OK)
            rc = collio_fs_costs_set_term(fs, legacy[i].key, vw, vr);
    }
    if (rc == COLLIO_OK && json_object_object_get_ex(o, "terms", &terms)) {
        if (!json_object_is_type(terms, json_type_object)) {
            collio__error_set(COLLIO_ERR_ARG, "calibration file: filesystems[].terms is "
                                              "no object");
            return COLLIO_ERR_ARG;
        }
        json_object_object_foreach(terms, tkey, tval)
        {
            if (rc == COLLIO_OK)
                rc = parse_term(tval, "filesystems[].terms", tkey, fs);
        }
    }
    if (rc != COLLIO_OK || !json_object_object_get_ex(o, "calls", &calls))
        return rc;
    if (!json_object_is_type(calls, json_type_object)) {
        collio__error_set(COLLIO_ERR_ARG, "calibration file: %s is no object", w);
        return COLLIO_ERR_ARG;
    }
    double ranks = 0, rpn = 0;
    rc = get_int(calls, w, "ranks", 1, 1e9, &ranks);
    if (rc == COLLIO_OK)
        rc = get_int(calls, w, "ranks_per_node", 1, 1e9, &rpn);
    if (rc == COLLIO_OK && rpn > ranks) {
        rc = COLLIO_ERR_ARG;
        collio__error_set(rc, "calibration file: %s: ranks %g, ranks_per_node %g", w,
                          ranks, rpn);
    }
    json_object_object_foreach(calls, name, cval)
    {
        char key[64];
        if (rc != COLLIO_OK || strcmp(name, "ranks") == 0
            || strcmp(name, "ranks_per_node") == 0)
            continue;
        snprintf(key, sizeof key, "%.42s.call", name);
        rc = parse_term(cval, w, key, fs);
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
        rc = parse_terms(o, fs);
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
