/*
 * The kernel of value_gaps: how far back each 16-bit word's value last
 * occurred.
 *
 * value_gap_scan(data, state, last_seen, first_seen, counts)
 *
 * data holds whole little-endian 16-bit words.  state (int64[3]): the
 * stream index of the next word, the index this part of the stream starts
 * at, and the first index whose word is counted (the warm-up before it).
 * For the word of value v at index n, D = n - last_seen[v] (last_seen: the
 * index of each value's latest occurrence in this part, -1 if none), and
 * counts[min(D, G)] += 1, G = len(counts) - 1, once n reaches the warm-up
 * end.  A value not seen in this part: in the part that starts the stream
 * it has never occurred (D > n, counted in counts[G]); in a later part the
 * part before it holds its last occurrence, so its index is kept in
 * first_seen[v] (-1: none) for the merge to count.
 */
#include "../_module.h"
#include "_buffers.h"
#include <stdint.h>
#include <stdlib.h>

/* Within a call the latest indices and the counts are 32-bit numbers: half
 * the cache lines of the int64 arrays, whose random accesses set the pace.
 * An index is kept as its offset from base = (the stretch's first index) -
 * 2^31, 0 for none; an occurrence more than 2^31 words back is kept as 1.
 * Both give a distance of at least 2^31 - 1 > G, so the first occurrence of
 * a value in the part that starts the stream needs no test of its own.  A
 * stretch has at most 2^30 words, and its 32-bit counts are added to the
 * caller's after it, so a call of any length counts exactly. */
#define STRETCH ((Py_ssize_t)1 << 30)
#define OFFSET_ZERO ((uint32_t)1 << 31)

/* The warm-up's words, which only update the latest indices; later_part:
 * whether this part starts after the stream's start */
static inline __attribute__((always_inline)) void
skip_words(const uint8_t *RESTRICT p, Py_ssize_t from, Py_ssize_t to, uint32_t at, int64_t base, const int later_part,
           uint32_t *RESTRICT rel, int64_t *RESTRICT first_index)
{
    for (Py_ssize_t i = from; i < to; i++, at++) {
        unsigned v = (unsigned)load_le(p + 2 * i, 2);
        uint32_t prior = rel[v];
        rel[v] = at;
        if (__builtin_expect(prior == 0, 0) && later_part)
            first_index[v] = base + at; /* its distance is counted at the merge */
    }
}

/* Counting min(D, cap) one word at a time costs a read-modify-write of
 * part[] per word, most of them (78% at G = 2^14) of the one cell cap, and
 * the latest indices' random accesses leave little room for it.  So the
 * words are taken in blocks: the block's distances are written out, those
 * below cap picked out (8 at a time with AVX2), only they are counted in
 * part[] and the rest in one register sum. */
#define BLOCK 2048

#if defined(__x86_64__) && defined(__GNUC__) && !defined(RANDQA_NO_CLONES)
#define HAVE_AVX2_PICK 1
#include <immintrin.h>

/* lane_order[m]: the lanes whose bit is set in m, lowest first, 3 bits each */
static uint32_t lane_order[256];

static void
prepare_lane_order(void)
{
    for (unsigned m = 0; m < 256; m++) {
        uint32_t order = 0;
        for (unsigned lane = 0, k = 0; lane < 8; lane++)
            if (m >> lane & 1)
                order |= lane << (3 * k++);
        lane_order[m] = order;
    }
}

/* Moves the distances below cap of dist[0..n) to its front, in order;
 * returns how many there are.  A store at k <= j covers at most the lanes
 * just loaded, so the compaction is in place. */
__attribute__((target("avx2"))) static int
pick_below_avx2(uint32_t *dist, int n, uint32_t cap)
{
    const __m256i shifts = _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21), seven = _mm256_set1_epi32(7);
    const __m256i top = _mm256_set1_epi32((int)(cap - 1));
    int k = 0, j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256i d = _mm256_loadu_si256((const __m256i *)(dist + j));
        /* d < cap, unsigned: AVX2 compares signed only */
        __m256i below = _mm256_cmpeq_epi32(_mm256_min_epu32(d, top), d);
        unsigned m = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(below));
        __m256i order = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)lane_order[m]), shifts), seven);
        _mm256_storeu_si256((__m256i *)(dist + k), _mm256_permutevar8x32_epi32(d, order));
        k += __builtin_popcount(m);
    }
    for (; j < n; j++) {
        dist[k] = dist[j];
        k += dist[j] < cap;
    }
    return k;
}
#else
static void
prepare_lane_order(void)
{
}
#endif

/* The words from..to, all past the warm-up: part[d] += 1 for each distance
 * d < cap, *far += the number of the others.  picked: whether
 * pick_below_avx2 selects the distances below cap; without it the loop
 * writes each distance at the end of those kept so far. */
static inline __attribute__((always_inline)) void
count_words(const uint8_t *RESTRICT p, Py_ssize_t from, Py_ssize_t to, uint32_t at, int64_t base,
            const int later_part, uint32_t cap, uint32_t *RESTRICT rel, int64_t *RESTRICT first_index,
            uint32_t *RESTRICT part, uint64_t *RESTRICT far, const int picked)
{
    uint32_t dist[BLOCK];
    for (Py_ssize_t b = from; b < to; b += BLOCK) {
        int n = to - b < BLOCK ? (int)(to - b) : BLOCK, kept = 0, waiting = 0;
        const uint8_t *q = p + 2 * b;
        /* unrolled, the random accesses of several words are in flight at
         * once: a tenth less time */
#pragma GCC unroll 4
        for (int j = 0; j < n; j++, at++) {
            unsigned v = (unsigned)load_le(q + 2 * j, 2);
            uint32_t prior = rel[v];
            rel[v] = at;
            if (__builtin_expect(prior == 0, 0) && later_part) {
                first_index[v] = base + at; /* counted at the merge; its d = at >= 2^31 is not kept */
                waiting++;
            }
            uint32_t d = at - prior;
            if (picked) {
                dist[j] = d;
            } else {
                dist[kept] = d;
                kept += d < cap;
            }
        }
#ifdef HAVE_AVX2_PICK
        if (picked)
            kept = pick_below_avx2(dist, n, cap);
#endif
        for (int j = 0; j < kept; j++)
            part[dist[j]]++;
        *far += (uint64_t)(n - kept - waiting);
    }
}

/* One stretch of words: the warm-up's words before counted_from, the
 * counted ones after.  Constant flags, so each case is a loop of its own. */
static void
scan_stretch(const uint8_t *RESTRICT p, Py_ssize_t from, Py_ssize_t counted_from, Py_ssize_t to, int64_t base,
             int later_part, uint32_t cap, uint32_t *RESTRICT rel, int64_t *RESTRICT first_index,
             uint32_t *RESTRICT part, uint64_t *RESTRICT far, int picked)
{
    uint32_t at = OFFSET_ZERO + (uint32_t)(counted_from - from);
    if (later_part)
        skip_words(p, from, counted_from, OFFSET_ZERO, base, 1, rel, first_index);
    else
        skip_words(p, from, counted_from, OFFSET_ZERO, base, 0, rel, first_index);
#ifdef HAVE_AVX2_PICK
    if (picked) {
        if (later_part)
            count_words(p, counted_from, to, at, base, 1, cap, rel, first_index, part, far, 1);
        else
            count_words(p, counted_from, to, at, base, 0, cap, rel, first_index, part, far, 1);
        return;
    }
#else
    (void)picked;
#endif
    if (later_part)
        count_words(p, counted_from, to, at, base, 1, cap, rel, first_index, part, far, 0);
    else
        count_words(p, counted_from, to, at, base, 0, cap, rel, first_index, part, far, 0);
}

/* The offsets of the latest indices from base, and back: plain loops over
 * all values, vectorised. */
RANDQA_CLONES("avx2", "default") static void
offsets_from(const int64_t *RESTRICT last, int64_t base, uint32_t *RESTRICT rel)
{
    for (int v = 0; v < 65536; v++) {
        int64_t offset = last[v] - base;
        rel[v] = last[v] < 0 ? 0 : offset >= 1 ? (uint32_t)offset : 1;
    }
}

RANDQA_CLONES("avx2", "default") static void
indices_from(const uint32_t *RESTRICT rel, int64_t base, int64_t *RESTRICT last)
{
    /* only the values that occurred in the stretch moved */
    for (int v = 0; v < 65536; v++)
        last[v] = rel[v] >= OFFSET_ZERO ? base + (int64_t)rel[v] : last[v];
}

/* whether every latest index is -1 or in [start, n) */
RANDQA_CLONES("avx2", "default") static int
latest_indices_valid(const int64_t *last, int64_t start, int64_t n)
{
    int bad = 0;
    for (int v = 0; v < 65536; v++)
        bad |= (last[v] != -1) & ((last[v] < start) | (last[v] >= n));
    return !bad;
}

static PyObject *
value_gap_scan(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, st, seen, first, out;
    PyObject *st_obj, *seen_obj, *first_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "y*OOOO", &in, &st_obj, &seen_obj, &first_obj, &out_obj))
        return NULL;
    if (in.len % 2)
        return reject_parameters(&in, "data must hold whole 16-bit words");
    if (get_int64_out_or_release(st_obj, &st, 3, "state", &in) < 0)
        return NULL;
    if (get_int64_out(seen_obj, &seen, 65536, "last_seen") < 0) {
        RELEASE_BUFFERS(&in, &st);
        return NULL;
    }
    if (get_int64_out(first_obj, &first, 65536, "first_seen") < 0) {
        RELEASE_BUFFERS(&in, &st, &seen);
        return NULL;
    }
    if (get_int64_out(out_obj, &out, -1, "counts") < 0) {
        RELEASE_BUFFERS(&in, &st, &seen, &first);
        return NULL;
    }
    int64_t *state = (int64_t *)st.buf;
    int64_t *last = (int64_t *)seen.buf, *first_index = (int64_t *)first.buf, *counts = (int64_t *)out.buf;
    int64_t cap = out.len / 8 - 1;
    int64_t n = state[0], start = state[1], warm = state[2];
    /* cap below 2^31: the distances of unseen and far values exceed it */
    if (!(cap >= 1 && cap < OFFSET_ZERO && n >= start && start >= 0 && warm >= 0 &&
          latest_indices_valid(last, start, n))) {
        RELEASE_BUFFERS(&in, &st, &seen, &first, &out);
        PyErr_SetString(PyExc_ValueError, "invalid value gap scan state");
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    Py_ssize_t words = in.len / 2;
    int ok = 1, picked = 0;
    uint64_t far = 0;
#ifdef HAVE_AVX2_PICK
    __builtin_cpu_init();
    picked = __builtin_cpu_supports("avx2");
#endif
    Py_BEGIN_ALLOW_THREADS
    uint32_t *part = calloc((size_t)cap, sizeof *part);
    uint32_t *rel = malloc(65536 * sizeof *rel);
    if (part == NULL || rel == NULL)
        ok = 0;
    for (Py_ssize_t from = 0; ok && from < words; from += STRETCH) {
        Py_ssize_t to = words - from < STRETCH ? words : from + STRETCH;
        int64_t base = n - OFFSET_ZERO;
        offsets_from(last, base, rel);
        /* the words before the warm-up's end only update the latest indices */
        Py_ssize_t counted_from = warm - n >= to - from ? to : warm > n ? from + (warm - n) : from;
        scan_stretch(p, from, counted_from, to, base, start != 0, (uint32_t)cap, rel, first_index, part, &far, picked);
        indices_from(rel, base, last);
        for (int64_t d = 0; d < cap; d++) {
            counts[d] += part[d];
            part[d] = 0;
        }
        n += to - from;
    }
    if (ok) {
        counts[cap] += (int64_t)far;
        state[0] = n;
    }
    free(part);
    free(rel);
    Py_END_ALLOW_THREADS
    RELEASE_BUFFERS(&in, &st, &seen, &first, &out);
    if (!ok)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"value_gap_scan", value_gap_scan, METH_VARARGS,
     "value_gap_scan(data, state, last_seen, first_seen, counts): histogram of the distances from each 16-bit word to "
     "its value's latest occurrence"},
    {NULL, NULL, 0, NULL},
};

RANDQA_PREPARED_MODULE(_value_gaps, "randqa.battery._value_gaps",
                       "How far back each 16-bit word's value last occurred (value_gaps)", module_methods,
                       prepare_lane_order);
