/*
 * Low-bits folding (randqa/folding.py): the low bits of every little-endian
 * word of a stream, packed into bytes.  Shared by the folded sources
 * (--word-bits) and the folded suite entries (fold_word_bits), so it
 * belongs to neither.
 *
 * The kernel keeps no state: the bits still pending between calls are
 * passed in and returned.
 */
#include "_module.h"
#include <stdint.h>
#include <string.h>

/* Whole output bytes from groups of 8 / LOW words of WB bytes (LOW = 1, 2
 * or 4), the first word's bits highest: the loops with constant sizes, which
 * compilers unroll and vectorise (the generic loop runs at a third of the speed). */
#define DEFINE_GROUP_FOLD(WB, LOW)                                                               \
    static void fold_groups_##WB##_##LOW(const uint8_t *p, Py_ssize_t groups, uint8_t *o)       \
    {                                                                                            \
        for (Py_ssize_t g = 0; g < groups; g++) {                                                \
            const uint8_t *q = p + g * (8 / (LOW)) * (WB);                                       \
            unsigned byte = 0;                                                                   \
            for (int j = 0; j < 8 / (LOW); j++)                                                  \
                byte = (byte << (LOW)) | (q[j * (WB)] & ((1u << (LOW)) - 1));                    \
            o[g] = (uint8_t)byte;                                                                \
        }                                                                                        \
    }
DEFINE_GROUP_FOLD(2, 1)
DEFINE_GROUP_FOLD(4, 1)
DEFINE_GROUP_FOLD(8, 1)
DEFINE_GROUP_FOLD(1, 2)
DEFINE_GROUP_FOLD(2, 2)
DEFINE_GROUP_FOLD(4, 2)
DEFINE_GROUP_FOLD(8, 2)
DEFINE_GROUP_FOLD(1, 4)
DEFINE_GROUP_FOLD(2, 4)
DEFINE_GROUP_FOLD(4, 4)
DEFINE_GROUP_FOLD(8, 4)

/* The lowest bit of 8 bytes at once: in a little-endian load byte j's bit 0
 * is bit 8j, and the multiplier moves it to bit 63 - j with no other product
 * reaching the top byte and no carries (every partial product is one bit, at
 * a distinct position). */
static void
fold_groups_1_1(const uint8_t *p, Py_ssize_t groups, uint8_t *o)
{
    for (Py_ssize_t g = 0; g < groups; g++) {
        uint64_t w;
        memcpy(&w, p + 8 * g, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w);
#endif
        o[g] = (uint8_t)(((w & 0x0101010101010101ULL) * 0x8040201008040201ULL) >> 56);
    }
}

typedef void (*group_fold)(const uint8_t *, Py_ssize_t, uint8_t *);

/* the group loop for words of word_bytes keeping low_bits (1, 2 or 4) */
static group_fold
group_fold_for(int word_bytes, int low_bits)
{
    static const group_fold table[3][4] = {
        {fold_groups_1_1, fold_groups_2_1, fold_groups_4_1, fold_groups_8_1},
        {fold_groups_1_2, fold_groups_2_2, fold_groups_4_2, fold_groups_8_2},
        {fold_groups_1_4, fold_groups_2_4, fold_groups_4_4, fold_groups_8_4},
    };
    int row = low_bits == 1 ? 0 : low_bits == 2 ? 1 : low_bits == 4 ? 2 : -1;
    int col = word_bytes == 1 ? 0 : word_bytes == 2 ? 1 : word_bytes == 4 ? 2 : word_bytes == 8 ? 3 : -1;
    return row < 0 || col < 0 ? NULL : table[row][col];
}

/* the low byte of every word (word_bytes 2, 4 or 8), with constant strides */
static int
fold_low_bytes(const uint8_t *p, Py_ssize_t words, int word_bytes, uint8_t *o)
{
    switch (word_bytes) {
    case 2:
        for (Py_ssize_t i = 0; i < words; i++)
            o[i] = p[2 * i];
        return 1;
    case 4:
        for (Py_ssize_t i = 0; i < words; i++)
            o[i] = p[4 * i];
        return 1;
    case 8:
        for (Py_ssize_t i = 0; i < words; i++)
            o[i] = p[8 * i];
        return 1;
    default:
        return 0;
    }
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
        group_fold fold_groups = group_fold_for(word_bytes, low_bits);
        if (fold_groups) {
            fold_groups(p + i0 * word_bytes, groups, o);
            o += groups;
        } else if (low_bits == 8 && fold_low_bytes(p + i0 * word_bytes, groups, word_bytes, o)) {
            o += groups;
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
        /* 16 bits or more in whole bytes (8 took the branch above): the low
         * bytes of each word, most significant first */
        int nb = low_bits / 8;
        if (nb == 2) { /* a constant count, which the compiler unrolls (3x the loop below) */
            /* a constant stride per word size and no aliasing (restrict): loops the compiler vectorises */
            const uint8_t *restrict src = p;
            uint8_t *restrict dst = o;
#define LOW16_OF(WB)                                   \
    for (Py_ssize_t i = 0; i < words; i++) {           \
        dst[2 * i] = src[i * (WB) + 1];                \
        dst[2 * i + 1] = src[i * (WB)];                \
    }
            if (word_bytes == 4) {
                LOW16_OF(4)
            } else {
                LOW16_OF(8)
            }
#undef LOW16_OF
            o += 2 * words;
        } else {
            for (Py_ssize_t i = 0; i < words; i++)
                for (int k = nb - 1; k >= 0; k--)
                    *o++ = p[i * word_bytes + k];
        }
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

RANDQA_MODULE(_folding, "randqa._folding",
              "Low-bits folding of a word stream.",
              methods);
