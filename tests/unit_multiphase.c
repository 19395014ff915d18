/*
 * unit_multiphase.c -- the pure parts of the multiphase strategy, without
 * MPI: the hypercube schedule (multiphase/schedule.c) and file domains
 * (domains.c) against seed
 * 004's worked example (Table 2: pairs per phase for P = 4 and 8; Table 4:
 * ranks 0..3 end at entries 0, 8, 4, 12 for Nx = 16, Bx = 1), and the
 * inspector (multiphase/hypercube/phases.c) run for all ranks of one P in this one
 * process: an in-memory simulation moves real data exactly as the plan
 * says (kept copies, partner messages = the sender's pieces concatenated,
 * final scatter, file runs) and the resulting "file" must hold element i
 * at position i, each element written exactly once, for P = 1..12, every
 * k, block-cyclic (several bx) and random index lists with empty ranks.
 * The layouts' segments are built here from the definitions, element by
 * element (not with the library's layout code). Rounds of a low-memory
 * write (multiphase/hypercube/rounds.c): counts, starts, the clip of random strided
 * segments (every element in exactly the round the rule gives it) and the
 * placement of a round's buffers.
 */
#include "base/base.h"
#include "strategies/multiphase/hypercube/hypercube.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_check.h"

/* ------------------------------------------------ seed 004 tables */

static void test_tables(void)
{
    /* Table 2 (P = 8): pairs per phase. */
    static const int pairs8[3][4][2] = {
        {{0, 1}, {2, 3}, {4, 5}, {6, 7}},
        {{0, 2}, {1, 3}, {4, 6}, {5, 7}},
        {{0, 4}, {1, 5}, {2, 6}, {3, 7}},
    };
    CHECK(collio__mp_nphases(8) == 3, "nphases(8)");
    for (int ph = 0; ph < 3; ph++)
        for (int i = 0; i < 4; i++) {
            int a = pairs8[ph][i][0], b = pairs8[ph][i][1];
            collio__mp_step sa, sb;
            collio__mp_step_of(8, 64, a, ph, &sa);
            collio__mp_step_of(8, 64, b, ph, &sb);
            CHECK(sa.partner == b && sb.partner == a, "P=8 ph=%d pair %d-%d", ph, a, b);
            CHECK(sa.lonely_to < 0 && sa.extra_from < 0, "P=8 no lonely");
        }
    /* Bold pairs of Table 2 (P = 4). */
    static const int pairs4[2][2][2] = {{{0, 1}, {2, 3}}, {{0, 2}, {1, 3}}};
    CHECK(collio__mp_nphases(4) == 2, "nphases(4)");
    for (int ph = 0; ph < 2; ph++)
        for (int i = 0; i < 2; i++) {
            int a = pairs4[ph][i][0], b = pairs4[ph][i][1];
            collio__mp_step sa, sb;
            collio__mp_step_of(4, 16, a, ph, &sa);
            collio__mp_step_of(4, 16, b, ph, &sb);
            CHECK(sa.partner == b && sb.partner == a, "P=4 ph=%d pair %d-%d", ph, a, b);
        }
    /* Table 4: perm_bin_rank 00 10 01 11 -> file offsets 0, 8, 4, 12. */
    static const int off4[4] = {0, 8, 4, 12};
    for (int r = 0; r < 4; r++) {
        int d = collio__mp_domain_of_rank(4, r);
        int64_t lo, hi;
        collio__domain_range(16, 4, d, &lo, &hi);
        CHECK(lo == off4[r] && hi == off4[r] + 4, "P=4 rank %d domain [%lld,%lld)", r,
              (long long)lo, (long long)hi);
    }
    /* ceil(log2 P) */
    static const int nph[13] = {0, 0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4};
    for (int P = 1; P <= 12; P++)
        CHECK(collio__mp_nphases(P) == nph[P], "nphases(%d)", P);
}

/* Domains: a permutation of 0..P-1 over ranks, balanced ranges that tile
 * [0, n); every phase's partner / lonely / extra relations consistent. */
static void test_domains(void)
{
    for (int P = 1; P <= 40; P++) {
        int seen[64] = {0};
        for (int r = 0; r < P; r++) {
            int d = collio__mp_domain_of_rank(P, r);
            CHECK(d >= 0 && d < P && !seen[d], "P=%d rank %d domain %d", P, r, d);
            if (d >= 0 && d < P)
                seen[d] = 1;
        }
        int64_t n = 1000 + P, prev = 0;
        for (int d = 0; d < P; d++) {
            int64_t lo, hi;
            collio__domain_range(n, P, d, &lo, &hi);
            CHECK(lo == prev && (hi - lo == n / P || hi - lo == n / P + 1),
                  "P=%d domain %d", P, d);
            prev = hi;
        }
        CHECK(prev == n, "P=%d domains tile", P);
        int all = collio__mp_nphases(P);
        for (int ph = 0; ph < all; ph++)
            for (int r = 0; r < P; r++) {
                collio__mp_step s, t;
                collio__mp_step_of(P, n, r, ph, &s);
                if (s.partner >= 0) {
                    collio__mp_step_of(P, n, s.partner, ph, &t);
                    CHECK(t.partner == r && t.side != s.side && t.group_lo == s.group_lo
                              && t.group_hi == s.group_hi && t.keep_lo == s.send_lo,
                          "P=%d ph=%d r=%d partner", P, ph, r);
                }
                if (s.lonely_to >= 0) {
                    collio__mp_step_of(P, n, s.lonely_to, ph, &t);
                    CHECK(t.extra_from == r && t.keep_lo == s.send_lo
                              && t.keep_hi == s.send_hi,
                          "P=%d ph=%d r=%d lonely", P, ph, r);
                }
            }
        for (int r = 0; r < P; r++) { /* after all phases: one rank, own domain */
            collio__mp_step s;
            collio__mp_step_of(P, n, r, all, &s);
            int64_t lo, hi;
            collio__domain_range(n, P, collio__mp_domain_of_rank(P, r), &lo, &hi);
            CHECK(s.group_size == 1 && s.group_lo == lo && s.group_hi == hi,
                  "P=%d r=%d final range", P, r);
        }
    }
}

/* ------------------------------------------------ plan simulation */

typedef struct sim_rank {
    collio__segvec held;
    int64_t *a; /* buffer: element values = global index */
    int64_t na;
    collio__mp_phase ph[MP_MAX_PHASES];
    collio__segvec kept, out;
    int64_t *b;
} sim_rank;

/* Builds rank r's segments from its global indices in buffer order. */
static void segs_from_indices(collio__segvec *sv, const int64_t *idx, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        collio__segvec_push(sv, idx[i], 1, i);
}

/* Runs the plan for all ranks; idx[r] / n[r] = rank r's indices. Returns
 * the number of problems found. Checks the final tuples of seed 004 when
 * asked (file_off[r] = expected single run start). */
static void simulate(const char *what, int P, int64_t N, int k, int64_t **idx,
                     const int64_t *n, const int64_t *file_off)
{
    sim_rank *R = calloc((size_t)P, sizeof *R);
    for (int r = 0; r < P; r++) {
        segs_from_indices(&R[r].held, idx[r], n[r]);
        R[r].na = n[r];
        R[r].a = malloc((size_t)(n[r] > 0 ? n[r] : 1) * sizeof(int64_t));
        memcpy(R[r].a, idx[r], (size_t)n[r] * sizeof(int64_t));
    }
    for (int ph = 0; ph < k; ph++) {
        for (int r = 0; r < P; r++) {
            collio__mp_step st;
            collio__mp_step_of(P, N, r, ph, &st);
            int rc = collio__mp_phase_split(R[r].held.v, R[r].held.n, R[r].na, &st,
                                            &R[r].ph[ph], &R[r].kept, &R[r].out);
            CHECK(rc == COLLIO_OK, "%s split rc", what);
        }
        for (int r = 0; r < P; r++) {
            collio__mp_phase *p = &R[r].ph[ph];
            if (p->idle)
                continue;
            const collio__mp_step *st = &p->step;
            collio__segvec none = {0};
            const collio__segvec *rp = st->partner >= 0 ? &R[st->partner].out : &none;
            const collio__segvec *rx =
                st->extra_from >= 0 ? &R[st->extra_from].out : &none;
            int rc = collio__mp_phase_join(p, &R[r].kept, rp->v, rp->n, rx->v, rx->n);
            CHECK(rc == COLLIO_OK, "%s join rc", what);
            R[r].b = malloc((size_t)(p->b_elems > 0 ? p->b_elems : 1) * sizeof(int64_t));
            for (int64_t c = 0; c < p->nkeep; c++)
                memcpy(R[r].b + p->keep[c].dst, R[r].a + p->keep[c].src,
                       (size_t)p->keep[c].n * sizeof(int64_t));
            int from[2] = {st->partner, st->extra_from};
            int64_t at[2] = {p->recv_pos, p->xrecv_pos},
                    cnt[2] = {p->recv_elems, p->xrecv_elems};
            for (int m = 0; m < 2; m++) {
                if (from[m] < 0) {
                    CHECK(cnt[m] == 0, "%s no sender, nothing received", what);
                    continue;
                }
                const collio__mp_phase *q = &R[from[m]].ph[ph];
                CHECK(q->send_elems == cnt[m], "%s P=%d ph=%d r=%d message size", what, P,
                      ph, r);
                int64_t pos = at[m];
                for (int64_t s = 0; s < q->nsend; s++) {
                    memcpy(R[r].b + pos, R[from[m]].a + q->send[s].pos,
                           (size_t)q->send[s].n * sizeof(int64_t));
                    pos += q->send[s].n;
                }
            }
        }
        for (int r = 0; r < P; r++) {
            collio__mp_phase *p = &R[r].ph[ph];
            collio__segvec_free(&R[r].out);
            if (p->idle)
                continue;
            collio__segvec_free(&R[r].held);
            R[r].held = R[r].kept;
            R[r].kept = (collio__segvec){0};
            free(R[r].a);
            R[r].a = R[r].b;
            R[r].b = NULL;
            R[r].na = p->b_elems;
        }
    }
    int64_t *file = malloc((size_t)(N > 0 ? N : 1) * sizeof(int64_t));
    int *written = calloc((size_t)(N > 0 ? N : 1), sizeof(int));
    for (int r = 0; r < P; r++) {
        collio__mp_step st;
        collio__mp_step_of(P, N, r, k, &st);
        collio__mp_final fin = {0};
        int rc = collio__mp_final_build(R[r].held.v, R[r].held.n, st.group_lo,
                                        st.group_hi, &fin);
        CHECK(rc == COLLIO_OK && fin.nelems == R[r].na, "%s final rc", what);
        int64_t *F = R[r].a;
        if (!fin.identity) {
            F = malloc((size_t)(fin.nelems > 0 ? fin.nelems : 1) * sizeof(int64_t));
            collio__mp_scatter(&fin, sizeof(int64_t), (const char *)R[r].a, (char *)F);
        }
        if (k == collio__mp_nphases(P)) { /* one request: the domain */
            int64_t lo, hi;
            collio__domain_range(N, P, collio__mp_domain_of_rank(P, r), &lo, &hi);
            CHECK(fin.requests == (hi > lo) && (hi == lo || fin.runs[0].off == lo),
                  "%s P=%d r=%d one request for the domain", what, P, r);
        }
        if (file_off != NULL)
            CHECK(fin.nruns == 1 && fin.runs[0].off == file_off[r]
                      && fin.runs[0].len == 4,
                  "seed 004 rank %d starts at %lld", r, (long long)file_off[r]);
        for (int64_t s = 0; s < fin.nruns; s++) {
            const collio__seg *g = &fin.runs[s];
            for (int64_t b = 0; b < g->count; b++)
                for (int64_t j = 0; j < g->len; j++) {
                    int64_t o = g->off + b * g->stride + j;
                    if (o >= 0 && o < N) {
                        file[o] = F[g->mem + b * g->len + j];
                        written[o]++;
                    }
                }
        }
        if (F != R[r].a)
            free(F);
        collio__mp_final_free(&fin);
    }
    int64_t bad = 0;
    for (int64_t i = 0; i < N; i++)
        bad += written[i] != 1 || file[i] != i;
    CHECK(bad == 0, "%s P=%d k=%d: %lld elements wrong", what, P, k, (long long)bad);
    free(file);
    free(written);
    for (int r = 0; r < P; r++) {
        for (int ph = 0; ph < k; ph++)
            collio__mp_phase_free(&R[r].ph[ph]);
        collio__segvec_free(&R[r].held);
        collio__segvec_free(&R[r].kept);
        free(R[r].a);
    }
    free(R);
}

static void block_cyclic(int P, int64_t N, int64_t bx, int64_t **idx, int64_t *n)
{
    for (int r = 0; r < P; r++) {
        idx[r] = malloc((size_t)(N > 0 ? N : 1) * sizeof(int64_t));
        n[r] = 0;
    }
    for (int64_t i = 0; i < N; i++) {
        int r = (int)((i / bx) % P);
        idx[r][n[r]++] = i;
    }
}

/* A random permutation cut into skewed pieces, some ranks empty; sorted
 * pieces when `sorted`. */
static void random_list(int P, int64_t N, uint64_t seed, int sorted, int64_t **idx,
                        int64_t *n)
{
    int64_t *perm = malloc((size_t)(N > 0 ? N : 1) * sizeof(int64_t));
    for (int64_t i = 0; i < N; i++)
        perm[i] = i;
    for (int64_t i = N - 1; i > 0; i--) {
        int64_t j = (int64_t)(unit_splitmix(&seed) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    int64_t at = 0;
    for (int r = 0; r < P; r++) {
        int64_t left = N - at;
        int64_t take =
            r == P - 1
                ? left
                : (r % 3 == 1 ? 0
                              : (int64_t)(unit_splitmix(&seed) % (uint64_t)(left + 1)));
        idx[r] = malloc((size_t)(take > 0 ? take : 1) * sizeof(int64_t));
        memcpy(idx[r], perm + at, (size_t)take * sizeof(int64_t));
        n[r] = take;
        at += take;
        if (sorted)
            for (int64_t a = 1; a < take; a++)
                for (int64_t b = a; b > 0 && idx[r][b - 1] > idx[r][b]; b--) {
                    int64_t t = idx[r][b];
                    idx[r][b] = idx[r][b - 1];
                    idx[r][b - 1] = t;
                }
    }
    free(perm);
}

static void free_lists(int P, int64_t **idx)
{
    for (int r = 0; r < P; r++)
        free(idx[r]);
}

static void test_seed004(void)
{
    int64_t *idx[4], n[4];
    block_cyclic(4, 16, 1, idx, n);
    static const int64_t off4[4] = {0, 8, 4, 12};
    simulate("seed004", 4, 16, 2, idx, n, off4);
    free_lists(4, idx);

    /* descriptors stay a handful of tuples, independent of N (bx = 1) */
    for (int P = 2; P <= 16; P *= 2) {
        int64_t N = 4096;
        int64_t *ix[16], nn[16];
        block_cyclic(P, N, 1, ix, nn);
        collio__segvec held = {0};
        segs_from_indices(&held, ix[0], nn[0]);
        CHECK(held.n == 1, "P=%d bx=1 is one segment", P);
        collio__mp_step st;
        collio__mp_step_of(P, N, 0, 0, &st);
        collio__mp_phase ph = {0};
        collio__segvec kept = {0}, out = {0};
        collio__mp_phase_split(held.v, held.n, nn[0], &st, &ph, &kept, &out);
        CHECK(ph.nsend == 1 && ph.nkeep == 1 && ph.tuples == 1,
              "P=%d phase 0: one range sent, one kept, one tuple", P);
        collio__mp_phase_free(&ph);
        collio__segvec_free(&held);
        collio__segvec_free(&kept);
        collio__segvec_free(&out);
        free_lists(P, ix);
    }
}

static void test_simulations(void)
{
    static const int64_t bxs[] = {1, 3, 7, 64, 1000};
    for (int P = 1; P <= 12; P++) {
        int all = collio__mp_nphases(P);
        int64_t *idx[12], n[12];
        for (size_t b = 0; b < sizeof bxs / sizeof bxs[0]; b++) {
            for (int64_t N = 0; N <= 1000; N += 333 + P) {
                block_cyclic(P, N, bxs[b], idx, n);
                for (int k = 0; k <= all; k++) {
                    char what[64];
                    snprintf(what, sizeof what, "block-cyclic bx=%lld N=%lld",
                             (long long)bxs[b], (long long)N);
                    simulate(what, P, N, k, idx, n, NULL);
                }
                free_lists(P, idx);
            }
        }
        for (int t = 0; t < 6; t++) {
            int64_t N = 50 + 97 * t;
            random_list(P, N, 1000u * (unsigned)P + (unsigned)t, t % 2, idx, n);
            for (int k = 0; k <= all; k++)
                simulate(t % 2 ? "random sorted list" : "random list", P, N, k, idx, n,
                         NULL);
            free_lists(P, idx);
        }
    }
}

/* ------------------------------------------------ rounds */

/* Round of file element o (reference: the rule in multiphase/hypercube/rounds.c's
 * header: round i < n - 1 of a domain of m elements covers relative
 * positions [m - (m >> i), m - (m >> (i + 1))), the last round the rest),
 * by scanning the domains. */
static int ref_round(int64_t N, int P, int nrounds, int64_t o)
{
    for (int d = 0; d < P; d++) {
        int64_t lo, hi;
        collio__domain_range(N, P, d, &lo, &hi);
        if (o < lo || o >= hi)
            continue;
        int64_t m = hi - lo, rel = o - lo;
        for (int i = 0; i < nrounds - 1; i++)
            if (rel < m - (m >> (i + 1)))
                return i;
        return nrounds - 1;
    }
    return -1;
}

static void test_rounds(void)
{
    /* how many rounds: want halvings while the smallest domain has an
     * element to give; automatic: halvings while the last round keeps
     * 64 KiB, at most 8, for domains of 1 MiB or more */
    CHECK(collio__mp_round_count(1000, 4, 3) == 4, "3 halvings: 4 rounds");
    CHECK(collio__mp_round_count(8, 4, 40) == 4, "8 elements: 3 halvings at most");
    CHECK(collio__mp_round_count(1, 4, 5) == 0, "1 element: no rounds");
    CHECK(collio__mp_round_count(3276800, 4, 0) == 8, "100 MB / 8 ranks: 8 rounds");
    CHECK(collio__mp_round_count(1638400, 4, 0) == 7, "100 MB / 16 ranks: 7 rounds");
    CHECK(collio__mp_round_count(1048576, 4, 0) == 7, "4 MiB: 7 rounds");
    CHECK(collio__mp_round_count(1048575, 4, 0) == 6, "4 MiB - 4 B: 6 rounds");
    CHECK(collio__mp_round_count(262144, 4, 0) == 5, "1 MiB: 5 rounds");
    CHECK(collio__mp_round_count(262143, 4, 0) == 0, "under 1 MiB: none");
    CHECK(collio__mp_round_count(524288, 8, 0) == 7, "4 MiB of doubles: 7 rounds");
    CHECK(collio__mp_round_count(1 << 30, 4, 0) == 9, "4 GiB: 8 halvings at most");

    /* starts: 0, then half of what is left each time, the last round the
     * rest */
    for (int64_t m = 0; m < 300; m += 7)
        for (int n = 2; n < 8; n++) {
            int64_t prev = 0;
            CHECK(collio__mp_round_start(m, 0, n) == 0, "m=%lld starts at 0",
                  (long long)m);
            for (int i = 1; i <= n; i++) {
                int64_t a = collio__mp_round_start(m, i, n);
                int64_t want = i < n ? prev + ((m - prev) - (m - prev) / 2) : m;
                CHECK(a == want, "m=%lld n=%d start(%d) = %lld, want %lld", (long long)m,
                      n, i, (long long)a, (long long)want);
                prev = a;
            }
        }

    /* clip: every element of random strided segments lands in exactly one
     * round, the right one, with its stream position kept */
    uint64_t seed = 77;
    for (int c = 0; c < 200; c++) {
        int P = 1 + (int)(unit_splitmix(&seed) % 9);
        int nrounds = 2 + (int)(unit_splitmix(&seed) % 5);
        int64_t N = 1 + (int64_t)(unit_splitmix(&seed) % 3000);
        int64_t *mem = malloc((size_t)N * sizeof *mem);
        for (int64_t e = 0; e < N; e++)
            mem[e] = -1;
        collio__segvec segs = {0};
        int64_t pos = 0;
        for (int64_t off = (int64_t)(unit_splitmix(&seed) % 5); off < N;) {
            collio__seg g;
            g.off = off;
            g.len = 1 + (int64_t)(unit_splitmix(&seed) % 9);
            g.stride = g.len + (int64_t)(unit_splitmix(&seed) % 4);
            g.count = 1 + (int64_t)(unit_splitmix(&seed) % 20);
            while (g.count > 1 && g.off + (g.count - 1) * g.stride + g.len > N)
                g.count--;
            if (g.off + g.len > N)
                g.len = N - g.off;
            g.mem = pos;
            for (int64_t b = 0; b < g.count; b++)
                for (int64_t j = 0; j < g.len; j++)
                    mem[g.off + b * g.stride + j] = pos++;
            collio__segvec_push_seg(&segs, &g);
            off = g.off + (g.count - 1) * g.stride + g.len + (g.stride > g.len ? 0 : 1);
            if (g.stride > g.len) /* the gaps are somebody else's: skip them */
                off = g.off + g.count * g.stride;
        }
        int64_t *seen = calloc((size_t)N, sizeof *seen), bad = 0;
        for (int i = 0; i < nrounds; i++) {
            collio__segvec out = {0};
            int rc = collio__mp_round_clip(segs.v, segs.n, N, P, i, nrounds, &out);
            CHECK(rc == COLLIO_OK, "clip rc");
            for (int64_t q = 0; q < out.n; q++) {
                const collio__seg *g = &out.v[q];
                for (int64_t b = 0; b < g->count; b++)
                    for (int64_t j = 0; j < g->len; j++) {
                        int64_t o = g->off + b * g->stride + j;
                        int64_t at = g->mem + b * g->len + j;
                        if (o < 0 || o >= N || mem[o] != at
                            || ref_round(N, P, nrounds, o) != i)
                            bad++;
                        else
                            seen[o]++;
                    }
            }
            collio__segvec_free(&out);
        }
        for (int64_t e = 0; e < N; e++)
            if (seen[e] != (mem[e] >= 0))
                bad++;
        CHECK(bad == 0, "P=%d N=%lld rounds=%d: %lld elements misplaced", P, (long long)N,
              nrounds, (long long)bad);
        free(seen);
        free(mem);
        collio__segvec_free(&segs);
    }

    /* place: slots do not overlap each other, slot 1 stays clear of the
     * round's target range, all within F plus the spill */
    for (int c = 0; c < 500; c++) {
        collio__mp_round r;
        memset(&r, 0, sizeof r);
        int64_t fsize = 1 + (int64_t)(unit_splitmix(&seed) % 1000);
        r.target = (int64_t)(unit_splitmix(&seed) % (uint64_t)fsize);
        r.pass.fin.nelems =
            (int64_t)(unit_splitmix(&seed) % (uint64_t)(fsize - r.target + 1));
        r.pass.bufsize[0] = (int64_t)(unit_splitmix(&seed) % 600);
        r.pass.bufsize[1] = (int64_t)(unit_splitmix(&seed) % 600);
        int64_t spill = 0;
        collio__mp_round_place(&r, fsize, &spill);
        int64_t a0 = r.slot_pos[0], b0 = a0 + r.pass.bufsize[0];
        int64_t a1 = r.slot_pos[1], b1 = a1 + r.pass.bufsize[1];
        int64_t t0 = r.target, t1 = r.target + r.pass.fin.nelems;
        CHECK(a0 >= r.target && a1 >= r.target && b0 <= fsize + spill
                  && b1 <= fsize + spill,
              "slots inside [target, F + spill)");
        CHECK(b0 <= a1 || b1 <= a0, "slots disjoint");
        CHECK(b1 <= t0 || t1 <= a1, "slot 1 clear of the target");
        CHECK(spill >= 0 && (spill == 0 || b1 == fsize + spill), "spill is the overrun");
    }
}

int main(void)
{
    test_tables();
    test_domains();
    test_seed004();
    test_simulations();
    test_rounds();
    return unit_summary("unit_multiphase");
}
