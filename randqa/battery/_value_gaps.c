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
 * stretch has fewer than 2^30 words and a call counts fewer than 2^32. */
#define STRETCH ((Py_ssize_t)1 << 30)
#define OFFSET_ZERO ((uint32_t)1 << 31)

/* counted: whether the words from..to are past the warm-up; later_part:
 * whether this part starts after the stream's start */
static inline __attribute__((always_inline)) void
scan_words(const uint8_t *RESTRICT p, Py_ssize_t from, Py_ssize_t to, uint32_t at, int64_t base, const int later_part,
           uint32_t cap, uint32_t *RESTRICT rel, int64_t *RESTRICT first_index, uint32_t *RESTRICT part,
           const int counted)
{
    for (Py_ssize_t i = from; i < to; i++, at++) {
        unsigned v = (unsigned)load_le(p + 2 * i, 2);
        uint32_t prior = rel[v];
        rel[v] = at;
        if (__builtin_expect(prior == 0, 0) && later_part) {
            first_index[v] = base + at; /* its distance is counted at the merge */
            continue;
        }
        uint32_t d = at - prior;
        /* min(d, cap) by a mask: GCC may make a branch of ?:, which would
         * mispredict on a fifth of the words */
        uint32_t below = -(uint32_t)(d < cap);
        if (counted)
            part[cap ^ ((d ^ cap) & below)]++;
    }
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
    int ok = 1;
    Py_BEGIN_ALLOW_THREADS
    uint32_t *part = calloc((size_t)cap + 1, sizeof *part);
    uint32_t *rel = malloc(65536 * sizeof *rel);
    if (part == NULL || rel == NULL)
        ok = 0;
    for (Py_ssize_t from = 0; ok && from < words; from += STRETCH) {
        Py_ssize_t to = words - from < STRETCH ? words : from + STRETCH;
        int64_t base = n - OFFSET_ZERO;
        offsets_from(last, base, rel);
        /* the words before the warm-up's end only update the latest indices */
        Py_ssize_t counted_from = warm - n >= to - from ? to : warm > n ? from + (warm - n) : from;
        uint32_t at = OFFSET_ZERO + (uint32_t)(counted_from - from);
        if (start == 0) { /* constant flags: a loop of its own for each case */
            scan_words(p, from, counted_from, OFFSET_ZERO, base, 0, (uint32_t)cap, rel, first_index, part, 0);
            scan_words(p, counted_from, to, at, base, 0, (uint32_t)cap, rel, first_index, part, 1);
        } else {
            scan_words(p, from, counted_from, OFFSET_ZERO, base, 1, (uint32_t)cap, rel, first_index, part, 0);
            scan_words(p, counted_from, to, at, base, 1, (uint32_t)cap, rel, first_index, part, 1);
        }
        indices_from(rel, base, last);
        n += to - from;
    }
    if (ok) {
        for (int64_t d = 0; d <= cap; d++)
            counts[d] += part[d];
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

RANDQA_FUNCTION_MODULE(_value_gaps, "randqa.battery._value_gaps",
                       "How far back each 16-bit word's value last occurred (value_gaps)", value_gap_scan,
                       "value_gap_scan(data, state, last_seen, first_seen, counts): histogram of the distances from "
                       "each 16-bit word to its value's latest occurrence");
