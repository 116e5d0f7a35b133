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
 * 65,536 counters of 8 bytes (512 KiB) do not fit in a level-1 cache, and
 * a random increment that misses it costs a few cycles.  This kernel counts
 * in a 128 KiB table of two-byte counters.  They are not tested for wrapping
 * at each increment (one-byte counters that were, in half the space, took a
 * tenth longer: each test waits for its increment's load).  Instead the
 * pairs come in blocks no longer than 65,535 less the largest counter, so
 * none can pass 65,535; after each block a vectorised pass bounds the
 * largest (by the counters' bitwise or), and once it reaches 32,768 the
 * counters are added to the caller's table and cleared (so each block has
 * at least 32,768 pairs; only data that repeats one pair that often needs
 * it).  Pairs are cut from big-endian 8-byte words: seven inside the word,
 * the eighth with the next byte.
 */
#include "../_module.h"
#include "_buffers.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* below this many pairs, zeroing and adding the small counters costs more than it saves */
#define MIN_PAIRS_FOR_SMALL_COUNTERS 65536
#define SMALL_MAX 65535u
/* largest counter at which the counters are moved to the caller's table */
#define FLUSH_AT 32768u

/* at least the largest counter: their bitwise or, which every compiler
 * vectorises (SSE2 has no unsigned 16-bit maximum) */
RANDQA_CLONES("avx2", "default") static unsigned
largest_bound(const uint16_t *small)
{
    uint16_t bits = 0;
    for (int cell = 0; cell < 65536; cell++)
        bits |= small[cell];
    return bits;
}

RANDQA_CLONES("avx2", "default") static void
move_counts(uint16_t *RESTRICT small, int64_t *RESTRICT counts)
{
    for (int cell = 0; cell < 65536; cell++)
        counts[cell] += small[cell];
    memset(small, 0, 65536 * sizeof *small);
}

/* counts[a * 256 + b] += the pairs (p[i], p[i + 1]), i < n - 1; small is 65,536 zeroed counters */
static void
count_pairs(const uint8_t *p, Py_ssize_t n, int64_t *RESTRICT counts, uint16_t *RESTRICT small)
{
    Py_ssize_t i = 0;
    unsigned most = 0; /* at least the largest counter */
    while (i + 9 <= n) {
        /* 8 pairs a step; at least 32,768 pairs, as most < FLUSH_AT */
        Py_ssize_t stop = i + (Py_ssize_t)((SMALL_MAX - most) / 8 * 8);
        if (stop > n - 8)
            stop = n - 8;
        for (; i < stop; i += 8) {
            uint64_t w = load_be64(p + i);
            small[w >> 48]++;
            small[(w >> 40) & 0xffff]++;
            small[(w >> 32) & 0xffff]++;
            small[(w >> 24) & 0xffff]++;
            small[(w >> 16) & 0xffff]++;
            small[(w >> 8) & 0xffff]++;
            small[w & 0xffff]++;
            small[((w & 0xff) << 8) | p[i + 8]]++;
        }
        most = largest_bound(small);
        if (most >= FLUSH_AT) {
            move_counts(small, counts);
            most = 0;
        }
    }
    /* at most 8 pairs, and most < FLUSH_AT */
    for (; i + 1 < n; i++)
        small[((size_t)p[i] << 8) | p[i + 1]]++;
    move_counts(small, counts);
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
    uint16_t *small = c.n > MIN_PAIRS_FOR_SMALL_COUNTERS ? calloc(65536, sizeof *small) : NULL;
    Py_BEGIN_ALLOW_THREADS
    if (c.n > 0 && c.previous >= 0)
        c.counts[((size_t)c.previous << 8) | c.data[0]]++;
    if (small)
        count_pairs(c.data, c.n, c.counts, small);
    else /* few pairs, or no memory for the small counters */
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
