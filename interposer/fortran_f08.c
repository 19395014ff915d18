/*
 * fortran_f08.c -- the C half of fortran_f08.f90 (`use mpi_f08` under
 * MPICH): a collective data call with its buffer as a C descriptor
 * (ISO_Fortran_binding.h), converted and handed to wrappers.c's
 * MPI_File_* like fortran.c's mpif.h entry points are.
 *
 * Conversions, as MPICH's own f08 routines make them:
 *  - handles: the mpif.h integers (MPI_File_f2c, MPI_Type_f2c);
 *  - the buffer: the descriptor's address; MPI_BOTTOM where it is
 *    MPICH's f08 MPI_BOTTOM object (MPIR_F08_MPI_BOTTOM); an array
 *    section that is not contiguous is packed into a contiguous copy in
 *    array element order, the sequence of elements the call's count and
 *    datatype then describe (MPI 3.1 sec. 17.1.12), and unpacked after a
 *    read. A split collective keeps its copy until its _end, which MPI
 *    calls with the same buffer (one split collective per file at a time);
 *  - the status: MPICH's MPI_F08_status holds the C MPI_Status's fields in
 *    the same order, copied field by field; MPI_STATUS_IGNORE is MPICH's
 *    object MPIR_F08_MPI_STATUS_IGNORE_OBJ (found with dlsym, as
 *    fortran.c finds the mpif.h ones: the library stays loadable into
 *    programs without libmpichfort).
 */
#include "cmio.h"

#if defined(MPICH)

#include <ISO_Fortran_binding.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* The data calls, as fortran_f08.f90 numbers them (module cmio_f08_c). */
enum f08_op {
    F08_WRITE_ALL = 1,
    F08_WRITE_AT_ALL,
    F08_READ_ALL,
    F08_READ_AT_ALL,
    F08_WRITE_ALL_BEGIN,
    F08_WRITE_ALL_END,
    F08_WRITE_AT_ALL_BEGIN,
    F08_WRITE_AT_ALL_END,
    F08_READ_ALL_BEGIN,
    F08_READ_ALL_END,
    F08_READ_AT_ALL_BEGIN,
    F08_READ_AT_ALL_END,
    F08_IWRITE_ALL,
    F08_IWRITE_AT_ALL,
    F08_IREAD_ALL,
    F08_IREAD_AT_ALL
};

/* What each call is, by its number: a read, a split collective's _begin
 * (count and datatype, no status), its _end (status only). */
static const struct {
    char reading, begin, end;
} f08_kind[] = {
    [F08_WRITE_ALL] = {0, 0, 0},          [F08_WRITE_AT_ALL] = {0, 0, 0},
    [F08_READ_ALL] = {1, 0, 0},           [F08_READ_AT_ALL] = {1, 0, 0},
    [F08_WRITE_ALL_BEGIN] = {0, 1, 0},    [F08_WRITE_ALL_END] = {0, 0, 1},
    [F08_WRITE_AT_ALL_BEGIN] = {0, 1, 0}, [F08_WRITE_AT_ALL_END] = {0, 0, 1},
    [F08_READ_ALL_BEGIN] = {1, 1, 0},     [F08_READ_ALL_END] = {1, 0, 1},
    [F08_READ_AT_ALL_BEGIN] = {1, 1, 0},  [F08_READ_AT_ALL_END] = {1, 0, 1},
    [F08_IWRITE_ALL] = {0, 0, 0},         [F08_IWRITE_AT_ALL] = {0, 0, 0},
    [F08_IREAD_ALL] = {1, 0, 0},          [F08_IREAD_AT_ALL] = {1, 0, 0},
};

static void *f08_bottom, *f08_status_ignore;
static int f08_looked;

static void f08_init(void)
{
    if (!f08_looked) {
        f08_bottom = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_BOTTOM");
        f08_status_ignore = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_STATUS_IGNORE_OBJ");
        f08_looked = 1;
    }
}

/* The C address of a buffer descriptor's data: MPI_BOTTOM where it is
 * MPICH's f08 MPI_BOTTOM object. */
static void *f08_addr(const CFI_cdesc_t *buf)
{
    void *addr = buf->base_addr;
    return addr != NULL && f08_bottom != NULL && addr == f08_bottom ? MPI_BOTTOM : addr;
}

/* Elements of a descriptor's array (1 for a scalar). */
static size_t f08_elements(const CFI_cdesc_t *d)
{
    size_t n = 1;
    for (int i = 0; i < d->rank; i++)
        n *= d->dim[i].extent > 0 ? (size_t)d->dim[i].extent : 0;
    return n;
}

/* A noncontiguous array <-> its elements packed, in array element order
 * (the first subscript fastest). */
static void f08_copy(const CFI_cdesc_t *d, char *packed, int to_packed)
{
    const size_t n = f08_elements(d), el = d->elem_len;
    CFI_index_t at[CFI_MAX_RANK] = {0};
    for (size_t k = 0; k < n; k++) {
        char *p = d->base_addr;
        for (int i = 0; i < d->rank; i++)
            p += at[i] * d->dim[i].sm;
        if (to_packed)
            memcpy(packed + k * el, p, el);
        else
            memcpy(p, packed + k * el, el);
        for (int i = 0; i < d->rank && ++at[i] == d->dim[i].extent; i++)
            at[i] = 0;
    }
}

/* The packed copies of split collectives between _begin and _end. */
typedef struct f08_split {
    MPI_Fint fh;
    char *packed;
    struct f08_split *next;
} f08_split;
static f08_split *f08_splits;

static void f08_keep(MPI_Fint fh, char *packed)
{
    f08_split *k = malloc(sizeof *k);
    if (k == NULL) { /* the copy is lost to _end: it reads the buffer itself */
        free(packed);
        return;
    }
    *k = (f08_split){fh, packed, f08_splits};
    f08_splits = k;
}

static char *f08_take(MPI_Fint fh)
{
    for (f08_split **k = &f08_splits; *k != NULL; k = &(*k)->next)
        if ((*k)->fh == fh) {
            f08_split *t = *k;
            char *packed = t->packed;
            *k = t->next;
            free(t);
            return packed;
        }
    return NULL;
}

/* The call itself, on the C buffer address. */
static int f08_call(int op, MPI_File fh, MPI_Offset off, void *buf, int count,
                    MPI_Datatype dt, MPI_Status *st)
{
    switch (op) {
    case F08_WRITE_ALL:
        return MPI_File_write_all(fh, buf, count, dt, st);
    case F08_WRITE_AT_ALL:
        return MPI_File_write_at_all(fh, off, buf, count, dt, st);
    case F08_READ_ALL:
        return MPI_File_read_all(fh, buf, count, dt, st);
    case F08_READ_AT_ALL:
        return MPI_File_read_at_all(fh, off, buf, count, dt, st);
    case F08_WRITE_ALL_BEGIN:
        return MPI_File_write_all_begin(fh, buf, count, dt);
    case F08_WRITE_ALL_END:
        return MPI_File_write_all_end(fh, buf, st);
    case F08_WRITE_AT_ALL_BEGIN:
        return MPI_File_write_at_all_begin(fh, off, buf, count, dt);
    case F08_WRITE_AT_ALL_END:
        return MPI_File_write_at_all_end(fh, buf, st);
    case F08_READ_ALL_BEGIN:
        return MPI_File_read_all_begin(fh, buf, count, dt);
    case F08_READ_ALL_END:
        return MPI_File_read_all_end(fh, buf, st);
    case F08_READ_AT_ALL_BEGIN:
        return MPI_File_read_at_all_begin(fh, off, buf, count, dt);
    default:
        return MPI_File_read_at_all_end(fh, buf, st);
    }
}

void cmio_f08_data(int op, const MPI_Fint *fh, int64_t off, CFI_cdesc_t *buf,
                   const MPI_Fint *count, const MPI_Fint *dt, MPI_Fint *status,
                   MPI_Fint *rc);
void cmio_f08_data(int op, const MPI_Fint *fh, int64_t off, CFI_cdesc_t *buf,
                   const MPI_Fint *count, const MPI_Fint *dt, MPI_Fint *status,
                   MPI_Fint *rc)
{
    f08_init();
    const int reading = f08_kind[op].reading, begin = f08_kind[op].begin,
              end = f08_kind[op].end;
    void *addr = f08_addr(buf);
    const int bottom = addr != buf->base_addr; /* (the datatype holds the addresses) */
    char *packed = NULL;
    if (end && !bottom) {
        packed = f08_take(*fh); /* _begin's copy, if it made one */
    } else if (!bottom && addr != NULL && !CFI_is_contiguous(buf)) {
        packed = malloc(f08_elements(buf) * buf->elem_len + 1);
        if (packed == NULL) {
            *rc = MPI_ERR_NO_MEM;
            return;
        }
        if (!reading)
            f08_copy(buf, packed, 1);
    }
    MPI_Status cst;
    MPI_Status *st =
        begin || (f08_status_ignore != NULL && (void *)status == f08_status_ignore)
            ? MPI_STATUS_IGNORE
            : &cst;
    int r =
        f08_call(op, MPI_File_f2c(*fh), (MPI_Offset)off, packed ? packed : addr,
                 end ? 0 : (int)*count, end ? MPI_DATATYPE_NULL : MPI_Type_f2c(*dt), st);
    if (packed != NULL && begin && r == MPI_SUCCESS) {
        f08_keep(*fh, packed); /* MPI may use it until _end */
    } else if (packed != NULL) {
        if (reading && r == MPI_SUCCESS)
            f08_copy(buf, packed, 0);
        free(packed);
    }
    if (r == MPI_SUCCESS && st != MPI_STATUS_IGNORE) {
        MPI_F08_status *f = (MPI_F08_status *)status;
        f->count_lo = cst.count_lo;
        f->count_hi_and_cancelled = cst.count_hi_and_cancelled;
        f->MPI_SOURCE = cst.MPI_SOURCE;
        f->MPI_TAG = cst.MPI_TAG;
        f->MPI_ERROR = cst.MPI_ERROR;
    }
    *rc = r;
}

/* ------------------------------------------------------ non-blocking calls */

/* The non-blocking call itself, on the C buffer address. */
static int f08_istart(int op, MPI_File fh, MPI_Offset off, void *buf, int count,
                      MPI_Datatype dt, MPI_Request *req)
{
    switch (op) {
    case F08_IWRITE_ALL:
        return MPI_File_iwrite_all(fh, buf, count, dt, req);
    case F08_IWRITE_AT_ALL:
        return MPI_File_iwrite_at_all(fh, off, buf, count, dt, req);
    case F08_IREAD_ALL:
        return MPI_File_iread_all(fh, buf, count, dt, req);
    default:
        return MPI_File_iread_at_all(fh, off, buf, count, dt, req);
    }
}

/* A request completed at its start (an array section's access): its
 * status is the bytes the access moved, as MPI's own call's. */
typedef struct f08_done {
    MPI_Count bytes;
    int rc;
} f08_done;

static int f08_done_query(void *extra, MPI_Status *st)
{
    const f08_done *d = extra;
    cmio_status_bytes(st, d->rc == MPI_SUCCESS ? d->bytes : 0);
    return d->rc;
}

static int f08_done_free(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

static int f08_done_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

/*
 * MPI_File_iwrite_all, iwrite_at_all, iread_all, iread_at_all through
 * `use mpi_f08` (fortran_f08.f90): a contiguous buffer (or MPI_BOTTOM) is
 * handed to wrappers.c's entry point as fortran.c's are, and the request
 * it returns is the program's. An array section is packed into a copy,
 * and the access started on it and completed at once (MPI's own wait on
 * the request), the copy unpacked after a read: the same collective call
 * on every rank, whatever each one's buffer, and nothing of the section
 * to keep until a completion this library never sees (MPICH's wait
 * completes the request). The program gets a generalized request,
 * complete, with the access's status and code: correct, not overlapped.
 */
void cmio_f08_nb(int op, const MPI_Fint *fh, int64_t off, CFI_cdesc_t *buf,
                 const MPI_Fint *count, const MPI_Fint *dt, MPI_Fint *request,
                 MPI_Fint *rc);
void cmio_f08_nb(int op, const MPI_Fint *fh, int64_t off, CFI_cdesc_t *buf,
                 const MPI_Fint *count, const MPI_Fint *dt, MPI_Fint *request,
                 MPI_Fint *rc)
{
    f08_init();
    const int reading = f08_kind[op].reading;
    MPI_File cfh = MPI_File_f2c(*fh);
    MPI_Datatype cdt = MPI_Type_f2c(*dt);
    void *addr = f08_addr(buf);
    MPI_Request req = MPI_REQUEST_NULL;
    if (addr == NULL || addr == MPI_BOTTOM || CFI_is_contiguous(buf)) {
        *rc = f08_istart(op, cfh, (MPI_Offset)off, addr, (int)*count, cdt, &req);
        *request = MPI_Request_c2f(req);
        return;
    }
    f08_done *d = malloc(sizeof *d);
    char *packed = malloc(f08_elements(buf) * buf->elem_len + 1);
    int r = d != NULL && packed != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    MPI_Status st;
    if (r == MPI_SUCCESS && !reading)
        f08_copy(buf, packed, 1);
    /* (without memory the access still starts, on no data, so that the
     * other ranks' collective completes; the code says why) */
    int started = f08_istart(op, cfh, (MPI_Offset)off, r == MPI_SUCCESS ? packed : NULL,
                             r == MPI_SUCCESS ? (int)*count : 0, cdt, &req);
    if (started == MPI_SUCCESS)
        started = MPI_Wait(&req, &st);
    if (r == MPI_SUCCESS)
        r = started;
    if (r == MPI_SUCCESS && reading)
        f08_copy(buf, packed, 0);
    free(packed);
    if (d == NULL) {
        *request = MPI_Request_c2f(MPI_REQUEST_NULL);
        *rc = r;
        return;
    }
    d->rc = r;
    d->bytes = 0;
    if (r == MPI_SUCCESS)
        MPI_Get_elements_x(&st, MPI_BYTE, &d->bytes);
    MPI_Request greq = MPI_REQUEST_NULL;
    int g = MPI_Grequest_start(f08_done_query, f08_done_free, f08_done_cancel, d, &greq);
    if (g == MPI_SUCCESS)
        g = MPI_Grequest_complete(greq);
    else
        free(d);
    *request = MPI_Request_c2f(greq);
    *rc = g == MPI_SUCCESS ? MPI_SUCCESS : g;
}

#endif
