/*
 * strategies/auto/inputs.c -- the model's inputs, the same on every rank,
 * in one MPI_Allreduce: an auto plan's own part of plan creation.
 *
 * One message of doubles (a "wire"): the first NMAX by maximum, the rest
 * by sum. Rank 0 writes its calibration into the summed part and every
 * other rank zeros, so the sum is rank 0's calibration everywhere:
 * adding zeros is exact, and a 64-bit file system key travels as two
 * 32-bit halves, each exact in a double. The wire is one element of a
 * contiguous type, so that no MPI library reduces a part of it alone
 * (the operation depends on where a value sits).
 */
#include "machine/machine.h"
#include "core/core.h"
#include "replicas/replicas.h"
#include "inputs.h"
#include "model.h"

#include <math.h>
#include <string.h>

enum {
    REPL = 6, /* where the replicas' work starts among the maxima */
    NMAX = REPL + (int)(sizeof(collio__repl_work) / sizeof(double)),
    IL = 13,                                     /* where the interleaved sizes start */
    CALLS = IL + 3 * COLLIO_CAL_INTERLEAVED_MAX, /* the calls' ranks, then the terms */
    MEASURED = CALLS + 2 + 2 * COLLIO_CAL_TERMS_MAX, /* 1: measured by this process */
    NFSV = MEASURED + 1
};

/* A file system's entry on the wire: key halves, ninterleaved, the ten
 * costs, the interleaved sizes and costs, the calls' ranks (all, per
 * node), the strategies' terms (write, read) in the order of the keys
 * they own (collio__auto_term_keys: the same registry on every rank, so
 * the keys need not travel; a term no strategy owns is left out), and
 * whether rank 0's process measured it (not from the file). */
typedef struct wire {
    double max[NMAX]; /* bytes, pieces, moved, ranks on a node, -cores, code,
                         the replicas' work (collio__repl_work's order) */
    double pieces_total, elements_total;
    double net[6]; /* latency x2, bandwidth x2, copy, piece */
    double cores_per_node, shm_window, nfs, error, dir_entry, autocal;
    double fs[COLLIO_CALIBRATION_MAX_FS][NFSV];
} wire;
#define WIRE_N ((int)(sizeof(wire) / sizeof(double)))

_Static_assert(sizeof(collio__repl_work) % sizeof(double) == 0,
               "the replicas' work travels as doubles");

static void max_then_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const double *a = in;
    double *b = inout;
    for (int e = 0; e < *len; e++, a += WIRE_N, b += WIRE_N)
        for (int i = 0; i < WIRE_N; i++)
            b[i] = i < NMAX ? fmax(a[i], b[i]) : a[i] + b[i];
}

static MPI_Datatype wire_type = MPI_DATATYPE_NULL;
static MPI_Op wire_op = MPI_OP_NULL;

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: the type and
 * operation go with them (MPI does not free them itself; MPICH reports
 * them as leaked). */
static int wire_free(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)value, (void)extra;
    if (wire_type != MPI_DATATYPE_NULL)
        MPI_Type_free(&wire_type);
    if (wire_op != MPI_OP_NULL)
        MPI_Op_free(&wire_op);
    if (keyval != MPI_KEYVAL_INVALID)
        MPI_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
}

/* The type and operation, made once per process, freed at MPI_Finalize.
 * Not thread safe, as plan creation is not. */
static int wire_ops(MPI_Datatype *t, MPI_Op *op)
{
    if (wire_type == MPI_DATATYPE_NULL) {
        int key = MPI_KEYVAL_INVALID;
        if (MPI_Type_contiguous(WIRE_N, MPI_DOUBLE, &wire_type) != MPI_SUCCESS
            || MPI_Type_commit(&wire_type) != MPI_SUCCESS
            || MPI_Op_create(max_then_sum, 1, &wire_op) != MPI_SUCCESS
            || MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, wire_free, &key, NULL)
                   != MPI_SUCCESS
            || MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL) != MPI_SUCCESS) {
            wire_free(MPI_COMM_SELF, key, NULL, NULL);
            return COLLIO_ERR_MPI;
        }
    }
    *t = wire_type, *op = wire_op;
    return COLLIO_OK;
}

static void put_fs(double *w, const collio_fs_costs *fs, uint64_t key, int measured)
{
    int n = fs->ninterleaved < COLLIO_CAL_INTERLEAVED_MAX ? fs->ninterleaved
                                                          : COLLIO_CAL_INTERLEAVED_MAX;
    double v[NFSV] = {(double)(key >> 32),
                      (double)(key & 0xffffffffu),
                      n,
                      fs->write_request_s,
                      fs->write_Bps,
                      fs->read_request_s,
                      fs->read_Bps,
                      fs->mpiio_write_piece_s,
                      fs->mpiio_read_piece_s,
                      fs->mpiio_write_call_s,
                      fs->mpiio_read_call_s,
                      fs->mpiio_write_byte_s,
                      fs->mpiio_read_byte_s};
    for (int i = 0; i < n; i++) {
        v[IL + i] = fs->interleaved_bytes[i];
        v[IL + COLLIO_CAL_INTERLEAVED_MAX + i] = fs->write_interleaved_s[i];
        v[IL + 2 * COLLIO_CAL_INTERLEAVED_MAX + i] = fs->read_interleaved_s[i];
    }
    v[CALLS] = fs->call_ranks, v[CALLS + 1] = fs->call_ranks_per_node;
    const char *const *keys = NULL;
    const int nk = collio__auto_term_keys(&keys);
    for (int i = 0; i < nk; i++) {
        const collio_cost_term *t = collio_fs_costs_term(fs, keys[i]);
        v[CALLS + 2 + 2 * i] = t != NULL ? t->write_s : -1; /* -1: none */
        v[CALLS + 3 + 2 * i] = t != NULL ? t->read_s : -1;
    }
    v[MEASURED] = measured;
    memcpy(w, v, sizeof v);
}

static void get_fs(const double *w, collio_fs_costs *fs, uint64_t *key, char *measured)
{
    memset(fs, 0, sizeof *fs);
    *key = (uint64_t)w[0] << 32 | (uint64_t)w[1];
    fs->ninterleaved = (int)w[2];
    fs->write_request_s = w[3], fs->write_Bps = w[4];
    fs->read_request_s = w[5], fs->read_Bps = w[6];
    fs->mpiio_write_piece_s = w[7], fs->mpiio_read_piece_s = w[8];
    fs->mpiio_write_call_s = w[9], fs->mpiio_read_call_s = w[10];
    fs->mpiio_write_byte_s = w[11], fs->mpiio_read_byte_s = w[12];
    for (int i = 0; i < fs->ninterleaved && i < COLLIO_CAL_INTERLEAVED_MAX; i++) {
        fs->interleaved_bytes[i] = w[IL + i];
        fs->write_interleaved_s[i] = w[IL + COLLIO_CAL_INTERLEAVED_MAX + i];
        fs->read_interleaved_s[i] = w[IL + 2 * COLLIO_CAL_INTERLEAVED_MAX + i];
    }
    fs->call_ranks = (int)w[CALLS], fs->call_ranks_per_node = (int)w[CALLS + 1];
    const char *const *keys = NULL;
    const int nk = collio__auto_term_keys(&keys);
    for (int i = 0; i < nk; i++)
        if (w[CALLS + 2 + 2 * i] >= 0)
            collio_fs_costs_set_term(fs, keys[i], w[CALLS + 2 + 2 * i],
                                     w[CALLS + 3 + 2 * i]);
    *measured = (char)(w[MEASURED] != 0);
}

int collio__auto_share(collio_plan *p, collio__auto_inputs *in)
{
    wire w;
    memset(&w, 0, sizeof w);
    double mx[REPL] = {in->bytes,      in->pieces, in->moved,
                       in->node_ranks, -in->cores, (double)in->code};
    memcpy(w.max, mx, sizeof mx);
    memcpy(w.max + REPL, &in->repl, sizeof in->repl);
    w.pieces_total = in->pieces_total;
    w.elements_total = in->elements_total;
    if (p->rank == 0) {
        const collio_calibration *c = &in->calib;
        double net[6] = {c->latency_s[0],     c->latency_s[1], c->bandwidth_Bps[0],
                         c->bandwidth_Bps[1], c->copy_Bps,     c->piece_s};
        memcpy(w.net, net, sizeof net);
        w.cores_per_node = c->cores_per_node, w.shm_window = c->shm_window;
        w.nfs = c->nfs, w.error = in->error, w.dir_entry = in->dir_entry;
        w.autocal = in->autocal;
        for (int k = 0; k < c->nfs && k < COLLIO_CALIBRATION_MAX_FS; k++)
            put_fs(w.fs[k], &c->fs[k], collio__fs_key(&c->fs[k].id), in->measured[k]);
    }
    MPI_Datatype t;
    MPI_Op op;
    int rc = wire_ops(&t, &op);
    /* (every rank makes the same type and operation: a failure is the
     * same everywhere, or MPI itself is broken) */
    if (rc != COLLIO_OK
        || MPI_Allreduce(MPI_IN_PLACE, &w, 1, t, op, p->comm) != MPI_SUCCESS)
        return COLLIO_ERR_MPI;
    in->bytes = w.max[0], in->pieces = w.max[1], in->moved = w.max[2];
    in->node_ranks = w.max[3], in->cores = -w.max[4];
    in->code = (int)w.max[5];
    memcpy(&in->repl, w.max + REPL, sizeof in->repl);
    in->pieces_total = w.pieces_total;
    in->elements_total = w.elements_total;
    collio_calibration *c = &in->calib;
    collio_calibration_defaults(c);
    c->from_file = (int)w.error == 0;
    c->latency_s[0] = w.net[0], c->latency_s[1] = w.net[1];
    c->bandwidth_Bps[0] = w.net[2], c->bandwidth_Bps[1] = w.net[3];
    c->copy_Bps = w.net[4], c->piece_s = w.net[5];
    c->cores_per_node = (int)w.cores_per_node, c->shm_window = (int)w.shm_window;
    c->nfs = (int)w.nfs;
    for (int k = 0; k < c->nfs && k < COLLIO_CALIBRATION_MAX_FS; k++)
        get_fs(w.fs[k], &c->fs[k], &in->fs_key[k], &in->measured[k]);
    in->error = (int)w.error;
    in->dir_entry = (int)w.dir_entry;
    in->autocal = (int)w.autocal;
    return COLLIO_OK;
}
