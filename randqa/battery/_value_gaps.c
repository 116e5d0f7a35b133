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
    int valid = cap >= 1 && n >= start && start >= 0 && warm >= 0;
    for (Py_ssize_t v = 0; valid && v < 65536; v++)
        valid = last[v] >= -1 && last[v] < n && last[v] >= (last[v] < 0 ? -1 : start);
    if (!valid) {
        RELEASE_BUFFERS(&in, &st, &seen, &first, &out);
        PyErr_SetString(PyExc_ValueError, "invalid value gap scan state");
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    Py_ssize_t words = in.len / 2;
    int ok = 1;
    Py_BEGIN_ALLOW_THREADS
    /* The latest indices and the counts as 32-bit numbers within a call:
     * half the cache lines of the int64 arrays, whose random accesses set
     * the pace.  An index is kept as its offset from base = (the call's
     * first index) - 2^31, 0 for none; an occurrence more than 2^31 words
     * back is kept as 1 (its distance is past cap anyway).  A call takes
     * fewer than 2^31 words (the stretch loop) and counts fewer than 2^32. */
    uint32_t *part = calloc((size_t)cap + 1, sizeof *part);
    uint32_t *rel = malloc(65536 * sizeof *rel);
    if (part == NULL || rel == NULL)
        ok = 0;
    const Py_ssize_t stretch = (Py_ssize_t)1 << 30;
    for (Py_ssize_t from = 0; ok && from < words; from += stretch) {
        Py_ssize_t to = words - from < stretch ? words : from + stretch;
        int64_t base = n - ((int64_t)1 << 31);
        for (int v = 0; v < 65536; v++)
            rel[v] = last[v] < 0 ? 0 : last[v] - base >= 1 ? (uint32_t)(last[v] - base) : 1;
        uint32_t at = (uint32_t)(n - base); /* 2^31 */
        for (Py_ssize_t i = from; i < to; i++, n++, at++) {
            unsigned v = (unsigned)p[2 * i] | ((unsigned)p[2 * i + 1] << 8);
            uint32_t prior = rel[v];
            rel[v] = at;
            int64_t d;
            if (prior)
                d = (int64_t)(at - prior);
            else if (start == 0)
                d = cap;
            else {
                first_index[v] = n;
                continue;
            }
            if (n >= warm)
                part[d < cap ? d : cap]++;
        }
        /* the values that occurred in this stretch */
        for (int v = 0; v < 65536; v++)
            if (rel[v] >= ((uint32_t)1 << 31))
                last[v] = base + rel[v];
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
