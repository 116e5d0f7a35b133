/*
 * What every compiled module of randqa has in common: its definition and
 * PyInit function, and the argument checks several of them make.  Every C
 * file includes it first (it defines PY_SSIZE_T_CLEAN before Python.h).
 *
 * The modules keep no state of their own (m_size = -1, no globals that
 * change after init), so one static definition per module is enough.
 */
#ifndef RANDQA_MODULE_H
#define RANDQA_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* RESTRICT: C99 restrict, which lets the compiler assume an output array
 * aliases no other pointer (the kernels write into caller-owned arrays) */
#if defined(__GNUC__)
#define RESTRICT __restrict__
#else
#define RESTRICT
#endif

/* RANDQA_CLONES("avx2", "default"): versions of a function for several
 * instruction sets, the one for this CPU chosen when the module loads.
 * target_clones needs the loader's ifunc support, so GCC on glibc x86 only;
 * elsewhere (macOS, musl, arm64, clang) and with -DRANDQA_NO_CLONES one
 * portable version is built. */
#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__)) && \
    defined(__linux__) && defined(__GLIBC__) && !defined(RANDQA_NO_CLONES)
#define RANDQA_CLONES(...) __attribute__((target_clones(__VA_ARGS__)))
#else
#define RANDQA_CLONES(...)
#endif

/* popcount instructions where the CPU has them, a portable fallback elsewhere */
#define POPCNT_CLONES RANDQA_CLONES("popcnt", "default")

/* a * b as the 128-bit value *hi 2^64 + (return value): __int128 where the
 * compiler has it, 32-bit halves elsewhere (RANDQA_NO_INT128 forces those) */
static inline uint64_t
mul_64x64(uint64_t a, uint64_t b, uint64_t *hi)
{
#if defined(__SIZEOF_INT128__) && !defined(RANDQA_NO_INT128)
    unsigned __int128 p = (unsigned __int128)a * b;
    *hi = (uint64_t)(p >> 64);
    return (uint64_t)p;
#else
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return (mid << 32) | (p00 & 0xFFFFFFFFu);
#endif
}

/* `module_def`: the definition of the module `full_name` with these functions. */
#define RANDQA_MODULE_DEF(full_name, doc, method_table) \
    static struct PyModuleDef module_def = {            \
        .m_base = PyModuleDef_HEAD_INIT,                \
        .m_name = full_name,                            \
        .m_doc = doc,                                   \
        .m_size = -1,                                   \
        .m_methods = method_table,                      \
    }

/* A module of functions whose init first calls `prepare()`, which fills the
 * constant tables its kernels read. */
#define RANDQA_PREPARED_MODULE(short_name, full_name, doc, method_table, prepare) \
    static struct PyModuleDef module_def;                                          \
    PyMODINIT_FUNC PyInit_##short_name(void)                                       \
    {                                                                              \
        prepare();                                                                 \
        return PyModule_Create(&module_def);                                       \
    }                                                                              \
    RANDQA_MODULE_DEF(full_name, doc, method_table)

static inline void
nothing_to_prepare(void)
{
}

/* A module of functions: RANDQA_MODULE(_name, "randqa.package._name", doc, methods). */
#define RANDQA_MODULE(short_name, full_name, doc, method_table) \
    RANDQA_PREPARED_MODULE(short_name, full_name, doc, method_table, nothing_to_prepare)

/* A module of one function, called as it is named in C. */
#define RANDQA_FUNCTION_MODULE(short_name, full_name, doc, function, function_doc) \
    static PyMethodDef module_methods[] = {                                          \
        {#function, function, METH_VARARGS, function_doc},                           \
        {NULL, NULL, 0, NULL},                                                       \
    };                                                                               \
    RANDQA_MODULE(short_name, full_name, doc, module_methods)

/* The module of `def` with `type` in it as `type_name`: for a module's init. */
static inline PyObject *
create_module_with_type(struct PyModuleDef *def, PyTypeObject *type, const char *type_name)
{
    if (PyType_Ready(type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(def);
    if (m == NULL)
        return NULL;
    Py_INCREF(type);
    if (PyModule_AddObject(m, type_name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

/* A kernel's refusal of its parameters once it holds the data buffer `in`:
 * releases it and raises ValueError(message), unless a check that already
 * set an error (check_nbits) failed.  NULL, for the kernel to return. */
static inline PyObject *
reject_parameters(Py_buffer *in, const char *message)
{
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, message);
    PyBuffer_Release(in);
    return NULL;
}

static inline void
release_buffer_list(Py_buffer *const *views, size_t count)
{
    for (size_t k = 0; k < count; k++)
        PyBuffer_Release(views[k]);
}

/* RELEASE_BUFFERS(&in, &out, ...): gives back every buffer a kernel holds,
 * on its way out whether it failed or finished. */
#define RELEASE_BUFFERS(...)                                                      \
    release_buffer_list((Py_buffer *const[]){__VA_ARGS__},                        \
                        sizeof((Py_buffer *const[]){__VA_ARGS__}) / sizeof(Py_buffer *))

/* The Python int high * 2**64 + low; NULL with the error set on failure. */
static inline PyObject *
pylong_from_halves(uint64_t high, uint64_t low)
{
    PyObject *hi = PyLong_FromUnsignedLongLong(high), *lo = PyLong_FromUnsignedLongLong(low);
    PyObject *sixty_four = PyLong_FromLong(64);
    PyObject *shifted = NULL, *result = NULL;
    if (hi && lo && sixty_four && (shifted = PyNumber_Lshift(hi, sixty_four)))
        result = PyNumber_Or(shifted, lo);
    Py_XDECREF(hi);
    Py_XDECREF(lo);
    Py_XDECREF(sixty_four);
    Py_XDECREF(shifted);
    return result;
}

/* A Python int in [0, 2**bits) (bits <= 64) into *out; else TypeError or
 * ValueError naming `what`, and -1. */
static inline int
get_uint(PyObject *obj, int bits, const char *what, uint64_t *out)
{
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int", what);
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be in [0, 2**%d)", what, bits);
        return -1;
    }
    if (bits < 64 && (v >> bits) != 0) {
        PyErr_Format(PyExc_ValueError, "%s must be in [0, 2**%d)", what, bits);
        return -1;
    }
    *out = v;
    return 0;
}

#endif
