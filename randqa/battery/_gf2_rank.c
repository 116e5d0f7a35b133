/*
 * The rank over GF(2) of large square binary matrices whose rows are
 * consecutive bytes of the stream (binary_rank.py).
 *
 * A size x size matrix takes size^2 / 8 bytes; row r is bytes
 * [r size / 8, (r + 1) size / 8), read as little-endian 64-bit words.  Which
 * stream bit lands in which column is one fixed permutation for every row,
 * so it does not change the rank.
 *
 * Elimination goes by 64-column strips, after the "Method of Four
 * Russians" (M. Albrecht, G. Bard and W. Hart, ACM TOMS 37 (2010)): the
 * free rows are first reduced on the strip's one word alone, each recording
 * which of the strip's (up to 64) pivots it took (once the 64 pivots are
 * found, through tables of that linear map on each byte); then the pivot rows are
 * finished, and every other row adds the pivots it took to its words right
 * of the strip: from 256 free rows on, through tables of all 256 sums of
 * each group of 8 pivot rows (8 table rows added in one pass instead of
 * about 32 pivot rows), below that pivot by pivot.  No loop over words
 * tests a bit, and the work is about n^3 / 1024 word XORs.
 */
#include "../_module.h"
#include "_buffers.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* sides accepted: multiples of 64 from 64 to MAX_SIDE */
#define MAX_SIDE 16384

/* dst[0..len) ^= the sum of the pivot rows (piv[k]: pivot k's words from
 * the strip's right) whose bits t has: four words at a time held in
 * registers, so that a row taking many pivots is not stored and reloaded
 * after each; the last 1-3 words load only those (the rows of a 128-side
 * matrix have one word right of its first strip) */
static inline void
add_taken_rows(uint64_t *RESTRICT dst, uint64_t t, const uint64_t *const *piv, int len)
{
    int i = 0;
    for (; i + 4 <= len; i += 4) {
        uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (uint64_t u = t; u; u &= u - 1) {
            const uint64_t *src = piv[__builtin_ctzll(u)] + i;
            a0 ^= src[0];
            a1 ^= src[1];
            a2 ^= src[2];
            a3 ^= src[3];
        }
        dst[i] ^= a0;
        dst[i + 1] ^= a1;
        dst[i + 2] ^= a2;
        dst[i + 3] ^= a3;
    }
    int left = len - i;
    if (left == 1) {
        uint64_t a0 = 0;
        for (uint64_t u = t; u; u &= u - 1)
            a0 ^= piv[__builtin_ctzll(u)][i];
        dst[i] ^= a0;
    } else if (left > 1) {
        uint64_t a0 = 0, a1 = 0, a2 = 0;
        for (uint64_t u = t; u; u &= u - 1) {
            const uint64_t *src = piv[__builtin_ctzll(u)] + i;
            a0 ^= src[0];
            a1 ^= src[1];
            if (left == 3)
                a2 ^= src[2];
        }
        dst[i] ^= a0;
        dst[i + 1] ^= a1;
        if (left == 3)
            dst[i + 2] ^= a2;
    }
}

/* Free rows at least this many use the 8-pivot tables; fewer XOR pivots one by one */
#define TABLE_MIN_ROWS 256
/* Rows ahead that each pivot is cleared from while the strip's pivots are sought */
#define PIVOT_WINDOW 128
/* Rows left after the 64th pivot at least this many find what they take by byte tables */
#define TOOK_TABLE_MIN_ROWS 256

/* transposes the 64 x 64 bit matrix m (bit j of m[i] <-> bit i of m[j]) in
 * six rounds of swapping blocks of half the size */
static void
transpose64(uint64_t *m)
{
    uint64_t mask = 0x00000000FFFFFFFFull;
    for (int j = 32; j; j >>= 1, mask ^= mask << j)
        for (int k = 0; k < 64; k = (k + j + 1) & ~j) {
            uint64_t t = ((m[k] >> j) ^ m[k + j]) & mask;
            m[k] ^= t << j;
            m[k + j] ^= t;
        }
}

/* rows s in [from, to) whose strip word has bit b take pivot word x (took bit k_bit) */
static inline void
eliminate(uint64_t *RESTRICT strip, uint64_t *RESTRICT took, int from, int to, uint64_t x, int b, uint64_t k_bit)
{
    for (int s = from; s < to; s++) {
        uint64_t m = (uint64_t)0 - ((strip[s] >> b) & 1);
        strip[s] ^= x & m;
        took[s] |= k_bit & m;
    }
}

/* Rank of the n x n matrix held in `rows` (n row pointers, n / 64 words
 * each); destroys the rows and reorders the pointers.  `strip` and `took`
 * hold n words each, `table` 8 * 256 * (n / 64) words: scratch. */
RANDQA_CLONES("avx2", "default") static int
gf2_square_rank(uint64_t **rows, int n, uint64_t *strip, uint64_t *took, uint64_t *table)
{
    int words = n / 64, rank = 0;
    for (int w = 0; w < words && rank < n; w++) {
        int first = rank; /* rows first..n-1 are free: no pivot yet */
        for (int r = first; r < n; r++) {
            strip[r] = rows[r][w];
            took[r] = 0;
        }
        /* eliminate on the strip's word alone, recording in took[s] bit k
         * that row s took pivot k; a pivot's word is cleared from every free
         * row after it up to `end`, so each row reaching its turn is already
         * reduced.  The rows from `end` on wait: a random strip has its 64
         * pivots within about 66 rows, and then the rest are reduced at once
         * below; if not, the next rows are brought up to date and the search
         * goes on. */
        int pivots[64], npiv = 0, pivot_bit[64], r = first;
        uint64_t pivot_word[64];
        int end = n - first > PIVOT_WINDOW ? first + PIVOT_WINDOW : n;
        for (;;) {
            for (; r < end && npiv < 64; r++) {
                uint64_t x = strip[r];
                if (!x)
                    continue;
                int b = __builtin_ctzll(x);
                eliminate(strip, took, r + 1, end, x, b, (uint64_t)1 << npiv);
                pivot_bit[npiv] = b;
                pivot_word[npiv] = x;
                pivots[npiv++] = r;
            }
            if (npiv == 64 || end == n)
                break;
            int next = n - end > PIVOT_WINDOW ? end + PIVOT_WINDOW : n;
            for (int k = 0; k < npiv; k++)
                eliminate(strip, took, end, next, pivot_word[k], pivot_bit[k], (uint64_t)1 << k);
            end = next;
        }
        if (end < n && n - end >= TOOK_TABLE_MIN_ROWS) {
            /* 64 pivots: every later row reduces to 0, and the reduction is
             * linear, so what a row takes is the XOR over its set bits i of
             * what e_i takes, read from tables of all 256 values of each
             * byte (in `table`, free until the row tables below are built).
             * The 64 unit vectors are reduced at once, bit-sliced: bit i of
             * col[j] is bit j of what is left of e_i, bit i of of_bit[k]
             * whether e_i took pivot k (then transposed). */
            uint64_t col[64], of_bit[64];
            for (int j = 0; j < 64; j++)
                col[j] = (uint64_t)1 << j;
            for (int k = 0; k < 64; k++) {
                uint64_t taken = col[pivot_bit[k]];
                for (uint64_t u = pivot_word[k]; u; u &= u - 1)
                    col[__builtin_ctzll(u)] ^= taken;
                of_bit[k] = taken;
            }
            transpose64(of_bit);
            for (int j = 0; j < 8; j++) {
                uint64_t *tj = table + 256 * j;
                tj[0] = 0;
                for (int v = 1; v < 256; v++)
                    tj[v] = tj[v & (v - 1)] ^ of_bit[8 * j + __builtin_ctz(v)];
            }
            for (int s = end; s < n; s++) {
                uint64_t x = strip[s];
                took[s] = table[x & 255] ^ table[256 + ((x >> 8) & 255)] ^ table[512 + ((x >> 16) & 255)] ^
                          table[768 + ((x >> 24) & 255)] ^ table[1024 + ((x >> 32) & 255)] ^
                          table[1280 + ((x >> 40) & 255)] ^ table[1536 + ((x >> 48) & 255)] ^ table[1792 + (x >> 56)];
                strip[s] = 0;
            }
        } else if (end < n) {
            for (int k = 0; k < 64; k++)
                eliminate(strip, took, end, n, pivot_word[k], pivot_bit[k], (uint64_t)1 << k);
        }
        if (npiv == 0)
            continue;
        int rest = words - w - 1; /* words right of the strip */
        const uint64_t *piv[64]; /* each pivot row's words right of the strip */
        for (int k = 0; k < npiv; k++)
            piv[k] = rows[pivots[k]] + w + 1;
        /* pivot rows first, in order: pivot k took only pivots j < k */
        for (int k = 0; k < npiv; k++)
            add_taken_rows(rows[pivots[k]] + w + 1, took[pivots[k]], piv, rest);
        /* then every other free row after the first pivot (its strip word is 0) */
        int from = pivots[0] + 1;
        if (rest > 0 && n - from >= TABLE_MIN_ROWS) {
            /* groups of 8 pivots: all 256 sums of a group's rows, in Gray-code order */
            int groups = (npiv + 7) / 8;
            for (int g = 0; g < groups; g++) {
                uint64_t *tg = table + (size_t)g * 256 * rest;
                int in_group = npiv - 8 * g < 8 ? npiv - 8 * g : 8;
                memset(tg, 0, (size_t)rest * 8);
                for (int i = 1; i < (1 << in_group); i++) {
                    int flip = __builtin_ctz(i);
                    int gray = i ^ (i >> 1), prev = (i - 1) ^ ((i - 1) >> 1);
                    uint64_t *dst = tg + (size_t)gray * rest;
                    const uint64_t *src = tg + (size_t)prev * rest, *piv = rows[pivots[8 * g + flip]] + w + 1;
                    for (int j = 0; j < rest; j++)
                        dst[j] = src[j] ^ piv[j];
                }
            }
            /* each row adds its 8 table rows in one pass over its words;
             * entry 0 of a table is the zero row, which pads the groups */
            for (int r = from; r < n; r++) {
                uint64_t t = took[r];
                if (!t || strip[r])
                    continue; /* nothing taken, or a pivot (done above) */
                const uint64_t *p[8];
                for (int g = 0; g < 8; g++, t >>= 8)
                    p[g] = table + ((size_t)(g < groups ? g : 0) * 256 + (g < groups ? (t & 255) : 0)) * rest;
                uint64_t *dst = rows[r] + w + 1;
                for (int i = 0; i < rest; i++)
                    dst[i] ^= (p[0][i] ^ p[1][i]) ^ (p[2][i] ^ p[3][i]) ^ (p[4][i] ^ p[5][i]) ^ (p[6][i] ^ p[7][i]);
            }
        } else if (rest > 0) {
            for (int r = from; r < n; r++) {
                uint64_t t = took[r];
                if (!t || strip[r])
                    continue;
                add_taken_rows(rows[r] + w + 1, t, piv, rest);
            }
        }
        /* move the pivot rows up to positions rank.. (the order of the
         * others does not matter); pivots are increasing and pivots[k] >=
         * rank, so the row moved out of position rank is never a later pivot */
        for (int k = 0; k < npiv; k++) {
            uint64_t *tmp = rows[rank];
            rows[rank] = rows[pivots[k]];
            rows[pivots[k]] = tmp;
            rank++;
        }
    }
    return rank;
}

/* rank_deficiency_counts(data, size, stride, counts) -> matrices.
 * Ranks the size x size matrices that start at bytes 0, stride, 2 stride,
 * ... of data and end inside it (each size^2 / 8 bytes, stride at least
 * that), adding 1 to counts[size - rank] (counts: size + 1 int64). */
static PyObject *
rank_deficiency_counts(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, out;
    int size;
    long long stride;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "y*iLO", &in, &size, &stride, &out_obj))
        return NULL;
    long long block = (long long)size * size / 8;
    if (size < 64 || size > MAX_SIDE || size % 64)
        return reject_parameters(&in, "size must be a multiple of 64 from 64 to 16384");
    if (stride < block)
        return reject_parameters(&in, "stride must be at least size * size / 8 bytes");
    if (get_int64_out_or_release(out_obj, &out, size + 1, "counts", &in) < 0)
        return NULL;
    int words = size / 64;
    uint64_t *m = malloc((size_t)block);
    uint64_t **rows = malloc((size_t)size * sizeof(uint64_t *));
    uint64_t *scratch = malloc((size_t)2 * size * sizeof(uint64_t));
    uint64_t *table = malloc((size_t)8 * 256 * words * sizeof(uint64_t));
    if (!m || !rows || !scratch || !table) {
        free(m);
        free(rows);
        free(scratch);
        free(table);
        RELEASE_BUFFERS(&in, &out);
        return PyErr_NoMemory();
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    int64_t *counts = (int64_t *)out.buf;
    long long matrices = 0;
    Py_BEGIN_ALLOW_THREADS
    for (long long at = 0; at + block <= (long long)in.len; at += stride) {
        memcpy(m, p + at, (size_t)block);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        for (long long i = 0; i < block / 8; i++)
            m[i] = __builtin_bswap64(m[i]);
#endif
        for (int r = 0; r < size; r++)
            rows[r] = m + (size_t)r * words;
        counts[size - gf2_square_rank(rows, size, scratch, scratch + size, table)]++;
        matrices++;
    }
    Py_END_ALLOW_THREADS
    free(m);
    free(rows);
    free(scratch);
    free(table);
    RELEASE_BUFFERS(&in, &out);
    return PyLong_FromLongLong(matrices);
}

static PyMethodDef methods[] = {
    {"rank_deficiency_counts", rank_deficiency_counts, METH_VARARGS,
     "rank_deficiency_counts(data, size, stride, counts) -> matrices; counts[size - rank] += 1"},
    {NULL, NULL, 0, NULL},
};

RANDQA_MODULE(_gf2_rank, "randqa.battery._gf2_rank",
              "GF(2) rank of large square binary matrices read from the stream.",
              methods);
