/* strided._csrc._cpool: the buffer pool of large CPU results, in C.
 *
 * It stands in front of strided/_core/pool.py, which is the definition and the
 * fallback (no compiler at install time, or STRIDED_NO_CEXT=1 or =_cpool; the
 * tests run both). Same rules, same counters (memory_stats), same bins: a request
 * of nbytes is served with a block of _bin(nbytes) bytes (8 sizes per power of
 * two, page multiples), the most recently freed block of that size first (LIFO:
 * it is the one most likely still in cache); at most `limit` bytes of free blocks
 * are kept, the largest released first.
 *
 * Why C: with the Python pool every pooled result cost ~20,000 instructions of
 * bookkeeping (a _Block with a __del__, a lock, dict lookups, an
 * __array_interface__ parsed by numpy.asarray), about 5 us after a multi-MB kernel
 * has flushed the caches: 5-10% of `a * b + c` at 1e6 float32. Here get, put and
 * the finalizer run no Python at all.
 *
 * A block is a `Block` object: it owns `size` bytes of malloc'd memory and exports
 * them through the buffer protocol; the result is `numpy.ndarray(shape, dtype,
 * block)`, whose `base` is the block. When the last reference to the block goes
 * (the last view of the result, or a memoryview of it), its dealloc files the
 * memory back in the pool. Memory that leaves the pool (a miss, an eviction) is
 * reported to tracemalloc in NumPy's domain, as NumPy's own buffers are.
 *
 * Python objects read: the arguments of empty() (nbytes an exact int; shape and
 * dtype are handed to numpy.ndarray, which checks them) and the pool threshold,
 * `_pool.MIN_BYTES`, through contract.h's contract_pool_limit (anything else there
 * and the comparison is made as Python makes it, with Python's errors).
 *
 * Threads: the bins and counters are guarded by one mutex, held only for a few
 * loads and stores, never around Python code or a system allocation. Fork: the
 * child re-initialises the mutex (another thread may have held it at the fork).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* contract.h's readers for the other entry points go unused here */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "contract.h"
#pragma GCC diagnostic pop

#define NPY_TRACE_DOMAIN 389047 /* NumPy's tracemalloc domain (numpy/_core/src/multiarray/alloc.c) */
#define HUGEPAGE_FROM (4u << 20) /* NumPy madvises huge pages from 4 MiB on: so do we */
#define BLOCK_ALIGN 4096  /* pool.py's _ALIGN: every block starts a page (see sys_alloc) */
#define NBIN_EXP 64
#define NBIN_Q 17

/* A free block's first word links it to the next free block of its bin (the memory
   is the pool's while it is cached): the bins need no memory of their own. */
typedef struct { void *next; } FreeBlock;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FreeBlock *bins[NBIN_EXP][NBIN_Q];
static Py_ssize_t limit_bytes = 1 << 30;
typedef struct {
    Py_ssize_t allocated_bytes, allocated_peak_bytes, cached_bytes, num_allocs, hits, misses,
        releases, evictions, dropped;
} Stats;
static Stats st;
/* Test hook (fail_next): how many of the next system allocations to refuse. */
static Py_ssize_t refuse_allocs;
static int refuse_arrays;

static PyObject *ndarray_t;  /* numpy.ndarray */
static PyObject *np_empty;   /* numpy.empty: below the threshold */
static PyObject *big_list;   /* _pool.MIN_BYTES */
static int madvise_huge;     /* NumPy's own setting (numpy._core.multiarray._get_madvise_hugepage) */

/* --- sizes and bins --------------------------------------------------------------- */

static int
bitlen(size_t v)
{
    return v ? 64 - __builtin_clzll((unsigned long long)v) : 0;
}

/* pool.py's _bin: round up to one of 8 sizes per power of two, a page multiple. */
static Py_ssize_t
bin_size(Py_ssize_t nbytes)
{
    int l = bitlen((size_t)nbytes);
    size_t step = l - 4 > 12 ? (size_t)1 << (l - 4) : 4096;
    size_t n = ((size_t)nbytes + step - 1) / step * step;
    return n > (size_t)PY_SSIZE_T_MAX ? -1 : (Py_ssize_t)n;
}

/* The bin of a binned size: (bit length of size - 1, size / its step), one-to-one. */
static FreeBlock **
bin_of(Py_ssize_t size)
{
    int l = bitlen((size_t)size - 1);
    size_t step = l - 4 > 12 ? (size_t)1 << (l - 4) : 4096;
    return &bins[l][(size_t)size / step];
}

static Py_ssize_t
size_of_bin(int l, int q)
{
    size_t step = l - 4 > 12 ? (size_t)1 << (l - 4) : 4096;
    return (Py_ssize_t)(step * (size_t)q);
}

/* --- the system's memory ---------------------------------------------------------- */

static void *
sys_alloc(Py_ssize_t size)
{
    if (refuse_allocs > 0) {
        refuse_allocs--;
        return NULL;
    }
    /* Page-aligned, not malloc's 16 bytes: a result whose stores do not start a cache
       line (AVX-512 stores a whole one) ran at half speed, and 64-448 bytes above an
       operand modulo 4096 the stores alias the next loads (pool.py, "Alignment"). */
    void *p = NULL;
    if (posix_memalign(&p, BLOCK_ALIGN, (size_t)size) != 0)
        return NULL;
    if (madvise_huge && (size_t)size >= HUGEPAGE_FROM) {
        /* the whole pages inside the block, as NumPy's allocator does */
        uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
        uintptr_t hi = ((uintptr_t)p + (size_t)size) & ~(uintptr_t)4095;
        if (hi > lo)
            (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
    PyTraceMalloc_Track(NPY_TRACE_DOMAIN, (uintptr_t)p, (size_t)size);
    return p;
}

static void
sys_free(void *p)
{
    PyTraceMalloc_Untrack(NPY_TRACE_DOMAIN, (uintptr_t)p);
    free(p);
}

/* A list of blocks released to the system once the lock is dropped. */
typedef struct { FreeBlock *head; } Doomed;

static void
doomed_free(Doomed *d)
{
    while (d->head) {
        FreeBlock *b = d->head;
        d->head = b->next;
        sys_free(b);
    }
}

/* Release cached blocks, largest first, until at most target bytes stay (lock held);
   counted as evictions unless the cache is being emptied (empty_cache). */
static void
evict_to(Py_ssize_t target, Doomed *d, int counted)
{
    for (int l = NBIN_EXP - 1; l >= 0 && st.cached_bytes > target; l--)
        for (int q = NBIN_Q - 1; q >= 0 && st.cached_bytes > target; q--)
            while (bins[l][q] && st.cached_bytes > target) {
                FreeBlock *b = bins[l][q];
                bins[l][q] = b->next;
                b->next = d->head;
                d->head = b;
                st.cached_bytes -= size_of_bin(l, q);
                st.evictions += counted;
            }
}

/* pool.py's _count_alloc (lock held). */
static void
count_alloc(Py_ssize_t size)
{
    st.num_allocs++;
    st.allocated_bytes += size;
    if (st.allocated_bytes > st.allocated_peak_bytes)
        st.allocated_peak_bytes = st.allocated_bytes;
}

/* pool.py's _put: a block back from its last user (the GIL may or may not be held:
   nothing here needs it but the system's free, which doesn't either). */
static void
put(void *p, Py_ssize_t size)
{
    Doomed d = {NULL};
    pthread_mutex_lock(&lock);
    st.allocated_bytes -= size;
    if (size > limit_bytes) {
        st.dropped++;
        pthread_mutex_unlock(&lock);
        sys_free(p);
        return;
    }
    if (st.cached_bytes + size > limit_bytes)
        evict_to(limit_bytes - size, &d, 1);
    FreeBlock **bin = bin_of(size);
    ((FreeBlock *)p)->next = *bin;
    *bin = (FreeBlock *)p;
    st.cached_bytes += size;
    st.releases++;
    pthread_mutex_unlock(&lock);
    doomed_free(&d);
}

/* A block of `size` bytes (binned), counted as allocated; NULL with MemoryError set. */
static void *
get(Py_ssize_t size)
{
    pthread_mutex_lock(&lock);
    FreeBlock **bin = bin_of(size);
    FreeBlock *b = *bin;
    if (b != NULL) {
        *bin = b->next;
        st.cached_bytes -= size;
        st.hits++;
        count_alloc(size);
        pthread_mutex_unlock(&lock);
        return b;
    }
    pthread_mutex_unlock(&lock);
    /* A miss: counted only once the system has handed out the memory. */
    void *p = sys_alloc(size);
    if (p == NULL) {
        Doomed d = {NULL};
        pthread_mutex_lock(&lock); /* empty the cache and try once more */
        evict_to(0, &d, 0);
        pthread_mutex_unlock(&lock);
        doomed_free(&d);
        p = sys_alloc(size);
        if (p == NULL) {
            PyErr_Format(PyExc_MemoryError, "the buffer pool cannot allocate %zd bytes", size);
            return NULL;
        }
    }
    pthread_mutex_lock(&lock);
    st.misses++;
    count_alloc(size);
    pthread_mutex_unlock(&lock);
    return p;
}

/* --- Block: the owner at the end of a pooled array's base chain ------------------- */

typedef struct {
    PyObject_HEAD
    void *ptr;
    Py_ssize_t size;
} Block;

static void
Block_dealloc(Block *self)
{
    if (self->ptr != NULL)
        put(self->ptr, self->size);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
Block_getbuffer(Block *self, Py_buffer *view, int flags)
{
    if (self->ptr == NULL) {
        PyErr_SetString(PyExc_BufferError, "Block: no memory (not made by the pool)");
        view->obj = NULL;
        return -1;
    }
    return PyBuffer_FillInfo(view, (PyObject *)self, self->ptr, self->size, 0, flags);
}

static PyBufferProcs Block_as_buffer = {(getbufferproc)Block_getbuffer, NULL};

static PyObject *
Block_get_size(Block *self, void *closure)
{
    return PyLong_FromSsize_t(self->size);
}

static PyGetSetDef Block_getset[] = {
    {"size", (getter)Block_get_size, NULL, "the block's size in bytes (binned)", NULL},
    {NULL}};

static PyTypeObject Block_T = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "strided._csrc._cpool.Block",
    .tp_basicsize = sizeof(Block),
    .tp_dealloc = (destructor)Block_dealloc,
    .tp_as_buffer = &Block_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The owner of a pooled buffer (an array's base): returns it to the pool when it dies.",
    .tp_getset = Block_getset,
};

/* --- the module's functions --------------------------------------------------------- */

/* nbytes < MIN_BYTES[0], as pool.py computes it: 1, 0, or -1 with Python's error. */
static int
below_threshold(PyObject *nbytes, Py_ssize_t n)
{
    Py_ssize_t big = contract_pool_limit(big_list);
    if (big > 0)
        return n < big;
    /* not the one-int list pool.py keeps: Python's own comparison (and errors) */
    PyObject *zero = PyLong_FromLong(0);
    PyObject *thr = zero ? PyObject_GetItem(big_list, zero) : NULL;
    Py_XDECREF(zero);
    if (thr == NULL)
        return -1;
    int r = PyObject_RichCompareBool(nbytes, thr, Py_LT);
    Py_DECREF(thr);
    return r;
}

PyDoc_STRVAR(empty_doc, "empty(shape, dtype, nbytes) -> ndarray: pool.py's empty.");

static PyObject *
cpool_empty(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "empty() takes 3 arguments (%zd given)", nargs);
        return NULL;
    }
    if (ndarray_t == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "empty(): setup() first");
        return NULL;
    }
    PyObject *nb = args[2];
    if (!PyLong_CheckExact(nb)) {
        PyErr_Format(PyExc_TypeError, "empty(): nbytes must be an int, not %.100s", Py_TYPE(nb)->tp_name);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(nb);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    int small = n <= 0 ? 1 : below_threshold(nb, n);
    if (small < 0)
        return NULL;
    if (small)
        return PyObject_Vectorcall(np_empty, args, 2, NULL);
    Py_ssize_t size = bin_size(n);
    if (size < 0)
        return PyErr_NoMemory();
    /* The block is made first: once it holds the memory, its dealloc gives the memory
       back (and the counters with it) whatever fails later. */
    Block *blk = PyObject_New(Block, &Block_T);
    if (blk == NULL)
        return NULL;
    blk->ptr = NULL;
    blk->size = size;
    blk->ptr = get(size);
    if (blk->ptr == NULL) {
        Py_DECREF(blk);
        return NULL;
    }
    PyObject *arr;
    if (refuse_arrays) {
        refuse_arrays--;
        PyErr_SetString(PyExc_MemoryError, "simulated (fail_next)");
        arr = NULL;
    } else {
        PyObject *call[3] = {args[0], args[1], (PyObject *)blk};
        arr = PyObject_Vectorcall(ndarray_t, call, 3, NULL);
    }
    Py_DECREF(blk);
    return arr;
}

static PyObject *
cpool_empty_cache(PyObject *mod, PyObject *unused)
{
    Doomed d = {NULL};
    pthread_mutex_lock(&lock);
    evict_to(0, &d, 0);
    pthread_mutex_unlock(&lock);
    doomed_free(&d);
    Py_RETURN_NONE;
}

static PyObject *
cpool_set_limit(PyObject *mod, PyObject *arg)
{
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "set_limit(): a size >= 0");
        return NULL;
    }
    Doomed d = {NULL};
    pthread_mutex_lock(&lock);
    limit_bytes = n;
    evict_to(n, &d, 1);
    pthread_mutex_unlock(&lock);
    doomed_free(&d);
    Py_RETURN_NONE;
}

static PyObject *
cpool_stats(PyObject *mod, PyObject *unused)
{
    pthread_mutex_lock(&lock);
    Stats s = st;
    pthread_mutex_unlock(&lock);
    return Py_BuildValue("{snsnsnsnsnsnsnsnsn}", "allocated_bytes", s.allocated_bytes,
                         "allocated_peak_bytes", s.allocated_peak_bytes, "cached_bytes", s.cached_bytes,
                         "num_allocs", s.num_allocs, "hits", s.hits, "misses", s.misses,
                         "releases", s.releases, "evictions", s.evictions, "dropped", s.dropped);
}

static PyObject *
cpool_cached_sizes(PyObject *mod, PyObject *unused)
{
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    /* sizes are collected under the lock into a C array, then made Python ints */
    Py_ssize_t cap = 64, n = 0;
    Py_ssize_t *sizes = NULL;
    for (;;) {
        Py_ssize_t *buf = PyMem_RawRealloc(sizes, (size_t)cap * sizeof(Py_ssize_t));
        if (buf == NULL) {
            PyMem_RawFree(sizes);
            Py_DECREF(out);
            return PyErr_NoMemory();
        }
        sizes = buf;
        n = 0;
        pthread_mutex_lock(&lock);
        for (int l = 0; l < NBIN_EXP; l++)
            for (int q = 0; q < NBIN_Q; q++)
                for (FreeBlock *b = bins[l][q]; b; b = b->next) {
                    if (n < cap)
                        sizes[n] = size_of_bin(l, q);
                    n++;
                }
        pthread_mutex_unlock(&lock);
        if (n <= cap)
            break;
        cap = n * 2;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromSsize_t(sizes[i]);
        if (v == NULL || PyList_Append(out, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(out);
            PyMem_RawFree(sizes);
            return NULL;
        }
        Py_DECREF(v);
    }
    PyMem_RawFree(sizes);
    return out;
}

static PyObject *
cpool_fail_next(PyObject *mod, PyObject *args)
{
    Py_ssize_t allocs;
    int arrays = 0;
    if (!PyArg_ParseTuple(args, "n|i", &allocs, &arrays))
        return NULL;
    refuse_allocs = allocs;
    refuse_arrays = arrays;
    Py_RETURN_NONE;
}

static PyObject *
cpool_setup(PyObject *mod, PyObject *args)
{
    PyObject *nd, *emp, *big;
    int huge;
    if (!PyArg_ParseTuple(args, "OOOp", &nd, &emp, &big, &huge))
        return NULL;
    if (!PyType_Check(nd) || !PyCallable_Check(emp) || !PyList_CheckExact(big)) {
        PyErr_SetString(PyExc_TypeError, "setup(ndarray, empty, threshold_list, madvise_hugepage)");
        return NULL;
    }
    Py_INCREF(nd);
    Py_XSETREF(ndarray_t, nd);
    Py_INCREF(emp);
    Py_XSETREF(np_empty, emp);
    Py_INCREF(big);
    Py_XSETREF(big_list, big);
    madvise_huge = huge;
    Py_RETURN_NONE;
}

static PyMethodDef cpool_methods[] = {
    {"empty", (PyCFunction)(void (*)(void))cpool_empty, METH_FASTCALL, empty_doc},
    {"empty_cache", cpool_empty_cache, METH_NOARGS, "pool.py's empty_cache."},
    {"set_limit", cpool_set_limit, METH_O, "set_limit(nbytes): keep at most nbytes cached; evicts now."},
    {"stats", cpool_stats, METH_NOARGS, "The counters of memory_stats(), as a dict."},
    {"cached_sizes", cpool_cached_sizes, METH_NOARGS, "The size of every cached block (a test's view)."},
    {"fail_next", cpool_fail_next, METH_VARARGS,
     "fail_next(allocs, arrays=0): refuse the next allocs system allocations and the next arrays "
     "array constructions (tests of the accounting after MemoryError)."},
    {"setup", cpool_setup, METH_VARARGS,
     "setup(ndarray, empty, threshold_list, madvise_hugepage): numpy.ndarray, numpy.empty, "
     "_pool.MIN_BYTES and NumPy's huge-page setting."},
    {NULL}};

static struct PyModuleDef cpool_module = {PyModuleDef_HEAD_INIT, "_cpool",
                                          "The buffer pool in C (see strided/_core/pool.py).", -1,
                                          cpool_methods};

static void
after_fork_child(void)
{
    pthread_mutex_init(&lock, NULL);
}

PyMODINIT_FUNC
PyInit__cpool(void)
{
    if (PyType_Ready(&Block_T) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&cpool_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&Block_T);
    if (PyModule_AddObject(m, "Block", (PyObject *)&Block_T) < 0) {
        Py_DECREF(&Block_T);
        Py_DECREF(m);
        return NULL;
    }
    static int forked_handler;
    if (!forked_handler) {
        pthread_atfork(NULL, NULL, after_fork_child);
        forked_handler = 1;
    }
    return m;
}
