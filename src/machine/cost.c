/*
 * machine/cost.c -- the terms a strategy's cost formula is made of
 * (cost.h). Each is a sum of constants the calibration measures
 * (docs/auto.md derives them and lists the built-in defaults):
 *
 *   per request   write_request_s, read_request_s: one small file request
 *   per byte      write_Bps, read_Bps (the file system, every rank at
 *                 once); bandwidth_Bps (a link), copy_Bps (memory)
 *   per message   latency_s (within a node [0], between nodes [1])
 *   per piece     piece_s (packing a run of elements), and the MPI
 *                 library's collective I/O per piece of a rank,
 *                 mpiio_*_piece_s
 *
 * Work that is CPU-bound on each rank (requests, copies, packing) slows by
 * the oversubscription of a node, cpu = max(1, ranks per node / cores);
 * bytes between nodes share the node's link, so they count ranks per node
 * times. A rank's partners are spread over the job: the fraction
 * off-node is (P - ranks per node) / P.
 *
 * List I/O's request: the calibration's cost of a request when every rank
 * does the same at once (interleaved pieces) at the mean piece size,
 * linear in log(size) between the sizes it measured: a 16 KiB piece
 * interleaved with other ranks' costs several times a 4-byte one here
 * (page-cache pages, the file's lock), far more than its bytes at
 * write_Bps.
 *
 * The MPI library's collective per byte (mpiio_*_byte_s): what its bytes
 * cost beyond the file's -- its exchange through the library's buffers,
 * 0.7-1.5 ns a byte per process here, several times a copy --, measured
 * with large pieces; where not measured, or where the links are slower
 * than they were when it was (nodes), an exchange over them.
 */
#include "base/base.h"
#include "machine/machine.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void collio__cost_setup(collio__cost *m, const collio__cost_shape *s,
                        const collio_calibration *c, const collio_fs_costs *fs,
                        int writing)
{
    int P = s->nranks > 0 ? s->nranks : 1;
    m->cal = c;
    m->fs = fs;
    m->writing = writing;
    m->nranks = P;
    m->cores = s->cores_per_node > 0 ? s->cores_per_node : s->ranks_per_node;
    m->rpn = s->ranks_per_node > 0 ? s->ranks_per_node : 1;
    m->cpu = m->cores > 0 && m->rpn > m->cores ? (double)m->rpn / m->cores : 1.0;
    m->off = s->nnodes > 1 ? (double)(P - m->rpn) / P : 0.0;
    if (m->off < 0)
        m->off = 0;
    m->lat0 = c->latency_s[0];
    m->lat1 = c->latency_s[1];
    m->lat = (1 - m->off) * m->lat0 + m->off * m->lat1;
    m->bw0 = c->bandwidth_Bps[0];
    m->bw1 = c->bandwidth_Bps[1];
    m->copy = c->copy_Bps;
    m->piece = c->piece_s;
    m->req = writing ? fs->write_request_s : fs->read_request_s;
    m->fbw = writing ? fs->write_Bps : fs->read_Bps;
    m->mpiio = writing ? fs->mpiio_write_piece_s : fs->mpiio_read_piece_s;
    m->mpiio_call = writing ? fs->mpiio_write_call_s : fs->mpiio_read_call_s;
    m->mpiio_byte = writing ? fs->mpiio_write_byte_s : fs->mpiio_read_byte_s;
    m->file_bytes = s->bytes_total / m->fbw;
    int cal_cores = c->cores_per_node > 0   ? c->cores_per_node
                    : s->cores_per_node > 0 ? s->cores_per_node
                                            : 1;
    m->cpu_cal = fs->call_ranks_per_node > cal_cores
                     ? (double)fs->call_ranks_per_node / cal_cores
                     : 1.0;
}

double collio__cost_list_request(const collio__cost *m, double bytes)
{
    const collio_fs_costs *fs = m->fs;
    const int n = fs->ninterleaved < COLLIO_CAL_INTERLEAVED_MAX
                      ? fs->ninterleaved
                      : COLLIO_CAL_INTERLEAVED_MAX;
    const double *x = fs->interleaved_bytes;
    const double *y = m->writing ? fs->write_interleaved_s : fs->read_interleaved_s;
    if (n <= 0)
        return m->req;
    if (n == 1 || bytes <= x[0])
        return y[0];
    for (int i = 1; i < n; i++)
        if (bytes <= x[i]) {
            double f = log(bytes / x[i - 1]) / log(x[i] / x[i - 1]);
            return y[i - 1] + f * (y[i] - y[i - 1]);
        }
    return y[n - 1];
}

double collio__cost_exchange(const collio__cost *m, double bytes, double msgs)
{
    return msgs * m->lat * m->cpu + bytes * (1 - m->off) * m->cpu / m->bw0
           + bytes * m->off * m->rpn / m->bw1;
}

double collio__cost_mpiio_data(const collio__cost *m, double bytes, double msgs)
{
    return fmax(bytes * m->mpiio_byte * m->cpu, collio__cost_exchange(m, bytes, msgs));
}

double collio__cost_pack(const collio__cost *m, double pieces, double bytes)
{
    return pieces * m->piece + bytes / m->copy;
}

double collio__cost_term(const collio__cost *m, const char *key)
{
    const collio_cost_term *t = collio_fs_costs_term(m->fs, key);
    return t == NULL ? 0 : m->writing ? t->write_s : t->read_s;
}

const char *collio__cost_term_kind(const char *key, size_t *owner_len)
{
    const char *dot = strrchr(key, '.');
    if (owner_len != NULL)
        *owner_len = dot != NULL ? (size_t)(dot - key) : strlen(key);
    return dot != NULL ? dot + 1 : "";
}

/* A calibration entry's terms (collio_cost_term): found by key, set. */
const collio_cost_term *collio_fs_costs_term(const collio_fs_costs *fs, const char *key)
{
    if (fs == NULL || key == NULL)
        return NULL;
    for (int i = 0; i < fs->nterms && i < COLLIO_CAL_TERMS_MAX; i++)
        if (strcmp(fs->terms[i].key, key) == 0)
            return &fs->terms[i];
    return NULL;
}

int collio_fs_costs_set_term(collio_fs_costs *fs, const char *key, double write_s,
                             double read_s)
{
    if (fs == NULL || key == NULL || strlen(key) >= sizeof fs->terms[0].key
        || !isfinite(write_s) || !isfinite(read_s) || write_s < 0 || read_s < 0) {
        collio__error_set(COLLIO_ERR_ARG, "collio_fs_costs_set_term: bad term %.64s",
                          key != NULL ? key : "(NULL)");
        return COLLIO_ERR_ARG;
    }
    collio_cost_term *t = (collio_cost_term *)collio_fs_costs_term(fs, key);
    if (t == NULL) {
        if (fs->nterms < 0 || fs->nterms >= COLLIO_CAL_TERMS_MAX) {
            collio__error_set(COLLIO_ERR_ARG,
                              "collio_fs_costs_set_term: %s: %d terms already", key,
                              COLLIO_CAL_TERMS_MAX);
            return COLLIO_ERR_ARG;
        }
        t = &fs->terms[fs->nterms++];
        snprintf(t->key, sizeof t->key, "%s", key);
    }
    t->write_s = write_s, t->read_s = read_s;
    return COLLIO_OK;
}
