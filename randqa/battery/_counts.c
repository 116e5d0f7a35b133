/*
 * Counting kernels of the battery: histograms of bytes, 16-bit words and
 * overlapping byte pairs (chi_square, serial_correlation, digraph,
 * overlapping_serial, fluhrer_mcgrew), bit counts (frequency, runs), lag
 * products (serial_correlation), the byte statistics that frequency, runs,
 * chi_square and serial_correlation share, gaps (gap), overlapping bit
 * patterns (overlapping_serial), Hamming-weight tuples (bcfn), the
 * repeats of the low 16 bits of words at each lag (lagged_repeats) and the
 * equal bytes around zero bytes (zero_repeats).
 *
 * Every function reads a contiguous bytes-like object through the buffer
 * protocol and either returns Python ints or adds into caller-owned int64
 * arrays, so the Python accumulators keep all state and the kernels stay
 * chunk-agnostic.  Words are little-endian; bit streams are read most
 * significant bit first in each byte (NIST SP 800-22 order).
 */
#include "../_module.h"
#include "_buffers.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* h[k][v] += the bytes p[i] = v, i < n, counted into four tables by i mod 4
 * (all of a tail into the first): repeated values do not wait on each
 * other's stores.  The caller adds up the tables before they can wrap. */
static inline void
add_byte_counts4(const uint8_t *p, Py_ssize_t n, uint32_t h[4][256])
{
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4) {
        h[0][p[i]]++;
        h[1][p[i + 1]]++;
        h[2][p[i + 2]]++;
        h[3][p[i + 3]]++;
    }
    for (; i < n; i++)
        h[0][p[i]]++;
}

/* byte_histogram(data, counts): counts[v] += occurrences of byte v. */
static PyObject *
byte_histogram(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, out;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "y*O", &in, &out_obj))
        return NULL;
    if (get_int64_out_or_release(out_obj, &out, 256, "counts", &in) < 0)
        return NULL;
    const uint8_t *p = (const uint8_t *)in.buf;
    Py_ssize_t n = in.len, i = 0;
    int64_t *counts = (int64_t *)out.buf;
    Py_BEGIN_ALLOW_THREADS
    uint32_t h[4][256];
    memset(h, 0, sizeof h);
    /* uint32 sub-counts are flushed every 2^30 bytes so they cannot overflow */
    while (i < n) {
        Py_ssize_t end = n - i > (1 << 30) ? i + (1 << 30) : n;
        add_byte_counts4(p + i, end - i, h);
        i = end;
        for (int v = 0; v < 256; v++) {
            counts[v] += (int64_t)h[0][v] + h[1][v] + h[2][v] + h[3][v];
            h[0][v] = h[1][v] = h[2][v] = h[3][v] = 0;
        }
    }
    Py_END_ALLOW_THREADS
    RELEASE_BUFFERS(&in, &out);
    Py_RETURN_NONE;
}

/* calls of fewer bytes count straight into counts: zeroing and adding up a
 * table of 32-bit counts would cost more than it saves */
#define WORD16_TABLE_USE ((Py_ssize_t)1 << 19)

/* h[w] += the little-endian 16-bit words w of p[0..n), n even; four words
 * per 64-bit load (a load and a shift each, where two byte loads per word
 * made the loop 1.2x slower) */
#define ADD_WORD16_COUNTS(h, p, n)                     \
    do {                                               \
        Py_ssize_t i_ = 0;                             \
        for (; i_ + 8 <= (n); i_ += 8) {               \
            uint64_t v_ = load_le((p) + i_, 8);        \
            (h)[v_ & 0xffff]++;                        \
            (h)[(v_ >> 16) & 0xffff]++;                \
            (h)[(v_ >> 32) & 0xffff]++;                \
            (h)[v_ >> 48]++;                           \
        }                                              \
        for (; i_ < (n); i_ += 2)                      \
            (h)[(p)[i_] | ((unsigned)(p)[i_ + 1] << 8)]++; \
    } while (0)

/* word16_histogram(data, counts): counts[w] += occurrences of each
 * little-endian 16-bit word; len(data) must be even. */
static PyObject *
word16_histogram(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, out;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "y*O", &in, &out_obj))
        return NULL;
    if (in.len % 2)
        return reject_parameters(&in, "data length must be even");
    if (get_int64_out_or_release(out_obj, &out, 65536, "counts", &in) < 0)
        return NULL;
    const uint8_t *p = (const uint8_t *)in.buf;
    int64_t *counts = (int64_t *)out.buf;
    Py_ssize_t n = in.len, i = 0;
    Py_BEGIN_ALLOW_THREADS
    /* a long call counts into a table of 32-bit counts, half the cache
     * footprint of counts (the increments' misses set the pace; a few
     * percent), added to counts every 2^32 bytes, before it can wrap */
    uint32_t *table = n >= WORD16_TABLE_USE ? calloc(65536, sizeof *table) : NULL;
    while (table && i < n) {
        Py_ssize_t m = n - i > ((Py_ssize_t)1 << 32) ? (Py_ssize_t)1 << 32 : n - i;
        ADD_WORD16_COUNTS(table, p + i, m);
        i += m;
        for (int w = 0; w < 65536; w++) {
            counts[w] += table[w];
            table[w] = 0;
        }
    }
    free(table);
    ADD_WORD16_COUNTS(counts, p + i, n - i);
    Py_END_ALLOW_THREADS
    RELEASE_BUFFERS(&in, &out);
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
bit_counts(PyObject *Py_UNUSED(self), PyObject *args)
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
lag_product_sum(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in;
    Py_ssize_t lag;
    if (!PyArg_ParseTuple(args, "y*n", &in, &lag))
        return NULL;
    if (lag < 1)
        return reject_parameters(&in, "lag must be >= 1");
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
/* ------------------------------------------------------------------------
 * byte_counts(data, previous, hist) -> (products, transitions)
 *
 * hist[v] += the bytes of data equal to v; products is the sum of
 * x_i x_{i+1} and transitions the number of i where the last bit of x_i
 * differs from the first bit of x_{i+1}, over the adjacent pairs of data
 * and, when previous is a byte value (not -1), the pair (previous, data[0]).
 * With the first and last byte these are all that frequency, runs,
 * chi_square (bits = 8) and serial_correlation (lag 1) count (the shared
 * statistic ByteCounts, randqa/battery/_shared.py), in a fifth less time
 * than the table of byte pairs that also holds them.
 *
 * In runs of 16 KiB, still cached for the second loop: the histogram in
 * four tables of 32-bit counts (repeated values do not wait on each other),
 * then the products and transitions 16 pairs at a time.
 * ---------------------------------------------------------------------- */
#define BYTE_COUNT_RUN 16384

static void
byte_counts_run(const uint8_t *p, Py_ssize_t n, uint32_t h[4][256], uint64_t *products, uint64_t *transitions)
{
    add_byte_counts4(p, n, h);
    uint64_t prod = 0, trans = 0;
    Py_ssize_t j = 0;
#if defined(__SSE2__)
    /* products summed in pairs by pmaddwd into four 32-bit lanes (at most
     * 2 * 2 * 255^2 per lane and step, 1024 steps: no wrap); the differing
     * bits summed by psadbw */
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi8(1);
    __m128i prod4 = zero, trans2 = zero;
    for (; j + 17 <= n; j += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(p + j)), b = _mm_loadu_si128((const __m128i *)(p + j + 1));
        prod4 = _mm_add_epi32(prod4, _mm_madd_epi16(_mm_unpacklo_epi8(a, zero), _mm_unpacklo_epi8(b, zero)));
        prod4 = _mm_add_epi32(prod4, _mm_madd_epi16(_mm_unpackhi_epi8(a, zero), _mm_unpackhi_epi8(b, zero)));
        /* b's top bit moved to bit 0 of its byte (the 16-bit shift's spill lands above bit 0) */
        __m128i differ = _mm_and_si128(_mm_xor_si128(a, _mm_srli_epi16(b, 7)), one);
        trans2 = _mm_add_epi64(trans2, _mm_sad_epu8(differ, zero));
    }
    uint32_t lanes[4];
    uint64_t halves[2];
    _mm_storeu_si128((__m128i *)lanes, prod4);
    _mm_storeu_si128((__m128i *)halves, trans2);
    prod = (uint64_t)lanes[0] + lanes[1] + lanes[2] + lanes[3];
    trans = halves[0] + halves[1];
#endif
    for (; j + 1 < n; j++) {
        prod += (uint64_t)p[j] * p[j + 1];
        trans += (uint64_t)((p[j] ^ (p[j + 1] >> 7)) & 1u);
    }
    *products += prod;
    *transitions += trans;
}

static PyObject *
byte_counts(PyObject *Py_UNUSED(self), PyObject *args)
{
    stream_continuation c;
    if (parse_stream_continuation(args, &c, 256, "hist") < 0)
        return NULL;
    const uint8_t *p = c.data;
    const Py_ssize_t n = c.n;
    const int previous = c.previous;
    int64_t *hist = c.counts;
    uint64_t products = 0, transitions = 0;
    Py_BEGIN_ALLOW_THREADS
    if (n > 0 && previous >= 0) {
        products += (uint64_t)previous * p[0];
        transitions += (uint64_t)((previous ^ (p[0] >> 7)) & 1);
    }
    uint32_t h[4][256];
    Py_ssize_t done = 0;
    while (done < n) {
        /* the 32-bit counts go to hist every 2^30 bytes, before they can wrap */
        memset(h, 0, sizeof h);
        Py_ssize_t stop = n - done > ((Py_ssize_t)1 << 30) ? done + ((Py_ssize_t)1 << 30) : n;
        while (done < stop) {
            Py_ssize_t m = stop - done < BYTE_COUNT_RUN ? stop - done : BYTE_COUNT_RUN;
            byte_counts_run(p + done, m, h, &products, &transitions);
            done += m;
            if (done < n) { /* the pair across two runs */
                products += (uint64_t)p[done - 1] * p[done];
                transitions += (uint64_t)((p[done - 1] ^ (p[done] >> 7)) & 1u);
            }
        }
        for (int v = 0; v < 256; v++)
            hist[v] += (int64_t)h[0][v] + h[1][v] + h[2][v] + h[3][v];
    }
    Py_END_ALLOW_THREADS
    release_stream_continuation(&c);
    return Py_BuildValue("(KK)", (unsigned long long)products, (unsigned long long)transitions);
}

/* rc4_digraph_counts(data, first_position, previous, low, high): counts the
 * byte pairs that can be Fluhrer-McGrew digraphs, by the position mod 256 of
 * their first byte (c).  low[c][k][b] counts pairs (a, b) with a = 0, 129,
 * 255 for k = 0, 1, 2; high[c][a] counts pairs (a, 255).  data's first byte
 * is at stream position first_position; previous (0-255, or -1 when none) is
 * the byte before it, whose pair with data[0] is counted too. */
static PyObject *
rc4_digraph_counts(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, lo, hi;
    Py_ssize_t first_position;
    int previous;
    PyObject *lo_obj, *hi_obj;
    if (!PyArg_ParseTuple(args, "y*niOO", &in, &first_position, &previous, &lo_obj, &hi_obj))
        return NULL;
    if (previous < -1 || previous > 255)
        return reject_parameters(&in, "previous must be a byte value or -1");
    if (get_int64_out_or_release(lo_obj, &lo, 256 * 3 * 256, "low", &in) < 0)
        return NULL;
    if (get_int64_out(hi_obj, &hi, 256 * 256, "high") < 0) {
        RELEASE_BUFFERS(&in, &lo);
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
    RELEASE_BUFFERS(&in, &lo, &hi);
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

/* Whether each of the 64 words at p is a hit: bit k for word k (constant
 * word sizes, so the loads are plain and the loop unrolls). */
#define DEFINE_WORD_HITS(BYTES)                                                       \
    static inline uint64_t word_hits64_##BYTES(const uint8_t *p, uint64_t lo, uint64_t width) \
    {                                                                                 \
        uint64_t mask = 0;                                                            \
        for (int k = 0; k < 64; k++)                                                  \
            mask |= (uint64_t)(load_le(p + k * (BYTES), (BYTES)) - lo < width) << k;  \
        return mask;                                                                  \
    }
DEFINE_WORD_HITS(2)
DEFINE_WORD_HITS(4)
DEFINE_WORD_HITS(8)

#if defined(__SSE2__)
/* 32-bit words: unsigned (w - lo) < width as a signed comparison of both
 * sides with the top bit flipped (SSE2 compares signed words only) */
static inline uint64_t
word32_hits64(const uint8_t *p, uint64_t lo, uint64_t width)
{
    const __m128i flip = _mm_set1_epi32((int)0x80000000u), vlo = _mm_set1_epi32((int)(uint32_t)lo);
    const __m128i limit = _mm_xor_si128(_mm_set1_epi32((int)(uint32_t)width), flip);
    uint64_t mask = 0;
    for (int k = 0; k < 16; k++) {
        __m128i d = _mm_xor_si128(_mm_sub_epi32(_mm_loadu_si128((const __m128i *)(p + 16 * k)), vlo), flip);
        mask |= (uint64_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmplt_epi32(d, limit))) << (4 * k);
    }
    return mask;
}
#endif

static inline uint64_t
word_hits64(const uint8_t *p, int word_bytes, uint64_t lo, uint64_t width)
{
    switch (word_bytes) {
    case 2:
        return word_hits64_2(p, lo, width);
    case 4:
#if defined(__SSE2__)
        if (width < (1ULL << 32))
            return word32_hits64(p, lo, width);
#endif
        return word_hits64_4(p, lo, width);
    default:
        return word_hits64_8(p, lo, width);
    }
}

/* When hits are common, the gaps inside each 8-word piece of the mask are
 * looked up: GAPS_INSIDE[b] holds, byte j, how many gaps of j words lie
 * between the hits of the piece b (at most 6, so only the gap that closes
 * at the piece's first hit varies with what came before).  Counting them in
 * the bytes of one word replaces the increments of a few histogram cells
 * that follow each other, whose stores and loads would wait on each other. */
static uint64_t GAPS_INSIDE[256];

static void
fill_gaps_inside(void)
{
    for (int b = 1; b < 256; b++) {
        uint64_t packed = 0;
        int previous = __builtin_ctz((unsigned)b);
        for (int k = previous + 1; k < 8; k++)
            if (b >> k & 1) {
                packed += (uint64_t)1 << (8 * (k - previous - 1));
                previous = k;
            }
        GAPS_INSIDE[b] = packed;
    }
}

/* The gaps of one 64-word mask whose first hit is not the call's first
 * (first >= 0): by 8-word pieces.  `open` is the gap still open before it;
 * returns the gap open after it.  Each piece adds at most 7 to a byte of
 * `small` (a gap of j < 8 words adds 1 to byte j), so after one mask the
 * bytes are below 64 and are added to hist (class j counts in hist[min(j, top)]). */
static inline long long
gaps_by_pieces(uint64_t mask, long long open, int64_t *hist, long long top)
{
    uint64_t small = 0;
    for (int k = 0; k < 8; k++) {
        unsigned b = (unsigned)(mask >> (8 * k)) & 0xff;
        if (!b) {
            open += 8;
            continue;
        }
        long long closing = open + __builtin_ctz(b);
        if (closing < 8)
            small += (uint64_t)1 << (8 * closing);
        else
            hist[closing < top ? closing : top]++;
        small += GAPS_INSIDE[b];
        open = 7 - (31 - __builtin_clz(b)); /* words after the piece's last hit */
    }
    for (int j = 0; j < 8; j++)
        hist[j < top ? j : top] += (int64_t)(small >> (8 * j) & 0xff);
    return open;
}

/* Bytes whose top bit is `top_bit` (beta - alpha = 1/2 on the byte's
 * halves, gap's default): one movemask per 16 bytes, without the interval
 * compare. */
static inline uint64_t
byte_top_bit_hits64(const uint8_t *p, int top_bit)
{
    uint64_t mask = 0;
#if defined(__SSE2__)
    for (int k = 0; k < 4; k++)
        mask |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * k))) << (16 * k);
#else
    for (int k = 0; k < 64; k++)
        mask |= (uint64_t)(p[k] >> 7) << k;
#endif
    return top_bit ? mask : ~mask;
}

/* gaps of at most this many classes are counted by bit patterns */
#define GAP_PATTERN_TOP 16
/* hit masks made per pass of the pattern counting */
#define GAP_MASK_RUN 64

/* Where hits are common and the classes few: the gaps that close at each
 * hit of m[0..r) counted by patterns of the masks instead of hit by hit.
 * A gap of g < top words closes at hit j when words j-1..j-g are not hits
 * and j-g-1 is; `run` keeps the hits whose previous g words are not hits, so
 * each class is a shift, an AND and a popcount per 64 words, and the hits
 * left after `top` classes close gaps of top or more.  prev is the 64 words
 * before m[0]: only their last hit matters, which the caller may give
 * alone.  c[g] accumulates class g (c[top] the last); returns m[r - 1]. */
static inline __attribute__((always_inline)) uint64_t
gap_patterns(const uint64_t *m, Py_ssize_t r, uint64_t prev, int top, uint64_t *c)
{
    for (Py_ssize_t k = 0; k < r; k++) {
        uint64_t cur = m[k], run = cur;
        for (int g = 0; g < top; g++) {
            uint64_t before = (cur << (g + 1)) | (prev >> (63 - g)); /* bit j: word j-g-1 a hit */
            c[g] += (uint64_t)__builtin_popcountll(run & before);
            run &= ~before;
        }
        c[top] += (uint64_t)__builtin_popcountll(run);
        prev = cur;
    }
    return prev;
}

/* gap's default of 8 classes with constants (the class loop unrolls and c
 * stays in registers), any other top up to GAP_PATTERN_TOP as a loop */
POPCNT_CLONES static uint64_t
gap_patterns_run(const uint64_t *m, Py_ssize_t r, uint64_t prev, int top, uint64_t *c)
{
    if (top == 8)
        return gap_patterns(m, r, prev, 8, c);
    return gap_patterns(m, r, prev, top, c);
}

/* gap_scan's whole 64-word masks where hits are common and the classes at
 * most GAP_PATTERN_TOP: hit by hit up to the call's first hit, then by
 * patterns.  Returns the words done.  A function of its own, so that the
 * other cases' loop compiles as before (sharing it made the sparse case's
 * hit loop 1.4x slower). */
static Py_ssize_t __attribute__((noinline))
gap_scan_dense(const uint8_t *p, Py_ssize_t words, int word_bytes, uint64_t lo, uint64_t width, long long top,
               int64_t *hist, long long *last, long long *first)
{
    Py_ssize_t i = 0;
    for (; i + 64 <= words && *first < 0; i += 64) {
        uint64_t mask = word_bytes == 1 ? byte_hits64(p + i, (uint8_t)lo, (uint8_t)(width - 1))
                                        : word_hits64(p + i * word_bytes, word_bytes, lo, width);
        for (; mask; mask &= mask - 1)
            gap_hit(i + __builtin_ctzll(mask), last, first, hist, top);
    }
    if (i + 64 > words)
        return i;
    const int top_bit = word_bytes == 1 && width == 128 ? (int)(lo >> 7) : -1;
    uint64_t c[GAP_PATTERN_TOP + 1] = {0}, m[GAP_MASK_RUN];
    long long open_before = i - *last - 1; /* the one hit of prev that matters */
    uint64_t prev = open_before < 64 ? (uint64_t)1 << (63 - open_before) : 0;
    while (i + 64 <= words) {
        Py_ssize_t r = (words - i) / 64 < GAP_MASK_RUN ? (words - i) / 64 : GAP_MASK_RUN;
        for (Py_ssize_t k = 0; k < r; k++) {
            Py_ssize_t at = i + 64 * k;
            m[k] = top_bit >= 0      ? byte_top_bit_hits64(p + at, top_bit)
                   : word_bytes == 1 ? byte_hits64(p + at, (uint8_t)lo, (uint8_t)(width - 1))
                                     : word_hits64(p + at * word_bytes, word_bytes, lo, width);
        }
        prev = gap_patterns_run(m, r, prev, (int)top, c);
        for (Py_ssize_t k = r - 1; k >= 0; k--)
            if (m[k]) {
                *last = i + 64 * k + 63 - __builtin_clzll(m[k]);
                break;
            }
        i += 64 * r;
    }
    for (long long g = 0; g <= top; g++)
        hist[g] += (int64_t)c[g];
    return i;
}

static PyObject *
gap_scan(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, histv;
    PyObject *hist_obj;
    int word_bytes;
    unsigned long long lo, hi;
    long long open;
    if (!PyArg_ParseTuple(args, "y*iKKOL", &in, &word_bytes, &lo, &hi, &hist_obj, &open))
        return NULL;
    if ((word_bytes != 1 && word_bytes != 2 && word_bytes != 4 && word_bytes != 8) || in.len % word_bytes || open < 0 ||
        hi <= lo || (word_bytes < 8 && hi > (1ULL << (8 * word_bytes))))
        return reject_parameters(&in, "invalid gap scan parameters");
    if (get_int64_out_or_release(hist_obj, &histv, -1, "hist", &in) < 0)
        return NULL;
    const uint8_t *p = (const uint8_t *)in.buf;
    int64_t *hist = (int64_t *)histv.buf;
    long long top = histv.len / 8 - 1;
    Py_ssize_t words = in.len / word_bytes;
    uint64_t width = hi - lo;
    /* hits in at least a quarter of the words: by 8-word pieces; otherwise hit by hit */
    int by_pieces = width >= (word_bytes == 8 ? (1ULL << 62) : (1ULL << (8 * word_bytes - 2)));
    /* positions are relative to data[0]; `last` is the previous hit's, and
     * -1 - open before the first hit makes the first gap come out as `open` */
    long long last = -1 - open, first = -1;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t i = 0;
    if (by_pieces && top >= 0 && top <= GAP_PATTERN_TOP) {
        i = gap_scan_dense(p, words, word_bytes, lo, width, top, hist, &last, &first);
    } else {
        for (; i + 64 <= words; i += 64) {
            uint64_t mask = word_bytes == 1 ? byte_hits64(p + i, (uint8_t)lo, (uint8_t)(width - 1))
                                            : word_hits64(p + i * word_bytes, word_bytes, lo, width);
            if (by_pieces && first >= 0) {
                long long after = gaps_by_pieces(mask, i - last - 1, hist, top);
                last = i + 63 - after;
                continue;
            }
            for (; mask; mask &= mask - 1)
                gap_hit(i + __builtin_ctzll(mask), &last, &first, hist, top);
        }
    }
    for (; i < words; i++)
        if (load_le(p + i * word_bytes, word_bytes) - lo < width)
            gap_hit(i, &last, &first, hist, top);
    open = words - last - 1;
    Py_END_ALLOW_THREADS
    RELEASE_BUFFERS(&in, &histv);
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
digraph_scan(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, out;
    PyObject *counts_obj;
    int prev;
    long long start;
    int position_mod;
    if (!PyArg_ParseTuple(args, "y*iLiO", &in, &prev, &start, &position_mod, &counts_obj))
        return NULL;
    if (position_mod < 0 || prev < -1 || prev > 255 || start < 0)
        return reject_parameters(&in, "invalid digraph scan parameters");
    int classes = position_mod > 1 ? position_mod : 1;
    if (get_int64_out_or_release(counts_obj, &out, (Py_ssize_t)classes * 65536, "counts", &in) < 0)
        return NULL;
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
    RELEASE_BUFFERS(&in, &out);
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
bit_pattern_scan(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, out;
    PyObject *counts_obj;
    int m;
    unsigned long long reg;
    long long have;
    if (!PyArg_ParseTuple(args, "y*iOKL", &in, &m, &counts_obj, &reg, &have))
        return NULL;
    if (m < 1 || m > 24 || have < 0)
        return reject_parameters(&in, "invalid bit pattern scan parameters");
    if (get_int64_out_or_release(counts_obj, &out, (Py_ssize_t)1 << m, "counts", &in) < 0)
        return NULL;
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
    RELEASE_BUFFERS(&in, &out);
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
/* Adds the tuples that end at each of 8 new letters l[0..7] (oldest first)
 * and returns the new index.  Packing the 8 letters after the previous ones
 * in one word and cutting each tuple out of it keeps the letters off a
 * chain of shifts through `index`, one per letter, which set the pace when
 * counting bytes; the caller checks (tuple_length + 8) * letter_bits <= 64. */
static inline uint64_t
count_eight_tuples(uint64_t index, const uint8_t l[8], int lb, uint64_t index_mask, int64_t *counts)
{
    uint64_t high = ((uint64_t)l[0] << (7 * lb)) | ((uint64_t)l[1] << (6 * lb)) | ((uint64_t)l[2] << (5 * lb)) |
                    ((uint64_t)l[3] << (4 * lb));
    uint64_t low = ((uint64_t)l[4] << (3 * lb)) | ((uint64_t)l[5] << (2 * lb)) | ((uint64_t)l[6] << lb) | l[7];
    uint64_t window = (index << (8 * lb)) | high | low;
    for (int j = 7; j >= 0; j--)
        counts[(window >> (j * lb)) & index_mask]++;
    return window & index_mask;
}

/* Bytes as blocks (the level of 8-bit blocks) with 4-letter tuples whose
 * index fits in 16 bits: 16 bytes at a time with SSSE3 (every x86-64 CPU
 * since 2006), where byte-wise table lookups make both the letters (the
 * popcount of each nibble, then the letter of each weight 0-8) and the tuple
 * indices (the letters shifted by 1, 2 and 3 positions), so only the count
 * increments remain one at a time: about twice the scalar loop's speed. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(RANDQA_NO_CLONES)
#define HAVE_BYTE_TUPLES_SSSE3 1
#include <tmmintrin.h>

#define BYTE_TUPLE_RUN 2048

/* Counts the 4-letter tuples ending at each of the n (a multiple of 16)
 * bytes p[0..n) into counts; `index` holds the 3 letters before p[0] (the
 * newest lowest, lb bits each); returns the index after p[n-1]. */
__attribute__((target("ssse3"))) static uint64_t
byte_tuples_ssse3(const uint8_t *p, Py_ssize_t n, const uint8_t *letter_of_weight, int lb, uint64_t index,
                  int64_t *counts)
{
    uint8_t weights16[16] = {0};
    memcpy(weights16, letter_of_weight, 9);
    const __m128i nibble_weight = _mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m128i letter = _mm_loadu_si128((const __m128i *)weights16);
    const __m128i low4 = _mm_set1_epi8(0x0f), zero = _mm_setzero_si128();
    const __m128i shift = _mm_cvtsi32_si128(lb);
    uint64_t lmask = ((uint64_t)1 << lb) - 1;
    /* the previous 3 letters in the top bytes of `prev`, oldest first */
    __m128i prev = _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (char)((index >> (2 * lb)) & lmask),
                                 (char)((index >> lb) & lmask), (char)(index & lmask));
    uint16_t ix[BYTE_TUPLE_RUN];
    /* two tables of 32-bit counts: a repeated tuple's increments alternate
     * between them instead of waiting on each other; added to counts at the
     * end (a call counts fewer than 2^32 tuples per table: see the caller) */
    Py_ssize_t cells = (Py_ssize_t)1 << (4 * lb);
    uint32_t *even = calloc(2 * (size_t)cells, sizeof *even);
    if (!even)
        return index | ((uint64_t)1 << 63); /* tells the caller to count one at a time */
    uint32_t *odd = even + cells;
    for (Py_ssize_t start = 0; start < n; start += BYTE_TUPLE_RUN) {
        Py_ssize_t m = n - start < BYTE_TUPLE_RUN ? n - start : BYTE_TUPLE_RUN;
        for (Py_ssize_t i = 0; i < m; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(p + start + i));
            __m128i w = _mm_add_epi8(_mm_shuffle_epi8(nibble_weight, _mm_and_si128(v, low4)),
                                     _mm_shuffle_epi8(nibble_weight, _mm_and_si128(_mm_srli_epi16(v, 4), low4)));
            __m128i l0 = _mm_shuffle_epi8(letter, w);
            __m128i l1 = _mm_alignr_epi8(l0, prev, 15), l2 = _mm_alignr_epi8(l0, prev, 14), l3 = _mm_alignr_epi8(l0, prev, 13);
            __m128i lo = _mm_unpacklo_epi8(l3, zero), hi = _mm_unpackhi_epi8(l3, zero);
            lo = _mm_or_si128(_mm_sll_epi16(lo, shift), _mm_unpacklo_epi8(l2, zero));
            hi = _mm_or_si128(_mm_sll_epi16(hi, shift), _mm_unpackhi_epi8(l2, zero));
            lo = _mm_or_si128(_mm_sll_epi16(lo, shift), _mm_unpacklo_epi8(l1, zero));
            hi = _mm_or_si128(_mm_sll_epi16(hi, shift), _mm_unpackhi_epi8(l1, zero));
            lo = _mm_or_si128(_mm_sll_epi16(lo, shift), _mm_unpacklo_epi8(l0, zero));
            hi = _mm_or_si128(_mm_sll_epi16(hi, shift), _mm_unpackhi_epi8(l0, zero));
            _mm_storeu_si128((__m128i *)(ix + i), lo);
            _mm_storeu_si128((__m128i *)(ix + i + 8), hi);
            prev = l0;
        }
        for (Py_ssize_t i = 0; i < m; i += 2) {
            even[ix[i]]++;
            odd[ix[i + 1]]++;
        }
        index = ix[m - 1];
    }
    for (Py_ssize_t c = 0; c < cells; c++)
        counts[c] += (int64_t)even[c] + odd[c];
    free(even);
    return index;
}

/* The same with AVX2, 32 bytes at a time, for any tuple whose index fits in
 * 16 bits (hamming_patterns' 8 two-bit letters too), except 5 three-bit
 * letters.  Per run: the letters into a buffer, then the indices from it.
 * A byte holds the s = 8 / lb newest letters of a tuple (shifts within
 * bytes that cannot spill: each part stays below 2^8), another byte the
 * t - s older ones, and the index is the two widened and joined.  The
 * widening works within 128-bit halves, so the indices of a run come out
 * in another order, which counting does not see; the index after the run is
 * made from its last letters.  On long calls the tuples are counted in
 * pairs, as words of t + 1 letters (half the increments, which set the
 * pace), numbered densely where that fits in L1. */
#define HAVE_BYTE_TUPLES_AVX2 1
#include <immintrin.h>

/* calls of fewer bytes than this times the cells count straight into the
 * int64 counts: zeroing and adding up 32-bit tables would cost more */
#define BYTE_TUPLE_TABLE_USE 8
/* pair words (see byte_tuples_avx2) of at most 2^BYTE_TUPLE_PAIR_BITS cells,
 * for calls of at least BYTE_TUPLE_TABLE_USE times their cells */
#define BYTE_TUPLE_PAIR_BITS 18
/* dense pair words (see byte_tuples_avx2) of at most this many cells: a
 * table of 32-bit counts that stays in L1 */
#define BYTE_TUPLE_DENSE_CELLS 4096

/* whether byte_tuples_avx2 takes t letters of lb bits */
static inline int
byte_tuples_avx2_fits(int lb, int64_t t)
{
    int64_t s = 8 / lb;
    return t * lb <= 16 && (t <= s || (t - s) * lb <= 8);
}

/* Counts the t-letter tuples ending at each of the n (a multiple of 32)
 * bytes p[0..n) into counts; `index` holds the t - 1 letters before p[0]
 * (the newest lowest); returns the index after p[n-1]. */
__attribute__((target("avx2"))) static uint64_t
byte_tuples_avx2(const uint8_t *p, Py_ssize_t n, const uint8_t *letter_of_weight, int lb, int t, uint64_t index,
                 int64_t *counts)
{
    uint8_t weights16[16] = {0};
    memcpy(weights16, letter_of_weight, 9);
    const __m256i nibble_weight = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2,
                                                   2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i letter = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)weights16));
    const __m256i low4 = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
    const int s = t < 8 / lb ? t : 8 / lb, older = t - s; /* letters in the newer and the older byte */
    const __m128i newer_shift = _mm_cvtsi32_si128(s * lb);
    const uint64_t lmask = ((uint64_t)1 << lb) - 1;
    /* letters[LEAD - h .. LEAD): the h = t - 1 letters before the run, oldest first */
    enum { LEAD = 16 };
    const int h = t - 1;
    _Alignas(64) uint8_t letters[LEAD + BYTE_TUPLE_RUN];
    _Alignas(64) uint16_t ix[BYTE_TUPLE_RUN];
    for (int j = 0; j < h; j++)
        letters[LEAD - 1 - j] = (uint8_t)((index >> (j * lb)) & lmask);
    /* two tables of 32-bit counts when the call is long enough to repay
     * them: a repeated tuple's increments alternate between them instead of
     * waiting on each other (fewer than 2^32 tuples per call: see the caller) */
    Py_ssize_t cells = (Py_ssize_t)1 << (t * lb);
    /* on long calls, the (t + 1)-letter words that end at each odd
     * position: half the increments, in a table that still fits in L2 (the
     * increments' cache misses set the pace); folded into counts at the end,
     * each word's older and newer tuple */
    const int pair_bits = (t + 1) * lb;
    /* the same words numbered densely, base d = the largest letter + 1
     * (bcfn's 5 letters: 5^5 cells, where 3-bit fields take 2^15), where
     * they fit in L1: each the sum of its pairs of letters d a + b (pmaddubsw)
     * times powers of d^2, and for an even t its oldest letter times d^t */
    int d = 1;
    for (int w = 0; w <= 8; w++)
        d = letter_of_weight[w] >= d ? letter_of_weight[w] + 1 : d;
    Py_ssize_t dense_cells = 1;
    for (int j = 0; j <= t && dense_cells <= BYTE_TUPLE_DENSE_CELLS; j++)
        dense_cells *= d;
    for (int j = 0; j < h; j++) /* the caller's letters too, or a word would pass the table */
        dense_cells = letters[LEAD - 1 - j] >= d ? BYTE_TUPLE_DENSE_CELLS + 1 : dense_cells;
    uint32_t *dense = dense_cells <= BYTE_TUPLE_DENSE_CELLS && n >= BYTE_TUPLE_TABLE_USE * dense_cells
                          ? calloc((size_t)dense_cells, sizeof *dense)
                          : NULL;
    const __m256i pair_weight = _mm256_set1_epi16((short)(d | 1 << 8)); /* bytes d, 1: the older letter times d */
    _Alignas(64) uint16_t dense_words[BYTE_TUPLE_RUN / 2];
    uint16_t *pairs = !dense && pair_bits <= BYTE_TUPLE_PAIR_BITS && n >= BYTE_TUPLE_TABLE_USE * ((Py_ssize_t)1 << pair_bits)
                          ? calloc((size_t)1 << pair_bits, sizeof *pairs)
                          : NULL;
    _Alignas(64) uint32_t pair_words[BYTE_TUPLE_RUN / 2];
    const __m256i low16 = _mm256_set1_epi32(0xffff), letter32 = _mm256_set1_epi32((int)lmask);
    uint32_t *even = !dense && !pairs && n >= BYTE_TUPLE_TABLE_USE * cells ? calloc(2 * (size_t)cells, sizeof *even) : NULL;
    uint32_t *odd = even ? even + cells : NULL;
    for (Py_ssize_t start = 0; start < n; start += BYTE_TUPLE_RUN) {
        const Py_ssize_t m = n - start < BYTE_TUPLE_RUN ? n - start : BYTE_TUPLE_RUN;
        for (Py_ssize_t i = 0; i < m; i += 32) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(p + start + i));
            __m256i w = _mm256_add_epi8(_mm256_shuffle_epi8(nibble_weight, _mm256_and_si256(v, low4)),
                                        _mm256_shuffle_epi8(nibble_weight, _mm256_and_si256(_mm256_srli_epi16(v, 4), low4)));
            _mm256_storeu_si256((__m256i *)(letters + LEAD + i), _mm256_shuffle_epi8(letter, w));
        }
        for (Py_ssize_t i = 0; dense && i < m; i += 32) {
            /* 16-bit lane j: the word of the t + 1 letters up to q[2j + 1] */
            const uint8_t *q = letters + LEAD + i;
            __m256i word = _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)q), pair_weight);
            int power = d * d;
            for (int j = 2; j < t; j += 2, power *= d * d)
                word = _mm256_add_epi16(word, _mm256_mullo_epi16(_mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(q - j)), pair_weight),
                                                                 _mm256_set1_epi16((short)power)));
            if (t % 2 == 0) /* the high byte of lane j at q - t is q[2j + 1 - t] */
                word = _mm256_add_epi16(word, _mm256_mullo_epi16(_mm256_srli_epi16(_mm256_loadu_si256((const __m256i *)(q - t)), 8),
                                                                 _mm256_set1_epi16((short)power)));
            _mm256_storeu_si256((__m256i *)(dense_words + i / 2), word);
        }
        for (Py_ssize_t i = 0; !dense && i < m; i += 32) {
            const uint8_t *q = letters + LEAD + i; /* the newest letter of each tuple */
            __m256i lo = _mm256_loadu_si256((const __m256i *)q), hi = zero;
            for (int j = 1; j < s; j++)
                lo = _mm256_or_si256(lo, _mm256_sll_epi16(_mm256_loadu_si256((const __m256i *)(q - j)), _mm_cvtsi32_si128(j * lb)));
            if (older) {
                hi = _mm256_loadu_si256((const __m256i *)(q - s));
                for (int j = 1; j < older; j++)
                    hi = _mm256_or_si256(hi, _mm256_sll_epi16(_mm256_loadu_si256((const __m256i *)(q - s - j)),
                                                              _mm_cvtsi32_si128(j * lb)));
            }
            __m256i a = _mm256_or_si256(_mm256_unpacklo_epi8(lo, zero), _mm256_sll_epi16(_mm256_unpacklo_epi8(hi, zero), newer_shift));
            __m256i b = _mm256_or_si256(_mm256_unpackhi_epi8(lo, zero), _mm256_sll_epi16(_mm256_unpackhi_epi8(hi, zero), newer_shift));
            _mm256_storeu_si256((__m256i *)(ix + i), a);
            _mm256_storeu_si256((__m256i *)(ix + i + 16), b);
            /* each 32-bit lane holds the tuples at an even position (low) and the next */
            _mm256_storeu_si256((__m256i *)(pair_words + i / 2),
                                _mm256_or_si256(_mm256_sll_epi32(_mm256_and_si256(a, low16), _mm_cvtsi32_si128(lb)),
                                                _mm256_and_si256(_mm256_srli_epi32(a, 16), letter32)));
            _mm256_storeu_si256((__m256i *)(pair_words + i / 2 + 8),
                                _mm256_or_si256(_mm256_sll_epi32(_mm256_and_si256(b, low16), _mm_cvtsi32_si128(lb)),
                                                _mm256_and_si256(_mm256_srli_epi32(b, 16), letter32)));
        }
        /* unrolled: a loop this small ran 1.3-1.5x slower where it crossed
         * a 64-byte line of code, which any edit elsewhere may move it to */
        if (dense) {
#pragma GCC unroll 4
            for (Py_ssize_t k = 0; k < m / 2; k++)
                dense[dense_words[k]]++;
        } else if (pairs) {
#pragma GCC unroll 4
            for (Py_ssize_t k = 0; k < m / 2; k++) {
                uint32_t c = pair_words[k];
                if (__builtin_expect(++pairs[c] == 0, 0)) { /* a wrap: 65,536 to both tuples */
                    counts[c >> lb] += 65536;
                    counts[c & (cells - 1)] += 65536;
                }
            }
        } else if (even) {
            for (Py_ssize_t k = 0; k < m; k += 2) {
                even[ix[k]]++;
                odd[ix[k + 1]]++;
            }
        } else {
            for (Py_ssize_t k = 0; k < m; k++)
                counts[ix[k]]++;
        }
        index = 0;
        for (int j = t; j > 0; j--)
            index = (index << lb) | letters[LEAD + m - j];
        memcpy(letters + LEAD - h, letters + LEAD + m - h, (size_t)h);
    }
    if (dense) {
        for (Py_ssize_t c = 0; c < dense_cells; c++) {
            /* the word's letters, newest first, into its older and newer tuple's index */
            uint64_t older = 0, newer = 0, rest = (uint64_t)c;
            for (int j = 0; j <= t; j++, rest /= (uint64_t)d) {
                uint64_t l = rest % (uint64_t)d;
                if (j < t)
                    newer |= l << (j * lb);
                if (j > 0)
                    older |= l << ((j - 1) * lb);
            }
            counts[older] += dense[c];
            counts[newer] += dense[c];
        }
        free(dense);
    }
    if (pairs) {
        for (Py_ssize_t c = 0; c < (Py_ssize_t)1 << pair_bits; c++) {
            counts[c >> lb] += pairs[c];
            counts[c & (cells - 1)] += pairs[c];
        }
        free(pairs);
    }
    if (even) {
        for (Py_ssize_t c = 0; c < cells; c++)
            counts[c] += (int64_t)even[c] + odd[c];
        free(even);
    }
    return index;
}
#endif

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
        index = ((index << letter_bits) | letter[bytes_weight(p + b * block_bytes, block_bytes)]) & index_mask;
        if (++have >= tuple_length)
            counts[index]++;
    }
    uint8_t l[8];
    int eight_at_once = (tuple_length + 8) * letter_bits <= 64;
    if (block_bytes == 1) {
        uint8_t letter_of_byte[256];
        for (int v = 0; v < 256; v++)
            letter_of_byte[v] = letter[__builtin_popcount(v)];
#ifdef HAVE_BYTE_TUPLES_AVX2
        /* at most 2^32 bytes at a time, so the 32-bit counts cannot wrap */
        while (byte_tuples_avx2_fits(letter_bits, tuple_length) && blocks - b >= 32 && __builtin_cpu_supports("avx2")) {
            Py_ssize_t whole = (blocks - b) - (blocks - b) % 32;
            if (whole > ((Py_ssize_t)1 << 32))
                whole = (Py_ssize_t)1 << 32;
            index = byte_tuples_avx2(p + b, whole, letter, letter_bits, (int)tuple_length, index, counts);
            b += whole;
        }
#endif
#ifdef HAVE_BYTE_TUPLES_SSSE3
        /* at most 2^32 bytes at a time, so the 32-bit counts cannot wrap */
        while (tuple_length == 4 && 4 * letter_bits <= 16 && blocks - b >= 16 && __builtin_cpu_supports("ssse3")) {
            Py_ssize_t whole = (blocks - b) - (blocks - b) % 16;
            if (whole > ((Py_ssize_t)1 << 32))
                whole = (Py_ssize_t)1 << 32;
            uint64_t next = byte_tuples_ssse3(p + b, whole, letter, letter_bits, index, counts);
            if (next >> 63)
                break; /* no memory for the 32-bit tables */
            index = next;
            b += whole;
        }
#endif
        for (; eight_at_once && b + 8 <= blocks; b += 8) {
            for (int j = 0; j < 8; j++)
                l[j] = letter_of_byte[p[b + j]];
            index = count_eight_tuples(index, l, letter_bits, index_mask, counts);
        }
        for (; b < blocks; b++) {
            index = ((index << letter_bits) | letter_of_byte[p[b]]) & index_mask;
            counts[index]++;
        }
    } else if (block_bytes == 4) {
        for (; eight_at_once && b + 8 <= blocks; b += 8) {
            for (int j = 0; j < 8; j++) {
                uint32_t w;
                memcpy(&w, p + (b + j) * 4, 4);
                l[j] = letter[__builtin_popcount(w)];
            }
            index = count_eight_tuples(index, l, letter_bits, index_mask, counts);
        }
        for (; b < blocks; b++) {
            uint32_t w;
            memcpy(&w, p + b * 4, 4);
            index = ((index << letter_bits) | letter[__builtin_popcount(w)]) & index_mask;
            counts[index]++;
        }
    } else if (block_bytes == 2) {
        for (; eight_at_once && b + 8 <= blocks; b += 8) {
            for (int j = 0; j < 8; j++)
                l[j] = letter[__builtin_popcountll(load_le(p + (b + j) * block_bytes, (int)block_bytes))];
            index = count_eight_tuples(index, l, letter_bits, index_mask, counts);
        }
        for (; b < blocks; b++) {
            index = ((index << letter_bits) | letter[__builtin_popcountll(load_le(p + b * block_bytes, (int)block_bytes))]) &
                    index_mask;
            counts[index]++;
        }
    } else {
        for (; b < blocks; b++) {
            index = ((index << letter_bits) | letter[bytes_weight(p + b * block_bytes, block_bytes)]) & index_mask;
            counts[index]++;
        }
    }
    *index_io = index;
    *have_io = have;
}

static PyObject *
hamming_tuple_scan(PyObject *Py_UNUSED(self), PyObject *args)
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
        RELEASE_BUFFERS(&in, &table);
        PyErr_SetString(PyExc_ValueError, "invalid Hamming tuple scan parameters");
        return NULL;
    }
    Py_ssize_t cells = (Py_ssize_t)1 << (letter_bits * tuple_length);
    if (get_int64_out(counts_obj, &out, cells, "counts") < 0) {
        RELEASE_BUFFERS(&in, &table);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < table.len; k++) {
        if (((const uint8_t *)table.buf)[k] >> letter_bits) {
            RELEASE_BUFFERS(&in, &table, &out);
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
    RELEASE_BUFFERS(&in, &table, &out);
    return Py_BuildValue("(KL)", (unsigned long long)idx, (long long)hv);
}

/* ------------------------------------------------------------------------
 * zero_gap_scan(data, state, last_seen, head, total, inside): the stream as
 * 16-bit little-endian words (data holds whole words).  For each non-zero
 * word at index n after a zero word, D = n minus the index of the latest
 * zero (1, 2, ...); while D < bins (the length of total and inside),
 * total[D] += 1 and inside[D] += 1 when the word's value occurred since that
 * zero.  state (int64[3]) carries the index of the next word, the latest
 * zero's (-1: none yet) and how many words wait in head; last_seen
 * (int64[65536]) the index of each value's latest occurrence (-1: none).
 * Before a part's first zero its words wait in head (up to bins of them):
 * the part ahead of it has the zero they are counted from. */
static PyObject *
zero_gap_scan(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, st, seen, hd, tot, ins;
    PyObject *st_obj, *seen_obj, *hd_obj, *tot_obj, *ins_obj;
    if (!PyArg_ParseTuple(args, "y*OOOOO", &in, &st_obj, &seen_obj, &hd_obj, &tot_obj, &ins_obj))
        return NULL;
    if (in.len % 2)
        return reject_parameters(&in, "data must hold whole 16-bit words");
    if (get_int64_out_or_release(st_obj, &st, 3, "state", &in) < 0)
        return NULL;
    if (get_int64_out_or_release(seen_obj, &seen, 65536, "last_seen", &in) < 0) {
        PyBuffer_Release(&st);
        return NULL;
    }
    if (get_int64_out_or_release(tot_obj, &tot, -1, "total", &in) < 0) {
        RELEASE_BUFFERS(&st, &seen);
        return NULL;
    }
    Py_ssize_t bins = tot.len / 8;
    if (get_int64_out_or_release(ins_obj, &ins, bins, "inside (as long as total)", &in) < 0) {
        RELEASE_BUFFERS(&st, &seen, &tot);
        return NULL;
    }
    if (get_int64_out_or_release(hd_obj, &hd, bins, "head (as long as total)", &in) < 0) {
        RELEASE_BUFFERS(&st, &seen, &tot, &ins);
        return NULL;
    }
    int64_t *state = (int64_t *)st.buf, *last_seen = (int64_t *)seen.buf, *head = (int64_t *)hd.buf;
    int64_t *total = (int64_t *)tot.buf, *inside = (int64_t *)ins.buf;
    int valid = state[0] >= 0 && state[1] >= -1 && state[1] < state[0] && state[2] >= 0 && state[2] <= bins;
    const uint8_t *p = (const uint8_t *)in.buf;
    Py_ssize_t words = valid ? in.len / 2 : 0;
    Py_BEGIN_ALLOW_THREADS
    int64_t n = state[0], zero = state[1], held = state[2];
    Py_ssize_t k = 0;
    for (; k < words && zero < 0; k++, n++) { /* before the first zero */
        unsigned x = (unsigned)p[2 * k] | ((unsigned)p[2 * k + 1] << 8);
        if (x == 0) {
            zero = n;
            continue;
        }
        if (held < bins)
            head[held++] = x;
        last_seen[x] = n;
    }
    for (; k < words; k++, n++) {
        unsigned x = (unsigned)p[2 * k] | ((unsigned)p[2 * k + 1] << 8);
        if (x == 0) {
            zero = n;
            continue;
        }
        int64_t d = n - zero;
        if (d < bins) {
            total[d]++;
            inside[d] += last_seen[x] > zero;
        }
        last_seen[x] = n;
    }
    state[0] = n;
    state[1] = zero;
    state[2] = held;
    Py_END_ALLOW_THREADS
    RELEASE_BUFFERS(&in, &st, &seen, &hd, &tot, &ins);
    if (!valid)
        return PyErr_Format(PyExc_ValueError, "invalid zero gap state");
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------
 * set_insert(table, fill, values) -> repeats: a set of 64-bit values in an
 * open-addressing table (uint64, any length of at least 8; 0 marks an empty
 * slot) with linear probing from (v * a) scaled to the table's length.
 * fill (int64[2]) carries the values stored and whether 0 is in the set
 * (kept outside the table).  Each of values (uint64) is inserted; the
 * return value counts those already present.  The table is never filled
 * past three quarters: ValueError before the values that would, with
 * nothing inserted. */
static PyObject *
set_insert(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer tb, fl, in;
    PyObject *tb_obj, *fl_obj;
    if (!PyArg_ParseTuple(args, "OOy*", &tb_obj, &fl_obj, &in))
        return NULL;
    if (in.len % 8)
        return reject_parameters(&in, "values must be 64-bit words");
    if (get_int64_out_or_release(tb_obj, &tb, -1, "table", &in) < 0)
        return NULL;
    if (get_int64_out_or_release(fl_obj, &fl, 2, "fill", &in) < 0) {
        PyBuffer_Release(&tb);
        return NULL;
    }
    uint64_t *table = (uint64_t *)tb.buf;
    int64_t *fill = (int64_t *)fl.buf;
    uint64_t slots = (uint64_t)(tb.len / 8);
    Py_ssize_t n = in.len / 8;
    int fits = slots >= 8 && fill[0] >= 0 && (uint64_t)fill[0] + (uint64_t)n <= slots / 4 * 3;
    int64_t repeats = 0;
    Py_BEGIN_ALLOW_THREADS
    const uint8_t *p = (const uint8_t *)in.buf;
    for (Py_ssize_t i = 0; fits && i < n; i++) {
        uint64_t v;
        memcpy(&v, p + 8 * i, 8);
        if (v == 0) {
            repeats += fill[1];
            fill[0] += !fill[1];
            fill[1] = 1;
            continue;
        }
        /* (v * a) mod 2^64 scaled to [0, slots): the high word of its product with slots */
        uint64_t at;
        mul_64x64(v * 0x9E3779B97F4A7C15ull, slots, &at);
        while (table[at] != 0 && table[at] != v)
            at = at + 1 == slots ? 0 : at + 1;
        if (table[at] == v)
            repeats++;
        else {
            table[at] = v;
            fill[0]++;
        }
    }
    Py_END_ALLOW_THREADS
    RELEASE_BUFFERS(&tb, &fl, &in);
    if (!fits)
        return PyErr_Format(PyExc_ValueError, "the set would be more than three quarters full");
    return PyLong_FromLongLong(repeats);
}

#define MAX_REPEATS_WALKED 64
#define MAX_REPEAT_LAG 65536
/* words per block: the first pass over a block places its words and notes
 * which ones have an equal word within max_lag, the second walks only those */
#define REPEAT_BLOCK 2048
/* positions are kept as index + REPEAT_OFFSET, 0 for none: a word's
 * distance to none is then above any lag, with no test of its own.  A
 * multiple of every ring, so that offset positions index the ring alike. */
#define REPEAT_OFFSET ((uint32_t)1 << 17)

/* The words of one block at positions k0.. (offset): last[v] and the ring
 * are updated, and the j whose word has an equal one within `lag` words
 * are written to near[]; returns how many.  Branch-free: only 1 word in
 * 65536 / max_lag has one (32 at 2048), a branch per word mispredicted it,
 * and the random accesses of several words (unrolled) are in flight at once. */
static inline __attribute__((always_inline)) int
place_block(const uint8_t *RESTRICT w, int n, const int word_bytes, uint32_t k0, uint32_t lag,
            uint32_t *RESTRICT last, uint32_t *RESTRICT prev, uint32_t ring_mask, uint16_t *RESTRICT near)
{
    int kept = 0;
#pragma GCC unroll 8
    for (int j = 0; j < n; j++) {
        unsigned v = (unsigned)w[(size_t)j * word_bytes] | (unsigned)w[(size_t)j * word_bytes + 1] << 8;
        uint32_t k = k0 + (uint32_t)j, q = last[v];
        prev[k & ring_mask] = q;
        last[v] = k;
        near[kept] = (uint16_t)j;
        kept += k - q <= lag;
    }
    return kept;
}

/* ------------------------------------------------------------------------
 * lagged_repeat_scan(history, words, word_bytes, max_lag, cross_only, counts)
 *
 * Both buffers hold little-endian words of word_bytes (2, 4 or 8) bytes,
 * `words` continuing `history` (the stream's last words before it, at most
 * max_lag of them); x_i is the low 16 bits of word i.  For every pair
 * i < j, j in `words`, with x_i == x_j and d = j - i <= max_lag,
 * counts[d] += 1; with cross_only, only the pairs whose i lies in
 * `history` (the pairs a merge joins).  The earlier words equal to x_j are
 * reached through a chain: last[v] is the latest position of v, prev[] (a
 * ring of the last 2^k >= max_lag + 1 + REPEAT_BLOCK positions, so that a
 * block's first pass overwrites no entry its walks read) the one before
 * each.  A walk stops after MAX_REPEATS_WALKED: a word that equals that
 * many of its max_lag predecessors adds 1 to counts[0] instead (for random
 * words that is impossible in practice: Poisson(max_lag / 65536 <= 1) >= 64
 * has probability below 1e-88), so a constant stream cannot cost max_lag
 * steps per word; with cross_only, only where the stop falls in `history`,
 * the walks having reached it through the same words of `words` as the
 * part's own scan did.
 * ---------------------------------------------------------------------- */
static void
repeat_scan(const uint8_t *hp, int32_t h, const uint8_t *p, int32_t n, const int word_bytes, uint32_t lag,
            int cross_only, uint32_t *RESTRICT last, uint32_t *RESTRICT prev, uint32_t ring_mask,
            int64_t *RESTRICT counts)
{
    uint16_t near[REPEAT_BLOCK];
    const uint32_t history_end = REPEAT_OFFSET + (uint32_t)h;
    for (int v = 0; v < 65536; v++)
        last[v] = 0;
    for (int32_t k = 0; k < h; k++) { /* the history only places its words */
        const uint8_t *w = hp + (size_t)k * word_bytes;
        unsigned v = (unsigned)w[0] | (unsigned)w[1] << 8;
        prev[(REPEAT_OFFSET + (uint32_t)k) & ring_mask] = last[v];
        last[v] = REPEAT_OFFSET + (uint32_t)k;
    }
    for (int32_t b = 0; b < n; b += REPEAT_BLOCK) {
        int m = n - b < REPEAT_BLOCK ? (int)(n - b) : REPEAT_BLOCK;
        const uint8_t *w = p + (size_t)b * word_bytes;
        uint32_t k0 = history_end + (uint32_t)b;
        int kept = word_bytes == 2   ? place_block(w, m, 2, k0, lag, last, prev, ring_mask, near)
                   : word_bytes == 4 ? place_block(w, m, 4, k0, lag, last, prev, ring_mask, near)
                                     : place_block(w, m, 8, k0, lag, last, prev, ring_mask, near);
        for (int i = 0; i < kept; i++) {
            uint32_t k = k0 + near[i], q = prev[k & ring_mask];
            int walked = 0;
            do {
                if (++walked > MAX_REPEATS_WALKED) {
                    if (!cross_only || q < history_end)
                        counts[0]++;
                    break;
                }
                if (!cross_only || q < history_end)
                    counts[k - q]++;
                q = prev[q & ring_mask];
            } while (k - q <= lag);
        }
    }
}

static PyObject *
lagged_repeat_scan(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer hist, in, out;
    PyObject *out_obj;
    int word_bytes, cross_only;
    long long max_lag;
    if (!PyArg_ParseTuple(args, "y*y*iLpO", &hist, &in, &word_bytes, &max_lag, &cross_only, &out_obj))
        return NULL;
    if ((word_bytes != 2 && word_bytes != 4 && word_bytes != 8) || max_lag < 1 || max_lag > MAX_REPEAT_LAG ||
        hist.len % word_bytes || in.len % word_bytes || hist.len / word_bytes > max_lag ||
        in.len / word_bytes > INT32_MAX - MAX_REPEAT_LAG) {
        PyBuffer_Release(&hist);
        return reject_parameters(&in, "invalid lagged repeat scan parameters");
    }
    if (get_int64_out(out_obj, &out, max_lag + 1, "counts") < 0) {
        RELEASE_BUFFERS(&hist, &in);
        return NULL;
    }
    int32_t h = (int32_t)(hist.len / word_bytes), n = (int32_t)(in.len / word_bytes);
    uint32_t ring = 1;
    while (ring < (uint32_t)max_lag + 1 + REPEAT_BLOCK)
        ring <<= 1; /* at most REPEAT_OFFSET */
    uint32_t *last = malloc(65536 * sizeof(uint32_t));
    uint32_t *prev = malloc(ring * sizeof(uint32_t));
    if (!last || !prev) {
        free(last);
        free(prev);
        RELEASE_BUFFERS(&hist, &in, &out);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    repeat_scan((const uint8_t *)hist.buf, h, (const uint8_t *)in.buf, n, word_bytes, (uint32_t)max_lag, cross_only,
                last, prev, ring - 1, (int64_t *)out.buf);
    Py_END_ALLOW_THREADS
    free(last);
    free(prev);
    RELEASE_BUFFERS(&hist, &in, &out);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------
 * zero_repeat_scan(history, data, start_limit, offsets, lags, counts)
 *
 * B is `history` followed by `data` (positions from 0 at history's first
 * byte).  Its windows are [t + lo, t + hi] with lo = min(0, offsets) and
 * hi = max(offsets) + max(lags); the scan takes every t with B[t] == 0
 * whose window lies in B, ends in `data` (t + hi >= len(history)) and
 * starts before start_limit (t + lo < start_limit: a merge counts the
 * windows that start in the left part).  counts[0] += those t; for each
 * offset a (index i) and lag L (index j), cell c = i len(lags) + j, the
 * pair (u, v) = (t + a, t + a + L) adds 1 to counts[1 + 2c] when neither
 * byte is zero and, when also B[u] == B[v], 1 to counts[2 + 2c].
 * ---------------------------------------------------------------------- */
static inline uint8_t
joined_byte(const uint8_t *h, Py_ssize_t hlen, const uint8_t *d, long long p)
{
    return p < hlen ? h[p] : d[p - hlen];
}

static void
zero_repeat_cells(const uint8_t *h, Py_ssize_t hlen, const uint8_t *d, long long t, const int64_t *offsets,
                  Py_ssize_t noff, const int64_t *lags, Py_ssize_t nlags, int64_t *RESTRICT counts)
{
    counts[0]++;
    int64_t *cell = counts + 1;
    for (Py_ssize_t i = 0; i < noff; i++) {
        long long u = t + offsets[i];
        uint8_t x = joined_byte(h, hlen, d, u);
        if (!x) {
            cell += 2 * nlags;
            continue;
        }
        for (Py_ssize_t j = 0; j < nlags; j++, cell += 2) {
            uint8_t y = joined_byte(h, hlen, d, u + lags[j]);
            cell[0] += y != 0;
            cell[1] += y == x;
        }
    }
}

/* zero_repeat_cells for a window inside d: plain loads */
static void
zero_repeat_cells_inside(const uint8_t *d, long long t, const int64_t *offsets, Py_ssize_t noff, const int64_t *lags,
                         Py_ssize_t nlags, int64_t *RESTRICT counts)
{
    counts[0]++;
    int64_t *cell = counts + 1;
    for (Py_ssize_t i = 0; i < noff; i++, cell += 2 * nlags) {
        const uint8_t *u = d + t + offsets[i];
        const uint8_t x = *u;
        if (!x)
            continue;
        for (Py_ssize_t j = 0; j < nlags; j++) {
            const uint8_t y = u[lags[j]];
            cell[2 * j] += y != 0;
            cell[2 * j + 1] += y == x;
        }
    }
}

static PyObject *
zero_repeat_scan(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer hist, in, offv, lagv, out;
    PyObject *off_obj, *lag_obj, *out_obj;
    long long start_limit;
    if (!PyArg_ParseTuple(args, "y*y*LOOO", &hist, &in, &start_limit, &off_obj, &lag_obj, &out_obj))
        return NULL;
    if (get_int64_out(off_obj, &offv, -1, "offsets") < 0) {
        RELEASE_BUFFERS(&hist, &in);
        return NULL;
    }
    if (get_int64_out(lag_obj, &lagv, -1, "lags") < 0) {
        RELEASE_BUFFERS(&hist, &in, &offv);
        return NULL;
    }
    const int64_t *offsets = (const int64_t *)offv.buf, *lags = (const int64_t *)lagv.buf;
    Py_ssize_t noff = offv.len / 8, nlags = lagv.len / 8;
    long long lo = 0, max_offset = -256, max_lag = 0;
    const char *bad = NULL;
    for (Py_ssize_t i = 0; i < noff; i++) {
        if (offsets[i] == 0 || offsets[i] < -255 || offsets[i] > 255)
            bad = "offsets must be nonzero, from -255 to 255";
        lo = offsets[i] < lo ? offsets[i] : lo;
        max_offset = offsets[i] > max_offset ? offsets[i] : max_offset;
    }
    for (Py_ssize_t j = 0; j < nlags; j++) {
        if (lags[j] < 1 || lags[j] > (1 << 24))
            bad = "lags must be from 1 to 2^24";
        max_lag = lags[j] > max_lag ? lags[j] : max_lag;
    }
    long long hi = max_offset + max_lag;
    if (!bad && hist.len > hi - lo)
        bad = "history is longer than a window";
    if (bad) {
        RELEASE_BUFFERS(&hist, &in, &offv, &lagv);
        PyErr_SetString(PyExc_ValueError, bad);
        return NULL;
    }
    if (get_int64_out(out_obj, &out, 1 + 2 * noff * nlags, "counts") < 0) {
        RELEASE_BUFFERS(&hist, &in, &offv, &lagv);
        return NULL;
    }
    const uint8_t *h = (const uint8_t *)hist.buf, *d = (const uint8_t *)in.buf;
    Py_ssize_t hlen = hist.len, n = in.len;
    int64_t *counts = (int64_t *)out.buf;
    Py_BEGIN_ALLOW_THREADS
    long long t = -lo > hlen - hi ? -lo : hlen - hi;
    long long last = hlen + n - 1 - hi; /* inclusive */
    if (start_limit - 1 - lo < last)
        last = start_limit - 1 - lo;
    /* windows that start in history: every byte through joined_byte */
    for (; t <= last && t + lo < hlen; t++)
        if (joined_byte(h, hlen, d, t) == 0)
            zero_repeat_cells(h, hlen, d, t, offsets, noff, lags, nlags, counts);
    /* windows inside data: memchr finds the zeros */
    while (t <= last) {
        const uint8_t *z = memchr(d + (t - hlen), 0, (size_t)(last - t + 1));
        if (!z)
            break;
        t = hlen + (z - d);
        zero_repeat_cells_inside(d, t - hlen, offsets, noff, lags, nlags, counts);
        t++;
    }
    Py_END_ALLOW_THREADS
    RELEASE_BUFFERS(&hist, &in, &offv, &lagv, &out);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"byte_histogram", byte_histogram, METH_VARARGS, "Add byte-value counts of data into an int64[256] array."},
    {"word16_histogram", word16_histogram, METH_VARARGS, "Add little-endian 16-bit word counts into an int64[65536] array."},
    {"bit_counts", bit_counts, METH_VARARGS, "Return (ones, transitions) of the bits of data, MSB first."},
    {"lag_product_sum", lag_product_sum, METH_VARARGS, "Return sum of data[i]*data[i+lag] inside data."},
    {"byte_counts", byte_counts, METH_VARARGS,
     "Add the byte histogram into an int64[256] array; return (sum of x_i x_{i+1}, bit transitions across bytes)."},
    {"rc4_digraph_counts", rc4_digraph_counts, METH_VARARGS, "Count the pairs that can be Fluhrer-McGrew digraphs, by position mod 256."},
    {"gap_scan", gap_scan, METH_VARARGS, "Gap lengths between words in [lo, hi)."},
    {"digraph_scan", digraph_scan, METH_VARARGS, "Counts of overlapping byte pairs, optionally by position class."},
    {"bit_pattern_scan", bit_pattern_scan, METH_VARARGS, "Counts of overlapping m-bit patterns."},
    {"hamming_tuple_scan", hamming_tuple_scan, METH_VARARGS, "Counts of overlapping tuples of Hamming-weight letters."},
    {"set_insert", set_insert, METH_VARARGS, "Insert 64-bit values into an open-addressing set; return how many were there."},
    {"zero_gap_scan", zero_gap_scan, METH_VARARGS, "Distances of 16-bit words to the latest zero word, and whether their value occurred since."},
    {"lagged_repeat_scan", lagged_repeat_scan, METH_VARARGS, "Counts of words whose low 16 bits are equal, at each lag up to max_lag."},
    {"zero_repeat_scan", zero_repeat_scan, METH_VARARGS, "Counts of equal bytes at given offsets and lags around each zero byte."},
    {NULL, NULL, 0, NULL},
};

RANDQA_PREPARED_MODULE(_counts, "randqa.battery._counts",
                       "Counting kernels of the battery: histograms, bit counts, gaps, patterns, weight tuples.",
                       methods, fill_gaps_inside);
