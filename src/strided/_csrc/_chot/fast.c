/* strided._csrc._chot, fast.c: the ``Fast`` object, a fast case in front of a Python function.
 *
 * In front of: the operators and namespace functions of strided/_api/elementwise.py
 * (K_UNARY, K_BINARY), ``_dispatch.api``'s wrapper (K_API) and ``_dispatch.quiet``
 * (K_QUIET), matmul (strided/_api/linalg_functions.py), where (strided/_api/searching.py)
 * and astype (strided/_api/views.py). Also the quiet state every Python definition behind
 * a Fast runs under (quiet_enter, quiet_exit).
 */
#include "chot.h"

/* --- the object: a fast case in front of a Python function ---------------------- */

/* From how many bytes a temporary operand is elided before the fast case runs (issue 38;
   float32 ``a * b + c``, one thread, interleaved minima of 31 batches on a shared 2-core
   EPYC; elision first vs a pooled result in C): 256 KiB 32.0 vs 29.1 us, 400 KB 49.4 vs
   44.2, 1.2 MB 113.1 vs 112.3, 2 MB 232.7 vs 273.1 (NumPy, which elides: 28.8, 40.6,
   96.4, 229.4). Beyond the caches, writing into the temporary saves a cold buffer's
   traffic; within them the elision's Python half costs more than it saves. */
#define ELIDE_FIRST_FROM ((Py_ssize_t)1 << 20)

/* the positional arguments of each kind's fast case (-1: none) */
static const Py_ssize_t NARGS[] = {-1, 1, 2, 2, 3, -1, 2, -1, 4, -1, -1};

/* The Loop of dtype index i (unary), dtype pair (i, j) (binary, side 0), or dtype i with a
   Python scalar of column j on side 1 (first) or 2 (second); NULL outside the table. */
static inline Loop *
loop_slot(Fast *f, Py_ssize_t i, Py_ssize_t j, int side)
{
    Py_ssize_t n = f->ndt, k;
    if (f->loops == NULL || i < 0 || i >= n || j < 0 || j >= (side ? 4 : n))
        return NULL;
    if (f->kind == K_UNARY)
        k = i;
    else
        k = side ? n * n + ((side - 1) * n + i) * 4 + j : i * n + j;
    return &f->loops[k];
}

/* The call of a row entry ent on dev with the operands xs (kernel order, n of them:
   Arrays and a Python scalar), through its Loop slot (or NULL): NumPy's loop directly
   where it qualifies, else the kernel, under NumPy's "ignore" error state, on the
   natives; the result Array, or NULL (no error set: declined; an error: raised).
   With into (a native to write into), the loop only: into_dt NULL, into is one
   operand's own native (the elided call, a += b); else into is out='s native, checked by
   fast_out, and the result's DType must be into_dt (out's). */
static PyObject *
ew_call(Loop *slot, PyObject *ent, PyObject *dev, PyObject *const *xs, int n, int named, PyObject *into,
        PyObject *into_dt, int target)
{
    PyObject *nat[2] = {NULL, NULL}, *k, *res, *cap = NULL, *r = NULL;
    Loop L;
    Py_INCREF(dev); /* (held across the Python code below, as the kernel, result dtype and loop) */
    Loop *s = loop_for(slot, ent, dev, xs, n);
    if (s == NULL && PyErr_Occurred()) {
        Py_DECREF(dev);
        return NULL;
    }
    if (s != NULL) {
        L = *s;
        k = Py_NewRef(L.kernel);
        res = Py_NewRef(L.res);
        cap = Py_XNewRef(L.cap); /* (it owns the loop and its descriptors) */
    }
    else if (into != NULL || (k = entry_kernel(ent, dev, &res)) == NULL) {
        Py_DECREF(dev);
        return NULL; /* (an elided call: only a loop writes into the temporary) */
    }
    /* Operands of any size where NumPy's loop runs (the result's bytes decide: loops.c,
       "large results"); the kernel call only on operands under the pool threshold (the
       Python path pools a large result, and splits it over threads). */
    Py_ssize_t limit = small_limit(), in_limit = cap != NULL ? PY_SSIZE_T_MAX : limit;
    for (int j = 0; j < n; j++)
        if ((nat[j] = Py_TYPE(xs[j]) != Array_T ? Py_NewRef(xs[j])
                      : (named ? small_native_any : small_native)(xs[j], in_limit)) == NULL)
            goto done;
    if (into != NULL
        && (cap == NULL
            || (into_dt == NULL ? nat[0] != into && (n < 2 || nat[1] != into) : res != into_dt)))
        goto done;
    if (cap != NULL) {
        /* (a target's write: one ufunc call into its memory on the Python path at every
           size, nothing pooled or split: no size bound) */
        r = loop_call(&L, xs, nat, n, target ? PY_SSIZE_T_MAX : c_result_limit(L.split), res, dev, into, target);
        if (r != NULL || PyErr_Occurred() || into != NULL)
            goto done;
        for (int j = 0; j < n; j++)
            if (Py_TYPE(xs[j]) == Array_T && ND(nat[j])->nd > 0) {
                Py_ssize_t nb = nbytes_of(xs[j]);
                if (nb < 0 || nb >= limit)
                    goto done; /* declined: the Python path */
            }
    }
    r = run_kernel(k, nat, n);
    if (r != NULL)
        r = wrap(r, res, dev);
done:
    Py_XDECREF(nat[0]);
    Py_XDECREF(nat[1]);
    Py_XDECREF(cap);
    Py_DECREF(k);
    Py_DECREF(res);
    Py_DECREF(dev);
    return r;
}

PyObject *
fast_unary(Fast *f, PyObject *x, int named)
{
    if (Py_TYPE(x) != Array_T)
        return NULL;
    Py_ssize_t i = dtype_index(SLOT(x, O_dtype));
    return ew_call(loop_slot(f, i, 0, 0), list_at(f->table, i), SLOT(x, O_device), &x, 1, named, NULL, NULL, 0);
}

static PyObject *binary_call(Fast *f, PyObject *x1, PyObject *x2, int named, PyObject *into,
                             PyObject *into_dt, int target);

PyObject *
fast_binary(Fast *f, PyObject *x1, PyObject *x2, int named)
{
    return binary_call(f, x1, x2, named, NULL, NULL, 0);
}

/* pool._Block (the C block type, or pool.py's class under STRIDED_NO_CEXT=_cpool): the
   type of a pooled result's base; looked up on the first elided call. */
static PyObject *block_t;

/* The elided call in C (elide.c, try_elide, once it has proved that the interpreter's stack
   alone holds tmp, one of x1 and x2): x1 op x2 written by the Fast's loop (NumPy's, or
   strided's own) into tmp's native buffer, element by element in place, as NumPy's
   temp_elide.c lets its loops do; the result an Array over that buffer. The buffer
   qualifies as in strided/_api/elementwise.py's ``_elide`` (the Python half, which runs
   where this declines): owned by tmp's native alone (its one reference is tmp's, its
   base none -- its own memory -- or a pool block nothing else holds), C-contiguous,
   aligned, writeable, of the result's dtype and shape. NULL (no error) declines. */
PyObject *
fast_binary_into(Fast *f, PyObject *x1, PyObject *x2, PyObject *tmp)
{
    if (!ready || CALIBRATING || f->kind != K_BINARY || pool_empty == NULL)
        return NULL;
    if (block_t == NULL) {
        PyObject *m = PyImport_ImportModule("strided._core.pool");
        if (m != NULL) {
            block_t = PyObject_GetAttrString(m, "_Block");
            Py_DECREF(m);
        }
        if (block_t == NULL)
            return decline_error();
    }
    PyObject *a = SLOT(tmp, O_np);
    if (a == NULL || Py_TYPE(a) != ND_T || Py_REFCNT(a) != 1)
        return NULL;
    PyObject *base = ND(a)->base;
    if (base == NULL ? !(ND(a)->flags & ND_OWNDATA)
                     : (PyObject *)Py_TYPE(base) != block_t || Py_REFCNT(base) != 1)
        return NULL;
    return binary_call(f, x1, x2, 0, a, NULL, 0);
}

/* The bytes [*lo, *hi) the native a reaches (elements of isz bytes); empty: lo == hi. */
static void
nd_span(const NDFields *a, Py_ssize_t isz, char **lo, char **hi)
{
    char *l = a->data, *h = a->data;
    for (int d = 0; d < a->nd; d++) {
        if (a->dimensions[d] == 0) {
            *lo = *hi = a->data;
            return;
        }
        Py_ssize_t t = (a->dimensions[d] - 1) * a->strides[d];
        if (t < 0)
            l += t;
        else
            h += t;
    }
    *lo = l, *hi = h + isz;
}

/* x1 op= x2, the in-place operator (``a += b``: x1 is self), written by the Fast's loop
   into x1's own memory as the Python operator's ``into`` writes it (elementwise.py): x1's
   native C-contiguous, aligned and writeable (so it reaches no element twice), x2 an
   Array of x1's shape, or one that broadcasts to it without growing it (``X -= row``,
   a column, size-1 axes, 0-d: loop_bcast), or a Python scalar, whose memory is x1's
   exactly or none of it (NumPy's ufunc copies an operand that partly overlaps its
   output, ``x -= x[0]``; the loop would not), the loop's result dtype x1's own
   (loop_into); then x1's Storage's version counter bumped, as out_native bumps it. Any
   size: the Python operator's ``into`` is one ufunc call into x1's memory at every size
   (nothing pooled, nothing split over threads), and the loop is that call's. x1 (new
   reference); NULL with no error set declines (the Python operator runs: casts, views
   its loop cannot write, partial overlaps, shapes that do not broadcast), NULL with an
   error set raises. */
static PyObject *
fast_inplace(Fast *f, PyObject *x1, PyObject *x2)
{
    if (Py_TYPE(x1) != Array_T)
        return NULL;
    Py_ssize_t limit = PY_SSIZE_T_MAX;
    /* (x1's extension: none, or one unrecorded_target accepted) */
    PyObject *a = small_native_any(x1, limit), *b = NULL;
    if (a == NULL)
        return NULL;
    NDFields *A = ND(a);
    int ok = (A->flags & (ND_C_CONTIGUOUS | ND_ALIGNED | ND_WRITEABLE))
             == (ND_C_CONTIGUOUS | ND_ALIGNED | ND_WRITEABLE);
    if (ok && Py_TYPE(x2) == Array_T) {
        b = small_native(x2, limit);
        if (b == NULL) {
            Py_DECREF(a);
            return NULL;
        }
        if (b != a) {
            char *alo, *ahi, *blo, *bhi;
            Py_ssize_t ia = PyLong_AsSsize_t(SLOT(SLOT(x1, O_dtype), D_itemsize)),
                       ib = PyLong_AsSsize_t(SLOT(SLOT(x2, O_dtype), D_itemsize));
            if (ia <= 0 || ib <= 0) {
                PyErr_Clear();
                ok = 0;
            }
            else {
                nd_span(A, ia, &alo, &ahi);
                nd_span(ND(b), ib, &blo, &bhi);
                ok = alo == ahi || blo == bhi || bhi <= alo || ahi <= blo;
            }
        }
        Py_DECREF(b);
    }
    PyObject *r = ok ? binary_call(f, x1, x2, 1, a, NULL, 1) : NULL; /* (1: x1's extension unread) */
    Py_DECREF(a);
    if (r == NULL)
        return NULL;
    Py_DECREF(r); /* (the loop's Array over x1's native: x1 is the result) */
    PyObject *st = SLOT(x1, O_st);
    if (st != Py_None && bump(st) < 0)
        return NULL;
    return Py_NewRef(x1);
}

/* The grad mode's state (autograd/_mode.py's STATE, a threading.local: ``STATE.enabled``),
   told by setup_grad_state when autograd installs itself; NULL before. */
PyObject *grad_state;
static PyObject *s_enabled;

/* An in-place operator's target x1 that carries autograd's extension and no names, under
   no_grad() (``p -= lr * p.grad`` of an optimizer step): the Python operator's own
   no_grad() path (elementwise.py, iop) writes it as it writes an extension-free target
   (``into``: the write stage's autograd check returns at once when recording is off) once
   it has a Storage (a lazy target with an extension gets one first there: not here). 1 yes,
   0 no, -1 an error. */
static int
unrecorded_target(PyObject *x1)
{
    if (grad_state == NULL || Py_TYPE(x1) != Array_T || SLOT(x1, O_st) == NULL || SLOT(x1, O_st) == Py_None)
        return 0;
    PyObject *e = SLOT(x1, O_ext);
    if (e == NULL || !contract_ext(e) || SLOT(e, E_names) != Py_None)
        return 0;
    PyObject *en = PyObject_GetAttr(grad_state, s_enabled);
    if (en == NULL)
        return -1;
    int off = en == Py_False;
    Py_DECREF(en);
    return off;
}

/* setup_grad_state(STATE, Ext): the grad mode's state, and the Ext class whose slots are
   read (contract.h: set up here as setup_named sets it up, the same class). */
PyObject *
setup_grad_state(PyObject *mod, PyObject *args)
{
    PyObject *state, *ext;
    if (!PyArg_ParseTuple(args, "OO!:setup_grad_state", &state, &PyType_Type, &ext))
        return NULL;
    if ((s_enabled == NULL && (s_enabled = PyUnicode_InternFromString("enabled")) == NULL)
        || ext_class_setup(ext, "setup_grad_state") < 0)
        return NULL;
    Py_XSETREF(grad_state, Py_NewRef(state));
    Py_RETURN_NONE;
}

/* From how many result bytes fast_out declines a unary row (elementwise.py's _INTO_LOOP_FROM:
   from there the Python out= door of a unary row runs the loop exp(x) runs, strided's own and
   split on threads; below it, NumPy's ufunc into out's memory, which is the loop called here).
   A binary row's Python door (elementwise.py, ``into``) is one ufunc call into out's memory at
   every size, the loop called here: no bound (real9: 1e3-1e7 float64 measured). */
#define OUT_DOOR_BELOW ((Py_ssize_t)16384)

/* Whether a loop writing the native o (C-contiguous, elements of io bytes) may read the
   native b (elements of ib bytes) as it goes: b is o (the same object, or the same bytes,
   dimensions and strides: each element read before it is written, as NumPy's own
   in-place loops do), or b reaches none of o's bytes. A partial overlap: 0 (NumPy's ufunc
   copies such an operand first; the loop would not). */
static int
reads_safely(PyObject *o, Py_ssize_t io, PyObject *b, Py_ssize_t ib)
{
    if (b == o)
        return 1;
    NDFields *O = ND(o), *B = ND(b);
    char *olo, *ohi, *blo, *bhi;
    nd_span(O, io, &olo, &ohi);
    nd_span(B, ib, &blo, &bhi);
    if (olo == ohi || blo == bhi || bhi <= olo || ohi <= blo)
        return 1;
    if (io != ib || O->data != B->data || O->nd != B->nd)
        return 0;
    for (int d = 0; d < O->nd; d++)
        if (O->dimensions[d] != B->dimensions[d] || (O->dimensions[d] > 1 && O->strides[d] != B->strides[d]))
            return 0;
    return 1;
}

/* f(xs..., out=out) (a namespace function's out=, n operands in the row's order) and the
   unary in-place methods (``x.exp_()``: out is x), written by the Fast's loop into out's
   own memory as the Python door writes it (elementwise.py, ``into`` and the unary
   ``func``: one ufunc call with out=): every operand and out without an extension (no
   names, no autograd) on one device; out's native C-contiguous, aligned and writeable
   (so it has no element twice), under OUT_DOOR_BELOW bytes for a unary row (but one whose loop
   has a guard); each Array operand of out's
   shape or 0-d (loop_into checks) whose memory is out's exactly or none of it
   (reads_safely); the loop's result DType out's own and no cast (ew_call). Then out's
   Storage's version counter is bumped, as out_native bumps it. out (new reference);
   NULL with no error set declines (the Python function runs, with its checks and
   errors), NULL with an error set raises. */
static PyObject *
fast_out(Fast *f, PyObject *const *xs, int n, PyObject *out)
{
    if (!contract_array(out) || SLOT(out, O_ext) != Py_None)
        return NULL;
    for (int j = 0; j < n; j++)
        if (!plain(xs[j]) || (Py_TYPE(xs[j]) == Array_T && SLOT(xs[j], O_device) != SLOT(out, O_device)))
            return NULL;
    PyObject *odt = SLOT(out, O_dtype);
    Py_ssize_t nb = nbytes_of(out), bound = n == 1 ? OUT_DOOR_BELOW : PY_SSIZE_T_MAX;
    if (n == 1 && nb >= bound && Py_TYPE(xs[0]) == Array_T) {
        /* (a guarded loop's row has no loop of its own on the Python door, whose kernel
           computes and then copies: no bound; loops.c, guard_ok) */
        Py_ssize_t i = dtype_index(SLOT(xs[0], O_dtype));
        Loop *s = loop_for(loop_slot(f, i, 0, 0), list_at(f->table, i), SLOT(xs[0], O_device), xs, 1);
        if (s != NULL && s->cap != NULL && s->guard != G_NONE)
            bound = PY_SSIZE_T_MAX;
        else if (PyErr_Occurred())
            return NULL;
    }
    if (nb < 0 || nb >= bound || odt == NULL || !contract_dtype(odt))
        return NULL;
    PyObject *o = small_native(out, bound), *r = NULL;
    if (o == NULL)
        return NULL;
    Py_INCREF(out);
    Py_INCREF(odt);
    Py_ssize_t io = PyLong_AsSsize_t(SLOT(odt, D_itemsize));
    int ok = io > 0 && (ND(o)->flags & (ND_C_CONTIGUOUS | ND_ALIGNED | ND_WRITEABLE))
                           == (ND_C_CONTIGUOUS | ND_ALIGNED | ND_WRITEABLE);
    for (int j = 0; ok && j < n; j++) {
        if (Py_TYPE(xs[j]) != Array_T)
            continue;
        PyObject *b = small_native(xs[j], PY_SSIZE_T_MAX), *bdt = SLOT(xs[j], O_dtype);
        if (b == NULL) {
            ok = 0;
            break;
        }
        Py_ssize_t ib = bdt != NULL && contract_dtype(bdt) ? PyLong_AsSsize_t(SLOT(bdt, D_itemsize)) : -1;
        ok = ib > 0 && reads_safely(o, io, b, ib);
        Py_DECREF(b);
    }
    if (PyErr_Occurred() && !contract_clear(PyExc_OverflowError))
        goto done;
    if (!ok)
        goto done;
    if (n == 1) {
        PyObject *x = xs[0];
        if (Py_TYPE(x) != Array_T)
            goto done;
        Py_ssize_t i = dtype_index(SLOT(x, O_dtype));
        r = ew_call(loop_slot(f, i, 0, 0), list_at(f->table, i), SLOT(x, O_device), xs, 1, 0, o, odt, 1);
    }
    else
        r = binary_call(f, xs[0], xs[1], 0, o, odt, 1);
    if (r == NULL)
        goto done;
    Py_DECREF(r); /* (the loop's Array over out's native: out is the result) */
    r = NULL;
    PyObject *st = SLOT(out, O_st);
    if (st != NULL && st != Py_None && bump(st) < 0)
        goto done;
    r = Py_NewRef(out);
done:
    Py_DECREF(o);
    Py_DECREF(odt);
    Py_DECREF(out);
    return r;
}

static PyObject *
binary_call(Fast *f, PyObject *x1, PyObject *x2, int named, PyObject *into, PyObject *into_dt, int target)
{
    PyObject *ent, *dev;
    Loop *slot;
    int n1 = Py_TYPE(x1) == Array_T, n2 = Py_TYPE(x2) == Array_T;
    if (n1) {
        dev = SLOT(x1, O_device);
        Py_ssize_t i = dtype_index(SLOT(x1, O_dtype));
        if (n2) {
            if (SLOT(x2, O_device) != dev)
                return NULL;
            Py_ssize_t j = dtype_index(SLOT(x2, O_dtype));
            ent = list_at(list_at(f->table, i), j);
            slot = loop_slot(f, i, j, 0);
        }
        else {
            Py_ssize_t c = scalar_column(x2);
            if (c < 0)
                return NULL;
            ent = list_at(list_at(f->stable, i), c);
            slot = loop_slot(f, i, c, 2);
        }
    }
    else if (n2) {
        dev = SLOT(x2, O_device);
        Py_ssize_t i = dtype_index(SLOT(x2, O_dtype)), c = scalar_column(x1);
        if (c < 0)
            return NULL;
        ent = list_at(list_at(f->stable, i), c);
        slot = loop_slot(f, i, c, 1);
    }
    else
        return NULL;
    PyObject *xs[2] = {x1, x2};
    return ew_call(slot, ent, dev, xs, 2, named, into, into_dt, target);
}

/* The Python definitions behind every Fast run NumPy's kernels too: they run under
   the same "ignore" error state (set for the outermost call; a nested call finds it
   set), so a user's warnings filter of "error" meets no RuntimeWarning from
   strided's own arithmetic on either path (strided/_dispatch.quiet, the fallback's
   twin). quiet_enter gives the token to reset with (Py_None: nothing to reset),
   NULL on error; quiet_exit resets it and passes r on (NULL on a reset error). */
PyObject *
quiet_enter(void)
{
    if (!ready)
        return Py_NewRef(Py_None);
    PyObject *cur;
    if (PyContextVar_Get(errstate_var, NULL, &cur) < 0)
        return NULL;
    int set = cur == errstate_ignore;
    Py_XDECREF(cur);
    return set ? Py_NewRef(Py_None) : PyContextVar_Set(errstate_var, errstate_ignore);
}

PyObject *
quiet_exit(PyObject *tok, PyObject *r)
{
    if (tok != Py_None) {
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb); /* the call's own error, kept across the reset */
        if (PyContextVar_Reset(errstate_var, tok) < 0) {
            Py_CLEAR(r);
            Py_XDECREF(et), Py_XDECREF(ev), Py_XDECREF(tb);
        }
        else
            PyErr_Restore(et, ev, tb);
    }
    Py_DECREF(tok);
    return r;
}

/* fn(*args, **kwnames) under quiet_enter/quiet_exit. */
PyObject *
call_quiet(PyObject *fn, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PyObject *tok = quiet_enter();
    if (tok == NULL)
        return NULL;
    return quiet_exit(tok, PyObject_Vectorcall(fn, args, nargsf, kwnames));
}

/* Whether an Array carries an extension (``a._ext is not None``): 1, 0, or -1 with the
   error the Python wrapper's ``a._ext`` raises for a deleted or unset slot. */
static inline int
ext_of(PyObject *a)
{
    PyObject *e = SLOT(a, O_ext);
    if (e == NULL) {
        e = PyObject_GetAttr(a, s_ext); /* raises the AttributeError Python raises */
        if (e == NULL)
            return -1;
        Py_DECREF(e); /* (set since: a class attribute, or another thread) */
        return e != Py_None;
    }
    return e != Py_None;
}

/* _dispatch.api's has_ext for one positional argument: an Array, or a tuple or list of
   them (the wrapper's order and errors). */
static inline int
has_ext(PyObject *a)
{
    PyTypeObject *t = Py_TYPE(a);
    if (t == Array_T)
        return ext_of(a);
    if (t == &PyTuple_Type || t == &PyList_Type) {
        /* (a list may change size under us: index it afresh each time) */
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(a); i++) {
            PyObject *b = PySequence_Fast_GET_ITEM(a, i);
            if (Py_TYPE(b) == Array_T) {
                Py_INCREF(b);
                int e = ext_of(b);
                Py_DECREF(b);
                if (e != 0)
                    return e;
            }
        }
    }
    return 0;
}

/* _dispatch.api's wrapper: hook(name, fn, args, kwargs) when an argument (or an
   array in a tuple/list argument, or a keyword argument) carries an extension. */
/* Whether a call needs no binding: Binder.bind would return it as it came (Binder.passkw):
   n positional arguments, at most npos of them (npos < 0: any number), and keywords (a
   tuple of names, a dict, or NULL: none) each one of passkw (a frozenset; NULL: no keyword
   passes). 1, 0, or -1 with an error. The api entry's test (its Fast's direct, npos and
   passkw) and the chain head's (the name's binder's). */
static int
unbound(PyObject *passkw, Py_ssize_t npos, Py_ssize_t n, PyObject *keys)
{
    if (npos >= 0 && n > npos)
        return 0;
    if (keys == NULL)
        return 1;
    if (PyTuple_Check(keys)) {
        int pass = passkw != NULL || PyTuple_GET_SIZE(keys) == 0;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(keys) && pass > 0; i++)
            pass = PySet_Contains(passkw, PyTuple_GET_ITEM(keys, i));
        return pass;
    }
    if (!PyDict_Check(keys))
        return 0;
    int pass = passkw != NULL || PyDict_GET_SIZE(keys) == 0;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (pass > 0 && PyDict_Next(keys, &pos, &k, &v))
        pass = PySet_Contains(passkw, k);
    return pass;
}

static PyObject *
api_call(Fast *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PyObject *hook = PyList_CheckExact(f->hook) && PyList_GET_SIZE(f->hook) ? PyList_GET_ITEM(f->hook, 0)
                                                                            : Py_None;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nk = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    /* the binding stage's test in C: a call with at most npos positional arguments and no
       keyword that binding renames, converts or refuses (Binder.bind returns it as it is)
       calls the definition itself, without the binder's Python frame; any other call goes
       through it (fallback) */
    PyObject *fn = f->fallback;
    if (f->direct != NULL && n >= 1) {
        int pass = unbound(f->passkw, f->npos, n, nk ? kwnames : NULL);
        if (pass < 0)
            return NULL;
        if (pass)
            fn = f->direct;
    }
    if (hook == Py_None)
        return call_quiet(fn, args, nargsf, kwnames);
    /* (held: the checks and the named case below may run Python code that uninstalls it;
       the Python wrapper keeps the hook it read first, too) */
    Py_INCREF(hook);
    PyObject *r = NULL, *tup = NULL, *kw = NULL;
    int ext = 0;
    for (Py_ssize_t i = 0; i < n && !ext; i++)
        ext = has_ext(args[i]);
    for (Py_ssize_t i = 0; i < nk && !ext; i++)
        ext = Py_TYPE(args[n + i]) == Array_T ? ext_of(args[n + i]) : 0;
    if (ext < 0)
        goto done;
    if (ext > 0 && n >= 1) {
        CallArgs c = {args + 1, n - 1, nk, kwnames};
        r = named_call(f, args[0], &c);
        if (r != NULL || PyErr_Occurred())
            goto done;
    }
    if (!ext) {
        r = call_quiet(fn, args, nargsf, kwnames);
        goto done;
    }
    tup = PyTuple_New(n), kw = PyDict_New();
    if (tup == NULL || kw == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(tup, i, Py_NewRef(args[i]));
    for (Py_ssize_t i = 0; i < nk; i++)
        if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i), args[n + i]) < 0)
            goto done;
    PyObject *tok = quiet_enter();
    if (tok != NULL)
        r = quiet_exit(tok, PyObject_CallFunctionObjArgs(hook, f->name, f->fallback, tup, kw, NULL));
done:
    Py_XDECREF(tup);
    Py_XDECREF(kw);
    Py_DECREF(hook);
    return r;
}

/* The kernel call of matmul's and where's fast cases: kernel(natives of xs) wrapped as
   a result of dtype res on dev, each held across the call (Python code may run). */
static PyObject *
run_wrapped(PyObject *kernel, PyObject *const *xs, int n, PyObject *res, PyObject *dev)
{
    PyObject *args[3] = {NULL, NULL, NULL}, *r = NULL;
    Py_ssize_t limit = small_limit();
    Py_INCREF(kernel);
    Py_INCREF(res);
    Py_INCREF(dev);
    int i = 0;
    for (; i < n; i++)
        if ((args[i] = small_native(xs[i], limit)) == NULL)
            break;
    if (i == n) {
        r = run_kernel(kernel, args, n);
        if (r != NULL)
            r = wrap(r, res, dev);
    }
    for (i = 0; i < n; i++)
        Py_XDECREF(args[i]);
    Py_DECREF(kernel);
    Py_DECREF(res);
    Py_DECREF(dev);
    return r;
}

static PyObject *
fast_matmul(Fast *f, PyObject *x1, PyObject *x2)
{
    if (Py_TYPE(x1) != Array_T || Py_TYPE(x2) != Array_T || !contract_list2(f->table))
        return NULL;
    PyObject *dt = SLOT(x1, O_dtype), *dev = SLOT(x1, O_device);
    PyObject *s1 = SLOT(x1, O_shape), *s2 = SLOT(x2, O_shape);
    if (dt == NULL || dev == NULL || s1 == NULL || s2 == NULL || SLOT(x2, O_dtype) != dt
        || SLOT(x2, O_device) != dev || !PyTuple_CheckExact(s1) || !PyTuple_CheckExact(s2))
        return NULL;
    Py_ssize_t d1 = PyTuple_GET_SIZE(s1), d2 = PyTuple_GET_SIZE(s2);
    if (d1 < 1 || d1 > 2 || d2 < 1 || d2 > 2) /* stacks: numpy.matmul, in Python */
        return NULL;
    if (d1 == 1 && d2 == 1) /* (a 0-d result: NumPy's dot gives a scalar, which wrap declines:
                               the Python path, without computing the product twice) */
        return NULL;
    PyObject *res = list_at(PyList_GET_ITEM(f->table, 0), dtype_index(dt));
    if (res == NULL || !contract_dtype(res))
        return NULL;
    PyObject *xs[2] = {x1, x2};
    return run_wrapped(PyList_GET_ITEM(f->table, 1), xs, 2, res, dev);
}

/* The typed loops of where_direct: o[i] = c[i] ? x1[i] : x2[i], element by element as
   bytes (an unsigned integer of the element's size: NaN payloads and signed zeros are
   copied, never computed with), both values read and one kept by a mask: no branch on
   the condition (c[i] ? a[i] : b[i] branched, as numpy.where does: with a random
   condition 1e5 float32 took 426 us, ~27 without). W_CONTIG: every operand contiguous
   (the condition's step 1, the values' their itemsize), which the compiler vectorises;
   W_STRIDED: any steps (0: a 0-d operand). */
#define W_MIX(T, SA, SB)                                                                 \
    do {                                                                                 \
        const unsigned char *c = (const unsigned char *)p[0];                            \
        const T *a = (const T *)p[1], *b = (const T *)p[2];                              \
        T *out = (T *)o;                                                                 \
        for (Py_ssize_t i = 0; i < count; i++) {                                         \
            T m = (T)0 - (T)(c[i] != 0);                                                 \
            out[i] = (a[i * (SA)] & m) | (b[i * (SB)] & (T)~m);                          \
        }                                                                                \
    } while (0)
#define W_STRIDED(T)                                                                     \
    do {                                                                                 \
        const char *c = p[0], *a = p[1], *b = p[2];                                      \
        T *out = (T *)o;                                                                 \
        for (Py_ssize_t i = 0; i < count; i++, c += step[0], a += step[1], b += step[2]) { \
            T m = (T)0 - (T)(*(const unsigned char *)c != 0);                            \
            out[i] = (*(const T *)a & m) | (*(const T *)b & (T)~m);                      \
        }                                                                                \
    } while (0)
/* (a contiguous condition and each value contiguous or one value for all -- a 0-d operand,
   a broadcast one: W_MIX with constant steps, which the compiler vectorises; else any steps) */
#define W_ANY(T)                                                                         \
    do {                                                                                 \
        if (step[0] != 1 || (step[1] != 0 && step[1] != isz) || (step[2] != 0 && step[2] != isz)) \
            W_STRIDED(T);                                                                \
        else if (step[1] && step[2])                                                     \
            W_MIX(T, 1, 1);                                                              \
        else if (step[1])                                                                \
            W_MIX(T, 1, 0);                                                              \
        else if (step[2])                                                                \
            W_MIX(T, 0, 1);                                                              \
        else                                                                             \
            W_MIX(T, 0, 0);                                                              \
    } while (0)

OWN_CLONES static void
where_loop(char *o, char **p, const Py_ssize_t *step, Py_ssize_t count, Py_ssize_t isz, int aligned)
{
    /* (the element types below are only the carriers of isz bytes, aligned: where_direct
       says whether both value operands' ALIGNED flags are set; else bytes, below) */
    switch (aligned ? isz : 0) {
    case 1:
        W_ANY(uint8_t);
        return;
    case 2:
        W_ANY(uint16_t);
        return;
    case 4:
        W_ANY(uint32_t);
        return;
    case 8:
        W_ANY(uint64_t);
        return;
    }
    for (Py_ssize_t i = 0; i < count; i++, o += isz) {
        memcpy(o, *p[0] ? p[1] : p[2], (size_t)isz);
        p[0] += step[0];
        p[1] += step[1];
        p[2] += step[2];
    }
}
#undef W_MIX
#undef W_STRIDED
#undef W_ANY

/* One operand of where_direct: its first byte, dimensions and strides (a Python
   scalar: 0-d, its value in buf, converted to the result dtype as numpy.asarray does). */
typedef struct {
    char *data;
    int nd;
    const Py_ssize_t *dims, *strides;
    int flags;
    char buf[16];
} WOp;

static void
wop_native(WOp *o, PyObject *a)
{
    o->data = ND(a)->data;
    o->nd = ND(a)->nd;
    o->dims = ND(a)->dimensions;
    o->strides = ND(a)->strides;
    o->flags = ND(a)->flags;
}

/* A Python float, or an int that a double holds exactly (|v| <= 2**53: one rounding to
   float32 then, as NumPy's conversion of the int), as a 0-d operand of the float32 or
   float64 dtype dt (itemsize isz): 1, or 0 (no error set) where it is neither. */
static int
wop_scalar(WOp *o, PyObject *v, Py_ssize_t isz)
{
    double d;
    if (PyFloat_CheckExact(v))
        d = PyFloat_AS_DOUBLE(v);
    else if (PyLong_CheckExact(v)) {
        int overflow;
        long long i = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || (i == -1 && PyErr_Occurred()) || i > (1LL << 53) || i < -(1LL << 53)) {
            PyErr_Clear();
            return 0;
        }
        d = (double)i;
    }
    else
        return 0;
    if (isz == 8)
        memcpy(o->buf, &d, 8);
    else {
        float f = (float)d; /* (the FPU flags it may raise: fast_where puts them back) */
        memcpy(o->buf, &f, 4);
    }
    o->data = o->buf;
    o->nd = 0;
    o->dims = o->strides = NULL;
    o->flags = ND_C_CONTIGUOUS | ND_ALIGNED;
    return 1;
}

/* where(c, x1, x2) without numpy.where's machinery, where NumPy's answer is plain to
   restate: operands of one shape (or 0-d), each 1-D (any stride) or C-contiguous; or
   operands that broadcast (NumPy's rules), each 0-d or C-contiguous with positive
   strides. The result is C-ordered, as NumPy's is then; each element copied byte for
   byte from x1 where the condition's byte is nonzero, else from x2 (NaN payloads and
   signed zeros kept). shapes: the operands' shape tuples (NULL: a scalar's). The result
   Array, or NULL (no error set: declined; an error: out of memory). */
static PyObject *
where_direct(WOp *op, PyObject *const *shapes, PyObject *cdt, PyObject *dt, PyObject *dev, Py_ssize_t limit)
{
    if (!loops_ready || !contract_dtype(dt))
        return NULL;
    Py_ssize_t isz = PyLong_AsSsize_t(SLOT(dt, D_itemsize)), count = 1;
    if (isz <= 0 || isz > 16) {
        (void)contract_clear(PyExc_OverflowError);
        return NULL;
    }
    if (cdt == NULL || !contract_dtype(cdt))
        return NULL;
    /* the result's dimensions: NumPy's broadcasting of the three shapes */
    enum { WMAX = 32 };
    int nd = 0, same = 1;
    Py_ssize_t dims[WMAX], st[3][WMAX];
    const WOp *first = NULL;
    for (int j = 0; j < 3; j++) {
        if (op[j].nd > WMAX)
            return NULL;
        if (op[j].nd > nd)
            nd = op[j].nd;
        if (op[j].nd == 0)
            continue;
        if (first == NULL)
            first = &op[j];
        else if (op[j].nd != first->nd || memcmp(op[j].dims, first->dims, op[j].nd * sizeof(Py_ssize_t)))
            same = 0;
    }
    for (int d = 0; d < nd; d++) {
        dims[d] = 1;
        for (int j = 0; j < 3; j++) {
            int k = d - (nd - op[j].nd);
            if (k < 0 || op[j].dims[k] == 1)
                continue;
            if (dims[d] == 1)
                dims[d] = op[j].dims[k];
            else if (dims[d] != op[j].dims[k])
                return NULL; /* shapes that don't broadcast: the Python path names them */
        }
    }
    for (int d = 0; d < nd; d++)
        count *= dims[d];
    /* each operand's byte step along each of the result's dimensions (0: broadcast) */
    for (int j = 0; j < 3; j++) {
        Py_ssize_t esz = j ? isz : 1;
        int c_contig = (op[j].flags & ND_C_CONTIGUOUS) != 0;
        if (op[j].nd && !c_contig && !(same && op[j].nd == 1))
            return NULL;
        for (int d = 0; d < nd; d++) {
            int k = d - (nd - op[j].nd);
            if (k < 0 || op[j].dims[k] == 1)
                st[j][d] = 0;
            else if (!c_contig) /* (one dimension, one shape for all: any stride) */
                st[j][d] = op[j].strides[k];
            else {
                /* (C-contiguous: the product of the later dimensions; a broadcast operand's
                   must not run backwards, so that the result is C-ordered as NumPy's) */
                Py_ssize_t s = esz;
                for (int m = k + 1; m < op[j].nd; m++)
                    s *= op[j].dims[m];
                st[j][d] = s;
            }
        }
    }
    /* one shape for all: the result's is an operand's (the condition's when all are 0-d) */
    PyObject *shape = NULL;
    if (same) {
        int j = first == NULL ? 0 : (int)(first - op);
        shape = shapes[j];
        if (shape == NULL || !PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) != nd)
            return NULL;
    }
    Py_ssize_t nbytes = count * isz;
    if (nbytes >= limit)
        return NULL;
    /* (held: the pool's empty, a finalizer it sets off, or another thread while the GIL
       is released below may run Python code that replaces the operand's shape) */
    if (shape != NULL)
        Py_INCREF(shape);
    else if ((shape = ints_tuple(dims, nd)) == NULL)
        return NULL;
    PyObject *r = result_empty(shape, SLOT(dt, D_np), nbytes);
    if (r == NULL) {
        Py_DECREF(shape);
        return NULL;
    }
    if (Py_TYPE(r) != ND_T || ND(r)->descr != SLOT(dt, D_np) || !(ND(r)->flags & ND_C_CONTIGUOUS)) {
        Py_DECREF(r);
        Py_DECREF(shape);
        return NULL;
    }
    int aligned = (op[1].flags & ND_ALIGNED) && (op[2].flags & ND_ALIGNED);
    char *out = ND(r)->data;
    /* the last dimension in the loop, the others counted like an odometer */
    Py_ssize_t inner = nd ? dims[nd - 1] : 1, step[3], idx[WMAX];
    for (int j = 0; j < 3; j++)
        step[j] = nd ? st[j][nd - 1] : 0;
    if (same && nd) { /* one shape (or 0-d): the whole as one run, as before */
        inner = count;
        for (int j = 0; j < 3; j++)
            step[j] = op[j].nd == 0 ? 0 : op[j].nd == 1 ? op[j].strides[0]
                                     : (j ? isz : 1);
    }
    Py_ssize_t outer = inner ? count / inner : 0;
    int release = nbytes >= elide_bytes; /* (NumPy releases the GIL for its loops too) */
    PyThreadState *ts = release ? PyEval_SaveThread() : NULL;
    memset(idx, 0, sizeof idx);
    for (Py_ssize_t o = 0; o < outer; o++) {
        char *p[3];
        for (int j = 0; j < 3; j++) {
            p[j] = op[j].data;
            if (!(same && nd))
                for (int d = 0; d < nd - 1; d++)
                    p[j] += idx[d] * st[j][d];
        }
        where_loop(out, p, step, inner, isz, aligned);
        out += inner * isz;
        for (int d = nd - 2; d >= 0; d--) { /* the next outer index */
            if (++idx[d] < dims[d])
                break;
            idx[d] = 0;
        }
    }
    if (release)
        PyEval_RestoreThread(ts);
    return array_new(r, Py_NewRef(Py_None), Py_NewRef(zero), shape, Py_NewRef(Py_None),
                     Py_NewRef(dt), Py_NewRef(dev));
}

static PyObject *
fast_where(Fast *f, PyObject *c, PyObject *x1, PyObject *x2)
{
    if (Py_TYPE(c) != Array_T || !contract_list2(f->table))
        return NULL;
    PyObject *cdt = SLOT(c, O_dtype), *dev = SLOT(c, O_device);
    if (cdt != PyList_GET_ITEM(f->table, 0) || dev == NULL)
        return NULL;
    /* x1 and x2 arrays of one dtype; or one a Python float or int, the other a float32 or
       float64 array (the scalar takes its dtype: searching.where's second hot path) */
    int a1 = Py_TYPE(x1) == Array_T, a2 = Py_TYPE(x2) == Array_T;
    if (!a1 && !a2)
        return NULL;
    PyObject *dt = SLOT(a1 ? x1 : x2, O_dtype);
    if (dt == NULL || !contract_dtype(dt) || SLOT(a1 ? x1 : x2, O_device) != dev
        || (a1 && a2 && (SLOT(x2, O_dtype) != dt || SLOT(x2, O_device) != dev)))
        return NULL;
    Py_ssize_t isz = 0;
    if (!a1 || !a2) {
        isz = PyLong_AsSsize_t(SLOT(dt, D_itemsize));
        if (np_kind(dt) != 'f' || (isz != 4 && isz != 8)) {
            (void)contract_clear(PyExc_OverflowError);
            return NULL;
        }
    }
    PyObject *xs[3] = {c, x1, x2}, *nat[3] = {NULL, NULL, NULL}, *r = NULL;
    WOp op[3];
    Flags fl;
    int scalar = !(a1 && a2);
    if (scalar) /* (a float32 conversion may raise the FPU's overflow or inexact flag) */
        flags_save(&fl);
    Py_INCREF(dt);
    Py_INCREF(dev);
    Py_INCREF(cdt);
    /* operands of any size: the result's bytes decide (loops.c, "large results"; where is
       not split over threads); numpy.where only for small ones (run_wrapped checks) */
    for (int j = 0; j < 3; j++) {
        if (Py_TYPE(xs[j]) != Array_T) {
            if (!wop_scalar(&op[j], xs[j], isz))
                goto done;
            continue;
        }
        if ((nat[j] = small_native(xs[j], PY_SSIZE_T_MAX)) == NULL)
            goto done;
        wop_native(&op[j], nat[j]);
        if (ND(nat[j])->descr != SLOT(j ? dt : cdt, D_np))
            goto done;
    }
    {
        PyObject *shapes[3];
        for (int j = 0; j < 3; j++)
            shapes[j] = nat[j] != NULL ? SLOT(xs[j], O_shape) : NULL;
        r = where_direct(op, shapes, cdt, dt, dev, c_result_limit(0));
    }
    if (r == NULL && !PyErr_Occurred() && !scalar)
        r = run_wrapped(PyList_GET_ITEM(f->table, 1), xs, 3, dt, dev);
done:
    if (scalar)
        flags_restore(&fl);
    for (int j = 0; j < 3; j++)
        Py_XDECREF(nat[j]);
    Py_DECREF(dt);
    Py_DECREF(dev);
    Py_DECREF(cdt);
    return r;
}

/* astype(x, dtype) into another dtype, where the Python definition is just the native's
   astype wrapped (not complex to real, which raises; not floating to integer, which
   checks the range and warns): ndarray.astype under the "ignore" error state (NumPy
   reports an overflow in the cast through it), the FPU flags kept. */
static PyObject *
fast_astype(Fast *f, PyObject *x, PyObject *dt)
{
    if (Py_TYPE(x) != Array_T || SLOT(x, O_ext) != Py_None || !contract_dtype(dt)
        || dt == SLOT(x, O_dtype) || !contract_list1(f->table))
        return NULL;
    char from = np_kind(SLOT(x, O_dtype)), to = np_kind(dt);
    if (from == 0 || to == 0 || (from == 'c' && to != 'c') || (from == 'f' && (to == 'i' || to == 'u')))
        return NULL;
    PyObject *a = small_native(x, small_limit()), *r = NULL;
    if (a == NULL)
        return NULL;
    PyObject *args[2] = {a, SLOT(dt, D_np)}, *dev = Py_NewRef(SLOT(x, O_device));
    PyObject *shape = Py_NewRef(SLOT(x, O_shape));
    Py_INCREF(dt);
    Py_INCREF(args[1]);
    Flags fl;
    flags_save(&fl);
    r = run_kernel(PyList_GET_ITEM(f->table, 0), args, 2);
    flags_restore(&fl);
    Py_DECREF(a);
    if (r != NULL && (Py_TYPE(r) != ND_T || ND(r)->descr != args[1] || !PyTuple_CheckExact(shape)
                      || ND(r)->nd != PyTuple_GET_SIZE(shape)))
        Py_CLEAR(r);
    Py_DECREF(args[1]);
    if (r == NULL) {
        Py_DECREF(dt);
        Py_DECREF(dev);
        Py_DECREF(shape);
        return NULL;
    }
    return array_new(r, Py_NewRef(Py_None), Py_NewRef(zero), shape, Py_NewRef(Py_None), dt, dev);
}

/* A DType's item size in bytes, or -1 (not a DType with a plain int item size). */
static inline Py_ssize_t
nbytes_of_item(PyObject *dt)
{
    PyObject *isz = dt != NULL && Py_IS_TYPE(dt, DType_T) ? SLOT(dt, D_itemsize) : NULL;
    if (isz == NULL || !PyLong_CheckExact(isz))
        return -1;
    Py_ssize_t n = PyLong_AsSsize_t(isz);
    if (n == -1 && PyErr_Occurred())
        (void)contract_clear(PyExc_OverflowError);
    return n;
}

/* The whole-array reductions' common end (fast_sum, fast_npreduce): kernel(args[0..n)) with
   args[at] a fresh 0-d ndarray of res's NumPy dtype, under the "ignore" error state; that
   ndarray wrapped as a 0-d Array of res on dev (as the definitions wrap their results) when
   the kernel answered -- returned it (returns_out) or True (the C kernels' "done"). NULL
   with no error set where it declined (the definition then runs), or with one that must
   propagate. */
static PyObject *
kernel_into_0d(PyObject *kernel, PyObject **args, int n, int at, PyObject *res, PyObject *dev, int returns_out)
{
    PyObject *descr = SLOT(res, D_np);
    Py_ssize_t isz = nbytes_of_item(res);
    if (descr == NULL || isz <= 0)
        return NULL;
    PyObject *empty = PyTuple_New(0), *out = NULL, *r = NULL, *w = NULL;
    if (empty == NULL)
        return NULL;
    Py_INCREF(kernel);
    Py_INCREF(descr);
    Py_INCREF(res);
    Py_INCREF(dev);
    if ((out = result_empty(empty, descr, isz)) == NULL)
        goto done;
    args[at] = out;
    r = run_kernel(kernel, (PyObject *const *)args, n);
    if ((returns_out ? r == out : r == Py_True) && Py_TYPE(out) == ND_T && ND(out)->descr == descr
        && ND(out)->nd == 0) {
        w = array_new(out, Py_NewRef(Py_None), Py_NewRef(zero), empty, Py_NewRef(Py_None), res, dev);
        out = empty = res = dev = NULL; /* (array_new took them) */
    }
done:
    Py_XDECREF(r);
    Py_XDECREF(out);
    Py_XDECREF(empty);
    Py_DECREF(kernel);
    Py_DECREF(descr);
    Py_XDECREF(res);
    Py_XDECREF(dev);
    return w == NULL && PyErr_Occurred() ? contract_decline() : w;
}

/* sum(x) of a floating array on the CPU, the namespace's hot path (statistics.py, sum) in
   C: an extension-free Array of float32 or float64 with at least one dimension and one
   element, which one thread sums (threads.one_thread_reduce: one thread, or fewer bytes than
   the split threshold): the C kernel sum_into (NumPy's pairwise sum, its bits) into a fresh
   0-d result, wrapped as the Python path wraps it. NULL with no error set for anything else
   or where the kernel declines (a layout it does not take): the Python definition, which
   makes the same call first. Issue 38: the Python path cost ~500 ns a call more than this
   (the API wrapper's error state, the frame, its tests), a quarter of a 65536-element sum. */
/* Whether x's extension leaves a whole reduction as the plain one: none, or a named array's
   record (names only, ext_names_only): the names handler reduces every axis of a named array to
   an unnamed 0-d result, the plain call's (its checks concern named axes, and there are none). */
static inline int
whole_reduction_plain(PyObject *x)
{
    PyObject *e = SLOT(x, O_ext);
    return e == Py_None || (e != NULL && ExtC_T != NULL && Py_IS_TYPE(e, ExtC_T)
                            && ext_names_only((const ExtObject *)e));
}

static PyObject *
fast_sum(Fast *f, PyObject *x)
{
    if (Py_TYPE(x) != Array_T || !contract_operand(x) || !whole_reduction_plain(x)
        || !PyList_CheckExact(f->table) || PyList_GET_SIZE(f->table) != 4)
        return NULL;
    PyObject *dt = SLOT(x, O_dtype), *dev = SLOT(x, O_device), *shape = SLOT(x, O_shape);
    if ((dt != PyList_GET_ITEM(f->table, 1) && dt != PyList_GET_ITEM(f->table, 2))
        || dev != PyList_GET_ITEM(f->table, 3) || !PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) == 0)
        return NULL;
    Py_ssize_t nbytes = nbytes_of(x), isz = nbytes_of_item(dt), tmin = contract_pool_limit(thread_min_list);
    if (nbytes <= 0 || isz <= 0
        || (contract_pool_limit(num_threads_list) != 1 && (tmin <= 0 || nbytes >= tmin)))
        return NULL;
    PyObject *a = small_native_any(x, PY_SSIZE_T_MAX);
    if (a == NULL)
        return NULL;
    PyObject *count = PyLong_FromSsize_t(nbytes / isz), *w = NULL;
    if (count != NULL) {
        PyObject *args[3] = {a, NULL, count}; /* sum_into(native, out, count) */
        w = kernel_into_0d(PyList_GET_ITEM(f->table, 0), args, 3, 1, dt, dev, 0);
        Py_DECREF(count);
    }
    Py_DECREF(a);
    return w;
}

/* K_NPRED beyond the short path's sizes: the table's 8th entry, a C kernel with sum_into's
   convention (kernel(native, out, count) -> True: _ckernels.max_into/min_into), for x of a
   DType in the 9th entry (a tuple: float32, float64) that one thread reduces (the same rule
   as fast_sum's); the 0-d result wrapped as the definition's general path wraps it (the same
   exact kernel, there on the thread pool: a max has no rounding, and the kernel declines
   where NumPy's order picks a zero's sign or a NaN's payload). NULL with no error set for
   anything else or where the kernel declines: the definition. Issue 38: max of 1e4 float32
   cost 2.27 us through the definition's general path (PyTorch's 1.93, the kernel's 0.63). */
static PyObject *
npreduce_large(PyObject *t, PyObject *x, PyObject *dt, PyObject *dev, Py_ssize_t nbytes, Py_ssize_t count)
{
    PyObject *kernel = PyList_GET_ITEM(t, 7), *kinds = PyList_GET_ITEM(t, 8);
    if (kernel == Py_None || !PyTuple_CheckExact(kinds))
        return NULL;
    int ok = 0;
    for (Py_ssize_t i = 0, k = PyTuple_GET_SIZE(kinds); i < k && !ok; i++)
        ok = PyTuple_GET_ITEM(kinds, i) == dt;
    Py_ssize_t tmin = contract_pool_limit(thread_min_list);
    if (!ok || (contract_pool_limit(num_threads_list) != 1 && (tmin <= 0 || nbytes >= tmin)))
        return NULL;
    PyObject *a = small_native_any(x, PY_SSIZE_T_MAX);
    if (a == NULL)
        return NULL;
    PyObject *n = PyLong_FromSsize_t(count), *w = NULL;
    if (n != NULL) {
        PyObject *args[3] = {a, NULL, n}; /* kernel(native, out, count) */
        w = kernel_into_0d(kernel, args, 3, 1, dt, dev, 0);
        Py_DECREF(n);
    }
    Py_DECREF(a);
    return w;
}

/* max(x), min(x), prod(x), any(x), all(x) of a small CPU array: the definitions' short path
   in C (statistics.py's _extreme and prod, utility.py's _logical): an extension-free Array of
   one of the DTypes taken, of the sizes taken, its native reduced whole by NumPy's reduction
   (the same ufunc, axis None, the same dtype argument) into a fresh 0-d result of the
   result's dtype, under the "ignore" error state, wrapped as the definitions wrap it. NULL
   with no error set for anything else (the definition then decides, and raises its errors).
   Issue 38: max of 10 elements cost 1.19 us through the definition (PyTorch's 0.96). */
static PyObject *
fast_npreduce(Fast *f, PyObject *x)
{
    PyObject *t = f->table;
    if (Py_TYPE(x) != Array_T || !contract_operand(x) || !whole_reduction_plain(x)
        || !PyList_CheckExact(t) || (PyList_GET_SIZE(t) != 7 && PyList_GET_SIZE(t) != 9))
        return NULL;
    PyObject *dt = SLOT(x, O_dtype), *dev = SLOT(x, O_device), *taken = PyList_GET_ITEM(t, 3);
    if (dev != PyList_GET_ITEM(t, 4) || !PyTuple_CheckExact(taken))
        return NULL;
    int ok = 0;
    for (Py_ssize_t i = 0, k = PyTuple_GET_SIZE(taken); i < k && !ok; i++)
        ok = PyTuple_GET_ITEM(taken, i) == dt;
    PyObject *res = PyList_GET_ITEM(t, 1) == Py_None ? dt : PyList_GET_ITEM(t, 1);
    PyObject *lo = PyList_GET_ITEM(t, 5), *hi = PyList_GET_ITEM(t, 6);
    if (!ok || !Py_IS_TYPE(res, DType_T) || !PyLong_CheckExact(lo) || !PyLong_CheckExact(hi))
        return NULL;
    Py_ssize_t nbytes = nbytes_of(x), isz = nbytes_of_item(dt), fewest = PyLong_AsSsize_t(lo),
               most = PyLong_AsSsize_t(hi);
    if (nbytes < 0 || isz <= 0 || (fewest == -1 && PyErr_Occurred()) || (most == -1 && PyErr_Occurred()))
        return contract_decline();
    Py_ssize_t count = nbytes / isz;
    if (count < fewest)
        return NULL;
    if (most >= 0 ? count > most : nbytes >= contract_pool_limit(thread_min_list))
        return PyList_GET_SIZE(t) == 9 ? npreduce_large(t, x, dt, dev, nbytes, count) : NULL;
    PyObject *darg = PyList_GET_ITEM(t, 2);
    if (darg == Py_True)
        darg = SLOT(dt, D_np);
    if (darg == NULL)
        return NULL;
    PyObject *a = small_native_any(x, PY_SSIZE_T_MAX);
    if (a == NULL)
        return NULL;
    Py_INCREF(darg);
    PyObject *args[4] = {a, Py_None, darg, NULL}; /* reduce(native, None, dtype, out) */
    PyObject *w = kernel_into_0d(PyList_GET_ITEM(t, 0), args, 4, 3, res, dev, 1);
    Py_DECREF(darg);
    Py_DECREF(a);
    return w;
}

/* asarray(x, dtype=, device=, copy=, requires_grad=, names=) of an Array of ours where
   every keyword given asks for nothing (dtype/device: None or x's own, compared by
   identity; copy: None or False; requires_grad: False; names: None): x itself, a new
   reference -- what the Python definition returns (strided/_api/creation.py, asarray: its
   first line, and _asarray's for copy=False). NULL (no error set) for anything else: the
   Python definition decides. SciPy's and array-api-compat's wrappers pass every argument
   through asarray (real7: 3,940 instructions a call through the error state and the
   Python frame, vs NumPy's 1,171). */
static PyObject *
fast_asarray_same(PyObject *x, PyObject *const *kw, PyObject *kwnames)
{
    if (Py_TYPE(x) != Array_T)
        return NULL;
    Py_ssize_t nk = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < nk; i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i), *v = kw[i];
        if (!PyUnicode_Check(k))
            return NULL;
        if (PyUnicode_CompareWithASCIIString(k, "dtype") == 0) {
            if (v != Py_None && v != SLOT(x, O_dtype))
                return NULL;
        }
        else if (PyUnicode_CompareWithASCIIString(k, "device") == 0) {
            if (v != Py_None && v != SLOT(x, O_device))
                return NULL;
        }
        else if (PyUnicode_CompareWithASCIIString(k, "copy") == 0) {
            if (v != Py_None && v != Py_False)
                return NULL;
        }
        else if (PyUnicode_CompareWithASCIIString(k, "requires_grad") == 0) {
            if (v != Py_False)
                return NULL;
        }
        else if (PyUnicode_CompareWithASCIIString(k, "names") == 0) {
            if (v != Py_None)
                return NULL;
        }
        else
            return NULL;
    }
    return Py_NewRef(x);
}

/* The chain's head: chain(name, impl, args, kwargs), a call with keywords bound first by
   its name's binder (table: the binders dict), as _dispatch._standard_keywords' head. */
static PyObject *
head_call(Fast *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (n != 4 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0) || !PyDict_Check(args[3])
        || PyDict_GET_SIZE(args[3]) == 0 || !PyDict_CheckExact(f->table))
        return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
    PyObject *b = PyDict_GetItemWithError(f->table, args[0]); /* (borrowed: held below) */
    if (b == NULL)
        return PyErr_Occurred() ? NULL : PyObject_Vectorcall(f->fallback, args, nargsf, NULL);
    Py_INCREF(b);
    /* (Binder.passkw and npos: set once, when the binder is made) */
    PyObject *pk = PyObject_GetAttr(b, s_passkw), *np = pk != NULL ? PyObject_GetAttr(b, s_npos) : NULL;
    Py_ssize_t npos = np == NULL || np == Py_None ? -1 : PyLong_AsSsize_t(np);
    int pass = np == NULL || PyErr_Occurred() || !PyTuple_Check(args[2]) ? -1
               : unbound(PyFrozenSet_CheckExact(pk) ? pk : NULL, npos, PyTuple_GET_SIZE(args[2]), args[3]);
    Py_XDECREF(pk);
    Py_XDECREF(np);
    if (pass != 0) { /* (the call as it came: bind would return it so; or an error) */
        Py_DECREF(b);
        return pass < 0 ? NULL : PyObject_Vectorcall(f->fallback, args, nargsf, NULL);
    }
    PyObject *bound = PyObject_CallMethodObjArgs(b, s_bind, args[2], args[3], NULL), *r = NULL;
    Py_DECREF(b);
    if (bound == NULL)
        return NULL;
    if (!PyTuple_CheckExact(bound) || PyTuple_GET_SIZE(bound) != 2) { /* (Binder.bind's is) */
        PyErr_SetString(PyExc_TypeError, "the chain's head: a binder's bind() returns (args, kwargs)");
        Py_DECREF(bound);
        return NULL;
    }
    PyObject *a = PyTuple_GET_ITEM(bound, 0), *k = PyTuple_GET_ITEM(bound, 1);
    PyObject *argv[4] = {args[0], args[1], a, k};
    r = PyObject_Vectorcall(f->fallback, argv, 4, NULL);
    Py_DECREF(bound);
    return r;
}

/* x ** 2 (pow's fast case with a Python 2 or 2.0 exponent): the square row's fast case for
   a plain host array of a real floating dtype, or of an integer one with the int 2 (a
   float 2.0 promotes it). NumPy's ndarray.__pow__ squares there (fast_scalar_power) and so
   do strided's kernels (_pow_float, _pow_int: power(x, 2) and square(x) are x * x rounded
   once, or wrapped alike): the same result dtype and bits, without the power loop's guard
   declining to the Python path (1.0 vs NumPy's 0.36 us at 100 elements). On a device, or
   any other operand: NULL (no error), the pow path. */
static PyObject *
pow_square(Fast *f, PyObject *x, PyObject *e)
{
    if (Py_TYPE(x) != Array_T || !plain(x))
        return NULL;
    PyObject *nat = SLOT(x, O_np);
    if (nat == NULL || Py_TYPE(nat) != ND_T) /* (the host's natives only; a device's kernels differ) */
        return NULL;
    char kind = np_kind(SLOT(x, O_dtype));
    if (PyFloat_CheckExact(e)) {
        if (PyFloat_AS_DOUBLE(e) != 2.0 || kind != 'f')
            return NULL;
    }
    else if (PyLong_CheckExact(e)) {
        int overflow;
        long v = PyLong_AsLongAndOverflow(e, &overflow);
        if (v != 2 || overflow || (kind != 'f' && kind != 'i' && kind != 'u'))
            return NULL;
    }
    else
        return NULL;
    return fast_unary((Fast *)f->square, x, 0);
}

/* x1 OP x2 of two Arrays of which one carries an extension (autograd, names the fast case
   declined), or f(x) of one that does: the extension hook called with the row's kernel
   path, as elementwise.py's ``op`` and the unary ``func`` call it -- hook(name, kimpl,
   (x1, x2, None) or (x, None), {}) -- a unary function under the quiet state, as its
   quiet-wrapped Python function runs it; a binary operator bare, as ``op`` (a method of
   elementwise.py's, which runs quiet in its kernels) calls it: the kernel path sets NumPy's
   "ignore" state itself, as an unrecorded ``a + b`` does, and the state set here cost ~1.6k
   instructions a recorded op -- without that Python frame (a
   recorded a + b: 19.6k -> 18.6k instructions a statement). NULL with no error set where
   ``op`` or ``func`` does something else (no hook installed, no extension, not Arrays):
   the fallback then runs it. */
static PyObject *
hooked_operator(Fast *f, PyObject *const *xs, int n)
{
    if (!PyList_CheckExact(f->hook) || PyList_GET_SIZE(f->hook) < 1)
        return NULL;
    int any = 0;
    for (int i = 0; i < n; i++) {
        if (Py_TYPE(xs[i]) != Array_T)
            return NULL;
    }
    for (int i = 0; i < n; i++) {
        int e = ext_of(xs[i]);
        if (e < 0) /* (the error ``op``'s ``self._ext`` raises: its own, from the fallback) */
            return contract_decline();
        any |= e;
    }
    if (!any)
        return NULL;
    PyObject *hook = PyList_GET_ITEM(f->hook, 0);
    if (hook == Py_None)
        return NULL;
    Py_INCREF(hook);
    PyObject *tup = n == 2 ? PyTuple_Pack(3, xs[0], xs[1], Py_None) : PyTuple_Pack(2, xs[0], Py_None);
    PyObject *kw = tup != NULL ? PyDict_New() : NULL, *r = NULL;
    if (kw != NULL) {
        PyObject *argv[4] = {f->name, f->kimpl, tup, kw};
        if (n == 2)
            r = PyObject_Vectorcall(hook, argv, 4, NULL);
        else {
            PyObject *tok = quiet_enter();
            if (tok != NULL)
                r = quiet_exit(tok, PyObject_Vectorcall(hook, argv, 4, NULL));
        }
    }
    Py_XDECREF(tup);
    Py_XDECREF(kw);
    Py_DECREF(hook);
    return r;
}

/* x1 @ x2 of two Arrays of which one carries an extension: the namespace's matmul
   (kimpl: its api entry, which hands them to the hook), as linalg_functions.py's
   ``_matmul_op`` calls it, without that Python frame and its quiet state (the entry sets
   its own). NULL with no error set where ``_matmul_op`` does something else. */
static PyObject *
hooked_matmul(Fast *f, PyObject *x1, PyObject *x2)
{
    if (Py_TYPE(x1) != Array_T || Py_TYPE(x2) != Array_T)
        return NULL;
    int e1 = ext_of(x1), e2 = e1 < 0 ? -1 : ext_of(x2);
    if (e1 < 0 || e2 < 0)
        return contract_decline();
    if (!e1 && !e2)
        return NULL;
    PyObject *argv[2] = {x1, x2};
    return PyObject_Vectorcall(f->kimpl, argv, 2, NULL);
}

PyObject *
fast_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Fast *f = (Fast *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (f->kind == K_ASARRAY) {
        PyObject *r = n == 1 && ready && !CALIBRATING ? fast_asarray_same(args[0], args + 1, kwnames) : NULL;
        return r != NULL ? r : call_quiet(f->fallback, args, nargsf, kwnames);
    }
    if (f->kind == K_ASTYPE && n == 2 && (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0)
        && ready && !CALIBRATING) {
        PyObject *r = fast_astype(f, args[0], args[1]);
        if (r != NULL || PyErr_Occurred())
            return r;
    }
    if ((f->kind == K_SUM || f->kind == K_NPRED) && n == 1 && (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0)
        && ready && !CALIBRATING) {
        PyObject *r = f->kind == K_SUM ? fast_sum(f, args[0]) : fast_npreduce(f, args[0]);
        if (r != NULL || PyErr_Occurred())
            return r;
    }
    if (f->kind == K_HEAD)
        return head_call(f, args, nargsf, kwnames);
    if (f->kernel) {
        /* impl(x, None), impl(x1, x2, None): the handlers' call of a row's kernel path (the
           autograd recorder's, the names handler's). impl reads no operand's extension: the
           fast case for named operands (which reads none either) computes its result. */
        if (ready && !CALIBRATING && n == NARGS[f->kind] + 1 && args[n - 1] == Py_None
            && (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0)) {
            PyObject *r = NULL;
            if (contract_operand(args[0]) && (n == 2 || contract_operand(args[1])))
                r = n == 2 ? fast_unary(f, args[0], 1) : fast_binary(f, args[0], args[1], 1);
            if (r != NULL || PyErr_Occurred())
                return r;
        }
        return call_quiet(f->fallback, args, nargsf, kwnames);
    }
    if (f->kind == K_API || f->kind == K_ASTYPE || f->kind == K_SUM || f->kind == K_NPRED)
        return api_call(f, args, nargsf, kwnames);
    if (f->kind == K_QUIET)
        return call_quiet(f->fallback, args, nargsf, kwnames);
    /* contract.h: every Array argument as it should be, else the Python definition (and
       its error) */
    for (Py_ssize_t i = 0; i < n; i++)
        if (!contract_operand(args[i]))
            goto fallback;
    /* Temporary elision first where it may apply (an operand that only the caller holds, of
       at least ELIDE_FIRST_FROM bytes: try_elide checks the rest): such a result then reuses
       the temporary's buffer. Below that the fast case is cheaper than the elision's Python
       half (a pooled buffer freed a moment ago is as warm as the temporary's), and it comes
       first. */
    int elide_tried = 0;
    Py_ssize_t elide_from = pool_empty != NULL && ELIDE_FIRST_FROM > elide_bytes ? ELIDE_FIRST_FROM
                                                                                 : elide_bytes;
    if (elide_mode == ELIDE_ON && f->elide != Py_None && n == 2 && kwnames == NULL
        && ((Py_TYPE(args[0]) == Array_T && Py_REFCNT(args[0]) == 1 && nbytes_of(args[0]) >= elide_from)
            || (Py_TYPE(args[1]) == Array_T && Py_REFCNT(args[1]) == 1 && nbytes_of(args[1]) >= elide_from))) {
        elide_tried = 1;
        PyObject *r = try_elide(f, args);
        if (r != NULL || PyErr_Occurred())
            return r;
    }
    if (ready && !CALIBRATING && n == NARGS[f->kind] && kwnames != NULL && PyTuple_GET_SIZE(kwnames) == 1
        && (f->kind == K_UNARY || f->kind == K_BINARY) && !f->swap && !f->inplace) {
        /* f(x, out=y), f(x1, x2, out=y): the out= door */
        PyObject *k = PyTuple_GET_ITEM(kwnames, 0);
        if (k == s_out || (PyUnicode_Check(k) && PyUnicode_CompareWithASCIIString(k, "out") == 0)) {
            PyObject *r = fast_out(f, args, (int)n, args[n]);
            if (r != NULL || PyErr_Occurred())
                return r;
        }
    }
    if (ready && !CALIBRATING && n == NARGS[f->kind]
        && (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0)) {
        PyObject *r;
        switch (f->kind) {
        case K_UNARY:
            if (f->inplace) /* x.exp_(): exp(x, out=x)'s door */
                r = plain(args[0]) ? fast_out(f, args, 1, args[0]) : NULL;
            else
            {
                r = plain(args[0]) ? fast_unary(f, args[0], 0) : fast_named(f, args, 1);
                if (r == NULL && !PyErr_Occurred() && f->kimpl != NULL)
                    r = hooked_operator(f, args, 1);
            }
            break;
        case K_BINARY: {
            PyObject *xs[2] = {args[f->swap], args[!f->swap]};
            if (f->square != NULL) {
                r = pow_square(f, xs[0], xs[1]);
                if (r != NULL || PyErr_Occurred())
                    return r;
            }
            if (f->inplace) {
                int t = plain(xs[1]) ? plain(xs[0]) || unrecorded_target(xs[0]) : 0;
                if (t < 0)
                    return NULL;
                r = t ? fast_inplace(f, xs[0], xs[1]) : NULL;
            }
            else {
                r = plain(xs[0]) && plain(xs[1]) ? fast_binary(f, xs[0], xs[1], 0) : fast_named(f, xs, 2);
                if (r == NULL && !PyErr_Occurred() && f->kimpl != NULL)
                    r = hooked_operator(f, xs, 2);
            }
            break;
        }
        case K_MATMUL:
            r = fast_matmul(f, args[0], args[1]);
            if (r == NULL && !PyErr_Occurred() && f->kimpl != NULL)
                r = hooked_matmul(f, args[0], args[1]);
            break;
        default:
            r = fast_where(f, args[0], args[1], args[2]);
        }
        if (r != NULL || PyErr_Occurred())
            return r;
    }
    if (!elide_tried && elide_mode != ELIDE_OFF && f->elide != Py_None && n == 2 && kwnames == NULL) {
        PyObject *r = try_elide(f, args);
        if (r != NULL || PyErr_Occurred())
            return r;
    }
fallback:
    if (CALIBRATING) {
        calib_depth++;
        PyObject *r = call_quiet(f->fallback, args, nargsf, kwnames);
        calib_depth--;
        return r;
    }
    return call_quiet(f->fallback, args, nargsf, kwnames);
}

/* f (stolen) with its own copies of what its type would otherwise answer for: the
   fallback's docstring, module, name and qualified name. */
PyObject *
own_identity(Fast *f, PyObject *fallback)
{
    f->dict = PyDict_New();
    if (f->dict == NULL) {
        Py_DECREF(f);
        return NULL;
    }
    static const char *own[] = {"__doc__", "__module__", "__name__", "__qualname__", NULL};
    for (const char **a = own; *a; a++) {
        PyObject *v = PyObject_GetAttrString(fallback, *a);
        if (v == NULL) {
            if (!contract_clear(PyExc_AttributeError)) {
                Py_DECREF(f);
                return NULL;
            }
            continue;
        }
        int err = PyDict_SetItemString(f->dict, *a, v);
        Py_DECREF(v);
        if (err < 0) {
            Py_DECREF(f);
            return NULL;
        }
    }
    return (PyObject *)f;
}

static PyObject *
fast_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *fallback, *table = Py_None, *stable = Py_None, *hook = Py_None, *name = Py_None;
    PyObject *elide = Py_None, *square = Py_None, *direct = Py_None, *passkw = Py_None, *kimpl = Py_None;
    int kind, swap = 0, inplace = 0, kernel = 0;
    Py_ssize_t npos = 0;
    static char *names[] = {"fallback", "kind", "table", "stable", "swap", "hook", "name", "elide",
                            "inplace", "kernel", "square", "direct", "npos", "passkw", "kimpl", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|OOpOOOppOOnOO:Fast", names, &fallback, &kind,
                                     &table, &stable, &swap, &hook, &name, &elide, &inplace, &kernel,
                                     &square, &direct, &npos, &passkw, &kimpl))
        return NULL;
    if (Array_T == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Fast(): setup_array() first");
        return NULL;
    }
    if (!PyCallable_Check(fallback)
        || (kind == K_API ? !PyList_CheckExact(hook) || !PyUnicode_Check(name)
            : kind == K_SUM || kind == K_NPRED
              ? !PyList_CheckExact(hook) || !PyUnicode_Check(name) || !PyList_CheckExact(table)
                || (kind == K_SUM ? PyList_GET_SIZE(table) != 4
                                  : PyList_GET_SIZE(table) != 7 && PyList_GET_SIZE(table) != 9)
            : kind == K_ASTYPE ? !PyList_CheckExact(hook) || !PyUnicode_Check(name)
                                 || !PyList_CheckExact(table) || PyList_GET_SIZE(table) != 1
            : kind == K_UNARY ? !PyList_CheckExact(table)
            : kind == K_BINARY ? !PyList_CheckExact(table) || !PyList_CheckExact(stable)
            : kind == K_MATMUL || kind == K_WHERE
              ? !PyList_CheckExact(table) || PyList_GET_SIZE(table) != 2
                || (kind == K_MATMUL && !PyList_CheckExact(PyList_GET_ITEM(table, 0)))
            : kind == K_HEAD ? !PyDict_CheckExact(table)
            : kind != K_QUIET && kind != K_ASARRAY)
        || (elide != Py_None && (kind != K_BINARY || !PyCallable_Check(elide)))
        || (inplace && ((kind != K_BINARY && kind != K_UNARY) || swap || elide != Py_None))
        || (kernel && ((kind != K_BINARY && kind != K_UNARY) || swap || inplace || elide != Py_None))
        || (square != Py_None && (kind != K_BINARY || swap || inplace || kernel || Py_TYPE(square) != type
                                  || ((Fast *)square)->kind != K_UNARY || ((Fast *)square)->inplace))
        || (direct != Py_None && ((kind != K_API && kind != K_SUM && kind != K_NPRED) || !PyCallable_Check(direct) || npos < 1))
        || (passkw != Py_None && (direct == Py_None || !PyFrozenSet_CheckExact(passkw)))
        || (kimpl != Py_None && (!PyCallable_Check(kimpl) || swap || inplace || kernel
                                 || (kind == K_MATMUL ? 0
                                     : (kind != K_BINARY && kind != K_UNARY) || !PyList_CheckExact(hook)
                                       || !PyUnicode_Check(name))))) {
        PyErr_SetString(PyExc_TypeError, "Fast(fallback, kind, table=None, stable=None, swap=False, "
                        "hook=None, name=None, elide=None, inplace=False, kernel=False): a callable; kind 0 (hook: a "
                        "list, name: a str), 1 (table: a list; inplace: x.op_()), 2 (table and stable: lists; elide: a "
                        "callable; inplace: not with swap or elide), 1 or 2 with kernel (impl(x, None), "
                        "impl(x1, x2, None): nothing else; square: pow's, a unary Fast), "
                        "0 with direct and npos (the definition behind a binder, npos >= 1) and passkw "
                        "(a frozenset of keywords), "
                        "3 or 4 (table: [result dtypes or the bool dtype, kernel]), 5 (nothing else), "
                        "6 (as 0, table: [ndarray.astype]), 7 (as 5, with asarray's identity case), "
                        "9 (as 0, table: [sum_into, float32, float64, the CPU device]), "
                        "10 (as 0, table: [reduce, result DType or None, dtype argument, DTypes taken, "
                        "the CPU device, fewest elements, most elements or -1]), "
                        "8 (table: the binders dict: the extension chain's head); kimpl: an operator's "
                        "or a function's kernel path (kind 1 or 2, not swapped nor in place, with hook "
                        "and name), or matmul's api entry (kind 3)");
        return NULL;
    }
    Fast *f = (Fast *)type->tp_alloc(type, 0);
    if (f == NULL)
        return NULL;
    f->vectorcall = fast_vectorcall;
    f->fallback = Py_NewRef(fallback);
    f->table = Py_NewRef(table);
    f->stable = Py_NewRef(stable);
    f->hook = Py_NewRef(hook);
    f->name = Py_NewRef(name);
    f->elide = Py_NewRef(elide);
    f->square = square != Py_None ? Py_NewRef(square) : NULL;
    f->direct = direct != Py_None ? Py_NewRef(direct) : NULL;
    f->npos = npos;
    f->passkw = passkw != Py_None ? Py_NewRef(passkw) : NULL;
    f->kimpl = kimpl != Py_None ? Py_NewRef(kimpl) : NULL;
    f->kind = kind;
    f->swap = swap;
    f->inplace = inplace;
    f->kernel = kernel;
    if (kind == K_UNARY || kind == K_BINARY) {
        /* a Loop per dtype (unary); per dtype pair and per dtype, scalar column and side */
        Py_ssize_t n = f->ndt = PyList_GET_SIZE(table);
        f->nloops = kind == K_UNARY ? n : n * n + 2 * n * 4;
        f->loops = PyMem_Calloc(f->nloops ? f->nloops : 1, sizeof(Loop));
        if (f->loops == NULL) {
            Py_DECREF(f);
            return PyErr_NoMemory();
        }
    }
    return own_identity(f, fallback);
}

int
fast_traverse(Fast *f, visitproc visit, void *arg)
{
    Py_VISIT(f->fallback);
    Py_VISIT(f->table);
    Py_VISIT(f->stable);
    Py_VISIT(f->hook);
    Py_VISIT(f->name);
    Py_VISIT(f->elide);
    Py_VISIT(f->square);
    Py_VISIT(f->direct);
    Py_VISIT(f->passkw);
    Py_VISIT(f->kimpl);
    Py_VISIT(f->last[0]);
    Py_VISIT(f->last[1]);
    Py_VISIT(f->last[2]);
    Py_VISIT(f->dict);
    for (Py_ssize_t i = 0; f->loops != NULL && i < f->nloops; i++) {
        Py_VISIT(f->loops[i].ent);
        Py_VISIT(f->loops[i].kernel);
    }
    return 0;
}

int
fast_clear(Fast *f)
{
    Py_CLEAR(f->fallback);
    Py_CLEAR(f->table);
    Py_CLEAR(f->stable);
    Py_CLEAR(f->hook);
    Py_CLEAR(f->name);
    Py_CLEAR(f->elide);
    Py_CLEAR(f->square);
    Py_CLEAR(f->direct);
    Py_CLEAR(f->passkw);
    Py_CLEAR(f->kimpl);
    Py_CLEAR(f->last[0]);
    Py_CLEAR(f->last[1]);
    Py_CLEAR(f->last[2]);
    Py_CLEAR(f->dict);
    if (f->loops != NULL) {
        for (Py_ssize_t i = 0; i < f->nloops; i++)
            loop_clear(&f->loops[i]);
        PyMem_Free(f->loops);
        f->loops = NULL;
        f->nloops = 0;
    }
    return 0;
}

static void
fast_dealloc(Fast *f)
{
    PyObject_GC_UnTrack(f);
    fast_clear(f);
    Py_TYPE(f)->tp_free((PyObject *)f);
}

/* As a class attribute it is a method: ``a.__add__`` binds, and the interpreter
   calls it unbound (Py_TPFLAGS_METHOD_DESCRIPTOR) for ``a + b``. */
static PyObject *
fast_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

/* Attributes: its own (__dict__), then the wrapped function's (__name__, __doc__,
   __module__, _impl, ...), so it stands in wherever the function is looked at. */
static PyObject *
fast_getattro(PyObject *self, PyObject *name)
{
    PyObject *r = PyObject_GenericGetAttr(self, name);
    if (r != NULL || !PyErr_ExceptionMatches(PyExc_AttributeError))
        return r;
    PyErr_Clear();
    return PyObject_GetAttr(((Fast *)self)->fallback, name);
}

static PyObject *
fast_repr(Fast *f)
{
    return PyObject_Repr(f->fallback);
}

static PyObject *
fast_reduce(Fast *f, PyObject *Py_UNUSED(ignored))
{
    /* pickled as the function it wraps (by its qualified name, where that names us) */
    return PyObject_GetAttrString(f->fallback, "__qualname__");
}

static PyObject *
fast_wrapped(Fast *f, void *Py_UNUSED(c))
{
    return Py_NewRef(f->fallback);
}

static PyGetSetDef fast_getset[] = {
    {"__wrapped__", (getter)fast_wrapped, NULL, "the Python function this one stands in front of"},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict},
    {NULL},
};

static PyMethodDef fast_methods[] = {
    {"__reduce__", (PyCFunction)fast_reduce, METH_NOARGS, NULL},
    {NULL},
};

PyTypeObject Fast_T = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "strided._csrc._chot.Fast",
    .tp_doc = "Fast(fallback, kind, table=None, stable=None, swap=False, hook=None, name=None, "
              "elide=None): "
              "the compiled hot path of a call, in front of the Python function `fallback`.",
    .tp_basicsize = sizeof(Fast),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL
                | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_new = fast_new,
    .tp_dealloc = (destructor)fast_dealloc,
    .tp_traverse = (traverseproc)fast_traverse,
    .tp_clear = (inquiry)fast_clear,
    .tp_vectorcall_offset = offsetof(Fast, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = fast_get,
    .tp_getattro = fast_getattro,
    .tp_setattro = PyObject_GenericSetAttr,
    .tp_dictoffset = offsetof(Fast, dict),
    .tp_repr = (reprfunc)fast_repr,
    .tp_getset = fast_getset,
    .tp_methods = fast_methods,
};
