/*
 * The counting pass of the Hamming-weight dependency test
 * (randqa/battery/hamming_dependency.py has the method and its sources).
 *
 * hamming_dependency_scan(data, word_bytes, low, high, state, head, counts, sums):
 * data holds whole little-endian words of word_bytes (4 or 8) bytes.  Each
 * word's Hamming weight h becomes a trit, (h >= low) + (h >= high); the
 * signature is the base-3 number of the last `dim` trits, the most recent
 * the most significant digit (dim from the length of head, counts of
 * 3^dim items).  Once `dim` words precede it, a word adds 1 to
 * counts[signature] and h - 4 word_bytes to sums[signature]; the first
 * `dim` words of the stream the caller feeds only fill head with their
 * weights, so that a part of a stream can be merged behind the part before
 * it (the caller replays head there).  state = [signature, words seen] is
 * carried from call to call.
 */
#include "../_module.h"
#include "_buffers.h"

/* Words are taken BLOCK at a time, in loops that vectorise: their weights
 * and trits; then the signatures, each a sum over the dim trits before its
 * word (the signature of the previous word divided by 3 would chain a
 * multiplication through every word), by doubling: the values of runs of
 * 1, 2, 4, ... trits, those of the set bits of dim added up; then the
 * counting. */
#define BLOCK 1024
#define MAX_DIM 19

/* A word's count and weight share one 64-bit cell, 2^32 counts + the sum
 * of weights (one random access instead of two), in a table of the call's
 * own, added into counts and sums once PACKED_STRETCH words have come (so
 * both stay below 2^32); used when the call has at least
 * PACKED_WORDS_PER_CELL words per cell to pay for clearing and adding up
 * the table. */
#define PACKED_STRETCH ((Py_ssize_t)1 << 25)
#define PACKED_WORDS_PER_CELL 4

/* the first words of the stream, whose weights go to head, and any word
 * while fewer than dim precede it: one at a time */
static void
scan_head(const uint8_t *p, Py_ssize_t words, int word_bytes, int low, int high, int64_t *state, int64_t *head,
          int64_t dim, int64_t *counts, int64_t *sums, int64_t top)
{
    int64_t sig = state[0], seen = state[1];
    const int64_t half = 4 * word_bytes;
    for (Py_ssize_t i = 0; i < words; i++, seen++) {
        int h = word_bytes == 8 ? __builtin_popcountll(load_le(p + 8 * i, 8))
                                : __builtin_popcount((uint32_t)load_le(p + 4 * i, 4));
        if (seen >= dim) {
            counts[sig]++;
            sums[sig] += h - half;
        } else {
            head[seen] = h;
        }
        sig = sig / 3 + ((h >= low) + (h >= high)) * top;
    }
    state[0] = sig;
    state[1] = seen;
}

/* the weights of n words and their trits, bits counted by halves so that
 * the loop vectorises (GCC would make the textbook form one popcount per
 * word) */
static inline __attribute__((always_inline)) void
weights_of(const uint8_t *RESTRICT p, int n, int word_bytes, int low, int high, uint8_t *RESTRICT weight,
           uint8_t *RESTRICT trit)
{
    if (word_bytes == 4)
        for (int j = 0; j < n; j++) {
            uint32_t x = (uint32_t)load_le(p + 4 * j, 4);
            x = (x & 0x55555555u) + ((x >> 1) & 0x55555555u);
            x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
            x = (x & 0x0F0F0F0Fu) + ((x >> 4) & 0x0F0F0F0Fu);
            x = (x & 0x00FF00FFu) + ((x >> 8) & 0x00FF00FFu);
            int h = (int)((x & 0xFFFFu) + (x >> 16));
            weight[j] = (uint8_t)h;
            trit[j] = (uint8_t)((h >= low) + (h >= high));
        }
    else
        for (int j = 0; j < n; j++) {
            uint64_t x = load_le(p + 8 * j, 8);
            x = (x & 0x5555555555555555u) + ((x >> 1) & 0x5555555555555555u);
            x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
            x = (x & 0x0F0F0F0F0F0F0F0Fu) + ((x >> 4) & 0x0F0F0F0F0F0F0F0Fu);
            x = (x & 0x00FF00FF00FF00FFu) + ((x >> 8) & 0x00FF00FF00FF00FFu);
            x = (x & 0x0000FFFF0000FFFFu) + ((x >> 16) & 0x0000FFFF0000FFFFu);
            int h = (int)((x & 0xFFFFFFFFu) + (x >> 32));
            weight[j] = (uint8_t)h;
            trit[j] = (uint8_t)((h >= low) + (h >= high));
        }
}

/* The steps of the doubling, each in a function of its own so that the
 * compiler knows the arrays apart and vectorises the loops (with the run
 * pointers swapped inside one loop it kept them scalar). */
static inline __attribute__((always_inline)) void
pairs_of(const uint8_t *RESTRICT trit, int n, uint32_t *RESTRICT out)
{
    for (int j = 0; j < n; j++)
        out[j] = trit[j] + 3u * trit[j + 1];
}

static inline __attribute__((always_inline)) void
combine(const uint32_t *RESTRICT lo, const uint32_t *RESTRICT hi, uint32_t power, int n, uint32_t *RESTRICT out)
{
    for (int j = 0; j < n; j++)
        out[j] = lo[j] + power * hi[j];
}

static inline __attribute__((always_inline)) void
accumulate(uint32_t *RESTRICT sig, const uint32_t *RESTRICT run, uint32_t power, int n)
{
    for (int j = 0; j < n; j++)
        sig[j] += power * run[j];
}

/* the signatures sum over m < dim of trit[j + m] 3^m for j < n (trit holds
 * n + dim - 1): the values of runs of 1, 2, 4, ... trits, those of the set
 * bits of dim added up; in run, spare or sig, whichever it returns */
static inline __attribute__((always_inline)) const uint32_t *
signatures_of(const uint8_t *RESTRICT trit, int n, int dim, uint32_t *RESTRICT run, uint32_t *RESTRICT spare,
              uint32_t *RESTRICT sig)
{
    int started = dim & 1, done = dim & 1;
    uint32_t done_power = started ? 3 : 1; /* 3^done */
    if (started)
        for (int j = 0; j < n; j++)
            sig[j] = trit[j];
    if (dim == 1)
        return sig;
    /* run[j], j < valid: the value of the `length` trits from j */
    int valid = n + dim - 2, length = 2;
    uint32_t power = 9; /* 3^length */
    pairs_of(trit, valid, run);
    for (int bits = dim >> 1;;) {
        if (bits & 1) { /* the run after the `done` trits already in sig */
            if (!started) {
                if (bits == 1) /* dim a power of 2: the run is the signature */
                    return run;
                for (int j = 0; j < n; j++)
                    sig[j] = run[j];
                started = 1;
            } else {
                accumulate(sig, run + done, done_power, n);
            }
            done += length;
            done_power *= power;
        }
        bits >>= 1;
        if (!bits)
            return sig;
        valid -= length;
        combine(run, run + length, power, valid, spare);
        uint32_t *swap = run;
        run = spare;
        spare = swap;
        length *= 2;
        power *= power;
    }
}

/* With AVX-512's vector bit count (VPOPCNTDQ) the plain popcount loop
 * vectorises; target_clones cannot pick that extension in GCC 12, so the
 * caller asks the CPU (__builtin_cpu_supports) and calls this version. */
#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__)) && \
    !defined(RANDQA_NO_CLONES)
#define VECTOR_POPCOUNT 1
__attribute__((target("avx512f,avx512vl,avx512bw,avx512vpopcntdq"))) static void
weights_by_vpopcnt(const uint8_t *RESTRICT p, int n, int word_bytes, int low, int high, uint8_t *RESTRICT weight,
                   uint8_t *RESTRICT trit)
{
    if (word_bytes == 4)
        for (int j = 0; j < n; j++) {
            int h = __builtin_popcount((uint32_t)load_le(p + 4 * j, 4));
            weight[j] = (uint8_t)h;
            trit[j] = (uint8_t)((h >= low) + (h >= high));
        }
    else
        for (int j = 0; j < n; j++) {
            int h = __builtin_popcountll(load_le(p + 8 * j, 8));
            weight[j] = (uint8_t)h;
            trit[j] = (uint8_t)((h >= low) + (h >= high));
        }
}
#endif

RANDQA_CLONES("avx2", "default") static void
scan_blocks(const uint8_t *RESTRICT p, Py_ssize_t words, int word_bytes, int low, int high, int64_t *RESTRICT state,
            int dim, int64_t *RESTRICT counts, int64_t *RESTRICT sums, uint64_t *RESTRICT packed, int vector_popcount)
{
    /* trit[m], m < dim: the trits of the dim words before the block, oldest
     * first, so that the signature of the block's word j is
     * sum over m of trit[j + m] 3^m */
    uint8_t trit[MAX_DIM + BLOCK], weight[BLOCK];
    uint32_t run[MAX_DIM + BLOCK], spare[MAX_DIM + BLOCK], signature[BLOCK];
    uint32_t s = (uint32_t)state[0], cells = 1;
    for (int m = 0; m < dim; m++) {
        trit[m] = (uint8_t)(s % 3);
        s /= 3;
        cells *= 3;
    }
    const int half = 4 * word_bytes;
    Py_ssize_t stretch_end = 0;
#ifndef VECTOR_POPCOUNT
    (void)vector_popcount; /* only builds with the AVX-512 path read it */
#endif
    for (Py_ssize_t from = 0; from < words; from += BLOCK) {
        int n = words - from < BLOCK ? (int)(words - from) : BLOCK;
#ifdef VECTOR_POPCOUNT
        if (vector_popcount)
            weights_by_vpopcnt(p + from * word_bytes, n, word_bytes, low, high, weight, trit + dim);
        else
#endif
            weights_of(p + from * word_bytes, n, word_bytes, low, high, weight, trit + dim);
        const uint32_t *sig = signatures_of(trit, n, dim, run, spare, signature);
        if (packed) {
            for (int j = 0; j < n; j++)
                packed[sig[j]] += ((uint64_t)1 << 32) + weight[j];
            if (from + n >= stretch_end + PACKED_STRETCH || from + n == words) {
                for (uint32_t c = 0; c < cells; c++) {
                    int64_t count = (int64_t)(packed[c] >> 32);
                    counts[c] += count;
                    sums[c] += (int64_t)(packed[c] & 0xFFFFFFFFu) - half * count;
                    packed[c] = 0;
                }
                stretch_end = from + n;
            }
        } else {
            for (int j = 0; j < n; j++) {
                counts[sig[j]]++;
                sums[sig[j]] += weight[j] - half;
            }
        }
        memmove(trit, trit + n, (size_t)dim);
    }
    uint32_t last = 0;
    for (int m = dim - 1; m >= 0; m--)
        last = 3 * last + trit[m];
    state[0] = last;
    state[1] += words;
}

static PyObject *
hamming_dependency_scan(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, st, hd, cn, sm;
    PyObject *st_obj, *hd_obj, *cn_obj, *sm_obj;
    int word_bytes, low, high;
    if (!PyArg_ParseTuple(args, "y*iiiOOOO", &in, &word_bytes, &low, &high, &st_obj, &hd_obj, &cn_obj, &sm_obj))
        return NULL;
    if (word_bytes != 4 && word_bytes != 8)
        return reject_parameters(&in, "word_bytes must be 4 or 8");
    if (in.len % word_bytes)
        return reject_parameters(&in, "data must hold whole words");
    if (!(0 < low && low < high && high <= 8 * word_bytes))
        return reject_parameters(&in, "the trit bounds need 0 < low < high <= word bits");
    if (get_int64_out_or_release(st_obj, &st, 2, "state", &in) < 0)
        return NULL;
    if (get_int64_out_or_release(hd_obj, &hd, -1, "head", &in) < 0) {
        PyBuffer_Release(&st);
        return NULL;
    }
    int64_t dim = hd.len / 8;
    if (dim > MAX_DIM) {
        RELEASE_BUFFERS(&st, &hd);
        return reject_parameters(&in, "head must have 1 to 19 items (the signature length)");
    }
    int64_t cells = 1;
    for (int64_t d = 0; d < dim; d++)
        cells *= 3;
    if (get_int64_out_or_release(cn_obj, &cn, cells, "counts (3^len(head) items)", &in) < 0) {
        RELEASE_BUFFERS(&st, &hd);
        return NULL;
    }
    if (get_int64_out_or_release(sm_obj, &sm, cells, "sums (3^len(head) items)", &in) < 0) {
        RELEASE_BUFFERS(&st, &hd, &cn);
        return NULL;
    }
    int64_t *state = (int64_t *)st.buf;
    if (state[0] < 0 || state[0] >= cells || state[1] < 0) {
        RELEASE_BUFFERS(&st, &hd, &cn, &sm);
        return reject_parameters(&in, "state must be [signature in [0, 3^dim), words seen >= 0]");
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    Py_ssize_t words = in.len / word_bytes;
    Py_ssize_t first = state[1] < dim ? (words < dim - state[1] ? words : (Py_ssize_t)(dim - state[1])) : 0;
    int ok = 1, vector_popcount = 0;
#ifdef VECTOR_POPCOUNT
    __builtin_cpu_init();
    vector_popcount = __builtin_cpu_supports("avx512vpopcntdq") && __builtin_cpu_supports("avx512vl") &&
                      __builtin_cpu_supports("avx512bw");
#endif
    Py_BEGIN_ALLOW_THREADS
    scan_head(p, first, word_bytes, low, high, state, (int64_t *)hd.buf, dim, (int64_t *)cn.buf, (int64_t *)sm.buf,
              cells / 3);
    uint64_t *packed = NULL;
    if ((words - first) / PACKED_WORDS_PER_CELL >= cells && (packed = calloc((size_t)cells, sizeof *packed)) == NULL)
        ok = 0;
    if (ok)
        scan_blocks(p + first * word_bytes, words - first, word_bytes, low, high, state, (int)dim, (int64_t *)cn.buf,
                    (int64_t *)sm.buf, packed, vector_popcount);
    free(packed);
    Py_END_ALLOW_THREADS
    RELEASE_BUFFERS(&in, &st, &hd, &cn, &sm);
    if (!ok)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

RANDQA_FUNCTION_MODULE(_hamming_dependency, "randqa.battery._hamming_dependency",
                       "The counting pass of the Hamming-weight dependency test.", hamming_dependency_scan,
                       "Count words and sum their centred Hamming weights by the signature of the trits before them.");
