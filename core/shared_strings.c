/* perfline.core._shared_strings: one string object for each string value of a decoded
 * JSON document.
 *
 * A JSON decoder makes a new string object for every string it reads. A standardized
 * document repeats the same few values everywhere: metric names, units and aggregations
 * in every breakdown, entity ids in every parent and child list and breakdown, kinds,
 * file paths in every frame of every code stack. In the 5,000-chain NX document 355,111
 * string objects hold 25,770 values (22.6 MB for 1.9 MB). Made one object per value, the
 * document is smaller (80 MB less at 20,000 chains), each value is hashed once instead of
 * once per occurrence, and every dictionary look-up of an id, a name or a kind finds its
 * key by identity, without comparing characters in memory the look-up would not touch
 * otherwise.
 *
 * ``share_strings(value)`` walks ``value`` (exact dicts and lists, as a decoder makes
 * them) and replaces, in place, every exact ``str`` among the dicts' values and the lists'
 * items by the first equal string it met; keys are left as they are (a decoder already
 * shares the short ones). The value stays equal to what it was, and every dict and list
 * stays the same object: only which string object holds a value changes. It is meant
 * for a value just decoded, which nothing else has seen yet. Containers nested deeper
 * than ``MAX_DEPTH`` are left as they are. Cost: one pass over the containers, one hash
 * and one table look-up per string (the hash is kept by the string: it is not computed
 * again later). Returns how many strings were replaced.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_DEPTH 256

/* The first string equal to ``text`` met so far (``text`` itself when it is the first),
 * borrowed, or NULL with an exception set. */
static PyObject *first_equal(PyObject *table, PyObject *text) {
    return PyDict_SetDefault(table, text, text);
}

static int walk(PyObject *value, PyObject *table, int depth, Py_ssize_t *replaced);

static int walk_list(PyObject *list, PyObject *table, int depth, Py_ssize_t *replaced) {
    for (Py_ssize_t position = 0; position < PyList_GET_SIZE(list); position++) {
        PyObject *item = PyList_GET_ITEM(list, position);
        if (PyUnicode_CheckExact(item)) {
            PyObject *first = first_equal(table, item);
            if (first == NULL) {
                return -1;
            }
            if (first != item) {
                Py_INCREF(first);
                PyList_SET_ITEM(list, position, first);
                Py_DECREF(item);
                (*replaced)++;
            }
        } else if (walk(item, table, depth + 1, replaced) < 0) {
            return -1;
        }
    }
    return 0;
}

static int walk_dict(PyObject *dict, PyObject *table, int depth, Py_ssize_t *replaced) {
    Py_ssize_t at = 0;
    PyObject *key;
    PyObject *item;
    while (PyDict_Next(dict, &at, &key, &item)) {
        if (PyUnicode_CheckExact(item)) {
            PyObject *first = first_equal(table, item);
            if (first == NULL) {
                return -1;
            }
            /* A new value under a key the dict has: its keys do not change, which
             * PyDict_Next allows during the walk. */
            if (first != item) {
                if (PyDict_SetItem(dict, key, first) < 0) {
                    return -1;
                }
                (*replaced)++;
            }
        } else if (walk(item, table, depth + 1, replaced) < 0) {
            return -1;
        }
    }
    return 0;
}

/* Walks exact lists and dicts (anything else holds no string to share). */
static int walk(PyObject *value, PyObject *table, int depth, Py_ssize_t *replaced) {
    if (depth > MAX_DEPTH) {
        return 0;
    }
    if (PyList_CheckExact(value)) {
        return walk_list(value, table, depth, replaced);
    }
    if (PyDict_CheckExact(value)) {
        return walk_dict(value, table, depth, replaced);
    }
    return 0;
}

static PyObject *share_strings(PyObject *self, PyObject *value) {
    (void)self;
    PyObject *table = PyDict_New();
    if (table == NULL) {
        return NULL;
    }
    Py_ssize_t replaced = 0;
    int status = walk(value, table, 0, &replaced);
    Py_DECREF(table);
    if (status < 0) {
        return NULL;
    }
    return PyLong_FromSsize_t(replaced);
}

static PyMethodDef methods[] = {
    {"share_strings", share_strings, METH_O,
     "share_strings(value) -> int: make equal string values among the dicts' values and "
     "the lists' items of a decoded JSON value one object (in place); how many were "
     "replaced."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "perfline.core._shared_strings",
    "One string object per string value of a decoded JSON document.", -1, methods,
};

PyMODINIT_FUNC PyInit__shared_strings(void) {
    return PyModule_Create(&module);
}
