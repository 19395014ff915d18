/*
 * kit.c -- what the transports of the multiphase strategy
 * share (multiphase.h, "the kit"): the copies between a buffer held
 * segment-major and file order (scatter / gather), the work buffers of an
 * execution, the file requests of F, the final step that writes F as one
 * run, MPI types over buffer ranges, and the exchange of piece
 * descriptors with every peer. Calls nothing else of multiphase: every
 * other multiphase file may call it (scripts/check-cycles).
 */
#include "base/base.h"
#include "machine/machine.h"
#include "layouts/layouts.h"
#include "files/files.h"
#include "core/core.h"
#include "multiphase.h"

#include <string.h>

/* ------------------------------------------------- scatter / gather */

/* Ops [i, j) form an interleaved group: same strided shape, file
 * positions inside one stride window (the plan sorted them so). */
static int64_t group_end(const collio__mp_final *fin, int64_t i)
{
    const collio__seg *g = &fin->ops[i];
    int64_t j = i + 1;
    if (g->count < 2)
        return j;
    while (j < fin->nops && fin->ops[j].len == g->len && fin->ops[j].stride == g->stride
           && fin->ops[j].count == g->count && fin->ops[j].off - g->off < g->stride)
        j++;
    return j;
}

/* nb blocks of bl bytes: consecutive in A, `step` bytes apart in F. */
static void copy_blocks(char *pa, char *pf, int64_t nb, size_t bl, size_t step, int to_f)
{
    if (bl == 4) { /* the common float32 / bx = 1 case: a fixed-size copy */
        for (int64_t b = 0; b < nb; b++, pa += 4, pf += step) {
            if (to_f)
                memcpy(pf, pa, 4);
            else
                memcpy(pa, pf, 4);
        }
        return;
    }
    for (int64_t b = 0; b < nb; b++, pa += bl, pf += step) {
        if (to_f)
            collio__copy(pf, pa, bl);
        else
            collio__copy(pa, pf, bl);
    }
}

/* Bytes of F one tile of an interleaved group spans (fits in L1). */
#define TILE_BYTES 16384

/* Copies between A (segment-major, blocks consecutive) and F (file order)
 * for the ops [i, j): to_f = 1 scatters A -> F, 0 gathers F -> A. The ops
 * of an interleaved group fill F together (bx = 1, P = 8: 8 ops of stride
 * 8 elements), so a group is walked in tiles of F: per tile, each op copies
 * its blocks of the tile -- sequential in A, and F's tile stays in cache.
 * Measured on one core, 12.5 MB, 8 and 16 ops of 4-byte blocks: 1.5-1.8 ms
 * tiled vs 2.8-3.2 ms walking all ops block by block; from 64-byte blocks
 * on the tiles no longer pay, and each block is copied in turn. */
static void copy_group(const collio__mp_final *fin, int64_t i, int64_t j, size_t esize,
                       char *a, char *f, int to_f)
{
    const collio__seg *g = &fin->ops[i];
    size_t bl = (size_t)g->len * esize;
    if (g->count == 1 || g->stride == g->len) { /* one contiguous copy each */
        for (int64_t t = i; t < j; t++) {
            const collio__seg *o = &fin->ops[t];
            char *pa = a + o->mem * (int64_t)esize, *pf = f + o->off * (int64_t)esize;
            size_t n = (size_t)o->len * esize * (size_t)o->count;
            if (to_f)
                collio__copy(pf, pa, n);
            else
                collio__copy(pa, pf, n);
        }
        return;
    }
    size_t step = (size_t)g->stride * esize;
    int64_t tile = bl < 64 ? (int64_t)(TILE_BYTES / step) : 1;
    if (tile < 1)
        tile = 1;
    for (int64_t b0 = 0; b0 < g->count; b0 += tile) {
        int64_t nb = g->count - b0 < tile ? g->count - b0 : tile;
        for (int64_t t = i; t < j; t++) {
            const collio__seg *o = &fin->ops[t];
            copy_blocks(a + (o->mem + b0 * o->len) * (int64_t)esize,
                        f + o->off * (int64_t)esize + (size_t)b0 * step, nb, bl, step,
                        to_f);
        }
    }
}

void collio__mp_scatter(const collio__mp_final *fin, size_t esize, const char *a, char *f)
{
    for (int64_t i = 0, j; i < fin->nops; i = j) {
        j = group_end(fin, i);
        copy_group(fin, i, j, esize, (char *)a, f, 1);
    }
}

void collio__mp_gather(const collio__mp_final *fin, size_t esize, const char *f, char *a)
{
    for (int64_t i = 0, j; i < fin->nops; i = j) {
        j = group_end(fin, i);
        copy_group(fin, i, j, esize, a, (char *)f, 0);
    }
}

/* ------------------------------------------------------------ buffers */

/* End of an execution: the plan keeps its own buffers for the next one
 * (hint plan.keep_buffers) or frees them. */
void collio__mp_bufs_done(collio_plan *p, collio__mp_bufs *w)
{
    collio__mp_plan *mp = p->impl;
    for (int s = 0; s < 2; s++) {
        if (w->owned[s] && collio__plan_opt(p, COLLIO__PLAN_KEEP_BUFFERS)) {
            mp->held[s] = w->buf[s];
            mp->held_bytes[s] = w->bytes[s];
        } else if (w->owned[s]) {
            collio__bigbuf_free(w->buf[s]);
        }
        w->buf[s] = NULL;
        w->owned[s] = 0;
    }
}

/* Collective: two work buffers of need[0] and need[1] elements, agreed
 * across ranks so that nobody starts exchanging alone; on failure nothing
 * stays allocated.
 *
 * With stream_ok, buffer 1 is the stream itself when the stream may serve
 * as scratch (p->scratch) and is large enough: the stream is read (write)
 * or written (read) only by the first exchange phase, whose other buffer
 * is slot 0, and slot 1 is used only after (write) or before (read) it --
 * the slots alternate -1 (stream), 0, 1, 0, ... (multiphase.c). Extra
 * memory is then one buffer, not two.
 *
 * With hint plan.keep_buffers the plan's buffers of the previous execution are
 * reused when large enough: a fresh 12 MB mapping per call and buffer
 * costs its page faults every call, and on this machine (8 ranks, 2 cores,
 * huge pages) every other call became 3-4x slower (docs/multiphase.md). */
int collio__mp_bufs_alloc(collio_plan *p, collio__mp_bufs *w, const int64_t need[2],
                          int stream_ok)
{
    collio__mp_plan *mp = p->impl;
    int rc = COLLIO_OK;
    *w = (collio__mp_bufs){{NULL, NULL}, {0, 0}, {0, 0}};
    if (stream_ok && p->scratch != NULL && need[1] > 0 && need[1] <= p->layout->nlocal)
        w->buf[1] = p->scratch;
    for (int s = 0; s < 2 && rc == COLLIO_OK; s++) {
        if (need[s] <= 0 || w->buf[s] != NULL)
            continue;
        if ((uint64_t)need[s] > SIZE_MAX / mp->esize) {
            rc = COLLIO_ERR_NOMEM;
            break;
        }
        size_t bytes = (size_t)need[s] * mp->esize;
        if (mp->held[s] != NULL && mp->held_bytes[s] >= bytes) {
            w->buf[s] = mp->held[s]; /* the plan's, from an earlier call */
            w->bytes[s] = mp->held_bytes[s];
        } else {
            collio__bigbuf_free(mp->held[s]); /* too small for this call */
            w->buf[s] = collio__bigbuf_alloc(bytes);
            w->bytes[s] = bytes;
        }
        mp->held[s] = NULL;
        mp->held_bytes[s] = 0;
        if (w->buf[s] == NULL) {
            rc = COLLIO_ERR_NOMEM;
        } else {
            w->owned[s] = 1;
            p->stats.work_bytes += (int64_t)w->bytes[s];
        }
    }
    rc = collio__agree(p->comm, rc);
    collio__stat_set(p, MP_STAT_NPHASES, mp->nphases);
    if (rc != COLLIO_OK)
        collio__mp_bufs_done(p, w);
    return rc;
}

/* The final file requests: the runs of `fin` between F and the file, one
 * request per block (to_file: write, else read); counted into stats. */
int collio__mp_file_runs(collio_plan *p, const collio__mp_final *fin, collio_file *f,
                         char *F, int to_file)
{
    const int64_t es = (int64_t)p->layout->esize;
    int rc = COLLIO_OK;
    double t0 = collio__now();
    for (int64_t r = 0; r < fin->nruns && rc == COLLIO_OK; r++) {
        const collio__seg *s = &fin->runs[r];
        for (int64_t b = 0; b < s->count && rc == COLLIO_OK; b++) {
            int64_t off = (s->off + b * s->stride) * es;
            char *mem = F + (s->mem + b * s->len) * es;
            size_t n = (size_t)(s->len * es);
            rc = to_file ? collio__file_write_at(f, off, mem, n)
                         : collio__file_read_at(f, off, mem, n);
        }
    }
    p->stats.file_s += collio__now() - t0;
    p->stats.file_requests += fin->requests;
    p->stats.file_bytes += fin->nelems * es;
    return rc;
}

/* ------------------------------------------------- a peer's message */

/* (multiphase.h) */
int collio__mp_send_type(collio__segvec *dv, size_t esize, MPI_Datatype *t,
                         int64_t *elems)
{
    collio__mp_range *r = malloc((size_t)(dv->n > 0 ? dv->n : 1) * sizeof *r);
    if (r == NULL)
        return COLLIO_ERR_NOMEM;
    int64_t nr = 0, pos = 0;
    for (int64_t i = 0; i < dv->n; i++) {
        collio__seg *s = &dv->v[i];
        int64_t n = s->count * s->len;
        if (nr > 0 && r[nr - 1].pos + r[nr - 1].n == s->mem)
            r[nr - 1].n += n;
        else
            r[nr++] = (collio__mp_range){s->mem, n};
        s->mem = pos;
        pos += n;
    }
    *elems = pos;
    int rc = collio__mp_ranges_type(r, nr, esize, t);
    free(r);
    return rc;
}

/* --------------------------------------------------- placing into F */

/* (multiphase.h) */
int collio__mp_place_type(const collio__seg *v, int64_t n, int64_t lo, size_t esize,
                          MPI_Datatype *t)
{
    const int64_t es = (int64_t)esize;
    *t = MPI_DATATYPE_NULL;
    int64_t ne = 0; /* struct entries */
    for (int64_t i = 0; i < n; i++) {
        int strided = v[i].count > 1 && v[i].stride != v[i].len;
        if (strided && v[i].len <= COLLIO_MP_MAX_BLOCK && v[i].count <= INT32_MAX)
            ne++;
        else if (strided) /* huge blocks: one run each */
            ne +=
                v[i].count * ((v[i].len + COLLIO_MP_MAX_BLOCK - 1) / COLLIO_MP_MAX_BLOCK);
        else
            ne += (v[i].len * v[i].count + COLLIO_MP_MAX_BLOCK - 1) / COLLIO_MP_MAX_BLOCK;
    }
    if (ne == 0)
        return COLLIO_OK;
    if (ne > INT32_MAX)
        return COLLIO_ERR_OVERFLOW;
    int *bl = malloc((size_t)ne * sizeof *bl);
    MPI_Aint *disp = malloc((size_t)ne * sizeof *disp);
    MPI_Datatype *ty = malloc((size_t)ne * sizeof *ty);
    int rc = (bl && disp && ty) ? COLLIO_OK : COLLIO_ERR_NOMEM;
    MPI_Datatype el = MPI_DATATYPE_NULL;
    if (rc == COLLIO_OK && MPI_Type_contiguous((int)esize, MPI_BYTE, &el) != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    int64_t j = 0;
    for (int64_t i = 0; i < n && rc == COLLIO_OK; i++) {
        const collio__seg *s = &v[i];
        int strided = s->count > 1 && s->stride != s->len;
        if (strided && s->len <= COLLIO_MP_MAX_BLOCK && s->count <= INT32_MAX) {
            if (MPI_Type_create_hvector((int)s->count, (int)s->len,
                                        (MPI_Aint)(s->stride * es), el, &ty[j])
                != MPI_SUCCESS) {
                rc = COLLIO_ERR_MPI;
                break;
            }
            bl[j] = 1;
            disp[j++] = (MPI_Aint)((s->off - lo) * es);
            continue;
        }
        int64_t nb = strided ? s->count : 1, blen = strided ? s->len : s->len * s->count;
        for (int64_t b = 0; b < nb; b++)
            for (int64_t o = 0; o < blen; o += COLLIO_MP_MAX_BLOCK) {
                int64_t m =
                    blen - o < COLLIO_MP_MAX_BLOCK ? blen - o : COLLIO_MP_MAX_BLOCK;
                ty[j] = el;
                bl[j] = (int)m;
                disp[j++] = (MPI_Aint)((s->off + b * s->stride - lo + o) * es);
            }
    }
    if (rc == COLLIO_OK
        && (MPI_Type_create_struct((int)ne, bl, disp, ty, t) != MPI_SUCCESS
            || MPI_Type_commit(t) != MPI_SUCCESS))
        rc = COLLIO_ERR_MPI;
    for (int64_t i = 0; i < j; i++)
        if (ty[i] != el)
            MPI_Type_free(&ty[i]);
    if (el != MPI_DATATYPE_NULL)
        MPI_Type_free(&el);
    free(bl);
    free(disp);
    free(ty);
    return rc;
}

/* ------------------------------------------------------------ final steps */

/* F -> file: the rank's domain [lo, hi) in one request. */
int collio__mp_final_domain(collio__mp_final *fin, int64_t lo, int64_t hi)
{
    fin->identity = 1;
    fin->src_slot = fin->dst_slot = 0;
    fin->nelems = hi - lo;
    if (hi == lo)
        return COLLIO_OK;
    fin->runs = malloc(sizeof *fin->runs);
    if (fin->runs == NULL)
        return COLLIO_ERR_NOMEM;
    fin->runs[0] = (collio__seg){lo, hi - lo, hi - lo, 1, 0};
    fin->nruns = fin->requests = 1;
    return COLLIO_OK;
}

void collio__mp_final_free(collio__mp_final *fin)
{
    free(fin->ops);
    free(fin->runs);
    fin->ops = NULL;
    fin->runs = NULL;
    fin->nops = fin->nruns = 0;
}

/* ------------------------------------------------------- MPI types, descriptors */

/* An MPI type covering n ranges (positions in elements) of a buffer; in
 * bytes, blocks split at COLLIO_MP_MAX_BLOCK elements. *t = MPI_DATATYPE_NULL if the
 * ranges hold nothing. */
int collio__mp_ranges_type(const collio__mp_range *r, int64_t n, size_t esize,
                           MPI_Datatype *t)
{
    *t = MPI_DATATYPE_NULL;
    int64_t nb = 0;
    for (int64_t i = 0; i < n; i++)
        nb += (r[i].n + COLLIO_MP_MAX_BLOCK - 1) / COLLIO_MP_MAX_BLOCK;
    if (nb == 0)
        return COLLIO_OK;
    if (nb > INT32_MAX)
        return COLLIO_ERR_OVERFLOW;
    int *len = malloc((size_t)nb * sizeof *len);
    MPI_Aint *disp = malloc((size_t)nb * sizeof *disp);
    int rc = (len && disp) ? COLLIO_OK : COLLIO_ERR_NOMEM;
    MPI_Datatype el = MPI_DATATYPE_NULL;
    if (rc == COLLIO_OK && MPI_Type_contiguous((int)esize, MPI_BYTE, &el) != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    int64_t j = 0;
    for (int64_t i = 0; i < n && rc == COLLIO_OK; i++)
        for (int64_t o = 0; o < r[i].n; o += COLLIO_MP_MAX_BLOCK) {
            len[j] = (int)(r[i].n - o < COLLIO_MP_MAX_BLOCK ? r[i].n - o
                                                            : COLLIO_MP_MAX_BLOCK);
            disp[j] = (MPI_Aint)((r[i].pos + o) * (int64_t)esize);
            j++;
        }
    if (rc == COLLIO_OK
        && (MPI_Type_create_hindexed((int)nb, len, disp, el, t) != MPI_SUCCESS
            || MPI_Type_commit(t) != MPI_SUCCESS))
        rc = COLLIO_ERR_MPI;
    if (el != MPI_DATATYPE_NULL)
        MPI_Type_free(&el);
    free(len);
    free(disp);
    return rc;
}

/* The descriptors desc[q] to every peer q (records of the 5 int64 of a
 * collio__seg), through the library's sparse all-to-all. */
int collio__mp_swap_desc(collio_plan *p, const collio__segvec *desc, int rc,
                         collio__seg **in, int *in_at)
{
    _Static_assert(sizeof(collio__seg) == 5 * sizeof(int64_t), "a seg is 5 int64");
    const int P = p->nranks;
    int *sc = malloc((size_t)P * 3 * sizeof *sc);
    collio__seg *out = NULL;
    int64_t tot_out = 0, nrecv = 0;
    if (sc == NULL && rc == COLLIO_OK)
        rc = COLLIO_ERR_NOMEM;
    for (int q = 0; rc == COLLIO_OK && q < P; q++) {
        if (desc[q].n > INT32_MAX || tot_out > INT32_MAX - desc[q].n)
            rc = COLLIO_ERR_OVERFLOW;
        else {
            sc[q] = (int)desc[q].n;
            sc[P + q] = (int)tot_out;
            tot_out += desc[q].n;
        }
    }
    if (rc == COLLIO_OK) {
        out = malloc((size_t)(tot_out > 0 ? tot_out : 1) * sizeof *out);
        if (out == NULL)
            rc = COLLIO_ERR_NOMEM;
    }
    for (int q = 0; rc == COLLIO_OK && q < P; q++)
        if (desc[q].n > 0)
            memcpy(out + sc[P + q], desc[q].v, (size_t)desc[q].n * sizeof *out);
    int64_t *recv = NULL;
    int *rcount = sc != NULL ? sc + 2 * P : NULL;
    /* (on a rank without its arrays the helper still takes part: all-NULL
     * arguments are never read once rc is agreed to have failed) */
    rc = collio__alltoall_records(p->comm, rc, (const int64_t *)out, 5, sc,
                                  sc != NULL ? sc + P : NULL, rcount, in_at, &recv,
                                  &nrecv);
    if (rc == COLLIO_OK)
        in_at[P] = (int)nrecv;
    *in = (collio__seg *)recv;
    free(out);
    free(sc);
    return rc;
}
