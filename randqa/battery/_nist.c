/*
 * Hot loops of the NIST SP 800-22 block tests (block_frequency,
 * longest_run, universal): per-block work on a bit stream that numpy cannot
 * vectorise.  Matrix rank and linear complexity are in _linear.c.
 *
 * Bits are read most significant first within each byte, as SP 800-22 and
 * its reference code read a byte stream.  Every kernel takes a bytes-like
 * `data` and a bit count `nbits` (at most 8 * len(data)) and works on the
 * whole blocks that start at bit 0 of data, so the Python accumulators can
 * hand over runs that are not byte-aligned at their end (a final partial
 * byte of ASCII bit input).  Results are returned as Python ints or added
 * into caller-owned int64 arrays: the accumulators keep all state.
 */
#include "../_module.h"
#include "_buffers.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- block frequency */

POPCNT_CLONES static uint64_t
ones_in_range(const uint8_t *p, uint64_t start, uint64_t count)
{
    uint64_t end = start + count, ones = 0;
    uint64_t b = start >> 3, e = end >> 3;
    unsigned head = (unsigned)(start & 7), tail = (unsigned)(end & 7);
    if (count == 0)
        return 0;
    if (b == e)
        return (uint64_t)__builtin_popcount(p[b] & (0xFFu >> head) & (0xFFu << (8 - tail)));
    if (head) {
        ones += (uint64_t)__builtin_popcount(p[b] & (0xFFu >> head));
        b++;
    }
    ones += bytes_weight(p + b, (Py_ssize_t)(e - b));
    if (tail)
        ones += (uint64_t)__builtin_popcount(p[e] & (0xFFu << (8 - tail)) & 0xFFu);
    return ones;
}

/* A 128-bit unsigned sum of squares: __int128 where the compiler has one,
 * two 64-bit halves elsewhere (RANDQA_NO_INT128 forces those, so the
 * portable path can be tested on any machine). */
#if defined(__SIZEOF_INT128__) && !defined(RANDQA_NO_INT128)
typedef unsigned __int128 u128;
static inline void u128_add_square(u128 *acc, uint64_t x) { *acc += (u128)x * x; }
static inline uint64_t u128_high(u128 v) { return (uint64_t)(v >> 64); }
static inline uint64_t u128_low(u128 v) { return (uint64_t)v; }
#else
typedef struct { uint64_t high, low; } u128;
static inline void
u128_add_square(u128 *acc, uint64_t x)
{
    /* x^2 = a^2 2^64 + 2ab 2^32 + b^2 with x = a 2^32 + b */
    uint64_t a = x >> 32, b = x & 0xFFFFFFFFu, ab = a * b;
    uint64_t low = b * b, high = a * a + (ab >> 31);
    uint64_t sum = low + (ab << 33);
    high += sum < low;
    acc->low += sum;
    acc->high += high + (acc->low < sum);
}
static inline uint64_t u128_high(u128 v) { return v.high; }
static inline uint64_t u128_low(u128 v) { return v.low; }
#endif

/* block_frequency_sums(data, nbits, block_bits) -> (blocks, sum of
 * (2 * ones - block_bits)^2 over the blocks), an exact integer. */
static PyObject *
block_frequency_sums(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in;
    long long nbits, block_bits;
    if (!PyArg_ParseTuple(args, "y*LL", &in, &nbits, &block_bits))
        return NULL;
    if (check_nbits(&in, nbits) < 0 || block_bits < 1)
        return reject_parameters(&in, "block_bits must be >= 1");
    const uint8_t *p = (const uint8_t *)in.buf;
    uint64_t blocks = (uint64_t)nbits / (uint64_t)block_bits;
    u128 total;
    memset(&total, 0, sizeof total);
    Py_BEGIN_ALLOW_THREADS
    for (uint64_t k = 0; k < blocks; k++) {
        int64_t excess = 2 * (int64_t)ones_in_range(p, k * (uint64_t)block_bits, (uint64_t)block_bits) - block_bits;
        uint64_t size = (uint64_t)(excess < 0 ? -excess : excess);
        u128_add_square(&total, size);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&in);
    PyObject *sum = pylong_from_halves(u128_high(total), u128_low(total));
    if (!sum)
        return NULL;
    return Py_BuildValue("(KN)", (unsigned long long)blocks, sum);
}

/* ----------------------------------------------------- longest run of ones */

static uint8_t lead_ones[256], trail_ones[256], longest_ones[256];

static void
init_run_tables(void)
{
    for (int b = 0; b < 256; b++) {
        int lead = 0, trail = 0, best = 0, cur = 0;
        while (lead < 8 && (b >> (7 - lead)) & 1)
            lead++;
        while (trail < 8 && (b >> trail) & 1)
            trail++;
        for (int i = 7; i >= 0; i--) {
            cur = (b >> i) & 1 ? cur + 1 : 0;
            if (cur > best)
                best = cur;
        }
        lead_ones[b] = (uint8_t)lead;
        trail_ones[b] = (uint8_t)trail;
        longest_ones[b] = (uint8_t)best;
    }
}

/* longest_run_counts(data, nbits, block_bits, counts) -> blocks.
 * For each whole block of block_bits bits (a multiple of 8), adds 1 to
 * counts[min(longest run of ones in the block, len(counts) - 1)]. */
static PyObject *
longest_run_counts(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, out;
    long long nbits, block_bits;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "y*LLO", &in, &nbits, &block_bits, &out_obj))
        return NULL;
    if (check_nbits(&in, nbits) < 0 || block_bits < 8 || block_bits % 8)
        return reject_parameters(&in, "block_bits must be a positive multiple of 8");
    if (get_int64_out_or_release(out_obj, &out, -1, "counts", &in) < 0)
        return NULL;
    const uint8_t *p = (const uint8_t *)in.buf;
    int64_t *counts = (int64_t *)out.buf;
    int64_t top = (int64_t)(out.len / 8) - 1;
    long long blocks = nbits / block_bits, block_bytes = block_bits / 8;
    Py_BEGIN_ALLOW_THREADS
    for (long long k = 0; k < blocks; k++) {
        const uint8_t *q = p + k * block_bytes;
        int64_t best = 0, cur = 0;
        for (long long i = 0; i < block_bytes; i++) {
            unsigned b = q[i];
            if (b == 0xFFu) {
                cur += 8;
                continue;
            }
            cur += lead_ones[b];
            if (cur > best)
                best = cur;
            if (longest_ones[b] > best)
                best = longest_ones[b];
            cur = trail_ones[b];
        }
        if (cur > best)
            best = cur;
        counts[best < top ? best : top]++;
    }
    Py_END_ALLOW_THREADS
    RELEASE_BUFFERS(&in, &out);
    return PyLong_FromLongLong(blocks);
}
/* --------------------------------------------------- Maurer's universal */

/* universal_sum(data, nbits, block_bits, init_blocks) -> (test_blocks, sum).
 * Cuts data into blocks of L = block_bits bits (numbered from 1), records
 * the last position of each L-bit value over the first Q = init_blocks
 * blocks, then over the remaining K blocks adds log2(i - last[value]) (a
 * value never seen counts from position 0, as in SP 800-22 2.9.4). */
static PyObject *
universal_sum(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in;
    long long nbits, init_blocks;
    int block_bits;
    if (!PyArg_ParseTuple(args, "y*LiL", &in, &nbits, &block_bits, &init_blocks))
        return NULL;
    if (check_nbits(&in, nbits) < 0 || block_bits < 1 || block_bits > 24 || init_blocks < 0)
        return reject_parameters(&in, "block_bits must be between 1 and 24 and init_blocks >= 0");
    uint64_t *last = calloc((size_t)1 << block_bits, sizeof(uint64_t));
    if (!last) {
        PyBuffer_Release(&in);
        return PyErr_NoMemory();
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    long long blocks = nbits / block_bits;
    long long test_blocks = blocks > init_blocks ? blocks - init_blocks : 0;
    double sum = 0.0;
    Py_BEGIN_ALLOW_THREADS
    for (long long i = 1; i <= blocks; i++) {
        uint64_t value = get_bits(p, in.len, (uint64_t)(i - 1) * (uint64_t)block_bits, block_bits) >> (64 - block_bits);
        if (i > init_blocks)
            sum += log2((double)((uint64_t)i - last[value]));
        last[value] = (uint64_t)i;
    }
    Py_END_ALLOW_THREADS
    free(last);
    PyBuffer_Release(&in);
    return Py_BuildValue("(Ld)", test_blocks, sum);
}

/* ------------------------------------------------------------------ module */

static PyMethodDef methods[] = {
    {"block_frequency_sums", block_frequency_sums, METH_VARARGS,
     "block_frequency_sums(data, nbits, block_bits) -> (blocks, sum of (2*ones - block_bits)**2)"},
    {"longest_run_counts", longest_run_counts, METH_VARARGS,
     "longest_run_counts(data, nbits, block_bits, counts) -> blocks; counts[min(run, len-1)] += 1"},
    {"universal_sum", universal_sum, METH_VARARGS,
     "universal_sum(data, nbits, block_bits, init_blocks) -> (test_blocks, sum of log2 distances)"},
    {NULL, NULL, 0, NULL},
};

RANDQA_PREPARED_MODULE(_nist, "randqa.battery._nist",
                       "Compiled kernels of the NIST SP 800-22 tests.",
                       methods, init_run_tables);
