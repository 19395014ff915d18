/*
 * hypercube/rounds.c -- the low-memory write of the multiphase
 * strategy's hypercube transport: the pure inspector steps that split a
 * write into rounds (no MPI).
 *
 * Why. A write whose user buffer must stay untouched cannot use that
 * buffer as a work buffer, and a pass over all data at once needs two work
 * buffers of the local data (A -> B per phase, then a scatter into file
 * order): 2x the local data. Done in rounds, the rank's domain buffer F
 * (where the data ends up in file order, and what is written with ONE
 * request) is the only big allocation:
 *
 *   round 0 moves the data of the first half of every domain, with its two
 *   work buffers in the second half of F (half of F each, about what every
 *   rank holds of the round in each phase), and scatters the result into
 *   the first half of F; round 1 moves the next quarter with its buffers
 *   in the last quarter; and so on -- each round takes half of the space
 *   left, and the space left is exactly the two buffers it needs. The last
 *   round's second buffer has no room in F: it runs into a small "spill"
 *   area allocated right after F (1/2^(nrounds-1) of the domain). Work
 *   memory: F + spill, about (1 + 2^-(nrounds-1)) x the local data for
 *   balanced layouts.
 *
 * A round is an ordinary pass of phases (hypercube/inspect.c builds it
 * from the round's pieces of the layout, with the same schedule, side by
 * side with the other rounds), so every rank
 * still ends with one contiguous domain and writes it once. Where a round
 * holds more than its share in some phase (uneven layouts, or the rank
 * that also receives from a lonely rank at P != 2^n), its buffers take the
 * room they need, and the spill area grows to the largest overrun (at
 * P = 16, 100 MB, bx = 65536 a round of a few 256 KiB blocks has a rank
 * holding a block more than its share: 1.12x). Reads run the rounds
 * backwards in the same buffer (hypercube/exec.c).
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "hypercube.h"

/* Automatic choice: rounds only for domains of at least AUTO_MIN_DOMAIN
 * bytes; halve while the last round keeps at least ROUND_MIN_BYTES, at
 * most AUTO_MAX_HALVINGS times. Why: each round costs a message per
 * phase and partner. Measured (median of 11, one run each P): at 1 MiB per
 * rank (16 MB, P = 16) 4-5 rounds are 7-15% slower than one pass and
 * need 1.1-1.5x instead of 2-3x; at 2 MiB per rank (P = 8) they are faster
 * (bx = 1: 0.0059 s against 0.0073 s); at 12.5 MiB per rank as fast or
 * faster. Below 1 MiB the latency wins and the memory is small anyway. */
#define AUTO_MIN_DOMAIN ((int64_t)1 << 20)
#define ROUND_MIN_BYTES ((int64_t)64 << 10)
#define AUTO_MAX_HALVINGS 8

int64_t collio__mp_round_start(int64_t m, int i, int nrounds)
{
    if (i >= nrounds)
        return m;
    return m - (m >> i);
}

int collio__mp_round_count(int64_t m_min, size_t esize, int want)
{
    int h = 0; /* halvings: rounds = h + 1 */
    if (want > 0) {
        while (h < want && h < 62 && (m_min >> (h + 1)) >= 1)
            h++;
    } else if (m_min >= AUTO_MIN_DOMAIN / (int64_t)esize) {
        int64_t min_elems = ROUND_MIN_BYTES / (int64_t)esize;
        while (h < AUTO_MAX_HALVINGS && (m_min >> (h + 1)) >= min_elems)
            h++;
    }
    return h > 0 ? h + 1 : 0;
}

int collio__mp_round_clip(const collio__seg *segs, int64_t nsegs, int64_t nglobal, int P,
                          int i, int nrounds, collio__segvec *out)
{
    int rc = COLLIO_OK;
    for (int64_t s = 0; s < nsegs && rc == COLLIO_OK; s++) {
        const collio__seg *g = &segs[s];
        if (g->count < 1 || g->len < 1)
            continue;
        int64_t last = g->off + (g->count - 1) * g->stride + g->len - 1;
        int d0 = collio__domain_of(nglobal, P, g->off);
        int d1 = collio__domain_of(nglobal, P, last);
        for (int d = d0; d <= d1 && rc == COLLIO_OK; d++) {
            int64_t lo, hi;
            collio__domain_range(nglobal, P, d, &lo, &hi);
            int64_t m = hi - lo;
            int64_t a = lo + collio__mp_round_start(m, i, nrounds);
            int64_t b = lo + collio__mp_round_start(m, i + 1, nrounds);
            collio__seg pc[3];
            int n = a < b ? collio__seg_clip(g, a, b, pc) : 0;
            for (int j = 0; j < n && rc == COLLIO_OK; j++)
                rc = collio__segvec_push_seg(out, &pc[j]);
        }
    }
    return rc;
}

void collio__mp_round_place(collio__mp_round *r, int64_t fsize, int64_t *spill)
{
    const int64_t c0 = r->pass.bufsize[0], c1 = r->pass.bufsize[1];
    const int64_t size = r->pass.fin.nelems;
    /* slot 0 may overlay the round's own target range: it is dead once the
     * last phase has filled slot 1, which the final scatter reads */
    r->slot_pos[0] = r->target;
    r->slot_pos[1] = r->target + (c0 > size ? c0 : size);
    int64_t over = r->slot_pos[1] + c1 - fsize; /* runs into the spill */
    if (over > *spill)
        *spill = over;
}
