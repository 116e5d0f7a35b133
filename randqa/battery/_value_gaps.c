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
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < words; i++, n++) {
        unsigned v = (unsigned)p[2 * i] | ((unsigned)p[2 * i + 1] << 8);
        int64_t prior = last[v];
        last[v] = n;
        int64_t d;
        if (prior >= 0)
            d = n - prior;
        else if (start == 0)
            d = cap;
        else {
            first_index[v] = n;
            continue;
        }
        if (n >= warm)
            counts[d < cap ? d : cap]++;
    }
    state[0] = n;
    Py_END_ALLOW_THREADS
    RELEASE_BUFFERS(&in, &st, &seen, &first, &out);
    Py_RETURN_NONE;
}

RANDQA_FUNCTION_MODULE(_value_gaps, "randqa.battery._value_gaps",
                       "How far back each 16-bit word's value last occurred (value_gaps)", value_gap_scan,
                       "value_gap_scan(data, state, last_seen, first_seen, counts): histogram of the distances from "
                       "each 16-bit word to its value's latest occurrence");
