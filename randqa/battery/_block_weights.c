/*
 * The kernel of bcfn: overlapping tuples of letters of block Hamming
 * weights, at several block sizes in one pass over the bytes.
 *
 * block_weight_tuples(data, base_block_bytes, groups, letter_bits, tables,
 *                     tuple_length, counts, state, heads)
 *
 * Level 0 reads the stream as blocks of base_block_bytes bytes; level L > 0
 * as blocks of groups[L] level-(L-1) blocks, whose Hamming weight is the
 * sum of theirs: the bytes are read once, whatever the number of levels,
 * and each level costs one addition per block of the level below.  At each
 * level a block's weight w becomes the letter tables_L[w] (tables holds the
 * levels' tables one after another, 8 * block_bytes_L + 1 entries each) of
 * letter_bits[L] bits; the latest tuple_length letters make an index (the
 * newest lowest), and each letter that completes a tuple adds 1 to
 * counts_L[index] (counts holds the levels' 2^(letter_bits[L] *
 * tuple_length) cells one after another).
 *
 * state (int64, 4 per level, carried across calls so that the counts do not
 * depend on how the stream is cut): the index of the latest letters, the
 * blocks the level has seen, and the weight and number of the level-(L-1)
 * blocks of its unfinished block.  heads (int64, tuple_length - 1 per
 * level) receives each level's first tuple_length - 1 letters, which the
 * words that wrap around the end of the stream (and a merge) need.
 */
#include "../_module.h"
#include "_buffers.h"
#include <stdint.h>
#include <stdlib.h>

#define MAX_LEVELS 24
#define MAX_TUPLE_LENGTH 16
#define MAX_INDEX_BITS 24
#define STATE_ITEMS 4
/* tables of at most this many steps become compares */
#define MAX_CUTS 15
/* tuples indexed at a time */
#define INDEX_RUN 1024
/* run counts (see level_tables) of at most 2^MAX_RUN_BITS cells, for levels
 * of at least RUN_USE blocks per cell */
#define MAX_STRIDE 4
#define MAX_RUN_BITS 16
#define RUN_USE 16
#define COUNT_CLONES RANDQA_CLONES("avx2", "default")
/* base blocks read per pass of the levels */
#define PIECE 8192
/* levels of fewer cells count into two tables */
#define SPARE_CELLS ((uint64_t)1 << 16)
#define WEIGHT_CLONES RANDQA_CLONES("avx2", "popcnt", "default")

typedef struct {
    int64_t index, blocks, carry_weight, carry_blocks;
} level_state;

typedef struct {
    const uint8_t *letter; /* letter of each weight */
    int letter_bits;
    uint64_t mask;
    int64_t *counts;
    int64_t *head;
    int64_t *spare; /* a second table of counts, added to counts at the end of the call */
    /* counts of the (tuple_length + stride - 1)-letter words at every
     * stride-th block, each stride tuples, folded into counts at the end of
     * the call: 1/stride of the increments, for levels with many more
     * blocks than these cells (stride 1: none) */
    uint32_t *runs;
    int stride;
    /* a table that steps up with the weight, as weight_letters' does, is
     * first_letter plus the number of cuts below the weight: compares that
     * vectorise, where a lookup per block does not (cut_count -1: looked up) */
    int cut_count;
    uint8_t first_letter;
    uint32_t cuts[MAX_CUTS];
} level_tables;

/* The number of set bits of x, in shifts, masks and adds that the compiler
 * vectorises (vector popcount instructions are rarer than AVX2). */
static inline uint32_t
bit_count32(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    x = x + (x >> 8);
    return (x + (x >> 16)) & 0x3fu;
}

/* Hamming weights of m blocks of block_bytes bytes each: a loop of its own,
 * which vectorises for blocks of 1, 2, 4 and 8 bytes. */
WEIGHT_CLONES static void
block_weights(const uint8_t *RESTRICT p, Py_ssize_t m, Py_ssize_t block_bytes, uint32_t *RESTRICT w)
{
    if (block_bytes == 1) {
        for (Py_ssize_t b = 0; b < m; b++)
            w[b] = bit_count32(p[b]);
    } else if (block_bytes == 2) {
        for (Py_ssize_t b = 0; b < m; b++) {
            uint16_t x;
            memcpy(&x, p + 2 * b, 2);
            w[b] = bit_count32(x);
        }
    } else if (block_bytes == 4) {
        for (Py_ssize_t b = 0; b < m; b++) {
            uint32_t x;
            memcpy(&x, p + 4 * b, 4);
            w[b] = bit_count32(x);
        }
    } else if (block_bytes == 8) {
        for (Py_ssize_t b = 0; b < m; b++) {
            uint32_t x[2];
            memcpy(x, p + 8 * b, 8);
            w[b] = bit_count32(x[0]) + bit_count32(x[1]);
        }
    } else {
        for (Py_ssize_t b = 0; b < m; b++)
            w[b] = bytes_weight(p + b * block_bytes, block_bytes);
    }
}

/* Blocks of 2 and 4 bytes (both bcfn chains' first level) with the vector
 * popcounts of AVX-512 (BITALG, VPOPCNTDQ) where the CPU has them: one
 * instruction per 32 or 16 blocks instead of the shifts and masks that
 * block_weights' loops vectorise into.  Returns the blocks done (a multiple
 * of 16 or 32; the caller does the rest), 0 without them. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(RANDQA_NO_CLONES)
#include <immintrin.h>

__attribute__((target("avx512f,avx512vpopcntdq"))) static Py_ssize_t
weights_of_words32(const uint8_t *RESTRICT p, Py_ssize_t m, uint32_t *RESTRICT w)
{
    Py_ssize_t b = 0;
    for (; b + 16 <= m; b += 16)
        _mm512_storeu_si512((void *)(w + b), _mm512_popcnt_epi32(_mm512_loadu_si512((const void *)(p + 4 * b))));
    return b;
}

__attribute__((target("avx512f,avx512bw,avx512bitalg"))) static Py_ssize_t
weights_of_words16(const uint8_t *RESTRICT p, Py_ssize_t m, uint32_t *RESTRICT w)
{
    Py_ssize_t b = 0;
    for (; b + 32 <= m; b += 32) {
        __m512i c = _mm512_popcnt_epi16(_mm512_loadu_si512((const void *)(p + 2 * b)));
        _mm512_storeu_si512((void *)(w + b), _mm512_cvtepu16_epi32(_mm512_castsi512_si256(c)));
        _mm512_storeu_si512((void *)(w + b + 16), _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(c, 1)));
    }
    return b;
}

static Py_ssize_t
vector_block_weights(const uint8_t *p, Py_ssize_t m, Py_ssize_t block_bytes, uint32_t *w)
{
    if (block_bytes == 4 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq"))
        return weights_of_words32(p, m, w);
    if (block_bytes == 2 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512bitalg"))
        return weights_of_words16(p, m, w);
    return 0;
}
#else
static Py_ssize_t
vector_block_weights(const uint8_t *Py_UNUSED(p), Py_ssize_t Py_UNUSED(m), Py_ssize_t Py_UNUSED(block_bytes),
                     uint32_t *Py_UNUSED(w))
{
    return 0;
}
#endif

/* count_tuples' counting for one-bit letters (bcfn's two letters), whose
 * tuples are windows of a bit string: the letters l[0..n) are packed 8 to a
 * byte by one multiplication (the oldest highest) into a word that holds
 * the latest of them, the newest lowest, and each tuple (or run word, see
 * level_tables) is a shift and a mask of it, instead of the passes over
 * arrays of the general case. */
static inline void
count_bit_tuples(level_state *s, const level_tables *lt, const uint8_t *RESTRICT l, Py_ssize_t n, int tuple_length,
                 int64_t *RESTRICT spare)
{
    int64_t *RESTRICT counts = lt->counts;
    const uint64_t mask = lt->mask;
    const int stride = lt->stride;
    /* the (tuple_length + stride - 1)-letter words at every stride-th letter */
    const uint64_t word_mask = ((uint64_t)1 << (tuple_length + stride - 1)) - 1;
    uint64_t window = (uint64_t)s->index;
    Py_ssize_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t x;
        memcpy(&x, l + k, 8);
        /* bytes of 0 or 1: byte i lands at bit 7 - i of the top byte, no two products overlap */
        window = (window << 8) | ((x * 0x8040201008040201ull) >> 56);
        if (stride > 1) {
            for (int j = stride - 1; j < 8; j += stride)
                lt->runs[(window >> (7 - j)) & word_mask]++;
        } else if (spare) {
            for (int j = 0; j < 8; j += 2) {
                counts[(window >> (7 - j)) & mask]++;
                spare[(window >> (6 - j)) & mask]++;
            }
        } else {
            for (int j = 0; j < 8; j++)
                counts[(window >> (7 - j)) & mask]++;
        }
    }
    for (; k < n; k++) {
        window = (window << 1) | l[k];
        counts[window & mask]++;
    }
    s->index = (int64_t)(window & mask);
}

/* One-bit letters of one cut (weights above `cut` are 1), 32 weights at a
 * time with AVX2: the compares packed to bytes, put in reverse order (the
 * oldest letter highest, as count_bit_tuples packs them) and taken by one
 * movemask, instead of the letters written out and packed by a
 * multiplication.  The tuples are counted as count_bit_tuples does, from the
 * same window.  Returns the weights done (a multiple of 32); the caller
 * counts the rest. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(RANDQA_NO_CLONES)
__attribute__((target("avx2"))) static Py_ssize_t
bit_tuples_avx2(level_state *s, const level_tables *lt, const uint32_t *RESTRICT w, Py_ssize_t n, int tuple_length,
                int64_t *RESTRICT spare)
{
    int64_t *RESTRICT counts = lt->counts;
    uint32_t *RESTRICT runs = lt->runs;
    const uint64_t mask = lt->mask;
    const int stride = lt->stride;
    const uint64_t word_mask = ((uint64_t)1 << (tuple_length + stride - 1)) - 1;
    const __m256i vcut = _mm256_set1_epi32((int)lt->cuts[0]);
    /* after the packs the dwords hold blocks 0-3, 8-11, 16-19, 24-27, 4-7, ...: the newest dword first, each reversed */
    const __m256i order = _mm256_setr_epi32(7, 3, 6, 2, 5, 1, 4, 0);
    const __m256i reverse = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5,
                                             4, 11, 10, 9, 8, 15, 14, 13, 12);
    uint64_t window = (uint64_t)s->index;
    Py_ssize_t k = 0;
    for (; k + 32 <= n; k += 32) {
        /* weights are at most 2^27 * 8, so the signed compare is exact */
        __m256i a = _mm256_cmpgt_epi32(_mm256_loadu_si256((const __m256i *)(w + k)), vcut);
        __m256i b = _mm256_cmpgt_epi32(_mm256_loadu_si256((const __m256i *)(w + k + 8)), vcut);
        __m256i c = _mm256_cmpgt_epi32(_mm256_loadu_si256((const __m256i *)(w + k + 16)), vcut);
        __m256i d = _mm256_cmpgt_epi32(_mm256_loadu_si256((const __m256i *)(w + k + 24)), vcut);
        __m256i bytes = _mm256_packs_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
        bytes = _mm256_shuffle_epi8(_mm256_permutevar8x32_epi32(bytes, order), reverse);
        window = (window << 32) | (uint32_t)_mm256_movemask_epi8(bytes);
        if (stride == 4) {
            for (int j = 3; j < 32; j += 4)
                runs[(window >> (31 - j)) & word_mask]++;
        } else if (stride > 1) {
            for (int j = stride - 1; j < 32; j += stride)
                runs[(window >> (31 - j)) & word_mask]++;
        } else if (spare) {
            for (int j = 0; j < 32; j += 2) {
                counts[(window >> (31 - j)) & mask]++;
                spare[(window >> (30 - j)) & mask]++;
            }
        } else {
            for (int j = 0; j < 32; j++)
                counts[(window >> (31 - j)) & mask]++;
        }
    }
    s->index = (int64_t)(window & mask);
    return k;
}

static int
have_avx2(void)
{
    return __builtin_cpu_supports("avx2");
}
#else
static Py_ssize_t
bit_tuples_avx2(level_state *Py_UNUSED(s), const level_tables *Py_UNUSED(lt), const uint32_t *Py_UNUSED(w),
                Py_ssize_t Py_UNUSED(n), int Py_UNUSED(tuple_length), int64_t *Py_UNUSED(spare))
{
    return 0;
}

static int
have_avx2(void)
{
    return 0;
}
#endif

/* Adds the tuples that end at each of the m weights w[] of one level;
 * letters has room for tuple_length - 1 + m.  The letters are made for the
 * whole run, then INDEX_RUN tuple indices at a time, each from its
 * tuple_length letters (loops over arrays, which vectorise, instead of one
 * chain of shifts through the latest index), and only the increments are
 * left one at a time; they alternate between counts and spare (when there
 * is one), so that a tuple repeated in neighbouring blocks does not wait
 * on its own previous increment. */
COUNT_CLONES static void
count_tuples(level_state *s, const level_tables *lt, const uint32_t *RESTRICT w, Py_ssize_t m, int tuple_length,
             int64_t *RESTRICT spare, uint8_t *RESTRICT letters)
{
    const int lb = lt->letter_bits;
    const uint8_t *RESTRICT lw = lt->letter;
    int64_t *RESTRICT counts = lt->counts;
    const uint64_t mask = lt->mask;
    Py_ssize_t i = 0;
    /* the first letters of the stream: kept as the head, and no tuple until tuple_length of them */
    for (; i < m && s->blocks < tuple_length; i++) {
        uint8_t letter = lw[w[i]];
        s->index = (int64_t)((((uint64_t)s->index << lb) | letter) & mask);
        if (s->blocks < tuple_length - 1)
            lt->head[s->blocks] = letter;
        if (++s->blocks >= tuple_length)
            counts[s->index]++;
    }
    Py_ssize_t n = m - i;
    if (n <= 0)
        return;
    if (lb == 1 && lt->cut_count == 1 && lt->first_letter == 0 && n >= 32 && have_avx2()) {
        Py_ssize_t done = bit_tuples_avx2(s, lt, w + i, n, tuple_length, spare);
        i += done;
        n -= done;
        if (n == 0)
            return;
    }
    /* the tuple_length - 1 letters before these, oldest first */
    const int h = tuple_length - 1;
    const uint64_t index = (uint64_t)s->index, letter_mask = ((uint64_t)1 << lb) - 1;
    for (int j = 0; j < h; j++)
        letters[j] = (uint8_t)((index >> ((h - 1 - j) * lb)) & letter_mask);
    uint8_t *RESTRICT l = letters + h;
    const uint32_t *RESTRICT wi = w + i;
    if (lt->cut_count >= 0) {
        const uint8_t first = lt->first_letter;
        for (Py_ssize_t k = 0; k < n; k++)
            l[k] = first;
        for (int c = 0; c < lt->cut_count; c++) {
            const uint32_t cut = lt->cuts[c];
            for (Py_ssize_t k = 0; k < n; k++)
                l[k] = (uint8_t)(l[k] + (wi[k] > cut));
        }
    } else {
        for (Py_ssize_t k = 0; k < n; k++)
            l[k] = lw[wi[k]];
    }
    if (lb == 1) {
        count_bit_tuples(s, lt, l, n, tuple_length, spare);
        return;
    }
    /* tuples of 1, 2, 4, 8 and 16 letters starting at each letter, each made
     * of two of half the length: tuple_length letters in a few passes,
     * whatever tuple_length is; v, the tuples, is the last row */
    uint32_t powers[6][INDEX_RUN + MAX_TUPLE_LENGTH];
    uint32_t *RESTRICT v = powers[5];
    for (Py_ssize_t b = 0; b < n; b += INDEX_RUN) {
        Py_ssize_t r = n - b < INDEX_RUN ? n - b : INDEX_RUN;
        const uint8_t *RESTRICT q = letters + b;
        Py_ssize_t span = r + h; /* letters from q[0] on */
        for (Py_ssize_t k = 0; k < span; k++)
            powers[0][k] = q[k];
        int top = 0;
        for (int p = 1; (1 << p) <= tuple_length; p++, top++) {
            int half = 1 << (p - 1);
            const uint32_t *RESTRICT lower = powers[p - 1];
            uint32_t *RESTRICT upper = powers[p];
            /* the tuples of 2^p letters that start at k = 0 .. span - 2^p */
            for (Py_ssize_t k = 0; k + (1 << p) <= span; k++)
                upper[k] = (lower[k] << (half * lb)) | lower[k + half];
        }
        /* tuple_length letters: the longest power first, then the others in decreasing order */
        int done = 1 << top;
        const uint32_t *RESTRICT longest = powers[top];
        int first = 1; /* v not written yet: the first pass reads longest */
        for (int p = top - 1; p >= 0; p--) {
            if (!((tuple_length >> p) & 1))
                continue;
            const uint32_t *RESTRICT part = powers[p] + done;
            const int shift = (1 << p) * lb;
            if (first)
                for (Py_ssize_t k = 0; k < r; k++)
                    v[k] = (longest[k] << shift) | part[k];
            else
                for (Py_ssize_t k = 0; k < r; k++)
                    v[k] = (v[k] << shift) | part[k];
            done += 1 << p;
            first = 0;
        }
        const uint32_t *RESTRICT tuples = first ? longest : v;
        Py_ssize_t k = 0;
        if (lt->stride > 1) {
            /* the tuple at k, then the newest stride - 1 letters of the one at k + stride - 1 */
            uint32_t *RESTRICT runs = lt->runs;
            const int stride = lt->stride, later = (stride - 1) * lb;
            const uint32_t later_mask = ((uint32_t)1 << later) - 1;
            for (; k + stride <= r; k += stride)
                runs[(tuples[k] << later) | (tuples[k + stride - 1] & later_mask)]++;
        } else if (spare) {
            for (; k + 2 <= r; k += 2) {
                counts[tuples[k]]++;
                spare[tuples[k + 1]]++;
            }
        }
        for (; k < r; k++)
            counts[tuples[k]]++;
        s->index = (int64_t)tuples[r - 1];
    }
}

/* The weights of the next level's blocks completed by the m weights w[],
 * written to out (room for m / group + 1); returns how many.  An unfinished
 * block is carried in s.  Out of place, so that the sums vectorise. */
COUNT_CLONES static Py_ssize_t
group_weights(level_state *s, int64_t group, const uint32_t *RESTRICT w, Py_ssize_t m, uint32_t *RESTRICT out)
{
    Py_ssize_t k = 0, i = 0;
    uint32_t carry = (uint32_t)s->carry_weight;
    int64_t have = s->carry_blocks;
    /* the unfinished block from the previous piece */
    for (; have && i < m; i++) {
        carry += w[i];
        if (++have == group) {
            out[k++] = carry;
            carry = 0;
            have = 0;
        }
    }
    Py_ssize_t whole = (m - i) / group;
    const uint32_t *RESTRICT q = w + i;
    uint32_t *RESTRICT o = out + k;
    if (group == 2) {
        for (Py_ssize_t j = 0; j < whole; j++)
            o[j] = q[2 * j] + q[2 * j + 1];
    } else if (group == 8) {
        for (Py_ssize_t j = 0; j < whole; j++)
            o[j] = q[8 * j] + q[8 * j + 1] + q[8 * j + 2] + q[8 * j + 3] + q[8 * j + 4] + q[8 * j + 5] +
                   q[8 * j + 6] + q[8 * j + 7];
    } else {
        for (Py_ssize_t j = 0; j < whole; j++) {
            uint32_t sum = 0;
            for (int64_t g = 0; g < group; g++)
                sum += q[j * group + g];
            o[j] = sum;
        }
    }
    k += whole;
    i += whole * group;
    for (; i < m; i++) {
        carry += w[i];
        have++;
    }
    s->carry_weight = carry;
    s->carry_blocks = have;
    return k;
}

/* Adds a level's run counts into its counts; 0 if out of memory.  A run
 * word's tuples are its oldest tuple_length letters, then each one later:
 * tuple j, the one `below` bits above the word's lowest, adds each word's
 * count to counts[its bits there].  So the counts are summed over their
 * lowest bits, letter by letter (cur), and at each step the words that
 * agree in their lowest tuple bits are added up in whole rows (loops that
 * vectorise, where adding each word into stride cells did not).  Every sum
 * is below the call's run words, so below 2^32. */
static int
fold_runs(const level_tables *lt, int tuple_length)
{
    const int lbits = lt->letter_bits, stride = lt->stride;
    const uint64_t cells = lt->mask + 1;
    uint64_t size = (uint64_t)1 << (lbits * (tuple_length + stride - 1));
    /* the sums over 1, 2, ... letters one after another, each 2^lbits times shorter */
    uint32_t *sums = malloc(size * sizeof *sums), *acc = malloc(cells * sizeof *acc);
    if (sums == NULL || acc == NULL) {
        free(sums);
        free(acc);
        return 0;
    }
    const uint32_t *cur = lt->runs;
    uint32_t *next = sums;
    int64_t *RESTRICT counts = lt->counts;
    for (int j = stride - 1;; j--) {
        /* cur[x]: the counts of the words whose bits above the lowest (stride - 1 - j) letters are x */
        for (uint64_t t = 0; t < cells; t++)
            acc[t] = cur[t];
        for (uint64_t row = cells; row < size; row += cells) {
            const uint32_t *RESTRICT r = cur + row;
            for (uint64_t t = 0; t < cells; t++)
                acc[t] += r[t];
        }
        for (uint64_t t = 0; t < cells; t++)
            counts[t] += acc[t];
        if (j == 0)
            break;
        size >>= lbits;
        if (lbits == 1) {
            for (uint64_t x = 0; x < size; x++)
                next[x] = cur[2 * x] + cur[2 * x + 1];
        } else {
            const uint64_t letters = (uint64_t)1 << lbits;
            for (uint64_t x = 0; x < size; x++) {
                uint32_t sum = 0;
                for (uint64_t lo = 0; lo < letters; lo++)
                    sum += cur[x * letters + lo];
                next[x] = sum;
            }
        }
        cur = next;
        next += size;
    }
    free(sums);
    free(acc);
    return 1;
}

static PyObject *
block_weight_tuples(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, grp, lbits, tab, out, st, hd;
    PyObject *groups_obj, *letter_bits_obj, *counts_obj, *state_obj, *heads_obj;
    Py_ssize_t base_block_bytes;
    int tuple_length;
    if (!PyArg_ParseTuple(args, "y*nOOy*iOOO", &in, &base_block_bytes, &groups_obj, &letter_bits_obj, &tab,
                          &tuple_length, &counts_obj, &state_obj, &heads_obj))
        return NULL;
    if (base_block_bytes < 1 || in.len % base_block_bytes || tuple_length < 2 || tuple_length > MAX_TUPLE_LENGTH) {
        PyBuffer_Release(&tab);
        return reject_parameters(&in, "data must be whole blocks of base_block_bytes >= 1 bytes and tuple_length 2 to 16");
    }
    if (get_int64_out(groups_obj, &grp, -1, "groups") < 0) {
        RELEASE_BUFFERS(&in, &tab);
        return NULL;
    }
    Py_ssize_t levels = grp.len / 8;
    if (get_int64_out(letter_bits_obj, &lbits, levels, "letter_bits") < 0) {
        RELEASE_BUFFERS(&in, &tab, &grp);
        return NULL;
    }
    const int64_t *groups = (const int64_t *)grp.buf, *lb = (const int64_t *)lbits.buf;
    /* the levels' block sizes, table offsets and count offsets */
    Py_ssize_t table_items = 0, cells_total = 0, block_bytes = base_block_bytes;
    int valid = levels >= 1 && levels <= MAX_LEVELS;
    for (Py_ssize_t L = 0; valid && L < levels; L++) {
        if (L > 0) {
            valid = groups[L] >= 2 && block_bytes <= ((Py_ssize_t)1 << 27) / groups[L];
            block_bytes *= valid ? groups[L] : 1;
        }
        valid = valid && lb[L] >= 1 && lb[L] <= 8 && lb[L] * tuple_length <= MAX_INDEX_BITS;
        if (valid) {
            table_items += 8 * block_bytes + 1;
            cells_total += (Py_ssize_t)1 << (lb[L] * tuple_length);
        }
    }
    if (!valid || tab.len != table_items) {
        RELEASE_BUFFERS(&in, &tab, &grp, &lbits);
        PyErr_SetString(PyExc_ValueError, "invalid levels: groups >= 2 after the first, 1 to 8 letter bits, "
                                          "tables of 8 * block_bytes + 1 letters each");
        return NULL;
    }
    if (get_int64_out(counts_obj, &out, cells_total, "counts") < 0) {
        RELEASE_BUFFERS(&in, &tab, &grp, &lbits);
        return NULL;
    }
    if (get_int64_out(state_obj, &st, STATE_ITEMS * levels, "state") < 0) {
        RELEASE_BUFFERS(&in, &tab, &grp, &lbits, &out);
        return NULL;
    }
    if (get_int64_out(heads_obj, &hd, (tuple_length - 1) * levels, "heads") < 0) {
        RELEASE_BUFFERS(&in, &tab, &grp, &lbits, &out, &st);
        return NULL;
    }
    level_state lv[MAX_LEVELS];
    level_tables lt[MAX_LEVELS];
    const int64_t *raw = (const int64_t *)st.buf;
    const uint8_t *table = (const uint8_t *)tab.buf;
    int64_t *counts = (int64_t *)out.buf;
    block_bytes = base_block_bytes;
    for (Py_ssize_t L = 0; L < levels; L++) {
        if (L > 0)
            block_bytes *= groups[L];
        lv[L].index = raw[STATE_ITEMS * L];
        lv[L].blocks = raw[STATE_ITEMS * L + 1];
        lv[L].carry_weight = raw[STATE_ITEMS * L + 2];
        lv[L].carry_blocks = raw[STATE_ITEMS * L + 3];
        lt[L].letter_bits = (int)lb[L];
        lt[L].mask = ((uint64_t)1 << (lb[L] * tuple_length)) - 1;
        lt[L].letter = table;
        lt[L].counts = counts;
        lt[L].head = (int64_t *)hd.buf + (tuple_length - 1) * L;
        for (Py_ssize_t k = 0; valid && k < 8 * block_bytes + 1; k++)
            valid = table[k] >> lb[L] == 0;
        lt[L].first_letter = table[0];
        lt[L].cut_count = 0;
        for (Py_ssize_t k = 1; valid && lt[L].cut_count >= 0 && k < 8 * block_bytes + 1; k++) {
            int step = table[k] - table[k - 1];
            if (step < 0 || lt[L].cut_count + step > MAX_CUTS)
                lt[L].cut_count = -1;
            else
                for (; step > 0; step--)
                    lt[L].cuts[lt[L].cut_count++] = (uint32_t)(k - 1); /* weights above k - 1 are past this cut */
        }
        table += 8 * block_bytes + 1;
        counts += (Py_ssize_t)1 << (lb[L] * tuple_length);
        valid = valid && lv[L].index >= 0 && (uint64_t)lv[L].index <= lt[L].mask && lv[L].blocks >= 0 &&
                lv[L].carry_blocks >= 0 && (L == 0 ? lv[L].carry_blocks == 0 : lv[L].carry_blocks < groups[L]) &&
                lv[L].carry_weight >= 0 && lv[L].carry_weight <= 8 * block_bytes;
    }
    if (!valid) {
        RELEASE_BUFFERS(&in, &tab, &grp, &lbits, &out, &st, &hd);
        PyErr_SetString(PyExc_ValueError, "invalid block weight tuple state, or a letter that does not fit its letter bits");
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    Py_ssize_t blocks = in.len / base_block_bytes;
    int ok = 1;
    Py_BEGIN_ALLOW_THREADS
    /* the weights of the level being counted and of the next, in turn */
    uint32_t *w = malloc(2 * PIECE * sizeof *w);
    uint8_t *letters = malloc(MAX_TUPLE_LENGTH + PIECE);
    /* run counts where a level has at least RUN_USE times their cells of
     * blocks in this call (fewer than 2^32, so that they cannot wrap): the
     * longest stride whose words fit in MAX_RUN_BITS */
    Py_ssize_t run_cells = 0, level_blocks = blocks;
    for (Py_ssize_t L = 0; L < levels; L++) {
        if (L > 0)
            level_blocks /= groups[L];
        lt[L].stride = 1;
        for (int stride = MAX_STRIDE; stride > 1 && lt[L].stride == 1; stride /= 2) {
            int bits = lt[L].letter_bits * (tuple_length + stride - 1);
            /* a run word's newest stride - 1 letters come from one tuple, so
             * it must hold them (2-letter tuples took 3 and lost one) */
            if (stride - 1 <= tuple_length && bits <= MAX_RUN_BITS && blocks < ((Py_ssize_t)1 << 32) && level_blocks >= RUN_USE * ((Py_ssize_t)1 << bits))
                lt[L].stride = stride;
        }
        run_cells += lt[L].stride > 1 ? (Py_ssize_t)1 << (lt[L].letter_bits * (tuple_length + lt[L].stride - 1)) : 0;
    }
    /* the levels' spare counts, for those of at most SPARE_CELLS cells that
     * count tuples one at a time (stride 1): the levels with run counts
     * never use theirs, which only cost their zeroing and the final adds */
    Py_ssize_t spare_cells = 0;
    int spared[MAX_LEVELS];
    for (Py_ssize_t L = 0; L < levels; L++) {
        spared[L] = lt[L].mask < SPARE_CELLS && lt[L].stride == 1;
        spare_cells += spared[L] ? (Py_ssize_t)lt[L].mask + 1 : 0;
    }
    int64_t *spare = calloc(spare_cells ? spare_cells : 1, sizeof *spare);
    if (w == NULL || letters == NULL || spare == NULL)
        ok = 0;
    for (Py_ssize_t L = 0, at = 0; L < levels; L++) {
        lt[L].spare = ok && spared[L] ? spare + at : NULL;
        at += spared[L] ? (Py_ssize_t)lt[L].mask + 1 : 0;
    }
    uint32_t *runs = run_cells ? calloc((size_t)run_cells, sizeof *runs) : NULL;
    if (run_cells && runs == NULL)
        ok = 0;
    for (Py_ssize_t L = 0, at = 0; L < levels; L++) {
        lt[L].runs = ok && lt[L].stride > 1 ? runs + at : NULL;
        if (lt[L].runs == NULL)
            lt[L].stride = 1;
        at += lt[L].stride > 1 ? (Py_ssize_t)1 << (lt[L].letter_bits * (tuple_length + lt[L].stride - 1)) : 0;
    }
    for (Py_ssize_t start = 0; ok && start < blocks; start += PIECE) {
        Py_ssize_t m = blocks - start < PIECE ? blocks - start : PIECE;
        uint32_t *weights = w, *next = w + PIECE;
        Py_ssize_t done = vector_block_weights(p + start * base_block_bytes, m, base_block_bytes, weights);
        block_weights(p + (start + done) * base_block_bytes, m - done, base_block_bytes, weights + done);
        for (Py_ssize_t L = 0; L < levels && m > 0; L++) {
            if (L > 0) {
                m = group_weights(&lv[L], groups[L], weights, m, next);
                uint32_t *t = weights;
                weights = next;
                next = t;
            }
            int64_t before = lv[L].blocks;
            count_tuples(&lv[L], &lt[L], weights, m, tuple_length, lt[L].spare, letters);
            lv[L].blocks = before + m; /* count_tuples counts only the first letters */
        }
    }
    for (Py_ssize_t L = 0; ok && L < levels; L++) {
        if (lt[L].stride > 1 && !fold_runs(&lt[L], tuple_length))
            ok = 0;
        if (lt[L].spare)
            for (uint64_t c = 0; c <= lt[L].mask; c++)
                lt[L].counts[c] += lt[L].spare[c];
    }
    free(w);
    free(letters);
    free(spare);
    free(runs);
    Py_END_ALLOW_THREADS
    int64_t *state = (int64_t *)st.buf;
    for (Py_ssize_t L = 0; L < levels; L++) {
        state[STATE_ITEMS * L] = lv[L].index;
        state[STATE_ITEMS * L + 1] = lv[L].blocks;
        state[STATE_ITEMS * L + 2] = lv[L].carry_weight;
        state[STATE_ITEMS * L + 3] = lv[L].carry_blocks;
    }
    RELEASE_BUFFERS(&in, &tab, &grp, &lbits, &out, &st, &hd);
    if (!ok)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"block_weight_tuples", block_weight_tuples, METH_VARARGS,
     "block_weight_tuples(data, base_block_bytes, groups, letter_bits, tables, tuple_length, counts, state, heads): "
     "counts of overlapping tuples of letters of block Hamming weights, each level's blocks made of groups[L] of the "
     "level below"},
    {NULL, NULL, 0, NULL},
};

RANDQA_MODULE(_block_weights, "randqa.battery._block_weights",
              "Overlapping tuples of block Hamming weights at several block sizes in one pass (bcfn)", methods);
