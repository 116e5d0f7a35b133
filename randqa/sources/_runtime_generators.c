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

/* ------------------------------------------------------------------ */
/* Generator states                                                     */

#define V8_CACHE 64

typedef struct { uint64_t s0, s1; uint64_t cache[V8_CACHE]; unsigned left; } v8_state;

typedef union {
    v8_state v8;
} generator_state;

#define GENERATOR_TYPE_NAME "randqa.sources._runtime_generators.Generator"
#include "_generator_object.h"

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

static PyMethodDef module_methods[] = {
    {"v8_math_random", make_v8_math_random, METH_VARARGS,
     "v8_math_random(seed): Node's Math.random() after --random-seed=seed; 52-bit values packed."},
    {NULL, NULL, 0, NULL},
};

RANDQA_MODULE_DEF("randqa.sources._runtime_generators",
                  "The runtimes' default generators, bit-exact and seeded as each runtime seeds them.",
                  module_methods);

PyMODINIT_FUNC
PyInit__runtime_generators(void)
{
    return create_module_with_type(&module_def, &GenType, "Generator");
}
