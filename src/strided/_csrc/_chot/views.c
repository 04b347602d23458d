/* strided._csrc._chot, views.c: the views in C (``View``, ``ViewProp``).
 *
 * In front of: Array.__getitem__, .T, .mT, .contiguous() (strided/_core/array.py), reshape,
 * permute_dims, expand_dims, unsqueeze (strided/_api/views.py), the reshape/permute
 * methods (strided/_torch/methods.py) and rename, refine_names, align_to of named arrays
 * (strided/named/_ops.py; their names from the caches in names.c).
 *
 * x[index array] and x[bool mask] (indexing.advanced_getitem's hot path) are gathered here
 * (take_rows, take_mask) into results made by NumPy's C API (setup_take: its table, checked
 * on a probe) with a small free list. A view made by indexing, .T or .mT carries no native
 * view; native_build makes it from the Storage's flat array when a kernel needs it (for the
 * hot path's small_native and Array._get_native), as NumPy's np.ndarray(buffer=...) makes it.
 *
 * Also here: the free list of Array objects (setup_array_free: Array's tp_alloc and
 * tp_dealloc, every Array made anywhere), and x ** 0.5 of a small float32/float64 host
 * array (pow_half, for elementwise._pow_float: the standard's values in one pass, its
 * result made as the take's results are).
 */
#include "chot.h"

/* ====================================================================================
 * Views: the plain cases of indexing and of the view functions, in C.
 *
 * A view is integer arithmetic on (offset, shape, strides); the Python hot paths
 * (Array.__getitem__, .T, .mT, .contiguous() in _array.py; reshape, permute_dims,
 * expand_dims, unsqueeze in _views.py; the reshape/permute methods in _methods.py)
 * do it with a few cached tuples and a fresh Array. Here a ``View`` (a ``Fast`` of
 * another kind, same fields) or a ``ViewProp`` (a data descriptor in front of a
 * property) answers the case those hot paths answer, with the same result:
 *
 *     an Array (exact type, ``_ext is None``) whose layout is plain tuples of
 *     Python ints, and arguments of exact types (ints, slices, tuples of them).
 *
 * A lazy parent (a kernel result without a Storage yet) is materialized first
 * (its ``_materialize``), as the Python paths do; the child shares the parent's
 * Storage. The child's native view: None for indexing, .T and .mT (native_build makes
 * it when a kernel needs it); for the others the backend's own view of the parent's
 * (``p.reshape(shape)``, ``p.transpose(axes)``) when the parent's is cached, else None,
 * as in Python.
 * Anything else -- other key types, Ellipsis, None, bools, out-of-range ints, zero
 * steps, negative sizes, keywords, arithmetic that would overflow -- declines
 * (NULL, no error set) and the Python function runs, raising its own errors.
 * ==================================================================================== */

static PyObject *unsq_keys[MAXDIMS + 1]; /* (slice(None),) * a + (None, Ellipsis), built on use */

/* The items of a tuple of exact Python ints (bools too when bools is set: *bools then
   says whether there was one), at most MAXDIMS of them; -1 (no error set) for
   anything else. */
static int
tuple_ints_or_bools(PyObject *t, Py_ssize_t *out, Py_ssize_t *n, int *bools)
{
    if (t == NULL || !PyTuple_CheckExact(t))
        return -1;
    Py_ssize_t m = PyTuple_GET_SIZE(t);
    if (m > MAXDIMS)
        return -1;
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *v = PyTuple_GET_ITEM(t, i);
        if (!PyLong_CheckExact(v)) {
            if (bools == NULL || !PyBool_Check(v))
                return -1;
            *bools = 1;
        }
        Py_ssize_t x = PyLong_AsSsize_t(v);
        if (x == -1 && PyErr_Occurred()) {
            (void)contract_clear(PyExc_OverflowError); /* (the only error of an exact int) */
            return -1;
        }
        out[i] = x;
    }
    *n = m;
    return 0;
}

static inline int
tuple_ints(PyObject *t, Py_ssize_t *out, Py_ssize_t *n)
{
    return tuple_ints_or_bools(t, out, n, NULL);
}

/* x's layout in C: offset, shape and strides, after materializing a lazy x.
   0, or -1 to decline (an error set only for one that must propagate). */
typedef struct {
    Py_ssize_t nd, off;
    Py_ssize_t shape[MAXDIMS], str[MAXDIMS];
} Layout;

static int
get_layout(PyObject *x, Layout *L)
{
    PyObject *st = SLOT(x, O_st);
    if (st == NULL)
        return -1;
    if (st == Py_None) {
        int m = materialize(x); /* (storage.c: the C-contiguous case; else the method) */
        PyObject *r = m != 0 ? NULL : PyObject_CallMethodNoArgs(x, s_materialize);
        if (m < 0 || (m == 0 && r == NULL)) {
            decline_error();
            return -1;
        }
        Py_XDECREF(r);
        st = SLOT(x, O_st);
        if (st == NULL || st == Py_None)
            return -1;
    }
    PyObject *off = SLOT(x, O_off);
    Py_ssize_t ns;
    if (off == NULL || !PyLong_CheckExact(off) || tuple_ints(SLOT(x, O_shape), L->shape, &L->nd)
        || tuple_ints(SLOT(x, O_str), L->str, &ns) || ns != L->nd)
        return -1;
    L->off = PyLong_AsSsize_t(off);
    if (L->off == -1 && PyErr_Occurred()) {
        (void)contract_clear(PyExc_OverflowError);
        return -1;
    }
    for (Py_ssize_t i = 0; i < L->nd; i++)
        if (L->shape[i] < 0)
            return -1;
    return 0;
}

/* A tuple of n C integers (new reference), or NULL with an error set. */
PyObject *
ints_tuple(const Py_ssize_t *v, Py_ssize_t n)
{
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyLong_FromSsize_t(v[i]);
        if (o == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, o);
    }
    return t;
}

/* Whether t is a tuple of exactly the n ints v (tuples are immutable: a child whose
   shape or strides equal its parent's shares the parent's tuple, as x[:] or x[2:8] of a
   1-D x does its strides, and .T of a square matrix its shape). */
static int
same_ints(PyObject *t, const Py_ssize_t *v, Py_ssize_t n)
{
    if (t == NULL || !PyTuple_CheckExact(t) || PyTuple_GET_SIZE(t) != n)
        return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyTuple_GET_ITEM(t, i);
        if (!PyLong_CheckExact(o))
            return 0;
        Py_ssize_t w = PyLong_AsSsize_t(o);
        if (w == -1 && PyErr_Occurred()) {
            (void)contract_clear(PyExc_OverflowError);
            return 0;
        }
        if (w != v[i])
            return 0;
    }
    return 1;
}

/* The child view of x: (offset, shape, strides) in C, its native view nat (stolen;
   Py_None when not cached), sharing x's Storage, dtype and device. shape_obj, when not
   NULL, is a tuple equal to shape (borrowed) that the child takes as it is. */
static PyObject *
make_view(PyObject *x, PyObject *nat, Py_ssize_t off, const Py_ssize_t *shape,
          const Py_ssize_t *str, Py_ssize_t nd, PyObject *shape_obj)
{
    PyObject *o = NULL, *sh = NULL, *sr = NULL;
    PyObject *xo = SLOT(x, O_off), *xsh = SLOT(x, O_shape), *xsr = SLOT(x, O_str);
    Py_ssize_t xoff = xo != NULL && PyLong_CheckExact(xo) ? PyLong_AsSsize_t(xo) : -1;
    if (xoff == -1 && PyErr_Occurred())
        (void)contract_clear(PyExc_OverflowError);
    o = xo != NULL && xoff == off ? Py_NewRef(xo) : PyLong_FromSsize_t(off);
    sh = shape_obj != NULL ? Py_NewRef(shape_obj)
         : same_ints(xsh, shape, nd) ? Py_NewRef(xsh) : ints_tuple(shape, nd);
    sr = same_ints(xsr, str, nd) ? Py_NewRef(xsr) : ints_tuple(str, nd);
    if (o == NULL || sh == NULL || sr == NULL) {
        Py_DECREF(nat);
        Py_XDECREF(o);
        Py_XDECREF(sh);
        Py_XDECREF(sr);
        return NULL;
    }
    PyObject *st = SLOT(x, O_st), *dt = SLOT(x, O_dtype), *dev = SLOT(x, O_device);
    if (st == NULL || dt == NULL || dev == NULL) { /* not reachable for an Array made by us */
        Py_DECREF(nat);
        Py_DECREF(o);
        Py_DECREF(sh);
        Py_DECREF(sr);
        return NULL;
    }
    return array_new(nat, Py_NewRef(st), o, sh, sr, Py_NewRef(dt), Py_NewRef(dev));
}

/* The parent's cached native view (new reference), or Py_None. */
static inline PyObject *
parent_native(PyObject *x)
{
    PyObject *p = SLOT(x, O_np);
    return Py_NewRef(p == NULL ? Py_None : p);
}

/* --- indexing: x[slice], x[int], x[(ints and slices, one per leading axis)] --------- */

static inline int
plain_index(PyObject *v)
{
    return v == Py_None || PyLong_CheckExact(v);
}

/* PySlice_Unpack of a slice whose parts are None or exact ints (plain_index): read
   directly when each fits a Py_ssize_t, else by PySlice_Unpack itself (which clips a
   bound as slice.indices does). 0 (no error set: the Python path runs) for a zero step
   or one that does not fit: PySlice_Unpack would clip it where the Python path's
   slice.indices keeps it (the old C path gave an empty view of step -2**63 another
   stride than the Python path's). */
int
slice_unpack(PySliceObject *sl, Py_ssize_t *start, Py_ssize_t *stop, Py_ssize_t *step)
{
    int overflow = 0;
    long long v;
    if (sl->step == Py_None)
        *step = 1;
    else {
        v = PyLong_AsLongLongAndOverflow(sl->step, &overflow);
        if (overflow || v == 0 || v < -PY_SSIZE_T_MAX || v > PY_SSIZE_T_MAX)
            return 0; /* (PySlice_Unpack would clip such a step, slice.indices keeps it) */
        *step = (Py_ssize_t)v;
    }
    if (sl->start == Py_None)
        *start = *step < 0 ? PY_SSIZE_T_MAX : 0;
    else {
        v = PyLong_AsLongLongAndOverflow(sl->start, &overflow);
        if (overflow || v < PY_SSIZE_T_MIN || v > PY_SSIZE_T_MAX)
            goto general;
        *start = (Py_ssize_t)v;
    }
    if (sl->stop == Py_None)
        *stop = *step < 0 ? PY_SSIZE_T_MIN : PY_SSIZE_T_MAX;
    else {
        v = PyLong_AsLongLongAndOverflow(sl->stop, &overflow);
        if (overflow || v < PY_SSIZE_T_MIN || v > PY_SSIZE_T_MAX)
            goto general;
        *stop = (Py_ssize_t)v;
    }
    return 1;
general:
    if (PySlice_Unpack((PyObject *)sl, start, stop, step) < 0) {
        (void)decline_error();
        return 0;
    }
    return 1;
}

/* x[key] for a key of exact ints and slices (one per leading axis), or, when newaxes is
   set (an unnamed x: the name caches key on ints and slices only), with None and one
   Ellipsis among them too (layout.basic_index's arithmetic: None a new axis of size 1 and
   stride 0, "..." the axes no other item takes). The child has no native view:
   native_build makes it when a kernel needs one, as for .T and .mT. */
static PyObject *
view_getitem(PyObject *x, PyObject *key, int newaxes)
{
    PyTypeObject *tk = Py_TYPE(key);
    int single = tk == &PySlice_Type || tk == &PyLong_Type
                 || (newaxes && (key == Py_None || key == Py_Ellipsis));
    if (!single && tk != &PyTuple_Type)
        return NULL;
    PyObject *shape = SLOT(x, O_shape);
    if (shape == NULL || !PyTuple_CheckExact(shape))
        return NULL;
    Py_ssize_t nd = PyTuple_GET_SIZE(shape);
    Py_ssize_t nk = single ? 1 : PyTuple_GET_SIZE(key), nreal = 0, nnew = 0, ell = -1;
    for (Py_ssize_t i = 0; i < nk; i++) {
        PyObject *k = single ? key : PyTuple_GET_ITEM(key, i);
        if (k == Py_None && newaxes)
            nnew++;
        else if (k == Py_Ellipsis && newaxes && ell < 0)
            ell = i;
        else if (Py_TYPE(k) == &PySlice_Type || PyLong_CheckExact(k))
            nreal++;
        else
            return NULL; /* (a second "...", other types: the general path) */
    }
    if (nreal > nd || nd + nnew > MAXDIMS)
        return NULL;
    Layout L;
    if (get_layout(x, &L) < 0)
        return NULL;
    if (L.nd != nd)
        return NULL;
    Py_ssize_t oshape[MAXDIMS], ostr[MAXDIMS], no = 0, off = L.off, d = 0;
    for (Py_ssize_t j = 0; j < nk; j++) {
        PyObject *k = single ? key : PyTuple_GET_ITEM(key, j);
        if (k == Py_None) {
            oshape[no] = 1;
            ostr[no++] = 0;
            continue;
        }
        if (k == Py_Ellipsis) {
            for (Py_ssize_t e = 0; e < nd - nreal; e++, d++) {
                oshape[no] = L.shape[d];
                ostr[no++] = L.str[d];
            }
            continue;
        }
        Py_ssize_t n = L.shape[d], s = L.str[d];
        if (Py_TYPE(k) == &PySlice_Type) {
            PySliceObject *sl = (PySliceObject *)k;
            Py_ssize_t start, stop, step, t;
            if (!plain_index(sl->start) || !plain_index(sl->stop) || !plain_index(sl->step))
                return NULL;
            if (!slice_unpack(sl, &start, &stop, &step))
                return NULL; /* (a zero step: the Python path raises) */
            Py_ssize_t len = PySlice_AdjustIndices(n, &start, &stop, step);
            if (len || (step > 0 && s >= 0)) { /* (empty: where it would start, as Python's) */
                if (__builtin_mul_overflow(start, s, &t) || __builtin_add_overflow(off, t, &off))
                    return NULL;
            }
            if (__builtin_mul_overflow(s, step, &t))
                return NULL;
            oshape[no] = len;
            ostr[no++] = t;
        }
        else {
            Py_ssize_t i = PyLong_AsSsize_t(k), t;
            if (i == -1 && PyErr_Occurred())
                return decline_error();
            if (i < -n || i >= n)
                return NULL; /* the Python path raises the IndexError */
            if (i < 0)
                i += n;
            if (__builtin_mul_overflow(i, s, &t) || __builtin_add_overflow(off, t, &off))
                return NULL;
        }
        d++;
    }
    for (; d < nd; d++) {
        oshape[no] = L.shape[d];
        ostr[no++] = L.str[d];
    }
    /* no native view: native_build makes it from the Storage when a kernel needs it (a
       NumPy view made here costs a third of the whole call, and most views are indexed
       again, read for their shape or handed to a kernel that builds its own) */
    return make_view(x, Py_NewRef(Py_None), off, oshape, ostr, no, NULL);
}

/* NumPy's PyArray_NewFromDescr, from its C API table (setup_take; NULL: numpy.empty).
   It steals the descriptor's reference. */
typedef PyObject *(new_from_descr_fn)(PyTypeObject *, PyObject *, int, const Py_ssize_t *,
                                     const Py_ssize_t *, void *, int, PyObject *);
static new_from_descr_fn *nd_new;
static PyTypeObject *nd_new_type; /* the ndarray type the table's function makes */
typedef int(set_base_fn)(PyObject *, PyObject *);
static set_base_fn *nd_set_base; /* PyArray_SetBaseObject (entry 282; steals the base) */
static PyTypeObject *nd_descr_type; /* PyArrayDescr_Type (entry 3) */

/* ====================================================================================
 * Aligned results below the pool threshold
 *
 * malloc aligns to 16 bytes, so NumPy's results start anywhere in a cache line; where a
 * loop stores whole 64-byte lines (NumPy's AVX-512 loops) a result that does not start
 * one costs about twice the time from ~16 KB on (np.add(a, b, out=o) at 60,000 float32:
 * 7.2 us with o 64-aligned, 13.6-16.9 us 16-48 bytes off). PyTorch aligns every buffer
 * to 64 bytes; the pool's blocks start a page. Results this module makes itself between
 * ALIGN_FROM and the pool threshold (or elide_bytes, the smaller: from there the pool's
 * blocks, which elision and the engine know, serve) take a 64-byte aligned buffer of
 * their own: posix_memalign'd, owned by an AlignedBuffer that frees it when the last
 * view of the result goes, and reported to tracemalloc in NumPy's domain as NumPy's own
 * buffers are. Not pooled: glibc's heap keeps blocks of these sizes as it keeps NumPy's.
 * ==================================================================================== */
#define ALIGN_TO 64
#define NPY_TRACE_DOMAIN 389047 /* NumPy's tracemalloc domain (numpy/_core/src/multiarray/alloc.c) */

typedef struct {
    PyObject_HEAD
    void *ptr;
} AlignedBuf;

static void
abuf_dealloc(PyObject *o)
{
    void *p = ((AlignedBuf *)o)->ptr;
    if (p != NULL) {
        PyTraceMalloc_Untrack(NPY_TRACE_DOMAIN, (uintptr_t)p);
        free(p);
    }
    PyObject_Free(o);
}

PyTypeObject AlignedBuf_T = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "strided._csrc._chot.AlignedBuffer",
    .tp_basicsize = sizeof(AlignedBuf),
    .tp_dealloc = abuf_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The owner of a 64-byte aligned result buffer (a result's base): frees it.",
};

/* A fresh C-contiguous ndarray (dims, nd; descriptor descr, borrowed) over an aligned
   buffer of nbytes when nbytes is in the aligned range; NULL with no error set outside it
   or without NumPy's C API table (the caller makes NumPy's), NULL with an error set when
   the memory or NumPy failed. */
PyObject *
aligned_result(const Py_ssize_t *dims, int nd, PyObject *descr, Py_ssize_t nbytes)
{
    Py_ssize_t big = contract_pool_limit(big_list);
    if (big > elide_bytes)
        big = elide_bytes;
    if (nbytes < ALIGN_FROM || nbytes >= big || nd_set_base == NULL || nd_new_type != ND_T)
        return NULL;
    AlignedBuf *o = PyObject_New(AlignedBuf, &AlignedBuf_T);
    if (o == NULL)
        return NULL;
    o->ptr = NULL;
    if (posix_memalign(&o->ptr, ALIGN_TO, (size_t)nbytes) != 0) {
        o->ptr = NULL;
        Py_DECREF(o);
        return PyErr_NoMemory();
    }
    PyTraceMalloc_Track(NPY_TRACE_DOMAIN, (uintptr_t)o->ptr, (size_t)nbytes);
    Py_INCREF(descr);
    PyObject *r = nd_new(ND_T, descr, nd, dims, NULL, o->ptr, ND_WRITEABLE, NULL);
    if (r == NULL) {
        Py_DECREF(o);
        return NULL;
    }
    if (nd_set_base(r, (PyObject *)o) < 0) { /* (it steals o, and drops it on failure) */
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

/* aligned_empty(shape, dtype) -> a fresh C-contiguous ndarray over a 64-byte aligned buffer
   (aligned_result's), or None outside its range (16 KiB to the pool threshold) or without
   NumPy's C API table: the creation functions' buffers (strided/_api/creation.py,
   _host_empty), aligned as the compiled path's results are. shape: a tuple of
   non-negative ints, dtype: a numpy.dtype; anything else is a TypeError. */
PyObject *
aligned_empty(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyTuple_CheckExact(args[0]) || PyTuple_GET_SIZE(args[0]) > MAXDIMS) {
        PyErr_SetString(PyExc_TypeError, "aligned_empty(shape, dtype): a tuple of ints and a numpy.dtype");
        return NULL;
    }
    if (nd_descr_type == NULL || nd_set_base == NULL || nd_new_type != ND_T)
        Py_RETURN_NONE; /* (no table: numpy.empty) */
    if (!PyObject_TypeCheck(args[1], nd_descr_type)) {
        PyErr_SetString(PyExc_TypeError, "aligned_empty(): dtype must be a numpy.dtype");
        return NULL;
    }
    Py_ssize_t dims[MAXDIMS], nd = PyTuple_GET_SIZE(args[0]), count = 1;
    for (Py_ssize_t d = 0; d < nd; d++) {
        PyObject *v = PyTuple_GET_ITEM(args[0], d);
        dims[d] = PyLong_CheckExact(v) ? PyLong_AsSsize_t(v) : -1;
        if (dims[d] < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "aligned_empty(): shape must be non-negative ints");
            return NULL;
        }
        if (dims[d] && count > PY_SSIZE_T_MAX / 64 / dims[d])
            Py_RETURN_NONE; /* (too large for any range of ours: numpy.empty says so) */
        count *= dims[d];
    }
    if (count * 16 < ALIGN_FROM) /* (no dtype of ours has more than 16 bytes: small, no lookup) */
        Py_RETURN_NONE;
    PyObject *isz = PyObject_GetAttrString(args[1], "itemsize");
    if (isz == NULL)
        return NULL;
    Py_ssize_t nbytes = PyLong_AsSsize_t(isz);
    Py_DECREF(isz);
    if (nbytes <= 0 || nbytes > 64) /* (a flexible dtype without a size, or an error) */
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    nbytes *= count;
    PyObject *r = aligned_result(dims, (int)nd, args[1], nbytes);
    if (r == NULL && !PyErr_Occurred())
        Py_RETURN_NONE;
    return r;
}

/* A view of the native p (an ndarray: its descriptor, its writeability) with nd dims,
   byte strides and data pointer inside p's memory, based on p as NumPy's own views are
   (PyArray_NewFromDescrAndBase in NumPy's slicing and transpose: the same fields, flags
   and base); what p[key] and p.T make, without NumPy's index parsing and attribute
   lookup. NULL with no error set where p carries flags other than its memory's
   (contiguity, ownership, alignment, writeability: NumPy's own views take those) or the
   table is not in use; NULL with an error set when NumPy failed. */
#define SUB_FLAGS (ND_C_CONTIGUOUS | ND_F_CONTIGUOUS | ND_OWNDATA | ND_ALIGNED | ND_WRITEABLE)
static PyObject *
sub_native(PyObject *p, int nd, const Py_ssize_t *dims, const Py_ssize_t *bstr, char *data)
{
    if (nd_set_base == NULL || nd_new_type != ND_T || Py_TYPE(p) != ND_T || !loops_ready
        || (ND(p)->flags & ~SUB_FLAGS) != 0)
        return NULL;
    PyObject *descr = ND(p)->descr;
    Py_INCREF(descr);
    PyObject *r = nd_new(ND_T, descr, nd, dims, bstr, data, ND(p)->flags & ND_WRITEABLE, NULL);
    if (r == NULL)
        return NULL;
    Py_INCREF(p);
    if (nd_set_base(r, p) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

/* Whether no two indices of the layout reach one element: the axes longer than 1 sorted
   by |stride|, each stride past everything the shorter ones reach (a zero stride, as a
   broadcast view has, fails). Sufficient, not necessary: a layout it refuses is left to
   the Python builder, which decides (array.py, _get_native and _layout.OVERLAP_SEEN). */
static int
plainly_disjoint(const Layout *L)
{
    Py_ssize_t len[MAXDIMS], step[MAXDIMS], m = 0, reach = 0;
    for (Py_ssize_t d = 0; d < L->nd; d++) {
        if (L->shape[d] < 2)
            continue;
        Py_ssize_t s = L->str[d] < 0 ? -L->str[d] : L->str[d], k = m++;
        if (s == 0 || L->str[d] == PY_SSIZE_T_MIN)
            return 0;
        for (; k > 0 && step[k - 1] > s; k--) /* (insertion: a few axes) */
            len[k] = len[k - 1], step[k] = step[k - 1];
        len[k] = L->shape[d], step[k] = s;
    }
    for (Py_ssize_t k = 0; k < m; k++) {
        Py_ssize_t t;
        if (step[k] <= reach || __builtin_mul_overflow(len[k] - 1, step[k], &t)
            || __builtin_add_overflow(reach, t, &reach))
            return 0;
    }
    return 1;
}

/* x's native view built from its Storage's flat array as Array._get_native builds it
   (array.py, _native: np.ndarray(shape, dtype, data, offset * itemsize, byte strides) --
   the flat array's descriptor and writeability, its base the flat array) and cached in
   x._np as _get_native caches it: the native view of a view made without one (indexing,
   .T, .mT), for the kernel that needs it. New reference; NULL with no error set to
   decline -- a lazy or foreign x, a flat array not of x's dtype or not as Storage makes
   it, an empty view, one that might reach an element twice, anything outside the flat
   array -- and the Python builder runs (raising its own errors). */
PyObject *
native_build(PyObject *x)
{
    PyObject *st = SLOT(x, O_st), *dt = SLOT(x, O_dtype);
    if (st == NULL || !contract_want(st, W_STORAGE_OR_NONE) || st == Py_None || dt == NULL
        || !contract_dtype(dt) || nd_set_base == NULL || !loops_ready)
        return NULL;
    PyObject *p = SLOT(st, S_data);
    if (p == NULL || Py_TYPE(p) != ND_T || ND(p)->nd != 1 || ND(p)->descr != SLOT(dt, D_np))
        return NULL;
    Py_ssize_t isz = PyLong_AsSsize_t(SLOT(dt, D_itemsize)), n = ND(p)->dimensions[0];
    if (isz <= 0 || ND(p)->strides[0] != isz || (ND(p)->flags & ~SUB_FLAGS) != 0) {
        PyErr_Clear();
        return NULL;
    }
    Layout L;
    if (get_layout(x, &L) < 0)
        return decline_error();
    Py_ssize_t lo = L.off, hi = L.off, bstr[MAXDIMS], t;
    for (Py_ssize_t d = 0; d < L.nd; d++) {
        if (L.shape[d] == 0 || __builtin_mul_overflow(L.shape[d] - 1, L.str[d], &t)
            || __builtin_add_overflow(t < 0 ? lo : hi, t, t < 0 ? &lo : &hi)
            || __builtin_mul_overflow(L.str[d], isz, &bstr[d]))
            return NULL; /* (empty: _native's own offset rule) */
    }
    if (lo < 0 || hi >= n || !plainly_disjoint(&L))
        return NULL;
    PyObject *r = sub_native(p, (int)L.nd, L.shape, bstr, ND(p)->data + L.off * isz);
    if (r == NULL)
        return decline_error();
    Py_XSETREF(SLOT(x, O_np), Py_NewRef(r));
    return r;
}

/* native(x) -> x's native view built and cached by native_build, or None (declined: the
   caller builds it in Python). For Array._get_native. */
PyObject *
native_py(PyObject *Py_UNUSED(mod), PyObject *x)
{
    if (Py_TYPE(x) != Array_T || SLOT(x, O_np) != Py_None)
        Py_RETURN_NONE;
    PyObject *r = native_build(x);
    if (r == NULL && !PyErr_Occurred())
        Py_RETURN_NONE;
    return r;
}

/* sub_native's check at setup: the transposed view of a probe (2, 3) array, built with
   set_base, reads back as NumPy's own p.T (shape, strides, data, base, flags). */
static int
sub_probe(set_base_fn *set_base)
{
    PyObject *np_mod = PyImport_ImportModule("numpy"), *p = NULL, *t = NULL, *r = NULL;
    int ok = 0;
    if (np_mod == NULL)
        goto done;
    p = PyObject_CallMethod(np_mod, "zeros", "((ii))", 2, 3);
    t = p != NULL ? PyObject_GetAttrString(p, "T") : NULL;
    if (t == NULL || Py_TYPE(p) != nd_new_type || Py_TYPE(t) != nd_new_type)
        goto done;
    Py_ssize_t dims[2] = {3, 2}, bstr[2] = {ND(p)->strides[1], ND(p)->strides[0]};
    Py_INCREF(ND(p)->descr);
    r = nd_new(nd_new_type, ND(p)->descr, 2, dims, bstr, ND(p)->data,
               ND(p)->flags & ND_WRITEABLE, NULL);
    if (r == NULL)
        goto done;
    Py_INCREF(p);
    if (set_base(r, p) < 0)
        goto done;
    ok = ND(r)->nd == 2 && ND(r)->dimensions[0] == 3 && ND(r)->dimensions[1] == 2
         && ND(r)->strides[0] == ND(t)->strides[0] && ND(r)->strides[1] == ND(t)->strides[1]
         && ND(r)->data == ND(t)->data && ND(r)->base == ND(t)->base && ND(r)->base == p
         && ND(r)->flags == ND(t)->flags && ND(r)->descr == ND(t)->descr;
done:
    if (PyErr_Occurred())
        PyErr_Clear();
    Py_XDECREF(r);
    Py_XDECREF(t);
    Py_XDECREF(p);
    Py_XDECREF(np_mod);
    return ok;
}

/* setup_take(capsule or None, numpy.ndarray, numpy.dtype('float64')): the table of NumPy's
   C API (the capsule import_array() reads) checked as import_array() checks it -- its
   ndarray type (entry 2) is numpy.ndarray -- and on a probe: PyArray_NewFromDescr (entry
   94, the same in every NumPy since 1.0) must make a fresh C-contiguous (2, 3) float64
   ndarray that owns its data. Returns whether the compiled take uses it. */
PyObject *
setup_take(PyObject *mod, PyObject *args)
{
    PyObject *cap, *nd_type, *descr;
    if (!PyArg_ParseTuple(args, "OO!O:setup_take", &cap, &PyType_Type, &nd_type, &descr))
        return NULL;
    nd_new = NULL;
    nd_new_type = NULL;
    nd_set_base = NULL;
    if (!PyCapsule_CheckExact(cap))
        Py_RETURN_FALSE;
    void **api = (void **)PyCapsule_GetPointer(cap, NULL);
    if (api == NULL) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    if (api[2] != (void *)nd_type || !PyObject_TypeCheck(descr, (PyTypeObject *)api[3]))
        Py_RETURN_FALSE;
    new_from_descr_fn *fn = (new_from_descr_fn *)api[94];
    Py_ssize_t dims[2] = {2, 3};
    Py_INCREF(descr);
    PyObject *p = fn((PyTypeObject *)nd_type, descr, 2, dims, NULL, NULL, 0, NULL);
    if (p == NULL)
        return NULL;
    PyObject *shape = PyObject_GetAttrString(p, "shape"), *flags = NULL, *owns = NULL, *cc = NULL,
             *dt = PyObject_GetAttrString(p, "dtype");
    if (shape != NULL)
        flags = PyObject_GetAttrString(p, "flags");
    if (flags != NULL) {
        owns = PyObject_GetAttrString(flags, "owndata");
        cc = PyObject_GetAttrString(flags, "c_contiguous");
    }
    int ok = Py_TYPE(p) == (PyTypeObject *)nd_type && dt == descr && owns == Py_True && cc == Py_True
             && shape != NULL && PyTuple_CheckExact(shape) && PyTuple_GET_SIZE(shape) == 2
             && PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, 0)) == 2
             && PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, 1)) == 3;
    Py_XDECREF(shape);
    Py_XDECREF(flags);
    Py_XDECREF(owns);
    Py_XDECREF(cc);
    Py_XDECREF(dt);
    Py_DECREF(p);
    if (PyErr_Occurred())
        return NULL;
    if (ok) {
        nd_new = fn;
        nd_new_type = (PyTypeObject *)nd_type;
        nd_set_base = sub_probe((set_base_fn *)api[282]) ? (set_base_fn *)api[282] : NULL;
        nd_descr_type = (PyTypeObject *)api[3];
    }
    return PyBool_FromLong(ok);
}

/* The free list of small take results (a per-call cost NumPy's own result does not have:
   the Array around it). A result ndarray made here is kept in a slot; it is free again
   when the slot holds its only reference -- no Array, Storage, view, buffer export or
   weak reference of it is left -- and it is as NumPy made it (its fields are checked:
   type, descriptor, dimensions, flags, no base, no weak reference). Then its object and
   buffer serve the next result of the same dtype and shape, every byte rewritten, as
   CPython's free lists serve floats and tuples; nothing anyone holds changes. */
#define TAKE_FREE 4
#define TAKE_FREE_BYTES 4096
static PyObject *take_free[TAKE_FREE];
/* the flags each slot's array had when NumPy made it: a fresh array's flags depend on its
   shape (a (2, 3) result is C-contiguous only, a (6,) one also F-contiguous), so they are
   kept per slot; one set for all once listed only the contiguity class of the first result */
static int take_free_flags[TAKE_FREE];
static unsigned take_free_next;

static PyObject *
take_reuse(const Py_ssize_t *dims, int nd, PyObject *descr)
{
    for (int s = 0; s < TAKE_FREE; s++) {
        PyObject *r = take_free[s];
        if (r == NULL || Py_REFCNT(r) != 1 || Py_TYPE(r) != ND_T || ND(r)->descr != descr
            || ND(r)->nd != nd || ND(r)->base != NULL || ND(r)->flags != take_free_flags[s]
            || (ND_T->tp_weaklistoffset > 0
                && *(PyObject **)((char *)r + ND_T->tp_weaklistoffset) != NULL)
            || memcmp(ND(r)->dimensions, dims, nd * sizeof(Py_ssize_t)) != 0)
            continue;
        return Py_NewRef(r);
    }
    return NULL;
}

/* free_held(a) -> bool: whether the free list holds a reference to ndarray a (one of the
   references a sole-owner test counts is then the list's: autograd's gradient stealing,
   _cgrad.c acc_stealable, discounts it; the list reuses an array only once its reference is
   the last one, so a stolen gradient is never handed out while it is a .grad). */
PyObject *
free_held(PyObject *mod, PyObject *a)
{
    for (int s = 0; s < TAKE_FREE; s++)
        if (take_free[s] == a)
            Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* A fresh C-contiguous ndarray of shape dims (nd of them) and descriptor descr (borrowed)
   below the pool threshold, from NumPy's C API table: a free one of the free list (reuse,
   up to TAKE_FREE_BYTES), a 64-byte aligned one from ALIGN_FROM on, else NumPy's
   PyArray_NewFromDescr -- what numpy.empty makes, without its argument parsing. NULL with
   no error set without the table or from the pool threshold on (the caller makes it),
   NULL with an error set when the memory or NumPy failed. */
PyObject *
fresh_result(const Py_ssize_t *dims, int nd, PyObject *descr, Py_ssize_t nbytes, int reuse)
{
    Py_ssize_t big = contract_pool_limit(big_list);
    if (nd_new == NULL || nd_new_type != ND_T || (pool_empty != NULL && big > 0 && nbytes >= big))
        return NULL;
    PyObject *r = reuse && nbytes <= TAKE_FREE_BYTES ? take_reuse(dims, nd, descr) : NULL;
    if (r != NULL)
        return r;
    if (nbytes >= ALIGN_FROM && ((r = aligned_result(dims, nd, descr, nbytes)) != NULL || PyErr_Occurred()))
        return r;
    Py_INCREF(descr);
    r = nd_new(nd_new_type, descr, nd, dims, NULL, NULL, 0, NULL);
    if (reuse && r != NULL && nbytes <= TAKE_FREE_BYTES && Py_TYPE(r) == ND_T && ND(r)->base == NULL) {
        /* (the slot's index first: Py_XSETREF evaluates its target twice in CPython 3.11,
           so an index with a side effect would drop one slot's reference and overwrite the
           next slot's) */
        unsigned k = take_free_next++ % TAKE_FREE;
        take_free_flags[k] = ND(r)->flags;
        Py_XSETREF(take_free[k], Py_NewRef(r));
    }
    return r;
}

/* fresh_result with the free list, or the buffer pool's (result_empty) from the pool
   threshold on, numpy.empty without the table. */
static PyObject *
take_empty(PyObject *shape, const Py_ssize_t *dims, int nd, PyObject *descr, Py_ssize_t nbytes)
{
    PyObject *r = fresh_result(dims, nd, descr, nbytes, 1);
    return r != NULL || PyErr_Occurred() ? r : result_empty(shape, descr, nbytes);
}

/* x[key] for an index Array key (not 0-d, no extension, on x's device) when both natives
   are cached CPU ndarrays: NumPy's advanced indexing of them, a fresh array, wrapped as
   indexing.advanced_getitem's hot path wraps it. NumPy refuses a key that is not of an
   integer or boolean dtype, or out of bounds: the Python path then raises its error.
   The plain case -- an integer key (any width, signed or not, C-contiguous) into an x
   whose native is C-contiguous after its first axis -- is gathered here (take_rows):
   NumPy's result, element for element, without NumPy's index preparation and cast
   machinery (mapping.c, mapiter_trivial_get: one pass, each index checked then copied). */

/* The index at p of an integer array of itemsize isz (signed when sgn), as a Py_ssize_t;
   an unsigned value beyond PY_SSIZE_T_MAX reads as -1 - PY_SSIZE_T_MAX (out of bounds). */
static inline Py_ssize_t
index_at(const char *p, int isz, int sgn)
{
    switch (isz) {
    case 8:
        if (sgn)
            return (Py_ssize_t)*(const int64_t *)p;
        else {
            uint64_t u = *(const uint64_t *)p;
            return u > (uint64_t)PY_SSIZE_T_MAX ? PY_SSIZE_T_MIN : (Py_ssize_t)u;
        }
    case 4:
        return sgn ? (Py_ssize_t)*(const int32_t *)p : (Py_ssize_t)*(const uint32_t *)p;
    case 2:
        return sgn ? (Py_ssize_t)*(const int16_t *)p : (Py_ssize_t)*(const uint16_t *)p;
    default:
        return sgn ? (Py_ssize_t)*(const int8_t *)p : (Py_ssize_t)*(const uint8_t *)p;
    }
}

/* The gather: dst[j] = src[idx[j]] (rows of rb bytes, the source's rows stride bytes
   apart), each index checked against n and wrapped when negative. 0, or -1 at the first
   index out of bounds (dst then partly written: the caller drops it). Bytes are copied
   as they are (fixed-size memcpy: a NaN's payload, a signed zero stay). */
#define GATHER(T)                                                                     \
    for (Py_ssize_t j = 0; j < count; j++) {                                          \
        Py_ssize_t i = index_at(ip + j * isz, isz, sgn);                              \
        if (i < 0)                                                                    \
            i += n;                                                                   \
        if ((size_t)i >= (size_t)n)                                                   \
            return -1;                                                                \
        memcpy(dst + j * sizeof(T), src + i * stride, sizeof(T));                     \
    }                                                                                 \
    return 0;

typedef struct { uint64_t lo, hi; } u128;

static int
gather(char *dst, const char *src, const char *ip, Py_ssize_t count, int isz, int sgn,
       Py_ssize_t n, Py_ssize_t stride, Py_ssize_t rb)
{
    switch (rb) {
    case 8:
        if (isz == 8 && sgn) { /* (int64 indices: the common case, read without the switch) */
            const int64_t *ix = (const int64_t *)ip;
            for (Py_ssize_t j = 0; j < count; j++) {
                Py_ssize_t i = (Py_ssize_t)ix[j];
                if (i < 0)
                    i += n;
                if ((size_t)i >= (size_t)n)
                    return -1;
                memcpy(dst + j * 8, src + i * stride, 8);
            }
            return 0;
        }
        GATHER(uint64_t)
    case 4:
        if (isz == 8 && sgn) {
            const int64_t *ix = (const int64_t *)ip;
            for (Py_ssize_t j = 0; j < count; j++) {
                Py_ssize_t i = (Py_ssize_t)ix[j];
                if (i < 0)
                    i += n;
                if ((size_t)i >= (size_t)n)
                    return -1;
                memcpy(dst + j * 4, src + i * stride, 4);
            }
            return 0;
        }
        GATHER(uint32_t)
    case 2:
        GATHER(uint16_t)
    case 1:
        GATHER(uint8_t)
    case 16:
        GATHER(u128)
    }
    for (Py_ssize_t j = 0; j < count; j++) {
        Py_ssize_t i = index_at(ip + j * isz, isz, sgn);
        if (i < 0)
            i += n;
        if ((size_t)i >= (size_t)n)
            return -1;
        memcpy(dst + j * rb, src + i * stride, (size_t)rb);
    }
    return 0;
}
#undef GATHER

/* x[key] gathered here (a = x's native, k = key's, dt = x's DType, all checked by the
   caller), or NULL with no error set to leave it to NumPy's indexing (another layout, an
   index out of bounds: NumPy's IndexError), or NULL with an error that must propagate. */
static PyObject *
take_rows(PyObject *x, PyObject *key, PyObject *a, PyObject *k, PyObject *dt)
{
    NDFields *A = ND(a), *K = ND(k);
    PyObject *kdt = SLOT(key, O_dtype);
    if (A->nd < 1 || A->descr != SLOT(dt, D_np) || !(A->flags & ND_ALIGNED)
        || !(K->flags & ND_C_CONTIGUOUS) || !(K->flags & ND_ALIGNED) || !contract_dtype(kdt)
        || K->descr != SLOT(kdt, D_np) || K->nd < 1 || K->nd + A->nd - 1 > MAXDIMS)
        return NULL;
    char kind = ((DescrHead *)K->descr)->kind;
    Py_ssize_t isz = PyLong_AsSsize_t(SLOT(kdt, D_itemsize)),
               esz = PyLong_AsSsize_t(SLOT(dt, D_itemsize));
    if ((kind != 'i' && kind != 'u') || (isz != 1 && isz != 2 && isz != 4 && isz != 8) || esz <= 0)
        return NULL; /* (an exact int's only error, OverflowError: not for an itemsize) */
    /* the rows: x's axes after the first, C-contiguous (any stride along the first) */
    Py_ssize_t rb = esz, count = 1, nbytes;
    for (int d = A->nd - 1; d >= 1; d--) {
        if (A->dimensions[d] != 1 && A->strides[d] != rb)
            return NULL;
        if (__builtin_mul_overflow(rb, A->dimensions[d], &rb))
            return NULL;
    }
    for (int d = 0; d < K->nd; d++)
        if (__builtin_mul_overflow(count, K->dimensions[d], &count))
            return NULL;
    if (__builtin_mul_overflow(count, rb, &nbytes))
        return NULL;
    /* the result's shape: key.shape + x.shape[1:] (a 1-D x: key's own shape tuple) */
    PyObject *shape, *ks = SLOT(key, O_shape);
    Py_ssize_t dims[MAXDIMS];
    int rnd = K->nd + A->nd - 1;
    memcpy(dims, K->dimensions, K->nd * sizeof(Py_ssize_t));
    memcpy(dims + K->nd, A->dimensions + 1, (A->nd - 1) * sizeof(Py_ssize_t));
    int same = A->nd == 1 && PyTuple_CheckExact(ks) && PyTuple_GET_SIZE(ks) == K->nd;
    for (int d = 0; same && d < K->nd; d++) {
        PyObject *v = PyTuple_GET_ITEM(ks, d);
        same = PyLong_CheckExact(v) && PyLong_AsSsize_t(v) == K->dimensions[d];
    }
    if (PyErr_Occurred() && !contract_clear(PyExc_OverflowError))
        return NULL;
    if (same)
        shape = Py_NewRef(ks);
    else {
        shape = ints_tuple(dims, rnd);
        if (shape == NULL)
            return NULL;
    }
    Py_INCREF(a); /* (held: allocating may run Python code, the pool's) */
    Py_INCREF(k);
    Py_INCREF(dt);
    PyObject *r = take_empty(shape, dims, rnd, SLOT(dt, D_np), nbytes);
    if (r == NULL) {
        (void)decline_error();
        goto fail;
    }
    if (Py_TYPE(r) != ND_T || ND(r)->descr != A->descr || ND(r)->nd != rnd
        || !(ND(r)->flags & ND_C_CONTIGUOUS) || !(ND(r)->flags & ND_WRITEABLE))
        goto fail;
    if (count > 0 && rb > 0) {
        int rc;
        if (nbytes >= elide_bytes) { /* (NumPy releases the GIL for a large take too) */
            Py_BEGIN_ALLOW_THREADS
            rc = gather(ND(r)->data, A->data, K->data, count, (int)isz, kind == 'i',
                        A->dimensions[0], A->strides[0], rb);
            Py_END_ALLOW_THREADS
        }
        else
            rc = gather(ND(r)->data, A->data, K->data, count, (int)isz, kind == 'i',
                        A->dimensions[0], A->strides[0], rb);
        if (rc < 0)
            goto fail; /* (an index out of bounds: NumPy's indexing raises its error) */
    }
    else if (count > 0) {
        /* (rows of no bytes: every index still checked, as NumPy does) */
        for (Py_ssize_t j = 0; j < count; j++) {
            Py_ssize_t i = index_at(K->data + j * isz, (int)isz, kind == 'i');
            if (i < -A->dimensions[0] || i >= A->dimensions[0])
                goto fail;
        }
    }
    Py_DECREF(a);
    Py_DECREF(k);
    return array_new(r, Py_NewRef(Py_None), Py_NewRef(zero), shape, Py_NewRef(Py_None), dt,
                     Py_NewRef(SLOT(x, O_device)));
fail:
    Py_XDECREF(r);
    Py_DECREF(shape);
    Py_DECREF(a);
    Py_DECREF(k);
    Py_DECREF(dt);
    return NULL;
}

/* The selection: dst gets the rows of src (rb bytes, stride bytes apart) whose mask byte
   is not zero (NumPy's truth of a bool), in order. */
#define SELECT(T)                                                                     \
    for (Py_ssize_t j = 0; j < n; j++)                                                \
        if (m[j]) {                                                                   \
            memcpy(dst, src + j * stride, sizeof(T));                                 \
            dst += sizeof(T);                                                         \
        }                                                                             \
    return;

static void
select_rows(char *dst, const char *src, const unsigned char *m, Py_ssize_t n, Py_ssize_t stride,
            Py_ssize_t rb)
{
    switch (rb) {
    case 8:
        SELECT(uint64_t)
    case 4:
        SELECT(uint32_t)
    case 2:
        SELECT(uint16_t)
    case 1:
        SELECT(uint8_t)
    }
    for (Py_ssize_t j = 0; j < n; j++)
        if (m[j]) {
            memcpy(dst, src + j * stride, (size_t)rb);
            dst += rb;
        }
}
#undef SELECT

/* x[mask] selected here for a bool mask (a = x's native, k = mask's, dt = x's DType,
   checked by the caller) of x's leading shape, when x's rows after the mask's axes are
   C-contiguous (and, for a mask of more than one axis, x wholly so): NumPy's
   array_boolean_subscript (count the true elements, allocate, copy them in order); else
   NULL with no error set for NumPy's indexing (which raises its IndexError for a mask of
   another shape), or NULL with an error that must propagate. */
static PyObject *
take_mask(PyObject *x, PyObject *key, PyObject *a, PyObject *k, PyObject *dt)
{
    NDFields *A = ND(a), *K = ND(k);
    PyObject *kdt = SLOT(key, O_dtype);
    if (A->descr != SLOT(dt, D_np) || !(A->flags & ND_ALIGNED) || !(K->flags & ND_C_CONTIGUOUS)
        || !contract_dtype(kdt) || K->descr != SLOT(kdt, D_np) || ((DescrHead *)K->descr)->kind != 'b'
        || K->nd < 1 || K->nd > A->nd || PyLong_AsSsize_t(SLOT(kdt, D_itemsize)) != 1)
        return NULL;
    Py_ssize_t esz = PyLong_AsSsize_t(SLOT(dt, D_itemsize));
    if (esz <= 0)
        return NULL;
    int mnd = K->nd;
    Py_ssize_t rb = esz, n = 1, count = 0, nbytes, stride;
    for (int d = 0; d < mnd; d++)
        if (K->dimensions[d] != A->dimensions[d])
            return NULL; /* (NumPy's IndexError) */
    for (int d = A->nd - 1; d >= mnd; d--) {
        if (A->dimensions[d] != 1 && A->strides[d] != rb)
            return NULL;
        if (__builtin_mul_overflow(rb, A->dimensions[d], &rb))
            return NULL;
    }
    if (mnd == 1)
        stride = A->strides[0];
    else if (A->flags & ND_C_CONTIGUOUS)
        stride = rb;
    else
        return NULL;
    for (int d = 0; d < mnd; d++)
        n *= K->dimensions[d]; /* (no overflow: the mask's own size) */
    const unsigned char *m = (const unsigned char *)K->data;
    for (Py_ssize_t j = 0; j < n; j++)
        count += m[j] != 0;
    if (__builtin_mul_overflow(count, rb, &nbytes))
        return NULL;
    Py_ssize_t dims[MAXDIMS];
    int rnd = 1 + A->nd - mnd;
    dims[0] = count;
    memcpy(dims + 1, A->dimensions + mnd, (A->nd - mnd) * sizeof(Py_ssize_t));
    PyObject *shape = ints_tuple(dims, rnd);
    if (shape == NULL)
        return NULL;
    Py_INCREF(a); /* (held: allocating may run Python code, the pool's) */
    Py_INCREF(k);
    Py_INCREF(dt);
    PyObject *r = take_empty(shape, dims, rnd, SLOT(dt, D_np), nbytes);
    if (r == NULL) {
        (void)decline_error();
        goto fail;
    }
    if (Py_TYPE(r) != ND_T || ND(r)->descr != A->descr || ND(r)->nd != rnd
        || !(ND(r)->flags & ND_C_CONTIGUOUS) || !(ND(r)->flags & ND_WRITEABLE))
        goto fail;
    if (count > 0 && rb > 0) {
        if (nbytes >= elide_bytes) {
            Py_BEGIN_ALLOW_THREADS
            select_rows(ND(r)->data, A->data, m, n, stride, rb);
            Py_END_ALLOW_THREADS
        }
        else
            select_rows(ND(r)->data, A->data, m, n, stride, rb);
    }
    Py_DECREF(a);
    Py_DECREF(k);
    return array_new(r, Py_NewRef(Py_None), Py_NewRef(zero), shape, Py_NewRef(Py_None), dt,
                     Py_NewRef(SLOT(x, O_device)));
fail:
    Py_XDECREF(r);
    Py_DECREF(shape);
    Py_DECREF(a);
    Py_DECREF(k);
    Py_DECREF(dt);
    return NULL;
}

static PyObject *
view_take(PyObject *x, PyObject *key)
{
    if (!loops_ready || !contract_array(key) || SLOT(key, O_ext) != Py_None
        || SLOT(key, O_device) != SLOT(x, O_device) || PyTuple_GET_SIZE(SLOT(key, O_shape)) == 0)
        return NULL;
    PyObject *a = SLOT(x, O_np), *k = SLOT(key, O_np), *dt = SLOT(x, O_dtype), *r;
    if (Py_TYPE(a) != ND_T || Py_TYPE(k) != ND_T || !contract_dtype(dt))
        return NULL;
    r = np_kind(SLOT(key, O_dtype)) == 'b' ? take_mask(x, key, a, k, dt)
                                            : take_rows(x, key, a, k, dt);
    if (r != NULL || PyErr_Occurred())
        return r;
    if (!contract_array(x) || !contract_array(key)) /* (re-read: Python may have run) */
        return NULL;
    a = SLOT(x, O_np), k = SLOT(key, O_np), dt = SLOT(x, O_dtype);
    if (Py_TYPE(a) != ND_T || Py_TYPE(k) != ND_T || !contract_dtype(dt))
        return NULL;
    Py_INCREF(a);
    Py_INCREF(k);
    Py_INCREF(dt);
    r = PyObject_GetItem(a, k);
    Py_DECREF(a);
    Py_DECREF(k);
    if (r == NULL) {
        Py_DECREF(dt);
        return decline_error();
    }
    /* (a result that is a view of its own buffer: the Python path copies it) */
    PyObject *shape = NULL;
    if (Py_TYPE(r) == ND_T && ND(r)->base == NULL && ND(r)->descr == SLOT(dt, D_np))
        shape = ints_tuple(ND(r)->dimensions, ND(r)->nd);
    if (shape == NULL) {
        Py_DECREF(r);
        Py_DECREF(dt);
        return decline_error();
    }
    PyObject *dev = SLOT(x, O_device);
    return array_new(r, Py_NewRef(Py_None), Py_NewRef(zero), shape, Py_NewRef(Py_None), dt,
                     Py_NewRef(dev));
}

/* --- contiguous(): self when row-major contiguous ------------------------------------ */

/* _layout.is_contiguous: size-1 dimensions take any stride, an empty array is contiguous. */
int
c_contiguous(const Py_ssize_t *shape, const Py_ssize_t *str, Py_ssize_t nd, Py_ssize_t unit)
{
    Py_ssize_t expected = unit;
    for (Py_ssize_t i = nd - 1; i >= 0; i--) {
        if (shape[i] == 0)
            return 1;
        if (shape[i] != 1) {
            if (str[i] != expected)
                return 0;
            if (__builtin_mul_overflow(expected, shape[i], &expected))
                return 0;
        }
    }
    return 1;
}

static PyObject *
view_contiguous(PyObject *x)
{
    Py_ssize_t shape[MAXDIMS], str[MAXDIMS], nd, ns;
    PyObject *s = SLOT(x, O_str);
    if (tuple_ints(SLOT(x, O_shape), shape, &nd))
        return NULL;
    if (s == Py_None) {
        /* a lazy kernel result: its native array's byte strides */
        PyObject *p = SLOT(x, O_np);
        if (ND_T == NULL || p == NULL || Py_TYPE(p) != ND_T)
            return NULL;
        PyObject *dt = SLOT(x, O_dtype), *isz;
        if (dt == NULL || Py_TYPE(dt) != DType_T)
            return NULL;
        isz = SLOT(dt, D_itemsize);
        if (isz == NULL || !PyLong_CheckExact(isz))
            return NULL;
        Py_ssize_t unit = PyLong_AsSsize_t(isz);
        if (unit <= 0) {
            (void)contract_clear(PyExc_OverflowError);
            return NULL;
        }
        PyObject *bs = PyObject_GetAttr(p, s_strides);
        if (bs == NULL)
            return decline_error();
        int ok = tuple_ints(bs, str, &ns) == 0 && ns == nd && c_contiguous(shape, str, nd, unit);
        Py_DECREF(bs);
        return ok ? Py_NewRef(x) : NULL;
    }
    if (tuple_ints(s, str, &ns) || ns != nd || !c_contiguous(shape, str, nd, 1))
        return NULL; /* the Python path copies */
    return Py_NewRef(x);
}

/* --- reshape of a contiguous array ---------------------------------------------------- */

/* Row-major strides of shape as _layout.contiguous_strides has them (a size-0 or
   size-1 dimension multiplies by 1). 0, or -1 on overflow. */
static int
contiguous_strides(const Py_ssize_t *shape, Py_ssize_t nd, Py_ssize_t *out)
{
    Py_ssize_t acc = 1;
    for (Py_ssize_t i = nd - 1; i >= 0; i--) {
        out[i] = acc;
        if (shape[i] > 1 && __builtin_mul_overflow(acc, shape[i], &acc))
            return -1;
    }
    return 0;
}

static int
size_of(const Py_ssize_t *shape, Py_ssize_t nd, Py_ssize_t *n)
{
    Py_ssize_t acc = 1;
    for (Py_ssize_t i = 0; i < nd; i++)
        if (shape[i] < 0 || __builtin_mul_overflow(acc, shape[i], &acc))
            return -1;
    *n = acc;
    return 0;
}

/* x viewed with shape (a tuple of exact non-negative ints, borrowed), when x's strides
   are its shape's contiguous strides (the Python hot path's test); the child's native
   view NumPy's reshape of a cached parent's (eager), or left to be built on use. */
static PyObject *
view_reshape_as(PyObject *x, PyObject *shape, int eager)
{
    Py_ssize_t nshape[MAXDIMS], nstr[MAXDIMS], cstr[MAXDIMS], nn, n_new, n_old;
    if (tuple_ints(shape, nshape, &nn) || size_of(nshape, nn, &n_new)
        || contiguous_strides(nshape, nn, nstr))
        return NULL;
    Layout L;
    if (get_layout(x, &L) < 0)
        return NULL;
    if (size_of(L.shape, L.nd, &n_old) || n_old != n_new || contiguous_strides(L.shape, L.nd, cstr))
        return NULL;
    for (Py_ssize_t i = 0; i < L.nd; i++)
        if (L.str[i] != cstr[i])
            return NULL; /* not contiguous (or size-1 dimensions with other strides) */
    PyObject *p = eager ? parent_native(x) : Py_NewRef(Py_None), *nat;
    if (p == Py_None)
        nat = p;
    else {
        PyObject *args[2] = {p, shape};
        nat = PyObject_VectorcallMethod(s_reshape, args, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        Py_DECREF(p);
        if (nat == NULL)
            return decline_error();
    }
    return make_view(x, nat, L.off, nshape, nstr, nn, shape);
}

static PyObject *
view_reshape(PyObject *x, PyObject *shape)
{
    return view_reshape_as(x, shape, 1);
}

/* --- permute_dims / permute ------------------------------------------------------------ */

/* axes: a tuple of exact ints (borrowed), a permutation of range(ndim) (negative axes
   counted from the end, as the general path normalises them, and as there the child's
   native view is left to be built on use; bools are ints, as the Python path's cache
   takes them, and NumPy gets the ints). */
static PyObject *
view_permute(PyObject *x, PyObject *axes)
{
    Py_ssize_t ax[MAXDIMS], na, oshape[MAXDIMS], ostr[MAXDIMS];
    char seen[MAXDIMS] = {0};
    int bools = 0, negative = 0;
    if (tuple_ints_or_bools(axes, ax, &na, &bools))
        return NULL;
    if (bools)  /* a bool is no axis: the Python definition raises TypeError */
        return NULL;
    Layout L;
    if (get_layout(x, &L) < 0 || na != L.nd)
        return NULL;
    for (Py_ssize_t i = 0; i < na; i++) {
        Py_ssize_t a = ax[i];
        if (a < -na || a >= na)
            return NULL;
        if (a < 0) {
            a += na;
            negative = 1;
        }
        if (seen[a])
            return NULL;
        seen[a] = 1;
        ax[i] = a;
        oshape[i] = L.shape[a];
        ostr[i] = L.str[a];
    }
    PyObject *p = negative ? Py_NewRef(Py_None) : parent_native(x), *nat;
    if (p == Py_None)
        nat = p;
    else {
        PyObject *ints = bools ? ints_tuple(ax, na) : Py_NewRef(axes);
        if (ints == NULL) {
            Py_DECREF(p);
            return NULL;
        }
        PyObject *args[2] = {p, ints};
        nat = PyObject_VectorcallMethod(s_transpose, args, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        Py_DECREF(ints);
        Py_DECREF(p);
        if (nat == NULL)
            return decline_error();
    }
    return make_view(x, nat, L.off, oshape, ostr, na, NULL);
}

/* --- expand_dims / unsqueeze with one int axis ---------------------------------------- */

static PyObject *
view_expand(PyObject *x, PyObject *axis)
{
    if (!PyLong_CheckExact(axis))
        return NULL;
    Py_ssize_t a = PyLong_AsSsize_t(axis), oshape[MAXDIMS], ostr[MAXDIMS];
    if (a == -1 && PyErr_Occurred())
        return decline_error();
    Layout L;
    if (get_layout(x, &L) < 0 || L.nd >= MAXDIMS)
        return NULL;
    Py_ssize_t nd = L.nd;
    if (a < -nd - 1 || a > nd)
        return NULL; /* the Python path raises */
    if (a < 0)
        a += nd + 1;
    for (Py_ssize_t i = 0, j = 0; i <= nd; i++) {
        if (i == a) {
            oshape[i] = 1;
            if (a < nd) {
                if (__builtin_mul_overflow(L.str[a], L.shape[a], &ostr[i]))
                    return NULL;
            }
            else
                ostr[i] = 1;
        }
        else {
            oshape[i] = L.shape[j];
            ostr[i] = L.str[j++];
        }
    }
    PyObject *p = parent_native(x), *nat;
    if (p == Py_None)
        nat = p;
    else {
        /* NumPy's own view: p[None] for axis 0, p[(slice(None),) * a + (None, ...)] */
        PyObject *k = Py_None;
        if (a > 0) {
            k = unsq_keys[a];
            if (k == NULL) {
                k = PyTuple_New(a + 2);
                PyObject *all = k == NULL ? NULL : PySlice_New(NULL, NULL, NULL);
                if (all == NULL) {
                    Py_XDECREF(k);
                    Py_DECREF(p);
                    return NULL;
                }
                for (Py_ssize_t i = 0; i < a; i++)
                    PyTuple_SET_ITEM(k, i, Py_NewRef(all));
                Py_DECREF(all);
                PyTuple_SET_ITEM(k, a, Py_NewRef(Py_None));
                PyTuple_SET_ITEM(k, a + 1, Py_NewRef(Py_Ellipsis));
                unsq_keys[a] = k;
            }
        }
        nat = PyObject_GetItem(p, k);
        Py_DECREF(p);
        if (nat == NULL)
            return decline_error();
    }
    return make_view(x, nat, L.off, oshape, ostr, nd + 1, NULL);
}

/* --- squeeze with one int axis --------------------------------------------------------- */

/* squeeze(x, axis) of an unnamed x and an exact int axis naming a dimension of size 1:
   x's layout without it (views.py's hot path), the child's native view left to be built
   on use (native_build), as indexing's; any other axis (a tuple, None, out of range, a
   dimension longer than 1) declines to the Python definition, which raises its errors. */
static PyObject *
view_squeeze(PyObject *x, PyObject *axis)
{
    if (!PyLong_CheckExact(axis))
        return NULL;
    Py_ssize_t a = PyLong_AsSsize_t(axis), oshape[MAXDIMS], ostr[MAXDIMS];
    if (a == -1 && PyErr_Occurred())
        return decline_error();
    Layout L;
    if (get_layout(x, &L) < 0)
        return NULL;
    Py_ssize_t nd = L.nd;
    if (a < -nd || a >= nd)
        return NULL;
    if (a < 0)
        a += nd;
    if (L.shape[a] != 1)
        return NULL;
    for (Py_ssize_t i = 0, j = 0; i < nd; i++)
        if (i != a) {
            oshape[j] = L.shape[i];
            ostr[j++] = L.str[i];
        }
    return make_view(x, Py_NewRef(Py_None), L.off, oshape, ostr, nd - 1, NULL);
}

/* --- flatten / unflatten of an unnamed array ------------------------------------------ */

/* An exact int (not a bool) in [-nd, nd), counted from the end when negative: 0 and *a
   set, or -1 (no error set) to decline. */
static int
dim_of(PyObject *v, Py_ssize_t nd, Py_ssize_t *a)
{
    if (!PyLong_CheckExact(v))
        return -1;
    Py_ssize_t d = PyLong_AsSsize_t(v);
    if (d == -1 && PyErr_Occurred()) {
        (void)contract_clear(PyExc_OverflowError);
        return -1;
    }
    if (d < -nd || d >= nd)
        return -1;
    *a = d < 0 ? d + nd : d;
    return 0;
}

/* x.flatten(start_dim=0, end_dim=-1) of an unnamed x, both exact ints, positional: the
   reshape views.py's flatten makes (shape[:s] + (prod,) + shape[e + 1:]) when it is
   view_reshape's (x contiguous), its native view left to be built on use; a 0-d x, s > e, dims out of range, keywords, or a copy:
   the Python method. */
static PyObject *
view_flatten_plain(PyObject *x, PyObject *const *args, Py_ssize_t n, Py_ssize_t *se)
{
    Layout L;
    Py_ssize_t s = 0, e, ns[MAXDIMS], k = 0, prod = 1;
    if (n > 3 || get_layout(x, &L) < 0 || L.nd == 0)
        return NULL;
    e = L.nd - 1;
    if ((n >= 2 && dim_of(args[1], L.nd, &s) < 0) || (n == 3 && dim_of(args[2], L.nd, &e) < 0) || s > e)
        return NULL;
    for (Py_ssize_t i = 0; i < L.nd; i++) {
        if (i < s || i > e)
            ns[k++] = L.shape[i];
        else if (__builtin_mul_overflow(prod, L.shape[i], &prod))
            return NULL;
        if (i == e)
            ns[k++] = prod;
    }
    PyObject *t = ints_tuple(ns, k);
    if (t == NULL)
        return decline_error();
    PyObject *r = view_reshape_as(x, t, 0); /* (the native built when a kernel needs it) */
    Py_DECREF(t);
    if (se != NULL) {
        se[0] = s;
        se[1] = e;
    }
    return r;
}

/* The last outcome of view_flatten_named_ints: (names, s, e) -> the result's names (None:
   unnamed). The outcome is a function of the names tuple's value (immutable, held here, so
   its identity is not reused) and (s, e): a loop over one array builds it once (building
   the names tuple each call was ~250 of named flatten(1, 2)'s ~560 instructions over the
   unnamed call's). */
static PyObject *flat_last_names, *flat_last_out;
static Py_ssize_t flat_last_se[2];

/* x.flatten(start_dim=0, end_dim=-1) of a named x (names: its names), the dims exact ints:
   view_flatten_plain's view named as strided.named's rule names it (_rules.py, _flatten):
   names[:s] + (names[s] if s == e else None,) + names[e + 1:], all None: unnamed; NULL (no
   error) for the Python method, which raises its own errors. */
static PyObject *
view_flatten_named_ints(PyObject *x, PyObject *names, PyObject *const *args, Py_ssize_t n)
{
    Py_ssize_t se[2], nd = PyTuple_GET_SIZE(names);
    if (nd != PyTuple_GET_SIZE(SLOT(x, O_shape)) || (names != flat_last_names && !plain_names(names)))
        return NULL;
    PyObject *r = view_flatten_plain(x, args, n, se), *out;
    if (r == NULL)
        return NULL;
    Py_ssize_t s = se[0], e = se[1], k = 0;
    if (names == flat_last_names && s == flat_last_se[0] && e == flat_last_se[1])
        out = Py_NewRef(flat_last_out); /* (held: allocating the Ext may run a finalizer) */
    else {
        if ((out = PyTuple_New(nd - (e - s))) == NULL) {
            Py_DECREF(r);
            return NULL; /* (out of memory: propagates) */
        }
        int any = 0;
        for (Py_ssize_t i = 0; i < nd; i++) {
            if (i > s && i <= e)
                continue;
            PyObject *v = i == s && s != e ? Py_None : PyTuple_GET_ITEM(names, i);
            any |= v != Py_None;
            PyTuple_SET_ITEM(out, k++, Py_NewRef(v));
        }
        if (!any)
            Py_SETREF(out, Py_NewRef(Py_None));
        Py_XSETREF(flat_last_names, Py_NewRef(names));
        Py_XSETREF(flat_last_out, Py_NewRef(out));
        flat_last_se[0] = s, flat_last_se[1] = e;
    }
    r = name_result_fast(r, out);
    Py_DECREF(out);
    return r;
}

/* x.unflatten(dim, sizes) of an unnamed x: dim an exact int, sizes a tuple of exact
   non-negative ints whose product is that dimension's length (-1, lists, names: the
   Python method); the reshape views.py's unflatten makes, when it is view_reshape's. */
static PyObject *
view_unflatten_plain(PyObject *x, PyObject *dim, PyObject *sizes)
{
    Layout L;
    Py_ssize_t d, sz[MAXDIMS], m, ns[MAXDIMS], k = 0, prod = 1;
    if (get_layout(x, &L) < 0 || dim_of(dim, L.nd, &d) < 0 || tuple_ints(sizes, sz, &m) < 0
        || m == 0 || L.nd - 1 + m > MAXDIMS)
        return NULL;
    for (Py_ssize_t i = 0; i < m; i++)
        if (sz[i] < 0 || __builtin_mul_overflow(prod, sz[i], &prod))
            return NULL;
    if (prod != L.shape[d])
        return NULL; /* (the Python method raises its error) */
    for (Py_ssize_t i = 0; i < L.nd; i++)
        if (i == d)
            for (Py_ssize_t j = 0; j < m; j++)
                ns[k++] = sz[j];
        else
            ns[k++] = L.shape[i];
    PyObject *t = ints_tuple(ns, k);
    if (t == NULL)
        return decline_error();
    PyObject *r = view_reshape_as(x, t, 0); /* (the native built when a kernel needs it) */
    Py_DECREF(t);
    return r;
}

/* --- .T and .mT ------------------------------------------------------------------------ */

/* x.T (t: a 2-D x; the child's native view NumPy's .T of a cached parent's) or x.mT
   (at least 2-D; the native view built when a kernel needs it, as in Python). */
static PyObject *
view_swap_last(PyObject *x, int t)
{
    Layout L;
    PyObject *shape = SLOT(x, O_shape);
    if (shape == NULL || !PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) < 2
        || (t && PyTuple_GET_SIZE(shape) != 2))
        return NULL; /* the Python property raises */
    if (get_layout(x, &L) < 0 || L.nd != PyTuple_GET_SIZE(shape))
        return NULL;
    Py_ssize_t v, nd = L.nd;
    v = L.shape[nd - 1], L.shape[nd - 1] = L.shape[nd - 2], L.shape[nd - 2] = v;
    v = L.str[nd - 1], L.str[nd - 1] = L.str[nd - 2], L.str[nd - 2] = v;
    /* no native view (native_build makes it when a kernel needs it), as for indexing */
    return make_view(x, Py_NewRef(Py_None), L.off, L.shape, L.str, nd, NULL);
}

/* --- rename / refine_names: a view with x's own layout ------------------------------------ */

static PyObject *
view_alias(PyObject *x)
{
    Layout L;
    if (get_layout(x, &L) < 0)
        return NULL;
    return make_view(x, parent_native(x), L.off, L.shape, L.str, L.nd, SLOT(x, O_shape));
}

/* --- align_to: permuted, size-1 dims inserted ----------------------------------------------- */

/* The arguments of rename, refine_names and align_to that a cached outcome may answer
   for: each an exact str, None or Ellipsis (what strided.named's _remember caches; an
   np.str_, a str subclass, a user object with its own __eq__ take the Python path, which
   raises or answers by its own rules, whatever was cached before). */
static int
name_args(PyObject *const *items, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (items[i] != Py_None && items[i] != Py_Ellipsis && !PyUnicode_CheckExact(items[i]))
            return 0;
    return 1;
}

/* x.align_to(*items) of a named array seen before: its outcome (_core.VIEW_NAMES[("align_to",
   names, items)] = (target names, perm, new dims)) is x permuted by perm, with size-1
   dims inserted at the sorted positions new dims as _layout.unsqueeze inserts them, named
   target (_core.relayout); NULL (no error) to decline. */
static PyObject *
view_aligned(Fast *f, PyObject *x, PyObject *names, PyObject *const *items, Py_ssize_t n)
{
    if (!name_args(items, n))
        return NULL;
    PyObject *sig = PyTuple_New(n), *out;
    if (sig == NULL)
        return NULL; /* (out of memory: propagates) */
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(sig, i, Py_NewRef(items[i]));
    out = view_outcome(f->table, names, sig, f->last); /* (held: materializing x runs Python code) */
    Py_DECREF(sig);
    Py_ssize_t perm[MAXDIMS], add[MAXDIMS], np, na, shape[MAXDIMS], str[MAXDIMS];
    Layout L;
    if (out == NULL)
        return NULL;
    if (!PyTuple_CheckExact(out) || PyTuple_GET_SIZE(out) != 3
        || tuple_ints(PyTuple_GET_ITEM(out, 1), perm, &np) || tuple_ints(PyTuple_GET_ITEM(out, 2), add, &na)
        || get_layout(x, &L) < 0 || np != L.nd || np + na > MAXDIMS)
        goto decline;
    for (Py_ssize_t i = 0; i < np; i++) {
        if (perm[i] < 0 || perm[i] >= np)
            goto decline;
        shape[i] = L.shape[perm[i]];
        str[i] = L.str[perm[i]];
    }
    Py_ssize_t nd = np;
    for (Py_ssize_t k = 0; k < na; k++, nd++) {
        Py_ssize_t a = add[k], st = 1;
        if (a < 0 || a > nd || (a < nd && __builtin_mul_overflow(str[a], shape[a], &st)))
            goto decline;
        memmove(shape + a + 1, shape + a, (nd - a) * sizeof(Py_ssize_t));
        memmove(str + a + 1, str + a, (nd - a) * sizeof(Py_ssize_t));
        shape[a] = 1;
        str[a] = st;
    }
    PyObject *r = make_view(x, Py_NewRef(Py_None), L.off, shape, str, nd, NULL);
    if (r != NULL)
        r = name_result_fast(r, PyTuple_GET_ITEM(out, 0));
    Py_DECREF(out);
    return r;
decline:
    Py_DECREF(out);
    return NULL;
}

/* --- flatten / unflatten by names: their cached outcome ------------------------------------ */

/* strided.named's flatten(x, dims, out_name) and x.unflatten(dim, sizes) keep the checked
   outcome of a call in named/_ops.py's _SHAPES (f->table), keyed (op, x's names, ndim, dims
   (a list as a tuple) or dim, out_name or sizes), only for keys of exact strs and ints
   (_plain_dims, _plain_sizes: hashing and comparing them runs no user code, and True is not
   1); the same rules here. An answer needs that outcome: every first sight, every other
   argument, a tracked or non-contiguous array, takes the Python path. */
static int
plain_dim(PyObject *v)
{
    return PyUnicode_CheckExact(v) || PyLong_CheckExact(v);
}

/* _plain_dims: an exact str or int, or a tuple (here also a list: the key holds it as a
   tuple) of them. */
static int
plain_dims(PyObject *v)
{
    if (plain_dim(v))
        return 1;
    if (!PyTuple_CheckExact(v) && !PyList_CheckExact(v))
        return 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(v); i++)
        if (!plain_dim(PySequence_Fast_GET_ITEM(v, i)))
            return 0;
    return 1;
}

/* _plain_sizes: an exact str or int, or a tuple of exact ints and (str, int) tuples. */
static int
plain_sizes(PyObject *v)
{
    if (plain_dim(v))
        return 1;
    if (!PyTuple_CheckExact(v))
        return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(v); i++) {
        PyObject *a = PyTuple_GET_ITEM(v, i);
        if (PyLong_CheckExact(a))
            continue;
        if (!PyTuple_CheckExact(a) || PyTuple_GET_SIZE(a) != 2 || !PyUnicode_CheckExact(PyTuple_GET_ITEM(a, 0))
            || !PyLong_CheckExact(PyTuple_GET_ITEM(a, 1)))
            return 0;
    }
    return 1;
}

/* Whether dims (a list or a tuple, plain_dims) holds the items of the tuple t, by plain_equal. */
static int
same_dims(PyObject *dims, PyObject *t)
{
    if (!PyTuple_CheckExact(dims) && !PyList_CheckExact(dims))
        return plain_equal(dims, t);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(dims);
    if (!PyTuple_CheckExact(t) || PyTuple_GET_SIZE(t) != n)
        return 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (!plain_equal(PySequence_Fast_GET_ITEM(dims, i), PyTuple_GET_ITEM(t, i)))
            return 0;
    return 1;
}

/* The cached outcome of (op, names, dims, arg) (a new reference), or NULL (no error: none,
   or an argument the cache does not take; an error: out of memory). f->last keeps the call
   site's last one: names, (dims as a tuple, arg), outcome. */
static PyObject *
shape_outcome(Fast *f, const char *opname, PyObject *names, PyObject *dims, PyObject *arg)
{
    PyObject *l = f->last[1];
    /* (the last call's objects again: names, arg and each of dims identical to the ones
       kept, which were plain when kept, immutable and held: the same outcome, found
       without the checks below; a list of dims is new on each call, its items are not) */
    if (names == f->last[0] && l != NULL && PyTuple_CheckExact(l) && PyTuple_GET_SIZE(l) == 2
        && arg == PyTuple_GET_ITEM(l, 1)) {
        PyObject *t = PyTuple_GET_ITEM(l, 0);
        if (dims == t)
            return Py_NewRef(f->last[2]);
        Py_ssize_t m = PyList_CheckExact(dims) ? PyList_GET_SIZE(dims) : -1, i = 0;
        if (m >= 0 && PyTuple_CheckExact(t) && PyTuple_GET_SIZE(t) == m) {
            while (i < m && PyList_GET_ITEM(dims, i) == PyTuple_GET_ITEM(t, i))
                i++;
            if (i == m)
                return Py_NewRef(f->last[2]);
        }
    }
    if (!PyDict_CheckExact(f->table) || !plain_dims(dims) || !plain_sizes(arg) || !plain_names(names))
        return NULL;
    if (names == f->last[0] && l != NULL && PyTuple_CheckExact(l) && PyTuple_GET_SIZE(l) == 2
        && same_dims(dims, PyTuple_GET_ITEM(l, 0)) && plain_equal(arg, PyTuple_GET_ITEM(l, 1)))
        return Py_NewRef(f->last[2]);
    PyObject *d = PyList_CheckExact(dims) ? PyList_AsTuple(dims) : Py_NewRef(dims);
    PyObject *op = PyUnicode_InternFromString(opname);
    PyObject *nd = PyLong_FromSsize_t(PyTuple_GET_SIZE(names)); /* (names: one per dimension) */
    PyObject *key = d && op && nd ? PyTuple_Pack(5, op, names, nd, d, arg) : NULL;
    PyObject *sig = d ? PyTuple_Pack(2, d, arg) : NULL, *out = NULL;
    if (key != NULL && sig != NULL) {
        out = Py_XNewRef(PyDict_GetItemWithError(f->table, key));
        if (out != NULL) {
            Py_XSETREF(f->last[0], Py_NewRef(names));
            Py_XSETREF(f->last[1], Py_NewRef(sig));
            Py_XSETREF(f->last[2], Py_NewRef(out));
        }
    }
    Py_XDECREF(d);
    Py_XDECREF(op);
    Py_XDECREF(nd);
    Py_XDECREF(key);
    Py_XDECREF(sig);
    return out;
}

/* The last result of a named flatten / unflatten by names (one per op): (x's shape tuple,
   the cached outcome) -> (the result's shape tuple, its names: None when all None). Each is
   a function of its key's values (tuples: immutable, and held here, so their identities are
   not reused): a loop over one array finds the result's shape without building it. */
typedef struct {
    PyObject *shape, *out, *nshape, *names;
} ShapeLast;
static ShapeLast flatten_last, unflatten_last;

/* x viewed with c's kept shape, named with its kept names, when x's shape and the outcome
   are c's (*hit set to 1; the view, or NULL: declined or an error), else *hit 0. */
static PyObject *
reshaped_kept(ShapeLast *c, PyObject *x, PyObject *out, int *hit)
{
    *hit = SLOT(x, O_shape) == c->shape && out == c->out && c->shape != NULL;
    if (!*hit)
        return NULL;
    /* (held: allocating the view or its Ext may run a finalizer that replaces c's) */
    PyObject *t = Py_NewRef(c->nshape), *nm = Py_NewRef(c->names);
    PyObject *r = view_reshape_as(x, t, 0);
    r = r == NULL ? NULL : name_result_fast(r, nm);
    Py_DECREF(t);
    Py_DECREF(nm);
    return r;
}

/* x (a named array, names its names) viewed with the shape shape[0..nd) and named
   out_names (None: unnamed), when x is contiguous (view_reshape); NULL (no error) to decline.
   A view made is kept in c, keyed by x's shape and the outcome out it came from. */
static PyObject *
reshaped_named(PyObject *x, const Py_ssize_t *shape, Py_ssize_t nd, PyObject *out_names, ShapeLast *c,
               PyObject *out)
{
    if (out_names != Py_None) {
        if (!PyTuple_CheckExact(out_names) || PyTuple_GET_SIZE(out_names) != nd)
            return NULL;
        int any = 0; /* (all None: unnamed, as named.tag makes it) */
        for (Py_ssize_t i = 0; i < nd; i++)
            any |= PyTuple_GET_ITEM(out_names, i) != Py_None;
        if (!any)
            out_names = Py_None;
    }
    PyObject *t = ints_tuple(shape, nd);
    if (t == NULL)
        return NULL; /* (out of memory: propagates) */
    /* (a new view, or NULL: not contiguous; its native view built on use, as the plain
       x.flatten(1, 2)'s: NumPy's reshape of the parent was most of the call) */
    Py_INCREF(out_names); /* (held: the view's allocation may run a finalizer) */
    PyObject *xshape = Py_NewRef(SLOT(x, O_shape)); /* (x's, as the caller read it) */
    PyObject *r = view_reshape_as(x, t, 0);
    if (r != NULL) {
        Py_XSETREF(c->shape, xshape);
        xshape = NULL;
        Py_XSETREF(c->out, Py_NewRef(out));
        Py_XSETREF(c->nshape, Py_NewRef(t));
        Py_XSETREF(c->names, Py_NewRef(out_names));
        r = name_result(r, out_names);
    }
    Py_XDECREF(xshape);
    Py_DECREF(t);
    Py_DECREF(out_names);
    return r;
}

/* x.unflatten(dim, sizes) / named.unflatten(x, dim, sizes) of a named array seen before:
   the outcome (d, sizes as ints (one may be -1), result names or None). */
static PyObject *
view_unflatten(Fast *f, PyObject *x, PyObject *names, PyObject *dim, PyObject *sizes)
{
    PyObject *out = shape_outcome(f, "unflatten", names, dim, sizes), *r = NULL;
    Py_ssize_t shape[MAXDIMS], nd, ins[MAXDIMS], ni, d;
    int hit;
    if (out == NULL)
        return NULL;
    if ((r = reshaped_kept(&unflatten_last, x, out, &hit)) != NULL || hit)
        goto done;
    if (!PyTuple_CheckExact(out) || PyTuple_GET_SIZE(out) != 3 || !PyLong_CheckExact(PyTuple_GET_ITEM(out, 0))
        || tuple_ints(SLOT(x, O_shape), shape, &nd) || tuple_ints(PyTuple_GET_ITEM(out, 1), ins, &ni)
        || nd != PyTuple_GET_SIZE(names) || nd + ni - 1 > MAXDIMS || ni < 1)
        goto done;
    d = PyLong_AsSsize_t(PyTuple_GET_ITEM(out, 0));
    if (d < 0 || d >= nd)
        goto done; /* (an error: none for an exact int in range; OverflowError cleared below) */
    /* the sizes as _layout.infer_shape takes them: one -1 at most, inferred */
    Py_ssize_t known = 1, infer = -1, n_new = nd + ni - 1, new_shape[MAXDIMS];
    for (Py_ssize_t i = 0; i < ni; i++) {
        if (ins[i] == -1 && infer < 0)
            infer = i;
        else if (ins[i] < 0 || __builtin_mul_overflow(known, ins[i], &known))
            goto done;
    }
    if (infer >= 0) {
        if (known == 0 || shape[d] % known != 0)
            goto done;
        ins[infer] = shape[d] / known;
    }
    else if (known != shape[d])
        goto done;
    memcpy(new_shape, shape, d * sizeof(Py_ssize_t));
    memcpy(new_shape + d, ins, ni * sizeof(Py_ssize_t));
    memcpy(new_shape + d + ni, shape + d + 1, (nd - d - 1) * sizeof(Py_ssize_t));
    r = reshaped_named(x, new_shape, n_new, PyTuple_GET_ITEM(out, 2), &unflatten_last, out);
done:
    Py_DECREF(out);
    if (r == NULL && PyErr_Occurred())
        (void)contract_clear(PyExc_OverflowError);
    return r;
}

/* named.flatten(x, dims, out_name) / x.flatten(dims, out_name) of a named array seen
   before: the outcome (start, end, result names). */
static PyObject *
view_flatten_named(Fast *f, PyObject *x, PyObject *names, PyObject *dims, PyObject *out_name)
{
    if (!PyTuple_CheckExact(dims) && !PyList_CheckExact(dims))
        return NULL; /* (x.flatten(1, 2): the plain form) */
    PyObject *out = shape_outcome(f, "flatten", names, dims, out_name), *r = NULL;
    Py_ssize_t shape[MAXDIMS], nd, se[2];
    int hit;
    if (out == NULL)
        return NULL;
    if ((r = reshaped_kept(&flatten_last, x, out, &hit)) != NULL || hit)
        goto done;
    if (!PyTuple_CheckExact(out) || PyTuple_GET_SIZE(out) != 3 || tuple_ints(SLOT(x, O_shape), shape, &nd)
        || nd != PyTuple_GET_SIZE(names))
        goto done;
    for (int i = 0; i < 2; i++) {
        PyObject *v = PyTuple_GET_ITEM(out, i);
        if (!PyLong_CheckExact(v))
            goto done;
        se[i] = PyLong_AsSsize_t(v); /* (-1 with an OverflowError: refused below, cleared) */
    }
    if (se[0] < 0 || se[0] > se[1] || se[1] >= nd)
        goto done;
    Py_ssize_t m = 1;
    for (Py_ssize_t i = se[0]; i <= se[1]; i++)
        if (__builtin_mul_overflow(m, shape[i], &m))
            goto done;
    shape[se[0]] = m;
    memmove(shape + se[0] + 1, shape + se[1] + 1, (nd - se[1] - 1) * sizeof(Py_ssize_t));
    r = reshaped_named(x, shape, nd - (se[1] - se[0]), PyTuple_GET_ITEM(out, 2), &flatten_last, out);
done:
    Py_DECREF(out);
    if (r == NULL && PyErr_Occurred())
        (void)contract_clear(PyExc_OverflowError);
    return r;
}

/* --- the objects ------------------------------------------------------------------------- */

/* The trailing positional ints of a method call (``x.reshape(2, 5)``) as a tuple (new
   reference); NULL (no error set) unless they are all exact ints or bools (the view
   then checks the tuple's items as it checks a tuple argument's). */
static PyObject *
args_tuple(PyObject *const *args, Py_ssize_t n)
{
    if (n > MAXDIMS)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyLong_CheckExact(args[i]) && !PyBool_Check(args[i]))
            return NULL;
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return decline_error();
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(t, i, Py_NewRef(args[i]));
    return t;
}

/* A method's argument: one tuple (``x.permute((2, 0, 1))``) or the ints themselves. */
static PyObject *
view_with_dims(PyObject *x, PyObject *const *args, Py_ssize_t n,
               PyObject *(*view)(PyObject *, PyObject *))
{
    if (n == 1 && PyTuple_CheckExact(args[0]))
        return view(x, args[0]);
    PyObject *t = args_tuple(args, n);
    if (t == NULL)
        return NULL;
    PyObject *r = view(x, t);
    Py_DECREF(t);
    return r;
}

static inline int
kw_is(PyObject *kwnames, Py_ssize_t i, const char *name)
{
    PyObject *k = PyTuple_GET_ITEM(kwnames, i);
    return PyUnicode_Check(k) && PyUnicode_CompareWithASCIIString(k, name) == 0;
}

/* x[key]'s key in the named views' cache (_handler._index_signature): 1 << (entries),
   plus bit i for an int entry i; key is a slice, an int or a tuple of them (as
   view_getitem takes it). New reference, or NULL (no error: declined; an error: out of
   memory). */
static PyObject *
index_signature(PyObject *key)
{
    int single = !PyTuple_CheckExact(key);
    Py_ssize_t nk = single ? 1 : PyTuple_GET_SIZE(key);
    if (nk > 60)
        return NULL;
    unsigned long long sig = 1ULL << nk;
    for (Py_ssize_t i = 0; i < nk; i++)
        if (PyLong_CheckExact(single ? key : PyTuple_GET_ITEM(key, i)))
            sig |= 1ULL << i;
    if (sig <= MAXDIMS && ndim_objs[sig] != NULL) /* (up to five entries: a small int, held) */
        return Py_NewRef(ndim_objs[sig]);
    return PyLong_FromUnsignedLongLong(sig); /* (NULL: out of memory, propagates) */
}

/* Whether n (an item of a names tuple) is the str a (an exact str), as ``n == a`` finds: by
   identity (names are mostly interned strs), then two exact strs whose hashes are known
   and differ are different, else by value (no Python code runs). */
static inline int
str_equal(PyObject *n, PyObject *a)
{
    if (n == a)
        return 1;
    if (!PyUnicode_Check(n))
        return 0;
    if (PyUnicode_CheckExact(n)) {
        Py_hash_t hn = ((PyASCIIObject *)n)->hash, ha = ((PyASCIIObject *)a)->hash;
        if (hn != -1 && ha != -1 && hn != ha)
            return 0;
    }
    return PyUnicode_Compare(n, a) == 0;
}

/* permute's axes (items[0..n), or the one tuple items[0]) of a named array with each
   name given as its position in names (as _core.name_to_axis finds it): a new tuple of
   ints, or NULL (no error) when one is not a name of the array, nor an int (an error:
   out of memory). */
static PyObject *
axes_by_name(PyObject *names, PyObject *const *items, Py_ssize_t n)
{
    if (n == 1 && PyTuple_CheckExact(items[0])) {
        n = PyTuple_GET_SIZE(items[0]);
        items = &PyTuple_GET_ITEM(items[0], 0);
    }
    if (n > MAXDIMS)
        return NULL;
    Py_ssize_t ax[MAXDIMS], nn = PyTuple_GET_SIZE(names);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = items[i];
        if (PyLong_CheckExact(a)) {
            ax[i] = PyLong_AsSsize_t(a);
            if (ax[i] == -1 && PyErr_Occurred()) {
                (void)contract_clear(PyExc_OverflowError);
                return NULL;
            }
            continue;
        }
        if (!PyUnicode_CheckExact(a))
            return NULL;
        Py_ssize_t j = 0;
        while (j < nn && !str_equal(PyTuple_GET_ITEM(names, j), a))
            j++;
        if (j == nn)
            return NULL; /* the Python path reports the unknown name */
        ax[i] = j;
    }
    return ints_tuple(ax, n); /* (NULL: out of memory, propagates) */
}

/* axes_by_name with the last call's answer kept (names, the items as a tuple, the axes):
   a call with the same names tuple and the same item objects (compared by identity: the
   same objects, the same values) gets the same axes tuple back, which named_view's last
   outcome then finds by identity too. */
static PyObject *by_name_last[3];

static PyObject *
axes_by_name_kept(PyObject *names, PyObject *const *items, Py_ssize_t n)
{
    if (n == 1 && PyTuple_CheckExact(items[0])) {
        n = PyTuple_GET_SIZE(items[0]);
        items = &PyTuple_GET_ITEM(items[0], 0);
    }
    PyObject *last = by_name_last[1];
    if (names == by_name_last[0] && last != NULL && PyTuple_GET_SIZE(last) == n) {
        Py_ssize_t i = 0;
        while (i < n && PyTuple_GET_ITEM(last, i) == items[i])
            i++;
        if (i == n)
            return Py_NewRef(by_name_last[2]);
    }
    PyObject *ax = axes_by_name(names, items, n);
    if (ax == NULL)
        return NULL;
    PyObject *t = PyTuple_New(n);
    if (t == NULL) {
        Py_DECREF(ax);
        return NULL; /* (out of memory: propagates) */
    }
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(t, i, Py_NewRef(items[i]));
    Py_XSETREF(by_name_last[0], Py_NewRef(names));
    Py_XSETREF(by_name_last[1], t);
    Py_XSETREF(by_name_last[2], Py_NewRef(ax));
    return ax;
}

/* Whether two names tuples hold equal names, as ``a == b`` finds for tuples of exact strs
   and None: item by item by identity, a None against a str differs, then str_equal (hashes
   first); -1 (no error) when an item is neither an exact str nor None (the caller declines). */
static int
same_plain_names(PyObject *a, PyObject *b)
{
    if (a == b)
        return 1;
    if (!PyTuple_CheckExact(a) || !PyTuple_CheckExact(b))
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(a);
    if (n != PyTuple_GET_SIZE(b))
        return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *u = PyTuple_GET_ITEM(a, i), *v = PyTuple_GET_ITEM(b, i);
        if (u == v)
            continue;
        if ((u != Py_None && !PyUnicode_CheckExact(u)) || (v != Py_None && !PyUnicode_CheckExact(v)))
            return -1;
        if (u == Py_None || v == Py_None || !str_equal(u, v))
            return 0;
    }
    return 1;
}

/* The view of a named array x (names: its names) that view_vectorcall computed, r
   (stolen), named by the handler's cached outcome for the same call (_handler._VIEW_KEYS
   says which arguments the key holds); NULL (no error) when there is none. */
static PyObject *
name_view(Fast *f, PyObject *r, PyObject *x, PyObject *names, PyObject *const *args,
          Py_ssize_t n, Py_ssize_t nkw)
{
    PyObject *op = NULL, *sig = NULL;
    if (r == x) /* contiguous(): the array itself, its names and all */
        return r;
    switch (f->kind) {
    case V_GETITEM:
        op = s_getitem, sig = index_signature(args[1]);
        break;
    case V_RESHAPE:
    case V_RESHAPE_M: /* (reshaping drops the names, whatever the shape) */
        op = s_reshape, sig = PyTuple_New(0);
        break;
    case V_PERMUTE:
    case V_PERMUTE_M:
        op = s_permute_dims, sig = n == 2 && PyTuple_CheckExact(args[1]) ? Py_NewRef(args[1])
                                                                         : args_tuple(args + 1, n - 1);
        break;
    case V_EXPAND: /* (the one int axis: given, as a keyword too, or the default) */
        op = s_expand_dims, sig = Py_NewRef(n + nkw == 2 ? args[1] : zero);
        break;
    case V_RENAME: { /* (the names given; the same names: the array itself, as in Python) */
        PyObject *l = f->last[1], *out;
        /* the last call's names and the same name objects (kept by view_outcome: checked
           then, immutable and held): its outcome, without building the call's key */
        int hit = names == f->last[0] && l != NULL && PyTuple_CheckExact(l) && PyTuple_GET_SIZE(l) == n - 1;
        for (Py_ssize_t i = 0; hit && i < n - 1; i++)
            hit = PyTuple_GET_ITEM(l, i) == args[1 + i];
        if (hit)
            out = Py_NewRef(f->last[2]);
        else {
            if (!name_args(args + 1, n - 1)) {
                Py_DECREF(r);
                return NULL;
            }
            sig = PyTuple_New(n - 1);
            for (Py_ssize_t i = 1; sig != NULL && i < n; i++)
                PyTuple_SET_ITEM(sig, i - 1, Py_NewRef(args[i]));
            out = view_outcome(f->table, names, sig, f->last);
            Py_XDECREF(sig);
            if (out == NULL) {
                Py_DECREF(r);
                return NULL;
            }
        }
        /* (the outcome and names both plain: view_outcome found them by plain keys; no
           Python code runs) */
        int same = out != Py_None && same_plain_names(out, names);
        if (same < 0) {
            Py_DECREF(out);
            Py_DECREF(r);
            return NULL;
        }
        if (same) {
            Py_DECREF(out);
            Py_DECREF(r);
            return Py_NewRef(x);
        }
        r = name_result_fast(r, out);
        Py_DECREF(out);
        return r;
    }
    }
    if (op == NULL) {
        Py_XDECREF(sig);
        Py_DECREF(r);
        return NULL;
    }
    r = named_view_fast(r, op, names, sig, f->last);
    Py_XDECREF(sig);
    return r;
}

static PyObject *view_call(Fast *f, PyObject *x, PyObject *names, PyObject *const *args,
                           Py_ssize_t n, PyObject *kwnames, Py_ssize_t nkw);

static PyObject *
view_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Fast *f = (Fast *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (f->kind == V_NAMESPACE) {
        /* x.__array_namespace__() or (api_version=None), of any array: the module
           sys.modules holds as "strided", as the method answers (array-api-compat asks on
           every call, a dozen times a call of SciPy's or scikit-learn's code); anything
           else (a version to check, an error to raise): the method itself */
        static PyObject *s_strided = NULL;
        if (s_strided == NULL && (s_strided = PyUnicode_InternFromString("strided")) == NULL)
            return NULL;
        if (n == 1 && (nkw == 0 || (nkw == 1 && args[1] == Py_None && kw_is(kwnames, 0, "api_version")))) {
            PyObject *m = PyImport_GetModule(s_strided);
            if (m != NULL || PyErr_Occurred())
                return m;
        }
        return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
    }
    if (f->kind == V_ITER) {
        /* iter(x) of an array of ours with axes: map(x.__getitem__, range(len)), the
           method's own answer, without its frame (NumPy's iterable(), which SciPy's
           xp_promote asks of every operand); a 0-d array, anything else: the method */
        PyObject *shape = n == 1 && nkw == 0 && views_ready && contract_array(args[0])
                          ? SLOT(args[0], O_shape) : NULL;
        if (shape != NULL && PyTuple_CheckExact(shape) && PyTuple_GET_SIZE(shape) > 0) {
            PyObject *len = PyTuple_GET_ITEM(shape, 0), *get, *rng, *r = NULL;
            if ((get = PyObject_GetAttrString(args[0], "__getitem__")) == NULL)
                return NULL;
            if ((rng = PyObject_CallOneArg((PyObject *)&PyRange_Type, len)) != NULL)
                r = PyObject_CallFunctionObjArgs((PyObject *)&PyMap_Type, get, rng, NULL);
            Py_DECREF(get);
            Py_XDECREF(rng);
            return r;
        }
        return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
    }
    PyObject *names = NULL; /* a named x: its names (the result takes cached names) */
    int ok = views_ready && n >= 1 && contract_array(args[0]); /* (checked once: ~30 instructions) */
    if (f->inplace && ok && nkw == 0 && SLOT(args[0], O_ext) == Py_None) {
        /* the methods x.flatten(1, 2), x.unflatten(1, (2, 3)) of an unnamed array */
        PyObject *r = f->kind == V_FLATTEN ? view_flatten_plain(args[0], args, n, NULL)
                      : n == 3 ? view_unflatten_plain(args[0], args[1], args[2]) : NULL;
        if (r != NULL || PyErr_Occurred())
            return r;
        ok = contract_array(args[0]); /* (again: materializing x may have run Python code) */
    }
    if ((f->kind == V_FLATTEN || f->kind == V_UNFLATTEN)
        && (n < 1 || Py_TYPE(args[0]) != Array_T || SLOT(args[0], O_ext) == Py_None))
        /* (an unnamed array: the Python method, called as it would be without this object;
           its namespace function enters the quiet error state itself) */
        return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
    if (ok && (SLOT(args[0], O_ext) == Py_None || (names = untracked_names(args[0])) != NULL)) {
        PyObject *x = args[0];
        Py_XINCREF(names); /* (held: materializing x runs Python code) */
        PyObject *r = view_call(f, x, names, args, n, kwnames, nkw);
        Py_XDECREF(names);
        if (r != NULL || PyErr_Occurred())
            return r;
    }
    return call_quiet(f->fallback, args, nargsf, kwnames);
}

/* view_vectorcall's fast cases: the view, or NULL (an error set only for one that must
   propagate) for the Python definition. */
static PyObject *
view_call(Fast *f, PyObject *x, PyObject *names, PyObject *const *args, Py_ssize_t n,
          PyObject *kwnames, Py_ssize_t nkw)
{
    PyObject *r = NULL;
    switch (f->kind) {
    case V_GETITEM:
        if (n == 2 && nkw == 0)
            r = Py_TYPE(args[1]) != Array_T ? view_getitem(x, args[1], names == NULL)
                : names == NULL ? view_take(x, args[1]) : NULL;
        break;
    case V_CONTIGUOUS:
        if (n == 1 && nkw == 0)
            r = view_contiguous(x);
        break;
    case V_SETITEM: /* x[key] = value (a plain x: a named one takes the Python path's hook) */
        if (names == NULL && n == 3 && nkw == 0) {
            int done = args[1] == Py_Ellipsis ? copy_same(x, args[2]) /* (x[...] = y) */
                                              : view_setitem(f->table, x, args[1], args[2]);
            if (done != 0)
                return done < 0 ? NULL : Py_NewRef(Py_None);
        }
        break;
    case V_SQUEEZE: /* squeeze(x, axis) with one int axis, positional or axis= */
        if ((n == 2 && nkw == 0) || (n == 1 && nkw == 1 && kw_is(kwnames, 0, "axis"))) {
            if (names == NULL)
                r = view_squeeze(x, args[1]);
            else if ((r = view_squeeze(x, args[1])) != NULL) {
                /* a named x: the view named by the outcome views.py's _squeeze_seen cached
                   (_core.VIEW_NAMES: ("squeeze", x's names, the axis's position)); none
                   yet: the definition, which caches it */
                Py_ssize_t a = PyLong_AsSsize_t(args[1]);
                /* (an axis counted from the front is its own position: the int given) */
                PyObject *sig = a >= 0 ? Py_NewRef(args[1])
                                       : PyLong_FromSsize_t(a + PyTuple_GET_SIZE(SLOT(r, O_shape)) + 1);
                if (sig == NULL) {
                    Py_DECREF(r);
                    return NULL;
                }
                r = named_view_fast(r, s_squeeze, names, sig, f->last);
                Py_DECREF(sig);
                if (r != NULL || PyErr_Occurred())
                    return r;
            }
            if (names != NULL && f->table != Py_None)
                /* (a named x, no PyTorch keyword: the definition the binder would call, with
                   its own named hot path; f->table: bind.bound's, in front of the binder) */
                return PyObject_Vectorcall(f->table, args, n, kwnames);
        }
        break;
    case V_ZERO: /* x.zero_() */
    case V_FILL: /* x.fill_(v) */
        if (names == NULL && nkw == 0 && n == (f->kind == V_ZERO ? 1 : 2)) {
            int done = fill_same(x, f->kind == V_ZERO ? NULL : args[1]);
            if (done != 0)
                return done < 0 ? NULL : Py_NewRef(x);
        }
        break;
    case V_COPY: /* x.copy_(y) (a plain x: a named one takes the Python path's checks) */
        if (names == NULL && n == 2 && nkw == 0) {
            int done = copy_same(x, args[1]);
            if (done != 0)
                return done < 0 ? NULL : Py_NewRef(x);
        }
        break;
    case V_RESHAPE: /* reshape(x, shape, *, copy=None) */
        if (n == 2 && (nkw == 0 || (nkw == 1 && kw_is(kwnames, 0, "copy") && args[2] == Py_None)))
            r = view_reshape(x, args[1]);
        break;
    case V_RESHAPE_M: /* x.reshape(2, 5) or x.reshape((2, 5)) */
        if (n >= 2 && nkw == 0)
            r = view_with_dims(x, args + 1, n - 1, view_reshape);
        break;
    case V_PERMUTE: /* permute_dims(x, axes) */
        if (n == 2 && nkw == 0)
            r = view_permute(x, args[1]);
        break;
    case V_PERMUTE_M: /* x.permute(2, 0, 1) or x.permute((2, 0, 1)) */
        if (n >= 2 && nkw == 0 && names != NULL && !(n == 2 && PyTuple_CheckExact(args[1]))) {
            /* (a named array: the tuple of the axes made once, for the view and its names) */
            PyObject *t = args_tuple(args + 1, n - 1);
            if (t != NULL) {
                r = view_permute(x, t);
                if (r != NULL)
                    r = r == x ? r : named_view_fast(r, s_permute_dims, names, t, f->last);
                Py_DECREF(t);
                return r;
            }
        }
        else if (n >= 2 && nkw == 0)
            r = view_with_dims(x, args + 1, n - 1, view_permute);
        break;
    case V_EXPAND: /* expand_dims(x, axis=0) / unsqueeze(x, dim): f->table names the keyword */
        if (n == 2 && nkw == 0)
            r = view_expand(x, args[1]);
        else if (n == 1 && nkw == 1 && PyUnicode_Check(f->table)
                 && PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, 0), f->table) == 0)
            r = view_expand(x, args[1]);
        else if (n == 1 && nkw == 0 && PyUnicode_Check(f->table)
                 && PyUnicode_CompareWithASCIIString(f->table, "axis") == 0)
            r = view_expand(x, zero); /* expand_dims's default axis */
        break;
    case V_RENAME: /* x.rename('a', 'b'): x's layout, the names name_view finds */
        if (names != NULL && nkw == 0 && PyUnicode_Check(f->table))
            r = view_alias(x);
        break;
    case V_ALIGN: /* x.align_to('c', 'r'): named here (the layout comes with the names) */
        if (names != NULL && nkw == 0 && PyUnicode_Check(f->table))
            return view_aligned(f, x, names, args + 1, n - 1);
        break;
    case V_UNFLATTEN: /* x.unflatten(dim, sizes) of a named array (f->table: named's _SHAPES) */
        if (names != NULL && n == 3 && nkw == 0)
            return view_unflatten(f, x, names, args[1], args[2]);
        return NULL;
    case V_FLATTEN: /* flatten(x, dims, out_name) by names (f->table: named's _SHAPES) */
        if (names != NULL && n == 3 && nkw == 0 && !PyLong_CheckExact(args[1]))
            return view_flatten_named(f, x, names, args[1], args[2]);
        if (names != NULL && f->inplace && nkw == 0 && n <= 3) /* x.flatten(1, 2) of a named x */
            return view_flatten_named_ints(x, names, args, n);
        return NULL;
    }
    if (r == NULL && names != NULL && nkw == 0 && n >= 2 && !PyErr_Occurred()
        && (f->kind == V_PERMUTE || f->kind == V_PERMUTE_M)) {
        /* dims given by name: their positions, and the permutation's cached names */
        PyObject *ax = axes_by_name_kept(names, args + 1, f->kind == V_PERMUTE ? 1 : n - 1);
        if (ax != NULL) {
            r = view_permute(x, ax);
            if (r != NULL)
                r = named_view_fast(r, s_permute_dims, names, ax, f->last);
            Py_DECREF(ax);
        }
    }
    else if (r != NULL && names != NULL)
        r = name_view(f, r, x, names, args, n, nkw);
    return r;
}

static PyObject *
view_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *fallback, *kwname = Py_None;
    int kind, method = 0;
    static char *names[] = {"fallback", "kind", "keyword", "method", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|Op:View", names, &fallback, &kind, &kwname, &method))
        return NULL;
    if (kind < V_GETITEM || kind >= V_T || !PyCallable_Check(fallback)
        || (method && kind != V_FLATTEN && kind != V_UNFLATTEN)
        || (kind == V_SQUEEZE ? kwname != Py_None && !PyCallable_Check(kwname)
            : kind == V_SETITEM ? !PyTuple_CheckExact(kwname)
            : kind == V_UNFLATTEN || kind == V_FLATTEN ? !PyDict_CheckExact(kwname)
                              : kwname != Py_None && !PyUnicode_Check(kwname))) {
        PyErr_SetString(PyExc_TypeError, "View(fallback, kind[, keyword]): a callable, a view "
                        "kind, a keyword name or None (SETITEM: a tuple of the floating DTypes; "
                        "FLATTEN, UNFLATTEN: strided.named's dict of checked outcomes; SQUEEZE: None or "
                        "the definition behind a binder; method=True: "
                        "the methods, whose unnamed int case is answered too)");
        return NULL;
    }
    Fast *f = (Fast *)type->tp_alloc(type, 0);
    if (f == NULL)
        return NULL;
    f->vectorcall = view_vectorcall;
    f->fallback = Py_NewRef(fallback);
    f->table = Py_NewRef(kwname);
    f->stable = Py_NewRef(Py_None);
    f->kind = kind;
    f->swap = 0;
    f->inplace = method; /* (FLATTEN, UNFLATTEN: x.flatten(1, 2) of an unnamed x in C too) */
    return own_identity(f, fallback);
}

/* A Fast of another constructor and vectorcall: everything else (binding, attributes,
   pickling, GC) is inherited from Fast (tp_base, set in PyInit). */
PyTypeObject View_T = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "strided._csrc._chot.View",
    .tp_doc = "View(fallback, kind[, keyword]): the compiled hot path of a view (indexing, "
              "contiguous, reshape, permute, expand_dims), in front of the Python function `fallback`.",
    .tp_basicsize = sizeof(Fast),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL
                | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_new = view_new,
    .tp_traverse = (traverseproc)fast_traverse,
    .tp_clear = (inquiry)fast_clear,
};

/* ``Array.T`` and ``Array.mT``: a property (a subclass of it, so the property it stands
   in for keeps its getter, docstring and kind for tools) whose instance access answers
   the plain case in C; everything else is the property's getter. Its fields follow the
   property's: a __dict__ (where property.__init__ puts a subclass's __doc__) and the kind.
   The offsets are set in PyInit (the property's size is not in the public headers). */
Py_ssize_t VP_dict, VP_kind;
static PyObject *swap_perms[MAXDIMS + 1]; /* (0, ..., nd - 1, nd - 2) per nd, built on use */
static PyObject *prop_last[3];            /* named_view's last outcome of .T and .mT */

/* The class an attribute kind builds (V_SHAPE: array.py's Size, a tuple subclass without
   slots; V_SIZE: _SizeAttr, an int subclass), from ViewProp's third argument. */
static PyTypeObject *attr_type[V_SIZE - V_DTYPE + 1];

/* x.dtype, x.device, x.ndim, x.shape, x.size of an Array: what the properties' getters
   return (array.py), read from its slots; NULL with an error set (out of memory). */
static PyObject *
attr_get(int kind, PyObject *obj)
{
    PyObject *shape = SLOT(obj, O_shape);
    Py_ssize_t nd = PyTuple_GET_SIZE(shape);
    switch (kind) {
    case V_DTYPE:
        return Py_NewRef(SLOT(obj, O_dtype));
    case V_DEVICE:
        return Py_NewRef(SLOT(obj, O_device));
    case V_NDIM:
        return PyLong_FromSsize_t(nd);
    case V_SHAPE: { /* Size(x._shape): tuple_subtype_new's steps */
        PyTypeObject *t = attr_type[V_SHAPE - V_DTYPE];
        PyObject *r = t->tp_alloc(t, nd);
        if (r != NULL)
            for (Py_ssize_t i = 0; i < nd; i++)
                PyTuple_SET_ITEM(r, i, Py_NewRef(PyTuple_GET_ITEM(shape, i)));
        return r;
    }
    default: { /* _SizeAttr(x): int.__new__(cls, prod(shape)), then its _shape */
        Py_ssize_t n = 1;
        for (Py_ssize_t i = 0; i < nd; i++) {
            Py_ssize_t d = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i));
            if (d == -1 && PyErr_Occurred())
                return NULL;
            n *= d; /* (no overflow: the array's own size) */
        }
        PyObject *v = PyLong_FromSsize_t(n), *args = v != NULL ? PyTuple_Pack(1, v) : NULL, *r = NULL;
        if (args != NULL)
            r = PyLong_Type.tp_new(attr_type[V_SIZE - V_DTYPE], args, NULL);
        Py_XDECREF(v);
        Py_XDECREF(args);
        if (r != NULL && PyObject_SetAttr(r, s__shape, shape) < 0)
            Py_CLEAR(r);
        return r;
    }
    }
}

/* V_GRAD: x.grad (autograd/_tensor.py's _get_grad behind strided.named's get, which
   names the gradient of a named array) of an Array of the contract: None without an Ext;
   with an Ext of the contract and no names, its grad where the getter returns it without
   its warning (a leaf, or a gradient that is there); else NULL with no error (the
   property's getter runs). */
static inline int
grad_ext(PyObject *obj, PyObject **ep)
{
    PyObject *e = SLOT(obj, O_ext);
    *ep = e;
    return e == Py_None || (contract_ext(e) && SLOT(e, E_grad) != NULL && SLOT(e, E_names) == Py_None);
}

static PyObject *
grad_get(PyObject *obj)
{
    PyObject *e;
    if (!contract_array(obj) || !grad_ext(obj, &e))
        return NULL;
    if (e == Py_None)
        return Py_NewRef(Py_None);
    PyObject *g = SLOT(e, E_grad);
    if (SLOT(e, E_fn) == Py_None || g != Py_None)
        return Py_NewRef(g);
    return NULL; /* (a non-leaf's missing gradient: the getter warns) */
}

/* x.grad = value (_set_grad) for an Array x of the contract with an Ext of the contract and
   no names (or no Ext and value None): value None, or an exact Array of x's shape, dtype
   and device; 1 when done, 0 when the property's setter is to run (its checks, its
   errors), -1 with an error set. Setting the field tracks the record as Ext's own
   setattr does (_chot/names.c). */
static int
grad_set(PyObject *obj, PyObject *value)
{
    PyObject *e;
    if (!contract_array(obj) || !grad_ext(obj, &e))
        return 0;
    if (value != Py_None) {
        if (!contract_array(value) || SLOT(value, O_dtype) != SLOT(obj, O_dtype)
            || SLOT(value, O_device) != SLOT(obj, O_device))
            return 0;
        int same = PyObject_RichCompareBool(SLOT(value, O_shape), SLOT(obj, O_shape), Py_EQ);
        if (same <= 0)
            return same;
        if (e == Py_None)
            return 0; /* (ext_of makes the record: the setter) */
    }
    else if (e == Py_None)
        return 1; /* (nothing to clear) */
    Py_INCREF(e);
    Py_SETREF(SLOT(e, E_grad), Py_NewRef(value));
    if (PyObject_IS_GC(e) && !PyObject_GC_IsTracked(e))
        PyObject_GC_Track(e);
    Py_DECREF(e);
    return 1;
}

static int
prop_set(PyObject *self, PyObject *obj, PyObject *value)
{
    if (value != NULL && *(int *)((char *)self + VP_kind) == V_GRAD) {
        int r = grad_set(obj, value);
        if (r != 0)
            return r < 0 ? -1 : 0;
    }
    return PyProperty_Type.tp_descr_set(self, obj, value);
}

static PyObject *
prop_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    int kind = *(int *)((char *)self + VP_kind);
    if (kind == V_GRAD) {
        PyObject *g = grad_get(obj);
        return g != NULL ? g : PyProperty_Type.tp_descr_get(self, obj, type);
    }
    if (kind >= V_DTYPE) /* (any Array, named or not, materialized or not: slots only) */
        return contract_array(obj) ? attr_get(kind, obj) : PyProperty_Type.tp_descr_get(self, obj, type);
    PyObject *names = NULL; /* a named array: as in view_vectorcall */
    if (views_ready && contract_array(obj)
        && (SLOT(obj, O_ext) == Py_None || (names = untracked_names(obj)) != NULL)) {
        Py_XINCREF(names); /* (held: materializing obj runs Python code) */
        PyObject *r = view_swap_last(obj, *(int *)((char *)self + VP_kind) == V_T);
        if (r != NULL && names != NULL) {
            /* x.T and x.mT of a named array are permute_dims with the last two axes
               swapped (that permutation built once per ndim) */
            Py_ssize_t nd = PyTuple_GET_SIZE(SLOT(r, O_shape)), ax[MAXDIMS];
            if (swap_perms[nd] == NULL) {
                for (Py_ssize_t i = 0; i < nd; i++)
                    ax[i] = i;
                ax[nd - 2] = nd - 1, ax[nd - 1] = nd - 2;
                swap_perms[nd] = ints_tuple(ax, nd); /* (NULL: out of memory, propagates) */
            }
            r = named_view_fast(r, s_permute_dims, names, swap_perms[nd], prop_last);
        }
        Py_XDECREF(names);
        if (r != NULL || PyErr_Occurred())
            return r;
    }
    return PyProperty_Type.tp_descr_get(self, obj, type);
}

/* ViewProp(prop, kind): the getter, setter, deleter and docstring of the property prop. */
static int
prop_init(PyObject *self, PyObject *args, PyObject *kw)
{
    PyObject *prop, *aux = NULL;
    int kind;
    if (!PyArg_ParseTuple(args, "O!i|O!:ViewProp", &PyProperty_Type, &prop, &kind, &PyType_Type, &aux))
        return -1;
    if (kind < V_T || kind > V_GRAD) {
        PyErr_SetString(PyExc_ValueError, "ViewProp(prop, kind[, cls]): kind T, MT or A_*");
        return -1;
    }
    if (kind == V_SHAPE || kind == V_SIZE) {
        PyTypeObject *t = (PyTypeObject *)aux, *base = kind == V_SHAPE ? &PyTuple_Type : &PyLong_Type;
        if (t == NULL || !PyType_IsSubtype(t, base)
            || (kind == V_SHAPE && t->tp_basicsize != PyTuple_Type.tp_basicsize)) {
            PyErr_SetString(PyExc_TypeError, "ViewProp(prop, A_SHAPE, cls): cls a tuple subclass without "
                            "slots; (prop, A_SIZE, cls): cls an int subclass");
            return -1;
        }
        /* (one class per kind for the process: the getters read it from here) */
        if (attr_type[kind - V_DTYPE] != NULL && attr_type[kind - V_DTYPE] != t) {
            PyErr_Format(PyExc_TypeError, "ViewProp(prop, kind, cls): this kind builds %s already; got %s",
                         attr_type[kind - V_DTYPE]->tp_name, t->tp_name);
            return -1;
        }
        if (attr_type[kind - V_DTYPE] == NULL)
            attr_type[kind - V_DTYPE] = (PyTypeObject *)Py_NewRef(aux);
    }
    PyObject *parts = PyTuple_New(4);
    if (parts == NULL)
        return -1;
    static const char *names[] = {"fget", "fset", "fdel", "__doc__"};
    for (int i = 0; i < 4; i++) {
        PyObject *v = PyObject_GetAttrString(prop, names[i]);
        if (v == NULL) {
            Py_DECREF(parts);
            return -1;
        }
        PyTuple_SET_ITEM(parts, i, v);
    }
    int r = PyProperty_Type.tp_init(self, parts, NULL);
    if (r == 0) {
        /* the docstring in its own __dict__, where it is found before this type's */
        PyObject **dict = (PyObject **)((char *)self + VP_dict);
        if (*dict == NULL)
            *dict = PyDict_New();
        if (*dict == NULL || PyDict_SetItemString(*dict, "__doc__", PyTuple_GET_ITEM(parts, 3)) < 0)
            r = -1;
        else
            *(int *)((char *)self + VP_kind) = kind;
    }
    Py_DECREF(parts);
    return r;
}

static int
prop_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(*(PyObject **)((char *)self + VP_dict));
    return PyProperty_Type.tp_traverse(self, visit, arg);
}

static int
prop_clear(PyObject *self)
{
    Py_CLEAR(*(PyObject **)((char *)self + VP_dict));
    return PyProperty_Type.tp_clear != NULL ? PyProperty_Type.tp_clear(self) : 0;
}

static void
prop_dealloc(PyObject *self)
{
    Py_CLEAR(*(PyObject **)((char *)self + VP_dict));
    PyProperty_Type.tp_dealloc(self);
}

PyTypeObject ViewProp_T = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "strided._csrc._chot.ViewProp",
    .tp_doc = "ViewProp(prop, kind[, cls]): the property prop (Array.T or Array.mT; Array.dtype, "
              ".device, .ndim, .shape (cls: Size), .size (cls: _SizeAttr)) with the compiled hot path "
              "of its view or attribute in front of its getter.",
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_init = prop_init,
    .tp_descr_get = prop_get,
    .tp_descr_set = prop_set,
    .tp_traverse = prop_traverse,
    .tp_clear = prop_clear,
    .tp_dealloc = prop_dealloc,
};

/* ====================================================================================
 * Array objects: a free list (as CPython keeps for floats and tuples, and names.c for Ext).
 *
 * Building and freeing an Array through the class's generic slots (PyType_GenericAlloc,
 * subtype_dealloc: walks the type's member table, its base chain, the finalizer checks)
 * cost ~560 instructions per object; a view costs NumPy ~1,500 in all. Array's tp_alloc
 * and tp_dealloc are replaced (setup_array_free) by ones that keep up to ARRAY_FREE_MAX
 * freed Array objects -- the exact class only: untracked by the collector, every slot
 * cleared, no weak reference left, the class's reference released -- and hand one out
 * as the generic allocator would (every slot NULL, tracked, a reference to the class).
 * Nothing anyone holds is reused: an object enters the list only when its count reached 0.
 * The dealloc does what subtype_dealloc did for an Array, also when a subclass's
 * subtype_dealloc calls it as its base's (that one clears the subclass's own slots
 * and leaves the weak references and the class's reference to the base, here).
 * ==================================================================================== */

#define ARRAY_FREE_MAX 64
static PyObject *array_free[ARRAY_FREE_MAX];
static int array_nfree;
static allocfunc array_generic_alloc;

static PyObject *
array_alloc(PyTypeObject *t, Py_ssize_t n)
{
    if (t == Array_T && n == 0 && array_nfree > 0) {
        PyObject *o = array_free[--array_nfree];
        (void)PyObject_Init(o, t); /* (the class's reference, a fresh count of 1) */
        PyObject_GC_Track(o);
        return o;
    }
    return array_generic_alloc(t, n);
}

#define ARRAY_CLEAR(name, off, want, ew) Py_CLEAR(SLOT(o, off));

static void
array_dealloc(PyObject *o)
{
    PyTypeObject *t = Py_TYPE(o);
    PyObject_GC_UnTrack(o);
    Py_TRASHCAN_BEGIN(o, array_dealloc)
    if (*(PyObject **)((char *)o + Array_T->tp_weaklistoffset) != NULL)
        PyObject_ClearWeakRefs(o);
    /* a named result's record that nothing else holds: back onto the Ext free list here,
       as its own dealloc would put it (ext_dealloc's common case, without the call: a named
       view's release touched one more function's code) */
    PyObject *e = SLOT(o, O_ext);
    if (e != NULL && Py_IS_TYPE(e, ExtC_T) && Py_REFCNT(e) == 1 && ext_names_only((ExtObject *)e)) {
        SLOT(o, O_ext) = NULL;
        Py_SET_REFCNT(e, 0); /* (as its release would leave it: ext_make starts a new count) */
        PyObject_GC_UnTrack(e);
        ext_recycle((ExtObject *)e);
    }
    ARRAY_SLOTS(ARRAY_CLEAR) /* (may run any code: the list is touched after) */
    if (t == Array_T && array_nfree < ARRAY_FREE_MAX)
        array_free[array_nfree++] = o;
    else
        t->tp_free(o);
    Py_DECREF(t); /* (an instance of a heap class holds its class) */
    Py_TRASHCAN_END
}
#undef ARRAY_CLEAR

/* setup_array_free(): install the free list on Array (after setup_array) when the class
   is as this file expects -- a heap class of the eight slots of ARRAY_SLOTS and
   __weakref__, no __dict__, no finalizer, the generic allocator and subtype_dealloc
   (any other, e.g. a second call, and it stays as it is). Returns whether it is in use.
   The free-threaded build keeps the generic slots (the list relies on the GIL). */
PyObject *
setup_array_free(PyObject *mod, PyObject *Py_UNUSED(ignored))
{
#ifdef Py_GIL_DISABLED
    Py_RETURN_FALSE;
#else
    PyTypeObject *t = Array_T;
    if (t == NULL)
        Py_RETURN_FALSE;
    if (t->tp_alloc == array_alloc && t->tp_dealloc == array_dealloc)
        Py_RETURN_TRUE;
    Py_ssize_t nslots = 0;
#define ARRAY_COUNT(name, off, want, ew) nslots++;
    ARRAY_SLOTS(ARRAY_COUNT)
#undef ARRAY_COUNT
    PyTypeObject *base = t->tp_base;
    if (!(t->tp_flags & Py_TPFLAGS_HEAPTYPE) || !(t->tp_flags & Py_TPFLAGS_HAVE_GC)
        || Py_SIZE(t) != nslots || t->tp_dictoffset != 0 || t->tp_weaklistoffset <= 0
        || t->tp_finalize != NULL || t->tp_del != NULL || t->tp_alloc != PyType_GenericAlloc
        || base != &PyBaseObject_Type || t->tp_itemsize != 0
        || t->tp_basicsize != (Py_ssize_t)(base->tp_basicsize + (nslots + 1) * sizeof(PyObject *))
        || t->tp_free != PyObject_GC_Del || Storage_T == NULL
        || t->tp_dealloc != Storage_T->tp_dealloc) /* (subtype_dealloc: a Python class's) */
        Py_RETURN_FALSE;
    /* (the slots the class's tp_dealloc clears are the ones ARRAY_SLOTS names: each offset
       inside the object, none the weak reference list's) */
#define ARRAY_IN(name, off, want, ew)                                                  \
    if (off < base->tp_basicsize || off >= t->tp_basicsize || off == t->tp_weaklistoffset) \
        Py_RETURN_FALSE;
    ARRAY_SLOTS(ARRAY_IN)
#undef ARRAY_IN
    array_generic_alloc = t->tp_alloc;
    t->tp_alloc = array_alloc;
    t->tp_dealloc = array_dealloc;
    Py_RETURN_TRUE;
#endif
}

/* ====================================================================================
 * x ** 0.5 of a small float32/float64 host array (elementwise.py's _pow_float).
 *
 * The standard's x ** 0.5 is sqrt(x) but for -0 (+0) and -inf (+inf); _pow_float
 * computes it with NumPy as np.sqrt, then + 0.0 in place, then a min-reduction to find a
 * -inf: ~20k instructions for a 20-element array (NumPy's own a ** 0.5: ~4k). Here the
 * same three steps in one pass, element for element the same bits: sqrt is correctly
 * rounded in IEEE 754 (NumPy's loop and the C library's give one answer; a NaN input is
 * returned quieted with its payload, a negative one gives the default NaN), r + 0.0
 * turns -0 into +0 and changes nothing else (a NaN keeps its payload), and an input of
 * -inf gives +inf. The result is made as the compiled take makes its results
 * (take_empty: NumPy's C API, the small-result free list). The floating-point status
 * flags are put back (an invalid sqrt raises one; the Python path runs under NumPy's
 * "ignore" state).
 * ==================================================================================== */

/* pow_half(a): the result ndarray, or None to leave it to the NumPy path (another type,
   dtype, a layout other than C-contiguous or 1-D, a result from the pool threshold on,
   or NumPy's C API table not in use). */
PyObject *
pow_half(PyObject *mod, PyObject *a)
{
    if (!loops_ready || nd_new == NULL || nd_new_type != ND_T || Py_TYPE(a) != ND_T)
        Py_RETURN_NONE;
    NDFields *A = ND(a);
    /* (PyArray_Descr's head in every NumPy: typeobj, kind, type, byteorder) */
    struct { PyObject_HEAD PyTypeObject *typeobj; char kind, type, byteorder; } *dh = (void *)A->descr;
    Py_ssize_t big = contract_pool_limit(big_list), n = 1,
               esz = dh->type == 'f' ? 4 : dh->type == 'd' ? 8 : 0;
    if (dh->kind != 'f' || esz == 0 || dh->byteorder != '=' || A->nd < 1 || A->nd > MAXDIMS
        || !(A->flags & ND_ALIGNED) || !(A->nd == 1 || (A->flags & ND_C_CONTIGUOUS)))
        Py_RETURN_NONE;
    for (int d = 0; d < A->nd; d++)
        n *= A->dimensions[d]; /* (the array's own size) */
    if (big <= 0 || n * esz >= big)
        Py_RETURN_NONE;
    Py_INCREF(a);
    PyObject *r = take_empty(NULL, A->dimensions, A->nd, A->descr, n * esz);
    if (r == NULL || Py_TYPE(r) != ND_T || ND(r)->descr != A->descr || ND(r)->nd != A->nd
        || !(ND(r)->flags & ND_C_CONTIGUOUS) || !(ND(r)->flags & ND_WRITEABLE)) {
        Py_DECREF(a);
        if (r == NULL)
            return decline_error() == NULL && PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
        Py_DECREF(r);
        Py_RETURN_NONE;
    }
    Py_ssize_t by = A->nd == 1 ? A->strides[0] : esz;
    const char *src = A->data;
    char *dst = ND(r)->data;
    Flags fl;
    flags_save(&fl);
    if (esz == 4)
        for (Py_ssize_t j = 0; j < n; j++, src += by) {
            float x, v;
            memcpy(&x, src, 4);
            v = x == -INFINITY ? INFINITY : sqrtf(x) + 0.0f;
            memcpy(dst + 4 * j, &v, 4);
        }
    else
        for (Py_ssize_t j = 0; j < n; j++, src += by) {
            double x, v;
            memcpy(&x, src, 8);
            v = x == -INFINITY ? INFINITY : sqrt(x) + 0.0;
            memcpy(dst + 8 * j, &v, 8);
        }
    flags_restore(&fl);
    Py_DECREF(a);
    return r;
}
