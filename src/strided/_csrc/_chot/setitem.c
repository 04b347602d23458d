/* strided._csrc._chot, setitem.c: ``x[slice] = a Python real scalar`` (or a basic key of
 * ints and slices),
 * ``x[bool mask] = a Python real scalar``, and ``x[...] = y`` / ``x.copy_(y)`` from an
 * array of x's dtype and shape.
 *
 * In front of: Array.__setitem__ (strided/_core/array.py) and Array.copy_
 * (strided/torch/_methods.py) for those cases: the write through the cached native view,
 * then (slice) or before it (mask: indexing's advanced_setitem, through the write stage;
 * the copy: out_native) the Storage's version counter bumped, as the Python path does.
 */
#include "chot.h"

/* --- x[slice] = a Python real scalar ------------------------------------------------- */

static inline int
plain_bound(PyObject *v)
{
    return v == Py_None || PyLong_CheckExact(v);
}

/* The write itself for a 1-D float32 or float64 native p (writeable, aligned, of x's
   dtype dt) and a slice of None or exact int parts: d converted as NumPy's setitem
   converts a Python float (a C cast; the caller has ruled out an overflow), stored at
   each selected element. 1: written; 0: nothing written (NumPy's setitem does it). */
static int
fill_slice(PyObject *p, PyObject *dt, Py_ssize_t which, PySliceObject *sl, double d)
{
    NDFields *P = ND(p);
    Py_ssize_t start, stop, step, len;
    if (!loops_ready || which < 1 || P->nd != 1 || P->descr != SLOT(dt, D_np)
        || (P->flags & (ND_WRITEABLE | ND_ALIGNED)) != (ND_WRITEABLE | ND_ALIGNED)
        || !plain_bound(sl->start) || !plain_bound(sl->stop) || !plain_bound(sl->step)
        || !slice_unpack(sl, &start, &stop, &step))
        return 0;
    len = PySlice_AdjustIndices(P->dimensions[0], &start, &stop, step);
    char *at = P->data + start * P->strides[0];
    Py_ssize_t by = step * P->strides[0]; /* (no overflow: inside the array) */
    if (which == 1) {
        float f = (float)d;
        for (Py_ssize_t j = 0; j < len; j++, at += by)
            memcpy(at, &f, sizeof f);
    }
    else
        for (Py_ssize_t j = 0; j < len; j++, at += by)
            memcpy(at, &d, sizeof d);
    return 1;
}

/* Array.__setitem__'s hot path: a Python bool, int or float written into a slice of a
   floating array (dts: float16, float32, float64) on the CPU through its cached native
   view (no stride 0: no element written twice), the floating-point status flags kept,
   then its Storage's version bumped. A value that overflows the dtype is left to the
   Python path (NumPy reports that overflow through its error state: ignored there).
   1: done; 0: declined, nothing written (the Python path runs and raises what it
   raises); -1: an error that must propagate. */
static int mask_setitem(PyObject *x, PyObject *key, Py_ssize_t which, double d);

/* A basic key NumPy's setitem reads as the Python path's layout.basic_index does: an
   exact int, or an exact tuple of exact ints and slices of None or exact int parts (no
   __index__ to call: it would run twice where NumPy declines). A bad one (out of range,
   too many, a zero step) makes NumPy raise before writing: declined, the Python path
   raises its own error. */
static int
basic_key(PyObject *key)
{
    if (PyLong_CheckExact(key))
        return 1;
    if (!PyTuple_CheckExact(key))
        return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(key); i++) {
        PyObject *k = PyTuple_GET_ITEM(key, i);
        if (PyLong_CheckExact(k))
            continue;
        if (Py_TYPE(k) != &PySlice_Type)
            return 0;
        PySliceObject *sl = (PySliceObject *)k;
        if (!plain_bound(sl->start) || !plain_bound(sl->stop) || !plain_bound(sl->step))
            return 0;
    }
    return 1;
}

static int
view_setitem_in(PyObject *dts, PyObject *x, PyObject *key, PyObject *value)
{
    PyTypeObject *tv = Py_TYPE(value);
    int mask = Py_TYPE(key) == Array_T;
    if (!ready || (Py_TYPE(key) != &PySlice_Type && !mask && !basic_key(key))
        || (tv != &PyFloat_Type && tv != &PyLong_Type && tv != &PyBool_Type))
        return 0;
    PyObject *p = SLOT(x, O_np), *st = SLOT(x, O_st), *str = SLOT(x, O_str), *dt = SLOT(x, O_dtype);
    if (st == Py_None && !mask) { /* a fresh result: its Storage first, as _setitem's _layout() */
        int m = materialize(x);
        if (m <= 0)
            return m;
        p = SLOT(x, O_np), st = SLOT(x, O_st), str = SLOT(x, O_str), dt = SLOT(x, O_dtype);
    }
    if (p == Py_None && st != Py_None) { /* a view: its native view built and cached */
        PyObject *b = native_build(x);
        if (b == NULL)
            return PyErr_Occurred() ? -1 : 0;
        Py_DECREF(b);
        p = SLOT(x, O_np), st = SLOT(x, O_st), str = SLOT(x, O_str), dt = SLOT(x, O_dtype);
    }
    if (Py_TYPE(p) != ND_T || st == Py_None || !PyTuple_CheckExact(str) || !PyTuple_CheckExact(dts))
        return 0;
    Py_ssize_t which = -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dts) && i < 3; i++)
        if (PyTuple_GET_ITEM(dts, i) == dt)
            which = i;
    double d = tv == &PyFloat_Type ? PyFloat_AS_DOUBLE(value) : PyLong_AsDouble(value);
    if (d == -1.0 && PyErr_Occurred()) { /* (an int beyond a double: Python raises) */
        (void)contract_clear(PyExc_OverflowError);
        return 0;
    }
    /* (NumPy's conversions: (float)d, npy_double_to_half, which rounds to inf from 65520) */
    int ok = which >= 0 && (isinf(d) || isnan(d)
                            || (which == 0 ? fabs(d) < 65504.0 : which == 1 ? !isinf((float)d) : 1));
    for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(str); i++) {
        PyObject *s = PyTuple_GET_ITEM(str, i);
        ok = PyLong_CheckExact(s) && PyObject_IsTrue(s) == 1; /* (an exact int: no code runs) */
    }
    PyObject *ver = SLOT(st, S_version);
    if (!ok || ver == NULL || !PyLong_CheckExact(ver))
        return 0;
    if (mask)
        return mask_setitem(x, key, which, d);
    Py_INCREF(p);
    Py_INCREF(st);
    int rc = Py_TYPE(key) == &PySlice_Type && fill_slice(p, dt, which, (PySliceObject *)key, d)
                 ? 0
                 : PyObject_SetItem(p, key, value);
    Py_DECREF(p);
    if (rc == 0) { /* st._version += 1 */
        ver = SLOT(st, S_version);
        PyObject *nv = ver != NULL && PyLong_CheckExact(ver) ? PyNumber_Add(ver, one) : NULL;
        if (nv == NULL) {
            Py_DECREF(st);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_RuntimeError, "__setitem__(): the storage's version counter changed type");
            return -1;
        }
        Py_SETREF(SLOT(st, S_version), nv);
    }
    Py_DECREF(st);
    if (rc == -1 && contract_clear(PyExc_Exception)) /* (KeyboardInterrupt, MemoryError: -1) */
        return 0;
    return rc < 0 ? -1 : 1;
}

int
view_setitem(PyObject *dts, PyObject *x, PyObject *key, PyObject *value)
{
    Flags fl; /* (the range check's conversion and NumPy's raise some) */
    flags_save(&fl);
    int r = view_setitem_in(dts, x, key, value);
    flags_restore(&fl);
    return r;
}

/* --- x[bool mask] = a Python real scalar ---------------------------------------------- */

/* st._version += 1 (an exact int, checked by the caller); 0, or -1 with an error set.
   (Also the compiled in-place operators' bump: fast.c, fast_inplace.) */
int
bump(PyObject *st)
{
    PyObject *ver = SLOT(st, S_version);
    PyObject *nv = ver != NULL && PyLong_CheckExact(ver) ? PyNumber_Add(ver, one) : NULL;
    if (nv == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "__setitem__(): the storage's version counter changed type");
        return -1;
    }
    Py_SETREF(SLOT(st, S_version), nv);
    return 0;
}

/* The mask write of view_setitem_in (x checked there: a floating x with a Storage, a
   cached native, no stride 0, the value in range; float32 and float64 here): for a key that is an
   extension-free bool Array on x's device with x's whole shape and a cached C-contiguous
   native, and x's native writeable and aligned, C-contiguous or 1-D, the elements whose
   mask byte is not zero (NumPy's truth of a bool) set to the value converted as NumPy
   converts it (float32: (float)d, as fill_slice), the version bumped
   first as the write stage bumps it (also when nothing is selected). 1: done; 0:
   declined, nothing written; -1: an error that must propagate. */
static int
mask_setitem(PyObject *x, PyObject *key, Py_ssize_t which, double d)
{
    if (!loops_ready || which < 1 || !contract_array(key) || SLOT(key, O_ext) != Py_None
        || SLOT(key, O_device) != SLOT(x, O_device))
        return 0;
    PyObject *p = SLOT(x, O_np), *k = SLOT(key, O_np), *kdt = SLOT(key, O_dtype),
             *st = SLOT(x, O_st), *dt = SLOT(x, O_dtype);
    if (Py_TYPE(p) != ND_T || Py_TYPE(k) != ND_T || !contract_dtype(kdt) || np_kind(kdt) != 'b'
        || ND(k)->descr != SLOT(kdt, D_np) || ND(p)->descr != SLOT(dt, D_np))
        return 0;
    NDFields *P = ND(p), *K = ND(k);
    if ((P->flags & (ND_WRITEABLE | ND_ALIGNED)) != (ND_WRITEABLE | ND_ALIGNED)
        || !(K->flags & ND_C_CONTIGUOUS) || K->nd != P->nd || P->nd < 1
        || !(P->nd == 1 || (P->flags & ND_C_CONTIGUOUS)))
        return 0;
    Py_ssize_t n = 1;
    for (int i = 0; i < P->nd; i++) {
        if (K->dimensions[i] != P->dimensions[i])
            return 0; /* (another shape: NumPy's broadcasting or its IndexError) */
        n *= P->dimensions[i]; /* (no overflow: the array's own size) */
    }
    if (bump(st) < 0)
        return -1;
    const unsigned char *m = (const unsigned char *)K->data;
    Py_ssize_t by = P->nd == 1 ? P->strides[0] : (Py_ssize_t)(which == 1 ? 4 : 8);
    char *at = P->data;
    if (which == 1) {
        float f = (float)d;
        for (Py_ssize_t j = 0; j < n; j++, at += by)
            if (m[j])
                memcpy(at, &f, sizeof f);
    }
    else
        for (Py_ssize_t j = 0; j < n; j++, at += by)
            if (m[j])
                memcpy(at, &d, sizeof d);
    return 1;
}

/* --- x[...] = y, x.copy_(y): an array of x's dtype and shape --------------------------- */

/* The copy of y into x where the Python path is one assignment of y's native into x's
   checked target (array.py's ``_setitem``, ``a[...] = b`` of x's dtype, device and shape;
   _methods.py's ``copy_``, no cast): both without an extension (no names to check, no
   autograd), x's native C-contiguous, aligned and writeable (no element twice: nothing
   for out_native to refuse), y's native of x's descriptor, C-contiguous (copied as
   bytes by memmove, which reads an overlapping y as it was, as NumPy's buffered
   assignment does) or 1-D of any step sharing none of x's bytes (element by element);
   the version bumped first as out_native bumps it (not for an array with no Storage
   yet). 1: done; 0: declined, nothing written (the Python path runs and raises what it
   raises); -1: an error that must propagate. */
int
copy_same(PyObject *x, PyObject *y)
{
    if (!ready || Py_TYPE(y) != Array_T || !contract_array(y) || SLOT(x, O_ext) != Py_None
        || SLOT(y, O_ext) != Py_None || SLOT(y, O_dtype) != SLOT(x, O_dtype)
        || SLOT(y, O_device) != SLOT(x, O_device) || !contract_dtype(SLOT(x, O_dtype)))
        return 0;
    PyObject *xs = SLOT(x, O_shape), *ys = SLOT(y, O_shape);
    if (!PyTuple_CheckExact(xs) || !PyTuple_CheckExact(ys) || PyTuple_GET_SIZE(xs) != PyTuple_GET_SIZE(ys))
        return 0;
    PyObject *a = small_native(x, PY_SSIZE_T_MAX);
    if (a == NULL)
        return PyErr_Occurred() ? -1 : 0;
    PyObject *b = small_native(y, PY_SSIZE_T_MAX);
    if (b == NULL) {
        Py_DECREF(a);
        return PyErr_Occurred() ? -1 : 0;
    }
    int rc = 0;
    NDFields *A = ND(a), *B = ND(b);
    Py_ssize_t isz = PyLong_AsSsize_t(SLOT(SLOT(x, O_dtype), D_itemsize)), n = 1;
    if (isz <= 0 || A->descr != B->descr || A->nd != B->nd || A->nd != PyTuple_GET_SIZE(xs)
        || (A->flags & (ND_C_CONTIGUOUS | ND_ALIGNED | ND_WRITEABLE))
               != (ND_C_CONTIGUOUS | ND_ALIGNED | ND_WRITEABLE)) {
        (void)contract_clear(PyExc_OverflowError);
        goto done;
    }
    for (int d = 0; d < A->nd; d++) {
        if (A->dimensions[d] != B->dimensions[d])
            goto done; /* (broadcasting, or the shape error: the Python path) */
        n *= A->dimensions[d]; /* (no overflow: x's own size) */
    }
    int contig = (B->flags & ND_C_CONTIGUOUS) != 0;
    Py_ssize_t step = 0;
    if (!contig) {
        char *alo = A->data, *ahi = A->data + n * isz, *blo = B->data, *bhi = B->data;
        if (B->nd != 1 || !(B->flags & ND_ALIGNED))
            goto done;
        step = B->strides[0];
        if (n > 0)
            (step < 0 ? (blo += (n - 1) * step) : (bhi += (n - 1) * step));
        bhi += isz;
        if (n > 0 && !(bhi <= alo || ahi <= blo))
            goto done; /* (a partial overlap of a strided y: NumPy buffers it) */
    }
    PyObject *st = SLOT(x, O_st);
    if (st != NULL && st != Py_None && bump(st) < 0) {
        rc = -1;
        goto done;
    }
    rc = 1;
    if (n == 0 || (contig && A->data == B->data))
        goto done;
    size_t nb = (size_t)(n * isz);
    char *o = A->data;
    const char *p = B->data;
    if (nb >= (size_t)elide_bytes) { /* (NumPy releases the GIL for its copies too) */
        Py_BEGIN_ALLOW_THREADS
        if (contig)
            memmove(o, p, nb);
        else
            for (Py_ssize_t i = 0; i < n; i++, o += isz, p += step)
                memcpy(o, p, (size_t)isz);
        Py_END_ALLOW_THREADS
    }
    else if (contig)
        memmove(o, p, nb);
    else
        switch (isz) { /* (aligned elements: a load and a store each) */
        case 4:
            for (Py_ssize_t i = 0; i < n; i++, o += 4, p += step)
                memcpy(o, p, 4);
            break;
        case 8:
            for (Py_ssize_t i = 0; i < n; i++, o += 8, p += step)
                memcpy(o, p, 8);
            break;
        default:
            for (Py_ssize_t i = 0; i < n; i++, o += isz, p += step)
                memcpy(o, p, (size_t)isz);
        }
done:
    Py_DECREF(a);
    Py_DECREF(b);
    return rc;
}

/* --- x.zero_(), x.fill_(v) --------------------------------------------------------------- */

/* x.zero_() (value NULL) and x.fill_(value) where the Python path is one assignment of a
   Python scalar into x's checked target (_methods.py, zero_/fill_: out_native with
   same_value, then the backend's fill): x without an extension, its native C-contiguous,
   aligned and writeable; zero_: every byte 0 (the zero of every dtype: +0.0, 0, False,
   0+0j); fill_: a Python bool, int or float into a float32 or float64 x, converted as
   NumPy converts it ((float)d, as fill_slice; a value a float32 cannot hold, or an int
   beyond a double, declines: NumPy reports that overflow). The version bumped first as
   out_native bumps it. 1: done; 0: declined, nothing written; -1: an error. */
int
fill_same(PyObject *x, PyObject *value)
{
    if (!ready || !loops_ready || SLOT(x, O_ext) != Py_None || !contract_dtype(SLOT(x, O_dtype)))
        return 0;
    double d = 0.0;
    int which = 0; /* 0: bytes of zero; 1: float32; 2: float64 */
    if (value != NULL) {
        PyTypeObject *tv = Py_TYPE(value);
        PyObject *dt = SLOT(x, O_dtype);
        char kind = np_kind(dt);
        Py_ssize_t isz = PyLong_AsSsize_t(SLOT(dt, D_itemsize));
        if ((tv != &PyFloat_Type && tv != &PyLong_Type && tv != &PyBool_Type) || kind != 'f'
            || (isz != 4 && isz != 8)) {
            (void)contract_clear(PyExc_OverflowError);
            return 0;
        }
        d = tv == &PyFloat_Type ? PyFloat_AS_DOUBLE(value) : PyLong_AsDouble(value);
        if (d == -1.0 && PyErr_Occurred())
            return contract_clear(PyExc_OverflowError) ? 0 : -1;
        which = isz == 4 ? 1 : 2;
        if (which == 1 && isinf((float)d) && !isinf(d))
            return 0;
    }
    PyObject *a = small_native(x, PY_SSIZE_T_MAX);
    if (a == NULL)
        return PyErr_Occurred() ? -1 : 0;
    NDFields *A = ND(a);
    int rc = 0;
    Py_ssize_t n = 1, isz = PyLong_AsSsize_t(SLOT(SLOT(x, O_dtype), D_itemsize));
    if ((A->flags & (ND_C_CONTIGUOUS | ND_ALIGNED | ND_WRITEABLE)) != (ND_C_CONTIGUOUS | ND_ALIGNED | ND_WRITEABLE)
        || A->descr != SLOT(SLOT(x, O_dtype), D_np) || isz <= 0 || (which && isz != (which == 1 ? 4 : 8))) {
        (void)contract_clear(PyExc_OverflowError);
        goto done;
    }
    for (int i = 0; i < A->nd; i++)
        n *= A->dimensions[i]; /* (no overflow: x's own size) */
    PyObject *st = SLOT(x, O_st);
    if (st != NULL && st != Py_None && bump(st) < 0) {
        rc = -1;
        goto done;
    }
    rc = 1;
    if (which == 0)
        memset(A->data, 0, (size_t)(n * isz));
    else if (which == 1) {
        float f = (float)d, *o = (float *)A->data;
        for (Py_ssize_t i = 0; i < n; i++)
            o[i] = f;
    }
    else {
        double *o = (double *)A->data;
        for (Py_ssize_t i = 0; i < n; i++)
            o[i] = d;
    }
done:
    Py_DECREF(a);
    return rc;
}
