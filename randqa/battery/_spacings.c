/*
 * Birthday spacings (birthday_spacings): per block of points, sort the
 * points, take the spacings between neighbours, sort those and count the
 * repeated values.  Sorting thousands of small blocks through numpy costs
 * more than the data is worth, hence the compiled radix sorts.
 *
 * The kernel reads a contiguous bytes-like object through the buffer
 * protocol and returns the collision counts; it keeps no state.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "_buffers.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
birthday_collisions(PyObject *Py_UNUSED(self), PyObject *args)
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
    free(buf);
    PyBuffer_Release(&in);
    for (Py_ssize_t b = 0; b < nblocks; b++) {
        PyObject *count = PyLong_FromUnsignedLong(found[b]);
        if (count == NULL) {
            Py_DECREF(result);
            free(found);
            return NULL;
        }
        PyList_SET_ITEM(result, b, count);
    }
    free(found);
    return result;
}

static PyMethodDef methods[] = {
    {"birthday_collisions", birthday_collisions, METH_VARARGS, "Spacing collisions of each complete block of points."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "randqa.battery._spacings",
    .m_doc = "Birthday-spacings collision counts.",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__spacings(void)
{
    return PyModule_Create(&module_def);
}
