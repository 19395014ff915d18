/*
 * unit_auto_model.c -- the cost model of strategy "auto"
 * (src/strategies/auto/model.c) against times computed by hand from the
 * formulas of docs/auto.md, for round constants: one oversubscribed node
 * with small and with large pieces, and two nodes. The expected values
 * below were worked out on paper, term by term (the comments show the
 * terms); the choice is the least of them.
 */
#include "machine/machine.h"
#include "strategies/auto/model.h"
#include "unit_check.h"

#include <math.h>
#include <string.h>

/* The candidates in the order docs/auto.md lists them (the strategies'
 * tables, tier by tier: hint auto.only's order), checked
 * first against the model's own list. */
enum {
    AUTO_SERIAL,
    AUTO_INDEPENDENT,
    AUTO_TWO_PHASE,
    AUTO_MULTIPHASE,
    AUTO_SUBGROUP_G2,
    AUTO_SUBGROUP_G4,
    AUTO_SUBGROUP_G8,
    AUTO_MULTIPHASE_K1,
    AUTO_MULTIPHASE_K2,
    AUTO_MULTIPHASE_K3,
    AUTO_SUBGROUP_G2_LIST,
    AUTO_SUBGROUP_G4_LIST,
    AUTO_SUBGROUP_G8_LIST,
    NCAND
};
static const char *const labels[NCAND] = {
    "serial",          "independent",   "two_phase",        "multiphase",
    "subgroup_g2",     "subgroup_g4",   "subgroup_g8",      "multiphase_k1",
    "multiphase_k2",   "multiphase_k3", "subgroup_g2_list", "subgroup_g4_list",
    "subgroup_g8_list"};

/* The calibration's terms of the base strategies' smallest calls, in
 * the base candidates' order; a term's write time set, its read kept. */
static const char *const call_key[4] = {"serial.call", "independent.call",
                                        "two_phase.call", "multiphase.call"};
static void term_w(collio_fs_costs *fs, const char *key, double w)
{
    const collio_cost_term *t = collio_fs_costs_term(fs, key);
    collio_fs_costs_set_term(fs, key, w, t != NULL ? t->read_s : 0);
}

static int near(double got, double want)
{
    return fabs(got - want) <= 1e-9 * fabs(want) + 1e-15;
}

static void constants(collio_calibration *c, collio_fs_costs *fs)
{
    collio_calibration_defaults(c);
    c->latency_s[0] = 1e-6;
    c->latency_s[1] = 1e-5;
    c->bandwidth_Bps[0] = 1e9;
    c->bandwidth_Bps[1] = 1e8;
    c->copy_Bps = 1e9;
    c->piece_s = 1e-8;
    *fs = (collio_fs_costs){.write_request_s = 1e-6,
                            .write_Bps = 1e9,
                            .read_request_s = 5e-7,
                            .read_Bps = 2e9,
                            .mpiio_write_piece_s = 1e-5,
                            .mpiio_read_piece_s = 1e-5};
}

/* Case 1's shape: one node, 4 ranks on 2 cores, 4 MB, 1 MB and `pieces`
 * pieces per rank, 750 KB of each outside its domain; block-cyclic
 * (consecutive ranks' pieces adjoin), every hypercube phase on the node. */
static collio__cost_shape one_node(double pieces)
{
    return (collio__cost_shape){.nranks = 4,
                                .nnodes = 1,
                                .ranks_per_node = 4,
                                .cores_per_node = 2,
                                .bytes_total = 4e6,
                                .bytes_max = 1e6,
                                .pieces_max = pieces,
                                .pieces_total = 4 * pieces,
                                .moved_max = 7.5e5,
                                .adjoin = 1,
                                .intra_phases = 2};
}

/* Predicts s and checks independent's time against want. */
static void expect_independent(const char *what, const collio__cost_shape *s,
                               const collio_calibration *c, const collio_fs_costs *fs,
                               int writing, double want)
{
    double t[AUTO_MAX_CAND];
    collio__auto_predict(s, c, fs, writing, t);
    CHECK(near(t[AUTO_INDEPENDENT], want), "%s: independent %.9g", what,
          t[AUTO_INDEPENDENT]);
}

static void expect(const char *what, const double *t, const double *want, int choice)
{
    for (int i = 0; i < NCAND; i++)
        CHECK(isinf(want[i]) ? isinf(t[i]) : near(t[i], want[i]),
              "%s: %s predicted %.9g, want %.9g", what, collio__auto_cand(i)->label, t[i],
              want[i]);
    int got = collio__auto_pick(t);
    CHECK(got == choice, "%s: picked %s, want %s", what, collio__auto_cand(got)->label,
          collio__auto_cand(choice)->label);
}

/* Checks the candidates listed in want[i] = {candidate, time} (INFINITY:
 * cannot run) against t. */
static void expect_some(const char *what, const double *t, const double (*want)[2],
                        size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int k = (int)want[i][0];
        CHECK(isinf(want[i][1]) ? isinf(t[k]) : near(t[k], want[i][1]),
              "%s: %s %.9g, want %.9g", what, collio__auto_cand(k)->label, t[k],
              want[i][1]);
    }
}

int main(void)
{
    collio_calibration c;
    collio_fs_costs fs;
    constants(&c, &fs);
    double t[AUTO_MAX_CAND];

    /* 0. the candidates the strategies declare, in their order */
    CHECK(collio__auto_ncand() == NCAND, "%d candidates, want %d", collio__auto_ncand(),
          NCAND);
    for (int i = 0; i < NCAND && i < collio__auto_ncand(); i++)
        CHECK(strcmp(collio__auto_cand(i)->label, labels[i]) == 0,
              "candidate %d: %s, want %s", i, collio__auto_cand(i)->label, labels[i]);
    if (collio__auto_ncand() != NCAND)
        return unit_summary("unit_auto_model");

    /* 1. one node, 4 ranks on 2 cores (cpu = 2, nothing off-node); 4 MB,
     *    1 MB and 10,000 pieces per rank, 750 KB of each outside its domain.
     *    file_bytes = 4e6 / 1e9 = 0.004 */
    collio__cost_shape s = one_node(1e4);
    collio__auto_predict(&s, &c, &fs, 1, t);
    double w1[AUTO_MAX_CAND] = {
        /* serial: 4 lat + (3e6 / 1e9 + pack(4e4, 4e6) (4e-4 + 4e-3) + one
         * request 1e-6) * cpu 2 + file */
        4e-6 + (3e-3 + 4.4e-3 + 1e-6) * 2 + 4e-3,
        /* independent: 1e4 requests * 1e-6 * cpu 2 + file */
        0.02 + 0.004,
        /* two_phase: 1e4 * 1e-5 * 2 + file + exchange(1e6, 3 msgs): 3 * 1e-6 * 2
         * + 1e6 * 2 / 1e9 */
        0.2 + 0.004 + 6e-6 + 2e-3,
        /* multiphase: 2 * pack(1e4, 1e6) (1.1e-3) * 2 + exchange(7.5e5, 3):
         * 6e-6 + 1.5e-3 + one request 1e-6 * 2 + file */
        4.4e-3 + 1.506e-3 + 2e-6 + 4e-3,
        /* subgroup g = 2: gather (1 * (1e-6 + 1e-3) * 2 + pack(2e4, 2e6) * 2)
         * + 1e4 * 1e-5 * 1 (2 masters on 2 cores) + file + exchange(2e6, 1)
         * at cpu 1: 1e-6 + 2e-3 */
        2.002e-3 + 4.4e-3 + 0.1 + 0.004 + 2.001e-3,
        /* g = 4: gather 3 * 1.001e-3 * 2 + pack(4e4, 4e6) * 2 = 6.006e-3 +
         * 8.8e-3; one master: exchange(4e6, 0) = 4e-3 */
        6.006e-3 + 8.8e-3 + 0.1 + 0.004 + 4e-3,
        /* g = 8 > P: cannot run */
        INFINITY,
        /* multiphase_k1: one phase on the node: a copy of the half kept
         * (5e5 / 1e9 * cpu 2 = 1e-3) + 1e-6 * 2 + 5e5 * 2 / 1e9; the scatter
         * pack(1e4, 1e6) * 2 = 2.2e-3; 5e3 runs of 2 ranks' pieces, merged,
         * * 1e-6 * 2; file */
        1e-3 + 2e-6 + 1e-3 + 2.2e-3 + 0.01 + 0.004,
        /* k = 2, 3: P = 4 needs no more than 2 phases (that is multiphase) */
        INFINITY, INFINITY,
        /* subgroup_g2_list: g = 2's gather, then the 2 masters (cpu 1) write
         * 1e4 merged runs by list I/O at 1e-6 each; file */
        2.002e-3 + 4.4e-3 + 0.01 + 0.004,
        /* g = 4: g = 4's gather, one master, the same 1e4 runs */
        6.006e-3 + 8.8e-3 + 0.01 + 0.004, INFINITY};
    expect("one node, small pieces", t, w1, AUTO_MULTIPHASE);

    /* 2. the same bytes in 4 pieces per rank: list I/O wins */
    s.pieces_max = 4;
    s.pieces_total = 16;
    collio__auto_predict(&s, &c, &fs, 1, t);
    double w2[AUTO_MAX_CAND] = {
        /* serial: 4 lat + (3e6 / 1e9 + pack(16, 4e6) + 1e-6) * cpu 2 + file */
        4e-6 + (3e-3 + (16e-8 + 4e-3) + 1e-6) * 2 + 4e-3,
        /* independent: 4 requests * 1e-6 * cpu 2 + file */
        4 * 1e-6 * 2 + 0.004,
        /* two_phase: 4 * 1e-5 * 2 + file + the same exchange as case 1 */
        4 * 1e-5 * 2 + 0.004 + 6e-6 + 2e-3,
        /* multiphase: pack(4, 1e6) = 4e-8 + 1e-3, twice, cpu 2; 3 messages */
        2 * (4e-8 + 1e-3) * 2 + 1.506e-3 + 2e-6 + 4e-3,
        2.002e-3 + (8e-8 + 2e-3) * 2 + 4e-5 + 0.004 + 2.001e-3,
        6.006e-3 + (16e-8 + 4e-3) * 2 + 4e-5 + 0.004 + 4e-3, INFINITY,
        /* multiphase_k1: the phase as in case 1, pack(4, 1e6) * 2, 2 runs */
        2.002e-3 + (4e-8 + 1e-3) * 2 + 2 * 1e-6 * 2 + 0.004, INFINITY, INFINITY,
        /* subgroup_g2_list, g4_list: the gathers above, 4 runs at cpu 1 */
        2.002e-3 + (8e-8 + 2e-3) * 2 + 4e-6 + 0.004,
        6.006e-3 + (16e-8 + 4e-3) * 2 + 4e-6 + 0.004, INFINITY};
    expect("one node, large pieces", t, w2, AUTO_INDEPENDENT);

    /* 3. reads of case 2 take the read constants: request 5e-7, 2 GB/s
     *    (file_bytes 0.002), the same per-piece cost */
    collio__auto_predict(&s, &c, &fs, 0, t);
    CHECK(near(t[AUTO_INDEPENDENT], 4 * 5e-7 * 2 + 0.002), "read: independent %.9g",
          t[AUTO_INDEPENDENT]);
    CHECK(collio__auto_pick(t) == AUTO_INDEPENDENT, "read: independent chosen");

    /* 3b. multiphase copying every byte once into the node's shared window
     *     (shape.shared_copies 1: its pushes): one pack(4, 1e6) = 4e-8 + 1e-3 at
     *     cpu 2 in place of case 2's two and its exchange (1.506e-3), then
     *     the request and the file as there; two copies, two packs; the
     *     other candidates unchanged */
    s.shared_copies = 1;
    collio__auto_predict(&s, &c, &fs, 1, t);
    CHECK(near(t[AUTO_MULTIPHASE], (4e-8 + 1e-3) * 2 + 1e-6 * 2 + 0.004),
          "shared copies: multiphase %.9g", t[AUTO_MULTIPHASE]);
    for (int i = 0; i < NCAND; i++)
        CHECK(i == AUTO_MULTIPHASE || (isinf(w2[i]) ? isinf(t[i]) : near(t[i], w2[i])),
              "shared copies: %s unchanged %.9g", collio__auto_cand(i)->label, t[i]);
    collio__auto_predict(&s, &c, &fs, 0, t);
    CHECK(near(t[AUTO_MULTIPHASE], (4e-8 + 1e-3) * 2 + 5e-7 * 2 + 0.002),
          "shared copies, reads: multiphase %.9g", t[AUTO_MULTIPHASE]);
    s.shared_copies = 2;
    collio__auto_predict(&s, &c, &fs, 1, t);
    CHECK(near(t[AUTO_MULTIPHASE], 2 * (4e-8 + 1e-3) * 2 + 1e-6 * 2 + 0.004),
          "two shared copies: multiphase %.9g", t[AUTO_MULTIPHASE]);
    s.shared_copies = 0;

    /* 4. two nodes of 2 ranks on 2 cores (cpu 1), half of the partners
     *    off-node: latency 0.5e-6 + 0.5e-5 = 5.5e-6; an exchange of b bytes
     *    costs b * 0.5 / 1e9 + b * 0.5 * 2 ranks / 1e8 */
    s = (collio__cost_shape){.nranks = 4,
                             .nnodes = 2,
                             .ranks_per_node = 2,
                             .cores_per_node = 2,
                             .bytes_total = 4e6,
                             .bytes_max = 1e6,
                             .pieces_max = 1e4,
                             .pieces_total = 4e4,
                             .moved_max = 7.5e5};
    collio__auto_predict(&s, &c, &fs, 1, t);
    CHECK(near(t[AUTO_INDEPENDENT], 1e4 * 1e-6 + 0.004), "two nodes: independent %.9g",
          t[AUTO_INDEPENDENT]);
    CHECK(near(t[AUTO_TWO_PHASE], 0.1 + 0.004 + 3 * 5.5e-6 + 5e-4 + 0.01),
          "two nodes: two_phase %.9g", t[AUTO_TWO_PHASE]);
    CHECK(near(t[AUTO_MULTIPHASE], 2.2e-3 + 3 * 5.5e-6 + 3.75e-4 + 7.5e-3 + 1e-6 + 0.004),
          "two nodes: multiphase %.9g", t[AUTO_MULTIPHASE]);
    /* serial: 4 * 5.5e-6 + 3e6 * (0.5 / 1e9 + 0.5 / 1e8) + 4.4e-3 + 1e-6
     * + 0.004 */
    CHECK(near(t[AUTO_SERIAL], 2.2e-5 + 0.0165 + 4.4e-3 + 1e-6 + 0.004),
          "two nodes: serial %.9g", t[AUTO_SERIAL]);
    /* independent 0.014 against multiphase 0.0140925: list I/O, narrowly */
    CHECK(collio__auto_pick(t) == AUTO_INDEPENDENT, "two nodes: independent chosen");

    /* 4b. the same shape on a networked file system no calibration
     *     measured: the built-in networked file costs of docs/auto.md
     *     (300 us a write request, 200 us a read request, 500 MB/s
     *     writing, 1 GB/s reading -- file 0.008 and 0.004 --, the MPI
     *     library's 15 us a piece and 2 ms a write call); the network and
     *     memory constants as above */
    collio_fs_costs net;
    collio__fs_costs_default(&net, 1);
    CHECK(strcmp(net.id.type, "default-networked") == 0, "networked type %s",
          net.id.type);
    collio__auto_predict(&s, &c, &net, 1, t);
    /* independent: 1e4 requests * 300e-6 * cpu 1 + file */
    CHECK(near(t[AUTO_INDEPENDENT], 3.0 + 0.008), "networked: independent %.9g",
          t[AUTO_INDEPENDENT]);
    /* multiphase: case 4's packs, messages and exchange, one request of
     * 300e-6, file 0.008 */
    CHECK(near(t[AUTO_MULTIPHASE], 2.2e-3 + 3 * 5.5e-6 + 3.75e-4 + 7.5e-3 + 3e-4 + 0.008),
          "networked: multiphase %.9g", t[AUTO_MULTIPHASE]);
    /* two_phase: 1e4 * 15e-6 + the call's 2e-3 + file + case 4's exchange */
    CHECK(near(t[AUTO_TWO_PHASE], 0.15 + 2e-3 + 0.008 + 3 * 5.5e-6 + 5e-4 + 0.01),
          "networked: two_phase %.9g", t[AUTO_TWO_PHASE]);
    /* serial: case 4's gather and copies, one request, file */
    CHECK(near(t[AUTO_SERIAL], 2.2e-5 + 0.0165 + 4.4e-3 + 3e-4 + 0.008),
          "networked: serial %.9g", t[AUTO_SERIAL]);
    CHECK(collio__auto_pick(t) == AUTO_MULTIPHASE, "networked: multiphase chosen");
    /* reads: independent 1e4 * 200e-6 + 4e6 / 1e9 */
    collio__auto_predict(&s, &c, &net, 0, t);
    CHECK(near(t[AUTO_INDEPENDENT], 2.0 + 0.004), "networked read: independent %.9g",
          t[AUTO_INDEPENDENT]);
    CHECK(collio__auto_pick(t) == AUTO_MULTIPHASE, "networked read: multiphase chosen");

    /* 5. list I/O's interleaved request costs (calibrated at 4 B, 1 KiB,
     *    16 KiB: 1, 3, 9 us writing; 0.5, 0.7, 1.1 us reading): the shape of
     *    case 1 (cpu 2, file_bytes 0.004 writing, 0.002 reading) at piece
     *    sizes below, at, between and above the measured ones */
    fs.ninterleaved = 3;
    fs.interleaved_bytes[0] = 4, fs.interleaved_bytes[1] = 1024;
    fs.interleaved_bytes[2] = 16384;
    fs.write_interleaved_s[0] = 1e-6, fs.write_interleaved_s[1] = 3e-6;
    fs.write_interleaved_s[2] = 9e-6;
    fs.read_interleaved_s[0] = 5e-7, fs.read_interleaved_s[1] = 7e-7;
    fs.read_interleaved_s[2] = 1.1e-6;
    /* at a measured size, 1 KiB: 976.5625 requests * 3e-6 * cpu 2 + file */
    s = one_node(1e6 / 1024);
    expect_independent("interleaved 1 KiB", &s, &c, &fs, 1, 976.5625 * 3e-6 * 2 + 0.004);
    /* 4 KiB, halfway in log2 between 1 KiB and 16 KiB: (3 + 9) / 2 = 6 us */
    s.pieces_max = 1e6 / 4096;
    expect_independent("interleaved 4 KiB", &s, &c, &fs, 1,
                       244.140625 * 6e-6 * 2 + 0.004);
    /* reading at 4 KiB: (0.7 + 1.1) / 2 = 0.9 us, file 0.002 */
    expect_independent("interleaved 4 KiB read", &s, &c, &fs, 0,
                       244.140625 * 0.9e-6 * 2 + 0.002);
    /* 64 B: halfway from 4 B to 1 KiB in log2 (6 - 2 = 4 of 10 - 2 = 8):
     * 1 + 0.5 * 2 = 2 us */
    s.pieces_max = 1e6 / 64;
    expect_independent("interleaved 64 B", &s, &c, &fs, 1, 15625 * 2e-6 * 2 + 0.004);
    /* beyond the ends, the end values: one 1 MB piece 9 us, 2-byte pieces
     * (5e5 of them) 1 us */
    s.pieces_max = 1;
    expect_independent("interleaved 1 MB", &s, &c, &fs, 1, 1 * 9e-6 * 2 + 0.004);
    s.pieces_max = 5e5;
    expect_independent("interleaved 2 B", &s, &c, &fs, 1, 5e5 * 1e-6 * 2 + 0.004);
    collio__auto_predict(&s, &c, &fs, 1, t);
    /* the other candidates do not use them: multiphase as in case 1 at
     * 5e5 pieces: 2 * pack(5e5, 1e6) (5e-3 + 1e-3) * 2 + exchange + ... */
    CHECK(near(t[AUTO_MULTIPHASE], 2 * 6e-3 * 2 + 1.506e-3 + 2e-6 + 4e-3),
          "interleaved: multiphase %.9g", t[AUTO_MULTIPHASE]);
    /* a fourth size, 64 KiB at 21 us (the calibration's COLLIO_CAL_
     * INTERLEAVED_MAX): 32 KiB pieces lie halfway in log2 between 16 KiB
     * and 64 KiB, (9 + 21) / 2 = 15 us (30.517578125 of them); 1 MB pieces
     * take the last size's 21 us */
    fs.ninterleaved = 4;
    fs.interleaved_bytes[3] = 65536, fs.write_interleaved_s[3] = 21e-6;
    s.pieces_max = 1e6 / 32768;
    expect_independent("interleaved 32 KiB", &s, &c, &fs, 1,
                       30.517578125 * 15e-6 * 2 + 0.004);
    s.pieces_max = 1;
    expect_independent("interleaved 1 MB of 4 sizes", &s, &c, &fs, 1,
                       1 * 21e-6 * 2 + 0.004);
    fs.ninterleaved = 0;

    /* 6. the MPI library's cost per call (0.1 s) goes to two_phase and to
     *    every subgroup over two_phase once, nothing else: case 1's shape */
    s = one_node(1e4);
    fs.mpiio_write_call_s = 0.1;
    collio__auto_predict(&s, &c, &fs, 1, t);
    for (int i = 0; i < NCAND; i++)
        CHECK(isinf(w1[i]) ? isinf(t[i])
                           : near(t[i], w1[i]
                                            + (i == AUTO_TWO_PHASE
                                                       || (i >= AUTO_SUBGROUP_G2
                                                           && i <= AUTO_SUBGROUP_G8)
                                                   ? 0.1
                                                   : 0)),
              "per call: %s %.9g", collio__auto_cand(i)->label, t[i]);
    collio__auto_predict(&s, &c, &fs, 0, t); /* reads: mpiio_read_call_s, 0 */
    CHECK(near(t[AUTO_TWO_PHASE], 0.2 + 0.002 + 6e-6 + 2e-3),
          "per call, reading: two_phase %.9g", t[AUTO_TWO_PHASE]);
    fs.mpiio_write_call_s = 0;

    /* 6b. the MPI library's cost per byte of a rank (5 ns, per process):
     *     two_phase's bytes cost 1e6 * 5e-9 * cpu 2 = 0.01 instead of the
     *     exchange's 2.006e-3 (the larger of the two); subgroup's masters
     *     (cpu 1) move g times the bytes: g = 2 2e6 * 5e-9 = 0.01 against
     *     2.001e-3, g = 4 0.02 against 4e-3; nothing else changes */
    fs.mpiio_write_byte_s = 5e-9;
    collio__auto_predict(&s, &c, &fs, 1, t);
    for (int i = 0; i < NCAND; i++) {
        double w = i == AUTO_TWO_PHASE     ? 0.2 + 0.004 + 0.01
                   : i == AUTO_SUBGROUP_G2 ? 2.002e-3 + 4.4e-3 + 0.1 + 0.004 + 0.01
                   : i == AUTO_SUBGROUP_G4 ? 6.006e-3 + 8.8e-3 + 0.1 + 0.004 + 0.02
                                           : w1[i];
        CHECK(isinf(w) ? isinf(t[i]) : near(t[i], w), "per byte: %s %.9g, want %.9g",
              collio__auto_cand(i)->label, t[i], w);
    }
    /* below the exchange's (1e-10: 2e-4 against 2.006e-3) it is the exchange */
    fs.mpiio_write_byte_s = 1e-10;
    collio__auto_predict(&s, &c, &fs, 1, t);
    CHECK(near(t[AUTO_TWO_PHASE], w1[AUTO_TWO_PHASE]), "per byte, small: two_phase %.9g",
          t[AUTO_TWO_PHASE]);
    /* reads take mpiio_read_byte_s (0 here) */
    fs.mpiio_write_byte_s = 5e-9;
    collio__auto_predict(&s, &c, &fs, 0, t);
    CHECK(near(t[AUTO_TWO_PHASE], 0.2 + 0.002 + 6e-6 + 2e-3),
          "per byte, reading: two_phase %.9g", t[AUTO_TWO_PHASE]);
    fs.mpiio_write_byte_s = 0;

    /* 7. pieces that do not adjoin (an index list): gathering g ranks'
     *    pieces merges none, so a master holds g * 1e4 of them and the
     *    hypercube's runs stay 1e4; case 1 otherwise */
    s.adjoin = 0;
    collio__auto_predict(&s, &c, &fs, 1, t);
    double w7[][2] = {/* subgroup g = 2: gather + 2e4 pieces * 1e-5 + file + exchange */
                      {AUTO_SUBGROUP_G2, 2.002e-3 + 4.4e-3 + 0.2 + 0.004 + 2.001e-3},
                      {AUTO_SUBGROUP_G4, 6.006e-3 + 8.8e-3 + 0.4 + 0.004 + 4e-3},
                      /* k = 1: 1e4 runs * 1e-6 * cpu 2 */
                      {AUTO_MULTIPHASE_K1, 2.002e-3 + 2.2e-3 + 0.02 + 0.004},
                      {AUTO_SUBGROUP_G2_LIST, 2.002e-3 + 4.4e-3 + 2e4 * 1e-6 + 0.004},
                      {AUTO_SUBGROUP_G4_LIST, 6.006e-3 + 8.8e-3 + 4e4 * 1e-6 + 0.004}};
    expect_some("not adjoining", t, w7, sizeof w7 / sizeof w7[0]);
    CHECK(collio__auto_pick(t) == AUTO_MULTIPHASE, "not adjoining: multiphase chosen");

    /* 8. seed 001's cluster of SMP nodes: 4 nodes of 2 ranks on 2 cores
     *    (cpu 1, off = 6 / 8), the first hypercube phase within the node,
     *    a file request of 2 us: one phase, then list I/O of runs twice as
     *    long, beats both the whole exchange across the network and list
     *    I/O of every piece. lat = 0.25 * 1e-6 + 0.75 * 1e-5 = 7.75e-6; an
     *    exchange of b bytes in m messages costs m * 7.75e-6
     *    + b * (0.25 / 1e9 + 0.75 * 2 / 1e8) = m * 7.75e-6 + b * 1.525e-8;
     *    file 8e6 / 1e9 = 0.008 */
    s = (collio__cost_shape){.nranks = 8,
                             .nnodes = 4,
                             .ranks_per_node = 2,
                             .cores_per_node = 2,
                             .bytes_total = 8e6,
                             .bytes_max = 1e6,
                             .pieces_max = 1e4,
                             .pieces_total = 8e4,
                             .moved_max = 8.75e5,
                             .adjoin = 1,
                             .intra_phases = 1};
    fs.write_request_s = 2e-6;
    collio__auto_predict(&s, &c, &fs, 1, t);
    double w8[][2] = {
        /* 1e4 requests * 2e-6 + file */
        {AUTO_INDEPENDENT, 0.02 + 0.008},
        /* 2 * pack(1e4, 1e6) + exchange(8.75e5, 7) + one request + file */
        {AUTO_MULTIPHASE, 2.2e-3 + 7 * 7.75e-6 + 8.75e5 * 1.525e-8 + 2e-6 + 0.008},
        /* phase 0 on the node: copy 5e-4 + 1e-6 + 5e5 / 1e9; the scatter
         * 1.1e-3; 5e3 runs * 2e-6; file */
        {AUTO_MULTIPHASE_K1, 5e-4 + 1e-6 + 5e-4 + 1.1e-3 + 0.01 + 0.008},
        /* phase 1 across: copy 5e-4 + 1e-5 + 5e5 * 2 ranks / 1e8; 2500 runs */
        {AUTO_MULTIPHASE_K2,
         1.001e-3 + 5e-4 + 1e-5 + 0.01 + 1.1e-3 + 2500 * 2e-6 + 0.008},
        /* P = 8 needs 3 phases: that is multiphase */
        {AUTO_MULTIPHASE_K3, INFINITY},
        /* g = 8, masters by list I/O: 1 master (cpu 1), the gather of 7
         * ranks (7 * 7.75e-6), the master's node partner's 1e6 / 1e9 and
         * the other 6 ranks' 6e6 over the master's link at 1e8, 0.06, and
         * pack(8e4, 8e6); then 1e4 merged runs * 2e-6 */
        {AUTO_SUBGROUP_G8_LIST, 7 * 7.75e-6 + 1e-3 + 0.06 + 8.8e-3 + 0.02 + 0.008},
        /* g = 2: the partner on the node, no link: 7.75e-6 + 1e-3 +
         * pack(2e4, 2e6) 2.2e-3, then 4 masters' 1e4 runs * 2e-6 (cpu 1) */
        {AUTO_SUBGROUP_G2_LIST, 7.75e-6 + 1e-3 + 2.2e-3 + 0.02 + 0.008}};
    expect_some("cluster", t, w8, sizeof w8 / sizeof w8[0]);
    CHECK(collio__auto_pick(t) == AUTO_MULTIPHASE_K1, "cluster: picked %s",
          collio__auto_cand(collio__auto_pick(t))->label);
    fs.write_request_s = 1e-6;

    /* 9. the calls' floors: measured with 8 ranks on a node of 2 cores
     *     (cpu 4), used at case 2's 4 ranks (cpu 2): scaled by 2 / 4.
     *     What the terms predict for the smallest call (one 4-byte element
     *     per rank, P = 4: 16 bytes, file 1.6e-8) is taken off:
     *       serial      4 lat 4e-6 + (12 B / 1e9 + pack(4, 16) 5.6e-8
     *                   + request 1e-6) * 2 + 1.6e-8        = 6.152e-6
     *       independent 1 request * 1e-6 * 2 + 1.6e-8         = 2.016e-6
     *       two_phase   1e-5 * 2 + 1.6e-8 + exchange(4 B, 3 msgs):
     *                   3 * 1e-6 * 2 + 4 * 2 / 1e9            = 2.6024e-5
     *       multiphase  2 * pack(1, 4) * 2 5.6e-8 + exchange(0 B, 1 msg)
     *                   2e-6 + request 2e-6 + 1.6e-8          = 4.072e-6 */
    constants(&c, &fs);
    c.cores_per_node = 2;
    fs.call_ranks = 8;
    fs.call_ranks_per_node = 8;
    const double call[4] = {1e-3, 2e-4, 4e-3, 2e-3};
    for (int i = 0; i < 4; i++)
        term_w(&fs, call_key[i], call[i]);
    const double floor_[4] = {5e-4 - 6.152e-6, 1e-4 - 2.016e-6, 2e-3 - 2.6024e-5,
                              1e-3 - 4.072e-6};
    s = one_node(4);
    s.pieces_total = 16;
    collio__auto_predict(&s, &c, &fs, 1, t);
    double w11[AUTO_MAX_CAND];
    for (int i = 0; i < NCAND; i++) {
        /* subgroup: its inner strategy's floor; multiphase_k: multiphase's */
        int base = i >= AUTO_SUBGROUP_G2_LIST                       ? AUTO_INDEPENDENT
                   : i >= AUTO_MULTIPHASE_K1                        ? AUTO_MULTIPHASE
                   : i >= AUTO_SUBGROUP_G2 && i <= AUTO_SUBGROUP_G8 ? AUTO_TWO_PHASE
                                                                    : i;
        w11[i] = w2[i] + floor_[base];
    }
    expect("calls' floors, case 2", t, w11, AUTO_INDEPENDENT);
    /* the smallest call itself: each base strategy predicted at what was
     * measured, scaled (the terms and the floor add up to it) */
    collio__cost_shape tiny = s;
    tiny.bytes_total = 16, tiny.bytes_max = 4, tiny.pieces_max = 1;
    tiny.pieces_total = 4, tiny.moved_max = 0;
    collio__auto_predict(&tiny, &c, &fs, 1, t);
    for (int i = 0; i < 4; i++)
        CHECK(near(t[i], call[i] / 2), "smallest call: %s %.9g, want %.9g",
              collio__auto_cand(i)->label, t[i], call[i] / 2);
    /* a floor never below 0: a measured call under what the terms give
     * adds nothing; reads take the term's read time (0 here: nothing added) */
    term_w(&fs, call_key[3], 1e-6);
    collio__auto_predict(&tiny, &c, &fs, 1, t);
    CHECK(near(t[AUTO_MULTIPHASE], 4.072e-6), "floor 0: multiphase %.9g",
          t[AUTO_MULTIPHASE]);
    collio__auto_predict(&s, &c, &fs, 0, t);
    CHECK(near(t[AUTO_INDEPENDENT], 4 * 5e-7 * 2 + 0.002),
          "floor, reads: independent %.9g", t[AUTO_INDEPENDENT]);
    /* serial's bytes as calibrated (rank 0's work alone: not scaled by
     * cpu): 4e6 B * 1e-8 s/B = 0.04 in place of case 2's link, copies
     * and file ((3e-3 + 4e-3) * 2 + 4e-3); on one node nothing crosses a
     * link, so the other bound is the file's 0.004. The rest of case 2's
     * serial, 4 lat + (pack's 16 pieces + a request) * 2 = 4e-6 + (16e-8
     * + 1e-6) * 2, stays. So does the floor, less what the terms now give
     * the smallest call: 4 lat + (4 pieces 4e-8 + 1e-6) * 2 + 16 B * 1e-8
     * (1.6e-7, more than its file's 1.6e-8) = 6.24e-6. Reads take
     * serial.byte's read: 4e6 * 2.5e-10 = 0.001 -- less than the terms
     * without it would give (0.016), and less than the file's 2 GB/s,
     * 0.002, which bounds it: with the read request 5e-7 and no floor
     * (the calls' read times 0) */
    collio_fs_costs_set_term(&fs, "serial.byte", 1e-8, 2.5e-10);
    term_w(&fs, call_key[3], call[3]);
    collio__auto_predict(&s, &c, &fs, 1, t);
    const double serial_w = 4e-6 + (16e-8 + 1e-6) * 2 + 0.04 + (5e-4 - 6.24e-6);
    CHECK(near(t[AUTO_SERIAL], serial_w), "serial per byte: %.9g, want %.9g",
          t[AUTO_SERIAL], serial_w);
    CHECK(collio__auto_pick(t) == AUTO_INDEPENDENT && near(t[AUTO_INDEPENDENT], w11[1]),
          "serial per byte: independent unchanged %.9g", t[AUTO_INDEPENDENT]);
    collio__auto_predict(&s, &c, &fs, 0, t);
    const double serial_r = 4e-6 + (16e-8 + 5e-7) * 2 + 0.002;
    CHECK(near(t[AUTO_SERIAL], serial_r), "serial per byte, reads: %.9g, want %.9g",
          t[AUTO_SERIAL], serial_r);
    /* across nodes (case 4's two nodes of 2 ranks on 2 cores: cpu 1, off
     * = 0.5): the others' 3e6 bytes, half of them over rank 0's node
     * link at 1e8 B/s, 0.015, + the file's 0.002, bound the calibrated
     * 4e6 * 2.5e-10 = 1e-3 (reads; no floor); + 4 lat (5.5e-6 each) +
     * (16 pieces * 1e-8 + 5e-7) */
    collio__cost_shape s2 = s;
    s2.nnodes = 2, s2.ranks_per_node = 2;
    collio__auto_predict(&s2, &c, &fs, 0, t);
    const double serial_n = 4 * 5.5e-6 + (16e-8 + 5e-7) + 0.015 + 0.002;
    CHECK(near(t[AUTO_SERIAL], serial_n), "serial per byte, two nodes: %.9g, want %.9g",
          t[AUTO_SERIAL], serial_n);
    collio_fs_costs_set_term(&fs, "serial.byte", 0, 0);
    /* multiphase's synchronised rounds (shape.sync_rounds) at the calibrated
     * cost of a round, scaled from cpu 4 to cpu 2: 6 rounds * 4e-4 * 2 / 4
     * = 1.2e-3 on top of its time with the floor; reads at their own
     * cost, 1e-4: 6 * 1e-4 / 2 = 3e-4, on w2's multiphase with the read
     * constants (request 5e-7, file 0.002; no read floor) */
    collio_fs_costs_set_term(&fs, "multiphase.round", 4e-4, 1e-4);
    s.sync_rounds = 6;
    collio__auto_predict(&s, &c, &fs, 1, t);
    CHECK(near(t[AUTO_MULTIPHASE], w11[AUTO_MULTIPHASE] + 1.2e-3),
          "multiphase rounds: %.9g, want %.9g", t[AUTO_MULTIPHASE],
          w11[AUTO_MULTIPHASE] + 1.2e-3);
    CHECK(near(t[AUTO_MULTIPHASE_K1], w11[AUTO_MULTIPHASE_K1]),
          "multiphase rounds: multiphase_k1 (the hypercube) unchanged %.9g",
          t[AUTO_MULTIPHASE_K1]);
    collio__auto_predict(&s, &c, &fs, 0, t);
    const double mp_r = 2 * (4e-8 + 1e-3) * 2 + 1.506e-3 + 5e-7 * 2 + 0.002 + 3e-4;
    CHECK(near(t[AUTO_MULTIPHASE], mp_r), "multiphase rounds, reads: %.9g, want %.9g",
          t[AUTO_MULTIPHASE], mp_r);
    s.sync_rounds = 0;
    collio_fs_costs_set_term(&fs, "multiphase.round", 0, 0);
    /* without call_ranks (a file from before), no floor at all */
    fs.call_ranks = 0;
    term_w(&fs, call_key[3], 2e-3);
    collio__auto_predict(&s, &c, &fs, 1, t);
    expect("no calls measured, case 2", t, w2, AUTO_INDEPENDENT);
    constants(&c, &fs);

    /* 10. hint auto.only's values: "any", then the labels in order */
    CHECK(strcmp(collio__auto_only_names()[0], "any") == 0, "auto.only: any first");
    for (int i = 0; i < NCAND; i++)
        CHECK(strcmp(collio__auto_only_names()[i + 1], collio__auto_cand(i)->label) == 0,
              "auto.only value %d: %s, candidate %s", i + 1,
              collio__auto_only_names()[i + 1], collio__auto_cand(i)->label);

    /* 11. a tie goes to the earlier candidate */
    double tie[AUTO_MAX_CAND];
    for (int i = 0; i < NCAND; i++)
        tie[i] = INFINITY;
    tie[AUTO_SERIAL] = 3;
    tie[AUTO_INDEPENDENT] = tie[AUTO_TWO_PHASE] = tie[AUTO_MULTIPHASE] = 2;
    tie[AUTO_SUBGROUP_G2_LIST] = 2;
    CHECK(collio__auto_pick(tie) == AUTO_INDEPENDENT, "tie: the earlier");
    /* 12. replicas: case 1's shape, 2,000 runs selected; a read fills
     *     3,000 elements of 100 B (3e5 B copied into and out of the fill's
     *     buffers), 1.5e5 B sent to 3 ranks. Every candidate alike gets,
     *     writing: pack(2e3, 1e6) * cpu 2 = (2e-5 + 1e-3) * 2 = 2.04e-3;
     *     reading: that + pack(3e3, 3e5) * 2 = (3e-5 + 3e-4) * 2 = 6.6e-4
     *     + exchange(1.5e5, 3) = 3 * 1e-6 * 2 + 1.5e5 * 2 / 1e9 = 3.06e-4 */
    {
        const double add[2] = {2.04e-3 + 6.6e-4 + 3.06e-4, 2.04e-3}; /* read, write */
        for (int writing = 0; writing < 2; writing++) {
            collio__cost_shape plain = one_node(1e4), repl = plain;
            repl.repl_runs = 2e3;
            repl.fill_elements = 3e3;
            repl.fill_bytes = 3e5;
            repl.fill_sent = 1.5e5;
            repl.fill_peers = 3;
            double t0[AUTO_MAX_CAND], t1[AUTO_MAX_CAND];
            collio__auto_predict(&plain, &c, &fs, writing, t0);
            collio__auto_predict(&repl, &c, &fs, writing, t1);
            for (int i = 0; i < NCAND; i++)
                CHECK(isinf(t0[i]) ? isinf(t1[i]) : near(t1[i] - t0[i], add[writing]),
                      "replicas, %s: %s adds %.9g, want %.9g", writing ? "write" : "read",
                      collio__auto_cand(i)->label, t1[i] - t0[i], add[writing]);
        }
    }
    return unit_summary("unit_auto_model");
}
