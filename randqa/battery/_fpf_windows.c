/*
 * The kernel of fpf with 32-bit windows (randqa/battery/fpf.py): per
 * exponent platter, the histogram of the first mantissa bits.
 *
 * fpf_window32_counts(data, msb_first, mantissa_bits, counts)
 *
 * Every 32-bit word of data is one window.  msb_first = 0 reads it as a
 * little-endian word from its lowest bit (PractRand's order for a raw
 * stream); 1 as a big-endian word from its highest bit (a bit stream's
 * order).  Its exponent e is the number of zero bits read before the first
 * one bit (32 for a zero word), its mantissa the 31 - e bits after it, of
 * which the first b(e) = min(mantissa_bits, 31 - e) are counted, the first
 * one read as the lowest bit of the index: counts[offset(e) + index] += 1.
 *
 * Platter e holds 2^b(e) counts, in exponent order: m = mantissa_bits,
 *   offset(e) = e 2^m                   for e <= 31 - m (full platters),
 *   offset(e) = (33 - m) 2^m - 2^(32-e)  for e > 31 - m (the shorter ones),
 * the zero word last, at (33 - m) 2^m - 1, the length of counts being
 * (33 - m) 2^m.  len(data) must be a multiple of 4.
 */
#include "../_module.h"
#include "_buffers.h"
#include <stdint.h>

#define WINDOW_BITS 32
#define MAX_MANTISSA_BITS 15

/* counts in platter order, as the module comment gives them */
static inline Py_ssize_t
count_cells(int m)
{
    return (Py_ssize_t)(WINDOW_BITS + 1 - m) << m;
}

/* Reverses the bits of each byte: a big-endian word read from its highest
 * bit becomes a little-endian word read from its lowest, so one loop
 * serves both orders (the stream's first bit lands in bit 0 either way). */
static inline uint32_t
reverse_bits_in_bytes(uint32_t w)
{
    w = ((w >> 1) & 0x55555555u) | ((w & 0x55555555u) << 1);
    w = ((w >> 2) & 0x33333333u) | ((w & 0x33333333u) << 2);
    return ((w >> 4) & 0x0F0F0F0Fu) | ((w & 0x0F0F0F0Fu) << 4);
}

/* counts[offset[e] + mantissa] += 1 for the window w */
static inline __attribute__((always_inline)) void
count_window(uint32_t w, uint32_t mask, const int64_t *RESTRICT offset, int64_t *RESTRICT counts)
{
    if (w == 0) {
        counts[offset[WINDOW_BITS]]++;
        return;
    }
    int e = __builtin_ctz(w);
    /* the shift leaves 31 - e bits: fewer than the mask's for the short
     * platters, whose cells are that many */
    counts[offset[e] + ((w >> e >> 1) & mask)]++;
}

/* msb_first windows are reversed BLOCK at a time, in a loop of their own
 * that vectorises, into a buffer that stays in the first-level cache: the
 * reversal inside the counting loop made it 1.4x slower */
#define BLOCK 1024

static void
count_windows(const uint8_t *RESTRICT p, Py_ssize_t words, int msb_first, uint32_t mask,
              const int64_t *RESTRICT offset, int64_t *RESTRICT counts)
{
    if (!msb_first) {
        for (Py_ssize_t i = 0; i < words; i++)
            count_window((uint32_t)load_le(p + 4 * i, 4), mask, offset, counts);
        return;
    }
    uint32_t w[BLOCK];
    for (Py_ssize_t from = 0; from < words; from += BLOCK) {
        int n = words - from < BLOCK ? (int)(words - from) : BLOCK;
        for (int i = 0; i < n; i++)
            w[i] = reverse_bits_in_bytes((uint32_t)load_le(p + 4 * (from + i), 4));
        for (int i = 0; i < n; i++)
            count_window(w[i], mask, offset, counts);
    }
}

static PyObject *
fpf_window32_counts(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, out;
    PyObject *counts_obj;
    int msb_first, m;
    if (!PyArg_ParseTuple(args, "y*iiO", &in, &msb_first, &m, &counts_obj))
        return NULL;
    if (in.len % 4)
        return reject_parameters(&in, "data length must be a multiple of 4");
    if ((msb_first != 0 && msb_first != 1) || m < 1 || m > MAX_MANTISSA_BITS)
        return reject_parameters(&in, "msb_first must be 0 or 1 and mantissa_bits 1 to 15");
    if (get_int64_out_or_release(counts_obj, &out, count_cells(m), "counts", &in) < 0)
        return NULL;
    int64_t offset[WINDOW_BITS + 1];
    for (int e = 0; e <= WINDOW_BITS; e++)
        offset[e] = e <= WINDOW_BITS - 1 - m ? (int64_t)e << m
                                             : (int64_t)count_cells(m) - ((int64_t)1 << (WINDOW_BITS - e));
    const uint8_t *p = (const uint8_t *)in.buf;
    Py_ssize_t words = in.len / 4;
    int64_t *counts = (int64_t *)out.buf;
    uint32_t mask = (1u << m) - 1;
    Py_BEGIN_ALLOW_THREADS
    count_windows(p, words, msb_first, mask, offset, counts);
    Py_END_ALLOW_THREADS
    RELEASE_BUFFERS(&in, &out);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"fpf_window32_counts", fpf_window32_counts, METH_VARARGS,
     "fpf_window32_counts(data, msb_first, mantissa_bits, counts): add the counts of the first mantissa bits of "
     "every 32-bit window, per exponent platter, into an int64[(33 - mantissa_bits) << mantissa_bits] array"},
    {NULL, NULL, 0, NULL},
};

RANDQA_MODULE(_fpf_windows, "randqa.battery._fpf_windows", "The kernel of fpf with 32-bit windows.", methods);
