/*
 * entry.c -- the C entry points libcollio_mpiio exports, and the MPI
 * library they were built for.
 *
 * The interposer is compiled against one MPI library (its handles, its
 * status, its constants). Preloaded under a program of another -- the
 * Open MPI build under an MPICH program, or the other way round -- the
 * two disagree on what a call's arguments are: an MPICH handle is an int,
 * an Open MPI handle a pointer, and a wrapper that so much as reads an
 * argument as its own type may truncate it. So at load (a constructor:
 * after relocation, before the program's first MPI call) the library
 * asks the program's MPI who it is (MPI_Get_library_version, which the
 * global scope resolves to the program's library: it comes before the
 * interposer's own dependencies), and each exported entry point is a
 * trampoline: where the MPI is this build's, a jump to its wrapper
 * (wrappers.c); where it is another, a jump to that MPI's own function of
 * the same name (dlsym RTLD_NEXT) with every register untouched -- the
 * program then runs as if the interposer were not loaded, and rank 0 says
 * so in one line. The Fortran entry points (fortran.c: pointers and
 * lengths only) forward by their own names.
 *
 * Trampolines are x86-64 assembly; elsewhere the wrappers carry the
 * entry points' names and check cmio_foreign() themselves (right where
 * the two MPIs' handles are the same width).
 */
#include "cmio.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The MPI library this interposer was compiled against, as that
 * library's MPI_Get_library_version names itself, and the interposer the
 * build makes for the other one (interposer/CMakeLists.txt). */
#if defined(OPEN_MPI)
#define BUILT_FOR "Open MPI"
#define OTHER_LIB "libcollio_mpiio_mpich.so"
#elif defined(MPICH)
#define BUILT_FOR "MPICH"
#define OTHER_LIB "libcollio_mpiio_openmpi.so"
#else
#define BUILT_FOR NULL
#define OTHER_LIB NULL
#endif

/* 1: the program runs another MPI (set at load) */
__attribute__((visibility("hidden"))) unsigned char cmio_foreign_flag = 0;

int cmio_foreign(void)
{
    return cmio_foreign_flag;
}

/* The entry points, each a wrapper of wrappers.c and, under another MPI,
 * that MPI's own function (cmio_next_NAME). */
#define ENTRY_POINTS(X)                                                                  \
    X(MPI_Init)                                                                          \
    X(MPI_Init_thread)                                                                   \
    X(MPI_Finalize)                                                                      \
    X(MPI_File_open)                                                                     \
    X(MPI_File_close)                                                                    \
    X(MPI_File_set_view)                                                                 \
    X(MPI_File_write_all)                                                                \
    X(MPI_File_write_at_all)                                                             \
    X(MPI_File_read_all)                                                                 \
    X(MPI_File_read_at_all)                                                              \
    X(MPI_File_write_all_begin)                                                          \
    X(MPI_File_write_all_end)                                                            \
    X(MPI_File_write_at_all_begin)                                                       \
    X(MPI_File_write_at_all_end)                                                         \
    X(MPI_File_read_all_begin)                                                           \
    X(MPI_File_read_all_end)                                                             \
    X(MPI_File_read_at_all_begin)                                                        \
    X(MPI_File_read_at_all_end)                                                          \
    X(MPI_File_iwrite_all)                                                               \
    X(MPI_File_iwrite_at_all)                                                            \
    X(MPI_File_iread_all)                                                                \
    X(MPI_File_iread_at_all)                                                             \
    X(MPI_Wait)                                                                          \
    X(MPI_Waitall)                                                                       \
    X(MPI_Waitany)                                                                       \
    X(MPI_Waitsome)                                                                      \
    CMIO_LARGE_COUNT_ENTRY_POINTS(X)
#if MPI_VERSION >= 4
#define CMIO_LARGE_COUNT_ENTRY_POINTS(X)                                                 \
    X(MPI_File_write_all_c)                                                              \
    X(MPI_File_write_at_all_c)                                                           \
    X(MPI_File_read_all_c)                                                               \
    X(MPI_File_read_at_all_c)                                                            \
    X(MPI_File_write_all_begin_c)                                                        \
    X(MPI_File_write_at_all_begin_c)                                                     \
    X(MPI_File_read_all_begin_c)                                                         \
    X(MPI_File_read_at_all_begin_c)                                                      \
    X(MPI_File_iwrite_all_c)                                                             \
    X(MPI_File_iwrite_at_all_c)                                                          \
    X(MPI_File_iread_all_c)                                                              \
    X(MPI_File_iread_at_all_c)
#else
#define CMIO_LARGE_COUNT_ENTRY_POINTS(X)
#endif

#ifdef CMIO_TRAMPOLINES
#define NEXT(name) __attribute__((visibility("hidden"))) void *cmio_next_##name = NULL;
ENTRY_POINTS(NEXT)
#define TRAMPOLINE(name)                                                                 \
    __asm__(".text\n"                                                                    \
            ".globl " #name "\n"                                                         \
            ".type " #name ", @function\n" #name ":\n"                                   \
            "    cmpb $0, cmio_foreign_flag(%rip)\n"                                     \
            "    jne 1f\n"                                                               \
            "    jmp cmio_" #name "\n"                                                   \
            "1:  jmp *cmio_next_" #name "(%rip)\n"                                       \
            ".size " #name ", .-" #name "\n");
ENTRY_POINTS(TRAMPOLINE)
#define LOOK_UP(name) cmio_next_##name = dlsym(RTLD_NEXT, #name);
#endif

/* Rank 0 (by the launchers' variables: MPI is not asked, its handles are
 * not ours) says once that the interposer stays out. */
static void say(char *v)
{
    const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    const char *rank = NULL;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0] && rank == NULL; i++)
        rank = getenv(vars[i]);
    if (rank != NULL && strcmp(rank, "0") != 0)
        return;
    /* "MPICH Version:\t4.0.2\n..." or "Open MPI v4.1.4, ...": its first
     * line, to the comma, without "Version:" and tabs */
    v[strcspn(v, "\n,")] = '\0';
    char *w = strstr(v, " Version:");
    if (w != NULL)
        memmove(w, w + 9, strlen(w + 9) + 1);
    for (char *t = v; *t; t++)
        if (*t == '\t')
            *t = ' ';
    fprintf(
        stderr,
        "collio_mpiio: this interposer was built for %s, the program runs %s: collio "
        "stays out of it (every call goes to the program's MPI unchanged); preload the "
        "one built for that MPI (%s) instead\n",
        BUILT_FOR, v, OTHER_LIB);
}

__attribute__((constructor)) static void detect(void)
{
    static char v[16384]; /* (MPICH's MPI_MAX_LIBRARY_VERSION_STRING: 8192) */
    int n = 0;
    if (BUILT_FOR == NULL || MPI_Get_library_version(v, &n) != MPI_SUCCESS || n <= 0
        || strstr(v, BUILT_FOR) != NULL)
        return;
#ifdef CMIO_TRAMPOLINES
    ENTRY_POINTS(LOOK_UP)
#endif
    cmio_foreign_flag = 1;
    say(v);
}
