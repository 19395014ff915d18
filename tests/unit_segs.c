/*
 * unit_segs.c -- segments and extents (src/layouts/segs.c) against brute force,
 * without MPI: segvec merging, flatten, clip, sort, coalesce.
 *
 * The reference is always the element map: for every stream position p the
 * file element it holds. Whatever segments the code under test builds must
 * describe exactly the map the pushed blocks describe, and satisfy the
 * segment invariants (len >= 1, count >= 1, stride >= len if count > 1).
 * Bounds are half-open [start, end).
 */
#include "layouts/layouts.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define UNIT_RNG_SEED 0x1234567887654321ULL
#include "unit_check.h"

static int segs_valid(const collio__seg *s, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (s[i].len < 1 || s[i].count < 1 || (s[i].count > 1 && s[i].stride < s[i].len))
            return 0;
    return 1;
}

/* Element map of segments: map[mem position] = file element; positions not
 * covered stay -1. Returns 0 if a position is covered twice or out of nmap. */
static int seg_map(const collio__seg *s, int64_t n, int64_t *map, int64_t nmap)
{
    for (int64_t p = 0; p < nmap; p++)
        map[p] = -1;
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = 0; k < s[i].count; k++)
            for (int64_t t = 0; t < s[i].len; t++) {
                int64_t p = s[i].mem + k * s[i].len + t;
                if (p < 0 || p >= nmap || map[p] != -1)
                    return 0;
                map[p] = s[i].off + k * (s[i].count > 1 ? s[i].stride : s[i].len) + t;
            }
    return 1;
}

/* ---- segvec_push: exact merge rules and random sequences */
static void test_push_rules(void)
{
    collio__segvec sv = {0};
    collio__segvec_push(&sv, 10, 3, 0);
    collio__segvec_push(&sv, 13, 2, 3); /* contiguous: len grows */
    CHECK(sv.n == 1 && sv.v[0].len == 5 && sv.v[0].count == 1, "n=%lld", (long long)sv.n);
    collio__segvec_push(&sv, 20, 5, 5); /* equal len: starts stride 10 */
    CHECK(sv.n == 1 && sv.v[0].count == 2 && sv.v[0].stride == 10, "stride start");
    collio__segvec_push(&sv, 30, 5, 10); /* same stride: count grows */
    CHECK(sv.n == 1 && sv.v[0].count == 3, "count grows");
    collio__segvec_push(&sv, 41, 5, 15); /* wrong stride: new segment */
    CHECK(sv.n == 2, "new seg on stride change");
    collio__segvec_push(&sv, 46, 5, 25); /* stream gap: new segment */
    CHECK(sv.n == 3, "new seg on stream gap");
    collio__segvec_free(&sv);

    /* push_seg: contiguous strided input is one block; exact continuation */
    collio__seg a = {0, 4, 4, 5, 0};
    collio__segvec_push_seg(&sv, &a);
    CHECK(sv.n == 1 && sv.v[0].len == 20 && sv.v[0].count == 1, "contig seg");
    collio__segvec_free(&sv);
    collio__seg b = {0, 2, 7, 3, 0}, c = {21, 2, 7, 4, 6};
    collio__segvec_push_seg(&sv, &b);
    collio__segvec_push_seg(&sv, &c);
    CHECK(sv.n == 1 && sv.v[0].count == 7 && sv.v[0].stride == 7, "seg continues");
    collio__segvec_free(&sv);
    collio__segvec_push(&sv, 100, 2, 0);
    collio__segvec_push_seg(&sv, &(collio__seg){105, 2, 5, 3, 2});
    CHECK(sv.n == 1 && sv.v[0].count == 4 && sv.v[0].stride == 5, "single + seg");
    collio__segvec_free(&sv);
}

static void test_push_random(void)
{
    enum { MAXN = 4000 };
    static int64_t ref[MAXN], got[MAXN];
    for (int trial = 0; trial < 3000; trial++) {
        collio__segvec sv = {0};
        int64_t pos = 0, off = rndr(50);
        int mode = (int)rndr(3);
        int64_t lenfix = 1 + rndr(4), gapfix = rndr(5);
        while (pos < MAXN - 64) {
            int64_t len = mode == 0 ? 1 + rndr(6) : lenfix;
            int64_t gap = mode == 2 ? gapfix : rndr(4) == 0 ? 0 : rndr(10);
            if (rndr(40) == 0)
                gap = rndr(3) ? gap : -off / 2 - len; /* jump backwards */
            off += gap;
            if (off < 0)
                off = 0;
            if (rndr(7) == 0) { /* a whole strided segment */
                int64_t cnt = 1 + rndr(5), st = len + rndr(4);
                collio__seg s = {off, len, st, cnt, pos};
                for (int64_t k = 0; k < cnt; k++)
                    for (int64_t t = 0; t < len; t++)
                        ref[pos + k * len + t] = off + k * st + t;
                collio__segvec_push_seg(&sv, &s);
                pos += cnt * len;
                off += (cnt - 1) * st + len;
            } else {
                for (int64_t t = 0; t < len; t++)
                    ref[pos + t] = off + t;
                collio__segvec_push(&sv, off, len, pos);
                pos += len;
                off += len;
            }
        }
        int ok = segs_valid(sv.v, sv.n) && seg_map(sv.v, sv.n, got, pos)
                 && collio__segs_elements(sv.v, sv.n) == pos
                 && memcmp(ref, got, (size_t)pos * sizeof(int64_t)) == 0;
        CHECK(ok, "random push trial %d mode %d", trial, mode);
        if (mode == 2 && gapfix > 0) /* constant len and gap: one segment */
            CHECK(sv.n <= 1 + 2 * (int64_t)(pos / 8), "compact n=%lld", (long long)sv.n);
        /* flatten gives the same map, in stream order */
        collio__ext *e;
        int64_t ne;
        CHECK(collio__segs_flatten(sv.v, sv.n, &e, &ne) == COLLIO_OK, "flatten");
        int64_t p = 0;
        int fok = 1;
        for (int64_t i = 0; i < ne; i++) {
            if (e[i].mem != p || e[i].len < 1)
                fok = 0;
            for (int64_t t = 0; t < e[i].len && fok; t++)
                if (p >= pos || ref[p++] != e[i].off + t)
                    fok = 0;
        }
        CHECK(fok && p == pos, "flatten map trial %d", trial);
        free(e);
        collio__segvec_free(&sv);
    }
}

/* ---- clip: each element of s with file index in [lo, hi), same stream
 * position, nothing else */
static void test_clip(void)
{
    enum { MAXE = 3000 };
    static int64_t want[MAXE], got[MAXE];
    for (int trial = 0; trial < 200000; trial++) {
        collio__seg s;
        s.len = 1 + rndr(6);
        s.count = 1 + rndr(trial % 3 == 0 ? 1 : 30);
        s.stride = s.count > 1 ? s.len + rndr(6) : s.len;
        s.off = rndr(20);
        s.mem = rndr(10);
        int64_t span = s.off + (s.count - 1) * s.stride + s.len;
        int64_t lo = rndr(span + 5) - 2, hi = lo + rndr(span + 5) - 2;
        int64_t nmap = s.mem + s.count * s.len;
        for (int64_t p = 0; p < nmap; p++)
            want[p] = -1;
        for (int64_t k = 0; k < s.count; k++)
            for (int64_t t = 0; t < s.len; t++) {
                int64_t f = s.off + k * s.stride + t;
                if (f >= lo && f < hi)
                    want[s.mem + k * s.len + t] = f;
            }
        collio__seg out[3];
        int n = collio__seg_clip(&s, lo, hi, out);
        int ok = n >= 0 && n <= 3 && segs_valid(out, n);
        if (ok) {
            for (int64_t p = 0; p < nmap; p++)
                got[p] = -1;
            for (int i = 0; i < n && ok; i++)
                for (int64_t k = 0; k < out[i].count; k++)
                    for (int64_t t = 0; t < out[i].len; t++) {
                        int64_t p = out[i].mem + k * out[i].len + t;
                        int64_t f = out[i].off
                                    + k * (out[i].count > 1 ? out[i].stride : out[i].len)
                                    + t;
                        /* p must be f's stream position in s */
                        if (f < 0 || f < s.off) {
                            ok = 0;
                            break;
                        }
                        int64_t kk = (f - s.off) / (s.count > 1 ? s.stride : s.len);
                        int64_t tt = (f - s.off) - kk * (s.count > 1 ? s.stride : s.len);
                        int64_t sp = s.mem + kk * s.len + tt;
                        if (kk >= s.count || tt >= s.len || sp != p || got[sp] != -1) {
                            ok = 0;
                            break;
                        }
                        got[sp] = f;
                    }
        }
        ok = ok && memcmp(want, got, (size_t)nmap * sizeof(int64_t)) == 0;
        CHECK(ok, "clip off=%lld len=%lld stride=%lld count=%lld [%lld,%lld) n=%d",
              (long long)s.off, (long long)s.len, (long long)s.stride, (long long)s.count,
              (long long)lo, (long long)hi, n);
    }
}

/* ---- sort: stable by off; reference = insertion sort (stable) */
static int cmp_tag(const collio__ext *a, const collio__ext *b)
{
    return a->off == b->off && a->len == b->len && a->mem == b->mem;
}

static void test_sort(void)
{
    for (int trial = 0; trial < 400; trial++) {
        int64_t n = trial < 50 ? trial : 1 + rndr(3000);
        int range_kind = (int)rndr(4);
        collio__ext *e = malloc((size_t)(n + 1) * sizeof *e);
        collio__ext *r = malloc((size_t)(n + 1) * sizeof *r);
        for (int64_t i = 0; i < n; i++) {
            int64_t off;
            if (range_kind == 0)
                off = rndr(10); /* many duplicates: stability matters */
            else if (range_kind == 1)
                off = (int64_t)(rnd() >> 1); /* full positive range */
            else if (range_kind == 2)
                off = (int64_t)rnd(); /* negative too */
            else
                off = rndr(1 << 20);
            e[i] = (collio__ext){off, 1 + rndr(5), i}; /* mem = input order */
        }
        memcpy(r, e, (size_t)n * sizeof *e);
        for (int64_t i = 1; i < n; i++) {
            collio__ext x = r[i];
            int64_t j = i;
            while (j > 0 && r[j - 1].off > x.off) {
                r[j] = r[j - 1];
                j--;
            }
            r[j] = x;
        }
        collio__exts_sort_by_off(e, n);
        int ok = 1;
        for (int64_t i = 0; i < n; i++)
            ok &= cmp_tag(&e[i], &r[i]);
        CHECK(ok, "sort trial %d n=%lld kind %d", trial, (long long)n, range_kind);
        free(e);
        free(r);
    }
}

/* ---- merge of P ranks' sorted pairs: sorted by off, the same pairs as
 * went in (against qsort of all of them); some trials with one rank's
 * pairs out of order (sorted all the same) */
static int cmp_pair(const void *a, const void *b)
{
    const collio__ext *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return (x->len > y->len) - (x->len < y->len);
}

static void test_merge(void)
{
    for (int trial = 0; trial < 2000; trial++) {
        int P = 1 + (int)rndr(20), unsorted = trial % 7 == 0;
        int count[20], displ[20], order[20];
        int64_t n = 0;
        for (int q = 0; q < P; q++) {
            count[q] = rndr(4) == 0 ? 0 : (int)rndr(120);
            n += count[q];
            order[q] = q;
        }
        for (int q = P - 1; q > 0; q--) { /* the ranks' pairs in any place */
            int j = (int)rndr((uint64_t)q + 1), t = order[q];
            order[q] = order[j];
            order[j] = t;
        }
        for (int k = 0, at = 0; k < P; k++) {
            displ[order[k]] = at;
            at += count[order[k]];
        }
        int64_t *pairs = malloc((size_t)(2 * n + 2) * sizeof *pairs);
        collio__ext *ref = malloc((size_t)(n + 1) * sizeof *ref);
        collio__ext *got = malloc((size_t)(n + 1) * sizeof *got);
        int64_t k = 0;
        for (int q = 0; q < P; q++) {
            int64_t off = (int64_t)rndr(50);
            for (int i = 0; i < count[q]; i++) {
                off += (int64_t)rndr(trial % 3 == 0 ? 3 : 40); /* ties across ranks */
                int64_t o = unsorted && q == 0 ? (int64_t)rndr(5000) : off;
                int64_t len = 1 + (int64_t)rndr(9);
                pairs[2 * ((int64_t)displ[q] + i)] = o;
                pairs[2 * ((int64_t)displ[q] + i) + 1] = len;
                ref[k++] = (collio__ext){o, len, 0};
            }
        }
        collio__exts_merge_sorted(got, pairs, count, displ, P);
        int ok = 1;
        for (int64_t i = 1; i < n; i++)
            ok &= got[i - 1].off <= got[i].off;
        qsort(ref, (size_t)n, sizeof *ref, cmp_pair);
        qsort(got, (size_t)n, sizeof *got, cmp_pair);
        for (int64_t i = 0; i < n; i++)
            ok &= got[i].off == ref[i].off && got[i].len == ref[i].len;
        CHECK(ok, "merge trial %d: P=%d n=%lld%s", trial, P, (long long)n,
              unsorted ? " (one rank unsorted)" : "");
        free(pairs);
        free(ref);
        free(got);
    }
}

/* ---- coalesce: same element map, no empty extents, no mergeable pair */
static void test_coalesce(void)
{
    for (int trial = 0; trial < 3000; trial++) {
        int64_t n = rndr(200);
        collio__ext *e = malloc((size_t)(n + 1) * sizeof *e);
        int64_t off = rndr(5), mem = 0;
        int64_t nmap = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t len = rndr(6) == 0 ? 0 : 1 + rndr(4);
            int kind = (int)rndr(3); /* 0: contiguous both, 1: file gap, 2: stream gap */
            off += kind == 1 ? 1 + rndr(3) : 0;
            mem += kind == 2 ? 1 + rndr(3) : 0;
            e[i] = (collio__ext){off, len, mem};
            off += len;
            mem += len;
        }
        nmap = mem;
        int64_t *want = malloc((size_t)(nmap + 1) * sizeof(int64_t));
        int64_t *got = malloc((size_t)(nmap + 1) * sizeof(int64_t));
        for (int64_t p = 0; p < nmap; p++)
            want[p] = got[p] = -1;
        for (int64_t i = 0; i < n; i++)
            for (int64_t t = 0; t < e[i].len; t++)
                want[e[i].mem + t] = e[i].off + t;
        int64_t m = collio__exts_coalesce(e, n);
        int ok = m >= 0 && m <= n;
        for (int64_t i = 0; ok && i < m; i++) {
            if (e[i].len < 1)
                ok = 0;
            if (i > 0 && e[i - 1].off + e[i - 1].len == e[i].off
                && e[i - 1].mem + e[i - 1].len == e[i].mem)
                ok = 0;
            for (int64_t t = 0; ok && t < e[i].len; t++)
                got[e[i].mem + t] = e[i].off + t;
        }
        ok = ok && memcmp(want, got, (size_t)nmap * sizeof(int64_t)) == 0;
        CHECK(ok, "coalesce trial %d", trial);
        free(e);
        free(want);
        free(got);
    }
}

/* ---- timing: 3.3M extents (bx = 1 vector on 8 ranks, 26.2M elements) */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void test_big(void)
{
    int64_t nx = 26214400, P = 8, n = nx / P;
    collio__seg s = {3, 1, P, n, 0};
    double t0 = now_s();
    collio__ext *e;
    int64_t ne;
    CHECK(collio__segs_flatten(&s, 1, &e, &ne) == COLLIO_OK && ne == n, "big flatten");
    double t1 = now_s();
    /* reverse, then sort back */
    for (int64_t i = 0; i < ne / 2; i++) {
        collio__ext x = e[i];
        e[i] = e[ne - 1 - i];
        e[ne - 1 - i] = x;
    }
    double t2 = now_s();
    collio__exts_sort_by_off(e, ne);
    double t3 = now_s();
    int ok = 1;
    for (int64_t i = 0; i < ne; i++)
        ok &= e[i].off == 3 + i * P && e[i].mem == i;
    CHECK(ok, "big sort");
    int64_t m = collio__exts_coalesce(e, ne);
    double t4 = now_s();
    CHECK(m == ne, "big coalesce");
    printf("unit_segs: %lld extents: flatten %.3f s, sort %.3f s, coalesce %.3f s\n",
           (long long)ne, t1 - t0, t3 - t2, t4 - t3);
    free(e);
}

int main(void)
{
    test_push_rules();
    test_push_random();
    test_clip();
    test_sort();
    test_merge();
    test_coalesce();
    test_big();
    return unit_summary("unit_segs");
}
