/*
 * Minimal GF(2) recurrences of the bit positions of a word stream, and the
 * continuation those recurrences generate (randqa.predict.gf2_linear).
 *
 * Bit b of every little-endian word of `word_bytes` bytes is one sequence
 * s_0, s_1, ...  Berlekamp-Massey (Massey 1969, the kernel shared with the
 * battery in battery/_gf2.h) gives its linear complexity L and connection
 * polynomial C(x) = 1 + c_1 x + ... + c_L x^L, so that
 * s_N = c_1 s_{N-1} + ... + c_L s_{N-L} for every N >= L; the extension
 * kernel runs that recurrence forward from the last L observed bits.
 * When every position obeys one recurrence, whole words do:
 * x_N = XOR of x_{N-i} over the taps i (c_i = 1), which the two
 * xor_recurrence kernels check and run forward on uint64 words.
 *
 * Like the battery's kernels these keep no state: inputs are read through
 * the buffer protocol, results go into caller-owned arrays, and the loops
 * run without the GIL.
 */
#include "../_module.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../battery/_gf2.h"

#define MAX_WORD_BYTES 8

static inline uint64_t
load_word(const uint8_t *p, int nbytes)
{
    uint64_t v = 0;
    for (int k = nbytes - 1; k >= 0; k--)
        v = (v << 8) | p[k];
    return v;
}

/* words of a polynomial row for a sequence of n bits (as _gf2.h sizes C) */
static inline Py_ssize_t
poly_stride(Py_ssize_t n)
{
    return (n + 63) / 64 + 3;
}

static int
check_word_bytes(int word_bytes)
{
    if (word_bytes != 1 && word_bytes != 2 && word_bytes != 4 && word_bytes != 8) {
        PyErr_SetString(PyExc_ValueError, "word_bytes must be 1, 2, 4 or 8");
        return -1;
    }
    return 0;
}

/* A C-contiguous array of 8-byte integers (writable if asked), with exactly
 * `nitems` items unless nitems < 0. */
static int
get_word_array(PyObject *obj, Py_buffer *view, int writable, Py_ssize_t nitems, const char *what)
{
    if (PyObject_GetBuffer(obj, view, (writable ? PyBUF_WRITABLE : 0) | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=')
        f++;
    int integer = strchr("qQlL", *f) != NULL && f[1] == '\0';
    if (view->itemsize != 8 || !integer || (nitems >= 0 && view->len != nitems * 8)) {
        if (nitems >= 0)
            PyErr_Format(PyExc_ValueError, "%s must be a%s array of %zd 8-byte integers", what,
                         writable ? " writable" : "n", nitems);
        else
            PyErr_Format(PyExc_ValueError, "%s must be a%s array of 8-byte integers", what, writable ? " writable" : "n");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* R (zeroed, ceil(n/64)+3 words) gets bit j = s_{n-1-j} of position `bit`. */
static void
load_reversed_bits(const uint8_t *data, int word_bytes, Py_ssize_t n, int bit, uint64_t *R)
{
    for (Py_ssize_t k = 0; k < n; k++) {
        uint64_t s = (load_word(data + k * word_bytes, word_bytes) >> bit) & 1u;
        Py_ssize_t j = n - 1 - k;
        R[j >> 6] |= s << (j & 63);
    }
}

/* minimal_polynomials(data, word_bytes, first_bit, nbits, lengths, polys)
 *
 * data: n = len(data) / word_bytes whole words (n >= 1).  For each bit
 * position b = first_bit + k, k < nbits: lengths[k] = L_b and row k of polys
 * (stride ceil(n/64) + 3 uint64 words) = C_b, bit i of the row being c_i. */
static PyObject *
minimal_polynomials(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, lv, pv;
    PyObject *lengths_obj, *polys_obj;
    int word_bytes, first_bit, positions;
    if (!PyArg_ParseTuple(args, "y*iiiOO", &in, &word_bytes, &first_bit, &positions, &lengths_obj, &polys_obj))
        return NULL;
    if (check_word_bytes(word_bytes) < 0 || in.len < word_bytes || in.len % word_bytes || in.len / word_bytes > INT32_MAX / 2 ||
        first_bit < 0 || positions < 1 || first_bit + positions > 8 * word_bytes) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "data must hold 1 to 2^30 whole words and the bits lie within a word");
        PyBuffer_Release(&in);
        return NULL;
    }
    Py_ssize_t n = in.len / word_bytes, stride = poly_stride(n);
    if (get_word_array(lengths_obj, &lv, 1, positions, "lengths") < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    if (get_word_array(polys_obj, &pv, 1, positions * stride, "polys") < 0) {
        RELEASE_BUFFERS(&lv, &in);
        return NULL;
    }
    uint64_t *R = malloc((size_t)stride * 8), *work = malloc((size_t)3 * stride * 8);
    if (!R || !work) {
        free(R);
        free(work);
        RELEASE_BUFFERS(&pv, &lv, &in);
        return PyErr_NoMemory();
    }
    int64_t *lengths = lv.buf;
    uint64_t *polys = pv.buf;
    Py_BEGIN_ALLOW_THREADS
    for (int b = 0; b < positions; b++) {
        memset(R, 0, (size_t)stride * 8);
        load_reversed_bits(in.buf, word_bytes, n, first_bit + b, R);
        lengths[b] = berlekamp_massey_reversed(R, (int)n, work);
        /* berlekamp_massey_reversed leaves C in the first `stride` words of work */
        memcpy(polys + (size_t)b * stride, work, (size_t)stride * 8);
    }
    Py_END_ALLOW_THREADS
    free(R);
    free(work);
    RELEASE_BUFFERS(&pv, &lv, &in);
    Py_RETURN_NONE;
}

/* extend_bit_positions(history, word_bytes, lengths, polys, out)
 *
 * history: the last h observed words (h >= every lengths[b]); lengths and
 * polys as minimal_polynomials wrote them (any row stride >= ceil(max L/64)+1
 * whose row count is 8 * word_bytes).  Writes the next len(out)/word_bytes
 * words each bit position's recurrence generates into out, little-endian. */
static PyObject *
extend_bit_positions(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer hist, lv, pv, outv;
    PyObject *lengths_obj, *polys_obj, *out_obj;
    int word_bytes;
    if (!PyArg_ParseTuple(args, "y*iOOO", &hist, &word_bytes, &lengths_obj, &polys_obj, &out_obj))
        return NULL;
    if (check_word_bytes(word_bytes) < 0 || hist.len % word_bytes) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "history must hold whole words");
        PyBuffer_Release(&hist);
        return NULL;
    }
    int positions = 8 * word_bytes;
    Py_ssize_t h = hist.len / word_bytes;
    if (get_word_array(lengths_obj, &lv, 0, positions, "lengths") < 0) {
        PyBuffer_Release(&hist);
        return NULL;
    }
    if (get_word_array(polys_obj, &pv, 0, -1, "polys") < 0) {
        RELEASE_BUFFERS(&lv, &hist);
        return NULL;
    }
    if (PyObject_GetBuffer(out_obj, &outv, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        RELEASE_BUFFERS(&pv, &lv, &hist);
        return NULL;
    }
    const int64_t *lengths = lv.buf;
    Py_ssize_t stride = pv.len / 8 / positions, maxL = 0;
    const char *err = NULL;
    if (pv.len % (8 * positions) || outv.len % word_bytes)
        err = "polys must have 8*word_bytes rows of uint64 and out whole words";
    for (int b = 0; !err && b < positions; b++) {
        if (lengths[b] < 0 || lengths[b] > h || lengths[b] > 64 * (stride - 1))
            err = "every length must be at most the history's words and fit its polynomial row";
        else if (lengths[b] > maxL)
            maxL = lengths[b];
    }
    if (err) {
        PyErr_SetString(PyExc_ValueError, err);
        RELEASE_BUFFERS(&outv, &pv, &lv, &hist);
        return NULL;
    }
    Py_ssize_t nout = outv.len / word_bytes;
    /* one position at a time: R holds s reversed over the window of the
     * last L history bits and the nout new ones, so that the parity of
     * C AND (R >> (off + 1)) is the recurrence's sum, as in Berlekamp-Massey */
    Py_ssize_t total = maxL + nout, rwords = (total + 63) / 64 + 2;
    uint64_t *R = malloc((size_t)rwords * 8);
    if (!R) {
        RELEASE_BUFFERS(&outv, &pv, &lv, &hist);
        return PyErr_NoMemory();
    }
    const uint8_t *hp = hist.buf;
    uint8_t *op = outv.buf;
    const uint64_t *polys = pv.buf;
    Py_BEGIN_ALLOW_THREADS
    memset(op, 0, (size_t)outv.len);
    for (int b = 0; b < positions; b++) {
        Py_ssize_t L = lengths[b], T = L + nout;
        const uint64_t *C = polys + (size_t)b * stride;
        int cwords = (int)(L >> 6) + 1;
        memset(R, 0, (size_t)rwords * 8);
        /* sequence index t in [0, T): t < L are history bits */
        for (Py_ssize_t t = 0; t < L; t++) {
            uint64_t s = (load_word(hp + (h - L + t) * word_bytes, word_bytes) >> b) & 1u;
            Py_ssize_t j = T - 1 - t;
            R[j >> 6] |= s << (j & 63);
        }
        for (Py_ssize_t t = L; t < T; t++) {
            /* sum_{i=1..L} c_i s_{t-i}: s_{t-i} sits at reversed index
             * T-1-t+i, so shift R right by T-1-t and drop c_0's term */
            Py_ssize_t off = T - 1 - t;
            int q = (int)(off >> 6), r = (int)(off & 63);
            uint64_t acc = 0;
            for (int w = 0; w < cwords; w++) {
                uint64_t win = r == 0 ? R[q + w] : (R[q + w] >> r) | (R[q + w + 1] << (64 - r));
                acc ^= C[w] & win;
            }
            /* window bit 0 is s_t itself, still 0 in R, so c_0 adds nothing */
            uint64_t s = (uint64_t)__builtin_parityll(acc);
            R[off >> 6] |= s << (off & 63);
            if (s)
                op[(t - L) * word_bytes + (b >> 3)] |= (uint8_t)(1u << (b & 7));
        }
    }
    Py_END_ALLOW_THREADS
    free(R);
    RELEASE_BUFFERS(&outv, &pv, &lv, &hist);
    Py_RETURN_NONE;
}

/* Tap offsets 1 <= i <= limit, as int64. */
static int
check_taps(const Py_buffer *tv, Py_ssize_t limit)
{
    const int64_t *taps = tv->buf;
    for (Py_ssize_t k = 0; k < tv->len / 8; k++)
        if (taps[k] < 1 || taps[k] > limit) {
            PyErr_SetString(PyExc_ValueError, "tap offsets must lie in [1, start]");
            return -1;
        }
    return 0;
}

/* The arguments of the recurrence x_N = XOR over taps i of x_{N-i} from
 * N = start: words and taps as 8-byte integer arrays, start >= 0 and every
 * tap in [1, start].  `extend`: the words from start on are written, so
 * they must be writable and start at most len(words).  On failure neither
 * buffer is held. */
static int
get_recurrence(PyObject *words_obj, PyObject *taps_obj, Py_ssize_t start, int extend, Py_buffer *wv, Py_buffer *tv)
{
    if (get_word_array(words_obj, wv, extend, -1, "words") < 0)
        return -1;
    if (get_word_array(taps_obj, tv, 0, -1, "taps") < 0) {
        PyBuffer_Release(wv);
        return -1;
    }
    if (start < 0 || (extend && start > wv->len / 8) || check_taps(tv, start) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, extend ? "start must lie in [0, len(words)]" : "start must be >= 0");
        RELEASE_BUFFERS(tv, wv);
        return -1;
    }
    return 0;
}

/* xor_recurrence_failures(words, start, taps, all_bits) -> mask
 *
 * The bits in which x_N differs from XOR over taps i of x_{N-i}, ORed over
 * start <= N < len(words) (words: uint64 array); stops early once the mask
 * reaches all_bits.  Bits clear in the result follow the recurrence. */
static PyObject *
xor_recurrence_failures(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *words_obj, *taps_obj;
    Py_ssize_t start;
    unsigned long long all_bits;
    Py_buffer wv, tv;
    if (!PyArg_ParseTuple(args, "OnOK", &words_obj, &start, &taps_obj, &all_bits) ||
        get_recurrence(words_obj, taps_obj, start, 0, &wv, &tv) < 0)
        return NULL;
    const uint64_t *x = wv.buf;
    const int64_t *taps = tv.buf;
    Py_ssize_t n = wv.len / 8, ntaps = tv.len / 8;
    uint64_t failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t N = start; N < n && failed != all_bits; N++) {
        uint64_t v = x[N];
        for (Py_ssize_t k = 0; k < ntaps; k++)
            v ^= x[N - taps[k]];
        failed |= v;
    }
    Py_END_ALLOW_THREADS
    RELEASE_BUFFERS(&tv, &wv);
    return PyLong_FromUnsignedLongLong(failed);
}

/* extend_xor_recurrence(words, start, taps): words[N] = XOR over taps i of
 * words[N - i] for start <= N < len(words); the first `start` words are the
 * history (start >= every tap). */
static PyObject *
extend_xor_recurrence(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *words_obj, *taps_obj;
    Py_ssize_t start;
    Py_buffer wv, tv;
    if (!PyArg_ParseTuple(args, "OnO", &words_obj, &start, &taps_obj) ||
        get_recurrence(words_obj, taps_obj, start, 1, &wv, &tv) < 0)
        return NULL;
    uint64_t *x = wv.buf;
    const int64_t *taps = tv.buf;
    Py_ssize_t n = wv.len / 8, ntaps = tv.len / 8;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t N = start; N < n; N++) {
        uint64_t v = 0;
        for (Py_ssize_t k = 0; k < ntaps; k++)
            v ^= x[N - taps[k]];
        x[N] = v;
    }
    Py_END_ALLOW_THREADS
    RELEASE_BUFFERS(&tv, &wv);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"xor_recurrence_failures", xor_recurrence_failures, METH_VARARGS,
     "xor_recurrence_failures(words, start, taps, all_bits) -> bits that break x_N = XOR x_{N-i}."},
    {"extend_xor_recurrence", extend_xor_recurrence, METH_VARARGS,
     "extend_xor_recurrence(words, start, taps): fill words[start:] by x_N = XOR x_{N-i}."},
    {"minimal_polynomials", minimal_polynomials, METH_VARARGS,
     "minimal_polynomials(data, word_bytes, first_bit, nbits, lengths, polys): Berlekamp-Massey per bit position."},
    {"extend_bit_positions", extend_bit_positions, METH_VARARGS,
     "extend_bit_positions(history, word_bytes, lengths, polys, out): run each position's recurrence forward."},
    {NULL, NULL, 0, NULL},
};

RANDQA_MODULE(_gf2_recurrence, "randqa.predict._gf2_recurrence",
              "GF(2) minimal recurrences of bit positions (Berlekamp-Massey) and their continuation.",
              methods);
