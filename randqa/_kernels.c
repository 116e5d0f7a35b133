/*
 * Hot loops of randqa's statistical tests, compiled because numpy cannot
 * do them in one pass (bincount casts to intp first; sorting thousands of
 * small blocks through numpy costs more than the data is worth).
 *
 * Every function reads a contiguous bytes-like object through the buffer
 * protocol and either returns Python ints or adds into a caller-owned
 * int64 array, so the Python accumulators keep all state and the kernels
 * stay pure and chunk-agnostic.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "_buffers.h"
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

/* byte_histogram(data, counts): counts[v] += occurrences of byte v.
 * Four sub-histograms break the store-to-load dependency on repeated values. */
static PyObject *
byte_histogram(PyObject *self, PyObject *args)
{
    Py_buffer in, out;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "y*O", &in, &out_obj))
        return NULL;
    if (get_int64_out(out_obj, &out, 256, "counts") < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    Py_ssize_t n = in.len, i = 0;
    int64_t *counts = (int64_t *)out.buf;
    Py_BEGIN_ALLOW_THREADS
    uint32_t h[4][256];
    memset(h, 0, sizeof h);
    /* uint32 sub-counts are flushed every 2^30 bytes so they cannot overflow */
    while (i < n) {
        Py_ssize_t end = n - i > (1 << 30) ? i + (1 << 30) : n;
        for (; i + 4 <= end; i += 4) {
            h[0][p[i]]++;
            h[1][p[i + 1]]++;
            h[2][p[i + 2]]++;
            h[3][p[i + 3]]++;
        }
        for (; i < end; i++)
            h[0][p[i]]++;
        for (int v = 0; v < 256; v++) {
            counts[v] += (int64_t)h[0][v] + h[1][v] + h[2][v] + h[3][v];
            h[0][v] = h[1][v] = h[2][v] = h[3][v] = 0;
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* word16_histogram(data, counts): counts[w] += occurrences of each
 * little-endian 16-bit word; len(data) must be even. */
static PyObject *
word16_histogram(PyObject *self, PyObject *args)
{
    Py_buffer in, out;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "y*O", &in, &out_obj))
        return NULL;
    if (in.len % 2) {
        PyBuffer_Release(&in);
        PyErr_SetString(PyExc_ValueError, "data length must be even");
        return NULL;
    }
    if (get_int64_out(out_obj, &out, 65536, "counts") < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    int64_t *counts = (int64_t *)out.buf;
    Py_ssize_t n = in.len;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i += 2)
        counts[p[i] | ((unsigned)p[i + 1] << 8)]++;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

POPCNT_CLONES static void
ones_and_transitions(const uint8_t *p, Py_ssize_t n, uint64_t *ones_out, uint64_t *trans_out)
{
    /* Bits are read most significant first within each byte (NIST SP 800-22
     * order), so a big-endian 64-bit load keeps stream order inside a word. */
    uint64_t ones = 0, trans = 0;
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = load_be64(p + i);
        ones += (uint64_t)__builtin_popcountll(w);
        trans += (uint64_t)__builtin_popcountll((w ^ (w >> 1)) & 0x7fffffffffffffffULL);
        if (i + 8 < n)
            trans += ((w & 1u) != (uint64_t)(p[i + 8] >> 7));
    }
    for (; i < n; i++) {
        unsigned b = p[i];
        ones += (uint64_t)__builtin_popcount(b);
        trans += (uint64_t)__builtin_popcount((b ^ (b >> 1)) & 0x7fu);
        if (i + 1 < n)
            trans += ((b & 1u) != (unsigned)(p[i + 1] >> 7));
    }
    *ones_out = ones;
    *trans_out = trans;
}

/* bit_counts(data) -> (ones, transitions): the number of one bits, and the
 * number of adjacent bit pairs inside data that differ. */
static PyObject *
bit_counts(PyObject *self, PyObject *args)
{
    Py_buffer in;
    if (!PyArg_ParseTuple(args, "y*", &in))
        return NULL;
    uint64_t ones = 0, trans = 0;
    Py_BEGIN_ALLOW_THREADS
    ones_and_transitions((const uint8_t *)in.buf, in.len, &ones, &trans);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&in);
    return Py_BuildValue("(KK)", (unsigned long long)ones, (unsigned long long)trans);
}

/* lag_product_sum(data, lag) -> sum of data[i] * data[i + lag] for all
 * i with i + lag < len(data). */
static PyObject *
lag_product_sum(PyObject *self, PyObject *args)
{
    Py_buffer in;
    Py_ssize_t lag;
    if (!PyArg_ParseTuple(args, "y*n", &in, &lag))
        return NULL;
    if (lag < 1) {
        PyBuffer_Release(&in);
        PyErr_SetString(PyExc_ValueError, "lag must be >= 1");
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    Py_ssize_t n = in.len;
    uint64_t total = 0;
    Py_BEGIN_ALLOW_THREADS
    /* a uint32 partial sum holds 65536 products of at most 255*255 */
    Py_ssize_t i = 0;
    while (i + lag < n) {
        Py_ssize_t end = n - lag;
        if (end - i > 65536)
            end = i + 65536;
        uint32_t part = 0;
        for (; i < end; i++)
            part += (uint32_t)p[i] * p[i + lag];
        total += part;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&in);
    return PyLong_FromUnsignedLongLong(total);
}

/* LSD radix sort of 64-bit keys in 8-bit digits; returns the buffer that
 * holds the sorted keys (a or tmp), as radix_sort_u32 does. */
static uint64_t *
radix_sort_u64(uint64_t *a, uint64_t *tmp, Py_ssize_t n, int key_bits)
{
    Py_ssize_t count[256];
    for (int shift = 0; shift < key_bits; shift += 8) {
        memset(count, 0, sizeof count);
        for (Py_ssize_t i = 0; i < n; i++)
            count[(a[i] >> shift) & 0xff]++;
        Py_ssize_t sum = 0;
        for (int d = 0; d < 256; d++) {
            Py_ssize_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            tmp[count[(a[i] >> shift) & 0xff]++] = a[i];
        uint64_t *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

/* LSD radix sort of 32-bit keys in 8-bit digits: one pass builds all four
 * histograms (4 KiB), then one scatter pass per digit that the keys do not
 * all share.  Returns the buffer that holds the sorted keys (a or tmp). */
static uint32_t *
radix_sort_u32(uint32_t *a, uint32_t *tmp, Py_ssize_t n, int key_bits)
{
    uint32_t count[4][256];
    int passes = (key_bits + 7) / 8;
    memset(count, 0, sizeof count);
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t v = a[i];
        count[0][v & 0xff]++;
        count[1][(v >> 8) & 0xff]++;
        count[2][(v >> 16) & 0xff]++;
        count[3][v >> 24]++;
    }
    for (int pass = 0; pass < passes; pass++) {
        uint32_t sum = 0, *c = count[pass];
        int trivial = 0;
        for (int d = 0; d < 256; d++) {
            if (c[d] == (uint32_t)n)
                trivial = 1;
            uint32_t t = c[d];
            c[d] = sum;
            sum += t;
        }
        if (trivial)
            continue;
        int shift = 8 * pass;
        for (Py_ssize_t i = 0; i < n; i++)
            tmp[c[(a[i] >> shift) & 0xff]++] = a[i];
        uint32_t *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

/* One point: `dims` consecutive little-endian words of `word_bytes` bytes,
 * the top `bits_per_word` bits of each, the first word highest. */
static inline uint64_t
read_point(const uint8_t *q, int dims, int word_bytes, int bits_per_word)
{
    int drop = 8 * word_bytes - bits_per_word;
    uint64_t pt = 0;
    for (int d = 0; d < dims; d++, q += word_bytes)
        pt = (bits_per_word == 64 ? 0 : pt << bits_per_word) | (load_le(q, word_bytes) >> drop);
    return pt;
}

/* birthday_collisions(data, points, word_bytes, bits_per_word, dims) ->
 * list of the spacing-collision count of each complete block.
 *
 * A point is made of `dims` consecutive little-endian words of `word_bytes`
 * bytes, keeping the top `bits_per_word` bits of each; a block is `points`
 * points.  Within a block the points are sorted, the spacings taken with
 * wrap-around (Knuth, TAOCP 3.3.2 J), sorted, and each spacing equal to its
 * predecessor counts one collision.  Trailing bytes that do not fill a block
 * are ignored: the caller keeps them for the next chunk. */
static PyObject *
birthday_collisions(PyObject *self, PyObject *args)
{
    Py_buffer in;
    Py_ssize_t points;
    int word_bytes, bits_per_word, dims;
    if (!PyArg_ParseTuple(args, "y*niii", &in, &points, &word_bytes, &bits_per_word, &dims))
        return NULL;
    if (points < 2 || points > (1 << 28) || (word_bytes != 1 && word_bytes != 2 && word_bytes != 4 && word_bytes != 8) ||
        bits_per_word < 1 || bits_per_word > 8 * word_bytes || dims < 1 ||
        (long)dims * bits_per_word > 64) {
        PyBuffer_Release(&in);
        PyErr_SetString(PyExc_ValueError, "invalid birthday spacings parameters");
        return NULL;
    }
    Py_ssize_t block_bytes = points * dims * word_bytes;
    Py_ssize_t nblocks = in.len / block_bytes;
    int key_bits = dims * bits_per_word;
    PyObject *result = PyList_New(nblocks);
    uint64_t *buf = malloc((size_t)points * 2 * sizeof(uint64_t));
    uint32_t *found = malloc((size_t)(nblocks ? nblocks : 1) * sizeof(uint32_t));
    if (!result || !buf || !found) {
        Py_XDECREF(result);
        free(buf);
        free(found);
        PyBuffer_Release(&in);
        return PyErr_NoMemory();
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    int drop = 8 * word_bytes - bits_per_word;
    uint64_t cells_mask = key_bits == 64 ? ~0ULL : ((1ULL << key_bits) - 1);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t b = 0; b < nblocks; b++) {
        const uint8_t *q = p + b * block_bytes;
        uint32_t c = 0;
        if (key_bits <= 32) {
            /* 32-bit keys halve the memory traffic of the sorts */
            uint32_t *pts = (uint32_t *)buf, *tmp = pts + points;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            if (dims == 1 && word_bytes == 4) {
                /* the common case: whole 32-bit little-endian words */
                memcpy(pts, q, (size_t)points * 4);
                if (drop)
                    for (Py_ssize_t j = 0; j < points; j++)
                        pts[j] >>= drop;
            } else
#endif
            for (Py_ssize_t j = 0; j < points; j++)
                pts[j] = (uint32_t)read_point(q + j * dims * word_bytes, dims, word_bytes, bits_per_word);
            uint32_t *sorted = radix_sort_u32(pts, tmp, points, key_bits);
            uint32_t *gaps = sorted == pts ? tmp : pts;
            for (Py_ssize_t j = 0; j + 1 < points; j++)
                gaps[j] = sorted[j + 1] - sorted[j];
            gaps[points - 1] = (uint32_t)((sorted[0] - sorted[points - 1]) & cells_mask);
            uint32_t *sg = radix_sort_u32(gaps, sorted, points, key_bits);
            for (Py_ssize_t j = 1; j < points; j++)
                c += sg[j] == sg[j - 1];
        } else {
            uint64_t *pts = buf, *tmp = buf + points;
            for (Py_ssize_t j = 0; j < points; j++)
                pts[j] = read_point(q + j * dims * word_bytes, dims, word_bytes, bits_per_word);
            uint64_t *sorted = radix_sort_u64(pts, tmp, points, key_bits);
            uint64_t *gaps = sorted == pts ? tmp : pts;
            for (Py_ssize_t j = 0; j + 1 < points; j++)
                gaps[j] = sorted[j + 1] - sorted[j];
            gaps[points - 1] = (sorted[0] - sorted[points - 1]) & cells_mask;
            uint64_t *sg = radix_sort_u64(gaps, sorted, points, key_bits);
            for (Py_ssize_t j = 1; j < points; j++)
                c += sg[j] == sg[j - 1];
        }
        found[b] = c;
    }
    Py_END_ALLOW_THREADS
    for (Py_ssize_t b = 0; b < nblocks; b++)
        PyList_SET_ITEM(result, b, PyLong_FromUnsignedLong(found[b]));
    free(buf);
    free(found);
    PyBuffer_Release(&in);
    return result;
}

/* rc4_digraph_counts(data, first_position, previous, low, high): counts the
 * byte pairs that can be Fluhrer-McGrew digraphs, by the position mod 256 of
 * their first byte (c).  low[c][k][b] counts pairs (a, b) with a = 0, 129,
 * 255 for k = 0, 1, 2; high[c][a] counts pairs (a, 255).  data's first byte
 * is at stream position first_position; previous (0-255, or -1 when none) is
 * the byte before it, whose pair with data[0] is counted too. */
static PyObject *
rc4_digraph_counts(PyObject *self, PyObject *args)
{
    Py_buffer in, lo, hi;
    Py_ssize_t first_position;
    int previous;
    PyObject *lo_obj, *hi_obj;
    if (!PyArg_ParseTuple(args, "y*niOO", &in, &first_position, &previous, &lo_obj, &hi_obj))
        return NULL;
    if (previous < -1 || previous > 255) {
        PyBuffer_Release(&in);
        PyErr_SetString(PyExc_ValueError, "previous must be a byte value or -1");
        return NULL;
    }
    if (get_int64_out(lo_obj, &lo, 256 * 3 * 256, "low") < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    if (get_int64_out(hi_obj, &hi, 256 * 256, "high") < 0) {
        PyBuffer_Release(&in);
        PyBuffer_Release(&lo);
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    int64_t *low = (int64_t *)lo.buf, *high = (int64_t *)hi.buf;
    Py_ssize_t n = in.len;
    /* the row of low: 0, 1, 2 for a first byte of 0, 129, 255, else none */
    int8_t low_row[256];
    memset(low_row, -1, sizeof low_row);
    low_row[0] = 0;
    low_row[129] = 1;
    low_row[255] = 2;
    Py_BEGIN_ALLOW_THREADS
    unsigned a = previous >= 0 ? (unsigned)previous : 0;
    uint8_t c = (uint8_t)(first_position - 1);
    for (Py_ssize_t k = previous >= 0 ? 0 : 1; k < n; k++) {
        unsigned first = k ? p[k - 1] : a, second = p[k];
        uint8_t cls = (uint8_t)(c + k);
        int row = low_row[first];
        if (row >= 0)
            low[((size_t)cls * 3 + row) * 256 + second]++;
        if (second == 255)
            high[(size_t)cls * 256 + first]++;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&in);
    PyBuffer_Release(&lo);
    PyBuffer_Release(&hi);
    Py_RETURN_NONE;
}

static PyMethodDef kernel_methods[] = {
    {"byte_histogram", byte_histogram, METH_VARARGS, "Add byte-value counts of data into an int64[256] array."},
    {"word16_histogram", word16_histogram, METH_VARARGS, "Add little-endian 16-bit word counts into an int64[65536] array."},
    {"bit_counts", bit_counts, METH_VARARGS, "Return (ones, transitions) of the bits of data, MSB first."},
    {"lag_product_sum", lag_product_sum, METH_VARARGS, "Return sum of data[i]*data[i+lag] inside data."},
    {"birthday_collisions", birthday_collisions, METH_VARARGS, "Spacing collisions of each complete block of points."},
    {"rc4_digraph_counts", rc4_digraph_counts, METH_VARARGS, "Count the pairs that can be Fluhrer-McGrew digraphs, by position mod 256."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "randqa._kernels", "Compiled inner loops of randqa's tests.", -1, kernel_methods,
};

PyMODINIT_FUNC
PyInit__kernels(void)
{
    return PyModule_Create(&kernel_module);
}
