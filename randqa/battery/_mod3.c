/*
 * The kernel of the mod3 test: overlapping tuples of the remainders mod 3
 * of blocks of 1, 2, 4, ... bytes.
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

static PyMethodDef methods[] = {
    {"mod3_tuple_scan", mod3_tuple_scan, METH_VARARGS,
     "mod3_tuple_scan(data, levels, tuple_length, counts, state): counts of overlapping tuples of block remainders "
     "mod 3 at block sizes 1, 2, 4, ... bytes"},
    {NULL, NULL, 0, NULL},
};

RANDQA_MODULE(_mod3, "randqa.battery._mod3", "The kernel of the mod3 test.", methods);
