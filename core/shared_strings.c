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
 * than ``MAX_DEPTH`` are left as they are. Cost: one pass over the containers and one
 * hash per string (kept by the string: not computed again later), then a look-up in a
 * small cache of recent values and, when it misses, in the table of every value; 0.1 s
 * for the 20,000-chain document (1,310,205 strings replaced), of which 0.07 s is the
 * walk itself. Returns how many strings were replaced.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define MAX_DEPTH 256
#define RECENT_SLOTS 4096 /* a power of two */

/* The table of first strings, and in front of it the last first string met in each slot
 * of its hash (borrowed: the table holds them). A document's most frequent values
 * (units, aggregations, metric names, kinds, paths) are found there, in a few KB that
 * stay in cache, without probing the table, which is as large as the document has
 * distinct values. */
typedef struct {
    PyObject *table;
    PyObject *recent[RECENT_SLOTS];
} Seen;

/* Equal texts? Decoded strings are in their compact form (PEP 393): the narrowest kind
 * that holds them, so equal texts have equal kinds and bytes. */
static int same_text(PyObject *one, PyObject *other) {
    Py_ssize_t length = PyUnicode_GET_LENGTH(one);
    int kind = PyUnicode_KIND(one);
    return length == PyUnicode_GET_LENGTH(other) && kind == PyUnicode_KIND(other) &&
           memcmp(PyUnicode_DATA(one), PyUnicode_DATA(other), (size_t)length * kind) == 0;
}

/* The first string equal to ``text`` met so far (``text`` itself when it is the first),
 * borrowed, or NULL with an exception set. */
static PyObject *first_equal(Seen *seen, PyObject *text) {
    Py_hash_t hash = PyObject_Hash(text);
    if (hash == -1) {
        return NULL;
    }
    size_t slot = (size_t)hash & (RECENT_SLOTS - 1);
    PyObject *recent = seen->recent[slot];
    if (recent == text ||
        (recent != NULL && PyObject_Hash(recent) == hash && same_text(recent, text))) {
        return recent; /* (the hash of a string in the table is kept: no work) */
    }
    PyObject *first = PyDict_SetDefault(seen->table, text, text);
    if (first != NULL) {
        seen->recent[slot] = first;
    }
    return first;
}

static int walk(PyObject *value, Seen *seen, int depth, Py_ssize_t *replaced);

static int walk_list(PyObject *list, Seen *seen, int depth, Py_ssize_t *replaced) {
    for (Py_ssize_t position = 0; position < PyList_GET_SIZE(list); position++) {
        PyObject *item = PyList_GET_ITEM(list, position);
        if (PyUnicode_CheckExact(item)) {
            PyObject *first = first_equal(seen, item);
            if (first == NULL) {
                return -1;
            }
            if (first != item) {
                Py_INCREF(first);
                PyList_SET_ITEM(list, position, first);
                Py_DECREF(item);
                (*replaced)++;
            }
        } else if (walk(item, seen, depth + 1, replaced) < 0) {
            return -1;
        }
    }
    return 0;
}

static int walk_dict(PyObject *dict, Seen *seen, int depth, Py_ssize_t *replaced) {
    Py_ssize_t at = 0;
    PyObject *key;
    PyObject *item;
    while (PyDict_Next(dict, &at, &key, &item)) {
        if (PyUnicode_CheckExact(item)) {
            PyObject *first = first_equal(seen, item);
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
        } else if (walk(item, seen, depth + 1, replaced) < 0) {
            return -1;
        }
    }
    return 0;
}

/* Walks exact lists and dicts (anything else holds no string to share). */
static int walk(PyObject *value, Seen *seen, int depth, Py_ssize_t *replaced) {
    if (depth > MAX_DEPTH) {
        return 0;
    }
    if (PyList_CheckExact(value)) {
        return walk_list(value, seen, depth, replaced);
    }
    if (PyDict_CheckExact(value)) {
        return walk_dict(value, seen, depth, replaced);
    }
    return 0;
}

static PyObject *share_strings(PyObject *self, PyObject *value) {
    (void)self;
    Seen *seen = PyMem_Calloc(1, sizeof(Seen));
    if (seen == NULL) {
        return PyErr_NoMemory();
    }
    seen->table = PyDict_New();
    if (seen->table == NULL) {
        PyMem_Free(seen);
        return NULL;
    }
    Py_ssize_t replaced = 0;
    int status = walk(value, seen, 0, &replaced);
    Py_DECREF(seen->table);
    PyMem_Free(seen);
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
