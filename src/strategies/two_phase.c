/*
 * two_phase.c -- "two_phase": the MPI library's own collective I/O.
 *
 * Algorithm. Inspector (once per plan): an etype of esize contiguous bytes
 * and a filetype listing this rank's elements in increasing file order
 * (byte displacements from the view's disp = base_offset):
 *  - file-ordered layouts with few segments: one hvector per strided
 *    segment (count blocks of len etypes, stride*esize bytes apart),
 *    combined with MPI_Type_create_struct;
 *  - otherwise: the segments flattened to extents, sorted by file offset,
 *    coalesced, as an hindexed type; the memory side is then an hindexed
 *    type over the stream listing the same extents' stream positions in
 *    file order (file-ordered layouts use a contiguous memory type).
 * Every count that MPI takes as an int is bounded: long runs and long
 * lists are built hierarchically (types of types), so nothing silently
 * wraps. Executor: PMPI_File_set_view(disp, etype, filetype, "native") and
 * one MPI_File_write_all / read_all on the file's collective handle. A
 * rank with no data still takes part with count 0.
 *
 * Cost: decided by the MPI library (ROMIO two-phase in MPICH, OMPIO's
 * vulcan/dynamic_gen2 in Open MPI): one all-to-all shuffle to the
 * aggregators per collective buffer round, then large contiguous file
 * requests by the aggregators. Counted here as 1 collective call and 1
 * file request per execution, all of it as file_s (the library mixes
 * exchange and I/O).
 *
 * Source: Thakur, Gropp, Lusk, "Data sieving and collective I/O in ROMIO"
 * (two-phase I/O), and OMPIO; the anchor every seed compares against.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "files/files.h"
#include "core/core.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#define RUN_MAX ((int64_t)1 << 30)   /* etypes in one contiguous piece */
#define GROUP_MAX ((int64_t)1 << 24) /* entries in one struct / hindexed */
#define HVECTOR_SEGS 65536           /* more segments than this: hindexed */

typedef struct tp_plan {
    MPI_Datatype etype, filetype, memtype;
    int count;          /* 1, or 0 for a rank without data */
    int64_t end_bytes;  /* end of this rank's last byte, relative to base */
    int64_t span_bytes; /* the data's end in the file, relative to base */
} tp_plan;

static int mpi_ok(int err)
{
    return err == MPI_SUCCESS ? COLLIO_OK : COLLIO_ERR_MPI;
}

/* n consecutive items of t (extent ext bytes), any n >= 1. */
static int make_contig(int64_t n, MPI_Datatype t, MPI_Aint ext, MPI_Datatype *out)
{
    if (n <= INT_MAX)
        return mpi_ok(MPI_Type_contiguous((int)n, t, out));
    MPI_Datatype run, runs, rest;
    int64_t q = n / RUN_MAX, r = n % RUN_MAX;
    int rc = mpi_ok(MPI_Type_contiguous((int)RUN_MAX, t, &run));
    if (rc != COLLIO_OK)
        return rc;
    rc = mpi_ok(MPI_Type_contiguous((int)q, run, &runs));
    MPI_Type_free(&run);
    if (rc != COLLIO_OK || r == 0) {
        if (rc == COLLIO_OK)
            *out = runs;
        return rc;
    }
    rc = mpi_ok(MPI_Type_contiguous((int)r, t, &rest));
    if (rc == COLLIO_OK) {
        int bl[2] = {1, 1};
        MPI_Aint d[2] = {0, (MPI_Aint)(q * RUN_MAX) * ext};
        MPI_Datatype ts[2] = {runs, rest};
        rc = mpi_ok(MPI_Type_create_struct(2, bl, d, ts, out));
        MPI_Type_free(&rest);
    }
    MPI_Type_free(&runs);
    return rc;
}

/* Struct of n types at absolute byte displacements, any n >= 1: groups of
 * GROUP_MAX entries, then a struct of the groups. Frees types[]. */
static int make_struct(int64_t n, MPI_Datatype *types, MPI_Aint *disps, MPI_Datatype *out)
{
    int rc = COLLIO_OK;
    if (n <= GROUP_MAX) {
        int *bl = malloc((size_t)n * sizeof *bl);
        if (bl == NULL)
            rc = COLLIO_ERR_NOMEM;
        for (int64_t i = 0; rc == COLLIO_OK && i < n; i++)
            bl[i] = 1;
        if (rc == COLLIO_OK)
            rc = mpi_ok(MPI_Type_create_struct((int)n, bl, disps, types, out));
        free(bl);
        for (int64_t i = 0; i < n; i++)
            MPI_Type_free(&types[i]);
        return rc;
    }
    int64_t ng = (n + GROUP_MAX - 1) / GROUP_MAX;
    MPI_Datatype *gt = malloc((size_t)ng * sizeof *gt);
    MPI_Aint *gd = calloc((size_t)ng, sizeof *gd);
    if (gt == NULL || gd == NULL) {
        for (int64_t i = 0; i < n; i++)
            MPI_Type_free(&types[i]);
        free(gt);
        free(gd);
        return COLLIO_ERR_NOMEM;
    }
    int64_t made = 0;
    for (int64_t g = 0; g < ng; g++) {
        int64_t lo = g * GROUP_MAX, m = n - lo < GROUP_MAX ? n - lo : GROUP_MAX;
        if (rc == COLLIO_OK) {
            rc = make_struct(m, types + lo, disps + lo, &gt[g]);
            made += rc == COLLIO_OK;
        } else {
            for (int64_t i = lo; i < lo + m; i++)
                MPI_Type_free(&types[i]);
        }
    }
    if (rc == COLLIO_OK)
        rc = make_struct(ng, gt, gd, out); /* groups at displacement 0 */
    else
        for (int64_t g = 0; g < made; g++)
            MPI_Type_free(&gt[g]);
    free(gt);
    free(gd);
    return rc;
}

/* Filetype of a file-ordered layout: one hvector per strided segment. */
static int filetype_from_segs(const collio_layout *l, MPI_Datatype etype,
                              MPI_Datatype *out)
{
    int64_t es = (int64_t)l->esize, n = 0;
    for (int64_t i = 0; i < l->nsegs; i++)
        n += (l->segs[i].count + INT_MAX - 1) / INT_MAX;
    MPI_Datatype *types = malloc((size_t)n * sizeof *types);
    MPI_Aint *disps = malloc((size_t)n * sizeof *disps);
    int rc = types != NULL && disps != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM;
    int64_t made = 0;
    for (int64_t i = 0; rc == COLLIO_OK && i < l->nsegs; i++) {
        const collio__seg *s = &l->segs[i];
        MPI_Datatype blk = MPI_DATATYPE_NULL;
        rc = make_contig(s->len, etype, (MPI_Aint)es, &blk);
        for (int64_t k = 0; rc == COLLIO_OK && k < s->count; k += INT_MAX) {
            int64_t m = s->count - k < INT_MAX ? s->count - k : INT_MAX;
            disps[made] = (MPI_Aint)((s->off + k * s->stride) * es);
            if (m == 1)
                rc = mpi_ok(MPI_Type_dup(blk, &types[made]));
            else
                rc = mpi_ok(MPI_Type_create_hvector((int)m, 1, (MPI_Aint)(s->stride * es),
                                                    blk, &types[made]));
            made += rc == COLLIO_OK;
        }
        if (blk != MPI_DATATYPE_NULL) /* the hvectors keep what they need */
            MPI_Type_free(&blk);
    }
    if (rc == COLLIO_OK)
        rc = make_struct(made, types, disps, out);
    else
        for (int64_t i = 0; i < made; i++)
            MPI_Type_free(&types[i]);
    free(types);
    free(disps);
    return rc;
}

/* hindexed of n (len, byte disp) pairs of etype: groups of GROUP_MAX;
 * every len <= INT_MAX (the caller splits longer extents). */
static int make_hindexed(int64_t n, const collio__ext *e, int use_mem, int64_t es,
                         MPI_Datatype etype, MPI_Datatype *out)
{
    int64_t ng = (n + GROUP_MAX - 1) / GROUP_MAX;
    int64_t m0 = n < GROUP_MAX ? n : GROUP_MAX;
    int *bl = malloc((size_t)m0 * sizeof *bl);
    MPI_Aint *d = malloc((size_t)m0 * sizeof *d);
    MPI_Datatype *gt = malloc((size_t)ng * sizeof *gt);
    MPI_Aint *gd = calloc((size_t)ng, sizeof *gd);
    int rc = bl && d && gt && gd ? COLLIO_OK : COLLIO_ERR_NOMEM;
    int64_t made = 0;
    for (int64_t g = 0; rc == COLLIO_OK && g < ng; g++) {
        int64_t lo = g * GROUP_MAX, m = n - lo < GROUP_MAX ? n - lo : GROUP_MAX;
        for (int64_t i = 0; i < m; i++) {
            bl[i] = (int)e[lo + i].len;
            d[i] = (MPI_Aint)((use_mem ? e[lo + i].mem : e[lo + i].off) * es);
        }
        rc = mpi_ok(MPI_Type_create_hindexed((int)m, bl, d, etype, &gt[g]));
        made += rc == COLLIO_OK;
    }
    free(bl);
    free(d);
    if (rc == COLLIO_OK && ng == 1) {
        *out = gt[0];
    } else if (rc == COLLIO_OK) {
        rc = make_struct(ng, gt, gd, out);
    } else {
        for (int64_t g = 0; g < made; g++)
            MPI_Type_free(&gt[g]);
    }
    free(gt);
    free(gd);
    return rc;
}

/* Sorted, coalesced extents with every len <= INT_MAX. */
static int sorted_extents(const collio_layout *l, collio__ext **out, int64_t *nout)
{
    collio__ext *e = NULL;
    int64_t n = 0;
    int rc = collio__segs_flatten(l->segs, l->nsegs, &e, &n);
    if (rc != COLLIO_OK)
        return rc;
    collio__exts_sort_by_off(e, n);
    n = collio__exts_coalesce(e, n);
    int64_t extra = 0;
    for (int64_t i = 0; i < n; i++)
        extra += (e[i].len - 1) / INT_MAX;
    if (extra > 0) { /* split runs longer than INT_MAX etypes */
        collio__ext *s = malloc((size_t)(n + extra) * sizeof *s);
        if (s == NULL) {
            free(e);
            return COLLIO_ERR_NOMEM;
        }
        int64_t j = 0;
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = 0; k < e[i].len; k += INT_MAX) {
                int64_t m = e[i].len - k < INT_MAX ? e[i].len - k : INT_MAX;
                s[j++] = (collio__ext){e[i].off + k, m, e[i].mem + k};
            }
        free(e);
        e = s;
        n = j;
    }
    *out = e;
    *nout = n;
    return COLLIO_OK;
}

static int build_types(const collio_layout *l, tp_plan *tp)
{
    int64_t es = (int64_t)l->esize;
    int rc = mpi_ok(MPI_Type_contiguous((int)l->esize, MPI_BYTE, &tp->etype));
    if (rc == COLLIO_OK)
        rc = mpi_ok(MPI_Type_commit(&tp->etype));
    if (rc != COLLIO_OK)
        return rc;
    MPI_Datatype ft = MPI_DATATYPE_NULL;
    if (l->nlocal == 0) {
        /* A view needs a filetype of positive size; nothing is accessed. */
        tp->count = 0;
        rc = mpi_ok(MPI_Type_dup(tp->etype, &ft));
        if (rc == COLLIO_OK)
            rc = mpi_ok(MPI_Type_dup(tp->etype, &tp->memtype));
    } else if (l->file_ordered && l->nsegs <= HVECTOR_SEGS) {
        tp->count = 1;
        rc = filetype_from_segs(l, tp->etype, &ft);
        if (rc == COLLIO_OK)
            rc = make_contig(l->nlocal, tp->etype, (MPI_Aint)es, &tp->memtype);
    } else {
        tp->count = 1;
        collio__ext *e = NULL;
        int64_t n = 0;
        rc = sorted_extents(l, &e, &n);
        if (rc == COLLIO_OK)
            rc = make_hindexed(n, e, 0, es, tp->etype, &ft);
        if (rc == COLLIO_OK && l->file_ordered)
            rc = make_contig(l->nlocal, tp->etype, (MPI_Aint)es, &tp->memtype);
        else if (rc == COLLIO_OK)
            rc = make_hindexed(n, e, 1, es, tp->etype, &tp->memtype);
        free(e);
    }
    if (rc == COLLIO_OK) {
        /* lb 0, extent = the whole data: the view never tiles into it. */
        MPI_Aint ext = (MPI_Aint)(l->nglobal > 0 ? l->nglobal * es : es);
        rc = mpi_ok(MPI_Type_create_resized(ft, 0, ext, &tp->filetype));
    }
    if (ft != MPI_DATATYPE_NULL)
        MPI_Type_free(&ft);
    if (rc == COLLIO_OK)
        rc = mpi_ok(MPI_Type_commit(&tp->filetype));
    if (rc == COLLIO_OK)
        rc = mpi_ok(MPI_Type_commit(&tp->memtype));
    return rc;
}

static void tp_free(collio_plan *p)
{
    tp_plan *tp = p->impl;
    if (tp == NULL)
        return;
    if (tp->etype != MPI_DATATYPE_NULL)
        MPI_Type_free(&tp->etype);
    if (tp->filetype != MPI_DATATYPE_NULL)
        MPI_Type_free(&tp->filetype);
    if (tp->memtype != MPI_DATATYPE_NULL)
        MPI_Type_free(&tp->memtype);
    free(tp);
    p->impl = NULL;
}

/* The view is built from where the data lies in the file: for a sparse
 * layout (collio_layout_extents) its segments split at the holes. */
static int file_layout(const collio_layout *l, collio_layout *fl, collio__segvec *sv)
{
    *fl = *l;
    if (l->holes == NULL)
        return COLLIO_OK;
    int rc = collio__layout_file_segs(l, sv);
    fl->segs = sv->v;
    fl->nsegs = sv->n;
    fl->nglobal = l->holes->span;
    fl->holes = NULL;
    return rc == COLLIO_OK ? collio__layout_finish(fl) : rc;
}

static int tp_plan_layout(collio_plan *p, const collio_layout *l);

static int tp_plan_create(collio_plan *p)
{
    collio_layout fl;
    collio__segvec sv = {0};
    int rc = file_layout(p->layout, &fl, &sv);
    if (rc == COLLIO_OK)
        rc = tp_plan_layout(p, &fl);
    collio__segvec_free(&sv);
    return rc;
}

static int tp_plan_layout(collio_plan *p, const collio_layout *l)
{
    tp_plan *tp = calloc(1, sizeof *tp);
    p->impl = tp;
    if (tp == NULL)
        return COLLIO_ERR_NOMEM;
    tp->etype = tp->filetype = tp->memtype = MPI_DATATYPE_NULL;
    int64_t data;
    if (l->esize > INT_MAX || collio__mul_i64(l->nglobal, (int64_t)l->esize, &data) != 0
        || data > (int64_t)(((uint64_t)1 << (8 * sizeof(MPI_Aint) - 1)) - 1))
        return COLLIO_ERR_OVERFLOW;
    for (int64_t i = 0; i < l->nsegs; i++) {
        const collio__seg *s = &l->segs[i];
        int64_t end = (s->off + (s->count - 1) * s->stride + s->len) * (int64_t)l->esize;
        if (end > tp->end_bytes)
            tp->end_bytes = end;
    }
    tp->span_bytes = l->nglobal * (int64_t)l->esize; /* checked above */
    p->stats.plan_bytes = (int64_t)sizeof *tp;
    return build_types(l, tp);
}

/* Collective. Sparse data (holes between the ranks' extents): the file
 * reaches the data's end before MPI writes. Open MPI's OMPIO (fcoll
 * vulcan, dynamic_gen2) aggregates across the holes with a read of the
 * span first; beyond the end of the file that read returns nothing and the
 * holes get the aggregation buffer's leftover bytes instead of zeros
 * (ROMIO's, and OMPIO's other fcoll components, are right). Extending the
 * file first -- no data written, a sparse file -- makes that read return
 * the zeros a hole must keep. Rank 0; agreed. */
static int extend_for_holes(collio_plan *p, collio_file *f, int64_t end)
{
    int rc = COLLIO_OK;
    int64_t size = 0;
    if (p->rank == 0 && collio__file_size(f, &size) == COLLIO_OK && size < end
        && truncate(collio__file_data_path(f), (off_t)end) != 0) {
        rc = COLLIO_ERR_IO;
        collio__error_set(rc, "extending %s to %lld bytes: %s", collio__file_data_path(f),
                          (long long)end, strerror(errno));
    }
    return collio__agree(p->comm, rc);
}

static int tp_exec(collio_plan *p, collio_file *f, char *stream, int writing)
{
    tp_plan *tp = p->impl;
    double t0 = collio__now();
    MPI_File fh;
    /* Collective; the file layer agrees on its result. */
    int rc = collio__file_collective_handle(f, &fh);
    if (rc == COLLIO_OK && writing && p->layout->holes != NULL)
        rc = extend_for_holes(p, f, collio__file_data_start(f) + tp->span_bytes);
    if (rc != COLLIO_OK)
        return rc;
    char native[] = "native";
    int count = tp->count;
    if (PMPI_File_set_view(fh, (MPI_Offset)collio__file_data_start(f), tp->etype,
                           tp->filetype, native, collio__file_info(f))
        != MPI_SUCCESS) {
        rc = COLLIO_ERR_IO;
        count = 0; /* still take part in the collective below */
    }
    MPI_Status st;
    memset(&st, 0, sizeof st);
    int err = writing ? PMPI_File_write_all(fh, stream, count, tp->memtype, &st)
                      : PMPI_File_read_all(fh, stream, count, tp->memtype, &st);
    const char *call = writing ? "MPI_File_write_all" : "MPI_File_read_all";
    if (err != MPI_SUCCESS && rc == COLLIO_OK) {
        rc = COLLIO_ERR_IO;
        char msg[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        MPI_Error_string(err, msg, &len);
        collio__error_set(rc, "%s on %s: %s", call, collio__file_data_path(f), msg);
    }
    if (rc == COLLIO_OK && count > 0) {
        /* all bytes moved? (a read short of them met the end of file) */
        MPI_Count got = 0;
        if (MPI_Get_elements_x(&st, tp->memtype, &got) != MPI_SUCCESS
            || got != (MPI_Count)(p->layout->nlocal * (int64_t)p->layout->esize)) {
            rc = writing ? COLLIO_ERR_IO : COLLIO_ERR_EOF;
            collio__error_set(rc, "%s on %s moved %lld of %lld bytes", call,
                              collio__file_data_path(f), (long long)got,
                              (long long)(p->layout->nlocal * (int64_t)p->layout->esize));
        }
    }
#ifdef OPEN_MPI
    if (writing) {
        /* Open MPI's OMPIO returns MPI_SUCCESS from write_all even when an
         * aggregator's pwritev failed (EFBIG, ENOSPC; ENOTCONN from a
         * networked file system whose server is unreachable). Guard: once every
         * aggregator is done (the barrier; a non-aggregator may leave
         * write_all before its data is on disk), the file must reach this
         * rank's last byte. This catches a write cut short at the end (full
         * disk, size limit), not a hole mid-file. MPICH's ROMIO reports
         * such errors itself. */
        MPI_Barrier(p->comm);
        p->stats.messages += 1;
        int64_t size = 0;
        if (rc == COLLIO_OK && count > 0
            && (collio__file_size(f, &size) != COLLIO_OK
                || size < collio__file_data_start(f) + tp->end_bytes)) {
            rc = COLLIO_ERR_IO;
            collio__error_set(rc,
                              "MPI_File_write_all left %s short (the disk may be "
                              "full, or the file system failed a write): it ends at "
                              "byte %lld, this rank's data at %lld",
                              collio__file_data_path(f), (long long)size,
                              (long long)(collio__file_data_start(f) + tp->end_bytes));
        }
    }
#endif
    if (rc != COLLIO_OK && writing)
        collio__file_mark_failed(f);
    p->stats.file_s += collio__now() - t0;
    p->stats.messages += 1;
    p->stats.file_requests += 1;
    p->stats.file_bytes += p->layout->nlocal * (int64_t)p->layout->esize;
    return rc;
}

static int tp_write(collio_plan *p, collio_file *f, const char *stream)
{
    /* MPI-IO takes a non-const buffer in MPI-2 era headers */
    return tp_exec(p, f, (char *)stream, 1);
}

static int tp_read(collio_plan *p, collio_file *f, char *stream)
{
    return tp_exec(p, f, stream, 0);
}

/* As a candidate of auto (machine/cost.h): the MPI library's collective
 * I/O, measured per piece, per call and per byte: pieces_max *
 * mpiio_piece * cpu + mpiio_call + bytes_total / file_Bps + its bytes
 * (collio__cost_mpiio_data: bytes_max * mpiio_byte * cpu, or an exchange
 * of bytes_max with P - 1 messages where that is more). mpiio_call: what
 * a call costs beyond its pieces -- file domains, rounds, the file
 * system's locks: 0 on this machine's ext4, about 1 ms on GlusterFS. */
static double tp_terms(const collio__cost *m, const collio__cost_shape *s, int arg)
{
    (void)arg;
    return s->pieces_max * m->mpiio * m->cpu + m->mpiio_call + m->file_bytes
           + collio__cost_mpiio_data(m, s->bytes_max, m->nranks - 1);
}

static const collio__candidate tp_candidates[] = {
    {.label = "two_phase", .floor = "two_phase", .base = 1, .terms = tp_terms},
};

const collio__strategy collio__strategy_two_phase = {
    .section = {"two_phase", NULL, 0, NULL, 0},
    .summary = "the MPI library's collective I/O: file view from a derived "
               "datatype + MPI_File_write_all / read_all",
    .canonical = 1,
    .mpi_collective = 1,
    .plan = tp_plan_create,
    .write = tp_write,
    .read = tp_read,
    .free = tp_free,
    .cost_terms = (const char *const[]){"two_phase.call", NULL},
    .candidates = tp_candidates,
    .ncandidates = 1,
};
