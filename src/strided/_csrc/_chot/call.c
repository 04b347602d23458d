/* strided._csrc._chot, call.c: the pieces of one elementwise call.
 *
 * In front of: strided/_api/elementwise.py's impls (``_nat``, the kernel call, ``_wrap_result``):
 * a small CPU operand's native view (built by ``_nat`` when not cached), the kernel called
 * under NumPy's "ignore" error state, its result wrapped as a fresh Array, and a registry
 * entry's kernel for a device. The small readers every entry point uses (dtype_index,
 * nbytes_of, small_native, ...) are inline in chot.h.
 */
#include "chot.h"

/* --- the pieces of one call --------------------------------------------------- */

/* The readers below re-check what they read (NULL, types) although the entry point has
   run contract_array: Python code that runs inside an entry point (a dict's __missing__,
   a kernel that releases the GIL to another thread) may have changed a slot since. */

/* A CPU array small enough for this path: its native view (new reference), else NULL
   with no error set (declined), or NULL with an error that must propagate (building the
   native ran Python code: a KeyboardInterrupt, a MemoryError). small_native: the same
   for an extension-free array only. */
PyObject *
small_native_any(PyObject *x, Py_ssize_t limit)
{
    Py_ssize_t n = nbytes_of(x);
    if (n < 0 || n >= limit)
        return NULL;
    PyObject *a = SLOT(x, O_np);
    if (a == NULL)
        return NULL;
    if (a == Py_None) {
        a = native_build(x); /* (in C; else in Python, where it raises its own errors) */
        if (a == NULL && !PyErr_Occurred())
            a = PyObject_CallOneArg(nat_fn, x);
        if (a == NULL)
            return contract_decline();
    }
    else
        Py_INCREF(a);
    if (Py_TYPE(a) != ND_T) {
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

/* Call kernel(args) under NumPy's "ignore" error state; NULL with no error set when
   it failed (the Python path then runs and raises its own error), NULL with an error
   set for one that must propagate (contract_clear).
   The cheap way in is entering a prepared Context that holds just that state (a
   kernel reads no other context variable); a Context is entered by one thread at a
   time, so while another thread has it (NumPy releases the GIL in its loops) this
   call sets and resets the variable in its own context instead (~140 ns more). */
PyObject *
run_kernel(PyObject *kernel, PyObject *const *args, Py_ssize_t n)
{
    PyObject *r;
    if (PyContext_Enter(ignore_ctx) == 0) {
        r = PyObject_Vectorcall(kernel, args, n, NULL);
        if (PyContext_Exit(ignore_ctx) < 0) {
            Py_XDECREF(r);
            return NULL; /* an error we must not swallow */
        }
    }
    else {
        /* (entered by another thread: the RuntimeError Python raises for that) */
        if (!contract_clear(PyExc_RuntimeError))
            return NULL;
        PyObject *tok = PyContextVar_Set(errstate_var, errstate_ignore);
        if (tok == NULL)
            return NULL; /* (out of memory: propagates) */
        r = PyObject_Vectorcall(kernel, args, n, NULL);
        if (PyContextVar_Reset(errstate_var, tok) < 0) {
            Py_DECREF(tok);
            Py_XDECREF(r);
            return NULL; /* an error we must not swallow */
        }
        Py_DECREF(tok);
    }
    if (r == NULL)
        return contract_decline(); /* (KeyboardInterrupt, MemoryError: propagate, error set) */
    return r;
}

/* A fresh Array with these fields (every reference stolen, _ext None), as
   ``object.__new__(Array)`` and eight slot stores build it; NULL with an error set
   (the references released) when the allocation fails. */
PyObject *
array_new(PyObject *np, PyObject *st, PyObject *off, PyObject *shape, PyObject *str,
          PyObject *dtype, PyObject *dev)
{
    PyObject *o = Array_T->tp_alloc(Array_T, 0);
    if (o == NULL) {
        Py_DECREF(np);
        Py_DECREF(st);
        Py_DECREF(off);
        Py_DECREF(shape);
        Py_DECREF(str);
        Py_DECREF(dtype);
        Py_DECREF(dev);
        return NULL;
    }
    SLOT(o, O_np) = np;
    SLOT(o, O_st) = st;
    SLOT(o, O_off) = off;
    SLOT(o, O_shape) = shape;
    SLOT(o, O_str) = str;
    SLOT(o, O_dtype) = dtype;
    SLOT(o, O_device) = dev;
    SLOT(o, O_ext) = Py_NewRef(Py_None);
    return o;
}

/* The Array wrapping a fresh kernel result r (stolen), or NULL with no error set when
   r is not a plain result of dtype res (0-d NumPy scalars, other dtypes: the Python
   path wraps those); NULL with an error set: out of memory. */
PyObject *
wrap(PyObject *r, PyObject *res, PyObject *dev)
{
    if (Py_TYPE(r) != ND_T)
        goto decline;
    PyObject *rd = PyObject_GetAttr(r, s_dtype);
    if (rd == NULL)
        goto fail;
    Py_DECREF(rd);
    if (rd != SLOT(res, D_np))
        goto decline;
    PyObject *shape = PyObject_GetAttr(r, s_shape);
    if (shape == NULL)
        goto fail;
    if (!PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) == 0) {
        Py_DECREF(shape);
        goto decline;
    }
    return array_new(r, Py_NewRef(Py_None), Py_NewRef(zero), shape, Py_NewRef(Py_None),
                     Py_NewRef(res), Py_NewRef(dev));
fail:
    (void)contract_clear(PyExc_Exception); /* (a MemoryError propagates) */
decline:
    Py_DECREF(r);
    return NULL;
}

/* A registry entry (result dtype, cast, kernels) without a cast (contract_entry): the
   kernel for dev and the result dtype, both new references (the kernel call may run
   Python code that changes the tables or the operands), or NULL with no error set
   (declined), or NULL with an error that must propagate. */
PyObject *
entry_kernel(PyObject *ent, PyObject *dev, PyObject **res)
{
    PyObject *kc;
    if (!contract_entry(ent, res, &kc))
        return NULL;
    PyObject *k = PyDict_GetItemWithError(kc, dev);
    if (k == NULL) {
        /* not resolved yet: kc[dev] resolves and keeps it (the dict subclass's __missing__) */
        if (!contract_clear(PyExc_Exception))
            return NULL;
        Py_INCREF(ent); /* __missing__ is Python code */
        k = PyObject_GetItem(kc, dev);
        Py_DECREF(ent);
        if (k == NULL)
            return contract_decline();
        if (!contract_entry(ent, res, &kc)) {
            Py_DECREF(k);
            return NULL;
        }
    }
    else
        Py_INCREF(k);
    Py_INCREF(*res);
    return k;
}
