/*
 * The generators of two scripting runtimes as their float call gives them
 * (randqa.sources.runtimes.lua and .ruby), each seeded as the runtime
 * seeds it:
 *
 * - Lua 5.4's math.random() (lmathlib.c): xoshiro256**; math.randomseed(n)
 *   sets the state to (n, 0xff, 0, 0) and discards 16 outputs; the float is
 *   the output's top 53 bits over 2^53.
 * - Ruby 3.1's Random#rand (random.c, mt19937.c): MT19937, keyed by
 *   Random.new(seed) (rand_init: init_genrand for a one-word key,
 *   init_by_array for longer ones); the float is genrand_res53,
 *   (a >> 5) * 2^26 + (b >> 6) over 2^53 from two consecutive outputs a, b.
 *
 * The stream: the 53 bits of each float times 2^53, eight values packed
 * into 53 bytes (pack8).
 */
#include "../_module.h"
#include <stdint.h>
#include <string.h>

#include "_mt19937.h"

typedef struct { uint64_t s[4]; } xoshiro256_state;

typedef union {
    xoshiro256_state xoshiro;
    mt_state mt;
} generator_state;

#define GENERATOR_TYPE_NAME "randqa.sources._runtime_generators_scripting.Generator"
#include "_generator_object.h"
#include "_runtime_module.h"

/* ------------------------------------------------------------------ */
/* Lua 5.4: xoshiro256** (Blackman & Vigna)                              */

static inline uint64_t
xoshiro256ss_next(xoshiro256_state *x)
{
    uint64_t *s = x->s;
    uint64_t result = rol64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rol64(s[3], 45);
    return result;
}

/* math.random(): I2d keeps the top 53 bits */
static inline uint64_t lua_random_next(xoshiro256_state *x) { return xoshiro256ss_next(x) >> 11; }

/* math.randomseed(n): setseed(n, 0) */
static void
lua_randomseed(xoshiro256_state *x, uint64_t n)
{
    x->s[0] = n;
    x->s[1] = 0xff; /* avoids a zero state */
    x->s[2] = 0;
    x->s[3] = 0;
    for (int i = 0; i < 16; i++)
        xoshiro256ss_next(x);
}

/* ------------------------------------------------------------------ */
/* Ruby: genrand_res53's 53 bits                                         */

static inline uint64_t
ruby_rand_next(mt_state *m)
{
    uint64_t a = mt_next(m) >> 5, b = mt_next(m) >> 6;
    return a << 26 | b;
}

PACKED_FILL(lua_random_fill, xoshiro, lua_random_next, 53)
PACKED_FILL(ruby_rand_fill, mt, ruby_rand_next, 53)

SEEDED_CONSTRUCTOR(lua_math_random, 64, lua_random_fill, 53, "Lua 5.4 math.random (xoshiro256**)",
                   lua_randomseed(&g->st.xoshiro, seed))

/* ruby_random(magnitude): Random.new(seed), |seed| given as little-endian
 * bytes.  rand_init's key: the 32-bit words of |seed|, least significant
 * first, without leading zero words (at least one word), and without a top
 * word of 1 when there are more (the guard Ruby's own 128-bit seeds carry);
 * rand_mt_init: init_genrand for one word, init_by_array for more. */
static PyObject *
make_ruby_random(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer magnitude;
    if (!PyArg_ParseTuple(args, "y*", &magnitude))
        return NULL;
    if (magnitude.len > 4 * MT_N) {
        PyBuffer_Release(&magnitude);
        return PyErr_Format(PyExc_ValueError, "seed must be below 2**%d", 32 * MT_N);
    }
    uint32_t key[MT_N] = {0};
    const uint8_t *bytes = (const uint8_t *)magnitude.buf;
    for (Py_ssize_t i = 0; i < magnitude.len; i++)
        key[i / 4] |= (uint32_t)bytes[i] << (8 * (i % 4));
    size_t len = (size_t)(magnitude.len + 3) / 4;
    PyBuffer_Release(&magnitude);
    while (len > 1 && key[len - 1] == 0)
        len--;
    if (len == 0)
        len = 1;
    if (len > 1 && key[len - 1] == 1)
        len--;
    GenObject *g = gen_new(ruby_rand_fill, 53, "Ruby Random#rand (MT19937 genrand_res53)");
    if (g) {
        if (len == 1)
            mt_init_genrand(&g->st.mt, key[0]);
        else
            mt_init_by_array(&g->st.mt, key, len);
    }
    return (PyObject *)g;
}

RUNTIME_GENERATOR_MODULE(_runtime_generators_scripting,
                         "Lua 5.4's math.random() and Ruby's Random#rand: the 53 bits of each float.",
                         GENERATOR_FUNCTION(lua_math_random,
                                            "lua_math_random(seed): math.random() after math.randomseed(seed) (seed as a 64-bit two's complement integer)."),
                         GENERATOR_FUNCTION(ruby_random,
                                            "ruby_random(magnitude): Random#rand after Random.new(seed), |seed| given as little-endian bytes."))
