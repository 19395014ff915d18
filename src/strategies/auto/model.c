/*
 * strategies/auto/model.c -- the cost model of strategy "auto".
 *
 * Each candidate's time is a sum of terms whose constants the calibration
 * measures (docs/auto.md derives them and lists the built-in defaults):
 *
 *   per request   write_request_s, read_request_s: one small file request
 *   per byte      write_Bps, read_Bps (the file system, every rank at
 *                 once); bandwidth_Bps (a link), copy_Bps (memory)
 *   per message   latency_s (within a node [0], between nodes [1])
 *   per piece     piece_s (packing a run of elements), and the MPI
 *                 library's collective I/O per piece of a rank,
 *                 mpiio_*_piece_s (the two_phase anchor)
 *
 * Work that is CPU-bound on each rank (requests, copies, packing) slows by
 * the oversubscription of a node, cpu = max(1, ranks per node / cores);
 * bytes between nodes share the node's link, so they count ranks per node
 * times. A rank's partners are spread over the job: the fraction
 * off-node is (P - ranks per node) / P.
 *
 *   independent  every rank writes its pieces itself (list I/O):
 *                pieces_max * list_request * cpu + bytes_total / file_Bps,
 *                list_request the calibration's cost of a request when
 *                every rank does the same at once (interleaved pieces) at
 *                the mean piece size (bytes_max / pieces_max), linear in
 *                log(size) between the sizes it measured: a 16 KiB piece
 *                interleaved with other ranks' costs several times a 4-byte
 *                one here (page-cache pages, the file's lock), far more than
 *                its bytes at write_Bps
 *   two_phase    the MPI library's collective I/O, measured per piece and
 *                per call: pieces_max * mpiio_piece * cpu + mpiio_call
 *                + bytes_total / file_Bps + an exchange of bytes_max with
 *                P - 1 messages (mpiio_call: what a call costs beyond its
 *                pieces -- file domains, rounds, the file system's locks:
 *                0 on this machine's ext4, about 1 ms on GlusterFS)
 *   multiphase   pack and unpack (pieces and bytes), an exchange of
 *                moved_max, then one contiguous request per rank:
 *                2 * pack + exchange + request * cpu + bytes_total / file_Bps
 *   serial       rank 0 receives every other rank's bytes, places every
 *                piece, and writes alone: P messages + (bytes over its link
 *                + pack(pieces_total, bytes_total)) * cpu (the waiting
 *                ranks of its node poll for their share of the cores)
 *                + bytes_total / file_Bps
 *   subgroup g   a gather of g - 1 ranks' bytes to each master (within a
 *                node), then two_phase (with its mpiio_call) among the
 *                P / g masters on pieces
 *                merged from consecutive ranks (counted as pieces_max:
 *                consecutive ranks' pieces adjoin in block-cyclic and
 *                sorted index layouts; optimistic elsewhere)
 */
#include "model.h"

#include <math.h>

const collio__auto_candidate collio__auto_candidates[AUTO_NCAND] = {
    [AUTO_SERIAL] = {"serial", "serial", NULL, NULL, 0},
    [AUTO_INDEPENDENT] = {"independent", "independent", NULL, NULL, 0},
    [AUTO_TWO_PHASE] = {"two_phase", "two_phase", NULL, NULL, 0},
    [AUTO_MULTIPHASE] = {"multiphase", "multiphase", NULL, NULL, 0},
    [AUTO_SUBGROUP_G2] = {"subgroup_g2", "subgroup", "subgroup.group", "2", 2},
    [AUTO_SUBGROUP_G4] = {"subgroup_g4", "subgroup", "subgroup.group", "4", 4},
    [AUTO_SUBGROUP_G8] = {"subgroup_g8", "subgroup", "subgroup.group", "8", 8},
};

/* The model's view of one machine and operation. */
typedef struct model {
    double cpu;      /* slowdown of CPU-bound work on a node */
    double off;      /* fraction of a rank's partners on other nodes */
    int rpn;         /* ranks per node */
    double lat;      /* one message, mixed as `off` says */
    double bw0, bw1; /* a link within a node, between nodes */
    double copy, piece;
    double req, fbw, mpiio; /* the file's: per request, bandwidth, per piece */
    double mpiio_call;      /* the MPI library's collective, per call */
} model;

/* List I/O's cost per request at pieces of `bytes` (above). */
static double list_request(const collio_fs_costs *fs, int writing, double bytes)
{
    const int n = fs->ninterleaved < COLLIO_CAL_INTERLEAVED_MAX
                      ? fs->ninterleaved
                      : COLLIO_CAL_INTERLEAVED_MAX;
    const double *x = fs->interleaved_bytes;
    const double *y = writing ? fs->write_interleaved_s : fs->read_interleaved_s;
    if (n <= 0)
        return writing ? fs->write_request_s : fs->read_request_s;
    if (n == 1 || bytes <= x[0])
        return y[0];
    for (int i = 1; i < n; i++)
        if (bytes <= x[i]) {
            double f = log(bytes / x[i - 1]) / log(x[i] / x[i - 1]);
            return y[i - 1] + f * (y[i] - y[i - 1]);
        }
    return y[n - 1];
}

/* An exchange in which every rank sends `bytes` in `msgs` messages. */
static double exchange(const model *m, double bytes, double msgs)
{
    return msgs * m->lat * m->cpu + bytes * (1 - m->off) * m->cpu / m->bw0
           + bytes * m->off * m->rpn / m->bw1;
}

static double pack(const model *m, double pieces, double bytes)
{
    return pieces * m->piece + bytes / m->copy;
}

void collio__auto_predict(const collio__auto_shape *s, const collio_calibration *c,
                          const collio_fs_costs *fs, int writing, double t[AUTO_NCAND])
{
    model m;
    int P = s->nranks > 0 ? s->nranks : 1;
    int cores = s->cores_per_node > 0 ? s->cores_per_node : s->ranks_per_node;
    m.rpn = s->ranks_per_node > 0 ? s->ranks_per_node : 1;
    m.cpu = cores > 0 && m.rpn > cores ? (double)m.rpn / cores : 1.0;
    m.off = s->nnodes > 1 ? (double)(P - m.rpn) / P : 0.0;
    if (m.off < 0)
        m.off = 0;
    m.lat = (1 - m.off) * c->latency_s[0] + m.off * c->latency_s[1];
    m.bw0 = c->bandwidth_Bps[0];
    m.bw1 = c->bandwidth_Bps[1];
    m.copy = c->copy_Bps;
    m.piece = c->piece_s;
    m.req = writing ? fs->write_request_s : fs->read_request_s;
    m.fbw = writing ? fs->write_Bps : fs->read_Bps;
    m.mpiio = writing ? fs->mpiio_write_piece_s : fs->mpiio_read_piece_s;
    m.mpiio_call = writing ? fs->mpiio_write_call_s : fs->mpiio_read_call_s;
    double file_bytes = s->bytes_total / m.fbw;

    double piece = s->pieces_max > 0 ? s->bytes_max / s->pieces_max : 0;
    t[AUTO_INDEPENDENT] =
        s->pieces_max * list_request(fs, writing, piece) * m.cpu + file_bytes;
    t[AUTO_TWO_PHASE] = s->pieces_max * m.mpiio * m.cpu + m.mpiio_call + file_bytes
                        + exchange(&m, s->bytes_max, P - 1);
    double msgs = P - 1 < s->pieces_max ? P - 1 : s->pieces_max;
    t[AUTO_MULTIPHASE] = 2 * pack(&m, s->pieces_max, s->bytes_max) * m.cpu
                         + exchange(&m, s->moved_max, msgs) + m.req * m.cpu + file_bytes;
    /* rank 0's link: the others' bytes arrive over it, off-node as `off` */
    double into0 = s->bytes_total - s->bytes_total / P;
    t[AUTO_SERIAL] = P * m.lat
                     + (into0 * ((1 - m.off) / m.bw0 + m.off / m.bw1)
                        + pack(&m, s->pieces_total, s->bytes_total))
                           * m.cpu
                     + file_bytes;
    for (int i = AUTO_SUBGROUP_G2; i <= AUTO_SUBGROUP_G8; i++) {
        int g = collio__auto_candidates[i].group;
        if (g > P || g < 2) {
            t[i] = INFINITY;
            continue;
        }
        int masters = (P + g - 1) / g;
        int nodes = s->nnodes > 0 ? s->nnodes : 1;
        double mcpu = (double)masters / nodes / (cores > 0 ? cores : 1);
        if (mcpu < 1)
            mcpu = 1;
        /* the gather: g - 1 ranks' bytes into the master, within a node;
         * the master packs the group's pieces into its merged stream */
        double gather = (g - 1) * (m.lat + s->bytes_max / m.bw0) * m.cpu
                        + pack(&m, s->pieces_max * g, s->bytes_max * g) * m.cpu;
        model mm = m;
        mm.cpu = mcpu;
        t[i] = gather + s->pieces_max * m.mpiio * mcpu + m.mpiio_call + file_bytes
               + exchange(&mm, s->bytes_max * g, masters - 1);
    }
}

int collio__auto_pick(const double t[AUTO_NCAND])
{
    int best = 0;
    for (int i = 1; i < AUTO_NCAND; i++)
        if (t[i] < t[best])
            best = i;
    return best;
}
