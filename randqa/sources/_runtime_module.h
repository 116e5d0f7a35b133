/*
 * The tail every module of runtime generators shares
 * (_runtime_generators*.c): its constructors make_<name> (SEEDED_CONSTRUCTOR
 * of _generator_object.h, or written out) as module functions <name>, and
 * the module with its Generator type:
 *
 *   RUNTIME_GENERATOR_MODULE(_runtime_generators_x, "doc",
 *       GENERATOR_FUNCTION(name, "name(seed): ..."), ...)
 *
 * Include it after _generator_object.h.
 */
#ifndef RANDQA_RUNTIME_MODULE_H
#define RANDQA_RUNTIME_MODULE_H

#define GENERATOR_FUNCTION(name, doc) {#name, make_##name, METH_VARARGS, doc}

#define RUNTIME_GENERATOR_MODULE(short_name, doc, ...)                              \
    static PyMethodDef module_methods[] = {__VA_ARGS__, {NULL, NULL, 0, NULL}};   \
    RANDQA_MODULE_DEF("randqa.sources." #short_name, doc, module_methods);        \
    PyMODINIT_FUNC PyInit_##short_name(void)                                      \
    {                                                                             \
        return create_module_with_type(&module_def, &GenType, "Generator");       \
    }

#endif
