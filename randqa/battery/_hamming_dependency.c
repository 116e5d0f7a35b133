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

POPCNT_CLONES static void
scan(const uint8_t *p, Py_ssize_t words, int word_bytes, int low, int high, int64_t *state, int64_t *head,
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
    if (dim > 19) {
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
    Py_BEGIN_ALLOW_THREADS
    scan((const uint8_t *)in.buf, in.len / word_bytes, word_bytes, low, high, state, (int64_t *)hd.buf, dim,
         (int64_t *)cn.buf, (int64_t *)sm.buf, cells / 3);
    Py_END_ALLOW_THREADS
    RELEASE_BUFFERS(&in, &st, &hd, &cn, &sm);
    Py_RETURN_NONE;
}

RANDQA_FUNCTION_MODULE(_hamming_dependency, "randqa.battery._hamming_dependency",
                       "The counting pass of the Hamming-weight dependency test.", hamming_dependency_scan,
                       "Count words and sum their centred Hamming weights by the signature of the trits before them.");
