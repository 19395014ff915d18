/*
 * internal/machine.h -- the machine's constants for the cost model
 * (machine/calibration.c), which file system holds a path
 * (machine/fs_id.c), the link between nodes against a memory copy
 * (machine/link_probe.c), and the CPU's copy aliasing penalty
 * (machine/alias.c).
 * Part of collio_internal.h, which includes every part in order.
 */
#ifndef COLLIO_INTERNAL_MACHINE_H
#define COLLIO_INTERNAL_MACHINE_H

/* The file costs of a file system no calibration measured: a local
 * disk's (type "default"), or with `networked` (collio_fs_is_networked)
 * a networked file system's ("default-networked"); docs/auto.md lists
 * both. */
void collio__fs_costs_default(collio_fs_costs *fs, int networked);

/* Collective (machine/link_probe.c): the link rate between two nodes
 * and the rate of a memory copy, bytes per second, measured once per
 * process (a ping-pong of 1 MiB between the first two nodes' lowest
 * ranks; for a plan on one node neither is measured, both 0), rank 0's
 * figures on every rank. Agreed code. */
int collio__link_probe(collio_plan *p, double *net_bw, double *mem_bw);

/* A 64-bit key of a file system's identity (type, mount point, source):
 * equal for equal identities (but for collisions), never 0. */
uint64_t collio__fs_key(const collio_fs_id *id);

/* The copy's 4 KiB aliasing penalty (machine/alias.c): on some CPUs a
 * `rep movsb` copy -- the kernel's copy to and from user memory, glibc's
 * memcpy from 2112 bytes up -- is 5-10x slower where the destination lies
 * 1..31 bytes past the source modulo 4 KiB. A copy is in the window where
 * dst - src modulo 4 KiB lies in [1, ALIAS_WINDOW); below ALIAS_MIN_BYTES
 * the penalty is a fraction of a read's system call (1.2-1.6x at 256 B-1
 * KiB, 2.2x at 2 KiB, 6x at 16 KiB, measured). */
#define COLLIO__ALIAS_PAGE 4096
#define COLLIO__ALIAS_WINDOW 64
#define COLLIO__ALIAS_MIN_BYTES 2048
/* Local: 1 if copies in the window step around it: this CPU pays the
 * penalty (measured once per process), or COLLIO_COPY_ALIAS=1 (0: never). */
int collio__alias_avoid(void);
/* Local: COLLIO_ERR_ARG, said, if COLLIO_COPY_ALIAS is set to anything but
 * 0, 1 or empty (collio_plan_create checks it). */
int collio__alias_env_check(void);
/* Local: 1 if reading [off, off + n) of a file into dst should bounce. */
int collio__alias_hit(const void *dst, int64_t off, size_t n);
/* Local: where in a bounce buffer aligned to ALIAS_PAGE (and ALIAS_PAGE
 * bytes longer than it holds) the bytes from file offset off go (0 ..
 * ALIAS_PAGE - 1): ALIAS_WINDOW bytes past off's alignment. */
size_t collio__alias_place(int64_t off);
/* Pieces of a stepped copy: under glibc's x86_rep_movsb_threshold (2112
 * bytes on the CPUs measured; 2048 at the least on x86-64). */
#define COLLIO__ALIAS_STEP 2048
/* Local: memcpy(dst, src, n) for n > ALIAS_STEP (no overlap), in pieces of
 * ALIAS_STEP where dst is in src's window and the CPU pays. */
void collio__copy_large(void *dst, const void *src, size_t n);
/* Local: memcpy(dst, src, n) (no overlap) for the strategies' copy loops:
 * small copies go straight to memcpy (glibc's vector loop, no penalty). */
static inline void collio__copy(void *dst, const void *src, size_t n)
{
    if (n <= COLLIO__ALIAS_STEP)
        memcpy(dst, src, n);
    else
        collio__copy_large(dst, src, n);
}

#endif /* COLLIO_INTERNAL_MACHINE_H */
