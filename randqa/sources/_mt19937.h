/*
 * MT19937 (Matsumoto & Nishimura 1998, with their 2002 init_genrand and
 * init_by_array), the generator several originals share: the 624-word
 * state, its seeding, the twist that renews it and the tempering of each
 * output, for every C file that runs it (the generators, their jumps, the
 * seed search).  MT19937-64 (Nishimura & Matsumoto 2004, with C++11's
 * seeding) is the same algorithm on 312 words of 64 bits, for libstdc++'s
 * mt19937_64 and its jumps: MT_FAMILY writes both from their constants.
 */
#ifndef RANDQA_MT19937_H
#define RANDQA_MT19937_H

#include <stddef.h>
#include <stdint.h>

#define MT_N 624
#define MT_M 397
#define MT64_N 312
#define MT64_M 156

/* mix(hi, lo, far): the word that replaces hi, from the top bit of hi, the
 * low bits of the word after it and the word m further on */
static inline uint32_t
mt_mix(uint32_t hi, uint32_t lo, uint32_t far)
{
    uint32_t y = (hi & 0x80000000u) | (lo & 0x7fffffffu);
    return far ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
}

static inline uint64_t
mt64_mix(uint64_t hi, uint64_t lo, uint64_t far)
{
    uint64_t y = (hi & 0xffffffff80000000ULL) | (lo & 0x7fffffffULL);
    return far ^ (y >> 1) ^ ((y & 1u) ? 0xb5026f5aa96619e9ULL : 0u);
}

static inline uint32_t
mt_temper(uint32_t y)
{
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

static inline uint64_t
mt64_temper(uint64_t y)
{
    y ^= (y >> 29) & 0x5555555555555555ULL;
    y ^= (y << 17) & 0x71d67fffeda60000ULL;
    y ^= (y << 37) & 0xfff7eee000000000ULL;
    return y ^ (y >> 43);
}

/*
 * MT_FAMILY(p, word_t, n, m, f, shift) writes, for a state of n words of
 * type word_t:
 *   p_state          the words and idx, the next word to temper (n when
 *                    the state must twist first);
 *   p_init_genrand   word 0 = seed, word i = f (word i-1 ^ word i-1 >> shift) + i;
 *   p_twist(mt)      each word becomes p_mix(itself, the next, the one m
 *                    further on), around the ring;
 *   p_next           the next output (genrand_int32 / genrand64_int64).
 */
#define MT_FAMILY(p, word_t, n, m, f, shift)                                                       \
    typedef struct { word_t mt[n]; int idx; } p##_state;                                          \
                                                                                                   \
    static inline void p##_init_genrand(p##_state *s, word_t seed)                                \
    {                                                                                              \
        s->mt[0] = seed;                                                                           \
        for (int i = 1; i < (n); i++)                                                              \
            s->mt[i] = (f) * (s->mt[i - 1] ^ (s->mt[i - 1] >> (shift))) + (word_t)i;             \
        s->idx = (n);                                                                              \
    }                                                                                              \
                                                                                                   \
    static inline void p##_twist(word_t *mt)                                                      \
    {                                                                                              \
        int k = 0;                                                                                 \
        for (; k < (n) - (m); k++)                                                                 \
            mt[k] = p##_mix(mt[k], mt[k + 1], mt[k + (m)]);                                       \
        for (; k < (n) - 1; k++)                                                                   \
            mt[k] = p##_mix(mt[k], mt[k + 1], mt[k + (m) - (n)]);                                 \
        mt[(n) - 1] = p##_mix(mt[(n) - 1], mt[0], mt[(m) - 1]);                                   \
    }                                                                                              \
                                                                                                   \
    static inline word_t p##_next(p##_state *s)                                                   \
    {                                                                                              \
        if (s->idx >= (n)) {                                                                       \
            p##_twist(s->mt);                                                                      \
            s->idx = 0;                                                                            \
        }                                                                                          \
        return p##_temper(s->mt[s->idx++]);                                                        \
    }

MT_FAMILY(mt, uint32_t, MT_N, MT_M, 1812433253u, 30)
MT_FAMILY(mt64, uint64_t, MT64_N, MT64_M, 6364136223846793005ULL, 62)

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

#endif
