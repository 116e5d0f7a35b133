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
 * which of the strip's (up to 64) pivots it took; then the pivot rows are
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

/* dst[0..len) ^= the sum of the rows of the pivots whose bits t has, each
 * from word `at`: four words at a time held in registers, so that a row
 * taking many pivots is not stored and reloaded after each (the rows may
 * be read up to 3 words past their end: the matrix buffer is padded) */
static inline void
add_taken_rows(uint64_t *RESTRICT dst, uint64_t t, uint64_t *const *rows, const int *pivots, int at, int len)
{
    for (int i = 0; i < len; i += 4) {
        uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (uint64_t u = t; u; u &= u - 1) {
            const uint64_t *src = rows[pivots[__builtin_ctzll(u)]] + at + i;
            a0 ^= src[0];
            a1 ^= src[1];
            a2 ^= src[2];
            a3 ^= src[3];
        }
        dst[i] ^= a0;
        if (i + 1 < len)
            dst[i + 1] ^= a1;
        if (i + 2 < len)
            dst[i + 2] ^= a2;
        if (i + 3 < len)
            dst[i + 3] ^= a3;
    }
}

/* Free rows at least this many use the 8-pivot tables; fewer XOR pivots one by one */
#define TABLE_MIN_ROWS 256

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
         * row after it, so each row reaching its turn is already reduced */
        int pivots[64], npiv = 0;
        for (int r = first; r < n && npiv < 64; r++) {
            uint64_t x = strip[r];
            if (!x)
                continue;
            int b = __builtin_ctzll(x);
            uint64_t k_bit = (uint64_t)1 << npiv;
            for (int s = r + 1; s < n; s++) {
                uint64_t m = (uint64_t)0 - ((strip[s] >> b) & 1);
                strip[s] ^= x & m;
                took[s] |= k_bit & m;
            }
            pivots[npiv++] = r;
        }
        if (npiv == 0)
            continue;
        int rest = words - w - 1; /* words right of the strip */
        /* pivot rows first, in order: pivot k took only pivots j < k */
        for (int k = 0; k < npiv; k++)
            add_taken_rows(rows[pivots[k]] + w + 1, took[pivots[k]], rows, pivots, w + 1, rest);
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
                add_taken_rows(rows[r] + w + 1, t, rows, pivots, w + 1, rest);
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
    uint64_t *m = malloc((size_t)block + 4 * sizeof(uint64_t)); /* add_taken_rows reads past a row */
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
    memset((uint8_t *)m + block, 0, 4 * sizeof(uint64_t));
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
