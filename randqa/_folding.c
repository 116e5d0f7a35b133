/*
 * Low-bits folding (randqa/folding.py): the low bits of every little-endian
 * word of a stream, packed into bytes.  Shared by the folded sources
 * (--word-bits) and the folded suite entries (fold_word_bits), so it
 * belongs to neither.
 *
 * The kernel keeps no state: the bits still pending between calls are
 * passed in and returned.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * fold_low_bits(data, word_bytes, low_bits, acc, acc_bits) -> (bytes, acc, acc_bits)
 *
 * Appends the low `low_bits` bits of every little-endian word of data
 * (whole words only), most significant first, to a bit string that starts
 * with the acc_bits (< 8) pending bits in acc, and returns the completed
 * bytes and the new pending bits.
 * ---------------------------------------------------------------------- */
static PyObject *
fold_low_bits(PyObject *Py_UNUSED(self), PyObject *args)
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
            uint64_t w = 0;
            for (int k = word_bytes - 1; k >= 0; k--) /* little-endian */
                w = (w << 8) | p[i * word_bytes + k];
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

static PyMethodDef methods[] = {
    {"fold_low_bits", fold_low_bits, METH_VARARGS, "Pack the low bits of every word into a byte stream."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "randqa._folding",
    .m_doc = "Low-bits folding of a word stream.",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__folding(void)
{
    return PyModule_Create(&module_def);
}
