/*
 * Hot loops of the tests aimed at linear, lagged and LCG generators
 * (bit_linear_complexity, gap, digraph, overlapping_serial, bcfn) and of
 * the low-bits folding helper.
 *
 * As in randqa/_kernels.c, every function reads a contiguous bytes-like
 * object through the buffer protocol and adds into caller-owned int64
 * arrays, or returns Python ints: all state lives in the Python
 * accumulators, so the kernels stay chunk-agnostic.  Words are
 * little-endian; bit streams are read most significant bit first in each
 * byte (NIST SP 800-22 order).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "../_buffers.h"
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
linear_complexity(PyObject *self, PyObject *args)
{
    Py_buffer in;
    int n;
    if (!PyArg_ParseTuple(args, "y*i", &in, &n))
        return NULL;
    if (n < 64 || n % 64 || in.len != n / 8) {
        PyBuffer_Release(&in);
        PyErr_SetString(PyExc_ValueError, "n must be a positive multiple of 64 and the data n/8 bytes");
        return NULL;
    }
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
linear_complexity_scan(PyObject *self, PyObject *args)
{
    Py_buffer in, seqv, statev, histv;
    PyObject *seq_obj, *state_obj, *hist_obj;
    int word_bytes, bit, length;
    long long period;
    if (!PyArg_ParseTuple(args, "y*iiiLOOO", &in, &word_bytes, &bit, &length, &period, &seq_obj, &state_obj, &hist_obj))
        return NULL;
    if (word_bytes < 1 || word_bytes > 8 || bit < 0 || bit >= 8 * word_bytes || length < 64 || length % 64 ||
        period < length || period % length || in.len % word_bytes) {
        PyBuffer_Release(&in);
        PyErr_SetString(PyExc_ValueError, "invalid linear complexity scan parameters");
        return NULL;
    }
    if (get_int64_out(seq_obj, &seqv, length / 64, "seq") < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    if (get_int64_out(state_obj, &statev, 1, "state") < 0) {
        PyBuffer_Release(&in);
        PyBuffer_Release(&seqv);
        return NULL;
    }
    if (get_int64_out(hist_obj, &histv, length + 1, "hist") < 0) {
        PyBuffer_Release(&in);
        PyBuffer_Release(&seqv);
        PyBuffer_Release(&statev);
        return NULL;
    }
    uint64_t *work = malloc((size_t)4 * (length / 64 + 3) * 8);
    if (!work) {
        PyBuffer_Release(&in);
        PyBuffer_Release(&seqv);
        PyBuffer_Release(&statev);
        PyBuffer_Release(&histv);
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
    PyBuffer_Release(&in);
    PyBuffer_Release(&seqv);
    PyBuffer_Release(&statev);
    PyBuffer_Release(&histv);
    Py_RETURN_NONE;
}

/* A hit at `pos`: the gap since the previous hit is counted, except the
 * first, which the caller joins to the previous chunk's open gap (every gap
 * is >= 0, so first < 0 means no hit yet). */
static inline void
gap_hit(long long pos, long long *last, long long *first, int64_t *hist, long long top)
{
    long long g = pos - *last - 1;
    if (*first >= 0)
        hist[g < top ? g : top]++;
    else
        *first = g;
    *last = pos;
}

/* ------------------------------------------------------------------------
 * gap_scan(data, word_bytes, lo, hi, hist, open) -> (first_gap, open)
 *
 * A word w with lo <= w < hi is a hit.  `open` counts the words since the
 * last hit (or since the start).  Each hit closes a gap of `open` words;
 * the first gap closed in this call is returned (-1 if there was no hit)
 * instead of counted, because only the caller knows whether it continues a
 * gap or is the stream's leading one; every later gap adds 1 to
 * hist[min(gap, len(hist) - 1)].
 *
 * Bytes are compared 64 at a time into a bit mask (SSE2 where there is
 * one), and the hits are then visited by counting trailing zeros: a branch
 * per hit would be mispredicted half the time at p = 1/2.
 * ---------------------------------------------------------------------- */
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static inline uint64_t
byte_hits64(const uint8_t *p, uint8_t lo, uint8_t width_minus_1)
{
#if defined(__SSE2__)
    /* unsigned (x - lo) <= width - 1  <=>  min(x - lo, width - 1) == x - lo */
    const __m128i vlo = _mm_set1_epi8((char)lo), vw = _mm_set1_epi8((char)width_minus_1);
    uint64_t mask = 0;
    for (int k = 0; k < 4; k++) {
        __m128i d = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * k)), vlo);
        mask |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(d, vw), d)) << (16 * k);
    }
    return mask;
#else
    uint64_t mask = 0;
    for (int k = 0; k < 64; k++)
        mask |= (uint64_t)((uint8_t)(p[k] - lo) <= width_minus_1) << k;
    return mask;
#endif
}

static PyObject *
gap_scan(PyObject *self, PyObject *args)
{
    Py_buffer in, histv;
    PyObject *hist_obj;
    int word_bytes;
    unsigned long long lo, hi;
    long long open;
    if (!PyArg_ParseTuple(args, "y*iKKOL", &in, &word_bytes, &lo, &hi, &hist_obj, &open))
        return NULL;
    if ((word_bytes != 1 && word_bytes != 2 && word_bytes != 4 && word_bytes != 8) || in.len % word_bytes || open < 0 ||
        hi <= lo || (word_bytes < 8 && hi > (1ULL << (8 * word_bytes)))) {
        PyBuffer_Release(&in);
        PyErr_SetString(PyExc_ValueError, "invalid gap scan parameters");
        return NULL;
    }
    if (get_int64_out(hist_obj, &histv, -1, "hist") < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    int64_t *hist = (int64_t *)histv.buf;
    long long top = histv.len / 8 - 1;
    Py_ssize_t words = in.len / word_bytes;
    uint64_t width = hi - lo;
    /* positions are relative to data[0]; `last` is the previous hit's, and
     * -1 - open before the first hit makes the first gap come out as `open` */
    long long last = -1 - open, first = -1;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t i = 0;
    if (word_bytes == 1) {
        for (; i + 64 <= words; i += 64) {
            uint64_t mask = byte_hits64(p + i, (uint8_t)lo, (uint8_t)(width - 1));
            for (; mask; mask &= mask - 1)
                gap_hit(i + __builtin_ctzll(mask), &last, &first, hist, top);
        }
    }
    for (; i < words; i++)
        if (load_le(p + i * word_bytes, word_bytes) - lo < width)
            gap_hit(i, &last, &first, hist, top);
    open = words - last - 1;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&in);
    PyBuffer_Release(&histv);
    return Py_BuildValue("(LL)", first, open);
}

/* ------------------------------------------------------------------------
 * digraph_scan(data, prev, start, position_mod, counts)
 *
 * Counts overlapping byte pairs (x_i, x_{i+1}) in cell
 * (i mod position_mod) * 65536 + x_i * 256 + x_{i+1}, i being the stream
 * position of x_i; `start` is the stream position of data[0] and `prev`
 * the byte before it (-1 at the start of the stream).  position_mod 0 or 1
 * means one class.  Per-call uint32 sub-counts are not used: a pair table
 * is already 256 KiB, and int64 increments cost the same.
 * ---------------------------------------------------------------------- */
static PyObject *
digraph_scan(PyObject *self, PyObject *args)
{
    Py_buffer in, out;
    PyObject *counts_obj;
    int prev;
    long long start;
    int position_mod;
    if (!PyArg_ParseTuple(args, "y*iLiO", &in, &prev, &start, &position_mod, &counts_obj))
        return NULL;
    if (position_mod < 0 || prev < -1 || prev > 255 || start < 0) {
        PyBuffer_Release(&in);
        PyErr_SetString(PyExc_ValueError, "invalid digraph scan parameters");
        return NULL;
    }
    int classes = position_mod > 1 ? position_mod : 1;
    if (get_int64_out(counts_obj, &out, (Py_ssize_t)classes * 65536, "counts") < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    int64_t *counts = (int64_t *)out.buf;
    Py_ssize_t n = in.len;
    Py_BEGIN_ALLOW_THREADS
    if (n > 0) {
        if (classes == 1) {
            if (prev >= 0)
                counts[((unsigned)prev << 8) | p[0]]++;
            /* uint32 counts halve the table's cache footprint; flushed every
             * 2^31 pairs so they cannot overflow */
            uint32_t *small = calloc(65536, sizeof(uint32_t));
            Py_ssize_t i = 0;
            while (small && i + 1 < n) {
                Py_ssize_t end = n - 1 - i > ((Py_ssize_t)1 << 31) ? i + ((Py_ssize_t)1 << 31) : n - 1;
                for (; i < end; i++)
                    small[((unsigned)p[i] << 8) | p[i + 1]]++;
                for (int v = 0; v < 65536; v++) {
                    counts[v] += small[v];
                    small[v] = 0;
                }
            }
            free(small);
            for (; i + 1 < n; i++) /* only if calloc failed */
                counts[((unsigned)p[i] << 8) | p[i + 1]]++;
        } else {
            /* the class of the pair that starts at stream position start - 1 */
            long long cls = (start + classes - 1) % classes;
            if (prev >= 0)
                counts[cls * 65536 + (((unsigned)prev << 8) | p[0])]++;
            cls = start % classes;
            for (Py_ssize_t i = 0; i + 1 < n; i++) {
                counts[cls * 65536 + (((unsigned)p[i] << 8) | p[i + 1])]++;
                if (++cls == classes)
                    cls = 0;
            }
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------
 * bit_pattern_scan(data, m, counts, reg, have) -> reg
 *
 * Counts every overlapping m-bit pattern (1 <= m <= 24) of the bit stream
 * that ends inside data.  reg holds the stream's last bits before data
 * (the newest in bit 0) and `have` how many of them are valid (capped by
 * the caller at 63).
 * ---------------------------------------------------------------------- */
static PyObject *
bit_pattern_scan(PyObject *self, PyObject *args)
{
    Py_buffer in, out;
    PyObject *counts_obj;
    int m;
    unsigned long long reg;
    long long have;
    if (!PyArg_ParseTuple(args, "y*iOKL", &in, &m, &counts_obj, &reg, &have))
        return NULL;
    if (m < 1 || m > 24 || have < 0) {
        PyBuffer_Release(&in);
        PyErr_SetString(PyExc_ValueError, "invalid bit pattern scan parameters");
        return NULL;
    }
    if (get_int64_out(counts_obj, &out, (Py_ssize_t)1 << m, "counts") < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    int64_t *counts = (int64_t *)out.buf;
    Py_ssize_t n = in.len, i = 0;
    uint64_t r = reg, mask = (1ULL << m) - 1;
    Py_BEGIN_ALLOW_THREADS
    /* the first bytes, while fewer than m bits have been seen */
    for (; i < n && have < m; i++) {
        for (int k = 7; k >= 0; k--) {
            r = (r << 1) | ((p[i] >> k) & 1u);
            if (++have >= m)
                counts[r & mask]++;
        }
    }
    for (; i < n; i++) {
        r = (r << 8) | p[i];
        counts[(r >> 7) & mask]++;
        counts[(r >> 6) & mask]++;
        counts[(r >> 5) & mask]++;
        counts[(r >> 4) & mask]++;
        counts[(r >> 3) & mask]++;
        counts[(r >> 2) & mask]++;
        counts[(r >> 1) & mask]++;
        counts[r & mask]++;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    return PyLong_FromUnsignedLongLong(r);
}

/* ------------------------------------------------------------------------
 * hamming_tuple_scan(data, block_bytes, letter_of_weight, letter_bits,
 *                    tuple_length, counts, index, have) -> (index, have)
 *
 * Each whole block of block_bytes bytes has a Hamming weight; the table
 * letter_of_weight (bytes, 8 * block_bytes + 1 entries) turns it into a
 * letter.  index packs the latest tuple_length letters, letter_bits bits
 * each, the newest lowest (shifts and masks: no division per block), and
 * `have` counts the letters seen (capped); each letter that completes a
 * tuple adds 1 to counts[index] (2^(letter_bits * tuple_length) cells; the
 * caller maps them to base-d words).
 * ---------------------------------------------------------------------- */
POPCNT_CLONES static void
block_weights_tuples(const uint8_t *p, Py_ssize_t blocks, Py_ssize_t block_bytes, const uint8_t *letter,
                     int letter_bits, uint64_t index_mask, int64_t tuple_length, int64_t *counts, uint64_t *index_io,
                     int64_t *have_io)
{
    uint64_t index = *index_io;
    int64_t have = *have_io;
    Py_ssize_t b = 0;
    /* the first tuple_length - 1 letters complete no tuple */
    for (; b < blocks && have < tuple_length; b++) {
        const uint8_t *q = p + b * block_bytes;
        uint64_t weight = 0;
        for (Py_ssize_t j = 0; j < block_bytes; j++)
            weight += (uint64_t)__builtin_popcount(q[j]);
        index = ((index << letter_bits) | letter[weight]) & index_mask;
        if (++have >= tuple_length)
            counts[index]++;
    }
    if (block_bytes == 1) {
        uint8_t letter_of_byte[256];
        for (int v = 0; v < 256; v++)
            letter_of_byte[v] = letter[__builtin_popcount(v)];
        for (; b < blocks; b++) {
            index = ((index << letter_bits) | letter_of_byte[p[b]]) & index_mask;
            counts[index]++;
        }
    } else if (block_bytes == 2 || block_bytes == 4) {
        for (; b < blocks; b++) {
            index = ((index << letter_bits) | letter[__builtin_popcountll(load_le(p + b * block_bytes, (int)block_bytes))]) &
                    index_mask;
            counts[index]++;
        }
    } else if (block_bytes % 8 == 0) {
        for (; b < blocks; b++) {
            const uint8_t *q = p + b * block_bytes;
            uint64_t weight = 0;
            for (Py_ssize_t j = 0; j < block_bytes; j += 8) {
                uint64_t w;
                memcpy(&w, q + j, 8);
                weight += (uint64_t)__builtin_popcountll(w);
            }
            index = ((index << letter_bits) | letter[weight]) & index_mask;
            counts[index]++;
        }
    } else {
        for (; b < blocks; b++) {
            const uint8_t *q = p + b * block_bytes;
            uint64_t weight = 0;
            for (Py_ssize_t j = 0; j < block_bytes; j++)
                weight += (uint64_t)__builtin_popcount(q[j]);
            index = ((index << letter_bits) | letter[weight]) & index_mask;
            counts[index]++;
        }
    }
    *index_io = index;
    *have_io = have;
}

static PyObject *
hamming_tuple_scan(PyObject *self, PyObject *args)
{
    Py_buffer in, table, out;
    PyObject *counts_obj;
    Py_ssize_t block_bytes;
    int letter_bits;
    long long tuple_length, have;
    unsigned long long index;
    if (!PyArg_ParseTuple(args, "y*ny*iLOKL", &in, &block_bytes, &table, &letter_bits, &tuple_length, &counts_obj,
                          &index, &have))
        return NULL;
    if (block_bytes < 1 || table.len != 8 * block_bytes + 1 || letter_bits < 1 || letter_bits > 8 ||
        tuple_length < 1 || letter_bits * tuple_length > 24 || index >> (letter_bits * tuple_length) || have < 0) {
        PyBuffer_Release(&in);
        PyBuffer_Release(&table);
        PyErr_SetString(PyExc_ValueError, "invalid Hamming tuple scan parameters");
        return NULL;
    }
    Py_ssize_t cells = (Py_ssize_t)1 << (letter_bits * tuple_length);
    if (get_int64_out(counts_obj, &out, cells, "counts") < 0) {
        PyBuffer_Release(&in);
        PyBuffer_Release(&table);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < table.len; k++) {
        if (((const uint8_t *)table.buf)[k] >> letter_bits) {
            PyBuffer_Release(&in);
            PyBuffer_Release(&table);
            PyBuffer_Release(&out);
            PyErr_SetString(PyExc_ValueError, "a letter does not fit in letter_bits");
            return NULL;
        }
    }
    uint64_t idx = index;
    int64_t hv = have;
    Py_BEGIN_ALLOW_THREADS
    block_weights_tuples((const uint8_t *)in.buf, in.len / block_bytes, block_bytes, (const uint8_t *)table.buf,
                         letter_bits, (uint64_t)cells - 1, tuple_length, (int64_t *)out.buf, &idx, &hv);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&in);
    PyBuffer_Release(&table);
    PyBuffer_Release(&out);
    return Py_BuildValue("(KL)", (unsigned long long)idx, (long long)hv);
}

/* ------------------------------------------------------------------------
 * fold_low_bits(data, word_bytes, low_bits, acc, acc_bits) -> (bytes, acc, acc_bits)
 *
 * Appends the low `low_bits` bits of every little-endian word of data
 * (whole words only), most significant first, to a bit string that starts
 * with the acc_bits (< 8) pending bits in acc, and returns the completed
 * bytes and the new pending bits.
 * ---------------------------------------------------------------------- */
static PyObject *
fold_low_bits(PyObject *self, PyObject *args)
{
    Py_buffer in;
    int word_bytes, low_bits, acc_bits;
    unsigned long long acc_in;
    if (!PyArg_ParseTuple(args, "y*iiKi", &in, &word_bytes, &low_bits, &acc_in, &acc_bits))
        return NULL;
    if (word_bytes < 1 || word_bytes > 8 || low_bits < 1 || low_bits > 8 * word_bytes || acc_bits < 0 ||
        acc_bits > 7 || in.len % word_bytes) {
        PyBuffer_Release(&in);
        PyErr_SetString(PyExc_ValueError, "invalid folding parameters");
        return NULL;
    }
    Py_ssize_t words = in.len / word_bytes;
    Py_ssize_t out_len = (words * (Py_ssize_t)low_bits + acc_bits) / 8;
    PyObject *out = PyBytes_FromStringAndSize(NULL, out_len);
    if (!out) {
        PyBuffer_Release(&in);
        return NULL;
    }
    uint8_t *o = (uint8_t *)PyBytes_AS_STRING(out);
    const uint8_t *p = (const uint8_t *)in.buf;
    uint64_t acc = acc_in & ((1ULL << acc_bits) - 1);
    int nacc = acc_bits;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t i0 = 0;
    if (8 % low_bits == 0 && nacc % low_bits == 0) {
        /* first complete the pending byte word by word, then whole groups of
         * 8 / low_bits words make one output byte each */
        uint64_t lmask = (1ULL << low_bits) - 1;
        for (; i0 < words && nacc != 0; i0++) {
            acc = (acc << low_bits) | (p[i0 * word_bytes] & lmask);
            nacc += low_bits;
            if (nacc == 8) {
                *o++ = (uint8_t)acc;
                acc = 0;
                nacc = 0;
            }
        }
        int group = 8 / low_bits;
        Py_ssize_t groups = (words - i0) / group;
        if (low_bits == 1 && word_bytes == 1) {
            for (Py_ssize_t g = 0; g < groups; g++) {
                const uint8_t *q = p + i0 + 8 * g;
                *o++ = (uint8_t)(((q[0] & 1u) << 7) | ((q[1] & 1u) << 6) | ((q[2] & 1u) << 5) | ((q[3] & 1u) << 4) |
                                 ((q[4] & 1u) << 3) | ((q[5] & 1u) << 2) | ((q[6] & 1u) << 1) | (q[7] & 1u));
            }
        } else {
            for (Py_ssize_t g = 0; g < groups; g++) {
                const uint8_t *q = p + (i0 + (Py_ssize_t)group * g) * word_bytes;
                unsigned byte = 0;
                for (int j = 0; j < group; j++)
                    byte = (byte << low_bits) | (q[j * word_bytes] & lmask);
                *o++ = (uint8_t)byte;
            }
        }
        i0 += groups * group;
        for (; i0 < words; i0++) {
            acc = (acc << low_bits) | (p[i0 * word_bytes] & lmask);
            nacc += low_bits;
        }
    } else if (low_bits % 8 == 0 && nacc == 0) {
        /* whole bytes: the low bytes of each word, most significant first */
        int nb = low_bits / 8;
        for (Py_ssize_t i = 0; i < words; i++)
            for (int k = nb - 1; k >= 0; k--)
                *o++ = p[i * word_bytes + k];
    } else {
        /* pieces of at most 32 bits keep acc (< 8 pending + 32 new) in 64 bits */
        for (Py_ssize_t i = 0; i < words; i++) {
            uint64_t w = load_le(p + i * word_bytes, word_bytes);
            int left = low_bits;
            while (left > 0) {
                int take = left > 32 ? 32 : left;
                left -= take;
                acc = (acc << take) | ((w >> left) & ((1ULL << take) - 1));
                nacc += take;
                while (nacc >= 8) {
                    nacc -= 8;
                    *o++ = (uint8_t)(acc >> nacc);
                }
                acc &= (1ULL << nacc) - 1;
            }
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&in);
    return Py_BuildValue("(NKi)", out, (unsigned long long)acc, nacc);
}

static PyMethodDef linear_methods[] = {
    {"linear_complexity", linear_complexity, METH_VARARGS, "Linear complexity of n packed bits (Berlekamp-Massey)."},
    {"linear_complexity_scan", linear_complexity_scan, METH_VARARGS, "Histogram of linear complexities of one bit position."},
    {"gap_scan", gap_scan, METH_VARARGS, "Gap lengths between words in [lo, hi)."},
    {"digraph_scan", digraph_scan, METH_VARARGS, "Counts of overlapping byte pairs, optionally by position class."},
    {"bit_pattern_scan", bit_pattern_scan, METH_VARARGS, "Counts of overlapping m-bit patterns."},
    {"hamming_tuple_scan", hamming_tuple_scan, METH_VARARGS, "Counts of overlapping tuples of Hamming-weight letters."},
    {"fold_low_bits", fold_low_bits, METH_VARARGS, "Pack the low bits of every word into a byte stream."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "randqa.battery._linear",
    "Compiled loops of the linear-complexity, gap, digraph, serial and Hamming-weight tests.", -1, linear_methods,
};

PyMODINIT_FUNC
PyInit__linear(void)
{
    return PyModule_Create(&module_def);
}
