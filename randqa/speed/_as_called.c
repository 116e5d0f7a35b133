/*
 * Generators as applications call them, for timing (randqa.speed).
 *
 * libc_rand_fill: the real libc rand(), one call per output, as a program
 * linked against libc pays for it (call overhead and libc's lock
 * included).  randqa's tests read a batched, bit-exact reimplementation
 * of glibc's generator instead (sources/_generators.c), which is many times
 * faster than this and so the wrong thing to time.
 *
 * nmap_harness_run / nmap_harness_fill: the harness of nmap-dev's PRNG
 * benchmark (Brandon Enright's mail, 2008): nbase's get_random_bytes()
 * serving a 2 KiB cache that the chosen option refills, consumed through
 * get_random_u32() four bytes at a time.  The cache logic follows
 * nbase_rnd.c of that time (fopen "/dev/arandom", else "/dev/urandom",
 * fread 2048 bytes, fclose, on every refill; rand() stored a short at a
 * time in its fallback).  The options: /dev/urandom; OpenSSL RAND_bytes
 * (called through the address of the function Python's ctypes found in the
 * system's libcrypto, so building needs no OpenSSL headers); rand() a byte
 * at a time; rand() a short at a time; libdnet's ARC4 (rand_set keying,
 * rand_get), the same code as the dnet-arc4 backend (sources/_rc4.h).
 * get_random_bytes and get_random_u32 are kept out of line, as they were
 * in nbase, a separately compiled library.
 *
 * Nothing here keeps state between calls: the harness's cache lives in
 * the call; rand()'s state is libc's own.  The GIL is released while
 * generating.
 */
#include "../_module.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

#include "../sources/_rc4.h"

static inline void store_le16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

/* Optional unsigned 32-bit seed: None -> *given = 0 */
static int
get_seed(PyObject *obj, unsigned int *seed, int *given)
{
    *given = 0;
    if (obj == NULL || obj == Py_None)
        return 0;
    if (!PyLong_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "seed must be an int or None");
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if ((v == (unsigned long long)-1 && PyErr_Occurred()) || v > 0xffffffffULL) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "seed must be in [0, 2**32) (srand takes an unsigned int)");
        return -1;
    }
    *seed = (unsigned int)v;
    *given = 1;
    return 0;
}

/* ------------------------------------------------------------------ */
/* libc rand(), one call per output                                     */

static PyObject *
libc_rand_fill(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"buffer", "mode", "seed", NULL};
    Py_buffer view;
    int mode;
    PyObject *seed_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "w*i|O", kwlist, &view, &mode, &seed_obj))
        return NULL;
    static const size_t widths[3] = {4, 1, 2};
    unsigned int seed = 0;
    int seeded = 0;
    if (mode < 0 || mode > 2) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_ValueError, "mode must be 0 (31-bit words), 1 (bytes) or 2 (shorts)");
    }
    if (!PyBuffer_IsContiguous(&view, 'C') || (size_t)view.len % widths[mode] != 0) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_ValueError, "buffer must be contiguous and a multiple of %zu bytes for mode %d",
                            widths[mode], mode);
    }
    if (get_seed(seed_obj, &seed, &seeded) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    uint8_t *out = (uint8_t *)view.buf;
    size_t n = (size_t)view.len / widths[mode];
    Py_BEGIN_ALLOW_THREADS
    if (seeded)
        srand(seed);
    switch (mode) {
    case 0:
        for (size_t k = 0; k < n; k++)
            store_le32(out + 4 * k, (uint32_t)rand());
        break;
    case 1:
        for (size_t k = 0; k < n; k++)
            out[k] = (uint8_t)rand();
        break;
    default:
        for (size_t k = 0; k < n; k++)
            store_le16(out + 2 * k, (uint32_t)rand());
        break;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ */
/* nmap's harness: get_random_u32() over a 2 KiB cache                  */

#define NMAP_CACHE 2048

enum { OPT_URANDOM, OPT_OPENSSL, OPT_RAND_BYTE, OPT_RAND_SHORT, OPT_DNET_ARC4, OPT_COUNT };
static const char *const option_names[OPT_COUNT] = {"urandom", "openssl", "rand-byte", "rand-short", "dnet-arc4"};

typedef int (*rand_bytes_fn)(unsigned char *buf, int num);

typedef struct {
    int option;
    rand_bytes_fn rand_bytes;
    rc4_state arc4;
    unsigned char bytebuf[NMAP_CACHE];
    int bytesleft;
    /* 0, or what stopped a refill: an errno, or -1 when RAND_bytes failed */
    int error;
} nmap_cache;

static int
refill(nmap_cache *c)
{
    switch (c->option) {
    case OPT_URANDOM: {
        FILE *fp = fopen("/dev/arandom", "r");
        if (!fp)
            fp = fopen("/dev/urandom", "r");
        if (!fp) {
            c->error = errno ? errno : ENOENT;
            return -1;
        }
        size_t got = fread(c->bytebuf, 1, NMAP_CACHE, fp);
        fclose(fp);
        if (got != NMAP_CACHE) {
            c->error = EIO;
            return -1;
        }
        break;
    }
    case OPT_OPENSSL:
        if (c->rand_bytes(c->bytebuf, NMAP_CACHE) != 1) {
            c->error = -1;
            return -1;
        }
        break;
    case OPT_RAND_BYTE:
        for (int k = 0; k < NMAP_CACHE; k++)
            c->bytebuf[k] = (unsigned char)rand();
        break;
    case OPT_RAND_SHORT:
        /* nbase stored each rand() as a native short; little-endian, as on the mail's x86 */
        for (int k = 0; k < NMAP_CACHE / 2; k++)
            store_le16(c->bytebuf + 2 * k, (uint32_t)rand());
        break;
    default:
        rc4_keystream(&c->arc4, c->bytebuf, NMAP_CACHE);
        break;
    }
    c->bytesleft = NMAP_CACHE;
    return 0;
}

static NOINLINE int
get_random_bytes(nmap_cache *c, void *buf, int numbytes)
{
    unsigned char *out = buf;
    if (numbytes < 0 || numbytes > 0xFFFF)
        return -1;
    for (;;) {
        if (c->bytesleft == 0 && refill(c) < 0)
            return -1;
        if (numbytes <= c->bytesleft) {
            memcpy(out, c->bytebuf + (NMAP_CACHE - c->bytesleft), (size_t)numbytes);
            c->bytesleft -= numbytes;
            return 0;
        }
        memcpy(out, c->bytebuf + (NMAP_CACHE - c->bytesleft), (size_t)c->bytesleft);
        out += c->bytesleft;
        numbytes -= c->bytesleft;
        c->bytesleft = 0;
    }
}

static NOINLINE uint32_t
get_random_u32(nmap_cache *c)
{
    uint32_t i = 0;
    get_random_bytes(c, &i, sizeof i);
    return i;
}

/* Parse (option, seed, rand_bytes address) into a fresh cache; -1 with an exception set */
static int
harness_setup(nmap_cache *c, const char *option, PyObject *seed_obj, unsigned long long rand_bytes)
{
    int found = -1;
    for (int k = 0; k < OPT_COUNT; k++)
        if (strcmp(option, option_names[k]) == 0)
            found = k;
    if (found < 0) {
        PyErr_Format(PyExc_ValueError, "option must be one of urandom, openssl, rand-byte, rand-short, dnet-arc4, not %.40s",
                     option);
        return -1;
    }
    unsigned int seed = 1;
    int seeded = 0;
    if (get_seed(seed_obj, &seed, &seeded) < 0)
        return -1;
    if (found == OPT_OPENSSL && rand_bytes == 0) {
        PyErr_SetString(PyExc_ValueError, "openssl needs the address of libcrypto's RAND_bytes");
        return -1;
    }
    memset(c, 0, sizeof *c);
    c->option = found;
    c->rand_bytes = (rand_bytes_fn)(uintptr_t)rand_bytes;
    if (found == OPT_DNET_ARC4) {
        /* the dnet-arc4 backend's key: the seed as 8 little-endian bytes */
        uint8_t key[8] = {0};
        store_le32(key, seed);
        dnet_rand_set(&c->arc4, key, sizeof key);
    } else if (found == OPT_RAND_BYTE || found == OPT_RAND_SHORT) {
        srand(seed);
    }
    return 0;
}

static PyObject *
harness_error(const nmap_cache *c)
{
    if (c->error == -1)
        return PyErr_Format(PyExc_OSError, "RAND_bytes failed");
    errno = c->error;
    return PyErr_SetFromErrnoWithFilename(PyExc_OSError, "/dev/urandom");
}

/* nmap_harness_run(option, nbytes, seed=1, rand_bytes=0) -> XOR of the words */
static PyObject *
nmap_harness_run(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"option", "nbytes", "seed", "rand_bytes", NULL};
    const char *option;
    long long nbytes;
    PyObject *seed_obj = Py_None;
    unsigned long long rand_bytes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sL|OK", kwlist, &option, &nbytes, &seed_obj, &rand_bytes))
        return NULL;
    if (nbytes < 0 || nbytes % 4 != 0)
        return PyErr_Format(PyExc_ValueError, "nbytes must be a non-negative multiple of 4, not %lld", nbytes);
    nmap_cache *c = PyMem_Malloc(sizeof *c);
    if (c == NULL)
        return PyErr_NoMemory();
    if (harness_setup(c, option, seed_obj, rand_bytes) < 0) {
        PyMem_Free(c);
        return NULL;
    }
    uint32_t folded = 0;
    long long words = nbytes / 4;
    Py_BEGIN_ALLOW_THREADS
    for (long long k = 0; k < words && !c->error; k++)
        folded ^= get_random_u32(c);
    Py_END_ALLOW_THREADS
    PyObject *result = c->error ? harness_error(c) : PyLong_FromUnsignedLong(folded);
    PyMem_Free(c);
    return result;
}

/* nmap_harness_fill(option, buffer, seed=1, rand_bytes=0): the words, in order */
static PyObject *
nmap_harness_fill(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"option", "buffer", "seed", "rand_bytes", NULL};
    const char *option;
    Py_buffer view;
    PyObject *seed_obj = Py_None;
    unsigned long long rand_bytes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sw*|OK", kwlist, &option, &view, &seed_obj, &rand_bytes))
        return NULL;
    if (!PyBuffer_IsContiguous(&view, 'C') || view.len % 4 != 0) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_ValueError, "buffer must be contiguous and a multiple of 4 bytes");
    }
    nmap_cache *c = PyMem_Malloc(sizeof *c);
    if (c == NULL) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    if (harness_setup(c, option, seed_obj, rand_bytes) < 0) {
        PyMem_Free(c);
        PyBuffer_Release(&view);
        return NULL;
    }
    uint8_t *out = (uint8_t *)view.buf;
    size_t words = (size_t)view.len / 4;
    Py_BEGIN_ALLOW_THREADS
    for (size_t k = 0; k < words && !c->error; k++) {
        uint32_t w = get_random_u32(c);
        memcpy(out + 4 * k, &w, 4);
    }
    Py_END_ALLOW_THREADS
    PyObject *result = c->error ? harness_error(c) : (Py_INCREF(Py_None), Py_None);
    PyMem_Free(c);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef module_methods[] = {
    {"libc_rand_fill", (PyCFunction)(void (*)(void))libc_rand_fill, METH_VARARGS | METH_KEYWORDS,
     "libc_rand_fill(buffer, mode, seed=None): srand(seed) when a seed is given, then libc's rand() once per output: "
     "mode 0 writes 31-bit values as 4 LE bytes, 1 rand() & 0xff, 2 rand() & 0xffff as 2 LE bytes."},
    {"nmap_harness_run", (PyCFunction)(void (*)(void))nmap_harness_run, METH_VARARGS | METH_KEYWORDS,
     "nmap_harness_run(option, nbytes, seed=1, rand_bytes=0): nbytes / 4 calls of nmap's get_random_u32() over a "
     "2 KiB cache refilled by option; returns the XOR of the words."},
    {"nmap_harness_fill", (PyCFunction)(void (*)(void))nmap_harness_fill, METH_VARARGS | METH_KEYWORDS,
     "nmap_harness_fill(option, buffer, seed=1, rand_bytes=0): the same harness, writing each word into buffer."},
    {NULL, NULL, 0, NULL},
};

RANDQA_MODULE(_as_called, "randqa.speed._as_called",
              "Generators as applications call them: libc rand() and nmap's benchmark harness, for timing.",
              module_methods);
