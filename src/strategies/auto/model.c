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
 *   two_phase    the MPI library's collective I/O, measured per piece,
 *                per call and per byte: pieces_max * mpiio_piece * cpu
 *                + mpiio_call + bytes_total / file_Bps + bytes_max *
 *                mpiio_byte * cpu, or an exchange of bytes_max with P - 1
 *                messages where that is more (mpiio_call: what a call
 *                costs beyond its pieces -- file domains, rounds, the
 *                file system's locks: 0 on this machine's ext4, about 1 ms
 *                on GlusterFS; mpiio_byte: what its bytes cost beyond the
 *                file's -- its exchange through the library's buffers,
 *                0.7-1.5 ns a byte per process here, several times a
 *                copy)
 *   multiphase   pack and unpack (pieces and bytes), an exchange of
 *                moved_max, then one contiguous request per rank:
 *                2 * pack + exchange + request * cpu + bytes_total / file_Bps,
 *                and its synchronised rounds beyond its smallest call's
 *                (shape.mp_rounds: the pull rounds of small blocks on one
 *                node) at multiphase_*_round_s as calibrated, scaled from
 *                the calibration's oversubscription to the plan's: each
 *                waits for the slowest rank twice. Where its exchange
 *                copies each byte straight into the node's shared window
 *                instead (shape.mp_copies: larger blocks on one node, each
 *                pushed by its sender into its owner's file-order buffer),
 *                mp_copies * pack replaces the packs and the exchange
 *   serial       rank 0 receives every other rank's bytes, places every
 *                piece, and writes alone: P messages + (pieces_total *
 *                piece + request) * cpu (the waiting ranks of its node
 *                poll for their share of the cores) + its bytes:
 *                bytes_total * serial_*_byte as calibrated (rank 0's
 *                whole work on them in a large call -- gather, copies,
 *                the file --, not scaled by the node's oversubscription:
 *                one process's work, while the others wait, took the same
 *                at 3, 4 and 8 ranks on 2 cores), or where more the
 *                off-node bytes over its node's link and the file's;
 *                not calibrated, (bytes over its link + bytes_total /
 *                copy) * cpu + bytes_total / file_Bps
 *   subgroup g   a gather of g - 1 ranks' bytes to each master (a group
 *                is g consecutive ranks: those off the master's node send
 *                over its node's link), then two_phase (with its
 *                mpiio_call) among the P / g masters, or list I/O
 *                (subgroup_g*_list), on the group's pieces: pieces_max of
 *                them where consecutive ranks' pieces adjoin in the file
 *                (block-cyclic layouts: shape.adjoin), g * pieces_max
 *                elsewhere
 *   multiphase_k the hypercube stopped after k < ceil(log2 P) phases (seed
 *                001: the number of phases chosen): per phase half of a
 *                rank's bytes to its partner and a copy of the half kept,
 *                within the node for the leading shape.intra_phases
 *                phases, else over the node's link; the scatter into file
 *                order; list I/O of 2^k ranks' pieces (merged where they
 *                adjoin: pieces_max / 2^k runs, 2^k times longer)
 *
 * Then each candidate's call floor: the calibration times the smallest
 * call of each base strategy (write_call_s / read_call_s: one 4-byte
 * element per rank). What it costs beyond what the terms above predict
 * for it is what every call pays whatever its size -- its
 * synchronisations (each waits for the slowest rank; where a node's
 * ranks outnumber its cores, for one to get a core back: far more than
 * latency_s, measured with the other ranks idle), its requests. It is
 * added to the base strategy's prediction, scaled from the calibration's
 * oversubscription (call_ranks_per_node / cores) to the plan's (cpu);
 * subgroup adds its inner strategy's, multiphase_k multiphase's.
 *
 * Last, on replicated layouts, the replicas' work that every candidate
 * does alike around its own (shape.repl_runs, fill_*): a write selects
 * the elements it writes from the user's stream, pack(repl_runs,
 * bytes_max) * cpu; a read copies them back the same way and fills the
 * copies it does not write from their writers -- single elements packed
 * and unpacked, pack(fill_elements, fill_bytes) * cpu, around one
 * exchange of fill_sent bytes to fill_peers ranks.
 */
#include "model.h"

#include <math.h>

#define SG "subgroup.group"
#define SGI "subgroup.inner"
#define MPK "multiphase.phases"
const collio__auto_candidate collio__auto_candidates[AUTO_NCAND] = {
    [AUTO_SERIAL] = {"serial", "serial", {NULL}, {NULL}, 0, 0},
    [AUTO_INDEPENDENT] = {"independent", "independent", {NULL}, {NULL}, 0, 0},
    [AUTO_TWO_PHASE] = {"two_phase", "two_phase", {NULL}, {NULL}, 0, 0},
    [AUTO_MULTIPHASE] = {"multiphase", "multiphase", {NULL}, {NULL}, 0, 0},
    [AUTO_SUBGROUP_G2] = {"subgroup_g2", "subgroup", {SG}, {"2"}, 2, 0},
    [AUTO_SUBGROUP_G4] = {"subgroup_g4", "subgroup", {SG}, {"4"}, 4, 0},
    [AUTO_SUBGROUP_G8] = {"subgroup_g8", "subgroup", {SG}, {"8"}, 8, 0},
    [AUTO_MULTIPHASE_K1] = {"multiphase_k1", "multiphase", {MPK}, {"1"}, 0, 1},
    [AUTO_MULTIPHASE_K2] = {"multiphase_k2", "multiphase", {MPK}, {"2"}, 0, 2},
    [AUTO_MULTIPHASE_K3] = {"multiphase_k3", "multiphase", {MPK}, {"3"}, 0, 3},
    [AUTO_SUBGROUP_G2_LIST] =
        {"subgroup_g2_list", "subgroup", {SG, SGI}, {"2", "independent"}, 2, 0, 1},
    [AUTO_SUBGROUP_G4_LIST] =
        {"subgroup_g4_list", "subgroup", {SG, SGI}, {"4", "independent"}, 4, 0, 1},
    [AUTO_SUBGROUP_G8_LIST] =
        {"subgroup_g8_list", "subgroup", {SG, SGI}, {"8", "independent"}, 8, 0, 1},
};

const char *const collio__auto_only_names[AUTO_NCAND + 1] = {"any",
                                                             "serial",
                                                             "independent",
                                                             "two_phase",
                                                             "multiphase",
                                                             "subgroup_g2",
                                                             "subgroup_g4",
                                                             "subgroup_g8",
                                                             "multiphase_k1",
                                                             "multiphase_k2",
                                                             "multiphase_k3",
                                                             "subgroup_g2_list",
                                                             "subgroup_g4_list",
                                                             "subgroup_g8_list"};

/* The model's view of one machine and operation. */
typedef struct model {
    double cpu;        /* slowdown of CPU-bound work on a node */
    double off;        /* fraction of a rank's partners on other nodes */
    int rpn;           /* ranks per node */
    double lat;        /* one message, mixed as `off` says */
    double lat0, lat1; /* one message within a node, between nodes */
    double bw0, bw1;   /* a link within a node, between nodes */
    double copy, piece;
    double req, fbw, mpiio; /* the file's: per request, bandwidth, per piece */
    double mpiio_call;      /* the MPI library's collective, per call */
    double mpiio_byte;      /* ... per byte of a rank (0: not measured) */
    double serial_byte;     /* serial per byte of the file (0: not measured) */
    double mp_round;        /* one of multiphase's rounds (0: not measured) */
    double cpu_cal;         /* the oversubscription the calls were timed at */
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

/* The MPI library's collective moving `bytes` of each rank to its
 * aggregators (two_phase, and subgroup's masters over it): its cost per
 * byte as calibrated -- its exchange and its copies, measured with large
 * pieces -- or, where that is not measured or the links are slower than
 * they were when it was (nodes), an exchange over them. */
static double mpiio_data(const model *m, double bytes, double msgs)
{
    return fmax(bytes * m->mpiio_byte * m->cpu, exchange(m, bytes, msgs));
}

static double pack(const model *m, double pieces, double bytes)
{
    return pieces * m->piece + bytes / m->copy;
}

/* subgroup of g: the gather into each master, then the inner strategy
 * among the P / g masters (two_phase, or list I/O: *_list). */
static double subgroup(const model *m, const collio__auto_shape *s,
                       const collio_fs_costs *fs, int writing,
                       const collio__auto_candidate *cand, int cores, double file_bytes)
{
    int P = s->nranks > 0 ? s->nranks : 1, g = cand->group;
    if (g > P || g < 2)
        return INFINITY;
    int masters = (P + g - 1) / g;
    int nodes = s->nnodes > 0 ? s->nnodes : 1;
    double mcpu = (double)masters / nodes / (cores > 0 ? cores : 1);
    if (mcpu < 1)
        mcpu = 1;
    /* the gather: g - 1 ranks' bytes into the master, then the master
     * packs the group's pieces into its merged stream. A group is g
     * consecutive ranks: the aligned 2^intra_phases of them around the
     * master share its node (every leading hypercube partner does), the
     * rest may not, and their bytes come in over the node's link */
    int on =
        s->intra_phases < 30 && (1 << s->intra_phases) < g ? 1 << s->intra_phases : g;
    double gather = (g - 1) * m->lat * m->cpu + (on - 1) * s->bytes_max / m->bw0 * m->cpu
                    + (g - on) * s->bytes_max / m->bw1
                    + pack(m, s->pieces_max * g, s->bytes_max * g) * m->cpu;
    /* the master's runs: its group's pieces, merged where they adjoin */
    double runs = s->adjoin ? s->pieces_max : s->pieces_max * g;
    if (runs < 1)
        runs = 1;
    if (cand->list)
        return gather + runs * list_request(fs, writing, s->bytes_max * g / runs) * mcpu
               + file_bytes;
    model mm = *m;
    mm.cpu = mcpu;
    return gather + runs * m->mpiio * mcpu + m->mpiio_call + file_bytes
           + mpiio_data(&mm, s->bytes_max * g, masters - 1);
}

/* multiphase's hypercube stopped after k phases (seed 001's choice of the
 * number of phases): each phase sends half of what a rank holds to its
 * partner r XOR 2^j and copies the half it keeps -- within the node for
 * the leading intra_phases phases, else over the node's link with every
 * rank of the node at once --, then the final scatter into file order,
 * and list I/O of the runs held: 2^k consecutive ranks' pieces, merged
 * where they adjoin. */
static double hypercube_k(const model *m, const collio__auto_shape *s,
                          const collio_fs_costs *fs, int writing, int k,
                          double file_bytes)
{
    int P = s->nranks > 0 ? s->nranks : 1, all = 0;
    while ((1 << all) < P)
        all++;
    if (k >= all)
        return INFINITY; /* all phases: the multiphase candidate */
    double half = s->bytes_max / 2, t = 0;
    for (int j = 0; j < k; j++) {
        t += half / m->copy * m->cpu;
        t += j < s->intra_phases ? m->lat0 * m->cpu + half * m->cpu / m->bw0
                                 : m->lat1 * m->cpu + half * m->rpn / m->bw1;
    }
    /* 2^k ranks' pieces in a 2^k-th of their range: as many as one
     * rank's, 2^k times longer where they adjoin */
    double runs = s->adjoin ? s->pieces_max / (1 << k) : s->pieces_max;
    if (runs < 1)
        runs = 1;
    return t + pack(m, s->pieces_max, s->bytes_max) * m->cpu
           + runs * list_request(fs, writing, s->bytes_max / runs) * m->cpu + file_bytes;
}

static void setup(model *m, const collio__auto_shape *s, const collio_calibration *c,
                  const collio_fs_costs *fs, int writing)
{
    int P = s->nranks > 0 ? s->nranks : 1;
    int cores = s->cores_per_node > 0 ? s->cores_per_node : s->ranks_per_node;
    m->rpn = s->ranks_per_node > 0 ? s->ranks_per_node : 1;
    m->cpu = cores > 0 && m->rpn > cores ? (double)m->rpn / cores : 1.0;
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
    m->serial_byte = writing ? fs->serial_write_byte_s : fs->serial_read_byte_s;
    m->mp_round = writing ? fs->multiphase_write_round_s : fs->multiphase_read_round_s;
    int cal_cores = c->cores_per_node > 0   ? c->cores_per_node
                    : s->cores_per_node > 0 ? s->cores_per_node
                                            : 1;
    m->cpu_cal = fs->call_ranks_per_node > cal_cores
                     ? (double)fs->call_ranks_per_node / cal_cores
                     : 1.0;
}

/* Every candidate by the terms above, without the calls' floors. */
static void terms(const model *mp, const collio__auto_shape *s, const collio_fs_costs *fs,
                  int writing, double t[AUTO_NCAND])
{
    model m = *mp;
    int P = s->nranks > 0 ? s->nranks : 1;
    int cores = s->cores_per_node > 0 ? s->cores_per_node : s->ranks_per_node;
    double file_bytes = s->bytes_total / m.fbw;

    double piece = s->pieces_max > 0 ? s->bytes_max / s->pieces_max : 0;
    t[AUTO_INDEPENDENT] =
        s->pieces_max * list_request(fs, writing, piece) * m.cpu + file_bytes;
    t[AUTO_TWO_PHASE] = s->pieces_max * m.mpiio * m.cpu + m.mpiio_call + file_bytes
                        + mpiio_data(&m, s->bytes_max, P - 1);
    double msgs = P - 1 < s->pieces_max ? P - 1 : s->pieces_max;
    double mp_move = s->mp_copies > 0
                         ? s->mp_copies * pack(&m, s->pieces_max, s->bytes_max) * m.cpu
                         : 2 * pack(&m, s->pieces_max, s->bytes_max) * m.cpu
                               + exchange(&m, s->moved_max, msgs);
    t[AUTO_MULTIPHASE] = mp_move + m.req * m.cpu + file_bytes
                         + s->mp_rounds * m.mp_round * m.cpu / m.cpu_cal;
    /* rank 0's bytes: as calibrated (all of rank 0's work on them), or
     * where the others' bytes cross nodes into it and that is more, its
     * link and the file's; not calibrated, its link (off-node as `off`)
     * and copies */
    double into0 = s->bytes_total - s->bytes_total / P;
    double serial_bytes =
        m.serial_byte > 0
            ? fmax(s->bytes_total * m.serial_byte, into0 * m.off / m.bw1 + file_bytes)
            : (into0 * ((1 - m.off) / m.bw0 + m.off / m.bw1) + s->bytes_total / m.copy)
                      * m.cpu
                  + file_bytes;
    t[AUTO_SERIAL] =
        P * m.lat + (s->pieces_total * m.piece + m.req) * m.cpu + serial_bytes;
    for (int i = 0; i < AUTO_NCAND; i++) {
        const collio__auto_candidate *cand = &collio__auto_candidates[i];
        if (cand->phases > 0)
            t[i] = hypercube_k(&m, s, fs, writing, cand->phases, file_bytes);
        else if (cand->group > 0)
            t[i] = subgroup(&m, s, fs, writing, cand, cores, file_bytes);
    }
}

_Static_assert((int)AUTO_SERIAL == (int)COLLIO_CAL_CALL_SERIAL
                   && (int)AUTO_INDEPENDENT == (int)COLLIO_CAL_CALL_INDEPENDENT
                   && (int)AUTO_TWO_PHASE == (int)COLLIO_CAL_CALL_TWO_PHASE
                   && (int)AUTO_MULTIPHASE == (int)COLLIO_CAL_CALL_MULTIPHASE,
               "the base candidates in the calibration's call order");

/* The base strategy whose call a candidate makes: subgroup's inner one,
 * multiphase for its fewer phases. */
static int call_of(const collio__auto_candidate *cand)
{
    if (cand->group > 0)
        return cand->list ? COLLIO_CAL_CALL_INDEPENDENT : COLLIO_CAL_CALL_TWO_PHASE;
    if (cand->phases > 0)
        return COLLIO_CAL_CALL_MULTIPHASE;
    return (int)(cand - collio__auto_candidates); /* AUTO_SERIAL.. = CALL_SERIAL.. */
}

/* The calls' floors (above): each base strategy's smallest call as
 * measured, scaled from the calibration's oversubscription to this
 * plan's, less what the terms predict for that call -- one 4-byte
 * element per rank -- on this plan's ranks; never below 0. */
static void floors(const model *m, const collio__auto_shape *s, const collio_fs_costs *fs,
                   int writing, double f[COLLIO_CAL_NCALLS])
{
    collio__auto_shape tiny = *s;
    int P = s->nranks > 0 ? s->nranks : 1;
    tiny.bytes_total = 4.0 * P, tiny.bytes_max = 4, tiny.pieces_max = 1;
    tiny.pieces_total = P, tiny.moved_max = 0, tiny.adjoin = 1;
    tiny.mp_rounds = 0; /* (rounds beyond the smallest call's: none in it;
                           its copies: the plan's, a few bytes either way) */
    double tt[AUTO_NCAND];
    terms(m, &tiny, fs, writing, tt);
    const double *call = writing ? fs->write_call_s : fs->read_call_s;
    for (int i = 0; i < COLLIO_CAL_NCALLS; i++) {
        double v = fs->call_ranks > 0 ? call[i] * m->cpu / m->cpu_cal - tt[i] : 0;
        f[i] = v > 0 ? v : 0;
    }
}

/* The replicas' work around every candidate (above). */
static double replicas(const model *m, const collio__auto_shape *s, int writing)
{
    double t = s->repl_runs > 0 ? pack(m, s->repl_runs, s->bytes_max) * m->cpu : 0;
    if (!writing && s->fill_elements > 0)
        t += pack(m, s->fill_elements, s->fill_bytes) * m->cpu
             + exchange(m, s->fill_sent, s->fill_peers);
    return t;
}

void collio__auto_predict(const collio__auto_shape *s, const collio_calibration *c,
                          const collio_fs_costs *fs, int writing, double t[AUTO_NCAND])
{
    model m;
    setup(&m, s, c, fs, writing);
    terms(&m, s, fs, writing, t);
    double f[COLLIO_CAL_NCALLS];
    floors(&m, s, fs, writing, f);
    const double repl = replicas(&m, s, writing);
    for (int i = 0; i < AUTO_NCAND; i++)
        t[i] += f[call_of(&collio__auto_candidates[i])] + repl;
}

int collio__auto_pick(const double t[AUTO_NCAND])
{
    int best = 0;
    for (int i = 1; i < AUTO_NCAND; i++)
        if (t[i] < t[best])
            best = i;
    return best;
}

/* The constants of each group (model.h), scaled: costs times corr[g],
 * rates divided by it. */
static void scale(collio_calibration *c, collio_fs_costs *fs,
                  const double corr[AUTO_NTERMS])
{
    const double rq = corr[AUTO_TERM_REQUEST], by = corr[AUTO_TERM_BYTE],
                 ca = corr[AUTO_TERM_CALL];
    fs->write_request_s *= rq, fs->read_request_s *= rq;
    fs->mpiio_write_piece_s *= rq, fs->mpiio_read_piece_s *= rq;
    for (int i = 0; i < COLLIO_CAL_INTERLEAVED_MAX; i++)
        fs->write_interleaved_s[i] *= rq, fs->read_interleaved_s[i] *= rq;
    c->piece_s *= rq;
    fs->write_Bps /= by, fs->read_Bps /= by;
    fs->mpiio_write_byte_s *= by, fs->mpiio_read_byte_s *= by;
    fs->serial_write_byte_s *= by, fs->serial_read_byte_s *= by;
    c->copy_Bps /= by, c->bandwidth_Bps[0] /= by, c->bandwidth_Bps[1] /= by;
    fs->mpiio_write_call_s *= ca, fs->mpiio_read_call_s *= ca;
    fs->multiphase_write_round_s *= ca, fs->multiphase_read_round_s *= ca;
    for (int i = 0; i < COLLIO_CAL_NCALLS; i++)
        fs->write_call_s[i] *= ca, fs->read_call_s[i] *= ca;
    c->latency_s[0] *= ca, c->latency_s[1] *= ca;
}

void collio__auto_predict_scaled(const collio__auto_shape *s, const collio_calibration *c,
                                 const collio_fs_costs *fs, int writing,
                                 const double corr[AUTO_NTERMS], double t[AUTO_NCAND])
{
    static collio_calibration cc; /* (large; plan calls are not thread safe) */
    collio_fs_costs f = *fs;
    cc = *c;
    scale(&cc, &f, corr);
    collio__auto_predict(s, &cc, &f, writing, t);
}
