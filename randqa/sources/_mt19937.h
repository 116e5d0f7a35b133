/*
 * MT19937 (Matsumoto & Nishimura 1998, with their 2002 init_genrand and
 * init_by_array), the generator several originals share: the 624-word
 * state, its seeding, the twist that renews it and the tempering of each
 * output, for every C file that runs it (the generators, their jumps, the
 * seed search).  MT19937-64 (Nishimura & Matsumoto 2004) has the same
 * twist on 312 words of 64 bits: its constants, mixing and twist are here
 * too, for libstdc++'s mt19937_64 and its jumps.
 */
#ifndef RANDQA_MT19937_H
#define RANDQA_MT19937_H

#include <stddef.h>
#include <stdint.h>

#define MT_N 624
#define MT_M 397

/* idx: the next word of mt[] to temper; MT_N when the state must twist first */
typedef struct { uint32_t mt[MT_N]; int idx; } mt_state;

static inline void
mt_init_genrand(mt_state *m, uint32_t s)
{
    m->mt[0] = s;
    for (int i = 1; i < MT_N; i++)
        m->mt[i] = 1812433253u * (m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) + (uint32_t)i;
    m->idx = MT_N;
}

/* inline: a module that never seeds by array gets no unused-function warning */
static inline void
mt_init_by_array(mt_state *m, const uint32_t *key, size_t len)
{
    mt_init_genrand(m, 19650218u);
    size_t i = 1, j = 0;
    for (size_t k = (MT_N > len ? MT_N : len); k; k--) {
        m->mt[i] = (m->mt[i] ^ ((m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            m->mt[0] = m->mt[MT_N - 1];
            i = 1;
        }
        if (j >= len)
            j = 0;
    }
    for (size_t k = MT_N - 1; k; k--) {
        m->mt[i] = (m->mt[i] ^ ((m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            m->mt[0] = m->mt[MT_N - 1];
            i = 1;
        }
    }
    m->mt[0] = 0x80000000u; /* non-zero initial array */
    m->idx = MT_N;
}

static inline uint32_t
mt_mix(uint32_t hi, uint32_t lo, uint32_t far)
{
    uint32_t y = (hi & 0x80000000u) | (lo & 0x7fffffffu);
    return far ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
}

/* The twist `name(mt)` of a state of n words of type word_t: each word
 * becomes mix(itself, the next, the one m further on), around the ring. */
#define MT_TWIST(name, word_t, n, m, mix)                          \
    static inline void name(word_t *mt)                            \
    {                                                              \
        int k = 0;                                                 \
        for (; k < (n) - (m); k++)                                 \
            mt[k] = mix(mt[k], mt[k + 1], mt[k + (m)]);            \
        for (; k < (n) - 1; k++)                                   \
            mt[k] = mix(mt[k], mt[k + 1], mt[k + (m) - (n)]);      \
        mt[(n) - 1] = mix(mt[(n) - 1], mt[0], mt[(m) - 1]);        \
    }

MT_TWIST(mt_twist, uint32_t, MT_N, MT_M, mt_mix)

static inline uint32_t
mt_temper(uint32_t y)
{
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

/* genrand_int32(): the next 32-bit output */
static inline uint32_t
mt_next(mt_state *m)
{
    if (m->idx >= MT_N) {
        mt_twist(m->mt);
        m->idx = 0;
    }
    return mt_temper(m->mt[m->idx++]);
}

#define MT64_N 312
#define MT64_M 156

static inline uint64_t
mt64_mix(uint64_t hi, uint64_t lo, uint64_t far)
{
    uint64_t y = (hi & 0xffffffff80000000ULL) | (lo & 0x7fffffffULL);
    return far ^ (y >> 1) ^ ((y & 1u) ? 0xb5026f5aa96619e9ULL : 0u);
}

MT_TWIST(mt64_twist, uint64_t, MT64_N, MT64_M, mt64_mix)

#endif
