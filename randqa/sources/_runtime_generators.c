/*
 * The default generators of the runtimes applications call (Node's V8,
 * OpenJDK, Go, Mono, PHP, SQLite), reimplemented bit for bit and seeded
 * through each runtime's own seeding routine, for the backends of
 * randqa/sources/runtimes/ (whose modules say, per runtime, which source
 * was read and how the runtime departs from the textbook algorithm).
 *
 * Output.  Every generator here returns values of a fixed number of bits
 * b (the bits an application gets from one call: 52 for V8's doubles, 31
 * for PHP's mt_rand(), 64 for Java's nextLong(), ...).  The stream is
 * those bits and no others: eight consecutive values form one word of b
 * bytes, the first value in the lowest bits, each value's bits from least
 * to most significant (for b = 32 or 64, each value as b/8 little-endian
 * bytes).  So no bit of the stream is constant that the runtime does not
 * make constant, and bytes_per_call = b / 8.
 */
#include "../_module.h"
#include <stdint.h>
#include <string.h>

#include "_mt19937.h"

/* ------------------------------------------------------------------ */
/* Generator states                                                     */

#define V8_CACHE 64

typedef struct { uint64_t s0, s1; uint64_t cache[V8_CACHE]; unsigned left; } v8_state;

typedef struct { uint64_t x; } java_lcg_state;                        /* java.util.Random's 48-bit seed */
typedef struct { uint64_t a, s, x0, x1; } lxm_state;                   /* L64X128MixRandom */
#define GO_LEN 607
#define GO_TAP 273
typedef struct { uint64_t vec[GO_LEN]; int tap, feed; } go_state;       /* math/rand's rngSource */
typedef struct { int32_t seed_array[56]; int inext, inextp; } dotnet_state; /* System.Random */
typedef struct { uint32_t s[16], out[16]; unsigned left; } sqlite_state;   /* ChaCha20 state, block, bytes left */

typedef union {
    v8_state v8;
    java_lcg_state java;
    lxm_state lxm;
    go_state go;
    dotnet_state dotnet;
    mt_state mt;
    sqlite_state sqlite;
} generator_state;

#define GENERATOR_TYPE_NAME "randqa.sources._runtime_generators.Generator"
#include "_generator_object.h"
#include "_runtime_module.h"

/* ------------------------------------------------------------------ */
/* V8's Math.random() (src/numbers/math-random.cc, src/base/utils/
 * random-number-generator.h, V8 11.3 as in Node 20).  The state is two
 * 64-bit words seeded as MurmurHash3's fmix64(seed) and fmix64(~seed) from
 * --random-seed; each refill runs xorshift128 64 times into a cache that
 * Math.random() reads from its end back to its start.  The double is
 * (state0 >> 12) / 2^52: state0 itself, not the sum state0 + state1 that
 * textbook xorshift128+ returns, so the 52 bits are linear over GF(2). */

static inline uint64_t
fmix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 33;
    return h;
}

static inline uint64_t
v8_next(v8_state *v)
{
    if (v->left == 0) {
        uint64_t s0 = v->s0, s1 = v->s1;
        for (int i = 0; i < V8_CACHE; i++) {
            uint64_t x = s0, y = s1;
            s0 = y;
            x ^= x << 23;
            x ^= x >> 17;
            x ^= y;
            x ^= y >> 26;
            s1 = x;
            v->cache[i] = s0;
        }
        v->s0 = s0;
        v->s1 = s1;
        v->left = V8_CACHE;
    }
    return v->cache[--v->left] >> 12;
}

PACKED_FILL(v8_fill, v8, v8_next, 52)

/* --random-seed=seed (an int; V8 treats 0 as "no seed" and draws one) */
static void
v8_seed(v8_state *v, uint64_t seed)
{
    v->s0 = fmix64(seed);
    v->s1 = fmix64(~seed);
    v->left = 0;
}

SEEDED_CONSTRUCTOR(v8_math_random, 31, v8_fill, 52, "V8 Math.random (xorshift128, 64-value cache)",
                   v8_seed(&g->st.v8, seed))

/* ------------------------------------------------------------------ */
/* java.util.Random (OpenJDK 17): next(bits) steps x = 0x5DEECE66D x + 0xB
 * mod 2^48 and returns (int)(x >>> (48 - bits)).  nextLong() is
 * ((long)next(32) << 32) + next(32), the second int sign-extended (so the
 * high half is off by one whenever the low int is negative); nextDouble()
 * is ((long)next(26) << 27) + next(27), over 2^53. */

#define JAVA_MULTIPLIER 0x5DEECE66DULL
#define JAVA_MASK ((1ULL << 48) - 1)

static inline uint32_t
java_next32(java_lcg_state *j)
{
    j->x = (j->x * JAVA_MULTIPLIER + 0xBULL) & JAVA_MASK;
    return (uint32_t)(j->x >> 16);
}

static inline uint64_t
java_next_long(java_lcg_state *j)
{
    uint64_t high = (uint64_t)java_next32(j) << 32;
    int32_t low = (int32_t)java_next32(j);
    return high + (uint64_t)(int64_t)low;
}

static inline uint64_t
java_next_double53(java_lcg_state *j)
{
    j->x = (j->x * JAVA_MULTIPLIER + 0xBULL) & JAVA_MASK;
    uint64_t high = j->x >> 22; /* next(26) */
    j->x = (j->x * JAVA_MULTIPLIER + 0xBULL) & JAVA_MASK;
    return (high << 27) + (j->x >> 21); /* + next(27) */
}

PACKED_FILL(java_long_fill, java, java_next_long, 64)
PACKED_FILL(java_double_fill, java, java_next_double53, 53)

/* new Random(seed): x = (seed ^ 0x5DEECE66D) mod 2^48 */
SEEDED_CONSTRUCTOR(java_random_long, 64, java_long_fill, 64, "java.util.Random nextLong",
                   g->st.java.x = (seed ^ JAVA_MULTIPLIER) & JAVA_MASK)
SEEDED_CONSTRUCTOR(java_random_double, 64, java_double_fill, 53, "java.util.Random nextDouble",
                   g->st.java.x = (seed ^ JAVA_MULTIPLIER) & JAVA_MASK)

/* ------------------------------------------------------------------ */
/* L64X128MixRandom (JEP 356, OpenJDK 17 jdk.random): an LCG mod 2^64
 * (s = M s + a, a odd) added to xoroshiro128 v1.0's first word, through
 * Doug Lea's mixLea64; the output is computed before both step. */

#define LXM_M 0xd1342543de82ef95ULL
#define GOLDEN_RATIO_64 0x9e3779b97f4a7c15ULL
#define SILVER_RATIO_64 0x6A09E667F3BCC909ULL

static inline uint64_t
mix_lea64(uint64_t z)
{
    z = (z ^ (z >> 32)) * 0xdaba0b6eb09322e3ULL;
    z = (z ^ (z >> 32)) * 0xdaba0b6eb09322e3ULL;
    return z ^ (z >> 32);
}

static inline uint64_t
mix_stafford13(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t
lxm_next(lxm_state *l)
{
    uint64_t result = mix_lea64(l->s + l->x0);
    l->s = LXM_M * l->s + l->a;
    uint64_t q0 = l->x0, q1 = l->x1;
    q1 ^= q0;
    q0 = rol64(q0, 24);
    q0 = q0 ^ q1 ^ (q1 << 16);
    q1 = rol64(q1, 37);
    l->x0 = q0;
    l->x1 = q1;
    return result;
}

PACKED_FILL(lxm_fill, lxm, lxm_next, 64)

/* new L64X128MixRandom(seed): seed ^= SILVER_RATIO_64; a = mixMurmur64(seed) | 1,
 * s = 1, x0 = mixStafford13(seed), x1 = mixStafford13(seed + GOLDEN_RATIO_64);
 * x0 = x1 = 0 (which no seed gives: mixStafford13 is a bijection) would be replaced. */
static void
lxm_seed(lxm_state *l, uint64_t seed)
{
    seed ^= SILVER_RATIO_64;
    l->a = fmix64(seed) | 1;
    l->s = 1;
    l->x0 = mix_stafford13(seed);
    l->x1 = mix_stafford13(seed + GOLDEN_RATIO_64);
}

SEEDED_CONSTRUCTOR(java_l64x128mixrandom, 64, lxm_fill, 64, "L64X128MixRandom", lxm_seed(&g->st.lxm, seed))

/* ------------------------------------------------------------------ */
/* Go 1.19 math/rand (src/math/rand/rng.go): x[n] = x[n-607] + x[n-273]
 * mod 2^64 in a ring of 607 words walked downwards by two indices. */

#include "_go_rng_cooked.h"

static inline uint64_t
go_next(go_state *r)
{
    if (--r->tap < 0)
        r->tap += GO_LEN;
    if (--r->feed < 0)
        r->feed += GO_LEN;
    uint64_t x = r->vec[r->feed] + r->vec[r->tap];
    r->vec[r->feed] = x;
    return x;
}

PACKED_FILL(go_fill, go, go_next, 64)

/* seedrand: x = 48271 x mod (2^31 - 1), by Schrage's method as Go writes it */
static inline int32_t
go_seedrand(int32_t x)
{
    int32_t hi = x / 44488, lo = x % 44488;
    x = 48271 * lo - 3399 * hi;
    return x < 0 ? x + 2147483647 : x;
}

/* rngSource.Seed(seed) for a seed in [0, 2^63) */
static void
go_seed(go_state *r, uint64_t seed)
{
    r->tap = 0;
    r->feed = GO_LEN - GO_TAP;
    seed %= 2147483647u;
    if (seed == 0)
        seed = 89482311;
    int32_t x = (int32_t)seed;
    for (int i = -20; i < GO_LEN; i++) {
        x = go_seedrand(x);
        if (i >= 0) {
            uint64_t u = (uint64_t)x << 40;
            x = go_seedrand(x);
            u ^= (uint64_t)x << 20;
            x = go_seedrand(x);
            u ^= (uint64_t)x;
            r->vec[i] = u ^ go_rng_cooked[i];
        }
    }
}

SEEDED_CONSTRUCTOR(go_math_rand, 63, go_fill, 64, "Go math/rand rngSource", go_seed(&g->st.go, seed))

/* ------------------------------------------------------------------ */
/* .NET System.Random(int seed) as Mono 6.8 runs it (the .NET Framework's
 * referencesource random.cs): Knuth's subtractive generator from
 * Numerical Recipes' ran3, on 55 ints mod 2^31 - 1, with the second index
 * 21 places ahead where Knuth has 31.  C#'s int arithmetic wraps, which
 * large seeds reach (mj = 161803398 - |seed| goes negative), so it is done
 * here on uint32_t and read back as int32_t. */

#define DOTNET_MBIG 2147483647
#define DOTNET_MSEED 161803398

static inline int32_t wrap_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
static inline int32_t wrap_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }

static void
dotnet_seed(dotnet_state *r, uint64_t seed)
{
    int32_t *a = r->seed_array;
    int32_t mj = wrap_sub(DOTNET_MSEED, (int32_t)seed), mk = 1; /* seed in [0, 2^31): Math.Abs(seed) = seed */
    memset(a, 0, sizeof r->seed_array);
    a[55] = mj;
    for (int i = 1; i < 55; i++) {
        int ii = (21 * i) % 55;
        a[ii] = mk;
        mk = wrap_sub(mj, mk);
        if (mk < 0)
            mk = wrap_add(mk, DOTNET_MBIG);
        mj = a[ii];
    }
    for (int k = 1; k < 5; k++)
        for (int i = 1; i < 56; i++) {
            a[i] = wrap_sub(a[i], a[1 + (i + 30) % 55]);
            if (a[i] < 0)
                a[i] = wrap_add(a[i], DOTNET_MBIG);
        }
    r->inext = 0;
    r->inextp = 21;
}

/* InternalSample(), which Next() returns: a value in [0, 2^31 - 1) */
static inline uint64_t
dotnet_next(dotnet_state *r)
{
    if (++r->inext >= 56)
        r->inext = 1;
    if (++r->inextp >= 56)
        r->inextp = 1;
    int32_t v = wrap_sub(r->seed_array[r->inext], r->seed_array[r->inextp]);
    if (v == DOTNET_MBIG)
        v--;
    if (v < 0)
        v = wrap_add(v, DOTNET_MBIG);
    r->seed_array[r->inext] = v;
    return (uint64_t)(uint32_t)v;
}

PACKED_FILL(dotnet_fill, dotnet, dotnet_next, 31)

SEEDED_CONSTRUCTOR(dotnet_random, 31, dotnet_fill, 31, ".NET System.Random (subtractive, Mono)",
                   dotnet_seed(&g->st.dotnet, seed))

/* ------------------------------------------------------------------ */
/* PHP 8.2 mt_rand() (ext/random/engine_mt19937.c, random.c): textbook
 * MT19937 after init_genrand((uint32_t) seed), each output >> 1. */

static inline uint64_t
php_mt_rand_next(mt_state *m)
{
    return mt_next(m) >> 1;
}

PACKED_FILL(php_mt_rand_fill, mt, php_mt_rand_next, 31)

SEEDED_CONSTRUCTOR(php_mt_rand, 32, php_mt_rand_fill, 31, "PHP mt_rand (MT19937 >> 1)",
                   mt_init_genrand(&g->st.mt, (uint32_t)seed))

/* ------------------------------------------------------------------ */
/* SQLite 3.40.1 random() (src/random.c, func.c): ChaCha20 blocks, each
 * read from its end backwards 8 bytes at a time, a negative int64 r
 * returned as -(r & INT64_MAX). */

#define CHACHA_QR(a, b, c, d)                                         \
    do {                                                             \
        a += b; d ^= a; d = (d << 16) | (d >> 16);                   \
        c += d; b ^= c; b = (b << 12) | (b >> 20);                   \
        a += b; d ^= a; d = (d << 8) | (d >> 24);                    \
        c += d; b ^= c; b = (b << 7) | (b >> 25);                    \
    } while (0)

static void
chacha20_block(uint32_t out[16], const uint32_t in[16])
{
    uint32_t x[16];
    memcpy(x, in, sizeof x);
    for (int i = 0; i < 10; i++) {
        CHACHA_QR(x[0], x[4], x[8], x[12]);
        CHACHA_QR(x[1], x[5], x[9], x[13]);
        CHACHA_QR(x[2], x[6], x[10], x[14]);
        CHACHA_QR(x[3], x[7], x[11], x[15]);
        CHACHA_QR(x[0], x[5], x[10], x[15]);
        CHACHA_QR(x[1], x[6], x[11], x[12]);
        CHACHA_QR(x[2], x[7], x[8], x[13]);
        CHACHA_QR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++)
        out[i] = x[i] + in[i];
}

static inline uint64_t
sqlite_next(sqlite_state *q)
{
    if (q->left == 0) {
        q->s[12]++;
        chacha20_block(q->out, q->s);
        q->left = 64;
    }
    q->left -= 8;
    /* the 8 bytes at out + left, read as a little-endian int64 */
    unsigned w = q->left / 4;
    uint64_t r = (uint64_t)q->out[w] | (uint64_t)q->out[w + 1] << 32;
    return (r >> 63) ? 0 - (r & 0x7fffffffffffffffULL) : r;
}

PACKED_FILL(sqlite_fill, sqlite, sqlite_next, 64)

/* SQLITE_TESTCTRL_PRNG_SEED(seed): xRandomness gives the int seed's 32 bits,
 * then 40 zero bytes, for words 4..14; word 15 takes word 12 (0) and the
 * counter, word 12, starts at 0 */
static void
sqlite_seed(sqlite_state *q, uint64_t seed)
{
    static const uint32_t sigma[4] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u};
    memset(q, 0, sizeof *q);
    memcpy(q->s, sigma, sizeof sigma);
    q->s[4] = (uint32_t)seed;
}

SEEDED_CONSTRUCTOR(sqlite_random, 32, sqlite_fill, 64, "SQLite random() (ChaCha20)", sqlite_seed(&g->st.sqlite, seed))

/* ------------------------------------------------------------------ */

RUNTIME_GENERATOR_MODULE(_runtime_generators,
                         "The runtimes' default generators, bit-exact and seeded as each runtime seeds them.",
                         GENERATOR_FUNCTION(v8_math_random,
                                            "v8_math_random(seed): Node's Math.random() after --random-seed=seed; 52-bit values packed."),
                         GENERATOR_FUNCTION(java_random_long,
                                            "java_random_long(seed): new Random(seed).nextLong() values."),
                         GENERATOR_FUNCTION(java_random_double,
                                            "java_random_double(seed): new Random(seed).nextDouble() * 2^53, 53-bit values packed."),
                         GENERATOR_FUNCTION(java_l64x128mixrandom,
                                            "java_l64x128mixrandom(seed): new L64X128MixRandom(seed).nextLong() values."),
                         GENERATOR_FUNCTION(go_math_rand, "go_math_rand(seed): rand.NewSource(seed).Uint64() values."),
                         GENERATOR_FUNCTION(dotnet_random,
                                            "dotnet_random(seed): new System.Random(seed).Next() values (Mono), 31 bits packed."),
                         GENERATOR_FUNCTION(php_mt_rand,
                                            "php_mt_rand(seed): mt_rand() values after mt_srand(seed), 31 bits packed."),
                         GENERATOR_FUNCTION(sqlite_random,
                                            "sqlite_random(seed): SELECT random() values after SQLITE_TESTCTRL_PRNG_SEED(seed)."))
