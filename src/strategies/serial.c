/*
 * serial.c -- "serial": rank 0 does all file access, in bounded windows.
 *
 * Algorithm. The file [0, nglobal) is cut into windows of W elements,
 * W = max(1, hint serial.chunk_bytes / esize); window w covers [w*W, min((w+1)*W,
 * nglobal)). Inspector (once per plan): every rank cuts its strided
 * segments at window boundaries into "pieces" (collio__seg_clip), grouped
 * by window; rank 0 gathers every rank's segments once and builds the same
 * pieces for every rank, plus per-window element counts. Executor, write:
 * per window, each rank packs its pieces of the window (in piece order) and
 * an MPI_Gatherv brings them to rank 0, which places every piece at its
 * file position in a window buffer (its own pieces straight from its
 * stream) and writes the window with one write_at. Read is the inverse:
 * rank 0 reads the window, packs each rank's pieces, MPI_Scatterv.
 * Rank 0 holds at most one window buffer plus one staging buffer of the
 * other ranks' part of the window (<= 2 * chunk_bytes of file data), plus
 * the descriptors of all ranks' pieces; the buffers stay with the plan
 * between calls under hint plan.keep_buffers (the default): fresh ones
 * would fault in page by page in every call, at several times the cost
 * of the copies into them on a virtual machine.
 *
 * Cost per execution: ceil(nglobal/W) Gatherv (Scatterv) rounds, each rank
 * sends (receives) its nlocal*esize bytes once in total; rank 0 issues one
 * file request per window (nglobal*esize bytes); other ranks none.
 *
 * Source: the applications' original code in seeds 000 (mesh simulator
 * output) and 001 (STEM-II: gather on the master, which writes).
 */
#include "base/base.h"
#include "machine/machine.h"
#include "layouts/layouts.h"
#include "options/options.h"
#include "files/files.h"
#include "core/core.h"

#include <limits.h>
#include <math.h>
#include <string.h>

/* Pieces of one rank grouped by window: window w's are
 * pieces[start[w] .. start[w+1]). */
typedef struct winlist {
    collio__seg *pieces;
    int64_t *start; /* nwin + 1 entries */
} winlist;

typedef struct serial_plan {
    int64_t W, nwin;
    MPI_Datatype elem; /* esize contiguous bytes: counts are in elements */
    winlist mine;
    int64_t max_mine; /* largest element count of mine in one window */
    /* rank 0 only: */
    winlist *all;       /* [nranks]; all[0] unused (== mine) */
    int *counts;        /* [nwin * nranks]: elements of rank r in window w */
    int64_t max_others; /* largest sum of other ranks' counts in a window */
    /* work buffers of an execution, kept between calls under hint
     * plan.keep_buffers (NULL until first used): rank 0's window and
     * staging buffer and the Gatherv displacements, the others' packed
     * pieces of one window */
    char *win, *stage, *mbuf;
    int *displs;
} serial_plan;

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* Calls of the window walk: pass 0 counts pieces per window, pass 1
 * stores them. Windows with no element of s are skipped in O(1). */
static void walk_seg(const collio__seg *s, int64_t W, int64_t nglobal, int pass,
                     int64_t *cnt, int64_t *cursor, collio__seg *pieces)
{
    int64_t w = s->off / W;
    for (;;) {
        int64_t lo = w * W, hi = min64(lo + W, nglobal);
        collio__seg out[3];
        int n = collio__seg_clip(s, lo, hi, out);
        for (int j = 0; j < n; j++) {
            if (pass == 0)
                cnt[w + 1]++;
            else
                pieces[cursor[w]++] = out[j];
        }
        if (hi >= nglobal)
            return;
        /* First block ending after hi: block k ends at off+k*stride+len. */
        int64_t k;
        if (s->count == 1)
            k = s->off + s->len > hi ? 0 : 1;
        else
            k = hi - s->off - s->len < 0 ? 0 : (hi - s->off - s->len) / s->stride + 1;
        if (k >= s->count)
            return;
        int64_t first = s->off + k * s->stride;
        w = (first > hi ? first : hi) / W;
    }
}

static int winlist_build(const collio__seg *segs, int64_t nsegs, int64_t W,
                         int64_t nglobal, int64_t nwin, winlist *out)
{
    out->start = calloc((size_t)nwin + 1, sizeof *out->start);
    int64_t *cursor = malloc(((size_t)nwin + 1) * sizeof *cursor);
    if (out->start == NULL || cursor == NULL) {
        free(cursor);
        return COLLIO_ERR_NOMEM;
    }
    for (int64_t i = 0; i < nsegs; i++)
        walk_seg(&segs[i], W, nglobal, 0, out->start, NULL, NULL);
    for (int64_t w = 0; w < nwin; w++)
        out->start[w + 1] += out->start[w];
    out->pieces = malloc((size_t)(out->start[nwin] > 0 ? out->start[nwin] : 1)
                         * sizeof *out->pieces);
    if (out->pieces == NULL) {
        free(cursor);
        return COLLIO_ERR_NOMEM;
    }
    memcpy(cursor, out->start, ((size_t)nwin + 1) * sizeof *cursor);
    for (int64_t i = 0; i < nsegs; i++)
        walk_seg(&segs[i], W, nglobal, 1, NULL, cursor, out->pieces);
    free(cursor);
    return COLLIO_OK;
}

static void winlist_free(winlist *wl)
{
    free(wl->pieces);
    free(wl->start);
    wl->pieces = NULL;
    wl->start = NULL;
}

/* Elements of window w in wl. */
static int64_t winlist_count(const winlist *wl, int64_t w)
{
    int64_t n = 0;
    for (int64_t i = wl->start[w]; i < wl->start[w + 1]; i++)
        n += wl->pieces[i].len * wl->pieces[i].count;
    return n;
}

/* Rank 0 receives every other rank's segments (point to point: counts are
 * per rank, so no int displacement limits the total) and builds their
 * pieces. rc is this rank's state so far; the receive buffers are
 * allocated and agreed on before any segment moves, so a failure never
 * leaves a message unmatched. Collective; starts with one collio__agree
 * (all ranks leave after it when it fails); returns a local code. */
static int gather_and_build(collio_plan *p, serial_plan *sp, int rc)
{
    const collio_layout *l = p->layout;
    int P = p->nranks;
    int64_t mine = l->nsegs;
    if (mine > INT_MAX)
        rc = COLLIO_ERR_OVERFLOW;
    int64_t *nsegs = NULL;
    collio__seg **segs = NULL;
    if (p->rank == 0) {
        nsegs = calloc((size_t)P, sizeof *nsegs);
        segs = calloc((size_t)P, sizeof *segs);
        sp->all = calloc((size_t)P, sizeof *sp->all);
        sp->counts = calloc((size_t)sp->nwin * (size_t)P + 1, sizeof *sp->counts);
        if (!nsegs || !segs || !sp->all || !sp->counts)
            rc = COLLIO_ERR_NOMEM;
    }
    /* The first agree: on failure every rank leaves here, together. */
    rc = collio__agree(p->comm, rc);
    if (rc != COLLIO_OK)
        goto done;
    /* the plan's communicator returns MPI errors: every call is checked */
    if (MPI_Gather(&mine, 1, MPI_INT64_T, nsegs, 1, MPI_INT64_T, 0, p->comm)
        != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    for (int r = 1; r < P && nsegs != NULL && rc == COLLIO_OK; r++) {
        if (nsegs[r] > INT_MAX)
            rc = COLLIO_ERR_OVERFLOW;
        else if ((segs[r] = malloc((size_t)(nsegs[r] > 0 ? nsegs[r] : 1) * sizeof **segs))
                 == NULL)
            rc = COLLIO_ERR_NOMEM;
    }
    rc = collio__agree(p->comm, rc);
    if (rc == COLLIO_OK) {
        MPI_Datatype segtype;
        MPI_Type_contiguous(5, MPI_INT64_T, &segtype); /* one collio__seg */
        MPI_Type_commit(&segtype);
        if (p->rank != 0) {
            if (MPI_Send(l->segs, (int)mine, segtype, 0, 0, p->comm) != MPI_SUCCESS)
                rc = COLLIO_ERR_MPI;
        } else {
            for (int r = 1; r < P; r++) /* one message per rank, in order */
                if (MPI_Recv(segs[r], (int)nsegs[r], segtype, r, 0, p->comm,
                             MPI_STATUS_IGNORE)
                    != MPI_SUCCESS)
                    rc = COLLIO_ERR_MPI;
        }
        MPI_Type_free(&segtype);
    }
    for (int r = 1; r < P && p->rank == 0 && rc == COLLIO_OK; r++) {
        rc = winlist_build(segs[r], nsegs[r], sp->W, l->nglobal, sp->nwin, &sp->all[r]);
        free(segs[r]);
        segs[r] = NULL;
    }
    for (int64_t w = 0; p->rank == 0 && w < sp->nwin && rc == COLLIO_OK; w++) {
        int64_t others = 0;
        for (int r = 1; r < P; r++) {
            int64_t c = winlist_count(&sp->all[r], w);
            sp->counts[w * P + r] = (int)c; /* c <= W <= INT_MAX */
            others += c;
        }
        if (others > sp->max_others)
            sp->max_others = others;
    }
done:
    if (segs != NULL)
        for (int r = 1; r < P; r++)
            free(segs[r]);
    free(segs);
    free(nsegs);
    return rc;
}

/* The execution's work buffers (allocated where missing): their sizes
 * counted into work_bytes; COLLIO_ERR_NOMEM if one is missing. Local. */
static int work_buffers(collio_plan *p, serial_plan *sp)
{
    const collio_layout *l = p->layout;
    size_t es = l->esize;
    if (p->rank == 0) {
        size_t win = (size_t)min64(sp->W, l->nglobal > 0 ? l->nglobal : 1) * es;
        size_t stage = (size_t)(sp->max_others > 0 ? sp->max_others : 1) * es;
        if (sp->win == NULL)
            sp->win = collio__bigbuf_alloc(win);
        if (sp->stage == NULL)
            sp->stage = collio__bigbuf_alloc(stage);
        if (sp->displs == NULL)
            sp->displs = calloc((size_t)p->nranks, sizeof *sp->displs);
        p->stats.work_bytes += (int64_t)(win + stage);
        return sp->win && sp->stage && sp->displs ? COLLIO_OK : COLLIO_ERR_NOMEM;
    }
    size_t mine = (size_t)(sp->max_mine > 0 ? sp->max_mine : 1) * es;
    if (sp->mbuf == NULL)
        sp->mbuf = collio__bigbuf_alloc(mine);
    p->stats.work_bytes += (int64_t)mine;
    return sp->mbuf != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM;
}

static void release_buffers(serial_plan *sp)
{
    collio__bigbuf_free(sp->win);
    collio__bigbuf_free(sp->stage);
    collio__bigbuf_free(sp->mbuf);
    free(sp->displs);
    sp->win = sp->stage = sp->mbuf = NULL;
    sp->displs = NULL;
}

static void serial_free(collio_plan *p)
{
    serial_plan *sp = p->impl;
    if (sp == NULL)
        return;
    release_buffers(sp);
    if (sp->elem != MPI_DATATYPE_NULL)
        MPI_Type_free(&sp->elem);
    winlist_free(&sp->mine);
    if (sp->all != NULL)
        for (int r = 1; r < p->nranks; r++)
            winlist_free(&sp->all[r]);
    free(sp->all);
    free(sp->counts);
    free(sp);
    p->impl = NULL;
}

/* The strategy's options (hints "serial.NAME"). chunk_bytes' default,
 * 4 MiB: rank 0's kept buffers stay small (8 MiB at most), and a window
 * is large enough that its one request costs little beside its bytes
 * even on a networked file system (about 0.2 ms against 9 ms of
 * GlusterFS bandwidth here); 256 KiB to 64 MiB windows run within 15 %
 * of each other on ext4 (docs/benchmarks.md). */
enum { OPT_CHUNK_BYTES };
static const collio__option serial_options[] = {
    [OPT_CHUNK_BYTES] = {"chunk_bytes", COLLIO__OPT_SIZE, (int64_t)4 << 20, 1, INT64_MAX,
                         NULL, NULL, "bytes per gather (scatter) round at rank 0"},
};

static int serial_plan_create(collio_plan *p)
{
    const collio_layout *l = p->layout;
    serial_plan *sp = calloc(1, sizeof *sp);
    p->impl = sp;
    int rc = sp != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM;
    if (rc == COLLIO_OK) {
        sp->elem = MPI_DATATYPE_NULL;
        /* W elements per window; W <= INT_MAX keeps every MPI count and
         * displacement of a round (in elements) inside an int. */
        sp->W = collio__opt(p, OPT_CHUNK_BYTES) / (int64_t)l->esize;
        if (sp->W < 1)
            sp->W = 1;
        if (sp->W > INT_MAX)
            sp->W = INT_MAX;
        sp->nwin = l->nglobal / sp->W + (l->nglobal % sp->W != 0);
        if (l->esize > INT_MAX)
            rc = COLLIO_ERR_OVERFLOW;
    }
    if (rc == COLLIO_OK) {
        if (MPI_Type_contiguous((int)l->esize, MPI_BYTE, &sp->elem) != MPI_SUCCESS
            || MPI_Type_commit(&sp->elem) != MPI_SUCCESS)
            rc = COLLIO_ERR_MPI;
    }
    if (rc == COLLIO_OK)
        rc = winlist_build(l->segs, l->nsegs, sp->W, l->nglobal, sp->nwin, &sp->mine);
    if (rc == COLLIO_OK)
        for (int64_t w = 0; w < sp->nwin; w++) {
            int64_t c = winlist_count(&sp->mine, w);
            if (c > sp->max_mine)
                sp->max_mine = c;
        }
    /* gather_and_build starts with an agree on rc; a rank without sp
     * takes part in that one agree, which then fails everywhere. */
    if (sp == NULL)
        return collio__agree(p->comm, rc);
    rc = gather_and_build(p, sp, rc);
    {
        int64_t bytes = (int64_t)sizeof *sp;
        for (int r = 0; r < p->nranks; r++) {
            const winlist *wl =
                r == 0 ? &sp->mine : (sp->all != NULL ? &sp->all[r] : NULL);
            if (wl != NULL && wl->start != NULL)
                bytes += wl->start[sp->nwin] * (int64_t)sizeof(collio__seg)
                         + (sp->nwin + 1) * (int64_t)sizeof(int64_t);
        }
        if (sp->counts != NULL)
            bytes += sp->nwin * p->nranks * (int64_t)sizeof(int);
        p->stats.plan_bytes = bytes;
    }
    return rc;
}

/* Copies between a window buffer (file elements from lo) and the other
 * side of pieces[0..n): the stream at each piece's position (lin == NULL)
 * or a linear buffer walked in piece order. to_win gives the direction. */
static void copy_pieces(const collio__seg *pc, int64_t n, size_t es, int64_t lo,
                        char *win, char *stream, char *lin, int to_win)
{
    for (int64_t i = 0; i < n; i++) {
        const collio__seg *s = &pc[i];
        size_t blk = (size_t)s->len * es;
        char *other = lin != NULL ? lin : stream + (size_t)s->mem * es;
        for (int64_t k = 0; k < s->count; k++) {
            char *w = win + (size_t)(s->off + k * s->stride - lo) * es;
            if (to_win)
                collio__copy(w, other, blk);
            else
                collio__copy(other, w, blk);
            other += blk;
        }
        if (lin != NULL)
            lin = other;
    }
}

/* Stream <-> linear buffer, pieces in order (a piece is contiguous in the
 * stream: its blocks are consecutive there). */
static void stream_lin(const collio__seg *pc, int64_t n, size_t es, char *stream,
                       char *lin, int to_lin)
{
    for (int64_t i = 0; i < n; i++) {
        size_t bytes = (size_t)(pc[i].len * pc[i].count) * es;
        char *s = stream + (size_t)pc[i].mem * es;
        if (to_lin)
            collio__copy(lin, s, bytes);
        else
            collio__copy(s, lin, bytes);
        lin += bytes;
    }
}

/* Rank 0: file access of window [lo, hi) (elements). */
static int window_io(collio_plan *p, collio_file *f, int64_t lo, int64_t hi, char *win,
                     int writing)
{
    size_t es = p->layout->esize;
    double t0 = collio__now();
    int rc = writing
                 ? collio__file_write_at(f, lo * (int64_t)es, win, (size_t)(hi - lo) * es)
                 : collio__file_read_at(f, lo * (int64_t)es, win, (size_t)(hi - lo) * es);
    p->stats.file_s += collio__now() - t0;
    p->stats.file_requests += 1;
    p->stats.file_bytes += (hi - lo) * (int64_t)es;
    return rc;
}

/* Both directions share the window loop. Once the buffers are agreed on,
 * every rank runs every round: a failed file access on rank 0 is
 * remembered, never a reason to skip a round the others wait in. */
static int serial_exec(collio_plan *p, collio_file *f, char *stream, int writing)
{
    serial_plan *sp = p->impl;
    const collio_layout *l = p->layout;
    size_t es = l->esize;
    int P = p->nranks, root = p->rank == 0;
    int rc = work_buffers(p, sp);
    char *win = sp->win, *stage = sp->stage, *mbuf = sp->mbuf;
    int *displs = sp->displs;
    double t0 = collio__now();
    rc = collio__agree(p->comm, rc);
    p->stats.exchange_s += collio__now() - t0;
    int64_t nwin = rc == COLLIO_OK ? sp->nwin : 0;
    for (int64_t w = 0; w < nwin; w++) {
        int64_t lo = w * sp->W, hi = min64(lo + sp->W, l->nglobal);
        const collio__seg *pc = sp->mine.pieces + sp->mine.start[w];
        int64_t npc = sp->mine.start[w + 1] - sp->mine.start[w];
        int *counts = root ? sp->counts + w * P : NULL;
        int64_t others = 0;
        for (int r = 0; root && r < P; r++) {
            displs[r] = (int)others;
            others += counts[r];
        }
        int mycount = root ? 0 : (int)winlist_count(&sp->mine, w);
        int frc = COLLIO_OK;
        if (!writing && root)
            frc = window_io(p, f, lo, hi, win, 0);
        double tx = collio__now();
        if (writing) {
            if (!root)
                stream_lin(pc, npc, es, stream, mbuf, 1);
            if (MPI_Gatherv(mbuf, mycount, sp->elem, stage, counts, displs, sp->elem, 0,
                            p->comm)
                != MPI_SUCCESS)
                rc = COLLIO_ERR_MPI;
            if (root)
                copy_pieces(pc, npc, es, lo, win, stream, NULL, 1);
        }
        for (int r = 1; root && r < P; r++) {
            const winlist *wl = &sp->all[r];
            copy_pieces(wl->pieces + wl->start[w], wl->start[w + 1] - wl->start[w], es,
                        lo, win, NULL, stage + (size_t)displs[r] * es, writing);
        }
        if (!writing) {
            if (MPI_Scatterv(stage, counts, displs, sp->elem, mbuf, mycount, sp->elem, 0,
                             p->comm)
                != MPI_SUCCESS)
                rc = COLLIO_ERR_MPI;
            if (root)
                copy_pieces(pc, npc, es, lo, win, stream, NULL, 0);
            else
                stream_lin(pc, npc, es, stream, mbuf, 0);
        }
        p->stats.exchange_s += collio__now() - tx;
        p->stats.messages += 1;
        if (root && !writing)
            p->stats.bytes_sent += others * (int64_t)es;
        if (!root && writing)
            p->stats.bytes_sent += mycount * (int64_t)es;
        if (writing && root)
            frc = window_io(p, f, lo, hi, win, 1);
        if (frc != COLLIO_OK && rc == COLLIO_OK)
            rc = frc;
    }
    if (!collio__plan_opt(p, COLLIO__PLAN_KEEP_BUFFERS))
        release_buffers(sp);
    return rc;
}

static int serial_write(collio_plan *p, collio_file *f, const char *stream)
{
    /* the stream is only read when writing */
    return serial_exec(p, f, (char *)stream, 1);
}

static int serial_read(collio_plan *p, collio_file *f, char *stream)
{
    return serial_exec(p, f, stream, 0);
}

/* As a candidate of auto (machine/cost.h): rank 0 receives every other
 * rank's bytes, places every piece, and writes alone: P messages +
 * (pieces_total * piece + request) * cpu (the waiting ranks of its node
 * poll for their share of the cores) + its bytes: bytes_total *
 * the term serial.byte as calibrated (rank 0's whole work on them in a large
 * call -- gather, copies, the file --, not scaled by the node's
 * oversubscription: one process's work, while the others wait, took the
 * same at 3, 4 and 8 ranks on 2 cores), or where more the off-node bytes
 * over its node's link and the file's; not calibrated, (bytes over its
 * link + bytes_total / copy) * cpu + bytes_total / file_Bps. */
static double serial_terms(const collio__cost *m, const collio__cost_shape *s, int arg)
{
    (void)arg;
    const double per_byte = collio__cost_term(m, "serial.byte");
    double into0 = s->bytes_total - s->bytes_total / m->nranks;
    double bytes = per_byte > 0 ? fmax(s->bytes_total * per_byte,
                                       into0 * m->off / m->bw1 + m->file_bytes)
                                : (into0 * ((1 - m->off) / m->bw0 + m->off / m->bw1)
                                   + s->bytes_total / m->copy)
                                          * m->cpu
                                      + m->file_bytes;
    return m->nranks * m->lat + (s->pieces_total * m->piece + m->req) * m->cpu + bytes;
}

/* The calibration's terms it owns: its smallest call; per byte of the
 * file beyond it, rank 0's whole work on a large call's bytes (gather,
 * copies, the file), measured on call_ranks_per_node ranks per node (the
 * others of rank 0's node share its cores). */
static const char *const serial_terms_owned[] = {"serial.call", "serial.byte", NULL};

/* Collective: "serial.byte" -- calls of the kit's large bytes in all, one
 * contiguous piece per rank, write and read by turns, less the smallest
 * call's time just measured ("serial.call"), per byte. */
static int serial_measure(const collio__measure_kit *k)
{
    int64_t n = k->big_bytes / (int64_t)sizeof(float) / k->size;
    n = n > 0 ? n : 1;
    collio_layout *l = NULL;
    collio_plan *plan = NULL;
    const size_t each = (size_t)n * sizeof(float);
    unsigned char *v = malloc(each);
    int rc = v != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, k->comm);
    if (rc == COLLIO_OK)
        rc = collio_layout_block_cyclic(k->comm, n * k->size, n, sizeof(float), &l);
    if (rc == COLLIO_OK)
        rc = collio_plan_create(k->comm, l, "serial", NULL, &plan);
    enum { MOST = 64 };
    const int reps = k->reps < MOST ? k->reps : MOST;
    double tw[1 + MOST], tr[1 + MOST]; /* [0]: untimed */
    for (int i = 0; i < 1 + reps && rc == COLLIO_OK; i++)
        rc = k->time_pair(k, plan, v, each, &tw[i], &tr[i]);
    if (rc == COLLIO_OK) {
        const double b = (double)each * k->size;
        const collio_cost_term *call = collio_fs_costs_term(k->fs, "serial.call");
        const double cw = call != NULL ? call->write_s : 0,
                     cr = call != NULL ? call->read_s : 0;
        rc = collio_fs_costs_set_term(k->fs, "serial.byte",
                                      fmax(0, collio__cal_median(tw + 1, reps) - cw) / b,
                                      fmax(0, collio__cal_median(tr + 1, reps) - cr) / b);
    }
    collio_plan_free(&plan);
    collio_layout_free(&l);
    free(v);
    return rc;
}

static const collio__candidate serial_candidates[] = {
    {.label = "serial", .floor = "serial", .base = 1, .terms = serial_terms},
};

const collio__strategy collio__strategy_serial = {
    .section = {"serial", serial_options, 1, NULL, 0},
    .summary = "rank 0 gathers (scatters) the data window by window and "
               "does all file access",
    .canonical = 1,
    .plan = serial_plan_create,
    .write = serial_write,
    .read = serial_read,
    .free = serial_free,
    .cost_terms = serial_terms_owned,
    .candidates = serial_candidates,
    .ncandidates = 1,
    .measure = serial_measure,
};
