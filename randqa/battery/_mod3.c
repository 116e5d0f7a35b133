/*
 * The kernels of the tests of remainders mod 3: overlapping tuples of the
 * remainders of blocks of 1, 2, 4, ... bytes (the mod3 test), and the joint
 * remainders of words a few lags apart (the lagged_mod3 test,
 * mod3_window_remainders and mod3_lag_count below).
 *
 * mod3_tuple_scan(data, levels, tuple_length, counts, state)
 *
 * Level L reads the stream as blocks of 2^L bytes.  A block's value mod 3
 * is the sum of its bytes mod 3 whatever the byte order (256 = 1 mod 3), so
 * a block's remainder at level L + 1 is the sum of two consecutive
 * remainders at level L.  At each level the latest tuple_length remainders
 * make a base-3 index (the newest least significant); each remainder that
 * completes a tuple adds 1 to counts[L * 3^tuple_length + index].
 *
 * state (int64, 4 per level, carried across calls, so the counts do not
 * depend on how the stream is cut): the index of the latest remainders, how
 * many remainders the level has seen, the remainder of the first half of
 * an unfinished pair, and whether that half is there (0/1).
 */
#include "../_module.h"
#include "_buffers.h"
#include <stdint.h>
#include <stdlib.h>

#define MAX_LEVELS 16
#define MAX_TUPLE_LENGTH 11
#define STATE_ITEMS 4
/* bytes read per pass of the levels */
#define PIECE 32768
/* the loops over arrays in AVX2 where the CPU has it */
#define SCAN_CLONES RANDQA_CLONES("avx2", "default")

typedef struct {
    int64_t index, seen, pending, has_pending;
} level_state;

/* tuple indices are made BLOCK at a time, so that their buffers stay in
 * the first-level cache next to the counts */
#define BLOCK 512

/* The steps of the doubling below, each in a function of its own so that
 * the compiler knows the arrays apart and vectorises the loops.  Runs are
 * at most 8 letters long (t <= 11), below 3^8, so 16 bits hold them and a
 * vector holds twice as many as of the 32-bit indices. */
static inline __attribute__((always_inline)) void
pairs_of(const uint8_t *RESTRICT r, int n, uint16_t *RESTRICT out)
{
    for (int j = 0; j < n; j++)
        out[j] = (uint16_t)(3 * r[j] + r[j + 1]);
}

static inline __attribute__((always_inline)) void
combine(const uint16_t *RESTRICT high, const uint16_t *RESTRICT low, uint16_t power, int n, uint16_t *RESTRICT out)
{
    for (int j = 0; j < n; j++)
        out[j] = (uint16_t)(high[j] * power + low[j]);
}

static inline __attribute__((always_inline)) void
append(uint32_t *RESTRICT index, const uint16_t *RESTRICT low, uint32_t power, int n)
{
    for (int j = 0; j < n; j++)
        index[j] = index[j] * power + low[j];
}

/* index[j] = the base-3 number of r[j .. j + t - 1], r[j] the most
 * significant digit, for j < n: the values of runs of 1, 2, 4, ... letters,
 * those of the set bits of t joined (a Horner pass per letter cost twice
 * as much) */
static inline __attribute__((always_inline)) void
tuple_indices(const uint8_t *RESTRICT r, int n, int t, uint16_t *RESTRICT run, uint16_t *RESTRICT spare,
              uint32_t *RESTRICT index)
{
    int started = t & 1, done = t & 1;
    if (started)
        for (int j = 0; j < n; j++)
            index[j] = r[j];
    if (t == 1)
        return;
    /* run[j], j < valid: the value of the `length` letters from j */
    int valid = n + t - 2, length = 2;
    uint16_t power = 9; /* 3^length */
    pairs_of(r, valid, run);
    for (int bits = t >> 1;;) {
        if (bits & 1) { /* the run after the `done` letters already in index */
            if (!started) {
                for (int j = 0; j < n; j++)
                    index[j] = run[j];
                started = 1;
            } else {
                append(index, run + done, power, n);
            }
            done += length;
        }
        bits >>= 1;
        if (!bits)
            return;
        valid -= length;
        combine(run, run + length, power, valid, spare);
        uint16_t *swap = run;
        run = spare;
        spare = swap;
        length *= 2;
        power = (uint16_t)(power * power);
    }
}

/* Adds the tuples that end at each of the m remainders r[] of one level.
 * The index of each tuple is made from the window of remainders before it
 * (no chain from one index to the next, so the loops vectorise): the first
 * tuple_length - 1 from the carried index, the rest from r itself. */
SCAN_CLONES static void
count_tuples(level_state *s, const uint8_t *RESTRICT r, Py_ssize_t m, int tuple_length, int64_t cells,
             int64_t *RESTRICT counts)
{
    Py_ssize_t i = 0;
    /* the first tuple_length - 1 remainders complete tuples that start in
     * earlier pieces (or none, at the start of the stream); after them the
     * level has seen at least tuple_length - 1 */
    for (; i < m && i < tuple_length - 1; i++) {
        int64_t x = s->index * 3 + r[i];
        x -= x >= 2 * cells ? 2 * cells : 0;
        x -= x >= cells ? cells : 0;
        s->index = x;
        if (++s->seen >= tuple_length)
            counts[x]++;
    }
    if (i == m)
        return;
    /* tuples r[j .. j + t - 1] for j < count lie wholly in r */
    Py_ssize_t count = m - i;
    uint16_t run[BLOCK + MAX_TUPLE_LENGTH], spare[BLOCK + MAX_TUPLE_LENGTH];
    uint32_t index[BLOCK];
    for (Py_ssize_t from = 0; from < count; from += BLOCK) {
        int n = count - from < BLOCK ? (int)(count - from) : BLOCK;
        tuple_indices(r + from, n, tuple_length, run, spare, index);
        for (int j = 0; j < n; j++)
            counts[index[j]]++;
        if (from + n == count)
            s->index = index[n - 1];
    }
    s->seen += count;
}

/* The remainders mod 3 of m bytes: a division by a constant, which
 * vectorises, where a table lookup per byte does not. */
SCAN_CLONES static void
byte_remainders(const uint8_t *RESTRICT p, Py_ssize_t m, uint8_t *RESTRICT r)
{
    for (Py_ssize_t i = 0; i < m; i++)
        r[i] = (uint8_t)(p[i] % 3);
}

/* The remainders of the sums of pairs of remainders r[2k], r[2k + 1]. */
SCAN_CLONES static void
pair_remainders(const uint8_t *RESTRICT r, Py_ssize_t pairs, uint8_t *RESTRICT out)
{
    for (Py_ssize_t k = 0; k < pairs; k++) {
        uint8_t sum = (uint8_t)(r[2 * k] + r[2 * k + 1]);
        out[k] = (uint8_t)(sum >= 3 ? sum - 3 : sum);
    }
}

static PyObject *
mod3_tuple_scan(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, out, st;
    PyObject *counts_obj, *state_obj;
    int levels, tuple_length;
    if (!PyArg_ParseTuple(args, "y*iiOO", &in, &levels, &tuple_length, &counts_obj, &state_obj))
        return NULL;
    if (levels < 1 || levels > MAX_LEVELS || tuple_length < 1 || tuple_length > MAX_TUPLE_LENGTH)
        return reject_parameters(&in, "levels must be 1 to 16 and tuple_length 1 to 11");
    int64_t cells = 1;
    for (int k = 0; k < tuple_length; k++)
        cells *= 3;
    if (get_int64_out_or_release(counts_obj, &out, levels * cells, "counts", &in) < 0)
        return NULL;
    if (get_int64_out(state_obj, &st, STATE_ITEMS * levels, "state") < 0) {
        RELEASE_BUFFERS(&in, &out);
        return NULL;
    }
    level_state lv[MAX_LEVELS];
    const int64_t *raw = (const int64_t *)st.buf;
    for (int L = 0; L < levels; L++) {
        lv[L].index = raw[STATE_ITEMS * L];
        lv[L].seen = raw[STATE_ITEMS * L + 1];
        lv[L].pending = raw[STATE_ITEMS * L + 2];
        lv[L].has_pending = raw[STATE_ITEMS * L + 3];
        if (lv[L].index < 0 || lv[L].index >= cells || lv[L].seen < 0 || lv[L].pending < 0 || lv[L].pending > 2 ||
            (lv[L].has_pending != 0 && lv[L].has_pending != 1)) {
            RELEASE_BUFFERS(&in, &out, &st);
            PyErr_SetString(PyExc_ValueError, "invalid mod3 scan state");
            return NULL;
        }
    }
    const uint8_t *p = (const uint8_t *)in.buf;
    Py_ssize_t n = in.len;
    int64_t *counts = (int64_t *)out.buf;
    int ok = 1;
    Py_BEGIN_ALLOW_THREADS
    uint8_t *letters = malloc(2 * PIECE);
    if (letters == NULL)
        ok = 0;
    for (Py_ssize_t start = 0; ok && start < n; start += PIECE) {
        Py_ssize_t m = n - start < PIECE ? n - start : PIECE;
        uint8_t *r = letters, *next = letters + PIECE;
        byte_remainders(p + start, m, r);
        for (int L = 0; L < levels && m > 0; L++) {
            count_tuples(&lv[L], r, m, tuple_length, cells, counts + L * cells);
            if (L + 1 == levels)
                break;
            /* the next level's remainders: sums of pairs, the first half of
             * an unfinished pair carried to the next piece */
            Py_ssize_t k = 0, i = 0;
            if (lv[L].has_pending) {
                next[k++] = (uint8_t)((lv[L].pending + r[0]) % 3);
                lv[L].has_pending = 0;
                lv[L].pending = 0;
                i = 1;
            }
            Py_ssize_t pairs = (m - i) / 2;
            pair_remainders(r + i, pairs, next + k);
            k += pairs;
            i += 2 * pairs;
            if (i < m) {
                lv[L].pending = r[i];
                lv[L].has_pending = 1;
            }
            uint8_t *swap = r;
            r = next;
            next = swap;
            m = k;
        }
    }
    free(letters);
    Py_END_ALLOW_THREADS
    if (!ok) {
        RELEASE_BUFFERS(&in, &out, &st);
        return PyErr_NoMemory();
    }
    int64_t *state = (int64_t *)st.buf;
    for (int L = 0; L < levels; L++) {
        state[STATE_ITEMS * L] = lv[L].index;
        state[STATE_ITEMS * L + 1] = lv[L].seen;
        state[STATE_ITEMS * L + 2] = lv[L].pending;
        state[STATE_ITEMS * L + 3] = lv[L].has_pending;
    }
    RELEASE_BUFFERS(&in, &out, &st);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------
 * The kernels of the lagged_mod3 test, in two steps so that the table of
 * counts (megabytes) passes through the cache once per many windows, not
 * once per chunk of the stream:
 *
 * mod3_window_remainders(history, data, first, word_bytes, span, period,
 *                        start_limit) -> bytes
 *
 * Words of word_bytes bytes are numbered from the start of the stream;
 * `history` holds the raw bytes of the words just before word `first`,
 * `data` those from word `first` on (whole words).  A word's remainder mod
 * 3 is the sum of its bytes mod 3 (256 = 1 mod 3).  Returns, for every
 * start n with
 *     first - len(history) <= n < start_limit,  n mod period == 0, and
 *     first <= n + span < first + len(data)   (the window ends in data),
 * in order, the span + 1 remainders of words n .. n + span.
 *
 * mod3_lag_count(remainders, span, pairs, pair_counts, triples, triple_counts)
 *
 * For each window of span + 1 remainders r_0 .. r_span: the k-th pair of
 * offsets (a, b) (pairs: int64, 2 per pair) adds 1 to pair_counts[27 k +
 * 9 r_0 + 3 r_a + r_b], the k-th triple (a, b, c) to triple_counts[81 k +
 * 27 r_0 + 9 r_a + 3 r_b + r_c].  Offsets are from 1 to span; an empty set
 * of pairs or triples is one offset 0 (numpy's arrays here are never empty).
 * ---------------------------------------------------------------------- */
#define MAX_LAG_SPAN 128

static PyObject *
mod3_window_remainders(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer hist, data;
    long long first, period, start_limit;
    int word_bytes, span;
    if (!PyArg_ParseTuple(args, "y*y*LiiLL", &hist, &data, &first, &word_bytes, &span, &period, &start_limit))
        return NULL;
    const char *bad = NULL;
    if (word_bytes < 1 || word_bytes > 8)
        bad = "word_bytes must be from 1 to 8";
    else if (span < 2 || span > MAX_LAG_SPAN)
        bad = "span must be from 2 to 128";
    else if (period <= span)
        bad = "period must exceed the span";
    else if (hist.len % word_bytes || data.len % word_bytes)
        bad = "history and data must hold whole words";
    else if (first < hist.len / word_bytes)
        bad = "history reaches before the stream's start";
    if (bad) {
        RELEASE_BUFFERS(&hist, &data);
        PyErr_SetString(PyExc_ValueError, bad);
        return NULL;
    }
    const uint8_t *h = (const uint8_t *)hist.buf, *d = (const uint8_t *)data.buf;
    long long hwords = hist.len / word_bytes, dwords = data.len / word_bytes;
    long long lo = first - hwords > first - span ? first - hwords : first - span;
    long long hi = first + dwords - span < start_limit ? first + dwords - span : start_limit;
    long long n0 = lo + (lo % period ? period - lo % period : 0); /* lo >= 0: history starts in the stream */
    long long windows = n0 < hi ? (hi - 1 - n0) / period + 1 : 0;
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(windows * (span + 1)));
    if (out == NULL) {
        RELEASE_BUFFERS(&hist, &data);
        return NULL;
    }
    uint8_t *rem = (uint8_t *)PyBytes_AS_STRING(out);
    Py_BEGIN_ALLOW_THREADS
    for (long long w = 0; w < windows; w++) {
        long long n = n0 + w * period;
        for (int i = 0; i <= span; i++) {
            long long k = n + i - first; /* the word's index in data; below 0: in history */
            const uint8_t *word = k < 0 ? h + (hwords + k) * word_bytes : d + k * word_bytes;
            unsigned sum = 0;
            for (int j = 0; j < word_bytes; j++)
                sum += word[j];
            rem[w * (span + 1) + i] = (uint8_t)(sum % 3);
        }
    }
    Py_END_ALLOW_THREADS
    RELEASE_BUFFERS(&hist, &data);
    return out;
}

/* the offsets of a set of pairs or triples, each from 1 to span */
static int
offsets_ok(const int64_t *offsets, Py_ssize_t items, long long span)
{
    for (Py_ssize_t i = 0; i < items; i++)
        if (offsets[i] < 1 || offsets[i] > span)
            return 0;
    return 1;
}

/* cell[w] = base[w] + 3 ra[w] + rb[w]: a pair's cell in each window */
SCAN_CLONES static void
pair_cells(const uint8_t *RESTRICT base, const uint8_t *RESTRICT ra, const uint8_t *RESTRICT rb, Py_ssize_t n,
           uint8_t *RESTRICT cell)
{
    for (Py_ssize_t w = 0; w < n; w++)
        cell[w] = (uint8_t)(base[w] + 3 * ra[w] + rb[w]);
}

/* cell[w] = base[w] + 9 ra[w] + 3 rb[w] + rc[w]: a triple's cell in each window */
SCAN_CLONES static void
triple_cells(const uint8_t *RESTRICT base, const uint8_t *RESTRICT ra, const uint8_t *RESTRICT rb,
             const uint8_t *RESTRICT rc, Py_ssize_t n, uint8_t *RESTRICT cell)
{
    for (Py_ssize_t w = 0; w < n; w++)
        cell[w] = (uint8_t)(base[w] + 9 * ra[w] + 3 * rb[w] + rc[w]);
}

static PyObject *
mod3_lag_count(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer rv, pv, pcv, tv, tcv;
    PyObject *pairs_obj, *pair_counts_obj, *triples_obj, *triple_counts_obj;
    int span;
    if (!PyArg_ParseTuple(args, "y*iOOOO", &rv, &span, &pairs_obj, &pair_counts_obj, &triples_obj, &triple_counts_obj))
        return NULL;
    if (span < 2 || span > MAX_LAG_SPAN || rv.len % (span + 1)) {
        RELEASE_BUFFERS(&rv);
        PyErr_SetString(PyExc_ValueError, "span must be from 2 to 128, and the remainders whole windows of span + 1");
        return NULL;
    }
    const uint8_t *rem = (const uint8_t *)rv.buf;
    for (Py_ssize_t i = 0; i < rv.len; i++)
        if (rem[i] > 2) {
            RELEASE_BUFFERS(&rv);
            PyErr_SetString(PyExc_ValueError, "a remainder mod 3 is 0, 1 or 2");
            return NULL;
        }
    if (get_int64_out(pairs_obj, &pv, -1, "pairs") < 0) {
        RELEASE_BUFFERS(&rv);
        return NULL;
    }
    if (get_int64_out(triples_obj, &tv, -1, "triples") < 0) {
        RELEASE_BUFFERS(&rv, &pv);
        return NULL;
    }
    Py_ssize_t n_pairs = pv.len / 8 == 1 && ((int64_t *)pv.buf)[0] == 0 ? 0 : pv.len / 16;
    Py_ssize_t n_triples = tv.len / 8 == 1 && ((int64_t *)tv.buf)[0] == 0 ? 0 : tv.len / 24;
    if ((n_pairs && (pv.len % 16 || !offsets_ok(pv.buf, 2 * n_pairs, span))) ||
        (n_triples && (tv.len % 24 || !offsets_ok(tv.buf, 3 * n_triples, span)))) {
        RELEASE_BUFFERS(&rv, &pv, &tv);
        PyErr_SetString(PyExc_ValueError, "pairs and triples hold 2 and 3 offsets each, from 1 to span");
        return NULL;
    }
    if (get_int64_out(pair_counts_obj, &pcv, n_pairs ? 27 * n_pairs : 1, "pair_counts") < 0) {
        RELEASE_BUFFERS(&rv, &pv, &tv);
        return NULL;
    }
    if (get_int64_out(triple_counts_obj, &tcv, n_triples ? 81 * n_triples : 1, "triple_counts") < 0) {
        RELEASE_BUFFERS(&rv, &pv, &tv, &pcv);
        return NULL;
    }
    const int64_t *pairs = (const int64_t *)pv.buf, *triples = (const int64_t *)tv.buf;
    int64_t *pc = (int64_t *)pcv.buf, *tc = (int64_t *)tcv.buf;
    Py_ssize_t windows = rv.len / (span + 1);
    /* the remainders by offset (each offset's windows in a row), and 9 r_0
     * and 27 r_0: a candidate's cells are then sums of rows, which the
     * compiler vectorises, leaving only the increments one at a time */
    uint8_t *by_offset = malloc((size_t)(span + 3) * (size_t)windows + (size_t)windows);
    if (windows && by_offset == NULL) {
        RELEASE_BUFFERS(&rv, &pv, &tv, &pcv, &tcv);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    uint8_t *nine = by_offset + (size_t)(span + 1) * windows, *twenty_seven = nine + windows, *cell = twenty_seven + windows;
    for (Py_ssize_t w = 0; w < windows; w++)
        for (int i = 0; i <= span; i++)
            by_offset[(size_t)i * windows + w] = rem[w * (span + 1) + i];
    for (Py_ssize_t w = 0; w < windows; w++) {
        nine[w] = (uint8_t)(9 * by_offset[w]);
        twenty_seven[w] = (uint8_t)(27 * by_offset[w]);
    }
    for (Py_ssize_t k = 0; k < n_pairs; k++) {
        const uint8_t *ra = by_offset + pairs[2 * k] * windows, *rb = by_offset + pairs[2 * k + 1] * windows;
        pair_cells(nine, ra, rb, windows, cell);
        int64_t *row = pc + 27 * k;
        for (Py_ssize_t w = 0; w < windows; w++)
            row[cell[w]]++;
    }
    for (Py_ssize_t k = 0; k < n_triples; k++) {
        const uint8_t *ra = by_offset + triples[3 * k] * windows, *rb = by_offset + triples[3 * k + 1] * windows,
                      *rc = by_offset + triples[3 * k + 2] * windows;
        triple_cells(twenty_seven, ra, rb, rc, windows, cell);
        int64_t *row = tc + 81 * k;
        for (Py_ssize_t w = 0; w < windows; w++)
            row[cell[w]]++;
    }
    Py_END_ALLOW_THREADS
    free(by_offset);
    RELEASE_BUFFERS(&rv, &pv, &tv, &pcv, &tcv);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"mod3_tuple_scan", mod3_tuple_scan, METH_VARARGS,
     "mod3_tuple_scan(data, levels, tuple_length, counts, state): counts of overlapping tuples of block remainders "
     "mod 3 at block sizes 1, 2, 4, ... bytes"},
    {"mod3_window_remainders", mod3_window_remainders, METH_VARARGS,
     "mod3_window_remainders(history, data, first, word_bytes, span, period, start_limit) -> bytes: the remainders "
     "mod 3 of the words of each window of span + 1 words that starts on a multiple of period and ends in data"},
    {"mod3_lag_count", mod3_lag_count, METH_VARARGS,
     "mod3_lag_count(remainders, span, pairs, pair_counts, triples, triple_counts): the joint remainders of each "
     "window's first word and the words at the given offsets"},
    {NULL, NULL, 0, NULL},
};

RANDQA_MODULE(_mod3, "randqa.battery._mod3", "The kernels of the tests of remainders mod 3.", methods);
