/* strided._csrc._chot, names.c: the name caches (named dimensions).
 *
 * In front of: strided/named/_handler.py's fast links (``_EW_NAMES``, ``_RED``) and
 * strided/named/_core.py's ``VIEW_NAMES``: calls on named arrays whose name outcome the
 * handler has cached. A key is looked up only when it is plain (plain_key): compared by
 * identity or exact type, never by running user code.
 */
#include "chot.h"

/* --- named dimensions ---------------------------------------------------------------
   Calls on named arrays (strided.named) whose name outcome the named handler has
   cached run here, the names coming from the handler's caches (the Python name rules
   stay the only definition):
   - an elementwise call (_handler._EW_NAMES, keyed by (row name, key of each input):
     its names, its ndim when unnamed, -1 for a scalar) runs the plain fast case and
     names the result with a fresh Ext, as the handler's own fast link does; inputs
     whose names differ only while auto_align() is off (else they are aligned first),
     or where aligning them changes nothing (align_is_identity: X + bias);
   - a reduction, or a view whose names follow from its arguments (_handler._RED:
     ``reduce(x, axis='C', keepdims=True)``, ``squeeze(x, axis=0)``), runs the
     function's body with the arguments the rule turned names into;
   - the views the compiled views compute (views.c: indexing, .T, .mT,
     permute, expand_dims, reshape) take their names from _handler._VIEW_NAMES.
   Only arrays whose Ext tracks no gradient (autograd, the one other handler, passes
   those through): anything else, and every first sight, goes to the Python path.
   Enabled by setup_named(), which strided.named calls when it installs its handler. */
/* --- Ext, compiled: the per-array record of autograd and names -----------------------------
   strided._core.array.Ext is this type when the extension is built (the Python class there
   stays the definition and the fallback, STRIDED_NO_CEXT=1): the same nine attributes with
   the same defaults, no others (an unknown attribute is an AttributeError, a deleted one
   reads as missing, as a __slots__ member's), weak references, cyclic garbage collection
   (grad_fn -> node -> saved arrays -> Ext). What it adds is the cost: a named result takes
   one Ext, and a Python class's instance costs ~450 instructions to allocate and free
   (PyType_GenericAlloc, subtype_dealloc); this one comes from a free list of released
   Exts (as CPython's own tuples and lists do) and goes back there. The named hot paths
   take one inline (chot.h: name_result_fast), and an Array's own release puts a names-only
   record that nothing else holds straight back (views.c: array_dealloc, ext_recycle), so a
   named view costs ~120-150 instructions more than its unnamed twin, not ~700. Its members are
   T_OBJECT_EX, so contract.h finds their offsets by name as it finds a class's slots. */
/* (ExtObject, the free list and ExtC_T are declared in chot.h, for its inline
   name_result_fast and untracked_names) */
/* Released records, each already holding the defaults (its eight fields other than names
   set as Ext.__init__ sets them, names NULL, no weak references) and its reference to the
   type (a heap type's instances hold one): a named result's record goes back there as it
   was made, with one field to release and, when taken again, one to set and its reference
   count to start (CPython's own free lists do the same, with _Py_NewReference). */
ExtObject *ext_free[EXT_FREE_MAX];
int ext_nfree;
PyTypeObject *ExtC_T; /* made in PyInit (ext_type_add) */

/* e's eight fields other than names set to the defaults (Ext.__init__'s): each NULL before. */
static inline void
ext_set_defaults(ExtObject *e)
{
    e->requires_grad = Py_NewRef(Py_False);
    e->grad = Py_NewRef(Py_None);
    e->grad_fn = Py_NewRef(Py_None);
    e->output_nr = Py_NewRef(zero);
    e->retains_grad = Py_NewRef(Py_False);
    e->hooks = Py_NewRef(Py_None);
    e->is_view = Py_NewRef(Py_False);
    e->acc = Py_NewRef(Py_None);
}

/* A fresh Ext with the defaults (Ext.__init__'s) and ``names`` (borrowed; None, or a
   tuple of strs and None), not yet tracked by the collector; NULL with an error: out of
   memory. */
static inline __attribute__((always_inline)) PyObject *
ext_make(PyObject *names)
{
    ExtObject *e;
    if (ext_nfree > 0) {
        e = ext_free[--ext_nfree]; /* (the defaults and the type's reference already set) */
        _Py_NewReference((PyObject *)e);
    }
    else {
        if ((e = PyObject_GC_New(ExtObject, ExtC_T)) == NULL)
            return NULL;
        ext_set_defaults(e);
        e->weakrefs = NULL;
    }
    e->names = Py_NewRef(names);
    /* (not tracked by the collector yet: its fields hold None, bools, 0 and names, none of
       which can lead back to it; ext_setattro tracks it when a field is set) */
    return (PyObject *)e;
}

/* Setting or deleting a field: as a __slots__ member's, and from then on the record is
   tracked by the collector (autograd's fields may close a cycle: grad_fn -> node -> saved
   arrays -> Ext). object.__setattr__ refuses to skip this (CPython's hackcheck); only a
   member descriptor's own __set__ does, and then the dealloc below still finds the
   fields other than the defaults. */
static int
ext_setattro(PyObject *self, PyObject *name, PyObject *value)
{
    int r = PyObject_GenericSetAttr(self, name, value);
    if (!PyObject_GC_IsTracked(self))
        PyObject_GC_Track(self);
    return r;
}

static PyObject *
ext_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    if (PyTuple_GET_SIZE(args) != 0 || (kwds != NULL && PyDict_GET_SIZE(kwds) != 0)) {
        PyErr_SetString(PyExc_TypeError, "Ext() takes no arguments");
        return NULL;
    }
    return ext_make(Py_None);
}

static int
ext_traverse(ExtObject *e, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(e)); /* (an instance of a heap type holds its type) */
    Py_VISIT(e->requires_grad);
    Py_VISIT(e->grad);
    Py_VISIT(e->grad_fn);
    Py_VISIT(e->output_nr);
    Py_VISIT(e->retains_grad);
    Py_VISIT(e->hooks);
    Py_VISIT(e->names);
    Py_VISIT(e->is_view);
    Py_VISIT(e->acc);
    return 0;
}

static int
ext_clear(ExtObject *e)
{
    Py_CLEAR(e->requires_grad);
    Py_CLEAR(e->grad);
    Py_CLEAR(e->grad_fn);
    Py_CLEAR(e->output_nr);
    Py_CLEAR(e->retains_grad);
    Py_CLEAR(e->hooks);
    Py_CLEAR(e->names);
    Py_CLEAR(e->is_view);
    Py_CLEAR(e->acc);
    return 0;
}

/* e (its fields other than names holding the defaults, names NULL) onto the free list,
   keeping its reference to the type (ext_make), or freed with it when the list is full. */
static inline void
ext_shelve(ExtObject *e)
{
    if (ext_nfree < EXT_FREE_MAX)
        ext_free[ext_nfree++] = e;
    else {
        PyTypeObject *t = Py_TYPE(e);
        (void)ext_clear(e); /* (the defaults: releasing them runs no code) */
        PyObject_GC_Del(e);
        Py_DECREF(t);
    }
}

/* ext_recycle's rare case (chot.h): the free list full, e freed with its type's reference. */
void
ext_shelve_full(ExtObject *e)
{
    ext_shelve(e);
}

static void ext_dealloc(ExtObject *e);

/* ext_dealloc's general case, apart (not inlined) so that a named result's record is
   released without the trashcan's prologue. */
static void __attribute__((noinline))
ext_dealloc_fields(ExtObject *e)
{
    Py_TRASHCAN_BEGIN(e, ext_dealloc)
    if (e->weakrefs != NULL)
        PyObject_ClearWeakRefs((PyObject *)e);
    (void)ext_clear(e); /* (may run code that frees other Exts: the list is touched after) */
    ext_set_defaults(e);
    ext_shelve(e);
    Py_TRASHCAN_END
}

static void
ext_dealloc(ExtObject *e)
{
    PyObject_GC_UnTrack(e);
    /* A named result's record (the defaults but its names, no weak reference): only names
       to release (a tuple's release has its own trashcan), and it goes back to the free
       list as it is (ext_names_only, ext_recycle: chot.h). */
    if (ext_names_only(e)) {
        ext_recycle(e);
        return;
    }
    ext_dealloc_fields(e);
}

#define EXT_MEMBER(f) {#f, T_OBJECT_EX, offsetof(ExtObject, f), 0, NULL}
static PyMemberDef ext_members[] = {
    EXT_MEMBER(requires_grad), EXT_MEMBER(grad), EXT_MEMBER(grad_fn), EXT_MEMBER(output_nr),
    EXT_MEMBER(retains_grad), EXT_MEMBER(hooks), EXT_MEMBER(names), EXT_MEMBER(is_view),
    EXT_MEMBER(acc), {"__weaklistoffset__", T_PYSSIZET, offsetof(ExtObject, weakrefs), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

/* A heap type, as the Python class is: named Ext in strided._core.array, so that its
   errors read as the class's ("'Ext' object has no attribute 'names'"). */
static PyType_Slot ext_slots[] = {
    {Py_tp_doc, "Per-array metadata owned by extensions (autograd, names); the compiled twin "
                "of strided._core.array's Python class."},
    {Py_tp_new, ext_new},
    {Py_tp_dealloc, ext_dealloc},
    {Py_tp_traverse, ext_traverse},
    {Py_tp_clear, ext_clear},
    {Py_tp_members, ext_members},
    {Py_tp_setattro, ext_setattro},
    {0, NULL},
};

static PyType_Spec ext_spec = {
    "strided._core.array.Ext", sizeof(ExtObject), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, ext_slots,
};

static int
set_short_name(PyObject *t)
{
    PyObject *n = PyUnicode_InternFromString("Ext");
    int r = n == NULL ? -1 : PyObject_SetAttrString(t, "__name__", n);
    Py_XDECREF(n);
    return r;
}

/* Make the type and add it to the module as ``Ext`` (PyInit); -1 with an error. */
int
ext_type_add(PyObject *m)
{
    if (ExtC_T == NULL) {
        PyObject *t = PyType_FromSpec(&ext_spec);
        /* (setting __name__ makes tp_name the short name, as a class statement's: the
           spec's dotted one gives __module__ only) */
        if (t == NULL || set_short_name(t) < 0) {
            Py_XDECREF(t);
            return -1;
        }
        ExtC_T = (PyTypeObject *)t;
    }
    return PyModule_AddObjectRef(m, "Ext", (PyObject *)ExtC_T);
}

/* named_ext(names): a fresh compiled Ext holding ``names`` (a tuple of exact strs and
   None), its other fields the defaults: what ``e = Ext(); e.names = names`` makes, in one
   call and from the free list (the Python hot paths that name a fresh view: squeeze's in
   _api/views.py). TypeError for anything else as names. */
PyObject *
named_ext(PyObject *mod, PyObject *names)
{
    (void)mod;
    if (ExtC_T == NULL || !plain_names(names)) {
        PyErr_SetString(PyExc_TypeError, "named_ext(): names must be a tuple of str and None");
        return NULL;
    }
    return ext_make(names);
}

/* The ints 0 .. MAXDIMS (setup_named), held here: an unnamed operand's key in the name
   cache (its ndim) is borrowed from this table (chot.h, name_key). They are the
   interpreter's small ints, the objects PyLong_FromSsize_t gives (CPython caches -5 ..
   256): equal keys are one object. */
PyObject *ndim_objs[MAXDIMS + 1];

static PyObject *ew_names;   /* _handler._EW_NAMES */
static PyObject *red_cache;  /* _handler._RED */
static PyObject *view_names; /* _handler._VIEW_NAMES */
static PyObject *auto_align; /* _handler.AUTO_ALIGN, a ContextVar */
static PyObject *spelled;    /* _handler.SPELLED: the keywords the binding stage renames (a frozenset) */
static PyObject *spelled_fn; /* _handler._spelled(x, key): a spelled call's outcome, or None */

/* The Ext class whose slots the C paths read (contract.h), set up once by whichever of
   setup_named and setup_grad_state (fast.c) comes first; the other must name the same
   class. 0, or -1 with an error naming ``who``. */
int
ext_class_setup(PyObject *ext, const char *who)
{
    if (Ext_T != NULL && (PyObject *)Ext_T != ext) {
        PyErr_Format(PyExc_TypeError, "%s(): another Ext class than the first setup's", who);
        return -1;
    }
    if (contract_setup((PyTypeObject *)ext, EXT_ROWS, N_ROWS(EXT_ROWS)) < 0)
        return -1;
    if (Ext_T == NULL)
        Ext_T = (PyTypeObject *)Py_NewRef(ext);
    return 0;
}

PyObject *
setup_named(PyObject *mod, PyObject *args)
{
    PyObject *ext, *cache, *red, *views, *align, *sp = NULL, *sp_fn = NULL;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O|O!O:setup_named", &PyType_Type, &ext, &PyDict_Type, &cache,
                          &PyDict_Type, &red, &PyDict_Type, &views, &align, &PyFrozenSet_Type, &sp,
                          &sp_fn))
        return NULL;
    if (!PyContextVar_CheckExact(align)) {
        PyErr_SetString(PyExc_TypeError, "setup_named(): the auto-align setting must be a ContextVar");
        return NULL;
    }
    if (sp != NULL && (sp_fn == NULL || !PyCallable_Check(sp_fn))) {
        PyErr_SetString(PyExc_TypeError, "setup_named(): the spelled keywords come with a callable");
        return NULL;
    }
    if (ext_class_setup(ext, "setup_named") < 0)
        return NULL;
    for (Py_ssize_t i = 0; i <= MAXDIMS; i++)
        if (ndim_objs[i] == NULL && (ndim_objs[i] = PyLong_FromSsize_t(i)) == NULL)
            return NULL;
    Py_XSETREF(ew_names, Py_NewRef(cache));
    Py_XSETREF(red_cache, Py_NewRef(red));
    Py_XSETREF(view_names, Py_NewRef(views));
    Py_XSETREF(auto_align, Py_NewRef(align));
    Py_XSETREF(spelled, Py_XNewRef(sp));
    Py_XSETREF(spelled_fn, Py_XNewRef(sp_fn));
    Py_RETURN_NONE;
}

/* Keys of the name caches. A cache key is hashed, and compared with the keys of a dict
   and with a call site's last key, only when hashing and comparing it runs no Python
   code: every part of it an exact str, int, float or bool, None, Ellipsis, or an exact tuple
   of those (dtypes: DType, whose hash and comparison are strided's own), compared by
   identity or, within one exact type, by value (so np.str_("a") is not "a", True is not
   1). Anything else declines to the Python path, which owns its own rules (a user's
   __eq__ that renames again, a str subclass). The key is built by the call and held by
   it (a strong reference) while it is looked up. */
static int
plain_key(PyObject *o, int depth)
{
    PyTypeObject *t = Py_TYPE(o);
    if (t == &PyUnicode_Type || t == &PyLong_Type || t == &PyFloat_Type || t == &PyBool_Type
        || o == Py_None || o == Py_Ellipsis || (t == DType_T && DType_T != NULL))
        return 1;
    if (t != &PyTuple_Type || depth <= 0)
        return 0;
    for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(o); i < n; i++)
        if (!plain_key(PyTuple_GET_ITEM(o, i), depth - 1))
            return 0;
    return 1;
}

/* Whether two cache keys are the same: by identity, else plain keys (plain_key) of one
   exact type and equal value, item by item for tuples; no Python code runs, no error. */
int
plain_equal(PyObject *a, PyObject *b)
{
    if (a == b)
        return 1;
    PyTypeObject *t = Py_TYPE(a);
    if (t != Py_TYPE(b))
        return 0;
    if (t == &PyUnicode_Type)
        return PyUnicode_Compare(a, b) == 0; /* (two exact strs: no error) */
    if (t == &PyLong_Type || t == &PyFloat_Type)
        return PyObject_RichCompareBool(a, b, Py_EQ) == 1; /* (builtin: no code, no error) */
    if (t != &PyTuple_Type || PyTuple_GET_SIZE(a) != PyTuple_GET_SIZE(b))
        return 0; /* (bools, None, Ellipsis, DTypes: by identity) */
    for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(a); i < n; i++) {
        PyObject *u = PyTuple_GET_ITEM(a, i), *v = PyTuple_GET_ITEM(b, i);
        if (u != v && !plain_equal(u, v)) /* (identity first: small ints, interned strs) */
            return 0;
    }
    return 1;
}

/* A names tuple: exact strs and None only (what strided.named makes; a tuple a user put
   in an Ext's names by hand declines). */
int
plain_names(PyObject *names)
{
    if (!PyTuple_CheckExact(names))
        return 0;
    for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(names); i < n; i++) {
        PyObject *v = PyTuple_GET_ITEM(names, i);
        if (v != Py_None && !PyUnicode_CheckExact(v))
            return 0;
    }
    return 1;
}

/* e's names field (borrowed; NULL when deleted) when e is an Ext of another class than
   the compiled one (contract_ext) that tracks no gradient; NULL otherwise (no error): the
   rare case of ext_untracked (chot.h). */
PyObject *
ext_untracked_other(PyObject *e)
{
    if (!contract_ext(e) || SLOT(e, E_rg) != Py_False || SLOT(e, E_fn) != Py_None)
        return NULL;
    return SLOT(e, E_names);
}

/* Whether auto_align() is off (its context variable holds False); an error reads as on
   and stays set (reading a context variable fails only out of memory). */
int
auto_align_off(void)
{
    PyObject *v;
    if (auto_align == NULL || PyContextVar_Get(auto_align, NULL, &v) < 0)
        return 0;
    Py_XDECREF(v);
    return v == Py_False;
}

/* r (a fresh plain result, stolen) named ``names`` (borrowed; None: unnamed). */
PyObject *
name_result(PyObject *r, PyObject *names)
{
    if (names == Py_None)
        return r;
    if (!PyTuple_CheckExact(names) || PyTuple_GET_SIZE(names) != PyTuple_GET_SIZE(SLOT(r, O_shape))) {
        Py_DECREF(r);
        return NULL; /* the handler raises its own error */
    }
    PyObject *e;
    if (Ext_T == ExtC_T && ExtC_T != NULL) {
        if ((e = ext_make(names)) == NULL) {
            Py_DECREF(r);
            return NULL;
        }
        Py_SETREF(SLOT(r, O_ext), e);
        return r;
    }
    e = Ext_T->tp_alloc(Ext_T, 0);
    if (e == NULL) {
        Py_DECREF(r);
        return NULL;
    }
    SLOT(e, E_rg) = Py_NewRef(Py_False);
    SLOT(e, E_grad) = Py_NewRef(Py_None);
    SLOT(e, E_fn) = Py_NewRef(Py_None);
    SLOT(e, E_nr) = Py_NewRef(zero);
    SLOT(e, E_retains) = Py_NewRef(Py_False);
    SLOT(e, E_hooks) = Py_NewRef(Py_None);
    SLOT(e, E_names) = Py_NewRef(names);
    SLOT(e, E_view) = Py_NewRef(Py_False);
    SLOT(e, E_acc) = Py_NewRef(Py_None);
    Py_SETREF(SLOT(r, O_ext), e);
    return r;
}

/* Whether two names tuples are equal: item by item by identity first (names are mostly
   the same interned strs), else by value when both are plain names (plain_names); -1
   (no error) for names that are not. */
static int
same_names(PyObject *a, PyObject *b)
{
    Py_ssize_t n = PyTuple_GET_SIZE(a);
    if (n != PyTuple_GET_SIZE(b))
        return 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyTuple_GET_ITEM(a, i) != PyTuple_GET_ITEM(b, i))
            return plain_names(a) && plain_names(b) ? plain_equal(a, b) : -1;
    return 1;
}

/* Whether auto_align() leaves x1 op x2 as it is, for names n1 and n2 (plain names) that
   differ: every dim of x1 named, and x2's names the last of x1's (``X + bias``). Then
   _ops.align's targets are n1 for both (named dims in order of first appearance, x1's
   first): x1 unchanged, x2 given leading size-1 dims, which is what broadcasting by
   position does; the names, values and layout of the result are the same either way (the
   rule's name checks pass: the names agree from the right). The other order (x2's names
   the longer) is aligned to x2's order of first appearance: it matters then. */
static int
align_is_identity(PyObject *n1, PyObject *n2)
{
    Py_ssize_t l1 = PyTuple_GET_SIZE(n1), l2 = PyTuple_GET_SIZE(n2);
    if (l2 >= l1)
        return 0;
    for (Py_ssize_t i = 0; i < l1; i++)
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(n1, i)))
            return 0;
    for (Py_ssize_t i = 0; i < l2; i++) {
        PyObject *a = PyTuple_GET_ITEM(n1, l1 - l2 + i), *b = PyTuple_GET_ITEM(n2, i);
        if (a != b && (!PyUnicode_CheckExact(b) || PyUnicode_Compare(a, b) != 0))
            return 0;
    }
    return 1;
}

/* fast_named's (chot.h) first sight of the inputs' keys k[0], k[1] (borrowed; k[1] NULL for a
   unary row): the result names from the handler's cache (a new reference; None: unnamed),
   kept as the call site's last outcome with whether auto_align() matters for them
   (f->last_align); NULL to decline (no error: a miss, names the handler must check or
   align; an error: out of memory, which propagates). */
PyObject *
fast_named_miss(Fast *f, PyObject *const *k, int n)
{
    if (ew_names == NULL)
        return NULL;
    if (!PyTuple_CheckExact(k[0]) && (n == 1 || !PyTuple_CheckExact(k[1])))
        return NULL; /* (no names: an Ext of autograd's, untracked; the Python path) */
    int align = 0;
    if (n == 2 && k[0] != k[1] && PyTuple_CheckExact(k[0]) && PyTuple_CheckExact(k[1])) {
        int eq = same_names(k[0], k[1]);
        if (eq < 0)
            return NULL;
        align = !eq && !align_is_identity(k[0], k[1]);
        if (align && !auto_align_off()) /* names that differ: the handler aligns them */
            return NULL;
    }
    /* (a key of plain parts only, an ndim or plain names: the lookup runs no Python code) */
    for (int i = 0; i < n; i++)
        if (!PyLong_CheckExact(k[i]) && !plain_names(k[i]))
            return NULL;
    if (!PyUnicode_CheckExact(f->name))
        return NULL;
    PyObject *key = n == 1 ? PyTuple_Pack(2, f->name, k[0]) : PyTuple_Pack(3, f->name, k[0], k[1]);
    if (key == NULL)
        return NULL; /* (out of memory: propagates) */
    PyObject *names = Py_XNewRef(PyDict_GetItemWithError(ew_names, key));
    Py_DECREF(key);
    if (names == NULL)
        return NULL; /* (a miss; an error propagates) */
    for (int i = 0; i < 2; i++)
        Py_XSETREF(f->last[i], Py_XNewRef(i < n ? k[i] : NULL));
    Py_XSETREF(f->last[2], Py_NewRef(names));
    f->last_align = align;
    return names;
}

/* Whether a call (x's names, ndim, arguments) is the one ``key`` (a _RED key) was built
   from: by identity, or plain_equal (equal exact types: True == 1 must not match; no
   Python code runs). The call's arguments are plain keys (named_call checked them). */
static int
same_call(PyObject *key, PyObject *names, Py_ssize_t nd, const CallArgs *c)
{
    Py_ssize_t np = c->npos;
    if (key == NULL || PyTuple_GET_SIZE(key) != 4 + 2 * np + 3 * c->nk
        || PyTuple_GET_ITEM(key, 1) != names || PyLong_AsSsize_t(PyTuple_GET_ITEM(key, 2)) != nd
        || PyLong_AsSsize_t(PyTuple_GET_ITEM(key, 3)) != np + 1)
        return 0;
    for (Py_ssize_t i = 0; i < np + c->nk; i++) {
        Py_ssize_t at = i < np ? 4 + 2 * i : 4 + 2 * np + 3 * (i - np) + 1;
        PyObject *v = PyTuple_GET_ITEM(key, at + 1), *a = c->v[i];
        PyTypeObject *t = Py_TYPE(a);
        if ((PyObject *)t != PyTuple_GET_ITEM(key, at))
            return 0;
        if (i >= np && !plain_equal(PyTuple_GET_ITEM(key, at - 1), PyTuple_GET_ITEM(c->kwnames, i - np)))
            return 0;
        if (!plain_equal(v, a))
            return 0;
    }
    return 1;
}

/* A _RED outcome (positional arguments after x, {keyword: value}, result names) as the
   call makes it: (result names, the keywords' names, the positional arguments, the
   keywords' values...); NULL (no error) for another shape, NULL with an error: out of
   memory. */
static PyObject *
cached_call_form(PyObject *hit)
{
    if (!PyTuple_CheckExact(hit) || PyTuple_GET_SIZE(hit) != 3
        || !PyTuple_CheckExact(PyTuple_GET_ITEM(hit, 0)) || PyTuple_GET_SIZE(PyTuple_GET_ITEM(hit, 0)) > 4
        || !PyDict_CheckExact(PyTuple_GET_ITEM(hit, 1)) || PyDict_GET_SIZE(PyTuple_GET_ITEM(hit, 1)) > 8)
        return NULL;
    PyObject *kw = PyTuple_GET_ITEM(hit, 1), *k, *v;
    Py_ssize_t m = PyDict_GET_SIZE(kw), pos = 0, i = 0;
    PyObject *call = PyTuple_New(3 + m), *kn = PyTuple_New(m);
    if (call == NULL || kn == NULL) {
        Py_XDECREF(call);
        Py_XDECREF(kn);
        return NULL; /* (out of memory: propagates) */
    }
    PyTuple_SET_ITEM(call, 0, Py_NewRef(PyTuple_GET_ITEM(hit, 2)));
    PyTuple_SET_ITEM(call, 1, kn);
    PyTuple_SET_ITEM(call, 2, Py_NewRef(PyTuple_GET_ITEM(hit, 0)));
    while (i < m && PyDict_Next(kw, &pos, &k, &v)) {
        PyTuple_SET_ITEM(kn, i, Py_NewRef(k));
        PyTuple_SET_ITEM(call, 3 + i++, Py_NewRef(v));
    }
    if (i != m) {
        Py_DECREF(call);
        return NULL;
    }
    return call;
}

/* Whether a call spells a keyword the binding stage renames (_handler.SPELLED: dim=,
   keepdim=); the keywords' names are exact strs (named_call checked them), so the set's
   lookup runs no Python code. */
static int
spells(const CallArgs *c)
{
    if (spelled == NULL || spelled_fn == NULL)
        return 0;
    for (Py_ssize_t i = 0; i < c->nk; i++) {
        int in = PySet_Contains(spelled, PyTuple_GET_ITEM(c->kwnames, i));
        if (in != 0)
            return in > 0; /* (an error: none but out of memory, and it propagates) */
    }
    return 0;
}

/* op(x, *args, **keywords) on a named array whose outcome the named handler has cached
   (_handler._RED, for reductions and the views whose names follow from their arguments:
   (op, names, ndim, the number of positional arguments, type and value of each after x,
   then name, type and value of each keyword) -> (positional arguments after x, keywords
   for the function, result names)): the function's body with those arguments, the
   result named as the handler's fast link names it; NULL (no error) to decline. A tuple
   argument must hold exact strs and ints (the cache's own rule: its items' types are
   not in the key). The call site keeps its last outcome (f->last: x's names, the key,
   the call as cached_call_form makes it): a loop finds it without building and hashing
   a key. */
PyObject *
named_call(Fast *f, PyObject *x, const CallArgs *c)
{
    if (red_cache == NULL || Py_TYPE(x) != Array_T || !PyUnicode_CheckExact(f->name))
        return NULL;
    PyObject *names = untracked_names(x), *shape = SLOT(x, O_shape), *call;
    if (names == NULL || shape == NULL || !PyTuple_CheckExact(shape))
        return NULL;
    Py_ssize_t np = c->npos, nk = c->nk, nd = PyTuple_GET_SIZE(shape);
    /* (every part of the key plain, plain_key: an Array, a list, a str subclass, a user
       object with its own __eq__ or __hash__ take the Python path; a tuple holds exact
       strs and ints only, as _handler._simple says: its items' types are not in the key) */
    for (Py_ssize_t i = 0; i < np + nk; i++) {
        PyObject *a = c->v[i];
        if (!plain_key(a, 0) && !(PyTuple_CheckExact(a) && plain_key(a, 1)))
            return NULL;
        if (PyTuple_CheckExact(a))
            for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(a); j++)
                if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(a, j)) && !PyLong_CheckExact(PyTuple_GET_ITEM(a, j)))
                    return NULL;
        if (i >= np && !PyUnicode_CheckExact(PyTuple_GET_ITEM(c->kwnames, i - np)))
            return NULL;
    }
    if (f->last[0] == names && same_call(f->last[1], names, nd, c))
        call = Py_NewRef(f->last[2]);
    else {
        PyObject *key = PyTuple_New(4 + 2 * np + 3 * nk), *ndo = PyLong_FromSsize_t(nd);
        PyObject *npo = PyLong_FromSsize_t(np + 1);
        if (key == NULL || ndo == NULL || npo == NULL) {
            Py_XDECREF(key);
            Py_XDECREF(ndo);
            Py_XDECREF(npo);
            return NULL; /* (out of memory: propagates) */
        }
        PyTuple_SET_ITEM(key, 0, Py_NewRef(f->name));
        PyTuple_SET_ITEM(key, 1, Py_NewRef(names));
        PyTuple_SET_ITEM(key, 2, ndo);
        PyTuple_SET_ITEM(key, 3, npo);
        Py_ssize_t at = 4;
        for (Py_ssize_t i = 0; i < np + nk; i++) {
            if (i >= np)
                PyTuple_SET_ITEM(key, at++, Py_NewRef(PyTuple_GET_ITEM(c->kwnames, i - np)));
            PyTuple_SET_ITEM(key, at++, Py_NewRef((PyObject *)Py_TYPE(c->v[i])));
            PyTuple_SET_ITEM(key, at++, Py_NewRef(c->v[i]));
        }
        if (!plain_names(names)) {
            Py_DECREF(key);
            return NULL;
        }
        /* (the key holds what it is made of: a stored key's comparison runs no code of ours) */
        PyObject *hit = Py_XNewRef(PyDict_GetItemWithError(red_cache, key));
        if (hit == NULL && !PyErr_Occurred() && spells(c)) {
            /* dim=, keepdim=: the handler keys the call as the binding stage binds it; it
               binds this one the same way and keeps the outcome under this key too */
            hit = PyObject_CallFunctionObjArgs(spelled_fn, x, key, NULL);
            if (hit == NULL) {
                Py_DECREF(key);
                return decline_error(); /* (the Python path raises its own error) */
            }
            if (hit == Py_None)
                Py_CLEAR(hit);
        }
        call = hit == NULL ? NULL : cached_call_form(hit);
        Py_XDECREF(hit);
        if (call == NULL) {
            Py_DECREF(key);
            return NULL; /* (a miss, or an error that propagates) */
        }
        Py_XSETREF(f->last[0], Py_NewRef(names));
        Py_XSETREF(f->last[1], key);
        Py_XSETREF(f->last[2], Py_NewRef(call));
    }
    /* (call is held: the body may run code that clears the cache) */
    PyObject *tail = PyTuple_GET_ITEM(call, 2), *kn = PyTuple_GET_ITEM(call, 1);
    Py_ssize_t nt = PyTuple_GET_SIZE(tail), m = PyTuple_GET_SIZE(kn);
    PyObject *argv[13]; /* (1 + at most 4 positional + 8 keywords: cached_call_form) */
    argv[0] = x;
    for (Py_ssize_t i = 0; i < nt; i++)
        argv[1 + i] = PyTuple_GET_ITEM(tail, i);
    for (Py_ssize_t i = 0; i < m; i++)
        argv[1 + nt + i] = PyTuple_GET_ITEM(call, 3 + i);
    PyObject *tok = quiet_enter();
    PyObject *r = tok == NULL ? NULL
                              : quiet_exit(tok, PyObject_Vectorcall(f->fallback, argv, 1 + nt, m ? kn : NULL));
    if (r == NULL) {
        Py_DECREF(call);
        return decline_error(); /* the Python path raises its own error */
    }
    /* a fresh unnamed result whose rank the names fit (as the handler); all None: unnamed */
    names = PyTuple_GET_ITEM(call, 0);
    int fits = contract_array(r) && r != x && SLOT(r, O_ext) == Py_None
               && PyTuple_CheckExact(names)
               && PyTuple_GET_SIZE(names) == PyTuple_GET_SIZE(SLOT(r, O_shape));
    int any = 0;
    for (Py_ssize_t i = 0; fits && i < PyTuple_GET_SIZE(names); i++)
        any |= PyTuple_GET_ITEM(names, i) != Py_None;
    if (!fits) {
        Py_DECREF(r);
        Py_DECREF(call);
        return NULL;
    }
    if (any)
        r = name_result_fast(r, names);
    Py_DECREF(call);
    return r;
}

/* The cached outcome of the view (op, the array's names, sig) (_core.VIEW_NAMES; a new
   reference), or NULL when there is none yet (no error; an error set: out of memory).
   last[3] (the call site's: names, sig, outcome, held) keeps the last outcome found: an
   outcome is a function of its key, so it never goes stale, and a loop over one array
   finds it by the names' identity. The key is plain (plain_key: the caller's sig, the
   names checked here), so comparing it with last's and looking it up runs no Python code
   of its own; it is held by this call throughout. */
PyObject *
view_outcome(PyObject *op, PyObject *names, PyObject *sig, PyObject **last)
{
    if (sig == NULL)
        return NULL;
    if (names == last[0] && (sig == last[1] || plain_equal(sig, last[1])))
        return Py_NewRef(last[2]);
    if (view_names == NULL || !plain_names(names) || !plain_key(sig, 2))
        return NULL;
    PyObject *key = PyTuple_Pack(3, op, names, sig), *out;
    if (key == NULL)
        return NULL;
    out = PyDict_GetItemWithError(view_names, key);
    Py_XINCREF(out);
    Py_DECREF(key);
    if (out == NULL)
        return NULL; /* (a miss; an error propagates) */
    Py_XSETREF(last[0], Py_NewRef(names));
    Py_XSETREF(last[1], Py_NewRef(sig));
    Py_XSETREF(last[2], Py_NewRef(out));
    return out;
}

/* r, a fresh view of a named array (stolen), named by the cached outcome of the view
   (op, the array's names, sig) (view_outcome); NULL (r released, no error) when there is
   none yet. */
PyObject *
named_view(PyObject *r, PyObject *op, PyObject *names, PyObject *sig, PyObject **last)
{
    PyObject *out = view_outcome(op, names, sig, last);
    if (out == NULL) {
        Py_DECREF(r);
        return NULL;
    }
    /* (out held: an allocation may run a finalizer that replaces last[2]) */
    r = name_result_fast(r, out);
    Py_DECREF(out);
    return r;
}
