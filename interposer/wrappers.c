/*
 * wrappers.c -- the MPI-IO entry points libcollio_mpiio defines (MPI's
 * profiling interface: each forwards to the MPI library's PMPI_ entry),
 * and each open file's state.
 *
 * Kept per open file: the communicator, the path, the access mode, the
 * view as set_view gave it, collio's hints from the info objects. The
 * view and the individual file pointer stay the MPI library's own too
 * (set_view is forwarded; collio's takes move the pointer with
 * PMPI_File_seek), so MPI_File_get_view, get_position, seek, set_size,
 * sync, every independent and non-blocking call, shared file pointers
 * and everything else reach the MPI library untouched -- they need no
 * wrapper.
 *
 * The collective data calls -- write_all, write_at_all, read_all,
 * read_at_all, their split _begin/_end forms and their non-blocking
 * forms (iwrite_all ...) -- ask take.c whether collio does them; a split
 * collective or a non-blocking call taken is started in the call and
 * completed by _end, or by the application's MPI_Wait / MPI_Test on the
 * request returned (nonblocking.c).
 *
 * collio's own MPI-IO calls inside a taken call (collio_file_open, the
 * MPI-IO collective handle of strategy two_phase) never come here: the
 * library makes them through PMPI (src/files/files.h).
 */
#include "cmio.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cmio_file *files = NULL;
static uint64_t opens = 0;

/* Local: a digest of comm's ranks as MPI_COMM_WORLD numbers them -- the
 * same on every rank of comm, another for other ranks (a cached plan
 * serves the files of one group of ranks). */
static uint64_t group_digest(MPI_Comm comm)
{
    MPI_Group g, w;
    int n = 0;
    uint64_t h = 0x67726f7570;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_size(g, &n);
    int *in = malloc((size_t)(n > 0 ? n : 1) * sizeof *in);
    int *out = malloc((size_t)(n > 0 ? n : 1) * sizeof *out);
    if (in != NULL && out != NULL) {
        for (int i = 0; i < n; i++)
            in[i] = i;
        MPI_Group_translate_ranks(g, n, in, w, out);
        for (int i = 0; i < n; i++)
            h = (h ^ (uint64_t)(out[i] + 2)) * 0x100000001b3ull;
    } else {
        h = 0; /* never equal to a real digest's use: no reuse */
    }
    free(in);
    free(out);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    return h;
}

/* collio's own communicators (a dup: its collectives never meet the
 * application's), one per group of ranks that opened files, kept for the
 * process's life and shared by the group's files -- a dup per open costs
 * as much as a small file's calls (IOR's file per iteration). Each rank of
 * a group holds its communicator from the same open on: the open that
 * made it agreed that every rank had room, and none is dropped. Files
 * open at once share it safely: collio's collectives run inside the
 * application's collective calls, which come in one order on every rank. */
#define GROUP_COMMS_MAX 64
static struct {
    uint64_t group;
    MPI_Comm comm;
} group_comms[GROUP_COMMS_MAX];
static int n_group_comms = 0;

/* Collective over comm (size > 1): collio's communicator for a file of
 * comm's ranks (group: their digest); *kept 1 where it is the group's,
 * not to be freed at close. */
static int comm_for(MPI_Comm comm, uint64_t group, MPI_Comm *out, int *kept)
{
    *kept = 0;
    for (int i = 0; i < n_group_comms; i++)
        if (group_comms[i].group == group) {
            *out = group_comms[i].comm;
            *kept = 1;
            return MPI_SUCCESS;
        }
    if (MPI_Comm_dup(comm, out) != MPI_SUCCESS)
        return MPI_ERR_OTHER;
    MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
    int room = n_group_comms < GROUP_COMMS_MAX && group != 0, all = 0;
    if (MPI_Allreduce(&room, &all, 1, MPI_INT, MPI_MIN, *out) == MPI_SUCCESS && all) {
        group_comms[n_group_comms].group = group;
        group_comms[n_group_comms++].comm = *out;
        *kept = 1;
    }
    return MPI_SUCCESS;
}

/* The values of COLLIO_MPIIO and of info key collio_mpiio, by cmio_mode
 * (anything else, "on" included: auto). */
static const char *const mode_names[] = {"auto", "off", "force"};

static cmio_mode mode_of(const char *v)
{
    for (int m = 0; v != NULL && m < 3; m++)
        if (strcmp(v, mode_names[m]) == 0)
            return (cmio_mode)m;
    return v != NULL && strcmp(v, "0") == 0 ? CMIO_OFF : CMIO_AUTO;
}

cmio_mode cmio_env_mode(void)
{
    return mode_of(getenv("COLLIO_MPIIO"));
}

/* COLLIO_MPIIO_THREAD_MULTIPLE=1: MPI_Init and MPI_Init_thread ask MPI
 * for MPI_THREAD_MULTIPLE, so that collio's helper thread runs the
 * non-blocking calls it takes while the program computes
 * (nonblocking.c); the program is told the level MPI gave, at least the
 * one it asked for. Not by default: every MPI call of the program may
 * then pay for the thread safety (docs/mpiio.md, "Non-blocking calls"). */
static int want_multiple(void)
{
    const char *v = getenv("COLLIO_MPIIO_THREAD_MULTIPLE");
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

/* (Also an entry point so that under another MPI (entry.c) the program's
 * own runs untouched from its first call.) */
int CMIO_NAME(MPI_Init)(int *argc, char ***argv)
{
    int provided = 0;
    return want_multiple() ? PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided)
                           : PMPI_Init(argc, argv);
}

int CMIO_NAME(MPI_Init_thread)(int *argc, char ***argv, int required, int *provided)
{
    return PMPI_Init_thread(argc, argv, want_multiple() ? MPI_THREAD_MULTIPLE : required,
                            provided);
}

static cmio_file *find(MPI_File fh)
{
    if (cmio_foreign())
        return NULL;
    for (cmio_file *s = files; s != NULL; s = s->next)
        if (s->fh == fh)
            return s;
    return NULL;
}

/* ROMIO's file system prefix ("ufs:", "nfs:", "lustre:") is not a path. */
static char *plain_path(const char *name)
{
    const char *c = strchr(name, ':');
    if (c != NULL && c - name >= 2) {
        const char *p = name;
        while (p < c && (isalnum((unsigned char)*p) || *p == '_'))
            p++;
        if (p == c)
            name = c + 1;
    }
    size_t n = strlen(name) + 1;
    char *s = malloc(n);
    if (s != NULL)
        memcpy(s, name, n);
    return s;
}

/* collio's keys in an info object: collio_mpiio (auto|off|force),
 * collio_strategy (a name), collio_hints (a hint list). */
static void read_info(cmio_file *s, MPI_Info info)
{
    if (info == MPI_INFO_NULL)
        return;
    char v[512];
    int flag = 0;
    if (MPI_Info_get(info, "collio_mpiio", (int)sizeof v - 1, v, &flag) == MPI_SUCCESS
        && flag)
        s->mode = mode_of(v);
    if (MPI_Info_get(info, "collio_strategy", (int)sizeof s->strategy - 1, v, &flag)
            == MPI_SUCCESS
        && flag) {
        v[sizeof s->strategy - 1] = '\0';
        if (mode_of(v) == CMIO_AUTO && strcmp(v, mode_names[CMIO_AUTO]) == 0)
            v[0] = '\0'; /* strategy auto: the default (NULL) */
        memcpy(s->strategy, v, sizeof s->strategy);
    }
    if (MPI_Info_get(info, "collio_hints", (int)sizeof s->hints - 1, v, &flag)
            == MPI_SUCCESS
        && flag)
        snprintf(s->hints, sizeof s->hints, "%s", v);
}

static void free_view(cmio_file *s)
{
    cmio_flat_release(s->ft);
    s->ft = NULL;
}

/* The view's parts collio uses: the etype's size, and the filetype as
 * blocks, flattened here while the application's handle is valid (it may
 * free it after set_view) and held until the next view. Flattening is
 * cached by the type's structure (the next time step's new handle of the
 * same type is a hit); with collio off nothing is flattened. */
static void keep_view(cmio_file *s, MPI_Offset disp, MPI_Datatype etype,
                      MPI_Datatype filetype, const char *datarep)
{
    MPI_Count es = 0;
    free_view(s);
    s->disp = disp;
    s->native = datarep != NULL && strcmp(datarep, "native") == 0
                && etype != MPI_DATATYPE_NULL
                && MPI_Type_size_x(etype, &es) == MPI_SUCCESS && es != MPI_UNDEFINED;
    s->esize = (int64_t)es;
    if (s->native && s->mode != CMIO_OFF)
        cmio_flatten_hold(filetype, &s->ft); /* (NULL where it fails) */
}

int CMIO_NAME(MPI_File_open)(MPI_Comm comm, const char *filename, int amode,
                             MPI_Info info, MPI_File *fh)
{
    int rc = PMPI_File_open(comm, filename, amode, info, fh);
    if (rc != MPI_SUCCESS || cmio_foreign())
        return rc;
    cmio_file *s = calloc(1, sizeof *s);
    if (s == NULL)
        return rc; /* untracked: every call passes through */
    s->fh = *fh;
    s->amode = amode;
    s->mode = cmio_env_mode();
    s->path = plain_path(filename);
    read_info(s, info);
    keep_view(s, 0, MPI_BYTE, MPI_BYTE, "native"); /* MPI's default view */
    /* collective, as the open is; one rank's file (MPI_COMM_SELF, a file
     * per process) uses MPI_COMM_SELF itself: its collectives can neither
     * fail nor meet another's */
    int size = 0;
    MPI_Comm_size(comm, &size);
    s->own_comm = size > 1;
    s->group = group_digest(comm);
    if ((s->own_comm ? comm_for(comm, s->group, &s->comm, &s->kept_comm)
                     : (s->comm = MPI_COMM_SELF, MPI_SUCCESS))
            != MPI_SUCCESS
        || s->path == NULL) {
        free(s->path);
        free(s);
        return rc;
    }
    s->serial = ++opens;
    s->next = files;
    files = s;
    return rc;
}

int CMIO_NAME(MPI_File_close)(MPI_File *fh)
{
    cmio_file *s = fh != NULL ? find(*fh) : NULL;
    if (s != NULL) {
        for (cmio_file **p = &files; *p != NULL; p = &(*p)->next)
            if (*p == s) {
                *p = s->next;
                break;
            }
        cmio_policy_close(s);
        cmio_release(s); /* collective over the file's ranks, as close is */
        free_view(s);
        if (s->own_comm && !s->kept_comm)
            MPI_Comm_free(&s->comm);
        free(s->path);
        free(s);
    }
    return PMPI_File_close(fh);
}

int CMIO_NAME(MPI_File_set_view)(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                 MPI_Datatype filetype, const char *datarep,
                                 MPI_Info info)
{
    int rc = PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
    cmio_file *s = find(fh);
    if (rc != MPI_SUCCESS || s == NULL)
        return rc;
    read_info(s, info);
    keep_view(s, disp, etype, filetype, datarep);
    return rc;
}

/* ------------------------------------------------ the collective data calls */

/* MPI-3 prototypes take a const buffer for writes; collio never writes
 * into it. */
#define BUF(b) ((void *)(uintptr_t)(b))

/* The body of a collective data call: collio's (take.c), or else the MPI
 * library's `call`, timed where the policy measures it (CMIO_PASS). at:
 * the explicit offset, -1 for the individual file pointer; a negative
 * explicit offset is MPI's to refuse (AT). */
#define DATA_CALL(at, buf, count, dt, st, writing, call)                                 \
    do {                                                                                 \
        cmio_file *s_ = find(fh);                                                        \
        int err_ = MPI_SUCCESS;                                                          \
        if (s_ != NULL && (at) >= -1                                                     \
            && cmio_collective(s_, (at), (buf), (count), (dt), (st), (writing), &err_,   \
                               NULL))                                                    \
            return err_;                                                                 \
        return CMIO_PASS(s_, call);                                                      \
    } while (0)
#define AT(off) ((off) >= 0 ? (off) : -2)

int CMIO_NAME(MPI_File_write_all)(MPI_File fh, const void *buf, int count,
                                  MPI_Datatype dt, MPI_Status *st)
{
    DATA_CALL(-1, BUF(buf), count, dt, st, 1,
              PMPI_File_write_all(fh, buf, count, dt, st));
}

int CMIO_NAME(MPI_File_write_at_all)(MPI_File fh, MPI_Offset off, const void *buf,
                                     int count, MPI_Datatype dt, MPI_Status *st)
{
    DATA_CALL(AT(off), BUF(buf), count, dt, st, 1,
              PMPI_File_write_at_all(fh, off, buf, count, dt, st));
}

int CMIO_NAME(MPI_File_read_all)(MPI_File fh, void *buf, int count, MPI_Datatype dt,
                                 MPI_Status *st)
{
    DATA_CALL(-1, buf, count, dt, st, 0, PMPI_File_read_all(fh, buf, count, dt, st));
}

int CMIO_NAME(MPI_File_read_at_all)(MPI_File fh, MPI_Offset off, void *buf, int count,
                                    MPI_Datatype dt, MPI_Status *st)
{
    DATA_CALL(AT(off), buf, count, dt, st, 0,
              PMPI_File_read_at_all(fh, off, buf, count, dt, st));
}

/* Split collectives: collio starts the access in _begin (run by its
 * helper thread where there is one, else there and then); _end completes
 * it and returns its status (nonblocking.c). A passed _begin is the MPI
 * library's, and so is its _end. */
static int split_begin(MPI_File fh, MPI_Offset at, void *buf, int64_t count,
                       MPI_Datatype dt, int writing)
{
    cmio_file *s = find(fh);
    int err = MPI_SUCCESS;
    cmio_async *a = NULL;
    if (s == NULL || (at < -1))
        return -1;
    if (cmio_collective(s, at, buf, count, dt, NULL, writing, &err, &a)) {
        if (a != NULL)
            cmio_async_split(s, a);
        return err;
    }
    return -1;
}

static int split_end(MPI_File fh, MPI_Status *st)
{
    cmio_file *s = find(fh);
    if (s == NULL || !s->split_taken)
        return -1;
    return cmio_async_end(s, st);
}

/* A split _begin: collio's, or the MPI library's (its time not a
 * measure of the access: no timing). */
#define SPLIT_BEGIN(at, buf, count, dt, writing, call)                                   \
    do {                                                                                 \
        int rc_ = split_begin(fh, (at), (buf), (count), (dt), (writing));                \
        return rc_ >= 0 ? rc_ : (call);                                                  \
    } while (0)

int CMIO_NAME(MPI_File_write_all_begin)(MPI_File fh, const void *buf, int count,
                                        MPI_Datatype dt)
{
    SPLIT_BEGIN(-1, BUF(buf), count, dt, 1,
                PMPI_File_write_all_begin(fh, buf, count, dt));
}

int CMIO_NAME(MPI_File_write_all_end)(MPI_File fh, const void *buf, MPI_Status *st)
{
    int rc = split_end(fh, st);
    return rc >= 0 ? rc : PMPI_File_write_all_end(fh, buf, st);
}

int CMIO_NAME(MPI_File_write_at_all_begin)(MPI_File fh, MPI_Offset off, const void *buf,
                                           int count, MPI_Datatype dt)
{
    SPLIT_BEGIN(AT(off), BUF(buf), count, dt, 1,
                PMPI_File_write_at_all_begin(fh, off, buf, count, dt));
}

int CMIO_NAME(MPI_File_write_at_all_end)(MPI_File fh, const void *buf, MPI_Status *st)
{
    int rc = split_end(fh, st);
    return rc >= 0 ? rc : PMPI_File_write_at_all_end(fh, buf, st);
}

int CMIO_NAME(MPI_File_read_all_begin)(MPI_File fh, void *buf, int count, MPI_Datatype dt)
{
    SPLIT_BEGIN(-1, buf, count, dt, 0, PMPI_File_read_all_begin(fh, buf, count, dt));
}

int CMIO_NAME(MPI_File_read_all_end)(MPI_File fh, void *buf, MPI_Status *st)
{
    int rc = split_end(fh, st);
    return rc >= 0 ? rc : PMPI_File_read_all_end(fh, buf, st);
}

int CMIO_NAME(MPI_File_read_at_all_begin)(MPI_File fh, MPI_Offset off, void *buf,
                                          int count, MPI_Datatype dt)
{
    SPLIT_BEGIN(AT(off), buf, count, dt, 0,
                PMPI_File_read_at_all_begin(fh, off, buf, count, dt));
}

int CMIO_NAME(MPI_File_read_at_all_end)(MPI_File fh, void *buf, MPI_Status *st)
{
    int rc = split_end(fh, st);
    return rc >= 0 ? rc : PMPI_File_read_at_all_end(fh, buf, st);
}

/* Non-blocking collectives: collio's request behind a generalized
 * request the application completes (nonblocking.c), or the MPI
 * library's call, untimed. */
static int start(MPI_File fh, MPI_Offset at, void *buf, int64_t count, MPI_Datatype dt,
                 int writing, MPI_Request *req)
{
    cmio_file *s = find(fh);
    int err = MPI_SUCCESS;
    cmio_async *a = NULL;
    if (s == NULL || at < -1 || req == NULL)
        return -1;
    if (!cmio_collective(s, at, buf, count, dt, NULL, writing, &err, &a))
        return -1;
    if (a == NULL) {
        *req = MPI_REQUEST_NULL;
        return err;
    }
    return cmio_async_grequest(a, req);
}

#define START(at, buf, count, dt, writing, req, call)                                    \
    do {                                                                                 \
        int rc_ = start(fh, (at), (buf), (count), (dt), (writing), (req));               \
        return rc_ >= 0 ? rc_ : (call);                                                  \
    } while (0)

int CMIO_NAME(MPI_File_iwrite_all)(MPI_File fh, const void *buf, int count,
                                   MPI_Datatype dt, MPI_Request *req)
{
    START(-1, BUF(buf), count, dt, 1, req, PMPI_File_iwrite_all(fh, buf, count, dt, req));
}

int CMIO_NAME(MPI_File_iwrite_at_all)(MPI_File fh, MPI_Offset off, const void *buf,
                                      int count, MPI_Datatype dt, MPI_Request *req)
{
    START(AT(off), BUF(buf), count, dt, 1, req,
          PMPI_File_iwrite_at_all(fh, off, buf, count, dt, req));
}

int CMIO_NAME(MPI_File_iread_all)(MPI_File fh, void *buf, int count, MPI_Datatype dt,
                                  MPI_Request *req)
{
    START(-1, buf, count, dt, 0, req, PMPI_File_iread_all(fh, buf, count, dt, req));
}

int CMIO_NAME(MPI_File_iread_at_all)(MPI_File fh, MPI_Offset off, void *buf, int count,
                                     MPI_Datatype dt, MPI_Request *req)
{
    START(AT(off), buf, count, dt, 0, req,
          PMPI_File_iread_at_all(fh, off, buf, count, dt, req));
}

/* The program's waits: collio's requests among them waited for asleep
 * first (nonblocking.c: MPI's own wait would spin on cores collio's
 * helper thread needs), then the call is MPI's. */
int CMIO_NAME(MPI_Wait)(MPI_Request *req, MPI_Status *st)
{
    if (req != NULL)
        cmio_async_sleep(req, 1);
    return PMPI_Wait(req, st);
}

int CMIO_NAME(MPI_Waitall)(int n, MPI_Request reqs[], MPI_Status sts[])
{
    if (reqs != NULL && n > 0)
        cmio_async_sleep(reqs, n);
    return PMPI_Waitall(n, reqs, sts);
}

int CMIO_NAME(MPI_Waitany)(int n, MPI_Request reqs[], int *index, MPI_Status *st)
{
    if (reqs != NULL && n > 0)
        cmio_async_sleep_first(reqs, n);
    return PMPI_Waitany(n, reqs, index, st);
}

int CMIO_NAME(MPI_Waitsome)(int n, MPI_Request reqs[], int *outcount, int indices[],
                            MPI_Status sts[])
{
    if (reqs != NULL && n > 0)
        cmio_async_sleep_first(reqs, n);
    return PMPI_Waitsome(n, reqs, outcount, indices, sts);
}

#if MPI_VERSION >= 4
/* MPI-4's large-count forms (MPI_Count counts), where the MPI library has
 * them: taken as their classic forms are. */
int CMIO_NAME(MPI_File_write_all_c)(MPI_File fh, const void *buf, MPI_Count count,
                                    MPI_Datatype dt, MPI_Status *st)
{
    DATA_CALL(-1, BUF(buf), count, dt, st, 1,
              PMPI_File_write_all_c(fh, buf, count, dt, st));
}

int CMIO_NAME(MPI_File_write_at_all_c)(MPI_File fh, MPI_Offset off, const void *buf,
                                       MPI_Count count, MPI_Datatype dt, MPI_Status *st)
{
    DATA_CALL(AT(off), BUF(buf), count, dt, st, 1,
              PMPI_File_write_at_all_c(fh, off, buf, count, dt, st));
}

int CMIO_NAME(MPI_File_read_all_c)(MPI_File fh, void *buf, MPI_Count count,
                                   MPI_Datatype dt, MPI_Status *st)
{
    DATA_CALL(-1, buf, count, dt, st, 0, PMPI_File_read_all_c(fh, buf, count, dt, st));
}

int CMIO_NAME(MPI_File_read_at_all_c)(MPI_File fh, MPI_Offset off, void *buf,
                                      MPI_Count count, MPI_Datatype dt, MPI_Status *st)
{
    DATA_CALL(AT(off), buf, count, dt, st, 0,
              PMPI_File_read_at_all_c(fh, off, buf, count, dt, st));
}

int CMIO_NAME(MPI_File_write_all_begin_c)(MPI_File fh, const void *buf, MPI_Count count,
                                          MPI_Datatype dt)
{
    SPLIT_BEGIN(-1, BUF(buf), count, dt, 1,
                PMPI_File_write_all_begin_c(fh, buf, count, dt));
}

int CMIO_NAME(MPI_File_write_at_all_begin_c)(MPI_File fh, MPI_Offset off, const void *buf,
                                             MPI_Count count, MPI_Datatype dt)
{
    SPLIT_BEGIN(AT(off), BUF(buf), count, dt, 1,
                PMPI_File_write_at_all_begin_c(fh, off, buf, count, dt));
}

int CMIO_NAME(MPI_File_read_all_begin_c)(MPI_File fh, void *buf, MPI_Count count,
                                         MPI_Datatype dt)
{
    SPLIT_BEGIN(-1, buf, count, dt, 0, PMPI_File_read_all_begin_c(fh, buf, count, dt));
}

int CMIO_NAME(MPI_File_read_at_all_begin_c)(MPI_File fh, MPI_Offset off, void *buf,
                                            MPI_Count count, MPI_Datatype dt)
{
    SPLIT_BEGIN(AT(off), buf, count, dt, 0,
                PMPI_File_read_at_all_begin_c(fh, off, buf, count, dt));
}

int CMIO_NAME(MPI_File_iwrite_all_c)(MPI_File fh, const void *buf, MPI_Count count,
                                     MPI_Datatype dt, MPI_Request *req)
{
    START(-1, BUF(buf), count, dt, 1, req,
          PMPI_File_iwrite_all_c(fh, buf, count, dt, req));
}

int CMIO_NAME(MPI_File_iwrite_at_all_c)(MPI_File fh, MPI_Offset off, const void *buf,
                                        MPI_Count count, MPI_Datatype dt,
                                        MPI_Request *req)
{
    START(AT(off), BUF(buf), count, dt, 1, req,
          PMPI_File_iwrite_at_all_c(fh, off, buf, count, dt, req));
}

int CMIO_NAME(MPI_File_iread_all_c)(MPI_File fh, void *buf, MPI_Count count,
                                    MPI_Datatype dt, MPI_Request *req)
{
    START(-1, buf, count, dt, 0, req, PMPI_File_iread_all_c(fh, buf, count, dt, req));
}

int CMIO_NAME(MPI_File_iread_at_all_c)(MPI_File fh, MPI_Offset off, void *buf,
                                       MPI_Count count, MPI_Datatype dt, MPI_Request *req)
{
    START(AT(off), buf, count, dt, 0, req,
          PMPI_File_iread_at_all_c(fh, off, buf, count, dt, req));
}
#endif

int CMIO_NAME(MPI_Finalize)(void)
{
    if (cmio_foreign())
        return PMPI_Finalize();
    cmio_cache_clear(); /* the plans go before MPI does */
    cmio_report(MPI_COMM_WORLD);
    cmio_flatten_cache_clear();
    return PMPI_Finalize();
}
