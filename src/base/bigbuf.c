/*
 * bigbuf.c -- allocation of large, short-lived work buffers (exchange
 * buffers, staging areas) that are filled once per collio_write/read.
 *
 * Why not malloc: a fresh multi-megabyte malloc is a new anonymous mapping
 * whose every 4 KiB page faults on first touch; with 8 ranks on 2 cores the
 * faults of a 12 MB buffer cost about as much as the data movement itself.
 * Here buffers of 4 MiB and more are mapped 2 MiB-aligned and advised as
 * transparent huge pages (MADV_HUGEPAGE, effective where THP is in
 * "madvise" or "always" mode), so one fault maps 2 MiB. Where that is not
 * available it is an ordinary allocation. The memory is not zeroed for
 * the caller's benefit (callers overwrite it).
 */
#include "base/base.h"

#include <stdint.h>
#include <sys/mman.h>

#define BIG_THRESHOLD ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

/* A header before the returned pointer says how it was allocated. */
typedef struct bigbuf_hdr {
    size_t map_bytes; /* 0: malloc'd; else the length of the mapping */
    void *map;        /* start of the mapping */
} bigbuf_hdr;

/* Header space: keeps the returned pointer 64-byte aligned. */
#define HDR_SPACE ((size_t)64)

void *collio__bigbuf_alloc(size_t bytes)
{
    if (bytes > SIZE_MAX - HDR_SPACE - 2 * HUGE_PAGE)
        return NULL;
    if (bytes < BIG_THRESHOLD) {
        char *p = malloc(bytes + HDR_SPACE);
        if (p == NULL)
            return NULL;
        ((bigbuf_hdr *)p)->map_bytes = 0;
        ((bigbuf_hdr *)p)->map = p;
        return p + HDR_SPACE;
    }
    /* Map one huge page more than needed and place the data on a 2 MiB
     * boundary (the header sits in the page before it). */
    size_t len = bytes + HDR_SPACE + HUGE_PAGE;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    uintptr_t start =
        ((uintptr_t)m + HDR_SPACE + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    char *data = (char *)start;
#ifdef MADV_HUGEPAGE
    (void)madvise(data, bytes, MADV_HUGEPAGE); /* advice only: may be ignored */
#endif
    bigbuf_hdr *h = (bigbuf_hdr *)(data - HDR_SPACE);
    h->map_bytes = len;
    h->map = m;
    return data;
}

void collio__bigbuf_free(void *p)
{
    if (p == NULL)
        return;
    bigbuf_hdr *h = (bigbuf_hdr *)((char *)p - HDR_SPACE);
    if (h->map_bytes == 0)
        free(h->map);
    else
        munmap(h->map, h->map_bytes);
}
