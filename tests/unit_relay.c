/*
 * unit_relay.c -- the relay of a shared-memory write (multiphase/shm/relay.c),
 * without MPI: its schedule, and the protocol run on it for every P up to
 * 40 and several lane counts K.
 *
 * The schedule (group bounds, every rank's lane neighbours per group) is
 * checked against what the protocol needs: groups partition the owners
 * with owner 0 alone first; in every group the prev/next links of all
 * ranks form chains that together hold every rank exactly once; the
 * chains' count is the lane count the owners wait for.
 *
 * The protocol is then run as a simulation: P rank programs (wait for the
 * lane token, copy into the group, pass the token or tell the owners, and
 * for the own group: wait for every lane and for the owner before, write,
 * tell the next owner), stepped in a random order until none can move.
 * Each must finish (no deadlock), each owner's write must find every
 * rank's copy into its F done, and the writes must come in rank order.
 */
#include "strategies/multiphase/shm/shm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNIT_RNG_SEED 0x7e1a7
#include "unit_check.h"

typedef struct sched {
    int P, K, G;
    int *lo;          /* G + 1 */
    int *prev, *next; /* [rank * G + h] */
} sched;

static void sched_make(sched *s, int P, int K)
{
    s->P = P;
    s->K = K;
    s->G = collio__mp_relay_groups(P, K);
    s->lo = malloc((size_t)(P + 1) * sizeof *s->lo);
    s->prev = malloc((size_t)P * (size_t)s->G * sizeof *s->prev);
    s->next = malloc((size_t)P * (size_t)s->G * sizeof *s->next);
    for (int r = 0; r < P; r++)
        collio__mp_relay_schedule(P, r, K, s->G, s->lo, s->prev + (size_t)r * s->G,
                                  s->next + (size_t)r * s->G);
}

static void sched_free(sched *s)
{
    free(s->lo);
    free(s->prev);
    free(s->next);
}

static void check_schedule(const sched *s)
{
    const int P = s->P, G = s->G;
    CHECK(G >= 1 && G <= P, "P %d K %d: G %d", P, s->K, G);
    CHECK(s->lo[0] == 0 && s->lo[G] == P, "P %d: bounds %d..%d", P, s->lo[0], s->lo[G]);
    if (P > 1)
        CHECK(s->lo[1] == 1, "P %d K %d: group 0 is not owner 0 alone", P, s->K);
    for (int h = 0; h < G; h++)
        CHECK(s->lo[h + 1] > s->lo[h], "P %d K %d: group %d empty", P, s->K, h);
    int *seen = malloc((size_t)P * sizeof *seen);
    for (int h = 0; h < G; h++) {
        memset(seen, 0, (size_t)P * sizeof *seen);
        int chains = 0;
        for (int r = 0; r < P; r++) {
            int nx = s->next[r * G + h], pv = s->prev[r * G + h];
            if (nx >= 0)
                CHECK(s->prev[nx * G + h] == r,
                      "P %d h %d: next of %d is %d, its prev %d", P, h, r, nx,
                      s->prev[nx * G + h]);
            if (pv >= 0)
                CHECK(s->next[pv * G + h] == r, "P %d h %d: prev/next", P, h);
            if (pv >= 0)
                continue;
            chains++; /* a lane's first rank: walk its chain */
            for (int q = r, n = 0; q >= 0 && n <= P; q = s->next[q * G + h], n++)
                seen[q]++;
        }
        for (int r = 0; r < P; r++)
            CHECK(seen[r] == 1, "P %d K %d h %d: rank %d in %d lanes", P, s->K, h, r,
                  seen[r]);
        CHECK(chains == collio__mp_relay_lanes(P, s->K, h),
              "P %d K %d h %d: %d lanes, not %d", P, s->K, h, chains,
              collio__mp_relay_lanes(P, s->K, h));
    }
    free(seen);
}

/* ---- the protocol, simulated */

enum { AT_TOKEN, AT_COPY, AT_DONE_WAIT, AT_WRITTEN_WAIT, AT_WRITE, AT_NEXT, AT_END };

typedef struct rank_state {
    int h, at;
    int tokens, done, written; /* words received */
    int tokens_used;
} rank_state;

/* One step of rank r, if it can move; returns 1 if it did. */
static int step(const sched *s, rank_state *st, int r, int *copied, int *writes,
                int *nwrites)
{
    const int P = s->P, G = s->G;
    rank_state *x = &st[r];
    int mine = 0;
    while (r >= s->lo[mine + 1])
        mine++;
    switch (x->at) {
    case AT_TOKEN:
        if (x->h == G) {
            x->at = AT_END;
            return 1;
        }
        if (s->prev[r * G + x->h] >= 0) {
            if (x->tokens <= x->tokens_used)
                return 0;
            x->tokens_used++;
        }
        x->at = AT_COPY;
        return 1;
    case AT_COPY: {
        const int h = x->h;
        for (int q = s->lo[h]; q < s->lo[h + 1]; q++)
            copied[q * P + r]++;
        int nx = s->next[r * G + h];
        if (nx >= 0)
            st[nx].tokens++;
        else
            for (int q = s->lo[h]; q < s->lo[h + 1]; q++)
                st[q].done++;
        x->at = h == mine ? AT_DONE_WAIT : AT_NEXT;
        return 1;
    }
    case AT_DONE_WAIT:
        if (x->done < collio__mp_relay_lanes(P, s->K, x->h))
            return 0;
        x->at = AT_WRITTEN_WAIT;
        return 1;
    case AT_WRITTEN_WAIT:
        if (r > 0 && x->written < 1)
            return 0;
        x->at = AT_WRITE;
        return 1;
    case AT_WRITE: {
        int all = 1;
        for (int q = 0; q < P; q++)
            all &= copied[r * P + q] == 1;
        CHECK(all, "P %d K %d: owner %d writes before every copy is in", P, s->K, r);
        writes[(*nwrites)++] = r;
        if (r + 1 < P)
            st[r + 1].written++;
        x->at = AT_NEXT;
        return 1;
    }
    case AT_NEXT:
        x->h++;
        x->at = AT_TOKEN;
        return 1;
    default:
        return 0;
    }
}

static void run_protocol(const sched *s, uint64_t *rng)
{
    const int P = s->P;
    rank_state *st = calloc((size_t)P, sizeof *st);
    int *copied = calloc((size_t)P * (size_t)P, sizeof *copied);
    int *writes = malloc((size_t)P * sizeof *writes), nwrites = 0;
    for (;;) {
        int moved = 0;
        int start = (int)(unit_splitmix(rng) % (uint64_t)P);
        for (int k = 0; k < P; k++) {
            int r = (start + k) % P;
            /* a random number of steps, then the next rank */
            while (step(s, st, r, copied, writes, &nwrites)) {
                moved = 1;
                if (unit_splitmix(rng) % 3 == 0)
                    break;
            }
        }
        if (!moved)
            break;
    }
    int ended = 0;
    for (int r = 0; r < P; r++)
        ended += st[r].at == AT_END;
    CHECK(ended == P, "P %d K %d: %d of %d ranks stuck (deadlock)", P, s->K, P - ended,
          P);
    CHECK(nwrites == P, "P %d K %d: %d writes", P, s->K, nwrites);
    for (int i = 0; i < nwrites; i++)
        CHECK(writes[i] == i, "P %d K %d: write %d by rank %d", P, s->K, i, writes[i]);
    for (int i = 0; i < P * P; i++)
        CHECK(copied[i] == 1, "P %d K %d: owner %d got %d copies from %d", P, s->K, i / P,
              copied[i], i % P);
    free(st);
    free(copied);
    free(writes);
}

int main(void)
{
    uint64_t rng = UNIT_RNG_SEED;
    for (int P = 1; P <= 40; P++)
        for (int K = 1; K <= P; K = K < 3 ? K + 1 : K * 2) {
            sched s;
            sched_make(&s, P, K);
            check_schedule(&s);
            for (int rep = 0; rep < 5; rep++)
                run_protocol(&s, &rng);
            sched_free(&s);
        }
    /* every lane count at one P with several groups */
    for (int K = 1; K <= 24; K++) {
        sched s;
        sched_make(&s, 24, K);
        check_schedule(&s);
        run_protocol(&s, &rng);
        sched_free(&s);
    }
    return unit_summary("unit_relay");
}
