/* Placeholder module: filled in by the work that needs it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "randqa.battery._nist", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit__nist(void)
{
    return PyModule_Create(&module_def);
}
