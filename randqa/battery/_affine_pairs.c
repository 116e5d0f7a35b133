/*
 * The kernel of affine_digraph: pairs of consecutive bytes (z_t, z_(t+1))
 * counted, for each (alpha, beta) in {0, 1, 2}^2 minus (0, 0), in the cell
 * ((z_t - alpha t) mod 256, (z_(t+1) - beta t) mod 256) of that pair's
 * 65,536-cell table, for the stream positions t with t mod period < block
 * and t even: the pairs of each sampled block of bytes, side by side, share
 * no byte, so that each cell's count is binomial.
 *
 * Stateless: the caller passes the position of the data's first byte and
 * the byte before it (-1: none), so a pair cut by a chunk or a merge join
 * is counted exactly once, by the call that holds its second byte.  The
 * counts are 32-bit (2 MiB of tables, not 4: the kernel costs half as much
 * when the stream has pushed them out of the caches between calls); the
 * caller moves them to 64-bit totals before 2^32 pairs can reach a cell.
 */
#include "../_module.h"
#include "_buffers.h"
#include <stdint.h>
#include <string.h>

#define TABLES 8
#define CELLS 65536
/* pairs whose cells are worked out before they are counted: one table's
 * increments then run back to back over 512 KiB, which stays in L2 */
#define RUN 4096

static const uint8_t ALPHA[TABLES] = {0, 0, 1, 1, 1, 2, 2, 2};
static const uint8_t BETA[TABLES] = {1, 2, 0, 1, 2, 0, 1, 2};

/* Counts the n pairs (p[2k], p[2k + 1]), k < n, at positions t0 + 2k. */
static void
count_run(const uint8_t *RESTRICT p, Py_ssize_t n, uint64_t t0, uint32_t *RESTRICT counts)
{
    uint16_t cell[RUN];
    for (int tab = 0; tab < TABLES; tab++) {
        uint8_t alpha = ALPHA[tab], beta = BETA[tab];
        uint32_t *row = counts + (Py_ssize_t)tab * CELLS;
        /* only t mod 256 matters: the offsets wrap with the bytes */
        uint8_t t = (uint8_t)t0;
        for (Py_ssize_t k = 0; k < n; k++, t += 2)
            cell[k] = (uint16_t)(((uint8_t)(p[2 * k] - alpha * t) << 8) | (uint8_t)(p[2 * k + 1] - beta * t));
        for (Py_ssize_t k = 0; k < n; k++)
            row[cell[k]]++;
    }
}

/* A writable C-contiguous array of exactly `want` 4-byte unsigned integers. */
static int
get_uint32_out(PyObject *obj, Py_buffer *view, Py_ssize_t want, const char *what, Py_buffer *in)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(in);
        return -1;
    }
    if (view->itemsize != 4 || view->len != want * 4 ||
        (view->format && strcmp(view->format, "I") && strcmp(view->format, "<I") && strcmp(view->format, "=I") &&
         !(strcmp(view->format, "L") == 0 && sizeof(unsigned long) == 4))) {
        PyErr_Format(PyExc_ValueError, "%s must be a writable 32-bit unsigned integer array of %zd items", what, want);
        RELEASE_BUFFERS(view, in);
        return -1;
    }
    return 0;
}

/* affine_pair_count(data, previous, position, period, block, counts):
 * counts[tab * 65536 + cell] += the pairs of bytes that end in data and are
 * sampled: the pair at stream position t (its first byte; data[0] is at
 * `position`, the byte before it is `previous`, -1 for none) is counted
 * when t is even and t mod period < block (period and block even).
 * Returns the number of pairs counted. */
static PyObject *
affine_pair_count(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, out;
    int previous;
    long long position, period, block;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "y*iLLLO", &in, &previous, &position, &period, &block, &out_obj))
        return NULL;
    if (previous < -1 || previous > 255)
        return reject_parameters(&in, "previous must be a byte value (0-255) or -1");
    if (position < 0 || (previous >= 0 && position == 0))
        return reject_parameters(&in, "position must be >= 0, and >= 1 when there is a previous byte");
    if (period < 2 || period > (1LL << 40) || period % 2)
        return reject_parameters(&in, "period must be even, from 2 to 2^40");
    if (block < 2 || block > period || block % 2)
        return reject_parameters(&in, "block must be even, from 2 to period");
    if (position > (1LL << 62))
        return reject_parameters(&in, "position must be below 2^62");
    if (get_uint32_out(out_obj, &out, TABLES * CELLS, "counts", &in) < 0)
        return NULL;
    const uint8_t *d = (const uint8_t *)in.buf;
    Py_ssize_t n = in.len;
    uint32_t *counts = (uint32_t *)out.buf;
    long long counted = 0;

    Py_BEGIN_ALLOW_THREADS
    /* the pair cut by the previous call's end: its first byte is `previous` */
    if (previous >= 0 && n > 0 && (position - 1) % period < block && (position - 1) % 2 == 0) {
        uint8_t pair[2] = {(uint8_t)previous, d[0]};
        count_run(pair, 1, (uint64_t)(position - 1), counts);
        counted++;
    }
    /* the pairs (d[j], d[j + 1]), j < n - 1, at positions position + j */
    Py_ssize_t j = 0;
    while (j < n - 1) {
        long long r = (position + j) % period;
        if (r >= block) {
            j += (Py_ssize_t)(period - r); /* to the next sampled block */
            continue;
        }
        if (r % 2) { /* the second byte of a pair */
            j++;
            continue;
        }
        Py_ssize_t pairs = (Py_ssize_t)((block - r) / 2);
        if (pairs > (n - j) / 2)
            pairs = (n - j) / 2;
        if (pairs > RUN)
            pairs = RUN;
        count_run(d + j, pairs, (uint64_t)(position + j), counts);
        counted += pairs;
        j += 2 * pairs;
    }
    Py_END_ALLOW_THREADS

    RELEASE_BUFFERS(&in, &out);
    return PyLong_FromLongLong(counted);
}

RANDQA_FUNCTION_MODULE(_affine_pairs, "randqa.battery._affine_pairs",
                       "Pairs of consecutive bytes counted with offsets affine in their stream position.",
                       affine_pair_count,
                       "affine_pair_count(data, previous, position, period, block, counts)");
