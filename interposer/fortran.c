/*
 * fortran.c -- the Fortran entry points of libcollio_mpiio (mpif.h,
 * `use mpi`, and `use mpi_f08` under Open MPI): gfortran's names (lower case, one
 * trailing underscore: mpi_file_write_all_), each converting its arguments and calling
 * the C entry point of the same name -- wrappers.c's MPI_File_* in this library, resolved
 * like any other call, so the interposer sees Fortran calls as C ones.
 *
 * Why: Open MPI's Fortran bindings (libmpi_mpifh: mpi_file_write_all_ and
 * its aliases) call PMPI_File_* directly, past any C interposer; defining
 * the Fortran symbols here puts the interposer in front of them too.
 * MPICH's (libmpichfort) call the C MPI_File_* already; the definitions
 * here replace them under LD_PRELOAD and do the same conversions, so the
 * result is the same there.
 *
 * `use mpi_f08` under Open MPI: its module's routines (libmpi_usempif08:
 * mpi_file_write_all_f08_, ...) call the mpif.h binding's C functions
 * (libmpi_mpifh: ompi_file_write_all_f, ...) with the handles' integer
 * values, the same arguments as mpi_file_write_all_, through the dynamic
 * linker; the same functions are defined here under those names (aliases,
 * end of file), so the preloaded interposer comes first for them too.
 *
 * `use mpi_f08` under MPICH: its routines call the C PMPI_File_* entry
 * points themselves; fortran_f08.f90 defines them, and hands open, close,
 * set_view and finalize to the functions here (by hidden aliases,
 * cmio_f_*, end of file) and the data calls to fortran_f08.c.
 *
 * Not covered: other name manglings (mpi_file_write_all__ of
 * -fsecond-underscore / -ff2c, MPI_FILE_WRITE_ALL of other compilers).
 *
 * Conversions, as the MPIs' own Fortran bindings make them:
 *  - handles with MPI_{Comm,File,Type,Info}_f2c, a new file handle with
 *    MPI_File_c2f (open, and close: MPI_FILE_NULL's);
 *  - strings (filename, datarep): not NUL-terminated, their lengths hidden
 *    arguments after all the others (gfortran >= 8: size_t; MPICH's own
 *    binding reads an int, which is the same value: only the low 32 bits
 *    are used here, right under either convention), leading and trailing
 *    blanks dropped (both Open MPI and MPICH drop both);
 *  - statuses with MPI_Status_c2f, unless the argument is MPI_STATUS_IGNORE
 *    (MPI_F_STATUS_IGNORE in C); set on success only;
 *  - buffers: Fortran's MPI_BOTTOM (a common block) becomes C's;
 *  - offsets: INTEGER(KIND=MPI_OFFSET_KIND), an MPI_Offset.
 *
 * MPICH sets MPI_F_STATUS_IGNORE and its MPI_BOTTOM address on the first
 * Fortran call that needs them (MPIR_F_NeedInit, mpirinitf_ in
 * libmpichfort); so does fortran_init here. Those symbols and Open MPI's
 * mpi_fortran_bottom_ are looked up with dlsym: the library stays loadable
 * into C programs, which have no Fortran MPI library.
 *
 * mpi_finalize_ is here too: Open MPI's calls PMPI_Finalize, past
 * wrappers.c's MPI_Finalize (the report, COLLIO_MPIIO_REPORT, is printed
 * there).
 */
#include "cmio.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The addresses Fortran's MPI_BOTTOM may have (NULL: none). */
static void *f_bottom[4];
static int f_looked = 0;

#if defined(MPICH)
static int *f_need_init;      /* MPIR_F_NeedInit */
static void (*f_init)(void);  /* mpirinitf_ */
static void **f_mpich_bottom; /* MPIR_F_MPI_BOTTOM */
#endif

static void fortran_init(void)
{
    if (!f_looked) {
#if defined(MPICH)
        f_need_init = (int *)dlsym(RTLD_DEFAULT, "MPIR_F_NeedInit");
        f_init = (void (*)(void))dlsym(RTLD_DEFAULT, "mpirinitf_");
        f_mpich_bottom = (void **)dlsym(RTLD_DEFAULT, "MPIR_F_MPI_BOTTOM");
#elif defined(OPEN_MPI)
        /* Open MPI: the common block /mpi_fortran_bottom/, by the
         * Fortran compiler's naming */
        static const char *const names[4] = {"mpi_fortran_bottom_", "mpi_fortran_bottom",
                                             "mpi_fortran_bottom__",
                                             "MPI_FORTRAN_BOTTOM"};
        for (int k = 0; k < 4; k++)
            f_bottom[k] = dlsym(RTLD_DEFAULT, names[k]);
#endif
        f_looked = 1;
    }
#if defined(MPICH)
    if (f_need_init != NULL && *f_need_init && f_init != NULL) {
        f_init();
        *f_need_init = 0;
    }
    if (f_mpich_bottom != NULL)
        f_bottom[0] = *f_mpich_bottom;
#endif
}

/* A Fortran buffer argument as C sees it. */
static void *c_buf(void *b)
{
    for (int k = 0; k < 4; k++)
        if (b != NULL && b == f_bottom[k])
            return MPI_BOTTOM;
    return b;
}

static int status_ignored(const MPI_Fint *st)
{
    return st == NULL || st == MPI_F_STATUS_IGNORE;
}

/* The status to hand the C call: *cst, or MPI_STATUS_IGNORE. */
static MPI_Status *c_status(const MPI_Fint *fst, MPI_Status *cst)
{
    return status_ignored(fst) ? MPI_STATUS_IGNORE : cst;
}

static void f_status(int rc, MPI_Status *cst, MPI_Fint *fst)
{
    if (rc == MPI_SUCCESS && !status_ignored(fst))
        MPI_Status_c2f(cst, fst);
}

static void set_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr != NULL)
        *ierr = (MPI_Fint)rc;
}

/* A Fortran string as a C one, blanks trimmed at both ends (malloc'ed;
 * NULL when out of memory). */
static char *c_string(const char *s, size_t hidden_len)
{
    size_t n = hidden_len & 0xffffffffu; /* int or size_t, see above */
    size_t a = 0;
    while (a < n && s[a] == ' ')
        a++;
    while (n > a && s[n - 1] == ' ')
        n--;
    char *c = malloc(n - a + 1);
    if (c != NULL) {
        memcpy(c, s + a, n - a);
        c[n - a] = '\0';
    }
    return c;
}

/* Under another MPI than the one this library was built for (cmio_foreign,
 * wrappers.c): the MPI library's own entry point of the same name with
 * the same arguments -- nothing here converts what that MPI's handles,
 * statuses and constants are. */
#define FOREIGN(name, params, args)                                                      \
    do {                                                                                 \
        if (cmio_foreign()) {                                                            \
            void(*next_) params = (void(*) params)dlsym(RTLD_NEXT, #name);               \
            if (next_ != NULL)                                                           \
                next_ args;                                                              \
            return;                                                                      \
        }                                                                                \
    } while (0)

/* ------------------------------------------------------ open, close, view */

void mpi_file_open_(MPI_Fint *comm, char *filename, MPI_Fint *amode, MPI_Fint *info,
                    MPI_Fint *fh, MPI_Fint *ierr, size_t filename_len);
void mpi_file_open_(MPI_Fint *comm, char *filename, MPI_Fint *amode, MPI_Fint *info,
                    MPI_Fint *fh, MPI_Fint *ierr, size_t filename_len)
{
    FOREIGN(mpi_file_open_,
            (MPI_Fint *, char *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, size_t),
            (comm, filename, amode, info, fh, ierr, filename_len));
    fortran_init();
    char *name = c_string(filename, filename_len);
    if (name == NULL) {
        set_ierr(ierr, MPI_ERR_NO_MEM);
        return;
    }
    MPI_File cfh = MPI_FILE_NULL;
    int rc =
        MPI_File_open(MPI_Comm_f2c(*comm), name, (int)*amode, MPI_Info_f2c(*info), &cfh);
    free(name);
    if (rc == MPI_SUCCESS)
        *fh = MPI_File_c2f(cfh);
    set_ierr(ierr, rc);
}

void mpi_file_close_(MPI_Fint *fh, MPI_Fint *ierr);
void mpi_file_close_(MPI_Fint *fh, MPI_Fint *ierr)
{
    FOREIGN(mpi_file_close_, (MPI_Fint *, MPI_Fint *), (fh, ierr));
    fortran_init();
    MPI_File cfh = MPI_File_f2c(*fh);
    int rc = MPI_File_close(&cfh);
    if (rc == MPI_SUCCESS)
        *fh = MPI_File_c2f(cfh); /* MPI_FILE_NULL's */
    set_ierr(ierr, rc);
}

void mpi_file_set_view_(MPI_Fint *fh, MPI_Offset *disp, MPI_Fint *etype,
                        MPI_Fint *filetype, char *datarep, MPI_Fint *info, MPI_Fint *ierr,
                        size_t datarep_len);
void mpi_file_set_view_(MPI_Fint *fh, MPI_Offset *disp, MPI_Fint *etype,
                        MPI_Fint *filetype, char *datarep, MPI_Fint *info, MPI_Fint *ierr,
                        size_t datarep_len)
{
    FOREIGN(mpi_file_set_view_,
            (MPI_Fint *, MPI_Offset *, MPI_Fint *, MPI_Fint *, char *, MPI_Fint *,
             MPI_Fint *, size_t),
            (fh, disp, etype, filetype, datarep, info, ierr, datarep_len));
    fortran_init();
    char *rep = c_string(datarep, datarep_len);
    if (rep == NULL) {
        set_ierr(ierr, MPI_ERR_NO_MEM);
        return;
    }
    int rc = MPI_File_set_view(MPI_File_f2c(*fh), *disp, MPI_Type_f2c(*etype),
                               MPI_Type_f2c(*filetype), rep, MPI_Info_f2c(*info));
    free(rep);
    set_ierr(ierr, rc);
}

/* ------------------------------------------------ the collective data calls */

void mpi_file_write_all_(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *dt,
                         MPI_Fint *status, MPI_Fint *ierr);
void mpi_file_write_all_(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *dt,
                         MPI_Fint *status, MPI_Fint *ierr)
{
    FOREIGN(mpi_file_write_all_,
            (MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *),
            (fh, buf, count, dt, status, ierr));
    fortran_init();
    MPI_Status cst;
    int rc = MPI_File_write_all(MPI_File_f2c(*fh), c_buf(buf), (int)*count,
                                MPI_Type_f2c(*dt), c_status(status, &cst));
    f_status(rc, &cst, status);
    set_ierr(ierr, rc);
}

void mpi_file_write_at_all_(MPI_Fint *fh, MPI_Offset *offset, void *buf, MPI_Fint *count,
                            MPI_Fint *dt, MPI_Fint *status, MPI_Fint *ierr);
void mpi_file_write_at_all_(MPI_Fint *fh, MPI_Offset *offset, void *buf, MPI_Fint *count,
                            MPI_Fint *dt, MPI_Fint *status, MPI_Fint *ierr)
{
    FOREIGN(mpi_file_write_at_all_,
            (MPI_Fint *, MPI_Offset *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
             MPI_Fint *),
            (fh, offset, buf, count, dt, status, ierr));
    fortran_init();
    MPI_Status cst;
    int rc = MPI_File_write_at_all(MPI_File_f2c(*fh), *offset, c_buf(buf), (int)*count,
                                   MPI_Type_f2c(*dt), c_status(status, &cst));
    f_status(rc, &cst, status);
    set_ierr(ierr, rc);
}

void mpi_file_read_all_(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *dt,
                        MPI_Fint *status, MPI_Fint *ierr);
void mpi_file_read_all_(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *dt,
                        MPI_Fint *status, MPI_Fint *ierr)
{
    FOREIGN(mpi_file_read_all_,
            (MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *),
            (fh, buf, count, dt, status, ierr));
    fortran_init();
    MPI_Status cst;
    int rc = MPI_File_read_all(MPI_File_f2c(*fh), c_buf(buf), (int)*count,
                               MPI_Type_f2c(*dt), c_status(status, &cst));
    f_status(rc, &cst, status);
    set_ierr(ierr, rc);
}

void mpi_file_read_at_all_(MPI_Fint *fh, MPI_Offset *offset, void *buf, MPI_Fint *count,
                           MPI_Fint *dt, MPI_Fint *status, MPI_Fint *ierr);
void mpi_file_read_at_all_(MPI_Fint *fh, MPI_Offset *offset, void *buf, MPI_Fint *count,
                           MPI_Fint *dt, MPI_Fint *status, MPI_Fint *ierr)
{
    FOREIGN(mpi_file_read_at_all_,
            (MPI_Fint *, MPI_Offset *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
             MPI_Fint *),
            (fh, offset, buf, count, dt, status, ierr));
    fortran_init();
    MPI_Status cst;
    int rc = MPI_File_read_at_all(MPI_File_f2c(*fh), *offset, c_buf(buf), (int)*count,
                                  MPI_Type_f2c(*dt), c_status(status, &cst));
    f_status(rc, &cst, status);
    set_ierr(ierr, rc);
}

/* ------------------------------------------------------ split collectives */

void mpi_file_write_all_begin_(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *dt,
                               MPI_Fint *ierr);
void mpi_file_write_all_begin_(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *dt,
                               MPI_Fint *ierr)
{
    FOREIGN(mpi_file_write_all_begin_,
            (MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *),
            (fh, buf, count, dt, ierr));
    fortran_init();
    set_ierr(ierr, MPI_File_write_all_begin(MPI_File_f2c(*fh), c_buf(buf), (int)*count,
                                            MPI_Type_f2c(*dt)));
}

void mpi_file_write_all_end_(MPI_Fint *fh, void *buf, MPI_Fint *status, MPI_Fint *ierr);
void mpi_file_write_all_end_(MPI_Fint *fh, void *buf, MPI_Fint *status, MPI_Fint *ierr)
{
    FOREIGN(mpi_file_write_all_end_, (MPI_Fint *, void *, MPI_Fint *, MPI_Fint *),
            (fh, buf, status, ierr));
    fortran_init();
    MPI_Status cst;
    int rc =
        MPI_File_write_all_end(MPI_File_f2c(*fh), c_buf(buf), c_status(status, &cst));
    f_status(rc, &cst, status);
    set_ierr(ierr, rc);
}

void mpi_file_write_at_all_begin_(MPI_Fint *fh, MPI_Offset *offset, void *buf,
                                  MPI_Fint *count, MPI_Fint *dt, MPI_Fint *ierr);
void mpi_file_write_at_all_begin_(MPI_Fint *fh, MPI_Offset *offset, void *buf,
                                  MPI_Fint *count, MPI_Fint *dt, MPI_Fint *ierr)
{
    FOREIGN(mpi_file_write_at_all_begin_,
            (MPI_Fint *, MPI_Offset *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *),
            (fh, offset, buf, count, dt, ierr));
    fortran_init();
    set_ierr(ierr, MPI_File_write_at_all_begin(MPI_File_f2c(*fh), *offset, c_buf(buf),
                                               (int)*count, MPI_Type_f2c(*dt)));
}

void mpi_file_write_at_all_end_(MPI_Fint *fh, void *buf, MPI_Fint *status,
                                MPI_Fint *ierr);
void mpi_file_write_at_all_end_(MPI_Fint *fh, void *buf, MPI_Fint *status, MPI_Fint *ierr)
{
    FOREIGN(mpi_file_write_at_all_end_, (MPI_Fint *, void *, MPI_Fint *, MPI_Fint *),
            (fh, buf, status, ierr));
    fortran_init();
    MPI_Status cst;
    int rc =
        MPI_File_write_at_all_end(MPI_File_f2c(*fh), c_buf(buf), c_status(status, &cst));
    f_status(rc, &cst, status);
    set_ierr(ierr, rc);
}

void mpi_file_read_all_begin_(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *dt,
                              MPI_Fint *ierr);
void mpi_file_read_all_begin_(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *dt,
                              MPI_Fint *ierr)
{
    FOREIGN(mpi_file_read_all_begin_,
            (MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *),
            (fh, buf, count, dt, ierr));
    fortran_init();
    set_ierr(ierr, MPI_File_read_all_begin(MPI_File_f2c(*fh), c_buf(buf), (int)*count,
                                           MPI_Type_f2c(*dt)));
}

void mpi_file_read_all_end_(MPI_Fint *fh, void *buf, MPI_Fint *status, MPI_Fint *ierr);
void mpi_file_read_all_end_(MPI_Fint *fh, void *buf, MPI_Fint *status, MPI_Fint *ierr)
{
    FOREIGN(mpi_file_read_all_end_, (MPI_Fint *, void *, MPI_Fint *, MPI_Fint *),
            (fh, buf, status, ierr));
    fortran_init();
    MPI_Status cst;
    int rc = MPI_File_read_all_end(MPI_File_f2c(*fh), c_buf(buf), c_status(status, &cst));
    f_status(rc, &cst, status);
    set_ierr(ierr, rc);
}

void mpi_file_read_at_all_begin_(MPI_Fint *fh, MPI_Offset *offset, void *buf,
                                 MPI_Fint *count, MPI_Fint *dt, MPI_Fint *ierr);
void mpi_file_read_at_all_begin_(MPI_Fint *fh, MPI_Offset *offset, void *buf,
                                 MPI_Fint *count, MPI_Fint *dt, MPI_Fint *ierr)
{
    FOREIGN(mpi_file_read_at_all_begin_,
            (MPI_Fint *, MPI_Offset *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *),
            (fh, offset, buf, count, dt, ierr));
    fortran_init();
    set_ierr(ierr, MPI_File_read_at_all_begin(MPI_File_f2c(*fh), *offset, c_buf(buf),
                                              (int)*count, MPI_Type_f2c(*dt)));
}

void mpi_file_read_at_all_end_(MPI_Fint *fh, void *buf, MPI_Fint *status, MPI_Fint *ierr);
void mpi_file_read_at_all_end_(MPI_Fint *fh, void *buf, MPI_Fint *status, MPI_Fint *ierr)
{
    FOREIGN(mpi_file_read_at_all_end_, (MPI_Fint *, void *, MPI_Fint *, MPI_Fint *),
            (fh, buf, status, ierr));
    fortran_init();
    MPI_Status cst;
    int rc =
        MPI_File_read_at_all_end(MPI_File_f2c(*fh), c_buf(buf), c_status(status, &cst));
    f_status(rc, &cst, status);
    set_ierr(ierr, rc);
}

/* ---------------------------------------------------- non-blocking calls */

/* The request handed back: MPI's own, or collio's generalized one
 * (nonblocking.c), as the Fortran integer. */
static void f_request(int rc, MPI_Request creq, MPI_Fint *req)
{
    if (rc == MPI_SUCCESS)
        *req = MPI_Request_c2f(creq);
}

void mpi_file_iwrite_all_(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *dt,
                          MPI_Fint *req, MPI_Fint *ierr);
void mpi_file_iwrite_all_(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *dt,
                          MPI_Fint *req, MPI_Fint *ierr)
{
    FOREIGN(mpi_file_iwrite_all_,
            (MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *),
            (fh, buf, count, dt, req, ierr));
    fortran_init();
    MPI_Request creq = MPI_REQUEST_NULL;
    int rc = MPI_File_iwrite_all(MPI_File_f2c(*fh), c_buf(buf), (int)*count,
                                 MPI_Type_f2c(*dt), &creq);
    f_request(rc, creq, req);
    set_ierr(ierr, rc);
}

void mpi_file_iwrite_at_all_(MPI_Fint *fh, MPI_Offset *offset, void *buf, MPI_Fint *count,
                             MPI_Fint *dt, MPI_Fint *req, MPI_Fint *ierr);
void mpi_file_iwrite_at_all_(MPI_Fint *fh, MPI_Offset *offset, void *buf, MPI_Fint *count,
                             MPI_Fint *dt, MPI_Fint *req, MPI_Fint *ierr)
{
    FOREIGN(mpi_file_iwrite_at_all_,
            (MPI_Fint *, MPI_Offset *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
             MPI_Fint *),
            (fh, offset, buf, count, dt, req, ierr));
    fortran_init();
    MPI_Request creq = MPI_REQUEST_NULL;
    int rc = MPI_File_iwrite_at_all(MPI_File_f2c(*fh), *offset, c_buf(buf), (int)*count,
                                    MPI_Type_f2c(*dt), &creq);
    f_request(rc, creq, req);
    set_ierr(ierr, rc);
}

void mpi_file_iread_all_(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *dt,
                         MPI_Fint *req, MPI_Fint *ierr);
void mpi_file_iread_all_(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *dt,
                         MPI_Fint *req, MPI_Fint *ierr)
{
    FOREIGN(mpi_file_iread_all_,
            (MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *),
            (fh, buf, count, dt, req, ierr));
    fortran_init();
    MPI_Request creq = MPI_REQUEST_NULL;
    int rc = MPI_File_iread_all(MPI_File_f2c(*fh), c_buf(buf), (int)*count,
                                MPI_Type_f2c(*dt), &creq);
    f_request(rc, creq, req);
    set_ierr(ierr, rc);
}

void mpi_file_iread_at_all_(MPI_Fint *fh, MPI_Offset *offset, void *buf, MPI_Fint *count,
                            MPI_Fint *dt, MPI_Fint *req, MPI_Fint *ierr);
void mpi_file_iread_at_all_(MPI_Fint *fh, MPI_Offset *offset, void *buf, MPI_Fint *count,
                            MPI_Fint *dt, MPI_Fint *req, MPI_Fint *ierr)
{
    FOREIGN(mpi_file_iread_at_all_,
            (MPI_Fint *, MPI_Offset *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
             MPI_Fint *),
            (fh, offset, buf, count, dt, req, ierr));
    fortran_init();
    MPI_Request creq = MPI_REQUEST_NULL;
    int rc = MPI_File_iread_at_all(MPI_File_f2c(*fh), *offset, c_buf(buf), (int)*count,
                                   MPI_Type_f2c(*dt), &creq);
    f_request(rc, creq, req);
    set_ierr(ierr, rc);
}

/* ----------------------------------------------------------------- finalize */

void mpi_finalize_(MPI_Fint *ierr);
void mpi_finalize_(MPI_Fint *ierr)
{
    FOREIGN(mpi_finalize_, (MPI_Fint *), (ierr));
    set_ierr(ierr, MPI_Finalize());
}

/* ------------------------------------------- use mpi_f08 under Open MPI */

#if defined(OPEN_MPI)
/* The names libmpi_usempif08 calls (above): each the same function as
 * the mpif.h entry point of the same call, with its type. */
#define F08_ALIAS(ompi_name, ours)                                                       \
    extern __typeof__(ours) ompi_name __attribute__((alias(#ours)));
F08_ALIAS(ompi_file_open_f, mpi_file_open_)
F08_ALIAS(ompi_file_close_f, mpi_file_close_)
F08_ALIAS(ompi_file_set_view_f, mpi_file_set_view_)
F08_ALIAS(ompi_file_write_all_f, mpi_file_write_all_)
F08_ALIAS(ompi_file_write_at_all_f, mpi_file_write_at_all_)
F08_ALIAS(ompi_file_read_all_f, mpi_file_read_all_)
F08_ALIAS(ompi_file_read_at_all_f, mpi_file_read_at_all_)
F08_ALIAS(ompi_file_write_all_begin_f, mpi_file_write_all_begin_)
F08_ALIAS(ompi_file_write_all_end_f, mpi_file_write_all_end_)
F08_ALIAS(ompi_file_write_at_all_begin_f, mpi_file_write_at_all_begin_)
F08_ALIAS(ompi_file_write_at_all_end_f, mpi_file_write_at_all_end_)
F08_ALIAS(ompi_file_read_all_begin_f, mpi_file_read_all_begin_)
F08_ALIAS(ompi_file_read_all_end_f, mpi_file_read_all_end_)
F08_ALIAS(ompi_file_read_at_all_begin_f, mpi_file_read_at_all_begin_)
F08_ALIAS(ompi_file_read_at_all_end_f, mpi_file_read_at_all_end_)
F08_ALIAS(ompi_file_iwrite_all_f, mpi_file_iwrite_all_)
F08_ALIAS(ompi_file_iwrite_at_all_f, mpi_file_iwrite_at_all_)
F08_ALIAS(ompi_file_iread_all_f, mpi_file_iread_all_)
F08_ALIAS(ompi_file_iread_at_all_f, mpi_file_iread_at_all_)
F08_ALIAS(ompi_finalize_f, mpi_finalize_)
#endif

/* ------------------------------------------- use mpi_f08 under MPICH */

#if defined(MPICH)
/* fortran_f08.f90's way in to the functions above, by gfortran's names
 * (hidden: not entry points of the library). */
#define F08_INTERNAL(name, ours)                                                         \
    extern __typeof__(ours) name __attribute__((alias(#ours), visibility("hidden")));
F08_INTERNAL(cmio_f_file_open_, mpi_file_open_)
F08_INTERNAL(cmio_f_file_close_, mpi_file_close_)
F08_INTERNAL(cmio_f_file_set_view_, mpi_file_set_view_)
F08_INTERNAL(cmio_f_finalize_, mpi_finalize_)
#endif
