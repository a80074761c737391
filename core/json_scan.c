/* perfline.core._json_scan: is msgspec's compact JSON text of a JSON value the text the
 * standard library's compact encoder writes for it?
 *
 * ``core/json_codec.py`` encodes documents with msgspec, whose text is the standard
 * library's except in five cases (its module docstring lists them): non-ASCII text and
 * DEL written raw, NaN and infinities written ``null``, floats of magnitude in
 * [1e-5, 1e-4) written ``0.0000...`` and floats written with an exponent (``1e16``,
 * ``1e-7``; the standard library writes ``1e+16``, ``1e-07``). The pure-Python check
 * finds them with a translation of the text and four byte searches (about 0.2 s for
 * the 106 MB compact text of the 20,000-chain document); this module makes one pass
 * over the tokens instead:
 *
 * - inside a string, a byte >= 0x7f (DEL or the first byte of a UTF-8 sequence) answers
 *   no; a backslash skips the byte after it (msgspec escapes only ASCII);
 * - outside strings, ``n`` (the start of ``null``) answers no, as does a number whose
 *   digits (after an optional ``-``) begin ``0.0000`` or that holds ``e``, ``E`` or ``+``;
 * - everything else (structure, ``true``, ``false``, other numbers) is skipped.
 *
 * It answers for the same texts as the Python check, or fewer: a string holding
 * ``0.0000``, ``4e12,`` or ``null`` (the Python check's false alarms) is not flagged
 * here. The text must be what msgspec wrote (valid compact JSON); an unterminated string
 * answers no. The scan runs without the GIL (the buffer is held). Cost: one pass, a table
 * look-up per byte.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* Bytes that stop the skip inside a string: the closing quote, a backslash, and every
 * byte from DEL up. */
static unsigned char string_stop[256];

static void fill_table(void) {
    for (int byte = 0; byte < 256; byte++) {
        string_stop[byte] = (byte == '"' || byte == '\\' || byte >= 0x7f) ? 1 : 0;
    }
}

/* 1: the standard library's text; 0: it may not be. */
static int same_text(const unsigned char *text, Py_ssize_t size) {
    Py_ssize_t at = 0;
    while (at < size) {
        unsigned char byte = text[at];
        if (byte == '"') {
            at++;
            for (;;) {
                while (at < size && !string_stop[text[at]]) {
                    at++;
                }
                if (at >= size) {
                    return 0; /* unterminated: not msgspec's text */
                }
                byte = text[at];
                if (byte == '"') {
                    at++;
                    break;
                }
                if (byte == '\\') {
                    at += 2;
                    continue;
                }
                return 0; /* DEL or non-ASCII */
            }
        } else if (byte == '-' || (byte >= '0' && byte <= '9')) {
            if (byte == '-') {
                at++;
            }
            if (size - at >= 6 && memcmp(text + at, "0.0000", 6) == 0) {
                return 0; /* a float in [1e-5, 1e-4), written without an exponent */
            }
            while (at < size) {
                byte = text[at];
                if ((byte >= '0' && byte <= '9') || byte == '.') {
                    at++;
                } else if (byte == 'e' || byte == 'E' || byte == '+') {
                    return 0; /* an exponent */
                } else {
                    break;
                }
            }
        } else if (byte == 'n') {
            return 0; /* null: None, or a NaN or an infinity */
        } else {
            at++;
        }
    }
    return 1;
}

static PyObject *same_as_stdlib(PyObject *self, PyObject *arg) {
    (void)self;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) != 0) {
        return NULL;
    }
    int same;
    Py_BEGIN_ALLOW_THREADS
    same = same_text((const unsigned char *)view.buf, view.len);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyBool_FromLong(same);
}

static PyMethodDef methods[] = {
    {"same_as_stdlib", same_as_stdlib, METH_O,
     "same_as_stdlib(text) -> bool: is msgspec's compact text of a JSON value the "
     "standard library's compact ASCII text?"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "perfline.core._json_scan",
    "One pass over msgspec's compact JSON text: is it the standard library's?", -1, methods,
};

PyMODINIT_FUNC PyInit__json_scan(void) {
    fill_table();
    return PyModule_Create(&module);
}
