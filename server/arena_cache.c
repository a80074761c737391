/* perfline.server._arena_cache: keep the memory arenas that CPython's small-object
 * allocator frees, and hand them out again, instead of unmapping them at once.
 *
 * The daemon replaces a whole document on every value-only change of a capture: the
 * new parse and result are allocated while the old ones are alive, then the old ones
 * are freed. CPython returns each arena that becomes empty to the kernel (munmap) and
 * maps a new one for the next run, whose every page then costs a page fault and a
 * zero fill (about 8 ms of a 1,000-chain refresh, 250 ms at 20,000 chains, measured
 * by system time). This allocator, installed with PyObject_SetArenaAllocator, keeps up
 * to a limit of freed arenas and reuses them first; beyond the limit, and for any
 * other size, it defers to the allocator it replaced.
 *
 * Thread safety: CPython calls arena allocators with the GIL held, and install() runs
 * with it too; nothing here needs another lock. The cache only ever holds arenas that
 * the replaced allocator made, so they can be given back to it at any time.
 * Cost: O(1) per arena (1 MiB), nothing per object.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>

static PyObjectArenaAllocator replaced;
static int installed = 0;
static void **cached = NULL;
static size_t count = 0, capacity = 0, arena_size = 0;
static unsigned long long hits = 0, misses = 0;

static void *cached_alloc(void *ctx, size_t size) {
    (void)ctx;
    if (arena_size == 0) {
        arena_size = size;
    }
    if (size == arena_size && count > 0) {
        hits++;
        return cached[--count];
    }
    misses++;
    return replaced.alloc(replaced.ctx, size);
}

static void cached_free(void *ctx, void *ptr, size_t size) {
    (void)ctx;
    if (arena_size == 0) {
        arena_size = size;
    }
    if (size == arena_size && count < capacity) {
        cached[count++] = ptr;
        return;
    }
    replaced.free(replaced.ctx, ptr, size);
}

/* install(limit_bytes): keep up to limit_bytes of freed arenas (0: keep none, and give
 * back what is kept). Installs the allocator on the first call. */
static PyObject *install(PyObject *self, PyObject *args) {
    unsigned long long limit;
    (void)self;
    if (!PyArg_ParseTuple(args, "K", &limit)) {
        return NULL;
    }
    if (!installed) {
        PyObjectArenaAllocator ours = {NULL, cached_alloc, cached_free};
        PyObject_GetArenaAllocator(&replaced);
        PyObject_SetArenaAllocator(&ours);
        installed = 1;
    }
    size_t unit = arena_size ? arena_size : (size_t)1 << 20;
    size_t wanted = (size_t)(limit / unit);
    if (wanted > capacity) {
        void **grown = realloc(cached, wanted * sizeof(void *));
        if (grown == NULL) {
            return PyErr_NoMemory();
        }
        cached = grown;
    }
    while (count > wanted) {
        count--;
        replaced.free(replaced.ctx, cached[count], arena_size);
    }
    capacity = wanted;
    Py_RETURN_NONE;
}

static PyObject *stats(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return Py_BuildValue(
        "{s:K,s:K,s:K,s:K,s:K}",
        "kept", (unsigned long long)count,
        "capacity", (unsigned long long)capacity,
        "arena_bytes", (unsigned long long)arena_size,
        "reused", hits,
        "mapped", misses);
}

static PyMethodDef methods[] = {
    {"install", install, METH_VARARGS, "Keep up to LIMIT bytes of freed arenas for reuse."},
    {"stats", stats, METH_NOARGS, "Arenas kept, the limit in arenas, reuses and new maps."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_arena_cache", "Reuse of freed small-object arenas.", -1, methods,
};

PyMODINIT_FUNC PyInit__arena_cache(void) { return PyModule_Create(&module); }
