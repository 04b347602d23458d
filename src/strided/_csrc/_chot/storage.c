/* strided._csrc._chot, storage.c: a lazy kernel result's Storage, built in C.
 *
 * In front of: Array._materialize (strided/_core/array.py), its first case: a result whose
 * native (an exact numpy.ndarray, the host's) is C-contiguous becomes (Storage over
 * native.reshape(-1), offset 0, the row-major strides of native.shape) -- the same steps:
 * reshape called as Python calls it, the Storage's slots set as Storage.__init__ sets them
 * (storage.py: _data, dtype, device, _version 0, _family None, the _ALLOCATED count), the
 * strides as layout.contiguous_strides makes them (a length-0 or 1 axis counted as 1), and
 * the Array's _np, _off, _str, _st published in the Python order. Everything else (another
 * order, a device array, a subclass) is the Python method. A view or a write of a fresh
 * result (``(a + b).T``, ``(a @ b)[0]``) paid ~2.2 us for the Python method.
 */
#include "chot.h"

static PyObject *allocated; /* storage._ALLOCATED (a list; item 0 counts Storages) */

/* materialize_setup(allocated): the list Storage.__init__ counts in; True. */
PyObject *
materialize_setup(PyObject *mod, PyObject *arg)
{
    if (!PyList_CheckExact(arg) || PyList_GET_SIZE(arg) != 1 || !PyLong_CheckExact(PyList_GET_ITEM(arg, 0))) {
        PyErr_SetString(PyExc_TypeError, "materialize_setup(allocated): storage._ALLOCATED, a list of one int");
        return NULL;
    }
    Py_XSETREF(allocated, Py_NewRef(arg));
    Py_RETURN_TRUE;
}

/* 1: x has its Storage (built here, or already); 0: declined, x unchanged (the Python
   method runs); -1: an error (out of memory, or reshape's). */
int
materialize(PyObject *x)
{
    if (allocated == NULL || !contract_array(x))
        return 0;
    if (SLOT(x, O_st) != Py_None)
        return 1;
    PyObject *r = SLOT(x, O_np);
    if (!Py_IS_TYPE(r, ND_T) || !(ND(r)->flags & ND_C_CONTIGUOUS) || ND(r)->nd > MAXDIMS
        || !PyLong_CheckExact(PyList_GET_ITEM(allocated, 0)))
        return 0;
    int nd = ND(r)->nd;
    Py_INCREF(r); /* (held: reshape is a call) */
    PyObject *m1 = PyLong_FromLong(-1), *flat = NULL, *strides = NULL, *st = NULL, *zero = NULL, *count = NULL;
    if (m1 == NULL || (flat = PyObject_CallMethodOneArg(r, s_reshape, m1)) == NULL
        || (strides = PyTuple_New(nd)) == NULL)
        goto fail;
    Py_ssize_t acc = 1;
    for (int i = nd - 1; i >= 0; i--) {
        PyObject *v = PyLong_FromSsize_t(acc);
        if (v == NULL)
            goto fail;
        PyTuple_SET_ITEM(strides, i, v);
        Py_ssize_t n = ND(r)->dimensions[i];
        acc *= n > 1 ? n : 1; /* (no overflow: the array's own size) */
    }
    Py_ssize_t c = PyLong_AsSsize_t(PyList_GET_ITEM(allocated, 0));
    if ((c == -1 && PyErr_Occurred()) || (zero = PyLong_FromLong(0)) == NULL
        || (count = PyLong_FromSsize_t(c + 1)) == NULL || (st = Storage_T->tp_alloc(Storage_T, 0)) == NULL)
        goto fail;
    SLOT(st, S_data) = flat; /* (references moved in) */
    SLOT(st, S_dtype) = Py_NewRef(SLOT(x, O_dtype));
    SLOT(st, S_device) = Py_NewRef(SLOT(x, O_device));
    SLOT(st, S_version) = Py_NewRef(zero);
    SLOT(st, S_family) = Py_NewRef(Py_None);
    flat = NULL;
    if (PyList_SetItem(allocated, 0, count) < 0) { /* (steals count) */
        count = NULL;
        goto fail;
    }
    count = NULL;
    if (SLOT(x, O_st) == Py_None) { /* (still: nothing above ran Python code on x) */
        Py_SETREF(SLOT(x, O_np), Py_NewRef(r));
        Py_SETREF(SLOT(x, O_off), Py_NewRef(zero));
        Py_XSETREF(SLOT(x, O_str), Py_NewRef(strides));
        Py_SETREF(SLOT(x, O_st), Py_NewRef(st));
    }
    Py_DECREF(st);
    Py_DECREF(zero);
    Py_DECREF(strides);
    Py_DECREF(m1);
    Py_DECREF(r);
    return 1;
fail:
    Py_XDECREF(m1);
    Py_XDECREF(flat);
    Py_XDECREF(strides);
    Py_XDECREF(st);
    Py_XDECREF(zero);
    Py_XDECREF(count);
    Py_DECREF(r);
    return -1;
}

/* materialize(x) -> bool: the C-contiguous case of Array._materialize (see above). */
PyObject *
materialize_py(PyObject *mod, PyObject *x)
{
    int m = materialize(x);
    if (m < 0)
        return NULL;
    return PyBool_FromLong(m);
}
