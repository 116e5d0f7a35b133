/*
 * Hot loops of the NIST SP 800-22 tests (block_frequency, longest_run,
 * matrix_rank, linear_complexity, universal): per-block work on a bit
 * stream that numpy cannot vectorise.
 *
 * Bits are read most significant first within each byte, as SP 800-22 and
 * its reference code read a byte stream.  Every kernel takes a bytes-like
 * `data` and a bit count `nbits` (at most 8 * len(data)) and works on the
 * whole blocks that start at bit 0 of data, so the Python accumulators can
 * hand over runs that are not byte-aligned at their end (a final partial
 * byte of ASCII bit input).  Results are returned as Python ints or added
 * into caller-owned int64 arrays: the accumulators keep all state.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "../_buffers.h"
#include "_gf2.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

/* The `count` bits (1..64) that start at bit `pos`, left-aligned: the first
 * bit of the stream lands in bit 63 and the unused low bits are zero.
 * Bytes past `len` read as zero, so a block at the very end is safe. */
static inline uint64_t
get_bits(const uint8_t *p, Py_ssize_t len, uint64_t pos, int count)
{
    Py_ssize_t byte = (Py_ssize_t)(pos >> 3);
    unsigned shift = (unsigned)(pos & 7);
    uint64_t w;
    unsigned extra;
    if (byte + 9 <= len) {
        w = load_be64(p + byte);
        extra = p[byte + 8];
    } else {
        w = 0;
        for (int i = 0; i < 8; i++)
            w = (w << 8) | (byte + i < len ? p[byte + i] : 0u);
        extra = byte + 8 < len ? p[byte + 8] : 0u;
    }
    if (shift)
        w = (w << shift) | (uint64_t)(extra >> (8 - shift));
    return count >= 64 ? w : w & ~(~0ULL >> count);
}

/* Parse (data, nbits, ...) and check nbits against the buffer. */
static int
check_nbits(Py_buffer *in, long long nbits)
{
    if (nbits < 0 || nbits > 8 * (long long)in->len) {
        PyErr_Format(PyExc_ValueError, "nbits must be between 0 and 8 * len(data) = %lld, not %lld",
                     8 * (long long)in->len, nbits);
        return -1;
    }
    return 0;
}

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
    for (; b + 8 <= e; b += 8) {
        uint64_t w;
        memcpy(&w, p + b, 8);
        ones += (uint64_t)__builtin_popcountll(w);
    }
    for (; b < e; b++)
        ones += (uint64_t)__builtin_popcount(p[b]);
    if (tail)
        ones += (uint64_t)__builtin_popcount(p[e] & (0xFFu << (8 - tail)) & 0xFFu);
    return ones;
}

static PyObject *
u128_to_pylong(unsigned __int128 v)
{
    PyObject *hi = PyLong_FromUnsignedLongLong((unsigned long long)(v >> 64));
    PyObject *lo = PyLong_FromUnsignedLongLong((unsigned long long)v);
    PyObject *sixty_four = PyLong_FromLong(64);
    PyObject *shifted = NULL, *result = NULL;
    if (hi && lo && sixty_four && (shifted = PyNumber_Lshift(hi, sixty_four)))
        result = PyNumber_Or(shifted, lo);
    Py_XDECREF(hi);
    Py_XDECREF(lo);
    Py_XDECREF(sixty_four);
    Py_XDECREF(shifted);
    return result;
}

/* block_frequency_sums(data, nbits, block_bits) -> (blocks, sum of
 * (2 * ones - block_bits)^2 over the blocks), an exact integer. */
static PyObject *
block_frequency_sums(PyObject *self, PyObject *args)
{
    Py_buffer in;
    long long nbits, block_bits;
    if (!PyArg_ParseTuple(args, "y*LL", &in, &nbits, &block_bits))
        return NULL;
    if (check_nbits(&in, nbits) < 0 || block_bits < 1) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "block_bits must be >= 1");
        PyBuffer_Release(&in);
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    uint64_t blocks = (uint64_t)nbits / (uint64_t)block_bits;
    unsigned __int128 total = 0;
    Py_BEGIN_ALLOW_THREADS
    for (uint64_t k = 0; k < blocks; k++) {
        int64_t excess = 2 * (int64_t)ones_in_range(p, k * (uint64_t)block_bits, (uint64_t)block_bits) - block_bits;
        uint64_t size = (uint64_t)(excess < 0 ? -excess : excess);
        total += (unsigned __int128)size * size;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&in);
    PyObject *sum = u128_to_pylong(total);
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
longest_run_counts(PyObject *self, PyObject *args)
{
    Py_buffer in, out;
    long long nbits, block_bits;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "y*LLO", &in, &nbits, &block_bits, &out_obj))
        return NULL;
    if (check_nbits(&in, nbits) < 0 || block_bits < 8 || block_bits % 8) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "block_bits must be a positive multiple of 8");
        PyBuffer_Release(&in);
        return NULL;
    }
    if (get_int64_out(out_obj, &out, -1, "counts") < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
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
    PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    return PyLong_FromLongLong(blocks);
}

/* ------------------------------------------------------------ matrix rank */

/* Rank over GF(2) of `rows` rows of `words` uint64 each (columns left-
 * aligned: column c is bit 63 - c % 64 of word c / 64).  Destroys m. */
static int
gf2_rank(uint64_t *m, int rows, int cols, int words)
{
    int rank = 0;
    for (int c = 0; c < cols && rank < rows; c++) {
        int w = c >> 6;
        uint64_t bit = 1ULL << (63 - (c & 63));
        int pivot = -1;
        for (int r = rank; r < rows; r++)
            if (m[(size_t)r * words + w] & bit) {
                pivot = r;
                break;
            }
        if (pivot < 0)
            continue;
        uint64_t *pr = m + (size_t)rank * words;
        if (pivot != rank) {
            /* rows at or below `rank` are zero left of word w */
            uint64_t *q = m + (size_t)pivot * words;
            for (int k = w; k < words; k++) {
                uint64_t t = pr[k];
                pr[k] = q[k];
                q[k] = t;
            }
        }
        for (int r = pivot + 1; r < rows; r++) {
            uint64_t *q = m + (size_t)r * words;
            if (q[w] & bit)
                for (int k = w; k < words; k++)
                    q[k] ^= pr[k];
        }
        rank++;
    }
    return rank;
}

/* matrix_rank_counts(data, nbits, rows, cols, counts) -> matrices.
 * Each whole block of rows * cols bits fills a matrix row by row; adds 1 to
 * counts[rank] (counts needs min(rows, cols) + 1 entries). */
static PyObject *
matrix_rank_counts(PyObject *self, PyObject *args)
{
    Py_buffer in, out;
    long long nbits;
    int rows, cols;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "y*LiiO", &in, &nbits, &rows, &cols, &out_obj))
        return NULL;
    if (check_nbits(&in, nbits) < 0 || rows < 1 || cols < 1 || rows > 65536 || cols > 65536) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "rows and cols must be between 1 and 65536");
        PyBuffer_Release(&in);
        return NULL;
    }
    if (get_int64_out(out_obj, &out, -1, "counts") < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    int max_rank = rows < cols ? rows : cols;
    if (out.len / 8 < max_rank + 1) {
        PyErr_Format(PyExc_ValueError, "counts needs %d entries", max_rank + 1);
        PyBuffer_Release(&in);
        PyBuffer_Release(&out);
        return NULL;
    }
    int words = (cols + 63) / 64;
    uint64_t *m = malloc((size_t)rows * words * sizeof(uint64_t));
    if (!m) {
        PyBuffer_Release(&in);
        PyBuffer_Release(&out);
        return PyErr_NoMemory();
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    int64_t *counts = (int64_t *)out.buf;
    uint64_t block_bits = (uint64_t)rows * (uint64_t)cols;
    long long matrices = (long long)((uint64_t)nbits / block_bits);
    Py_BEGIN_ALLOW_THREADS
    for (long long k = 0; k < matrices; k++) {
        uint64_t base = (uint64_t)k * block_bits;
        for (int r = 0; r < rows; r++)
            for (int w = 0; w < words; w++) {
                int take = cols - 64 * w < 64 ? cols - 64 * w : 64;
                m[(size_t)r * words + w] = get_bits(p, in.len, base + (uint64_t)r * cols + 64u * w, take);
            }
        counts[gf2_rank(m, rows, cols, words)]++;
    }
    Py_END_ALLOW_THREADS
    free(m);
    PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    return PyLong_FromLongLong(matrices);
}

/* ------------------------------------------------------ linear complexity */

/* linear_complexity_counts(data, nbits, block_bits, counts) -> blocks.
 * Adds 1 to counts[L] for the linear complexity L of each whole block
 * (counts needs block_bits + 1 entries). */
static PyObject *
linear_complexity_counts(PyObject *self, PyObject *args)
{
    Py_buffer in, out;
    long long nbits;
    int block_bits;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "y*LiO", &in, &nbits, &block_bits, &out_obj))
        return NULL;
    if (check_nbits(&in, nbits) < 0 || block_bits < 1 || block_bits > (1 << 24)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "block_bits must be between 1 and 2**24");
        PyBuffer_Release(&in);
        return NULL;
    }
    if (get_int64_out(out_obj, &out, -1, "counts") < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    if (out.len / 8 < (Py_ssize_t)block_bits + 1) {
        PyErr_Format(PyExc_ValueError, "counts needs %d entries", block_bits + 1);
        PyBuffer_Release(&in);
        PyBuffer_Release(&out);
        return NULL;
    }
    int words = (block_bits + 63) / 64 + 3; /* the padding berlekamp_massey_reversed reads */
    uint64_t *work = malloc((size_t)3 * words * sizeof(uint64_t));
    uint64_t *reversed = malloc((size_t)words * sizeof(uint64_t));
    if (!work || !reversed) {
        free(work);
        free(reversed);
        PyBuffer_Release(&in);
        PyBuffer_Release(&out);
        return PyErr_NoMemory();
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    int64_t *counts = (int64_t *)out.buf;
    long long blocks = nbits / block_bits;
    Py_BEGIN_ALLOW_THREADS
    for (long long k = 0; k < blocks; k++) {
        uint64_t base = (uint64_t)k * (uint64_t)block_bits;
        memset(reversed, 0, (size_t)words * sizeof(uint64_t));
        /* reverse the block: the last bit of the block becomes bit 0 */
        for (int j = 0; j < block_bits; j += 64) {
            int take = block_bits - j < 64 ? block_bits - j : 64;
            uint64_t w = get_bits(p, in.len, base + (uint64_t)j, take);
            /* bit 63 - i of w is s[j + i]; it goes to reversed bit block_bits - 1 - j - i */
            int lo = block_bits - j - take; /* reversed position of s[j + take - 1] */
            uint64_t r = w >> (64 - take);  /* now bit (take - 1 - i) is s[j + i] */
            reversed[lo >> 6] |= r << (lo & 63);
            if ((lo & 63) && (lo & 63) + take > 64)
                reversed[(lo >> 6) + 1] |= r >> (64 - (lo & 63));
        }
        counts[berlekamp_massey_reversed(reversed, block_bits, work)]++;
    }
    Py_END_ALLOW_THREADS
    free(work);
    free(reversed);
    PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    return PyLong_FromLongLong(blocks);
}

/* --------------------------------------------------- Maurer's universal */

/* universal_sum(data, nbits, block_bits, init_blocks) -> (test_blocks, sum).
 * Cuts data into blocks of L = block_bits bits (numbered from 1), records
 * the last position of each L-bit value over the first Q = init_blocks
 * blocks, then over the remaining K blocks adds log2(i - last[value]) (a
 * value never seen counts from position 0, as in SP 800-22 2.9.4). */
static PyObject *
universal_sum(PyObject *self, PyObject *args)
{
    Py_buffer in;
    long long nbits, init_blocks;
    int block_bits;
    if (!PyArg_ParseTuple(args, "y*LiL", &in, &nbits, &block_bits, &init_blocks))
        return NULL;
    if (check_nbits(&in, nbits) < 0 || block_bits < 1 || block_bits > 24 || init_blocks < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "block_bits must be between 1 and 24 and init_blocks >= 0");
        PyBuffer_Release(&in);
        return NULL;
    }
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
    {"matrix_rank_counts", matrix_rank_counts, METH_VARARGS,
     "matrix_rank_counts(data, nbits, rows, cols, counts) -> matrices; counts[rank] += 1"},
    {"linear_complexity_counts", linear_complexity_counts, METH_VARARGS,
     "linear_complexity_counts(data, nbits, block_bits, counts) -> blocks; counts[L] += 1"},
    {"universal_sum", universal_sum, METH_VARARGS,
     "universal_sum(data, nbits, block_bits, init_blocks) -> (test_blocks, sum of log2 distances)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "randqa.battery._nist",
                                        "Compiled kernels of the NIST SP 800-22 tests.", -1, methods};

PyMODINIT_FUNC
PyInit__nist(void)
{
    init_run_tables();
    return PyModule_Create(&module_def);
}
