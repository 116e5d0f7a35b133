/*
 * The kernel of the lagged_difference test: the counts of the k-th finite
 * difference, at a lag D, of the low bits of consecutive words
 * (lagged_difference_scan),
 *
 *     z(n) = sum_{i=0..k} (-1)^(k-i) C(k, i) y(n + i D)  mod 2^bits,
 *
 * y(n) being the low byte of word n (little-endian words).  Only the low
 * bits of y matter for z mod 2^bits (bits <= 8), so the accumulator keeps
 * just the low bytes of the words a later window still needs.  As in the
 * other kernels, all state lives in caller-owned arrays.
 */
#include "../_module.h"
#include "_buffers.h"
#include <stdint.h>
#include <string.h>

#define MAX_ORDER 8
#define BLOCK 256

/* z[t] = sum_i coef[i] * base[t + i * step] (mod 256), t < m.  Order 4,
 * the default, gets a loop the compiler vectorises. */
static void
differences(const uint8_t *base, int m, long long step, int order, const uint8_t *coef, uint8_t *z)
{
    if (order == 4) {
        const uint8_t *p0 = base, *p1 = base + step, *p2 = p1 + step, *p3 = p2 + step, *p4 = p3 + step;
        uint8_t c0 = coef[0], c1 = coef[1], c2 = coef[2], c3 = coef[3], c4 = coef[4];
        for (int t = 0; t < m; t++)
            z[t] = (uint8_t)(c0 * p0[t] + c1 * p1[t] + c2 * p2[t] + c3 * p3[t] + c4 * p4[t]);
        return;
    }
    for (int t = 0; t < m; t++) {
        uint8_t acc = 0;
        const uint8_t *q = base + t;
        for (int i = 0; i <= order; i++, q += step)
            acc += (uint8_t)(coef[i] * *q);
        z[t] = acc;
    }
}

/* lagged_difference_scan(history, lows, first, order, bits, period, starts,
 *                        start_limit, lags, counts)
 *
 * Words are numbered from the start of the stream.  `history` holds the
 * low bytes of the len(history) words just before word `first`, `lows`
 * those of the words from word `first` on.  For every lag
 * D = lags[l] and every start n with
 *     first - len(history) <= n < start_limit,
 *     n mod period < starts, and
 *     first <= n + order D < first + len(lows)   (the window ends in lows)
 * z(n) adds 1 to counts[l, z(n)] (counts: len(lags) rows of 2^bits). */
static PyObject *
lagged_difference_scan(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer hist, data, lagv, countv;
    PyObject *lags_obj, *counts_obj;
    int order, bits;
    long long first, period, starts, start_limit;
    if (!PyArg_ParseTuple(args, "y*y*LiiLLLOO", &hist, &data, &first, &order, &bits, &period, &starts, &start_limit,
                          &lags_obj, &counts_obj))
        return NULL;
    const char *bad = NULL;
    if (order < 1 || order > MAX_ORDER)
        bad = "order must be from 1 to 8";
    else if (bits < 1 || bits > 8)
        bad = "bits must be from 1 to 8";
    else if (period < 1 || starts < 1 || starts > period)
        bad = "need 1 <= starts <= period";
    else if (first < hist.len)
        bad = "history reaches before the stream's start";
    if (bad) {
        RELEASE_BUFFERS(&hist, &data);
        PyErr_SetString(PyExc_ValueError, bad);
        return NULL;
    }
    if (get_int64_out(lags_obj, &lagv, -1, "lags") < 0) {
        RELEASE_BUFFERS(&hist, &data);
        return NULL;
    }
    Py_ssize_t nlags = lagv.len / 8;
    const int64_t *lags = (const int64_t *)lagv.buf;
    for (Py_ssize_t l = 0; l < nlags; l++)
        if (lags[l] < 1 || lags[l] > ((long long)1 << 40)) {
            RELEASE_BUFFERS(&hist, &data, &lagv);
            PyErr_SetString(PyExc_ValueError, "lags must be from 1 to 2^40");
            return NULL;
        }
    if (get_int64_out(counts_obj, &countv, nlags << bits, "counts") < 0) {
        RELEASE_BUFFERS(&hist, &data, &lagv);
        return NULL;
    }

    uint8_t coef[MAX_ORDER + 1];
    {
        long long c = 1; /* C(order, i), built up term by term */
        for (int i = 0; i <= order; i++) {
            coef[i] = (uint8_t)(((order - i) & 1) ? -c : c);
            c = c * (order - i) / (i + 1);
        }
    }
    const uint8_t *h = (const uint8_t *)hist.buf;
    const uint8_t *d = (const uint8_t *)data.buf;
    long long hlen = hist.len, nwords = data.len;
    int64_t *counts = (int64_t *)countv.buf;
    uint8_t mask = (uint8_t)((1u << bits) - 1);

    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t l = 0; l < nlags; l++) {
        long long span = order * lags[l];
        long long n = first - span > first - hlen ? first - span : first - hlen;
        long long n_hi = first + nwords - span < start_limit ? first + nwords - span : start_limit;
        int64_t *row = counts + (l << bits);
        while (n < n_hi) {
            long long r = n % period;
            if (r >= starts) {
                n += period - r;
                continue;
            }
            long long stop = n + (starts - r) < n_hi ? n + (starts - r) : n_hi;
            /* windows that begin in history: each load picks its buffer */
            for (; n < stop && n < first; n++) {
                uint8_t z = 0;
                for (int i = 0; i <= order; i++) {
                    long long p = n + i * lags[l] - first;
                    z += (uint8_t)(coef[i] * (p < 0 ? h[hlen + p] : d[p]));
                }
                row[z & mask]++;
            }
            /* windows inside lows, a block of differences at a time */
            while (n < stop) {
                uint8_t z[BLOCK];
                int m = stop - n < BLOCK ? (int)(stop - n) : BLOCK;
                differences(d + (n - first), m, lags[l], order, coef, z);
                for (int t = 0; t < m; t++)
                    row[z[t] & mask]++;
                n += m;
            }
        }
    }
    Py_END_ALLOW_THREADS

    RELEASE_BUFFERS(&hist, &data, &lagv, &countv);
    Py_RETURN_NONE;
}

RANDQA_FUNCTION_MODULE(_differences, "randqa.battery._differences",
                       "Finite differences of words' low bits at a lag.",
                       lagged_difference_scan,
                       "lagged_difference_scan(history, lows, first, order, bits, period, starts, start_limit, lags, counts)");
