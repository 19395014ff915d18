/*
 * pattern.h -- verification data: every element gets distinct bytes derived
 * from its 64-bit global index (and a seed, so that consecutive writes can
 * carry different data). Used by collio-bench and the tests as the
 * independent reference of what the file must hold: byte j of element i is
 * a function of (i, j, seed) only, never of the layout or the strategy.
 * (A float of the index would repeat beyond 2^24; this does not.)
 */
#ifndef COLLIO_PATTERN_H
#define COLLIO_PATTERN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* splitmix64 finaliser: a bijection on 64-bit words. */
static inline uint64_t collio_pattern_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* murmur3 fmix32: a bijection on 32-bit words. */
static inline uint32_t collio_pattern_mix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bU;
    h ^= h >> 13;
    h *= 0xc2b2ae35U;
    return h ^ (h >> 16);
}

/* Writes the esize bytes of element `index` under `seed` to out. For a fixed
 * seed the leading word is a bijection of the index: 8-byte (and larger)
 * elements are distinct for all indices, 4..7-byte elements for any 2^32
 * consecutive indices (a float32 vector of 2^32 entries). Never periodic
 * with period 2^24 as a float of the index would be. */
static inline void collio_pattern_element(uint64_t index, uint64_t seed, size_t esize,
                                          unsigned char *out)
{
    uint64_t key = collio_pattern_mix(seed);
    uint64_t base = collio_pattern_mix(index ^ key);
    if (esize < 8) {
        uint32_t v = collio_pattern_mix32((uint32_t)index ^ (uint32_t)key);
        uint64_t w = ((uint64_t)(uint32_t)(base >> 32) << 32) | v;
        memcpy(out, &w, esize); /* little-endian: v comes first */
        return;
    }
    for (size_t j = 0; j < esize; j += 8) {
        uint64_t w = j == 0 ? base : collio_pattern_mix(base + j);
        size_t n = esize - j < 8 ? esize - j : 8;
        memcpy(out + j, &w, n);
    }
}

/* Fills a packed buffer: element k gets the pattern of global index idx(k). */
static inline void collio_pattern_fill_range(uint64_t first_index, uint64_t n,
                                             uint64_t seed, size_t esize,
                                             unsigned char *out)
{
    for (uint64_t k = 0; k < n; k++)
        collio_pattern_element(first_index + k, seed, esize, out + k * esize);
}

#endif /* COLLIO_PATTERN_H */
