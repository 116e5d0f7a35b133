/*
 * Linear algebra over GF(2) for the tests aimed at linear generators:
 * Berlekamp-Massey linear complexity (bit_linear_complexity and NIST's
 * linear_complexity, through _gf2.h) and the rank of binary matrices
 * (matrix_rank).
 *
 * Every function reads a contiguous bytes-like object through the buffer
 * protocol and adds into caller-owned int64 arrays or returns Python ints:
 * all state lives in the Python accumulators.  Words are little-endian; bit
 * streams are read most significant bit first in each byte (NIST SP 800-22
 * order).
 */
#include "../_module.h"
#include "_buffers.h"
#include "_gf2.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* work must hold 4 * (n/64 + 3) words; n is a multiple of 64 */
static int
berlekamp_massey(const uint64_t *seq, int n, uint64_t *work)
{
    int nw = n / 64, stride = nw + 3;
    uint64_t *R = work;
    for (int w = 0; w < nw; w++)
        R[w] = bit_reverse64(seq[nw - 1 - w]);
    R[nw] = R[nw + 1] = R[nw + 2] = 0;
    return berlekamp_massey_reversed(R, n, work + stride);
}

/* linear_complexity(packed_bits, n) -> L for the n bits (n multiple of 64)
 * stored as uint64 words, bit k at bit k&63 of word k>>6.  For tests. */
static PyObject *
linear_complexity(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in;
    int n;
    if (!PyArg_ParseTuple(args, "y*i", &in, &n))
        return NULL;
    if (n < 64 || n % 64 || in.len != n / 8)
        return reject_parameters(&in, "n must be a positive multiple of 64 and the data n/8 bytes");
    uint64_t *seq = malloc((size_t)n / 8);
    uint64_t *work = malloc((size_t)4 * (n / 64 + 3) * 8);
    if (!seq || !work) {
        free(seq);
        free(work);
        PyBuffer_Release(&in);
        return PyErr_NoMemory();
    }
    memcpy(seq, in.buf, (size_t)n / 8);
    int L = berlekamp_massey(seq, n, work);
    free(seq);
    free(work);
    PyBuffer_Release(&in);
    return PyLong_FromLong(L);
}

/* linear_complexity_scan(data, word_bytes, bit, length, period, seq, state, hist)
 *
 * data holds whole little-endian words.  Bit `bit` of every word is one
 * element of a sequence; within each run of `period` words (a multiple of
 * `length`) the first `length` words make the sequence that is tested and
 * the rest are skipped.  A completed sequence's linear complexity L adds 1
 * to hist[L].  seq (length/64 uint64) holds the sequence being collected
 * and state[0] the position inside the current period, carried between
 * calls. */
static PyObject *
linear_complexity_scan(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, seqv, statev, histv;
    PyObject *seq_obj, *state_obj, *hist_obj;
    int word_bytes, bit, length;
    long long period;
    if (!PyArg_ParseTuple(args, "y*iiiLOOO", &in, &word_bytes, &bit, &length, &period, &seq_obj, &state_obj, &hist_obj))
        return NULL;
    if (word_bytes < 1 || word_bytes > 8 || bit < 0 || bit >= 8 * word_bytes || length < 64 || length % 64 ||
        period < length || period % length || in.len % word_bytes)
        return reject_parameters(&in, "invalid linear complexity scan parameters");
    if (get_int64_out_or_release(seq_obj, &seqv, length / 64, "seq", &in) < 0)
        return NULL;
    if (get_int64_out(state_obj, &statev, 1, "state") < 0) {
        RELEASE_BUFFERS(&in, &seqv);
        return NULL;
    }
    if (get_int64_out(hist_obj, &histv, length + 1, "hist") < 0) {
        RELEASE_BUFFERS(&in, &seqv, &statev);
        return NULL;
    }
    uint64_t *work = malloc((size_t)4 * (length / 64 + 3) * 8);
    if (!work) {
        RELEASE_BUFFERS(&in, &seqv, &statev, &histv);
        return PyErr_NoMemory();
    }
    const uint8_t *p = (const uint8_t *)in.buf + bit / 8;
    int shift = bit % 8;
    Py_ssize_t words = in.len / word_bytes;
    uint64_t *seq = (uint64_t *)seqv.buf;
    int64_t *state = (int64_t *)statev.buf, *hist = (int64_t *)histv.buf;
    Py_BEGIN_ALLOW_THREADS
    long long pos = state[0];
    Py_ssize_t i = 0;
    while (i < words) {
        if (pos >= length) {
            long long skip = period - pos;
            if (skip > words - i)
                skip = words - i;
            pos += skip;
            i += skip;
            if (pos == period)
                pos = 0;
            continue;
        }
        Py_ssize_t take = length - pos;
        if (take > words - i)
            take = words - i;
        for (Py_ssize_t k = 0; k < take; k++, pos++) {
            uint64_t b = (p[(i + k) * word_bytes] >> shift) & 1u;
            seq[pos >> 6] |= b << (pos & 63);
        }
        i += take;
        if (pos == length) {
            hist[berlekamp_massey(seq, length, work)]++;
            memset(seq, 0, (size_t)length / 8);
            if (period == length)
                pos = 0;
        }
    }
    state[0] = pos;
    Py_END_ALLOW_THREADS
    free(work);
    RELEASE_BUFFERS(&in, &seqv, &statev, &histv);
    Py_RETURN_NONE;
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
matrix_rank_counts(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, out;
    long long nbits;
    int rows, cols;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "y*LiiO", &in, &nbits, &rows, &cols, &out_obj))
        return NULL;
    if (check_nbits(&in, nbits) < 0 || rows < 1 || cols < 1 || rows > 65536 || cols > 65536)
        return reject_parameters(&in, "rows and cols must be between 1 and 65536");
    if (get_int64_out_or_release(out_obj, &out, -1, "counts", &in) < 0)
        return NULL;
    int max_rank = rows < cols ? rows : cols;
    if (out.len / 8 < max_rank + 1) {
        PyErr_Format(PyExc_ValueError, "counts needs %d entries", max_rank + 1);
        RELEASE_BUFFERS(&in, &out);
        return NULL;
    }
    int words = (cols + 63) / 64;
    uint64_t *m = malloc((size_t)rows * words * sizeof(uint64_t));
    if (!m) {
        RELEASE_BUFFERS(&in, &out);
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
    RELEASE_BUFFERS(&in, &out);
    return PyLong_FromLongLong(matrices);
}

/* ------------------------------------------------------ linear complexity */

/* linear_complexity_counts(data, nbits, block_bits, counts) -> blocks.
 * Adds 1 to counts[L] for the linear complexity L of each whole block
 * (counts needs block_bits + 1 entries). */
static PyObject *
linear_complexity_counts(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, out;
    long long nbits;
    int block_bits;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "y*LiO", &in, &nbits, &block_bits, &out_obj))
        return NULL;
    if (check_nbits(&in, nbits) < 0 || block_bits < 1 || block_bits > (1 << 24))
        return reject_parameters(&in, "block_bits must be between 1 and 2**24");
    if (get_int64_out_or_release(out_obj, &out, -1, "counts", &in) < 0)
        return NULL;
    if (out.len / 8 < (Py_ssize_t)block_bits + 1) {
        PyErr_Format(PyExc_ValueError, "counts needs %d entries", block_bits + 1);
        RELEASE_BUFFERS(&in, &out);
        return NULL;
    }
    int words = (block_bits + 63) / 64 + 3; /* the padding berlekamp_massey_reversed reads */
    uint64_t *work = malloc((size_t)3 * words * sizeof(uint64_t));
    uint64_t *reversed = malloc((size_t)words * sizeof(uint64_t));
    if (!work || !reversed) {
        free(work);
        free(reversed);
        RELEASE_BUFFERS(&in, &out);
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
    RELEASE_BUFFERS(&in, &out);
    return PyLong_FromLongLong(blocks);
}

static PyMethodDef methods[] = {
    {"linear_complexity", linear_complexity, METH_VARARGS, "Linear complexity of n packed bits (Berlekamp-Massey)."},
    {"linear_complexity_scan", linear_complexity_scan, METH_VARARGS, "Histogram of linear complexities of one bit position."},
    {"matrix_rank_counts", matrix_rank_counts, METH_VARARGS,
     "matrix_rank_counts(data, nbits, rows, cols, counts) -> matrices; counts[rank] += 1"},
    {"linear_complexity_counts", linear_complexity_counts, METH_VARARGS,
     "linear_complexity_counts(data, nbits, block_bits, counts) -> blocks; counts[L] += 1"},
    {NULL, NULL, 0, NULL},
};

RANDQA_MODULE(_linear, "randqa.battery._linear",
              "Berlekamp-Massey linear complexity and GF(2) matrix rank.",
              methods);
