/*
 * Compiled generator backends (randqa.sources.backends).
 *
 * Every generator is a `Generator` object whose `fill(buffer)` writes
 * exactly len(buffer) bytes of its stream.  Generators produce whole words
 * (1, 2, 4 or 8 bytes); a word split by a buffer boundary is kept in
 * `pending`, so the byte stream never depends on how callers cut it.
 *
 * Written from the published algorithms (glibc's random_r TYPE_3 as
 * documented, the MSVC/ANSI C LCGs, Park-Miller, Marsaglia, Vigna,
 * Matsumoto-Nishimura, the JDK's java.util.Random, Knuth's MMIX LCG, RC4, libdnet's rand.c keying, Linux lib/random32.c
 * of 5.10, L'Ecuyer's prime-modulus LCG, PCG's 128-bit LCG, Brent's lagged Fibonacci), each seeded by the original's own seeding routine.  The
 * module docstring of randqa/sources/backends.py documents byte order.
 */
#include "../_module.h"
#include <stdint.h>
#include <string.h>

#include "_mt19937.h"
#include "_rc4.h"

/* ------------------------------------------------------------------ */
/* Generator states                                                     */

#define GLIBC_DEG 31
#define GLIBC_SEP 3
#define GLIBC_BLOCK 1024

typedef struct { uint32_t hist[GLIBC_DEG]; } glibc_state;        /* r[i-31..i-1], oldest first */
typedef struct { uint32_t x, a, c; } lcg15_state;                 /* x = a*x + c mod 2^32, output bits 16..30 */
typedef struct { uint32_t x; } u32_state;
typedef struct { uint64_t x; } u64_state;
typedef struct { uint32_t s1, s2, s3, s4; } taus_state;
typedef struct { uint64_t v0, v1, v2, v3; } sip_state;
typedef struct { uint64_t x, a, c, mask; unsigned shift; } lcg64_state; /* x = a*x + c mod mask+1, output x >> shift */
typedef struct { uint64_t hi, lo; } lcg128_state;                 /* x = hi 2^64 + lo */
typedef struct { uint64_t *x; unsigned pos; } lfib_state;         /* x: the last LFIB_R outputs (owned), pos: next to output */
typedef struct { uint64_t x, gamma, mask, m1, m2; unsigned s1, s2, s3; } narrow_splitmix_state; /* B-bit SplitMix */

typedef union {
    glibc_state glibc;
    lcg15_state lcg;
    u32_state u32;
    u64_state u64;
    mt_state mt;
    rc4_state rc4;
    taus_state taus;
    sip_state sip;
    lcg64_state lcg64;
    lcg128_state lcg128;
    lfib_state lfib;
    narrow_splitmix_state nsm;
} generator_state;

#define GENERATOR_TYPE_NAME "randqa.sources._generators.Generator"
#include "_generator_object.h"

/* ------------------------------------------------------------------ */
/* glibc rand(): random_r TYPE_3, the additive feedback generator
 * r[i] = r[i-31] + r[i-3] (mod 2^32), output r[i] >> 1.                */

static void
glibc_seed(glibc_state *g, uint32_t seed)
{
    /* srandom_r: r[0] = seed (0 becomes 1), r[1..30] by the Park-Miller
     * LCG on the signed 32-bit value, then 310 outputs discarded. */
    int32_t r[GLIBC_DEG + 10 * GLIBC_DEG + GLIBC_SEP];
    if (seed == 0)
        seed = 1;
    r[0] = (int32_t)seed;
    for (int i = 1; i < GLIBC_DEG; i++) {
        int64_t w = (16807 * (int64_t)r[i - 1]) % 2147483647;
        if (w < 0)
            w += 2147483647;
        r[i] = (int32_t)w;
    }
    /* The ring buffer starts with its front pointer SEP ahead: in sequence
     * form r[31..33] repeat r[0..2] and the additive recurrence starts at 34. */
    for (int i = GLIBC_DEG; i < GLIBC_DEG + GLIBC_SEP; i++)
        r[i] = r[i - GLIBC_DEG];
    int total = GLIBC_DEG + 10 * GLIBC_DEG + GLIBC_SEP; /* 344: 310 discarded */
    for (int i = GLIBC_DEG + GLIBC_SEP; i < total; i++)
        r[i] = (int32_t)((uint32_t)r[i - GLIBC_DEG] + (uint32_t)r[i - GLIBC_SEP]);
    for (int i = 0; i < GLIBC_DEG; i++)
        g->hist[i] = (uint32_t)r[total - GLIBC_DEG + i];
}

/* mode 0: 31-bit outputs as 4 LE bytes; 1: low byte; 2: low 16 bits as 2 LE bytes */
#define GLIBC_FILL(NAME, WORD, STORE)                                                   \
    static void NAME(GenObject *g, uint8_t *RESTRICT out, size_t nwords)               \
    {                                                                                   \
        uint32_t w[GLIBC_DEG + GLIBC_BLOCK];                                            \
        memcpy(w, g->st.glibc.hist, sizeof g->st.glibc.hist);                           \
        while (nwords > 0) {                                                            \
            size_t m = nwords < GLIBC_BLOCK ? nwords : GLIBC_BLOCK;                     \
            for (size_t k = 0; k < m; k++) {                                            \
                uint32_t x = w[k] + w[k + GLIBC_DEG - GLIBC_SEP];                       \
                w[k + GLIBC_DEG] = x;                                                   \
                STORE(out + (WORD) * k, x >> 1);                                        \
            }                                                                           \
            memmove(w, w + m, sizeof(uint32_t) * GLIBC_DEG);                            \
            out += (WORD) * m;                                                          \
            nwords -= m;                                                                \
        }                                                                               \
        memcpy(g->st.glibc.hist, w, sizeof g->st.glibc.hist);                           \
    }

static inline void store_byte(uint8_t *p, uint32_t v) { *p = (uint8_t)v; }
GLIBC_FILL(glibc_fill31, 4, store_le32)
GLIBC_FILL(glibc_fill8, 1, store_byte)
GLIBC_FILL(glibc_fill16, 2, store_le16)

/* ------------------------------------------------------------------ */
/* 15-bit LCG rand(): MSVC (214013, 2531011) and the C standard's example
 * (1103515245, 12345); both return (x >> 16) & 0x7fff.                 */
#define MSVC_A 214013u
#define MSVC_C 2531011u
#define ANSI_C_A 1103515245u
#define ANSI_C_C 12345u

/* WORD = 1: the output's low byte; 2: the 15-bit output as 2 LE bytes */
#define LCG15_FILL(NAME, WORD, STORE)                                      \
    static void NAME(GenObject *g, uint8_t *RESTRICT out, size_t n)       \
    {                                                                      \
        uint32_t x = g->st.lcg.x, a = g->st.lcg.a, c = g->st.lcg.c;        \
        for (size_t k = 0; k < n; k++) {                                   \
            x = a * x + c;                                                 \
            STORE(out + (WORD) * k, (x >> 16) & 0x7fff);                   \
        }                                                                  \
        g->st.lcg.x = x;                                                   \
    }

LCG15_FILL(lcg15_fill8, 1, store_byte)
LCG15_FILL(lcg15_fill16, 2, store_le16)

/* ------------------------------------------------------------------ */
/* RANDU, MINSTD, xorshift32, splitmix64                                 */

/* A generator of one 32-bit state word that outputs each new state as 4 LE bytes */
#define U32_STATE_FILL(NAME, STEP)                                      \
    static void NAME(GenObject *g, uint8_t *RESTRICT out, size_t n)    \
    {                                                                   \
        uint32_t x = g->st.u32.x;                                       \
        for (size_t k = 0; k < n; k++) {                                \
            x = STEP(x);                                                \
            store_le32(out + 4 * k, x);                                 \
        }                                                               \
        g->st.u32.x = x;                                                \
    }

#define RANDU_A 65539u
#define MINSTD_A 16807u
#define SPLITMIX64_GAMMA 0x9e3779b97f4a7c15ULL

static inline uint32_t
randu_step(uint32_t x)
{
    return (RANDU_A * x) & 0x7fffffffu;
}

/* x = 16807 x mod (2^31 - 1), reduced with 2^31 = 1 (mod 2^31 - 1) */
static inline uint32_t
minstd_step(uint32_t x)
{
    uint64_t t = (uint64_t)x * MINSTD_A;
    t = (t & 0x7fffffffu) + (t >> 31);
    if (t >= 0x7fffffffu)
        t -= 0x7fffffffu;
    return (uint32_t)t;
}

static inline uint32_t
xorshift32_step(uint32_t x)
{
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
}

U32_STATE_FILL(randu_fill, randu_step)
U32_STATE_FILL(minstd_fill, minstd_step)
U32_STATE_FILL(xorshift32_fill, xorshift32_step)

static inline uint64_t
splitmix64_next(uint64_t *s)
{
    uint64_t z = (*s += SPLITMIX64_GAMMA);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void
splitmix64_fill(GenObject *g, uint8_t *RESTRICT out, size_t n)
{
    uint64_t s = g->st.u64.x;
    for (size_t k = 0; k < n; k++)
        store_le64(out + 8 * k, splitmix64_next(&s));
    g->st.u64.x = s;
}

/* ------------------------------------------------------------------ */
/* Power-of-two LCGs that output the top 32 bits of their state:
 * java.util.Random (mod 2^48, nextInt() = bits 47..16) and Knuth's MMIX
 * LCG (mod 2^64, bits 63..32).  The state steps before each output.    */

static void
lcg64_top32_fill(GenObject *g, uint8_t *RESTRICT out, size_t n)
{
    uint64_t x = g->st.lcg64.x, a = g->st.lcg64.a, c = g->st.lcg64.c, mask = g->st.lcg64.mask;
    unsigned shift = g->st.lcg64.shift;
    for (size_t k = 0; k < n; k++) {
        x = (a * x + c) & mask;
        store_le32(out + 4 * k, (uint32_t)(x >> shift));
    }
    g->st.lcg64.x = x;
}

/* ------------------------------------------------------------------ */
/* Generators that pass PractRand and BigCrush but fail SmokeRand's
 * targeted tests (randqa/battery/birthday_spacings.py, gap16.py, ...).  */

/* Multiplicative LCG modulo the prime m = 2^64 - 59 with L'Ecuyer's
 * multiplier 13891176665706064842 (P. L'Ecuyer, "Tables of linear
 * congruential generators of different sizes and good lattice structure",
 * Math. Comp. 68 (1999) 249-260, table 4).  Outputs each new state, a value
 * in [1, m - 1], as 8 LE bytes. */
#define PRIME64_M 18446744073709551557ULL /* 2^64 - 59 */
#define PRIME64_A 13891176665706064842ULL

static inline uint64_t
prime64_step(uint64_t x)
{
    /* a x = hi 2^64 + lo = 59 hi + lo (mod m), since 2^64 = 59 (mod m) */
    uint64_t hi, lo = mul_64x64(PRIME64_A, x, &hi);
    uint64_t thi, tlo = mul_64x64(hi, 59, &thi);
    uint64_t s = lo + tlo, k = thi + (s < lo); /* a x = k 2^64 + s (mod m), k <= 59 */
    uint64_t r = s + 59 * k;
    if (r < s) /* wrapped past 2^64 once more: that 2^64 is 59 */
        r += 59;
    return r >= PRIME64_M ? r - PRIME64_M : r;
}

static void
prime64_fill(GenObject *g, uint8_t *RESTRICT out, size_t n)
{
    uint64_t x = g->st.u64.x;
    for (size_t k = 0; k < n; k++) {
        x = prime64_step(x);
        store_le64(out + 8 * k, x);
    }
    g->st.u64.x = x;
}

/* The LCG mod 2^128 of PCG's 128-bit generators (M. E. O'Neill, pcg_variants.h:
 * PCG_DEFAULT_MULTIPLIER_128 and PCG_DEFAULT_INCREMENT_128), without PCG's
 * output permutation: each new state's top 64 or top 32 bits. */
#define PCG128_MUL_HI 0x2360ED051FC65DA4ULL
#define PCG128_MUL_LO 0x4385DF649FCCF645ULL
#define PCG128_INC_HI 0x5851F42D4C957F2DULL
#define PCG128_INC_LO 0x14057B7EF767814FULL

static inline void
lcg128_step(lcg128_state *s)
{
    uint64_t hi, lo = mul_64x64(PCG128_MUL_LO, s->lo, &hi);
    hi += PCG128_MUL_HI * s->lo + PCG128_MUL_LO * s->hi; /* the rest of a x mod 2^128 */
    uint64_t sum = lo + PCG128_INC_LO;
    s->hi = hi + PCG128_INC_HI + (sum < lo);
    s->lo = sum;
}

/* pcg_oneseq_128_srandom_r(rng, initstate): state = 0, step, state += initstate, step */
static void
lcg128_seed(lcg128_state *s, uint64_t seed_hi, uint64_t seed_lo)
{
    s->hi = s->lo = 0;
    lcg128_step(s);
    uint64_t lo = s->lo + seed_lo;
    s->hi += seed_hi + (lo < seed_lo);
    s->lo = lo;
    lcg128_step(s);
}

/* NAME: the top WORD bytes of each new state, STORE(out, state) */
#define LCG128_FILL(NAME, WORD, STORE)                                  \
    static void NAME(GenObject *g, uint8_t *RESTRICT out, size_t n)    \
    {                                                                   \
        lcg128_state s = g->st.lcg128;                                  \
        for (size_t k = 0; k < n; k++) {                                \
            lcg128_step(&s);                                            \
            STORE(out + (WORD) * k, s.hi);                              \
        }                                                               \
        g->st.lcg128 = s;                                               \
    }

static inline void store_top32(uint8_t *p, uint64_t v) { store_le32(p, (uint32_t)(v >> 32)); }
LCG128_FILL(lcg128_top64_fill, 8, store_le64)
LCG128_FILL(lcg128_top32_fill, 4, store_top32)

/* Additive lagged Fibonacci LFib(19937, 9842, +) mod 2^64: X_n = X_{n-19937}
 * + X_{n-9842} (Brent, "Uniform random number generators for supercomputers",
 * 1992, lists such lags from primitive trinomials; x^19937 + x^9842 + 1 is
 * primitive).  Outputs whole 64-bit values as 8 LE bytes.  The last R
 * values are refreshed LFIB_R at a time: the first LFIB_S new ones read old
 * values only, the rest the new ones just written. */
#define LFIB_R 19937
#define LFIB_S 9842

static void
lfib_refresh(uint64_t *x)
{
    for (int i = 0; i < LFIB_S; i++)
        x[i] += x[i + LFIB_R - LFIB_S];
    for (int i = LFIB_S; i < LFIB_R; i++)
        x[i] += x[i - LFIB_S];
}

/* NAME: each value (WORD = 8) or its top 32 bits (WORD = 4, SmokeRand's
 * lfib_par: the lowest bit output is bit 32, which carries make non-linear) */
#define LFIB_FILL(NAME, WORD, STORE)                                    \
    static void NAME(GenObject *g, uint8_t *RESTRICT out, size_t n)    \
    {                                                                   \
        uint64_t *x = g->st.lfib.x;                                     \
        unsigned pos = g->st.lfib.pos;                                  \
        for (size_t k = 0; k < n; k++) {                                \
            if (pos == LFIB_R) {                                        \
                lfib_refresh(x);                                        \
                pos = 0;                                                \
            }                                                           \
            STORE(out + (WORD) * k, x[pos++]);                          \
        }                                                               \
        g->st.lfib.pos = pos;                                           \
    }

LFIB_FILL(lfib_fill, 8, store_le64)
LFIB_FILL(lfib_top32_fill, 4, store_top32)

/* SplitMix64's algorithm on a B-bit state (16 <= B <= 64): the counter
 * x += gamma and the mix z ^= z >> s1, z *= m1, z ^= z >> s2, z *= m2,
 * z ^= z >> s3, all modulo 2^B, with SplitMix64's shifts scaled by B/64 and
 * the low B bits of its gamma and multipliers (odd, so each step is a
 * bijection).  Its outputs are a permutation of the 2^B counter values:
 * none repeats within 2^B outputs, which the decimated collision test
 * detects at about 2^(B/2) outputs (randqa/battery/decimated_collisions.py).
 * B = 64 is SplitMix64 itself.  Each output as 8 LE bytes. */
static void
narrow_splitmix_fill(GenObject *g, uint8_t *RESTRICT out, size_t n)
{
    narrow_splitmix_state s = g->st.nsm;
    for (size_t k = 0; k < n; k++) {
        s.x = (s.x + s.gamma) & s.mask;
        uint64_t z = s.x;
        z = ((z ^ (z >> s.s1)) * s.m1) & s.mask;
        z = ((z ^ (z >> s.s2)) * s.m2) & s.mask;
        store_le64(out + 8 * k, z ^ (z >> s.s3));
    }
    g->st.nsm.x = s.x;
}

static void
narrow_splitmix_seed(narrow_splitmix_state *s, uint64_t state, int bits)
{
    s->mask = bits == 64 ? ~0ULL : (1ULL << bits) - 1;
    s->gamma = (SPLITMIX64_GAMMA >> (64 - bits)) | 1;
    s->m1 = 0xbf58476d1ce4e5b9ULL & s->mask;
    s->m2 = 0x94d049bb133111ebULL & s->mask;
    s->s1 = (unsigned)((30 * bits + 32) / 64);
    s->s2 = (unsigned)((27 * bits + 32) / 64);
    s->s3 = (unsigned)((31 * bits + 32) / 64);
    s->x = state & s->mask;
}

/* The first R values from SplitMix64 seeded with `seed`, the lowest bit of
 * the first set (all-even values would keep every output even); none of them
 * is output. */
static void
lfib_seed(lfib_state *s, uint64_t seed)
{
    for (int i = 0; i < LFIB_R; i++)
        s->x[i] = splitmix64_next(&seed);
    s->x[0] |= 1;
    s->pos = LFIB_R;
}

/* ------------------------------------------------------------------ */
/* MT19937 (_mt19937.h)                                                  */

static void
mt_fill(GenObject *g, uint8_t *RESTRICT out, size_t n)
{
    mt_state *m = &g->st.mt;
    int idx = m->idx;
    while (n > 0) {
        if (idx >= MT_N) {
            mt_twist(m->mt);
            idx = 0;
        }
        size_t take = (size_t)(MT_N - idx) < n ? (size_t)(MT_N - idx) : n;
        const uint32_t *src = m->mt + idx;
        for (size_t k = 0; k < take; k++) {
            store_le32(out + 4 * k, mt_temper(src[k]));
        }
        idx += (int)take;
        out += 4 * take;
        n -= take;
    }
    m->idx = idx;
}

/* ------------------------------------------------------------------ */
/* RC4 / ARC4 keystream; keyed either as RC4 (KSA) or as libdnet's rand.c,
 * both in _rc4.h */

static void
rc4_fill(GenObject *g, uint8_t *RESTRICT out, size_t n)
{
    rc4_keystream(&g->st.rc4, out, n);
}

/* ------------------------------------------------------------------ */
/* Linux prandom_u32_state: L'Ecuyer's LFSR113 combined Tausworthe       */

static inline uint32_t
taus_next(taus_state *t)
{
#define TAUS_STEP(s, a, b, c, d) ((((s) & (c)) << (d)) ^ ((((s) << (a)) ^ (s)) >> (b)))
    t->s1 = TAUS_STEP(t->s1, 6u, 13u, 4294967294u, 18u);
    t->s2 = TAUS_STEP(t->s2, 2u, 27u, 4294967288u, 2u);
    t->s3 = TAUS_STEP(t->s3, 13u, 21u, 4294967280u, 7u);
    t->s4 = TAUS_STEP(t->s4, 3u, 12u, 4294967168u, 13u);
#undef TAUS_STEP
    return t->s1 ^ t->s2 ^ t->s3 ^ t->s4;
}

static void
taus_fill(GenObject *g, uint8_t *RESTRICT out, size_t n)
{
    taus_state t = g->st.taus;
    for (size_t k = 0; k < n; k++)
        store_le32(out + 4 * k, taus_next(&t));
    g->st.taus = t;
}

/* __seed(): each component needs its k_j most significant bits non-zero */
static inline uint32_t taus_min(uint32_t x, uint32_t m) { return x < m ? x + m : x; }

static void
taus_warmup(taus_state *t)
{
    for (int k = 0; k < 10; k++)
        taus_next(t);
}

/* prandom_seed_state(state, seed), followed by prandom_warmup().  In 5.10
 * prandom_seed_state itself stops after the __seed fix-ups (and feeds the
 * noise word); the warm-up is what prandom_seed_full_state and the
 * self-test add, applied here too so the four equal-start components
 * (all seeded from one 32-bit fold) are mixed before the first output. */
static void
taus_seed_state(taus_state *t, uint64_t seed)
{
    uint32_t i = (uint32_t)(((seed >> 32) ^ (seed << 10) ^ seed) & 0xffffffffu);
    t->s1 = taus_min(i, 2u);
    t->s2 = taus_min(i, 8u);
    t->s3 = taus_min(i, 16u);
    t->s4 = taus_min(i, 128u);
    taus_warmup(t);
}

/* prandom_seed_early(state, seed, false) + prandom_warmup(): the kernel
 * self-test's seeding, chained through the 69069 LCG */
static void
taus_seed_selftest(taus_state *t, uint32_t seed)
{
    t->s1 = taus_min(seed * 69069u, 2u);
    t->s2 = taus_min(t->s1 * 69069u, 8u);
    t->s3 = taus_min(t->s2 * 69069u, 16u);
    t->s4 = taus_min(t->s3 * 69069u, 128u);
    taus_warmup(t);
}

/* ------------------------------------------------------------------ */
/* Linux 5.10 siprand_u32 (64-bit longs): two SipRounds, return v1 + v3.
 * net_rand_noise is 0 here: no packets feed this userspace copy.        */

#define SIPROUND(v0, v1, v2, v3)                                                      \
    do {                                                                              \
        v0 += v1; v1 = rol64(v1, 13); v2 += v3; v3 = rol64(v3, 16);                   \
        v1 ^= v0; v0 = rol64(v0, 32); v3 ^= v2;                                       \
        v0 += v3; v3 = rol64(v3, 21); v2 += v1; v1 = rol64(v1, 17);                   \
        v3 ^= v0; v1 ^= v2; v2 = rol64(v2, 32);                                       \
    } while (0)

#define PRND_K0 (0x736f6d6570736575ULL ^ 0x6c7967656e657261ULL)
#define PRND_K1 (0x646f72616e646f6dULL ^ 0x7465646279746573ULL)

static void
sip_fill(GenObject *g, uint8_t *RESTRICT out, size_t n)
{
    uint64_t v0 = g->st.sip.v0, v1 = g->st.sip.v1, v2 = g->st.sip.v2, v3 = g->st.sip.v3;
    for (size_t k = 0; k < n; k++) {
        SIPROUND(v0, v1, v2, v3);
        SIPROUND(v0, v1, v2, v3);
        store_le32(out + 4 * k, (uint32_t)(v1 + v3));
    }
    g->st.sip.v0 = v0; g->st.sip.v1 = v1; g->st.sip.v2 = v2; g->st.sip.v3 = v3;
}

/* prandom_reseed() with the seed's two 64-bit halves in place of the two
 * get_random_long() calls; zero words become all ones, so the all-zero
 * SipRound fixed point cannot be reached. */
static void
sip_seed(sip_state *s, uint64_t lo, uint64_t hi)
{
    uint64_t v0 = lo, v1 = hi, v2 = lo ^ PRND_K0, v3 = hi ^ PRND_K1;
    s->v0 = v0 ? v0 : ~0ULL;
    s->v1 = v1 ? v1 : ~0ULL;
    s->v2 = v2 ? v2 : ~0ULL;
    s->v3 = v3 ? v3 : ~0ULL;
}

/* ------------------------------------------------------------------ */
/* Argument helpers                                                     */

static int
get_key(PyObject *obj, Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0)
        return -1;
    if (view->len < 1 || view->len > 256) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "key must be 1 to 256 bytes");
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Constructors                                                         */

static PyObject *
make_glibc_rand(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *seed_obj;
    int mode;
    uint64_t seed;
    if (!PyArg_ParseTuple(args, "Oi", &seed_obj, &mode) || get_uint(seed_obj, 32, "seed", &seed) < 0)
        return NULL;
    static const fill_words_fn fills[3] = {glibc_fill31, glibc_fill8, glibc_fill16};
    static const unsigned widths[3] = {4, 1, 2};
    if (mode < 0 || mode > 2)
        return PyErr_Format(PyExc_ValueError, "mode must be 0 (31-bit words), 1 (bytes) or 2 (shorts)");
    GenObject *g = gen_new(fills[mode], widths[mode], "glibc random_r TYPE_3");
    if (g)
        glibc_seed(&g->st.glibc, (uint32_t)seed);
    return (PyObject *)g;
}

static PyObject *
make_lcg15(PyObject *args, uint32_t a, uint32_t c, const char *algorithm)
{
    PyObject *seed_obj;
    int width;
    uint64_t seed;
    if (!PyArg_ParseTuple(args, "Oi", &seed_obj, &width) || get_uint(seed_obj, 32, "seed", &seed) < 0)
        return NULL;
    if (width != 1 && width != 2)
        return PyErr_Format(PyExc_ValueError, "width must be 1 (low byte) or 2 (15-bit value in 2 bytes)");
    GenObject *g = gen_new(width == 1 ? lcg15_fill8 : lcg15_fill16, (unsigned)width, algorithm);
    if (g) {
        g->st.lcg.x = (uint32_t)seed; /* srand(seed) */
        g->st.lcg.a = a;
        g->st.lcg.c = c;
    }
    return (PyObject *)g;
}

static PyObject *
make_msvc_rand(PyObject *Py_UNUSED(self), PyObject *args)
{
    return make_lcg15(args, MSVC_A, MSVC_C, "MSVC rand LCG");
}

static PyObject *
make_ansi_c_rand(PyObject *Py_UNUSED(self), PyObject *args)
{
    return make_lcg15(args, ANSI_C_A, ANSI_C_C, "ANSI C example rand LCG");
}

/* MINSTD's state for a seed: seed mod (2^31 - 1), 0 becoming 1 (as C++ minstd_rand does) */
static uint32_t
minstd_state(uint64_t seed)
{
    uint32_t x = (uint32_t)(seed % 2147483647u);
    return x ? x : 1u;
}

/* RANDU needs an odd state: seed | 1 (0 would stay 0) */
SEEDED_CONSTRUCTOR(randu, 32, randu_fill, 4, "RANDU", g->st.u32.x = ((uint32_t)seed & 0x7fffffffu) | 1u)
SEEDED_CONSTRUCTOR(minstd, 32, minstd_fill, 4, "MINSTD (Park-Miller 16807)", g->st.u32.x = minstd_state(seed))
/* xorshift32: 0 is its fixed point; use Marsaglia's example seed instead */
SEEDED_CONSTRUCTOR(xorshift32, 32, xorshift32_fill, 4, "xorshift32 (13,17,5)",
                   g->st.u32.x = seed ? (uint32_t)seed : 2463534242u)
SEEDED_CONSTRUCTOR(splitmix64, 64, splitmix64_fill, 8, "splitmix64", g->st.u64.x = seed)

static void
lcg64_top32_seed(GenObject *g, uint64_t seed, uint64_t a, uint64_t c, int state_bits, uint64_t scramble)
{
    uint64_t mask = state_bits == 64 ? ~0ULL : (1ULL << state_bits) - 1;
    g->st.lcg64.x = (seed ^ scramble) & mask;
    g->st.lcg64.a = a;
    g->st.lcg64.c = c;
    g->st.lcg64.mask = mask;
    g->st.lcg64.shift = (unsigned)(state_bits - 32);
}

/* new Random(seed): state = (seed ^ 0x5DEECE66D) mod 2^48; nextInt() = next(32) */
SEEDED_CONSTRUCTOR(java_random, 64, lcg64_top32_fill, 4, "java.util.Random nextInt",
                   lcg64_top32_seed(g, seed, 0x5DEECE66DULL, 0xBULL, 48, 0x5DEECE66DULL))
/* Knuth's MMIX LCG (TAOCP vol. 2, 3.3.4): state = seed, output the top 32 bits */
SEEDED_CONSTRUCTOR(mmix_lcg, 64, lcg64_top32_fill, 4, "MMIX LCG top 32 bits",
                   lcg64_top32_seed(g, seed, 6364136223846793005ULL, 1442695040888963407ULL, 64, 0))
/* x0 = seed mod (2^64 - 59), 0 -> 1 (0 is the multiplicative LCG's fixed point) */
SEEDED_CONSTRUCTOR(lcg64_prime, 64, prime64_fill, 8, "LCG mod 2^64-59 (L'Ecuyer 13891176665706064842)",
                   g->st.u64.x = seed % PRIME64_M ? seed % PRIME64_M : 1)

/* PCG's 128-bit LCG outputting the top 64 or 32 bits of each state, from
 * (lo, hi, top_bits): seeded by pcg_oneseq_128_srandom_r(hi 2^64 + lo), or
 * with `seeded` 0 started from that state as it is (for jumps) */
static PyObject *
make_lcg128_from(PyObject *args, int seeded)
{
    PyObject *lo_obj, *hi_obj;
    int top_bits;
    uint64_t lo, hi;
    if (!PyArg_ParseTuple(args, "OOi", &lo_obj, &hi_obj, &top_bits) || get_uint(lo_obj, 64, "low word", &lo) < 0 ||
        get_uint(hi_obj, 64, "high word", &hi) < 0)
        return NULL;
    if (top_bits != 64 && top_bits != 32)
        return PyErr_Format(PyExc_ValueError, "top_bits must be 64 or 32");
    GenObject *g = top_bits == 64 ? gen_new(lcg128_top64_fill, 8, "PCG's 128-bit LCG, top 64 bits")
                                  : gen_new(lcg128_top32_fill, 4, "PCG's 128-bit LCG, top 32 bits");
    if (g && seeded)
        lcg128_seed(&g->st.lcg128, hi, lo);
    else if (g) {
        g->st.lcg128.hi = hi;
        g->st.lcg128.lo = lo;
    }
    return (PyObject *)g;
}

static PyObject *
make_lcg128(PyObject *Py_UNUSED(self), PyObject *args)
{
    return make_lcg128_from(args, 1);
}

static PyObject *
make_lcg128_raw(PyObject *Py_UNUSED(self), PyObject *args)
{
    return make_lcg128_from(args, 0);
}

/* narrow_splitmix(state, bits): B-bit SplitMix from state mod 2^B */
static PyObject *
make_narrow_splitmix(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *state_obj;
    int bits;
    uint64_t state;
    if (!PyArg_ParseTuple(args, "Oi", &state_obj, &bits) || get_uint(state_obj, 64, "state", &state) < 0)
        return NULL;
    if (bits < 16 || bits > 64)
        return PyErr_Format(PyExc_ValueError, "bits must be from 16 to 64");
    GenObject *g = gen_new(narrow_splitmix_fill, 8, "SplitMix on a narrow state");
    if (g)
        narrow_splitmix_seed(&g->st.nsm, state, bits);
    return (PyObject *)g;
}

/* lfib19937(seed, top_bits): 64 (whole values) or 32 (their top 32 bits) */
static PyObject *
make_lfib19937(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *seed_obj;
    uint64_t seed;
    int top_bits = 64;
    if (!PyArg_ParseTuple(args, "O|i", &seed_obj, &top_bits) || get_uint(seed_obj, 64, "seed", &seed) < 0)
        return NULL;
    if (top_bits != 64 && top_bits != 32)
        return PyErr_Format(PyExc_ValueError, "top_bits must be 64 or 32");
    uint64_t *x = PyMem_Malloc(LFIB_R * sizeof *x);
    if (x == NULL)
        return PyErr_NoMemory();
    GenObject *g = top_bits == 64 ? gen_new(lfib_fill, 8, "additive lagged Fibonacci (19937, 9842) mod 2^64")
                                  : gen_new(lfib_top32_fill, 4, "additive lagged Fibonacci (19937, 9842) mod 2^64, top 32 bits");
    if (g == NULL) {
        PyMem_Free(x);
        return NULL;
    }
    g->owned = g->st.lfib.x = x;
    lfib_seed(&g->st.lfib, seed);
    return (PyObject *)g;
}

SEEDED_CONSTRUCTOR(mt19937, 32, mt_fill, 4, "MT19937 init_genrand", mt_init_genrand(&g->st.mt, (uint32_t)seed))

static PyObject *
make_mt19937_by_array(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *seq_obj;
    if (!PyArg_ParseTuple(args, "O", &seq_obj))
        return NULL;
    PyObject *seq = PySequence_Fast(seq_obj, "key must be a sequence of 32-bit ints");
    if (seq == NULL)
        return NULL;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    if (len < 1) {
        Py_DECREF(seq);
        return PyErr_Format(PyExc_ValueError, "key must not be empty");
    }
    uint32_t *key = PyMem_Malloc(sizeof(uint32_t) * (size_t)len);
    if (key == NULL) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < len; k++) {
        uint64_t v;
        if (get_uint(PySequence_Fast_GET_ITEM(seq, k), 32, "key word", &v) < 0) {
            PyMem_Free(key);
            Py_DECREF(seq);
            return NULL;
        }
        key[k] = (uint32_t)v;
    }
    Py_DECREF(seq);
    GenObject *g = gen_new(mt_fill, 4, "MT19937 init_by_array");
    if (g)
        mt_init_by_array(&g->st.mt, key, (size_t)len);
    PyMem_Free(key);
    return (PyObject *)g;
}

static PyObject *
make_rc4(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *key_obj, *drop_obj;
    uint64_t drop;
    Py_buffer key;
    if (!PyArg_ParseTuple(args, "OO", &key_obj, &drop_obj) || get_uint(drop_obj, 40, "drop", &drop) < 0)
        return NULL;
    if (get_key(key_obj, &key) < 0)
        return NULL;
    GenObject *g = gen_new(rc4_fill, 1, drop ? "RC4-drop" : "RC4");
    if (g) {
        rc4_key(&g->st.rc4, key.buf, (size_t)key.len);
        uint8_t sink[4096];
        while (drop > 0) {
            size_t m = drop < sizeof sink ? (size_t)drop : sizeof sink;
            rc4_fill(g, sink, m);
            drop -= m;
        }
    }
    PyBuffer_Release(&key);
    return (PyObject *)g;
}

static PyObject *
make_dnet_arc4(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *key_obj;
    Py_buffer key;
    if (!PyArg_ParseTuple(args, "O", &key_obj) || get_key(key_obj, &key) < 0)
        return NULL;
    GenObject *g = gen_new(rc4_fill, 1, "libdnet rand.c ARC4");
    if (g)
        dnet_rand_set(&g->st.rc4, key.buf, (size_t)key.len);
    PyBuffer_Release(&key);
    return (PyObject *)g;
}

SEEDED_CONSTRUCTOR(lfsr113, 64, taus_fill, 4, "Linux prandom_u32_state (LFSR113)", taus_seed_state(&g->st.taus, seed))
SEEDED_CONSTRUCTOR(lfsr113_selftest, 32, taus_fill, 4, "Linux prandom_u32_state (LFSR113), self-test seeding",
                   taus_seed_selftest(&g->st.taus, (uint32_t)seed))

/* A generator whose state is the four arguments as they are (no seeding
 * fix-ups), each in [0, 2**bits): set_state(g, words) copies them in. */
static PyObject *
make_from_four_words(PyObject *args, int bits, fill_words_fn fill, const char *algorithm,
                     void (*set_state)(GenObject *g, const uint64_t words[4]))
{
    PyObject *o[4];
    uint64_t v[4];
    if (!PyArg_ParseTuple(args, "OOOO", &o[0], &o[1], &o[2], &o[3]))
        return NULL;
    for (int k = 0; k < 4; k++)
        if (get_uint(o[k], bits, "state word", &v[k]) < 0)
            return NULL;
    GenObject *g = gen_new(fill, 4, algorithm);
    if (g)
        set_state(g, v);
    return (PyObject *)g;
}

static void
set_lfsr113_state(GenObject *g, const uint64_t s[4])
{
    g->st.taus.s1 = (uint32_t)s[0];
    g->st.taus.s2 = (uint32_t)s[1];
    g->st.taus.s3 = (uint32_t)s[2];
    g->st.taus.s4 = (uint32_t)s[3];
}

static PyObject *
make_lfsr113_raw(PyObject *Py_UNUSED(self), PyObject *args)
{
    return make_from_four_words(args, 32, taus_fill, "LFSR113 from a raw state (no seed fix-ups)", set_lfsr113_state);
}

static PyObject *
make_siprand(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *lo_obj, *hi_obj;
    uint64_t lo, hi;
    if (!PyArg_ParseTuple(args, "OO", &lo_obj, &hi_obj) || get_uint(lo_obj, 64, "seed_lo", &lo) < 0 ||
        get_uint(hi_obj, 64, "seed_hi", &hi) < 0)
        return NULL;
    GenObject *g = gen_new(sip_fill, 4, "Linux 5.10 siprand_u32");
    if (g)
        sip_seed(&g->st.sip, lo, hi);
    return (PyObject *)g;
}

static void
set_siprand_state(GenObject *g, const uint64_t v[4])
{
    g->st.sip.v0 = v[0];
    g->st.sip.v1 = v[1];
    g->st.sip.v2 = v[2];
    g->st.sip.v3 = v[3];
}

static PyObject *
make_siprand_raw(PyObject *Py_UNUSED(self), PyObject *args)
{
    return make_from_four_words(args, 64, sip_fill, "siprand from a raw state (no zero-word fix-up)", set_siprand_state);
}

/* Generators started from a raw state, for jumps computed elsewhere. */

static int
get_u32_words(PyObject *obj, uint32_t *out, Py_ssize_t count, const char *what)
{
    PyObject *seq = PySequence_Fast(obj, "state must be a sequence of 32-bit ints");
    if (seq == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != count) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s needs exactly %zd words", what, count);
        return -1;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        uint64_t v;
        if (get_uint(PySequence_Fast_GET_ITEM(seq, k), 32, "state word", &v) < 0) {
            Py_DECREF(seq);
            return -1;
        }
        out[k] = (uint32_t)v;
    }
    Py_DECREF(seq);
    return 0;
}

static PyObject *
make_mt19937_raw(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *words_obj, *idx_obj;
    uint64_t idx;
    uint32_t words[MT_N];
    if (!PyArg_ParseTuple(args, "OO", &words_obj, &idx_obj) || get_uint(idx_obj, 32, "idx", &idx) < 0)
        return NULL;
    if (idx > MT_N)
        return PyErr_Format(PyExc_ValueError, "idx must be in [0, %d]", MT_N);
    if (get_u32_words(words_obj, words, MT_N, "mt19937_raw") < 0)
        return NULL;
    GenObject *g = gen_new(mt_fill, 4, "MT19937 from a raw state");
    if (g) {
        memcpy(g->st.mt.mt, words, sizeof words);
        g->st.mt.idx = (int)idx;
    }
    return (PyObject *)g;
}

static PyObject *
make_glibc_rand_raw(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *hist_obj;
    int mode;
    uint32_t hist[GLIBC_DEG];
    if (!PyArg_ParseTuple(args, "Oi", &hist_obj, &mode))
        return NULL;
    static const fill_words_fn fills[3] = {glibc_fill31, glibc_fill8, glibc_fill16};
    static const unsigned widths[3] = {4, 1, 2};
    if (mode < 0 || mode > 2)
        return PyErr_Format(PyExc_ValueError, "mode must be 0 (31-bit words), 1 (bytes) or 2 (shorts)");
    if (get_u32_words(hist_obj, hist, GLIBC_DEG, "glibc_rand_raw") < 0)
        return NULL;
    GenObject *g = gen_new(fills[mode], widths[mode], "glibc random_r TYPE_3 from a raw state");
    if (g)
        memcpy(g->st.glibc.hist, hist, sizeof hist);
    return (PyObject *)g;
}

/* ------------------------------------------------------------------ */

static PyMethodDef module_methods[] = {
    {"glibc_rand", make_glibc_rand, METH_VARARGS, "glibc_rand(seed, mode): srand(seed); mode 0 31-bit words, 1 bytes, 2 shorts."},
    {"msvc_rand", make_msvc_rand, METH_VARARGS, "msvc_rand(seed, width): MSVC srand(seed); width 1 (low byte) or 2 (15 bits in 2 LE bytes)."},
    {"ansi_c_rand", make_ansi_c_rand, METH_VARARGS, "ansi_c_rand(seed, width): the C standard's example rand after srand(seed)."},
    {"randu", make_randu, METH_VARARGS, "randu(seed): IBM RANDU, odd state (seed | 1)."},
    {"minstd", make_minstd, METH_VARARGS, "minstd(seed): Park-Miller 16807, state seed mod (2^31-1), 0 -> 1."},
    {"xorshift32", make_xorshift32, METH_VARARGS, "xorshift32(seed): Marsaglia 13/17/5; seed 0 -> 2463534242."},
    {"splitmix64", make_splitmix64, METH_VARARGS, "splitmix64(seed): Vigna's SplitMix64 with state = seed."},
    {"java_random", make_java_random, METH_VARARGS, "java_random(seed): java.util.Random(seed), nextInt() values."},
    {"mmix_lcg", make_mmix_lcg, METH_VARARGS, "mmix_lcg(seed): Knuth's MMIX LCG from state seed, top 32 bits of each state."},
    {"lcg64_prime", make_lcg64_prime, METH_VARARGS, "lcg64_prime(seed): x = 13891176665706064842 x mod 2^64-59 from seed mod m (0 -> 1)."},
    {"lcg128", make_lcg128, METH_VARARGS, "lcg128(seed_lo, seed_hi, top_bits): PCG's 128-bit LCG seeded as pcg_oneseq_128_srandom_r, top 64 or 32 bits."},
    {"lcg128_raw", make_lcg128_raw, METH_VARARGS, "lcg128_raw(state_lo, state_hi, top_bits): PCG's 128-bit LCG from that state, no seeding."},
    {"narrow_splitmix", make_narrow_splitmix, METH_VARARGS, "narrow_splitmix(state, bits): SplitMix64's algorithm on a state of 16 to 64 bits."},
    {"lfib19937", make_lfib19937, METH_VARARGS, "lfib19937(seed[, top_bits]): additive LFib(19937, 9842) mod 2^64 from 19937 SplitMix64(seed) values; 64 bits or the top 32."},
    {"mt19937", make_mt19937, METH_VARARGS, "mt19937(seed): MT19937 after init_genrand(seed)."},
    {"mt19937_by_array", make_mt19937_by_array, METH_VARARGS, "mt19937_by_array(key): MT19937 after init_by_array(key)."},
    {"rc4", make_rc4, METH_VARARGS, "rc4(key, drop): RC4 keystream after dropping `drop` bytes."},
    {"dnet_arc4", make_dnet_arc4, METH_VARARGS, "dnet_arc4(key): libdnet rand.c ARC4 after rand_set(key)."},
    {"lfsr113", make_lfsr113, METH_VARARGS, "lfsr113(seed): prandom_seed_state(seed) + prandom_warmup."},
    {"lfsr113_selftest", make_lfsr113_selftest, METH_VARARGS, "lfsr113_selftest(seed): the kernel self-test's seeding + warm-up."},
    {"lfsr113_raw", make_lfsr113_raw, METH_VARARGS, "lfsr113_raw(s1, s2, s3, s4): no fix-ups, no warm-up."},
    {"siprand", make_siprand, METH_VARARGS, "siprand(seed_lo, seed_hi): prandom_reseed-style state from two 64-bit words."},
    {"siprand_raw", make_siprand_raw, METH_VARARGS, "siprand_raw(v0, v1, v2, v3): no zero-word fix-up."},
    {"mt19937_raw", make_mt19937_raw, METH_VARARGS, "mt19937_raw(words, idx): MT19937 with mt[] = words (624) and index idx in [0, 624]."},
    {"glibc_rand_raw", make_glibc_rand_raw, METH_VARARGS, "glibc_rand_raw(hist, mode): TYPE_3 with the last 31 values r[i-31..i-1], oldest first."},
    {NULL, NULL, 0, NULL},
};

RANDQA_MODULE_DEF("randqa.sources._generators",
                  "Compiled generator backends.",
                  module_methods);

/* Each LCG's (multiplier, increment, modulus) for Python's jumps, so the
 * constants live here only; PCG128 as its 64-bit halves (hi, lo) of each. */
static int
add_lcg_constants(PyObject *m)
{
    struct { const char *name; unsigned long long a, c, modulus; } lcgs[] = {
        {"LCG_MSVC", MSVC_A, MSVC_C, 1ULL << 32},
        {"LCG_ANSI_C", ANSI_C_A, ANSI_C_C, 1ULL << 32},
        {"LCG_RANDU", RANDU_A, 0, 1ULL << 31},
        {"LCG_MINSTD", MINSTD_A, 0, (1ULL << 31) - 1},
        {"LCG_PRIME64", PRIME64_A, 0, PRIME64_M},
    };
    for (size_t i = 0; i < sizeof lcgs / sizeof lcgs[0]; i++) {
        PyObject *t = Py_BuildValue("(KKK)", lcgs[i].a, lcgs[i].c, lcgs[i].modulus);
        if (t == NULL || PyModule_AddObject(m, lcgs[i].name, t) < 0) {
            Py_XDECREF(t);
            return -1;
        }
    }
    PyObject *pcg = Py_BuildValue("(KKKK)", PCG128_MUL_HI, PCG128_MUL_LO, PCG128_INC_HI, PCG128_INC_LO);
    if (pcg == NULL || PyModule_AddObject(m, "LCG_PCG128_WORDS", pcg) < 0) {
        Py_XDECREF(pcg);
        return -1;
    }
    PyObject *gamma = PyLong_FromUnsignedLongLong(SPLITMIX64_GAMMA);
    if (gamma == NULL || PyModule_AddObject(m, "SPLITMIX64_GAMMA", gamma) < 0) {
        Py_XDECREF(gamma);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC
PyInit__generators(void)
{
    PyObject *m = create_module_with_type(&module_def, &GenType, "Generator");
    if (m != NULL && add_lcg_constants(m) < 0)
        Py_CLEAR(m);
    return m;
}
