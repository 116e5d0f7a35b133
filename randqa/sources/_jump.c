/*
 * Jump-ahead for randqa's compiled generators: the state N outputs later,
 * computed in O(log N) (or O(k^2 log N) for a state of k bits), never by
 * stepping N times.  randqa.sources.segments uses these so that a worker can
 * start exactly where segment k of a one-process stream begins.
 *
 * - Linear congruential generators x -> a x + c (mod m): the N-step map is
 *   x -> A x + C, built by squaring the one-step map (Brown, "Random number
 *   generation with arbitrary strides", Trans. ANS 1994).
 * - Small GF(2)-linear generators (xorshift32, each LFSR113 component): the
 *   32x32 bit matrix of one step, built by stepping the unit vectors, raised
 *   to the N-th power by squaring.  Exact even where the step is singular
 *   (the Tausworthe components drop their low bits).
 * - MT19937: polynomial jump (Haramoto, Matsumoto, Nishimura, Panneton,
 *   L'Ecuyer, "Efficient jump ahead for F2-linear random number generators",
 *   INFORMS J. Computing 2008).  p(x), the degree-19937 characteristic
 *   polynomial of the word recurrence, is found by Berlekamp-Massey on one
 *   output bit; g(x) = x^N mod p(x) by square-and-multiply; the state N steps
 *   on is g(T) applied to the current 624-word window, by Horner's rule with
 *   one recurrence step per coefficient.  The same for MT19937-64 and for
 *   randomgen's xoshiro256/512, xoroshiro128(+/++) and xorshift1024, each
 *   with its own step function on an array of 64-bit words.
 * - glibc random_r TYPE_3, r[i] = r[i-3] + r[i-31] (mod 2^32): a linear
 *   recurrence over Z/2^32 with characteristic polynomial x^31 - x^28 - 1,
 *   so the window N steps on is sum_j g_j T^j of the current one, with
 *   g(x) = x^N mod (x^31 - x^28 - 1) computed with 32-bit coefficients.
 *
 * Kernels keep no state: the MT polynomial is computed by one call and
 * passed back by the caller to the others.
 */
#include "../_module.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_mt19937.h"

#define MT_DEGREE 19937
/* words of a polynomial of degree <= MT_DEGREE */
#define MT_POLY_WORDS (MT_DEGREE / 64 + 1)

#define GLIBC_DEG 31
#define GLIBC_SEP 3

/* ------------------------------------------------------------------ */
/* Argument helpers                                                     */

static int
get_u32(PyObject *obj, const char *what, uint32_t *out)
{
    uint64_t v;
    if (get_uint(obj, 32, what, &v) < 0)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* A C-contiguous buffer of exactly `bytes` bytes, writable when asked. */
static int
get_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t bytes, int writable, const char *what)
{
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0)
        return -1;
    if (view->len != bytes) {
        PyErr_Format(PyExc_ValueError, "%s must be %zd bytes, not %zd", what, bytes, view->len);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* A step count: any int in [0, 2**MAX_STEP_BITS), as little-endian bytes. */
#define MAX_STEP_BITS 1024
typedef struct {
    uint8_t bytes[MAX_STEP_BITS / 8];
    size_t nbits;
} steps_t;

static int
get_steps(PyObject *obj, steps_t *n)
{
    if (!PyLong_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "n must be an int");
        return -1;
    }
    PyObject *zero = PyLong_FromLong(0);
    if (zero == NULL)
        return -1;
    int below = PyObject_RichCompareBool(obj, zero, Py_LT);
    Py_DECREF(zero);
    if (below < 0)
        return -1;
    PyObject *bits = below ? NULL : PyObject_CallMethod(obj, "bit_length", NULL);
    if (!below && bits == NULL)
        return -1;
    size_t nbits = bits ? PyLong_AsSize_t(bits) : 0;
    Py_XDECREF(bits);
    if (below || nbits > MAX_STEP_BITS) {
        PyErr_Format(PyExc_ValueError, "n must be in [0, 2**%d)", MAX_STEP_BITS);
        return -1;
    }
    PyObject *raw = PyObject_CallMethod(obj, "to_bytes", "ns", (Py_ssize_t)sizeof n->bytes, "little");
    if (raw == NULL)
        return -1;
    memcpy(n->bytes, PyBytes_AS_STRING(raw), sizeof n->bytes);
    Py_DECREF(raw);
    n->nbits = nbits;
    return 0;
}

static inline int
steps_bit(const steps_t *n, size_t i)
{
    return (n->bytes[i >> 3] >> (i & 7)) & 1;
}

/* ------------------------------------------------------------------ */
/* Linear congruential generators                                       */

/* a * b mod m, with m == 0 meaning 2^64 */
static inline uint64_t
mul_mod(uint64_t a, uint64_t b, uint64_t m)
{
    unsigned __int128 p = (unsigned __int128)a * b;
    return m ? (uint64_t)(p % m) : (uint64_t)p;
}

static inline uint64_t
add_mod(uint64_t a, uint64_t b, uint64_t m)
{
    unsigned __int128 s = (unsigned __int128)a + b;
    return m ? (uint64_t)(s % m) : (uint64_t)s;
}

/* x after n steps of x -> a x + c (mod m) */
static uint64_t
lcg_jump(uint64_t x, uint64_t a, uint64_t c, uint64_t m, const steps_t *n)
{
    uint64_t A = 1, C = 0; /* the map of the steps taken so far: x -> A x + C */
    uint64_t h = a, f = c; /* the map of 2^i steps */
    if (m) {
        x %= m;
        h %= m;
        f %= m;
    }
    for (size_t i = 0; i < n->nbits; i++) {
        if (steps_bit(n, i)) { /* the maps commute, so the order of composing them does not matter */
            A = mul_mod(A, h, m);
            C = add_mod(mul_mod(C, h, m), f, m);
        }
        f = mul_mod(f, add_mod(h, 1, m), m); /* (h, f) o (h, f) = (h^2, f (h + 1)) */
        h = mul_mod(h, h, m);
    }
    return add_mod(mul_mod(A, x, m), C, m);
}

static PyObject *
py_lcg(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *o[5];
    uint64_t x, a, c, m;
    steps_t n;
    if (!PyArg_ParseTuple(args, "OOOOO", &o[0], &o[1], &o[2], &o[3], &o[4]))
        return NULL;
    if (get_uint(o[0], 64, "x", &x) < 0 || get_uint(o[1], 64, "a", &a) < 0 || get_uint(o[2], 64, "c", &c) < 0 ||
        get_steps(o[4], &n) < 0)
        return NULL;
    /* the modulus may be 2^64, one more than a uint64 holds: 0 stands for it */
    PyObject *two64 = pylong_from_halves(1, 0);
    if (two64 == NULL)
        return NULL;
    int is_two64 = PyObject_RichCompareBool(o[3], two64, Py_EQ);
    Py_DECREF(two64);
    if (is_two64 < 0)
        return NULL;
    if (is_two64)
        m = 0;
    else if (get_uint(o[3], 64, "modulus", &m) < 0 || m < 2) {
        PyErr_Clear();
        return PyErr_Format(PyExc_ValueError, "modulus must be in [2, 2**64]");
    }
    return PyLong_FromUnsignedLongLong(lcg_jump(x, a, c, m, &n));
}

/* ------------------------------------------------------------------ */
/* 32-bit GF(2)-linear steps: matrix powers                             */

typedef uint32_t (*step32_fn)(uint32_t);

static uint32_t
xorshift32_step(uint32_t x)
{
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
}

/* LFSR113's components, as in Linux prandom_u32_state (L'Ecuyer 1999) */
static uint32_t taus1_step(uint32_t s) { return ((s & 4294967294u) << 18) ^ (((s << 6) ^ s) >> 13); }
static uint32_t taus2_step(uint32_t s) { return ((s & 4294967288u) << 2) ^ (((s << 2) ^ s) >> 27); }
static uint32_t taus3_step(uint32_t s) { return ((s & 4294967280u) << 7) ^ (((s << 13) ^ s) >> 21); }
static uint32_t taus4_step(uint32_t s) { return ((s & 4294967168u) << 13) ^ (((s << 3) ^ s) >> 12); }

/* M v, for M given by its columns */
static inline uint32_t
mat32_apply(const uint32_t *col, uint32_t v)
{
    uint32_t r = 0;
    while (v) {
        r ^= col[__builtin_ctz(v)];
        v &= v - 1;
    }
    return r;
}

/* M^n v, where column j of M is step(e_j) */
static uint32_t
jump32(step32_fn step, uint32_t v, const steps_t *n)
{
    uint32_t col[32], sq[32];
    for (int j = 0; j < 32; j++)
        col[j] = step(1u << j);
    for (size_t i = 0; i < n->nbits; i++) {
        if (steps_bit(n, i))
            v = mat32_apply(col, v);
        if (i + 1 < n->nbits) {
            for (int j = 0; j < 32; j++)
                sq[j] = mat32_apply(col, col[j]);
            memcpy(col, sq, sizeof col);
        }
    }
    return v;
}

static PyObject *
py_xorshift32(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *xo, *no;
    uint32_t x;
    steps_t n;
    if (!PyArg_ParseTuple(args, "OO", &xo, &no) || get_u32(xo, "x", &x) < 0 || get_steps(no, &n) < 0)
        return NULL;
    return PyLong_FromUnsignedLong(jump32(xorshift32_step, x, &n));
}

static PyObject *
py_lfsr113(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *o[5];
    uint32_t s[4];
    steps_t n;
    static const step32_fn steps[4] = {taus1_step, taus2_step, taus3_step, taus4_step};
    if (!PyArg_ParseTuple(args, "OOOOO", &o[0], &o[1], &o[2], &o[3], &o[4]))
        return NULL;
    for (int k = 0; k < 4; k++)
        if (get_u32(o[k], "state word", &s[k]) < 0)
            return NULL;
    if (get_steps(o[4], &n) < 0)
        return NULL;
    for (int k = 0; k < 4; k++)
        s[k] = jump32(steps[k], s[k], &n);
    return Py_BuildValue("(kkkk)", (unsigned long)s[0], (unsigned long)s[1], (unsigned long)s[2], (unsigned long)s[3]);
}

/* ------------------------------------------------------------------ */
/* glibc TYPE_3: polynomials mod x^31 - x^28 - 1 over Z/2^32            */

/* out = a b mod P; out may alias a or b */
static void
glibc_mul(const uint32_t *a, const uint32_t *b, uint32_t *out)
{
    uint32_t t[2 * GLIBC_DEG - 1];
    memset(t, 0, sizeof t);
    for (int i = 0; i < GLIBC_DEG; i++)
        if (a[i])
            for (int j = 0; j < GLIBC_DEG; j++)
                t[i + j] += a[i] * b[j];
    /* x^j = x^(j-31) x^31 = x^(j-3) + x^(j-31) */
    for (int j = 2 * GLIBC_DEG - 2; j >= GLIBC_DEG; j--) {
        t[j - GLIBC_SEP] += t[j];
        t[j - GLIBC_DEG] += t[j];
    }
    memcpy(out, t, sizeof(uint32_t) * GLIBC_DEG);
}

/* a = a x mod P */
static void
glibc_times_x(uint32_t *a)
{
    uint32_t top = a[GLIBC_DEG - 1];
    memmove(a + 1, a, sizeof(uint32_t) * (GLIBC_DEG - 1));
    a[0] = top;
    a[GLIBC_DEG - GLIBC_SEP] += top;
}

/* hist = (r[i], .., r[i+30]) -> out = (r[i+n], .., r[i+n+30]) */
static void
glibc_jump(const uint32_t *hist, const steps_t *n, uint32_t *out)
{
    uint32_t g[GLIBC_DEG], ext[2 * GLIBC_DEG - 1];
    memset(g, 0, sizeof g);
    g[0] = 1;
    for (size_t bit = n->nbits; bit-- > 0;) {
        glibc_mul(g, g, g);
        if (steps_bit(n, bit))
            glibc_times_x(g);
    }
    memcpy(ext, hist, sizeof(uint32_t) * GLIBC_DEG);
    for (int k = GLIBC_DEG; k < 2 * GLIBC_DEG - 1; k++)
        ext[k] = ext[k - GLIBC_DEG] + ext[k - GLIBC_SEP];
    for (int k = 0; k < GLIBC_DEG; k++) {
        uint32_t v = 0;
        for (int j = 0; j < GLIBC_DEG; j++)
            v += g[j] * ext[k + j];
        out[k] = v;
    }
}

static PyObject *
py_glibc_additive(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *hist_obj, *n_obj, *out_obj;
    Py_buffer hist, out;
    steps_t n;
    if (!PyArg_ParseTuple(args, "OOO", &hist_obj, &n_obj, &out_obj) || get_steps(n_obj, &n) < 0)
        return NULL;
    if (get_buffer(hist_obj, &hist, sizeof(uint32_t) * GLIBC_DEG, 0, "hist") < 0)
        return NULL;
    if (get_buffer(out_obj, &out, sizeof(uint32_t) * GLIBC_DEG, 1, "out") < 0) {
        PyBuffer_Release(&hist);
        return NULL;
    }
    uint32_t in[GLIBC_DEG], res[GLIBC_DEG];
    memcpy(in, hist.buf, sizeof in);
    glibc_jump(in, &n, res);
    memcpy(out.buf, res, sizeof res);
    RELEASE_BUFFERS(&hist, &out);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ */
/* GF(2)[x] arithmetic on packed words (bit i of the array = coefficient of x^i) */

static inline int
bit_at(const uint64_t *p, size_t i)
{
    return (int)((p[i >> 6] >> (i & 63)) & 1);
}

/* 64 bits of p starting at bit `pos` (p has at least one word past pos/64) */
static inline uint64_t
window64(const uint64_t *p, size_t pos)
{
    size_t w = pos >> 6;
    unsigned r = (unsigned)(pos & 63);
    return r ? (p[w] >> r) | (p[w + 1] << (64 - r)) : p[w];
}

/* dst ^= src << shift, for src of `words` words; dst must have room */
static void
xor_shifted(uint64_t *dst, const uint64_t *src, size_t words, size_t shift)
{
    size_t w = shift >> 6;
    unsigned r = (unsigned)(shift & 63);
    if (r == 0) {
        for (size_t k = 0; k < words; k++)
            dst[w + k] ^= src[k];
        return;
    }
    uint64_t carry = 0;
    for (size_t k = 0; k < words; k++) {
        dst[w + k] ^= (src[k] << r) | carry;
        carry = src[k] >> (64 - r);
    }
    dst[w + words] ^= carry;
}

static inline uint64_t
spread32(uint32_t x)
{
    uint64_t v = x;
    v = (v | (v << 16)) & 0x0000FFFF0000FFFFULL;
    v = (v | (v << 8)) & 0x00FF00FF00FF00FFULL;
    v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0FULL;
    v = (v | (v << 2)) & 0x3333333333333333ULL;
    v = (v | (v << 1)) & 0x5555555555555555ULL;
    return v;
}

/*
 * Berlekamp-Massey over GF(2): the characteristic polynomial (x^L C(1/x))
 * of the shortest linear recurrence generating bits s[0..n-1], written to
 * `out` (out_words words, zeroed first).  Returns L, or -1 when out is too
 * small or memory runs out.
 */
static long
gf2_berlekamp_massey(const uint8_t *s, size_t n, uint64_t *out, size_t out_words)
{
    size_t words = n / 64 + 4;
    uint64_t *rev = calloc(words, sizeof(uint64_t));
    uint64_t *c = calloc(2 * words, sizeof(uint64_t)); /* room for b x^m, whose degree stays below 2n */
    uint64_t *b = calloc(2 * words, sizeof(uint64_t));
    uint64_t *t = calloc(2 * words, sizeof(uint64_t));
    long result = -1;
    if (!rev || !c || !b || !t)
        goto done;
    /* rev bit k = s[n-1-k], so the bits s[i], s[i-1], .. read upwards from bit n-1-i */
    for (size_t k = 0; k < n; k++)
        if (s[n - 1 - k])
            rev[k >> 6] |= 1ULL << (k & 63);
    c[0] = b[0] = 1;
    size_t L = 0, Lb = 0, m = 1; /* deg c <= L, deg b <= Lb */
    for (size_t i = 0; i < n; i++) {
        size_t base = n - 1 - i;
        uint64_t acc = 0;
        for (size_t k = 0; k <= L / 64; k++)
            acc ^= c[k] & window64(rev, base + 64 * k);
        if (!__builtin_parityll(acc)) {
            m++;
            continue;
        }
        if (2 * L <= i) {
            /* t held an older b, of degree <= L: this copy overwrites all of it */
            memcpy(t, c, sizeof(uint64_t) * (L / 64 + 1));
            xor_shifted(c, b, Lb / 64 + 1, m);
            size_t old_L = L;
            L = i + 1 - L;
            uint64_t *swap = b;
            b = t;
            t = swap;
            Lb = old_L;
            m = 1;
        } else {
            xor_shifted(c, b, Lb / 64 + 1, m);
            m++;
        }
    }
    if (L / 64 + 1 > out_words)
        goto done;
    memset(out, 0, sizeof(uint64_t) * out_words);
    for (size_t k = 0; k <= L; k++)
        if (bit_at(c, L - k))
            out[k >> 6] |= 1ULL << (k & 63);
    result = (long)L;
done:
    free(rev);
    free(c);
    free(b);
    free(t);
    return result;
}

static inline uint16_t
spread8(uint8_t x)
{
    return (uint16_t)spread32(x);
}

static inline void
bytes_xor(uint8_t *restrict dst, const uint8_t *restrict src, size_t n)
{
    for (size_t k = 0; k < n; k++)
        dst[k] ^= src[k];
}

static inline int
byte_bit(const uint8_t *p, size_t i)
{
    return (p[i >> 3] >> (i & 7)) & 1;
}

/*
 * g = x^n mod p, p of degree d (bit d set), g of d/64 + 1 words.
 *
 * Squares are reduced eight bits at a time, from the top: table[b] is the
 * multiple q_b p (deg q_b < 8) whose coefficients of x^d..x^(d+7) are the
 * bits of b, so XOR-ing table[b] x^(8t) clears the eight bits from
 * x^(d+8t) on; shifts by whole bytes need no bit shifting.
 */
static int
gf2_xpow_mod(const steps_t *n, const uint64_t *p, size_t d, uint64_t *g)
{
    size_t pw = d / 64 + 1;  /* words of p and of g */
    size_t tb = d / 8 + 2;   /* bytes of a table entry (degree <= d + 7) */
    size_t rb = 2 * tb + 16; /* bytes of a square, with room to reduce */
    uint8_t *pb = calloc(tb, 1), *gb = calloc(tb, 1), *r = calloc(rb, 1);
    uint8_t *table = calloc(256 * tb, 1);
    if (!pb || !gb || !r || !table) {
        free(pb);
        free(gb);
        free(r);
        free(table);
        return -1;
    }
    for (size_t i = 0; i <= d; i++)
        if (bit_at(p, i))
            pb[i >> 3] |= (uint8_t)(1u << (i & 7));
    /* table[1 << i]: p x^i, then its bits d..d+i-1 cleared by lower multiples */
    for (unsigned i = 0; i < 8; i++) {
        uint8_t *e = table + ((size_t)1 << i) * tb;
        for (unsigned k = i + 1; k-- > 0;) {
            if (k == i || byte_bit(e, d + k)) {
                /* e ^= p x^k */
                unsigned carry = 0;
                for (size_t m = 0; m < tb; m++) {
                    unsigned v = ((unsigned)pb[m] << k) | carry;
                    e[m] ^= (uint8_t)v;
                    carry = v >> 8;
                }
            }
        }
    }
    for (unsigned b = 3; b < 256; b++) /* the rest by linearity */
        if (b & (b - 1)) {
            memcpy(table + b * tb, table + (b & (b - 1)) * tb, tb);
            bytes_xor(table + b * tb, table + (b & -b) * tb, tb);
        }
    gb[0] = 1;
    int started = 0;
    for (size_t bit = n->nbits; bit-- > 0;) {
        if (started) { /* g = g^2 mod p */
            memset(r, 0, rb);
            for (size_t k = 0; k < tb; k++) {
                uint16_t v = spread8(gb[k]);
                r[2 * k] = (uint8_t)v;
                r[2 * k + 1] = (uint8_t)(v >> 8);
            }
            for (size_t t = (d + 7) / 8 + 1; t-- > 0;) {
                size_t j = d + 8 * t;
                unsigned b = (((unsigned)r[j >> 3] | ((unsigned)r[(j >> 3) + 1] << 8)) >> (j & 7)) & 0xffu;
                if (b)
                    bytes_xor(r + t, table + b * tb, tb);
            }
            memcpy(gb, r, tb);
        }
        if (steps_bit(n, bit)) { /* g = g x mod p */
            started = 1;
            unsigned carry = 0;
            for (size_t k = 0; k < tb; k++) {
                unsigned v = ((unsigned)gb[k] << 1) | carry;
                gb[k] = (uint8_t)v;
                carry = v >> 8;
            }
            if (byte_bit(gb, d))
                bytes_xor(gb, pb, tb);
        }
    }
    memset(g, 0, sizeof(uint64_t) * pw);
    for (size_t i = 0; i < d; i++)
        if (byte_bit(gb, i))
            g[i >> 6] |= 1ULL << (i & 63);
    free(pb);
    free(gb);
    free(r);
    free(table);
    return 0;
}

/* ------------------------------------------------------------------ */
/* MT19937                                                              */

/* p(x) from 2 * 19937 bits of the word recurrence (bit 0 of each word) */
static long
mt_charpoly(uint64_t *out)
{
    size_t nbits = 2 * MT_DEGREE;
    uint32_t *x = malloc(sizeof(uint32_t) * (MT_N + nbits));
    uint8_t *bits = malloc(nbits);
    long degree = -1;
    if (x && bits) {
        uint32_t v = 1;
        for (size_t t = 0; t < MT_N; t++) /* any start; every window from x[624] on is a recurrence window */
            x[t] = v = 1812433253u * (v ^ (v >> 30)) + (uint32_t)t;
        for (size_t t = MT_N; t < MT_N + nbits; t++)
            x[t] = mt_mix(x[t - MT_N], x[t - MT_N + 1], x[t - MT_N + MT_M]);
        for (size_t t = 0; t < nbits; t++)
            bits[t] = (uint8_t)(x[MT_N + t] & 1u);
        degree = gf2_berlekamp_massey(bits, nbits, out, MT_POLY_WORDS);
    }
    free(x);
    free(bits);
    return degree;
}

static PyObject *
py_mt19937_charpoly(PyObject *Py_UNUSED(self), PyObject *arg)
{
    Py_buffer out;
    if (get_buffer(arg, &out, sizeof(uint64_t) * MT_POLY_WORDS, 1, "out") < 0)
        return NULL;
    uint64_t *poly = malloc(sizeof(uint64_t) * MT_POLY_WORDS);
    if (poly == NULL) {
        PyBuffer_Release(&out);
        return PyErr_NoMemory();
    }
    long degree;
    Py_BEGIN_ALLOW_THREADS
    degree = mt_charpoly(poly);
    Py_END_ALLOW_THREADS
    if (degree == MT_DEGREE)
        memcpy(out.buf, poly, sizeof(uint64_t) * MT_POLY_WORDS);
    free(poly);
    PyBuffer_Release(&out);
    if (degree < 0)
        return PyErr_NoMemory();
    if (degree != MT_DEGREE)
        return PyErr_Format(PyExc_RuntimeError, "MT19937 recurrence came out of degree %ld, not %d", degree, MT_DEGREE);
    return PyLong_FromLong(degree);
}

/*
 * key/pos as in MT19937 implementations (next output mt[pos], a twist first
 * when pos == 624) -> out = the 624 words x[t+n..t+n+623], where x[t] is the
 * next output: a state whose next output is out[0] (pos 0).
 */
static int
mt_jump(const uint32_t *key, unsigned pos, const steps_t *n, const uint64_t *poly, uint32_t *out)
{
    uint32_t ext[2 * MT_N], w[MT_N], r[MT_N];
    uint64_t g[MT_POLY_WORDS];
    /* the window at the next output: the rest of this block, then the
     * start of the next one as the twist would compute it */
    memcpy(ext, key, sizeof(uint32_t) * MT_N);
    for (unsigned t = MT_N; t < MT_N + pos; t++)
        ext[t] = mt_mix(ext[t - MT_N], ext[t - MT_N + 1], ext[t - MT_N + MT_M]);
    memcpy(w, ext + pos, sizeof w);
    if (gf2_xpow_mod(n, poly, MT_DEGREE, g) < 0)
        return -1;
    /* r = sum_i g_i T^i w by Horner; r is a ring buffer starting at h */
    memset(r, 0, sizeof r);
    unsigned h = 0;
    for (long i = MT_DEGREE - 1; i >= 0; i--) {
        unsigned h1 = h + 1 == MT_N ? 0 : h + 1;
        unsigned hm = h + MT_M >= MT_N ? h + MT_M - MT_N : h + MT_M;
        r[h] = mt_mix(r[h], r[h1], r[hm]);
        h = h1;
        if (bit_at(g, (size_t)i)) {
            unsigned first = MT_N - h;
            for (unsigned k = 0; k < first; k++)
                r[h + k] ^= w[k];
            for (unsigned k = first; k < MT_N; k++)
                r[k - first] ^= w[k];
        }
    }
    for (unsigned k = 0; k < MT_N; k++)
        out[k] = r[(h + k) % MT_N];
    return 0;
}

static PyObject *
py_mt19937(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *key_obj, *pos_obj, *n_obj, *poly_obj, *out_obj;
    uint32_t pos;
    steps_t n;
    if (!PyArg_ParseTuple(args, "OOOOO", &key_obj, &pos_obj, &n_obj, &poly_obj, &out_obj) ||
        get_u32(pos_obj, "pos", &pos) < 0 || get_steps(n_obj, &n) < 0)
        return NULL;
    if (pos > MT_N)
        return PyErr_Format(PyExc_ValueError, "pos must be in [0, %d]", MT_N);
    Py_buffer key, poly, out;
    if (get_buffer(key_obj, &key, sizeof(uint32_t) * MT_N, 0, "key") < 0)
        return NULL;
    if (get_buffer(poly_obj, &poly, sizeof(uint64_t) * MT_POLY_WORDS, 0, "poly") < 0) {
        PyBuffer_Release(&key);
        return NULL;
    }
    if (get_buffer(out_obj, &out, sizeof(uint32_t) * MT_N, 1, "out") < 0) {
        RELEASE_BUFFERS(&key, &poly);
        return NULL;
    }
    const uint64_t *p = poly.buf;
    int ok = ((p[MT_DEGREE / 64] >> (MT_DEGREE % 64)) & 1) && (p[MT_DEGREE / 64] >> (MT_DEGREE % 64)) == 1;
    int rc = -2;
    if (ok) {
        uint32_t in[MT_N], res[MT_N];
        memcpy(in, key.buf, sizeof in);
        Py_BEGIN_ALLOW_THREADS
        rc = mt_jump(in, pos, &n, p, res);
        Py_END_ALLOW_THREADS
        if (rc == 0)
            memcpy(out.buf, res, sizeof res);
    }
    RELEASE_BUFFERS(&key, &poly, &out);
    if (rc == -2)
        return PyErr_Format(PyExc_ValueError, "poly is not of degree %d: pass what mt19937_charpoly wrote", MT_DEGREE);
    if (rc < 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ */
/* Other GF(2)-linear generators with an invertible step (xoshiro family,
 * xorshift1024 as a window) and MT19937-64: the same polynomial jump, with
 * the state as an array of 64-bit words and one step as a function on it.  */

static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

typedef void (*f2_step_fn)(uint64_t *w);

static void
xoshiro256_step(uint64_t *s)
{
    uint64_t t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
}

static void
xoshiro512_step(uint64_t *s)
{
    uint64_t t = s[1] << 11;
    s[2] ^= s[0]; s[5] ^= s[1]; s[1] ^= s[2]; s[7] ^= s[3];
    s[3] ^= s[4]; s[4] ^= s[5]; s[0] ^= s[6]; s[6] ^= s[7];
    s[6] ^= t;
    s[7] = rotl64(s[7], 21);
}

/* xoroshiro128+ (24, 16, 37) and xoroshiro128++ (49, 21, 28) */
static void
xoroshiro128_step(uint64_t *s)
{
    uint64_t s0 = s[0], s1 = s[1] ^ s[0];
    s[0] = rotl64(s0, 24) ^ s1 ^ (s1 << 16);
    s[1] = rotl64(s1, 37);
}

static void
xoroshiro128pp_step(uint64_t *s)
{
    uint64_t s0 = s[0], s1 = s[1] ^ s[0];
    s[0] = rotl64(s0, 49) ^ s1 ^ (s1 << 21);
    s[1] = rotl64(s1, 28);
}

/* xorshift1024 as the window W[k] = s[(p + k) & 15]: one output makes
 * W' = (f(W1, W0), W2, .., W15, W0), the output being W'[0] * phi */
static void
xorshift1024_step(uint64_t *w)
{
    uint64_t s0 = w[0], s1 = w[1];
    s1 ^= s1 << 31;
    uint64_t next = s1 ^ s0 ^ (s1 >> 11) ^ (s0 >> 30);
    memmove(w + 1, w + 2, sizeof(uint64_t) * 14);
    w[15] = s0;
    w[0] = next;
}

/* MT19937-64 on the window of the next 312 outputs (x[t], .., x[t+311]) */
static void
mt64_step(uint64_t *w)
{
    uint64_t next = mt64_mix(w[0], w[1], w[MT64_M]);
    memmove(w, w + 1, sizeof(uint64_t) * (MT64_N - 1));
    w[MT64_N - 1] = next;
}

typedef struct {
    const char *name;
    size_t words;  /* state words */
    size_t degree; /* of the characteristic polynomial */
    f2_step_fn step;
} f2_kind;

static const f2_kind F2_KINDS[] = {
    {"xoshiro256", 4, 256, xoshiro256_step},
    {"xoshiro512", 8, 512, xoshiro512_step},
    {"xoroshiro128", 2, 128, xoroshiro128_step},
    {"xoroshiro128pp", 2, 128, xoroshiro128pp_step},
    {"xorshift1024", 16, 1024, xorshift1024_step},
    {"mt19937-64", MT64_N, 19937, mt64_step},
};
#define F2_KIND_COUNT (sizeof F2_KINDS / sizeof F2_KINDS[0])

static const f2_kind *
find_f2_kind(const char *name)
{
    for (size_t k = 0; k < F2_KIND_COUNT; k++)
        if (strcmp(F2_KINDS[k].name, name) == 0)
            return &F2_KINDS[k];
    PyErr_Format(PyExc_ValueError, "unknown GF(2) generator kind '%s'", name);
    return NULL;
}

static size_t f2_poly_words(const f2_kind *k) { return k->degree / 64 + 1; }

/* p(x) from 2 * degree bits (bit 0 of word 0) of the states that follow
 * an arbitrary non-zero one: with a primitive p every non-zero bit sequence
 * of the generator has p as its minimal polynomial. */
static long
f2_charpoly(const f2_kind *k, uint64_t *out)
{
    size_t nbits = 2 * k->degree;
    uint64_t *w = malloc(sizeof(uint64_t) * k->words);
    uint8_t *bits = malloc(nbits);
    long degree = -1;
    if (w && bits) {
        uint64_t v = 0x9E3779B97F4A7C15ULL;
        for (size_t i = 0; i < k->words; i++)
            w[i] = v = v * 6364136223846793005ULL + 1442695040888963407ULL;
        for (size_t i = 0; i < k->words + 8; i++) /* make every window a stepped one (MT19937-64) */
            k->step(w);
        for (size_t t = 0; t < nbits; t++) {
            bits[t] = (uint8_t)(w[0] & 1u);
            k->step(w);
        }
        degree = gf2_berlekamp_massey(bits, nbits, out, f2_poly_words(k));
    }
    free(w);
    free(bits);
    return degree;
}

/* out = g(T) s = T^n s for g = x^n mod p, by Horner's rule */
static int
f2_jump(const f2_kind *k, const uint64_t *s, const steps_t *n, const uint64_t *poly, uint64_t *out)
{
    uint64_t *g = malloc(sizeof(uint64_t) * f2_poly_words(k));
    uint64_t *r = calloc(k->words, sizeof(uint64_t));
    int rc = -1;
    if (g && r && gf2_xpow_mod(n, poly, k->degree, g) == 0) {
        for (size_t i = k->degree; i-- > 0;) {
            k->step(r);
            if (bit_at(g, i))
                for (size_t j = 0; j < k->words; j++)
                    r[j] ^= s[j];
        }
        memcpy(out, r, sizeof(uint64_t) * k->words);
        rc = 0;
    }
    free(g);
    free(r);
    return rc;
}

static PyObject *
py_f2_charpoly(PyObject *Py_UNUSED(self), PyObject *args)
{
    const char *name;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "sO", &name, &out_obj))
        return NULL;
    const f2_kind *k = find_f2_kind(name);
    if (k == NULL)
        return NULL;
    Py_buffer out;
    if (get_buffer(out_obj, &out, (Py_ssize_t)(sizeof(uint64_t) * f2_poly_words(k)), 1, "out") < 0)
        return NULL;
    uint64_t *poly = malloc(sizeof(uint64_t) * f2_poly_words(k));
    long degree = -1;
    if (poly) {
        Py_BEGIN_ALLOW_THREADS
        degree = f2_charpoly(k, poly);
        Py_END_ALLOW_THREADS
        if (degree == (long)k->degree)
            memcpy(out.buf, poly, sizeof(uint64_t) * f2_poly_words(k));
    }
    free(poly);
    PyBuffer_Release(&out);
    if (degree < 0)
        return PyErr_NoMemory();
    if (degree != (long)k->degree)
        return PyErr_Format(PyExc_RuntimeError, "%s came out of degree %ld, not %zu", name, degree, k->degree);
    return PyLong_FromLong(degree);
}

/* f2_jump(kind, state, n, poly, out); for mt19937-64 the state is the
 * window of the next 312 outputs (see mt19937_64_window) */
static PyObject *
py_f2_jump(PyObject *Py_UNUSED(self), PyObject *args)
{
    const char *name;
    PyObject *state_obj, *n_obj, *poly_obj, *out_obj;
    steps_t n;
    if (!PyArg_ParseTuple(args, "sOOOO", &name, &state_obj, &n_obj, &poly_obj, &out_obj) || get_steps(n_obj, &n) < 0)
        return NULL;
    const f2_kind *k = find_f2_kind(name);
    if (k == NULL)
        return NULL;
    Py_ssize_t state_bytes = (Py_ssize_t)(sizeof(uint64_t) * k->words);
    Py_buffer state, poly, out;
    if (get_buffer(state_obj, &state, state_bytes, 0, "state") < 0)
        return NULL;
    if (get_buffer(poly_obj, &poly, (Py_ssize_t)(sizeof(uint64_t) * f2_poly_words(k)), 0, "poly") < 0) {
        PyBuffer_Release(&state);
        return NULL;
    }
    if (get_buffer(out_obj, &out, state_bytes, 1, "out") < 0) {
        RELEASE_BUFFERS(&state, &poly);
        return NULL;
    }
    const uint64_t *p = poly.buf;
    size_t top = k->degree / 64;
    int rc = -2;
    uint64_t *in = malloc((size_t)state_bytes), *res = malloc((size_t)state_bytes);
    if (in && res && (p[top] >> (k->degree % 64)) == 1) {
        memcpy(in, state.buf, (size_t)state_bytes);
        Py_BEGIN_ALLOW_THREADS
        rc = f2_jump(k, in, &n, p, res);
        Py_END_ALLOW_THREADS
        if (rc == 0)
            memcpy(out.buf, res, (size_t)state_bytes);
    } else if (!in || !res) {
        rc = -1;
    }
    free(in);
    free(res);
    RELEASE_BUFFERS(&state, &poly, &out);
    if (rc == -2)
        return PyErr_Format(PyExc_ValueError, "poly is not of degree %zu: pass what f2_charpoly wrote", k->degree);
    if (rc < 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* MT19937-64's key/pos (next output key[pos], a twist first at pos 312) ->
 * the window of the next 312 values x[t..t+311] */
static PyObject *
py_mt19937_64_window(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *key_obj, *pos_obj, *out_obj;
    uint32_t pos;
    if (!PyArg_ParseTuple(args, "OOO", &key_obj, &pos_obj, &out_obj) || get_u32(pos_obj, "pos", &pos) < 0)
        return NULL;
    if (pos > MT64_N)
        return PyErr_Format(PyExc_ValueError, "pos must be in [0, %d]", MT64_N);
    Py_buffer key, out;
    if (get_buffer(key_obj, &key, sizeof(uint64_t) * MT64_N, 0, "key") < 0)
        return NULL;
    if (get_buffer(out_obj, &out, sizeof(uint64_t) * MT64_N, 1, "out") < 0) {
        PyBuffer_Release(&key);
        return NULL;
    }
    uint64_t ext[2 * MT64_N];
    memcpy(ext, key.buf, sizeof(uint64_t) * MT64_N);
    for (unsigned t = MT64_N; t < MT64_N + pos; t++)
        ext[t] = mt64_mix(ext[t - MT64_N], ext[t - MT64_N + 1], ext[t - MT64_N + MT64_M]);
    memcpy(out.buf, ext + pos, sizeof(uint64_t) * MT64_N);
    RELEASE_BUFFERS(&key, &out);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ */

static PyMethodDef module_methods[] = {
    {"lcg", py_lcg, METH_VARARGS,
     "lcg(x, a, c, modulus, n): x after n steps (n: any int in [0, 2**1024)) of x -> (a x + c) mod modulus (2 <= modulus <= 2**64)."},
    {"xorshift32", py_xorshift32, METH_VARARGS, "xorshift32(x, n): Marsaglia's xorshift32 (13, 17, 5) state n steps on."},
    {"lfsr113", py_lfsr113, METH_VARARGS, "lfsr113(s1, s2, s3, s4, n): the four LFSR113 components n steps on."},
    {"glibc_additive", py_glibc_additive, METH_VARARGS,
     "glibc_additive(hist, n, out): glibc TYPE_3 history (31 uint32, oldest first) n outputs on, into out."},
    {"mt19937_charpoly", py_mt19937_charpoly, METH_O,
     "mt19937_charpoly(out): writes MT19937's characteristic polynomial (MT_POLY_WORDS uint64 words, bit i = x^i); returns 19937."},
    {"f2_charpoly", py_f2_charpoly, METH_VARARGS,
     "f2_charpoly(kind, out): the characteristic polynomial of a GF(2) generator (F2_KINDS[kind] = (state words, "
     "polynomial words)) into out; returns its degree."},
    {"f2_jump", py_f2_jump, METH_VARARGS,
     "f2_jump(kind, state, n, poly, out): the state (uint64 words) n steps on, into out."},
    {"mt19937_64_window", py_mt19937_64_window, METH_VARARGS,
     "mt19937_64_window(key, pos, out): MT19937-64's next 312 values (its f2_jump state) from key (312 uint64) and pos."},
    {"mt19937", py_mt19937, METH_VARARGS,
     "mt19937(key, pos, n, poly, out): from mt[] = key (624 uint32) and index pos, the 624 words whose first is "
     "the output n outputs on, into out (use them with index 0)."},
    {NULL, NULL, 0, NULL},
};

RANDQA_MODULE_DEF("randqa.sources._jump",
                  "Jump-ahead arithmetic for the compiled generators (LCG, GF(2) matrix and polynomial, glibc additive).",
                  module_methods);

PyMODINIT_FUNC
PyInit__jump(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    PyObject *kinds = PyDict_New();
    if (kinds == NULL || PyModule_AddIntConstant(m, "MT_POLY_WORDS", MT_POLY_WORDS) < 0) {
        Py_XDECREF(kinds);
        Py_DECREF(m);
        return NULL;
    }
    for (size_t k = 0; k < F2_KIND_COUNT; k++) {
        PyObject *v = Py_BuildValue("(nn)", (Py_ssize_t)F2_KINDS[k].words, (Py_ssize_t)f2_poly_words(&F2_KINDS[k]));
        if (v == NULL || PyDict_SetItemString(kinds, F2_KINDS[k].name, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(kinds);
            Py_DECREF(m);
            return NULL;
        }
        Py_DECREF(v);
    }
    if (PyModule_AddObject(m, "F2_KINDS", kinds) < 0) {
        Py_DECREF(kinds);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
