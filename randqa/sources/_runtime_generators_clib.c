/*
 * The generators of the C and C++ standard libraries as applications get
 * them (randqa.sources.runtimes.musl and .cxx): musl 1.2.3's rand() and
 * random(), and libstdc++'s (GCC 12) <random> engines minstd_rand0,
 * minstd_rand, mt19937_64, ranlux24, ranlux48 and knuth_b, each seeded as
 * the library seeds it.
 *
 * Written from the libraries' sources: musl src/prng/rand.c and random.c;
 * libstdc++ bits/random.h and random.tcc (linear_congruential_engine::seed,
 * mersenne_twister_engine, subtract_with_carry_engine::seed and
 * operator(), discard_block_engine::operator(),
 * shuffle_order_engine::operator()).
 *
 * Output: each call's b bits (31 for rand(), random(), the minstd engines
 * and knuth_b; 64, 24 and 48 for mt19937_64, ranlux24 and ranlux48), eight
 * calls packed into a word of b bytes (pack8).
 */
#include "../_module.h"
#include <stdint.h>
#include <string.h>

#include "_mt19937.h"

#define MUSL_DEG 31
#define SWC_MAX_LAG 24
#define KNUTH_B_TABLE 256

/* x = a x + c mod 2^64, output x >> 33 */
typedef struct { uint64_t x; } musl_rand_state;
/* x[i] += x[j] over a ring of 31 words, output x[i] >> 1 */
typedef struct { uint32_t x[MUSL_DEG]; unsigned i, j; } musl_random_state;
/* x = a x mod (2^31 - 1) */
typedef struct { uint32_t x, a; } minstd_state;
/* subtract-with-carry x[i] = x[i-s] - x[i-r] - carry mod 2^w, of which a
 * discard block keeps `used` outputs out of every `block` */
typedef struct {
    uint64_t x[SWC_MAX_LAG];
    unsigned w, s, r, p, carry;
    unsigned block, used, n;
} ranlux_state;
/* Bays-Durham shuffle of minstd_rand0 (16807) outputs through a 256-entry table */
typedef struct { uint32_t v[KNUTH_B_TABLE]; uint32_t y; minstd_state base; } knuth_b_state;

typedef union {
    musl_rand_state rand;
    musl_random_state random;
    minstd_state minstd;
    mt64_state mt64;
    ranlux_state ranlux;
    knuth_b_state knuth_b;
} generator_state;

#define GENERATOR_TYPE_NAME "randqa.sources._runtime_generators_clib.Generator"
#include "_generator_object.h"
#include "_runtime_module.h"

/* ------------------------------------------------------------------ */
/* musl rand(): srand(s) sets seed = s - 1, computed in unsigned int
 * (srand(0): 2^32 - 1); each call seed = 6364136223846793005 seed + 1
 * mod 2^64 and returns seed >> 33.                                      */

static inline uint32_t
musl_rand_next(musl_rand_state *s)
{
    s->x = 6364136223846793005ULL * s->x + 1u;
    return (uint32_t)(s->x >> 33);
}

/* musl random(): glibc's TYPE_3 recurrence r[i] = r[i-31] + r[i-3] mod
 * 2^32 (output r[i] >> 1) in a ring x[0..30] with i = j + 3, but seeded by
 * srandom(seed) from the 64-bit LCG above: x[k] = the top 32 bits of its
 * k+1-th state from seed, x[0] made odd, and nothing discarded.          */

static inline uint32_t
musl_random_next(musl_random_state *s)
{
    s->x[s->i] += s->x[s->j];
    uint32_t k = s->x[s->i] >> 1;
    if (++s->i == MUSL_DEG)
        s->i = 0;
    if (++s->j == MUSL_DEG)
        s->j = 0;
    return k;
}

static void
musl_srandom(musl_random_state *s, uint32_t seed)
{
    uint64_t x = seed;
    for (int k = 0; k < MUSL_DEG; k++) {
        x = 6364136223846793005ULL * x + 1u;
        s->x[k] = (uint32_t)(x >> 32);
    }
    s->x[0] |= 1u;
    s->i = 3;
    s->j = 0;
}

/* ------------------------------------------------------------------ */
/* Lehmer generators mod 2^31 - 1: minstd_rand0 (16807, knuth_b's base too)
 * and minstd_rand (48271)                                              */

static inline uint32_t
minstd_next(minstd_state *m)
{
    uint64_t t = (uint64_t)m->x * m->a;
    t = (t & 0x7fffffffu) + (t >> 31); /* 2^31 = 1 (mod 2^31 - 1) */
    if (t >= 0x7fffffffu)
        t -= 0x7fffffffu;
    return m->x = (uint32_t)t;
}

/* linear_congruential_engine<uint_fast32_t, a, 0, 2^31 - 1>::seed(s): s mod m, 0 -> 1 */
static void
minstd_init(minstd_state *m, uint64_t seed, uint32_t a)
{
    uint32_t x = (uint32_t)(seed % 2147483647u);
    m->x = x ? x : 1u;
    m->a = a;
}

/* ------------------------------------------------------------------ */
/* ranlux24 and ranlux48: subtract_with_carry_engine<w, s, r> behind a
 * discard_block_engine<block, used>                                    */

static inline uint64_t
swc_next(ranlux_state *R)
{
    unsigned ps = R->p >= R->s ? R->p - R->s : R->p + R->r - R->s;
    uint64_t xp = R->x[R->p], xs = R->x[ps], xi;
    if (xs >= xp + R->carry) {
        xi = xs - xp - R->carry;
        R->carry = 0;
    } else {
        xi = ((uint64_t)1 << R->w) - xp - R->carry + xs;
        R->carry = 1;
    }
    R->x[R->p] = xi;
    if (++R->p >= R->r)
        R->p = 0;
    return xi;
}

static inline uint64_t
ranlux_next(ranlux_state *R)
{
    if (R->n >= R->used) {
        for (unsigned k = R->n; k < R->block; k++)
            swc_next(R);
        R->n = 0;
    }
    R->n++;
    return swc_next(R);
}

/* subtract_with_carry_engine::seed(value): a linear_congruential_engine
 * <40014, 0, 2147483563> seeded with value (0: default_seed 19780503; a
 * multiple of the modulus: 1) gives each word from (w + 31) / 32 outputs,
 * least significant first; carry = (x[r-1] == 0).                       */
static void
ranlux_init(ranlux_state *R, uint64_t seed, unsigned w, unsigned s, unsigned r, unsigned block, unsigned used)
{
    const uint64_t m = 2147483563u;
    uint64_t lcg = (seed == 0 ? 19780503u : seed) % m;
    if (lcg == 0)
        lcg = 1;
    unsigned parts = (w + 31) / 32;
    for (unsigned i = 0; i < r; i++) {
        uint64_t sum = 0;
        for (unsigned j = 0; j < parts; j++) {
            lcg = lcg * 40014u % m;
            sum += lcg << (32 * j);
        }
        R->x[i] = sum & (((uint64_t)1 << w) - 1);
    }
    R->carry = R->x[r - 1] == 0;
    R->p = 0;
    R->w = w;
    R->s = s;
    R->r = r;
    R->block = block;
    R->used = used;
    R->n = 0;
}

/* ------------------------------------------------------------------ */
/* knuth_b: shuffle_order_engine<minstd_rand0, 256>.  The table is filled
 * with the first 256 outputs and y with the next; each call returns
 * y = v[j] for j = 256 * ((y - 1) / 2147483646.0) (in double, truncated)
 * and refills v[j].                                                     */

static void
knuth_b_init(knuth_b_state *K, uint64_t seed)
{
    minstd_init(&K->base, seed, 16807u);
    for (int i = 0; i < KNUTH_B_TABLE; i++)
        K->v[i] = minstd_next(&K->base);
    K->y = minstd_next(&K->base);
}

static inline uint32_t
knuth_b_next(knuth_b_state *K)
{
    size_t j = (size_t)((double)KNUTH_B_TABLE * ((double)(K->y - 1u) / 2147483646.0));
    K->y = K->v[j];
    K->v[j] = minstd_next(&K->base);
    return K->y;
}

PACKED_FILL(musl_rand_fill, rand, musl_rand_next, 31)
PACKED_FILL(musl_random_fill, random, musl_random_next, 31)
PACKED_FILL(minstd_fill, minstd, minstd_next, 31)
PACKED_FILL(mt64_fill, mt64, mt64_next, 64)
PACKED_FILL(ranlux24_fill, ranlux, ranlux_next, 24)
PACKED_FILL(ranlux48_fill, ranlux, ranlux_next, 48)
PACKED_FILL(knuth_b_fill, knuth_b, knuth_b_next, 31)

/* ------------------------------------------------------------------ */
/* Constructors: musl's take srand's unsigned int; libstdc++'s take the
 * engine's result_type, 64 bits on LP64 Linux (uint_fast32_t included). */

SEEDED_CONSTRUCTOR(musl_rand, 32, musl_rand_fill, 31, "musl rand() (64-bit LCG, top 31 bits)",
                   g->st.rand.x = (uint32_t)seed - 1u)
SEEDED_CONSTRUCTOR(musl_random, 32, musl_random_fill, 31, "musl random() (additive feedback 31/3)",
                   musl_srandom(&g->st.random, (uint32_t)seed))
SEEDED_CONSTRUCTOR(minstd_rand0, 64, minstd_fill, 31, "libstdc++ minstd_rand0 (16807 mod 2^31-1)",
                   minstd_init(&g->st.minstd, seed, 16807u))
SEEDED_CONSTRUCTOR(minstd_rand, 64, minstd_fill, 31, "libstdc++ minstd_rand (48271 mod 2^31-1)",
                   minstd_init(&g->st.minstd, seed, 48271u))
SEEDED_CONSTRUCTOR(mt19937_64, 64, mt64_fill, 64, "libstdc++ mt19937_64", mt64_init_genrand(&g->st.mt64, seed))
SEEDED_CONSTRUCTOR(ranlux24, 64, ranlux24_fill, 24, "libstdc++ ranlux24 (SWC 24/10/24, 23 of 223 kept)",
                   ranlux_init(&g->st.ranlux, seed, 24, 10, 24, 223, 23))
SEEDED_CONSTRUCTOR(ranlux48, 64, ranlux48_fill, 48, "libstdc++ ranlux48 (SWC 48/5/12, 11 of 389 kept)",
                   ranlux_init(&g->st.ranlux, seed, 48, 5, 12, 389, 11))
SEEDED_CONSTRUCTOR(knuth_b, 64, knuth_b_fill, 31, "libstdc++ knuth_b (minstd_rand0 shuffled, 256 entries)",
                   knuth_b_init(&g->st.knuth_b, seed))

RUNTIME_GENERATOR_MODULE(_runtime_generators_clib,
                         "The C and C++ standard libraries' generators: musl rand() and random(), libstdc++ <random> engines.",
                         GENERATOR_FUNCTION(musl_rand,
                                            "musl_rand(seed): rand() after srand(seed); 31-bit values packed."),
                         GENERATOR_FUNCTION(musl_random,
                                            "musl_random(seed): random() after srandom(seed); 31-bit values packed."),
                         GENERATOR_FUNCTION(minstd_rand0,
                                            "minstd_rand0(seed): std::minstd_rand0(seed); 31-bit values packed."),
                         GENERATOR_FUNCTION(minstd_rand,
                                            "minstd_rand(seed): std::minstd_rand(seed); 31-bit values packed."),
                         GENERATOR_FUNCTION(mt19937_64,
                                            "mt19937_64(seed): std::mt19937_64(seed); values as 8 LE bytes."),
                         GENERATOR_FUNCTION(ranlux24,
                                            "ranlux24(seed): std::ranlux24(seed); 24-bit values as 3 LE bytes."),
                         GENERATOR_FUNCTION(ranlux48,
                                            "ranlux48(seed): std::ranlux48(seed); 48-bit values as 6 LE bytes."),
                         GENERATOR_FUNCTION(knuth_b, "knuth_b(seed): std::knuth_b(seed); 31-bit values packed."))
