/*
 * The Generator object every module of compiled generators shares
 * (_generators.c, the runtime generators): `fill(buffer)` writes exactly
 * len(buffer) bytes of the stream, whatever the buffer's length.
 *
 * A generator writes whole words of `word_bytes` bytes (1 to
 * GENERATOR_MAX_WORD_BYTES: a word may be a group of outputs, such as eight
 * 31-bit values packed into 31 bytes); a word split by a buffer's end is
 * kept in `pending`, so the byte stream never depends on how callers cut it.
 *
 * The including module defines, before including this header:
 *   typedef union { ... } generator_state;   the states of its generators
 *   #define GENERATOR_TYPE_NAME "randqa.sources.<module>.Generator"
 * Each module so gets its own type object, with the same methods.
 *
 * Generators whose outputs are values of b bits (b <= 64; 31 for a 31-bit
 * rand(), 52 for a V8 double) write them packed: eight values make one word
 * of b bytes, the first value in the lowest bits (PACKED_FILL).
 */
#ifndef RANDQA_GENERATOR_OBJECT_H
#define RANDQA_GENERATOR_OBJECT_H

#include <stdint.h>
#include <string.h>

/* Explicit byte order, so streams are the same on every machine. */
static inline void store_le16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void store_le64(uint8_t *p, uint64_t v)
{
    store_le32(p, (uint32_t)v);
    store_le32(p + 4, (uint32_t)(v >> 32));
}
static inline uint64_t rol64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

#define GENERATOR_MAX_WORD_BYTES 64

typedef struct GenObject GenObject;
typedef void (*fill_words_fn)(GenObject *g, uint8_t *RESTRICT out, size_t nwords);

struct GenObject {
    PyObject_HEAD
    fill_words_fn fill_words;
    const char *algorithm;
    void *owned; /* memory the state points into, freed with the object (NULL: none) */
    unsigned word_bytes;
    uint8_t pending[GENERATOR_MAX_WORD_BYTES];
    unsigned pending_pos, pending_len;
    int busy;
    generator_state st;
};

static PyTypeObject GenType;

static GenObject *
gen_new(fill_words_fn fill, unsigned word_bytes, const char *algorithm)
{
    if (word_bytes < 1 || word_bytes > GENERATOR_MAX_WORD_BYTES) {
        PyErr_Format(PyExc_SystemError, "word of %u bytes: at most %d", word_bytes, GENERATOR_MAX_WORD_BYTES);
        return NULL;
    }
    GenObject *g = PyObject_New(GenObject, &GenType);
    if (g == NULL)
        return NULL;
    g->fill_words = fill;
    g->word_bytes = word_bytes;
    g->algorithm = algorithm;
    g->owned = NULL;
    g->pending_pos = g->pending_len = 0;
    g->busy = 0;
    memset(&g->st, 0, sizeof g->st);
    return g;
}

static void
gen_dealloc(GenObject *g)
{
    PyMem_Free(g->owned);
    PyObject_Free(g);
}

/* fill(buffer): write exactly len(buffer) bytes of the stream */
static PyObject *
gen_fill(GenObject *g, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (g->busy) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_RuntimeError, "generator is already filling a buffer in another thread");
        return NULL;
    }
    g->busy = 1;
    uint8_t *p = (uint8_t *)view.buf;
    size_t n = (size_t)view.len;
    int release = n >= 65536;
    PyThreadState *ts = release ? PyEval_SaveThread() : NULL;

    size_t have = g->pending_len - g->pending_pos;
    size_t take = have < n ? have : n;
    memcpy(p, g->pending + g->pending_pos, take);
    g->pending_pos += (unsigned)take;
    p += take;
    n -= take;
    size_t words = n / g->word_bytes;
    if (words)
        g->fill_words(g, p, words);
    p += words * g->word_bytes;
    n -= words * g->word_bytes;
    if (n) {
        g->fill_words(g, g->pending, 1);
        memcpy(p, g->pending, n);
        g->pending_pos = (unsigned)n;
        g->pending_len = g->word_bytes;
    }

    if (release)
        PyEval_RestoreThread(ts);
    g->busy = 0;
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

static PyObject *
gen_get_word_bytes(GenObject *g, void *Py_UNUSED(closure))
{
    return PyLong_FromUnsignedLong(g->word_bytes);
}

static PyObject *
gen_get_algorithm(GenObject *g, void *Py_UNUSED(closure))
{
    return PyUnicode_FromString(g->algorithm);
}

/* state(): the generator's state as raw bytes (the union member at offset
 * 0, in native layout), so jumps computed elsewhere can start from it.
 * Only defined between words: a split word's remainder is not part of it. */
static PyObject *
gen_state(GenObject *g, PyObject *Py_UNUSED(unused))
{
    if (g->pending_pos < g->pending_len)
        return PyErr_Format(PyExc_ValueError, "generator is inside a word; its state is defined only between words");
    return PyBytes_FromStringAndSize((const char *)&g->st, sizeof g->st);
}

static PyMethodDef gen_methods[] = {
    {"fill", (PyCFunction)gen_fill, METH_O, "fill(buffer): write the next len(buffer) bytes of the stream into it."},
    {"state", (PyCFunction)gen_state, METH_NOARGS, "state(): the raw state bytes (native layout), between words only."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef gen_getset[] = {
    {"word_bytes", (getter)gen_get_word_bytes, NULL, "bytes per generator word", NULL},
    {"algorithm", (getter)gen_get_algorithm, NULL, "short algorithm name", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject GenType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = GENERATOR_TYPE_NAME,
    .tp_basicsize = sizeof(GenObject),
    .tp_dealloc = (destructor)gen_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A compiled generator; made by this module's constructor functions.",
    .tp_methods = gen_methods,
    .tp_getset = gen_getset,
};

/* Eight values of `bits` bits each, concatenated from the least significant
 * bit of the first into `bits` bytes. */
static inline void
pack8(uint8_t *RESTRICT out, const uint64_t v[8], unsigned bits)
{
    if (bits == 64) {
        for (int k = 0; k < 8; k++)
            store_le64(out + 8 * k, v[k]);
        return;
    }
    if (bits == 32) {
        for (int k = 0; k < 8; k++)
            store_le32(out + 4 * k, (uint32_t)v[k]);
        return;
    }
    uint64_t acc = 0;
    unsigned have = 0; /* bits waiting in acc, always < 8 between values */
    for (int k = 0; k < 8; k++) {
        uint64_t x = v[k];
        unsigned left = bits;
        while (left) {
            unsigned take = left < 56 ? left : 56;
            acc |= (x & ((1ULL << take) - 1)) << have;
            x >>= take;
            left -= take;
            have += take;
            while (have >= 8) {
                *out++ = (uint8_t)acc;
                acc >>= 8;
                have -= 8;
            }
        }
    }
}

/* The fill function NAME of a generator whose state is g->st.MEMBER and
 * whose next BITS-bit value NEXT(&state) returns. */
#define PACKED_FILL(NAME, MEMBER, NEXT, BITS)                            \
    static void NAME(GenObject *g, uint8_t *RESTRICT out, size_t nwords) \
    {                                                                    \
        for (size_t w = 0; w < nwords; w++) {                            \
            uint64_t v[8];                                               \
            for (int k = 0; k < 8; k++)                                  \
                v[k] = NEXT(&g->st.MEMBER);                              \
            pack8(out + (size_t)(BITS) * w, v, BITS);                    \
        }                                                                \
    }

/* How a constructor of one seed argument starts a new generator's state. */
typedef void (*seed_state_fn)(GenObject *g, uint64_t seed);

/* A generator of `word_bytes`-byte words whose state seed_state(g, seed)
 * starts from the one argument, a seed in [0, 2**seed_bits). */
static PyObject *
make_seeded(PyObject *args, int seed_bits, fill_words_fn fill, unsigned word_bytes, const char *algorithm,
            seed_state_fn seed_state)
{
    PyObject *seed_obj;
    uint64_t seed;
    if (!PyArg_ParseTuple(args, "O", &seed_obj) || get_uint(seed_obj, seed_bits, "seed", &seed) < 0)
        return NULL;
    GenObject *g = gen_new(fill, word_bytes, algorithm);
    if (g)
        seed_state(g, seed);
    return (PyObject *)g;
}

/* The module function make_<name>(seed) of a generator that the statement
 * `seeding` starts from `seed` (in [0, 2**seed_bits)) into `g`, and the
 * <name>_seed function that runs it. */
#define SEEDED_CONSTRUCTOR(name, seed_bits, fill, word_bytes, algorithm, seeding)        \
    static void name##_seed(GenObject *g, uint64_t seed)                                 \
    {                                                                                    \
        seeding;                                                                         \
    }                                                                                    \
    static PyObject *make_##name(PyObject *Py_UNUSED(self), PyObject *args)              \
    {                                                                                    \
        return make_seeded(args, seed_bits, fill, word_bytes, algorithm, name##_seed);   \
    }

#endif
