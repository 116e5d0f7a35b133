/*
 * Seed search kernels (randqa.predict.seed_search): for every 32-bit seed
 * in [lo, hi), seed a named generator the way its library does and compare
 * its first outputs with the observed ones.
 *
 *   glibc_srand_scan   glibc srand(seed) then rand() (random_r TYPE_3: r[0] =
 *                      seed, 0 -> 1, r[1..30] by Park-Miller 16807 on the
 *                      signed value, r[i] = r[i-3] + r[i-31], 310 discarded,
 *                      output r >> 1)
 *   mt19937_scan       MT19937 init_genrand(seed) then genrand_int32()
 *   python_random_scan CPython random.seed(seed): init_by_array([seed])
 *
 * Each writes the seeds whose first k outputs, ANDed with `mask`, equal
 * targets[0..k) into the caller's int64 array `found` (as many as fit) and
 * returns how many matched.  Matches are candidates: the Python side checks
 * each against the whole observed prefix with the real backend.  No state
 * is kept; the loops run without the GIL, several seeds side by side
 * (LANES) so that the compiler can vectorise the seeding chains.
 */
#include "../_module.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../sources/_mt19937.h"

#define LANES 32

/* the seeding chains of LANES seeds side by side vectorise best with AVX2 */
#define SCAN_CLONES RANDQA_CLONES("avx2", "default")
#define MAX_TARGETS 8
#define GLIBC_DEG 31
#define GLIBC_SEP 3
#define GLIBC_FIRST (GLIBC_DEG + 10 * GLIBC_DEG + GLIBC_SEP) /* r index of the first rand() output */

typedef int (*scan_fn)(uint64_t lo, uint64_t hi, const uint32_t *targets, int k, uint32_t mask,
                       int64_t *found, Py_ssize_t capacity, Py_ssize_t *count);

static inline void
record(int64_t *found, Py_ssize_t capacity, Py_ssize_t *count, uint64_t seed)
{
    if (*count < capacity)
        found[*count] = (int64_t)seed;
    (*count)++;
}

/* ------------------------------------------------------------------ */

/* Every r[i] with i >= 31 is a fixed Z/2^32-linear combination of r[0..30]
 * (r[31..33] repeat r[0..2], then r[i] = r[i-31] + r[i-3]), and r[i] for
 * 1 <= i <= 30 is 16807^i * r[0] mod (2^31 - 1) with r[0] read as a signed
 * int32, as glibc's Schrage step leaves it.  So the first output costs 30
 * independent multiplications mod 2^31 - 1 and 31 multiply-adds. */
static int
glibc_output_coefficients(uint32_t coef[MAX_TARGETS][GLIBC_DEG], int k)
{
    uint32_t (*c)[GLIBC_DEG] = calloc(GLIBC_FIRST + MAX_TARGETS, sizeof *c);
    if (!c)
        return -1;
    for (int i = 0; i < GLIBC_DEG; i++)
        c[i][i] = 1;
    for (int i = GLIBC_DEG; i < GLIBC_DEG + GLIBC_SEP; i++)
        memcpy(c[i], c[i - GLIBC_DEG], sizeof c[i]);
    for (int i = GLIBC_DEG + GLIBC_SEP; i < GLIBC_FIRST + k; i++)
        for (int m = 0; m < GLIBC_DEG; m++)
            c[i][m] = c[i - GLIBC_DEG][m] + c[i - GLIBC_SEP][m];
    for (int j = 0; j < k; j++)
        memcpy(coef[j], c[GLIBC_FIRST + j], sizeof coef[j]);
    free(c);
    return 0;
}

static inline uint64_t
mod_mersenne31(uint64_t x)
{
    x = (x & 0x7fffffffu) + (x >> 31);
    x = (x & 0x7fffffffu) + (x >> 31);
    return x >= 0x7fffffffu ? x - 0x7fffffffu : x;
}

SCAN_CLONES static int
glibc_scan(uint64_t lo, uint64_t hi, const uint32_t *targets, int k, uint32_t mask,
           int64_t *found, Py_ssize_t capacity, Py_ssize_t *count)
{
    uint32_t coef[MAX_TARGETS][GLIBC_DEG];
    uint64_t power[GLIBC_DEG]; /* 16807^i mod (2^31 - 1) */
    if (glibc_output_coefficients(coef, k) < 0)
        return -1;
    power[0] = 1;
    for (int i = 1; i < GLIBC_DEG; i++)
        power[i] = (power[i - 1] * 16807u) % 2147483647u;
    for (uint64_t base = lo; base < hi; base += LANES) {
        uint32_t r[GLIBC_DEG][LANES], out[LANES];
        for (int l = 0; l < LANES; l++) {
            uint32_t s = (uint32_t)(base + (uint64_t)l);
            r[0][l] = s ? s : 1u;
        }
        /* the signed seed's residue mod 2^31 - 1 */
        uint64_t res[LANES];
        for (int l = 0; l < LANES; l++) {
            int64_t v = (int64_t)(int32_t)r[0][l] % 2147483647;
            res[l] = (uint64_t)(v < 0 ? v + 2147483647 : v);
        }
        for (int i = 1; i < GLIBC_DEG; i++)
            for (int l = 0; l < LANES; l++)
                r[i][l] = (uint32_t)mod_mersenne31(power[i] * res[l]);
        for (int l = 0; l < LANES; l++)
            out[l] = 0;
        for (int m = 0; m < GLIBC_DEG; m++)
            for (int l = 0; l < LANES; l++)
                out[l] += coef[0][m] * r[m][l];
        for (int l = 0; l < LANES && base + (uint64_t)l < hi; l++) {
            if (((out[l] >> 1) & mask) != targets[0])
                continue;
            int j = 1;
            for (; j < k; j++) {
                uint32_t o = 0;
                for (int m = 0; m < GLIBC_DEG; m++)
                    o += coef[j][m] * r[m][l];
                if (((o >> 1) & mask) != targets[j])
                    break;
            }
            if (j == k)
                record(found, capacity, count, base + (uint64_t)l);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */

/* The first k outputs from a seeded array mt[0..624) of one lane: output j
 * is the tempered twist of mt[j], mt[j+1], mt[j+397] (k < 227). */
static int
mt_outputs_match(const uint32_t (*mt)[LANES], int lane, const uint32_t *targets, int k, uint32_t mask)
{
    for (int j = 0; j < k; j++)
        if ((mt_temper(mt_mix(mt[j][lane], mt[j + 1][lane], mt[j + MT_M][lane])) & mask) != targets[j])
            return 0;
    return 1;
}

SCAN_CLONES static int
mt19937_scan(uint64_t lo, uint64_t hi, const uint32_t *targets, int k, uint32_t mask,
             int64_t *found, Py_ssize_t capacity, Py_ssize_t *count)
{
    /* init_genrand needs mt[0 .. 397 + k] for the first k outputs */
    uint32_t (*mt)[LANES] = malloc(sizeof(uint32_t[MT_M + MAX_TARGETS + 1][LANES]));
    if (!mt)
        return -1;
    int upto = MT_M + k + 1;
    for (uint64_t base = lo; base < hi; base += LANES) {
        /* the chain runs in registers (prev), the rows are only stored */
        uint32_t prev[LANES];
        for (int l = 0; l < LANES; l++)
            mt[0][l] = prev[l] = (uint32_t)(base + (uint64_t)l);
        for (int i = 1; i < upto; i++) {
            for (int l = 0; l < LANES; l++)
                prev[l] = 1812433253u * (prev[l] ^ (prev[l] >> 30)) + (uint32_t)i;
            memcpy(mt[i], prev, sizeof prev);
        }
        for (int l = 0; l < LANES && base + (uint64_t)l < hi; l++)
            if (mt_outputs_match((const uint32_t (*)[LANES])mt, l, targets, k, mask))
                record(found, capacity, count, base + (uint64_t)l);
    }
    free(mt);
    return 0;
}

/* ------------------------------------------------------------------ */

SCAN_CLONES static int
python_random_scan(uint64_t lo, uint64_t hi, const uint32_t *targets, int k, uint32_t mask,
                   int64_t *found, Py_ssize_t capacity, Py_ssize_t *count)
{
    /* init_by_array(key = [seed]) starts from init_genrand(19650218), the
     * same for every seed */
    uint32_t base_state[MT_N];
    base_state[0] = 19650218u;
    for (int i = 1; i < MT_N; i++)
        base_state[i] = 1812433253u * (base_state[i - 1] ^ (base_state[i - 1] >> 30)) + (uint32_t)i;
    uint32_t (*mt)[LANES] = malloc(sizeof(uint32_t[MT_N][LANES]));
    if (!mt)
        return -1;
    for (uint64_t base = lo; base < hi; base += LANES) {
        uint32_t key[LANES];
        for (int l = 0; l < LANES; l++)
            key[l] = (uint32_t)(base + (uint64_t)l);
        for (int i = 0; i < MT_N; i++)
            for (int l = 0; l < LANES; l++)
                mt[i][l] = base_state[i];
        /* key length 1: j stays 0, so every step adds key[0] + 0 */
        /* prev carries mt[i - 1] in registers through both loops */
        uint32_t prev[LANES];
        memcpy(prev, mt[0], sizeof prev);
        int i = 1;
        for (int step = 0; step < MT_N; step++) {
            for (int l = 0; l < LANES; l++)
                prev[l] = (mt[i][l] ^ ((prev[l] ^ (prev[l] >> 30)) * 1664525u)) + key[l];
            memcpy(mt[i], prev, sizeof prev);
            if (++i >= MT_N) {
                memcpy(mt[0], prev, sizeof prev);
                i = 1;
            }
        }
        for (int step = 0; step < MT_N - 1; step++) {
            for (int l = 0; l < LANES; l++)
                prev[l] = (mt[i][l] ^ ((prev[l] ^ (prev[l] >> 30)) * 1566083941u)) - (uint32_t)i;
            memcpy(mt[i], prev, sizeof prev);
            if (++i >= MT_N) {
                memcpy(mt[0], prev, sizeof prev);
                i = 1;
            }
        }
        for (int l = 0; l < LANES; l++)
            mt[0][l] = 0x80000000u;
        for (int l = 0; l < LANES && base + (uint64_t)l < hi; l++)
            if (mt_outputs_match((const uint32_t (*)[LANES])mt, l, targets, k, mask))
                record(found, capacity, count, base + (uint64_t)l);
    }
    free(mt);
    return 0;
}

/* ------------------------------------------------------------------ */

static PyObject *
run_scan(PyObject *args, scan_fn scan)
{
    unsigned long long lo, hi;
    unsigned long mask;
    Py_buffer tv, fv;
    if (!PyArg_ParseTuple(args, "KKy*kw*", &lo, &hi, &tv, &mask, &fv))
        return NULL;
    const char *err = NULL;
    if (lo > hi || hi > (1ULL << 32))
        err = "need 0 <= lo <= hi <= 2**32";
    else if (tv.len % 4 || tv.len == 0 || tv.len / 4 > MAX_TARGETS)
        err = "targets must be 1 to 8 uint32 values";
    else if (fv.len % 8 || fv.len == 0)
        err = "found must be a writable int64 array";
    else if (mask > 0xffffffffUL)
        err = "mask must fit in 32 bits";
    if (err) {
        PyErr_SetString(PyExc_ValueError, err);
        PyBuffer_Release(&tv);
        PyBuffer_Release(&fv);
        return NULL;
    }
    uint32_t targets[MAX_TARGETS];
    int k = (int)(tv.len / 4);
    memcpy(targets, tv.buf, (size_t)tv.len);
    Py_ssize_t count = 0;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = scan(lo, hi, targets, k, (uint32_t)mask, fv.buf, fv.len / 8, &count);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&tv);
    PyBuffer_Release(&fv);
    if (status < 0)
        return PyErr_NoMemory();
    return PyLong_FromSsize_t(count);
}

static PyObject *glibc_srand_scan(PyObject *Py_UNUSED(self), PyObject *args) { return run_scan(args, glibc_scan); }
static PyObject *mt19937_init_genrand_scan(PyObject *Py_UNUSED(self), PyObject *args) { return run_scan(args, mt19937_scan); }
static PyObject *python_random_seed_scan(PyObject *Py_UNUSED(self), PyObject *args) { return run_scan(args, python_random_scan); }

static PyMethodDef methods[] = {
    {"glibc_srand_scan", glibc_srand_scan, METH_VARARGS,
     "glibc_srand_scan(lo, hi, targets, mask, found) -> count of seeds whose first rand() outputs & mask match."},
    {"mt19937_init_genrand_scan", mt19937_init_genrand_scan, METH_VARARGS,
     "mt19937_init_genrand_scan(lo, hi, targets, mask, found) -> count (init_genrand seeding)."},
    {"python_random_seed_scan", python_random_seed_scan, METH_VARARGS,
     "python_random_seed_scan(lo, hi, targets, mask, found) -> count (CPython random.seed(int))."},
    {NULL, NULL, 0, NULL},
};

RANDQA_MODULE(_seed_search, "randqa.predict._seed_search",
              "Brute-force 32-bit seed search for named generators' seeding routines.",
              methods);
