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

/* With AVX2 (x86-64 since 2013), the lowest bit of 32 words at a time
 * becomes a 32-bit mask in a few instructions, where the loops above take
 * one or more per word, and the low 16 bits of 64-bit words are gathered
 * by byte shuffles: 2 to 4 times the speed on the folds of the standard
 * suite.  The same bytes come out (tests/test_folding.py). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(RANDQA_NO_CLONES)
#define HAVE_FOLD_AVX2 1
#include <immintrin.h>

/* each byte's bits in reverse order: the masks number words from bit 0,
 * and the folded byte holds its first word's bit highest */
static inline uint32_t
reverse_bits_in_bytes(uint32_t x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    return ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
}

/* Folds whole runs of 32 words of word_bytes (1, 2, 4 or 8) to their
 * lowest bits, 4 output bytes a run, from at most `groups` groups of 8
 * words; returns the groups done (a multiple of 4).  Up to 4-byte words,
 * each word's lowest bit becomes its own byte's top bit (shifted, then
 * saturated to bytes), the bytes of each group of 8 words are reversed and
 * the top bits gathered; 8-byte words gather theirs 4 at a time and are
 * reversed in the mask. */
__attribute__((target("avx2"))) static Py_ssize_t
fold_lowest_bits_avx2(const uint8_t *p, Py_ssize_t groups, int word_bytes, uint8_t *o)
{
    const __m256i reverse8 = _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8,
                                              7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
    const __m256i halves = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    const Py_ssize_t runs = groups / 4, run_bytes = 32 * (Py_ssize_t)word_bytes;
    for (Py_ssize_t r = 0; r < runs; r++) {
        const __m256i *q = (const __m256i *)(p + r * run_bytes);
        __m256i tops; /* byte j: the lowest bit of word j, at bit 7 */
        uint32_t mask;
        if (word_bytes == 1) {
            tops = _mm256_slli_epi16(_mm256_loadu_si256(q), 7);
        } else if (word_bytes == 2) {
            /* packs interleaves the two vectors' 128-bit halves; the permute puts them back */
            tops = _mm256_permute4x64_epi64(_mm256_packs_epi16(_mm256_slli_epi16(_mm256_loadu_si256(q), 15),
                                                               _mm256_slli_epi16(_mm256_loadu_si256(q + 1), 15)),
                                            0xD8);
        } else if (word_bytes == 4) {
            __m256i ab = _mm256_packs_epi32(_mm256_slli_epi32(_mm256_loadu_si256(q), 31),
                                            _mm256_slli_epi32(_mm256_loadu_si256(q + 1), 31));
            __m256i cd = _mm256_packs_epi32(_mm256_slli_epi32(_mm256_loadu_si256(q + 2), 31),
                                            _mm256_slli_epi32(_mm256_loadu_si256(q + 3), 31));
            tops = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(ab, cd), halves);
        } else {
            mask = 0;
            for (int k = 0; k < 8; k++)
                mask |= (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_slli_epi64(_mm256_loadu_si256(q + k), 63)))
                        << (4 * k);
            mask = reverse_bits_in_bytes(mask);
            memcpy(o + 4 * r, &mask, 4);
            continue;
        }
        mask = (uint32_t)_mm256_movemask_epi8(_mm256_shuffle_epi8(tops, reverse8));
        memcpy(o + 4 * r, &mask, 4);
    }
    return 4 * runs;
}

/* The low 16 bits of whole runs of 16 64-bit words, high byte first, 32
 * output bytes a run; returns the words done (a multiple of 16). */
__attribute__((target("avx2"))) static Py_ssize_t
fold_low16_of_64_avx2(const uint8_t *p, Py_ssize_t words, uint8_t *o)
{
    /* vector k puts each 128-bit half's two words' bytes 1, 0 at its 32-bit slot k */
    __m256i pick[4];
    for (int k = 0; k < 4; k++) {
        int8_t idx[16];
        memset(idx, -128, sizeof idx); /* a set top bit zeroes the byte */
        idx[4 * k] = 1;
        idx[4 * k + 1] = 0;
        idx[4 * k + 2] = 9;
        idx[4 * k + 3] = 8;
        __m128i half = _mm_loadu_si128((const __m128i *)idx);
        pick[k] = _mm256_broadcastsi128_si256(half);
    }
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    const Py_ssize_t runs = words / 16;
    for (Py_ssize_t r = 0; r < runs; r++) {
        const __m256i *q = (const __m256i *)(p + 128 * r);
        __m256i joined = _mm256_or_si256(
            _mm256_or_si256(_mm256_shuffle_epi8(_mm256_loadu_si256(q), pick[0]), _mm256_shuffle_epi8(_mm256_loadu_si256(q + 1), pick[1])),
            _mm256_or_si256(_mm256_shuffle_epi8(_mm256_loadu_si256(q + 2), pick[2]), _mm256_shuffle_epi8(_mm256_loadu_si256(q + 3), pick[3])));
        _mm256_storeu_si256((__m256i *)(o + 32 * r), _mm256_permutevar8x32_epi32(joined, order));
    }
    return 16 * runs;
}
#endif

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
#ifdef HAVE_FOLD_AVX2
        if (low_bits == 1 && __builtin_cpu_supports("avx2")) {
            Py_ssize_t done = fold_lowest_bits_avx2(p + i0 * word_bytes, groups, word_bytes, o);
            o += done;
            i0 += done * group;
            groups -= done;
        }
#endif
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
#ifdef HAVE_FOLD_AVX2
            if (word_bytes == 8 && __builtin_cpu_supports("avx2")) {
                Py_ssize_t done = fold_low16_of_64_avx2(p, words, o);
                src += 8 * done;
                dst += 2 * done;
                o += 2 * done;
                words -= done;
            }
#endif
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
