/*
 * The kernel of conditional_walsh: the stream read as little-endian 16-bit
 * words x_0, x_1, ..., and at every word position n with n mod step = 0 the
 * window x_n .. x_(n+3) counted in two tables of 256 x 512 cells,
 *
 *     counts[(v * 512 + s) * 2 + t],
 *
 * v = bits r .. r+7 of x_(n+1) (the key), s = s0 | s1 << 1 | (bits r .. r+6
 * of x_(n+2)) << 2 with s0 = bit r of D_n and s1 = bit r of D_(n+2); table
 * t = 0 has D_k = x_k ^ x_(k+1), table t = 1 D_k = x_(k+1) - x_k mod 2^16.
 * Bits are numbered mod 16 (bit r + j is bit (r + j) mod 16): the words are
 * rotated right by r, so bit r lands in bit 0.  The tables are interleaved:
 * a window's two cells differ only in s0 and s1, so they share a 32-byte
 * stretch of one cache line, and the kernel touches one line per window.
 *
 * Stateless: the caller passes the stream position of data[0] and the up
 * to 7 bytes before it (`history`), so a window cut by a chunk or a merge
 * join is counted exactly once, by the call that holds its last byte.  The
 * counts are 32-bit (1 MiB of tables, which stays in L2; 64-bit ones would
 * not): the caller moves them to 64-bit totals before a cell can wrap.
 */
#include "../_module.h"
#include "_buffers.h"
#include <stdint.h>
#include <string.h>

#define KEYS 256
#define SELECTED 512
#define TABLE_CELLS (KEYS * SELECTED)
#define CELLS (2 * TABLE_CELLS)
/* bytes of one window: four 16-bit words */
#define WINDOW 8

/* Counts the window of the 8 bytes at p in both tables.  The four words are
 * handled side by side in one 64-bit integer (SWAR): each rotated right by r
 * within its 16 bits, so that bit r of each lands in its lane's bit 0. */
static inline void
count_window(const uint8_t *p, unsigned r, uint32_t *RESTRICT counts)
{
    /* 16-bit lanes x0 | x1 << 16 | x2 << 32 | x3 << 48 */
    uint64_t w = load_le(p, 8);
    const uint64_t LANES = 0x0001000100010001ULL;
    /* the low 16 bits of lanes 0 and 2, and a guard bit above each */
    const uint64_t EVEN = 0x0000FFFF0000FFFFULL, GUARD = 0x0001000000010000ULL;
    uint64_t low = (0xFFFFu >> r) * LANES;
    uint64_t rotated = ((w >> r) & low) | ((w << (16 - r)) & ~low);
    /* lanes 0 and 2 of y: x0 ^ x1 and x2 ^ x3 (rotation commutes with xor) */
    uint64_t y = rotated ^ (rotated >> 16);
    /* lanes 0 and 2 of d: x1 - x0 and x3 - x2 mod 2^16; the guard bits keep
     * lane 0's borrow out of lane 2 */
    uint64_t d = (((w >> 16) & EVEN) | GUARD) - (w & EVEN);
    /* key (bits r .. r+7 of x1) << 9 | bits r .. r+6 of x2 << 2 */
    uint32_t common = (uint32_t)((rotated >> 7) & 0x1FE00u) | (uint32_t)((rotated >> 30) & 0x1FCu);
    uint32_t xor_bits = (uint32_t)(y & 1u) | (uint32_t)((y >> 31) & 2u);
    uint32_t sub_bits = (uint32_t)((d >> r) & 1u) | (uint32_t)((d >> (31 + r)) & 2u);
    /* the two tables' cells side by side: both increments hit one cache line */
    counts[2 * (common | xor_bits)]++;
    counts[2 * (common | sub_bits) + 1]++;
}

/* Counts the windows at data offsets j, j + period, ... that end in the n
 * bytes of d; returns how many.  (Versions for AVX2 or BMI2, software
 * prefetching and 16-bit counts were tried: none was measurably faster.) */
static long long
count_windows(const uint8_t *RESTRICT d, Py_ssize_t n, Py_ssize_t j, long long period, unsigned r,
              uint32_t *RESTRICT counts)
{
    long long counted = 0;
    for (; j + WINDOW <= n; j += (Py_ssize_t)period) {
        count_window(d + j, r, counts);
        counted++;
    }
    return counted;
}

/* A writable C-contiguous array of exactly `want` 4-byte unsigned integers. */
static int
get_uint32_out(PyObject *obj, Py_buffer *view, Py_ssize_t want, const char *what, Py_buffer *a, Py_buffer *b)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        RELEASE_BUFFERS(a, b);
        return -1;
    }
    if (view->itemsize != 4 || view->len != want * 4 ||
        (view->format && strcmp(view->format, "I") && strcmp(view->format, "<I") && strcmp(view->format, "=I") &&
         !(strcmp(view->format, "L") == 0 && sizeof(unsigned long) == 4))) {
        PyErr_Format(PyExc_ValueError, "%s must be a writable 32-bit unsigned integer array of %zd items", what, want);
        RELEASE_BUFFERS(view, a, b);
        return -1;
    }
    return 0;
}

/* conditional_walsh_count(history, data, position, step, rotation, counts):
 * counts += the windows of 8 bytes (4 words) whose last byte is in data
 * and whose first byte is at a stream position p >= position - len(history)
 * with p mod (2 step) = 0; data[0] is at stream position `position`, history
 * holds the (up to 7) bytes just before it.  Returns the windows counted. */
static PyObject *
conditional_walsh_count(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer hist, in, out;
    long long position, step;
    int rotation;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "y*y*LLiO", &hist, &in, &position, &step, &rotation, &out_obj))
        return NULL;
    const char *problem = NULL;
    if (hist.len > WINDOW - 1)
        problem = "history must hold at most 7 bytes";
    else if (position < hist.len || position > (1LL << 62))
        problem = "position must be from len(history) to 2^62";
    else if (step < 4 || step > (1LL << 40))
        problem = "step must be from 4 to 2^40 words";
    else if (rotation < 0 || rotation > 15)
        problem = "rotation must be from 0 to 15";
    if (problem) {
        PyErr_SetString(PyExc_ValueError, problem);
        RELEASE_BUFFERS(&hist, &in);
        return NULL;
    }
    if (get_uint32_out(out_obj, &out, CELLS, "counts", &hist, &in) < 0)
        return NULL;
    const uint8_t *h = (const uint8_t *)hist.buf, *d = (const uint8_t *)in.buf;
    Py_ssize_t hn = hist.len, n = in.len;
    uint32_t *counts = (uint32_t *)out.buf;
    unsigned r = (unsigned)rotation;
    long long period = 2 * step; /* bytes between window starts */
    long long counted = 0;

    Py_BEGIN_ALLOW_THREADS
    /* the first window start at or after position - hn, as an offset into data (may be negative) */
    long long first = position - hn;
    long long rem = first % period;
    long long j = (rem ? first + (period - rem) : first) - position;
    /* windows that start in the history: copied into one buffer */
    for (; j < 0 && j + WINDOW <= n; j += period) {
        uint8_t win[WINDOW];
        for (int k = 0; k < WINDOW; k++)
            win[k] = j + k < 0 ? h[hn + j + k] : d[j + k];
        count_window(win, r, counts);
        counted++;
    }
    if (j >= 0)
        counted += count_windows(d, n, (Py_ssize_t)j, period, r, counts);
    Py_END_ALLOW_THREADS

    RELEASE_BUFFERS(&hist, &in, &out);
    return PyLong_FromLongLong(counted);
}

RANDQA_FUNCTION_MODULE(_conditional_walsh, "randqa.battery._conditional_walsh",
                       "Windows of four 16-bit words counted by key and selected bits (conditional_walsh).",
                       conditional_walsh_count,
                       "conditional_walsh_count(history, data, position, step, rotation, counts)");
