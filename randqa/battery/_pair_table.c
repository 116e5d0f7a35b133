/*
 * The table of overlapping byte pairs: how often byte a is followed by byte
 * b, over every adjacent pair (x_i, x_{i+1}) of the stream.  With the
 * stream's first and last byte it holds every count that the frequency,
 * runs, byte chi-square, lag-1 serial correlation, digraph and overlapping
 * serial (m <= 9) tests take from a byte stream: the byte histogram (its row
 * sums plus the last byte), the bit transitions, the lag-1 product sum and
 * the m-bit pattern counts.  tests/battery/test_pair_table.py derives each
 * of them and checks it against the count the test makes today.
 *
 * 65,536 counters of 8 bytes (512 KiB) or even 4 bytes do not fit in a
 * level-1 cache, and a random increment that misses it costs a few cycles.
 * This kernel counts in a 64 KiB table of one-byte counters, which mostly
 * hits, and adds 256 to the caller's 64-bit table whenever a byte counter
 * wraps to zero (rare: once per 256 increments of a cell); the byte counters
 * are added at the end.  Pairs are cut from big-endian 8-byte words: seven
 * inside the word, the eighth with the next byte.
 */
#include "../_module.h"
#include "_buffers.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define RARELY(x) __builtin_expect(!!(x), 0)
#else
#define RARELY(x) (x)
#endif

/* below this many pairs, zeroing and adding the byte counters costs more than it saves */
#define MIN_PAIRS_FOR_BYTE_COUNTERS 65536

#define COUNT_PAIR(small, counts, pair)           \
    do {                                          \
        size_t cell_ = (pair);                    \
        if (RARELY(++(small)[cell_] == 0))        \
            (counts)[cell_] += 256;               \
    } while (0)

/* counts[a * 256 + b] += the pairs (p[i], p[i + 1]), i < n - 1; small is 65,536 zeroed bytes */
static void
count_pairs(const uint8_t *p, Py_ssize_t n, int64_t *counts, uint8_t *small)
{
    Py_ssize_t i = 0;
    for (; i + 9 <= n; i += 8) {
        uint64_t w = load_be64(p + i);
        COUNT_PAIR(small, counts, w >> 48);
        COUNT_PAIR(small, counts, (w >> 40) & 0xffff);
        COUNT_PAIR(small, counts, (w >> 32) & 0xffff);
        COUNT_PAIR(small, counts, (w >> 24) & 0xffff);
        COUNT_PAIR(small, counts, (w >> 16) & 0xffff);
        COUNT_PAIR(small, counts, (w >> 8) & 0xffff);
        COUNT_PAIR(small, counts, w & 0xffff);
        COUNT_PAIR(small, counts, ((w & 0xff) << 8) | p[i + 8]);
    }
    for (; i + 1 < n; i++)
        COUNT_PAIR(small, counts, ((size_t)p[i] << 8) | p[i + 1]);
    for (size_t cell = 0; cell < 65536; cell++)
        counts[cell] += small[cell];
}

/* add_pair_counts(data, previous, counts): counts[a * 256 + b] += the number
 * of adjacent pairs (a, b) in data, plus the pair (previous, data[0]) when
 * previous is a byte value (-1: data starts the stream).  counts is a
 * writable int64 array of 65,536 items, the caller's state. */
static PyObject *
add_pair_counts(PyObject *Py_UNUSED(self), PyObject *args)
{
    stream_continuation c;
    if (parse_stream_continuation(args, &c, 65536, "counts") < 0)
        return NULL;
    uint8_t *small = c.n > MIN_PAIRS_FOR_BYTE_COUNTERS ? calloc(65536, 1) : NULL;
    Py_BEGIN_ALLOW_THREADS
    if (c.n > 0 && c.previous >= 0)
        c.counts[((size_t)c.previous << 8) | c.data[0]]++;
    if (small)
        count_pairs(c.data, c.n, c.counts, small);
    else /* few pairs, or no memory for the byte counters */
        for (Py_ssize_t i = 0; i + 1 < c.n; i++)
            c.counts[((size_t)c.data[i] << 8) | c.data[i + 1]]++;
    Py_END_ALLOW_THREADS
    free(small);
    release_stream_continuation(&c);
    Py_RETURN_NONE;
}

RANDQA_FUNCTION_MODULE(_pair_table, "randqa.battery._pair_table",
                       "The table of overlapping byte pairs of a stream.",
                       add_pair_counts,
                       "Add the counts of adjacent byte pairs (a, b) of data into an int64[65536] table at a * 256 + b.");
