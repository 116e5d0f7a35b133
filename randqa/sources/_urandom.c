/*
 * The urandom device reader (s2n-tls's fd identity check), behind the
 * urandom backend (randqa/sources/urandom.py).
 *
 * strategy "check": the device's identity (st_dev, st_ino, st_rdev, file
 * type) is cached at open and compared by fstat() before every read();
 * a closed fd or another file on that fd number means reopening the
 * device.  The old number is not closed: it is no longer ours.
 * strategy "cached": read the cached fd blindly (the fault s2n had; here
 * it raises instead of looping).  strategy "reopen": open, read, close on
 * every call.  Each read() call asks for at most `call_bytes` bytes
 * (0: the whole request), which is the API shape nmap-dev's PRNG benchmark measured.  */
#include "../_module.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { URANDOM_CACHED = 0, URANDOM_CHECK = 1, URANDOM_REOPEN = 2 };

typedef struct {
    PyObject_HEAD
    int fd;
    int strategy;
    Py_ssize_t call_bytes;
    dev_t dev, rdev;
    ino_t ino;
    mode_t type;
    long long reopens;
    int busy;
    int closed;
    char path[256];
} UrandomObject;

static PyTypeObject UrandomType;

static int
urandom_open_fd(UrandomObject *u)
{
    int fd;
    do {
        fd = open(u->path, O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    return fd;
}

static int
urandom_remember(UrandomObject *u, int fd)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -1;
    u->fd = fd;
    u->dev = st.st_dev;
    u->ino = st.st_ino;
    u->rdev = st.st_rdev;
    u->type = st.st_mode & S_IFMT;
    return 0;
}

static int
urandom_same_file(UrandomObject *u)
{
    struct stat st;
    if (u->fd < 0 || fstat(u->fd, &st) < 0)
        return 0;
    return st.st_dev == u->dev && st.st_ino == u->ino && st.st_rdev == u->rdev && (st.st_mode & S_IFMT) == u->type;
}

/* Outcome of a run of reads without the GIL */
enum { RUN_DONE, RUN_EINTR, RUN_ERROR };

/* Read until `*left` is 0; returns RUN_DONE, RUN_EINTR (signals to check)
 * or RUN_ERROR with *err set.  Never loops without progress: a read that
 * returns 0 or fails is retried once on a freshly opened device (strategy
 * check), and a second failure in a row is an error. */
static int
urandom_run(UrandomObject *u, uint8_t **pp, size_t *left, int *err, long long *reopens)
{
    int failures = 0;
    while (*left > 0) {
        size_t want = (u->call_bytes > 0 && (size_t)u->call_bytes < *left) ? (size_t)u->call_bytes : *left;
        ssize_t r;
        if (u->strategy == URANDOM_REOPEN) {
            int fd = urandom_open_fd(u);
            if (fd < 0) {
                *err = errno;
                return RUN_ERROR;
            }
            r = read(fd, *pp, want);
            int saved = errno;
            close(fd);
            errno = saved;
        } else {
            if (u->strategy == URANDOM_CHECK && !urandom_same_file(u)) {
                int fd = urandom_open_fd(u);
                if (fd < 0 || urandom_remember(u, fd) < 0) {
                    *err = errno;
                    if (fd >= 0)
                        close(fd);
                    return RUN_ERROR;
                }
                (*reopens)++;
            }
            r = read(u->fd, *pp, want);
        }
        if (r > 0) {
            *pp += r;
            *left -= (size_t)r;
            failures = 0;
            continue;
        }
        if (r < 0 && errno == EINTR)
            return RUN_EINTR;
        *err = r == 0 ? 0 : errno;
        if (u->strategy != URANDOM_CHECK || ++failures > 1)
            return RUN_ERROR;
        u->fd = -1; /* force a reopen; the number may belong to someone else now */
    }
    return RUN_DONE;
}

static PyObject *
urandom_fill(UrandomObject *u, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (u->busy) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_RuntimeError, "urandom reader is already reading in another thread");
        return NULL;
    }
    if (u->closed) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "urandom reader is closed");
        return NULL;
    }
    u->busy = 1;
    uint8_t *p = (uint8_t *)view.buf;
    size_t left = (size_t)view.len;
    int err = 0, outcome;
    for (;;) {
        long long reopens = 0;
        Py_BEGIN_ALLOW_THREADS
        outcome = urandom_run(u, &p, &left, &err, &reopens);
        Py_END_ALLOW_THREADS
        u->reopens += reopens;
        if (outcome != RUN_EINTR)
            break;
        if (PyErr_CheckSignals() < 0) { /* a handler raised (Ctrl-C): stop */
            u->busy = 0;
            PyBuffer_Release(&view);
            return NULL;
        }
    }
    u->busy = 0;
    PyBuffer_Release(&view);
    if (outcome == RUN_ERROR) {
        if (err == 0)
            return PyErr_Format(PyExc_OSError, "%s: read returned end of file", u->path);
        errno = err;
        return PyErr_SetFromErrnoWithFilename(PyExc_OSError, u->path);
    }
    Py_RETURN_NONE;
}

static PyObject *
urandom_close(UrandomObject *u, PyObject *Py_UNUSED(unused))
{
    /* Close only a descriptor that still is the device we opened. */
    if (u->fd >= 0 && urandom_same_file(u))
        close(u->fd);
    u->fd = -1;
    u->closed = 1;
    Py_RETURN_NONE;
}

static int
urandom_init(UrandomObject *u, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"path", "strategy", "call_bytes", NULL};
    const char *path = "/dev/urandom", *strategy = "check";
    Py_ssize_t call_bytes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|ssn", kwlist, &path, &strategy, &call_bytes))
        return -1;
    if (strlen(path) >= sizeof u->path) {
        PyErr_SetString(PyExc_ValueError, "path too long");
        return -1;
    }
    if (call_bytes < 0) {
        PyErr_SetString(PyExc_ValueError, "call_bytes must be >= 0");
        return -1;
    }
    if (strcmp(strategy, "cached") == 0)
        u->strategy = URANDOM_CACHED;
    else if (strcmp(strategy, "check") == 0)
        u->strategy = URANDOM_CHECK;
    else if (strcmp(strategy, "reopen") == 0)
        u->strategy = URANDOM_REOPEN;
    else {
        PyErr_Format(PyExc_ValueError, "strategy must be cached, check or reopen, not '%s'", strategy);
        return -1;
    }
    strcpy(u->path, path);
    u->call_bytes = call_bytes;
    u->reopens = 0;
    u->busy = 0;
    u->closed = 0;
    u->fd = -1;
    int fd = urandom_open_fd(u);
    if (fd < 0 || urandom_remember(u, fd) < 0) {
        if (fd >= 0)
            close(fd);
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
        return -1;
    }
    if (u->strategy == URANDOM_REOPEN) { /* identity only; every call opens afresh */
        close(fd);
        u->fd = -1;
    }
    return 0;
}

static PyObject *
urandom_new(PyTypeObject *type, PyObject *Py_UNUSED(args), PyObject *Py_UNUSED(kwds))
{
    UrandomObject *u = (UrandomObject *)type->tp_alloc(type, 0);
    if (u)
        u->fd = -1;
    return (PyObject *)u;
}

static void
urandom_dealloc(UrandomObject *u)
{
    if (u->fd >= 0 && urandom_same_file(u))
        close(u->fd);
    Py_TYPE(u)->tp_free((PyObject *)u);
}

static PyObject *
urandom_get_fd(UrandomObject *u, void *Py_UNUSED(closure))
{
    return PyLong_FromLong(u->fd);
}

static PyObject *
urandom_get_reopens(UrandomObject *u, void *Py_UNUSED(closure))
{
    return PyLong_FromLongLong(u->reopens);
}

static PyObject *
urandom_get_strategy(UrandomObject *u, void *Py_UNUSED(closure))
{
    static const char *names[] = {"cached", "check", "reopen"};
    return PyUnicode_FromString(names[u->strategy]);
}

static PyMethodDef urandom_methods[] = {
    {"fill", (PyCFunction)urandom_fill, METH_O, "fill(buffer): fill it completely from the device."},
    {"close", (PyCFunction)urandom_close, METH_NOARGS, "Close the device (if the fd still is the device)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef urandom_getset[] = {
    {"fd", (getter)urandom_get_fd, NULL, "the cached file descriptor (-1 if none)", NULL},
    {"reopens", (getter)urandom_get_reopens, NULL, "how often the device was reopened after a fault", NULL},
    {"strategy", (getter)urandom_get_strategy, NULL, "cached, check or reopen", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject UrandomType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "randqa.sources._urandom.UrandomReader",
    .tp_basicsize = sizeof(UrandomObject),
    .tp_dealloc = (destructor)urandom_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "UrandomReader(path='/dev/urandom', strategy='check', call_bytes=0)",
    .tp_methods = urandom_methods,
    .tp_getset = urandom_getset,
    .tp_init = (initproc)urandom_init,
    .tp_new = urandom_new,
};

RANDQA_MODULE_DEF("randqa.sources._urandom",
                  "The /dev/urandom reader with s2n-tls's fd identity check.",
                  NULL);

PyMODINIT_FUNC
PyInit__urandom(void)
{
    return create_module_with_type(&module_def, &UrandomType, "UrandomReader");
}
