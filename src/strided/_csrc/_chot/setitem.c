/* strided._csrc._chot, setitem.c: ``x[slice] = a Python real scalar``.
 *
 * In front of: Array.__setitem__ (strided/_core/array.py) for that one case: the write
 * through the cached native view, then the Storage's version counter bumped, as the
 * Python path does.
 */
#include "chot.h"

/* --- x[slice] = a Python real scalar ------------------------------------------------- */

/* Array.__setitem__'s hot path: a Python bool, int or float written into a slice of a
   floating array (dts: float16, float32, float64) on the CPU through its cached native
   view (no stride 0: no element written twice), the floating-point status flags kept,
   then its Storage's version bumped. A value that overflows the dtype is left to the
   Python path (NumPy reports that overflow through its error state: ignored there).
   1: done; 0: declined, nothing written (the Python path runs and raises what it
   raises); -1: an error that must propagate. */
static int
view_setitem_in(PyObject *dts, PyObject *x, PyObject *key, PyObject *value)
{
    PyTypeObject *tv = Py_TYPE(value);
    if (!ready || Py_TYPE(key) != &PySlice_Type
        || (tv != &PyFloat_Type && tv != &PyLong_Type && tv != &PyBool_Type))
        return 0;
    PyObject *p = SLOT(x, O_np), *st = SLOT(x, O_st), *str = SLOT(x, O_str), *dt = SLOT(x, O_dtype);
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
    Py_INCREF(p);
    Py_INCREF(st);
    int rc = PyObject_SetItem(p, key, value);
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
