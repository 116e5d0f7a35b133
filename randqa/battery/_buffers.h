/*
 * Helpers shared by the battery's compiled modules (_counts.c, _block_weights.c, _linear.c,
 * _nist.c, _spacings.c, _pair_table.c, _differences.c): reading
 * caller-owned numpy arrays through the buffer protocol, and bit-stream
 * loads in NIST SP 800-22 order.
 */
#ifndef RANDQA_BUFFERS_H
#define RANDQA_BUFFERS_H

#include "../_module.h"
#include <stdint.h>
#include <string.h>

/* A writable C-contiguous array of 8-byte integers with exactly `want` items
 * (want < 0: any length of at least one item, returned through view->len). */
static inline int
get_int64_out(PyObject *obj, Py_buffer *view, Py_ssize_t want, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    if (view->itemsize != 8 || (want >= 0 ? view->len != want * 8 : view->len < 8) ||
        (view->format && strcmp(view->format, "q") && strcmp(view->format, "l") && strcmp(view->format, "<q") &&
         strcmp(view->format, "=q") && strcmp(view->format, "Q") && strcmp(view->format, "L") &&
         strcmp(view->format, "<Q") && strcmp(view->format, "=Q"))) {
        if (want >= 0)
            PyErr_Format(PyExc_ValueError, "%s must be a writable 64-bit integer array of %zd items", what, want);
        else
            PyErr_Format(PyExc_ValueError, "%s must be a writable, non-empty 64-bit integer array", what);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* get_int64_out for a kernel that holds the data buffer `in`, which it
 * releases when the array is refused. */
static inline int
get_int64_out_or_release(PyObject *obj, Py_buffer *view, Py_ssize_t want, const char *what, Py_buffer *in)
{
    if (get_int64_out(obj, view, want, what) < 0) {
        PyBuffer_Release(in);
        return -1;
    }
    return 0;
}

/* The arguments (data, previous, counts) of a kernel that counts the bytes
 * of data as the continuation of a stream whose last byte was `previous`
 * (-1: data starts the stream) into `counts`, a writable int64 array of
 * `want` items; release_stream_continuation gives the buffers back.  On
 * failure nothing is held. */
typedef struct {
    Py_buffer in, out;
    const uint8_t *data;
    Py_ssize_t n;
    int previous;
    int64_t *counts;
} stream_continuation;

static inline int
parse_stream_continuation(PyObject *args, stream_continuation *c, Py_ssize_t want, const char *what)
{
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "y*iO", &c->in, &c->previous, &out_obj))
        return -1;
    if (c->previous < -1 || c->previous > 255) {
        reject_parameters(&c->in, "previous must be a byte value (0-255) or -1");
        return -1;
    }
    if (get_int64_out_or_release(out_obj, &c->out, want, what, &c->in) < 0)
        return -1;
    c->data = (const uint8_t *)c->in.buf;
    c->n = c->in.len;
    c->counts = (int64_t *)c->out.buf;
    return 0;
}

static inline void
release_stream_continuation(stream_continuation *c)
{
    RELEASE_BUFFERS(&c->in, &c->out);
}

/* Eight bytes as one word whose most significant bit is the first bit of the
 * stream (bits are read most significant first within each byte). */
static inline uint64_t
load_be64(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
#if !defined(__BYTE_ORDER__) || !defined(__ORDER_LITTLE_ENDIAN__) || !defined(__ORDER_BIG_ENDIAN__)
#error "randqa needs the compiler's __BYTE_ORDER__ (GCC or Clang)"
#elif __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    w = __builtin_bswap64(w);
#elif __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
#error "randqa supports little- and big-endian byte orders only"
#endif
    return w;
}

/* A little-endian word of `nbytes` (1, 2, 4 or 8) bytes. */
static inline uint64_t
load_le(const uint8_t *p, int nbytes)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    switch (nbytes) {
    case 1:
        return p[0];
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case 8: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    default:
        break;
    }
#endif
    uint64_t w = 0;
    for (int k = nbytes - 1; k >= 0; k--)
        w = (w << 8) | p[k];
    return w;
}

/* The `count` bits (1..64) that start at bit `pos`, left-aligned: the first
 * bit of the stream lands in bit 63 and the unused low bits are zero.
 * Bytes past `len` read as zero, so a block at the very end is safe. */
static inline uint64_t
get_bits(const uint8_t *p, Py_ssize_t len, uint64_t pos, int count)
{
    Py_ssize_t byte = (Py_ssize_t)(pos >> 3);
    unsigned shift = (unsigned)(pos & 7);
    uint64_t w;
    unsigned extra;
    if (byte + 9 <= len) {
        w = load_be64(p + byte);
        extra = p[byte + 8];
    } else {
        w = 0;
        for (int i = 0; i < 8; i++)
            w = (w << 8) | (byte + i < len ? p[byte + i] : 0u);
        extra = byte + 8 < len ? p[byte + 8] : 0u;
    }
    if (shift)
        w = (w << shift) | (uint64_t)(extra >> (8 - shift));
    return count >= 64 ? w : w & ~(~0ULL >> count);
}

/* The Hamming weight of the n bytes at q (a block of a Hamming-weight
 * test, or NIST's ranges of whole bytes): 8 bytes at a time, then the rest
 * one by one. */
static inline uint64_t
bytes_weight(const uint8_t *q, Py_ssize_t n)
{
    uint64_t weight = 0;
    Py_ssize_t j = 0;
    for (; j + 8 <= n; j += 8) {
        uint64_t x;
        memcpy(&x, q + j, 8);
        weight += (uint64_t)__builtin_popcountll(x);
    }
    for (; j < n; j++)
        weight += (uint64_t)__builtin_popcount(q[j]);
    return weight;
}

/* Parse (data, nbits, ...) and check nbits against the buffer. */
static inline int
check_nbits(Py_buffer *in, long long nbits)
{
    if (nbits < 0 || nbits > 8 * (long long)in->len) {
        PyErr_Format(PyExc_ValueError, "nbits must be between 0 and 8 * len(data) = %lld, not %lld",
                     8 * (long long)in->len, nbits);
        return -1;
    }
    return 0;
}

#endif
