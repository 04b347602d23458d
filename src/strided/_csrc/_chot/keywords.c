/* strided._csrc._chot, keywords.c: PyTorch's parameter names in front of a compiled callable.
 *
 * In front of: strided/torch/_keyword_names.py. ``Keywords(fn, slow, accepts)`` passes a call
 * without keywords, or with only keywords in ``accepts`` (those ``fn`` takes itself), to ``fn``
 * as it came (one vectorcall, no Python frame: a compiled ``Fast`` or ``View`` keeps its speed)
 * and hands any other call with keywords to ``slow`` (the Python binder: PyTorch's names
 * bound, then ``fn`` called). Attributes it lacks are ``slow``'s (its name,
 * signature, docstring, module), so it stands in wherever the function is looked at; as a
 * class attribute it binds as a method, as ``Fast`` does.
 */
#include "chot.h"

typedef struct {
    PyObject_HEAD
    PyObject *fn;      /* the callable called as it came */
    PyObject *slow;    /* the binder, for a call with keywords fn lacks */
    PyObject *accepts; /* a frozenset: the keywords fn takes itself (or NULL: none known) */
    PyObject *dict;
    vectorcallfunc vectorcall;
} Keywords;

static PyObject *
kw_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Keywords *k = (Keywords *)self;
    if (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0)
        return PyObject_Vectorcall(k->fn, args, nargsf, NULL);
    if (k->accepts != NULL) { /* (keywords fn takes itself, torch.std(x, dim=0): no binding) */
        Py_ssize_t n = PyTuple_GET_SIZE(kwnames), i = 0;
        for (; i < n; i++) {
            int has = PySet_Contains(k->accepts, PyTuple_GET_ITEM(kwnames, i));
            if (has < 0)
                return NULL;
            if (!has)
                break;
        }
        if (i == n)
            return PyObject_Vectorcall(k->fn, args, nargsf, kwnames);
    }
    return PyObject_Vectorcall(k->slow, args, nargsf, kwnames);
}

static PyObject *
kw_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *fn, *slow, *accepts = Py_None;
    static char *names[] = {"fn", "slow", "accepts", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O:Keywords", names, &fn, &slow, &accepts))
        return NULL;
    if (!PyCallable_Check(fn) || !PyCallable_Check(slow)) {
        PyErr_SetString(PyExc_TypeError, "Keywords(fn, slow, accepts=None): two callables");
        return NULL;
    }
    if (accepts != Py_None && !PyFrozenSet_CheckExact(accepts)) {
        PyErr_SetString(PyExc_TypeError, "Keywords(fn, slow, accepts=None): accepts a frozenset or None");
        return NULL;
    }
    Keywords *k = (Keywords *)type->tp_alloc(type, 0);
    if (k == NULL)
        return NULL;
    k->fn = Py_NewRef(fn);
    k->slow = Py_NewRef(slow);
    k->accepts = accepts == Py_None ? NULL : Py_NewRef(accepts);
    k->vectorcall = kw_vectorcall;
    return (PyObject *)k;
}

static int
kw_traverse(Keywords *k, visitproc visit, void *arg)
{
    Py_VISIT(k->fn);
    Py_VISIT(k->slow);
    Py_VISIT(k->accepts);
    Py_VISIT(k->dict);
    return 0;
}

static int
kw_clear(Keywords *k)
{
    Py_CLEAR(k->fn);
    Py_CLEAR(k->slow);
    Py_CLEAR(k->accepts);
    Py_CLEAR(k->dict);
    return 0;
}

static void
kw_dealloc(Keywords *k)
{
    PyObject_GC_UnTrack(k);
    kw_clear(k);
    Py_TYPE(k)->tp_free((PyObject *)k);
}

static PyObject *
kw_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

static PyObject *
kw_getattro(PyObject *self, PyObject *name)
{
    PyObject *r = PyObject_GenericGetAttr(self, name);
    if (r != NULL || !PyErr_ExceptionMatches(PyExc_AttributeError))
        return r;
    PyErr_Clear();
    return PyObject_GetAttr(((Keywords *)self)->slow, name);
}

static PyObject *
kw_repr(Keywords *k)
{
    return PyObject_Repr(k->slow);
}

static PyObject *
kw_reduce(Keywords *k, PyObject *Py_UNUSED(ignored))
{
    /* pickled by reference, as the function it stands for */
    return PyObject_GetAttrString((PyObject *)k, "__qualname__"); /* (its own, else slow's) */
}

static PyObject *
kw_fn(Keywords *k, void *Py_UNUSED(c))
{
    return Py_NewRef(k->fn);
}

static PyGetSetDef kw_getset[] = {
    {"__wrapped__", (getter)kw_fn, NULL, "the callable a call without keywords goes to"},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict},
    {NULL},
};

static PyMethodDef kw_methods[] = {
    {"__reduce__", (PyCFunction)kw_reduce, METH_NOARGS, NULL},
    {NULL},
};

static PyTypeObject Keywords_T = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "strided._csrc._chot.Keywords",
    .tp_doc = "Keywords(fn, slow): a call without keywords goes to fn as it came, one with "
              "keywords to slow (strided/torch/_keyword_names.py).",
    .tp_basicsize = sizeof(Keywords),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL
                | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_new = kw_new,
    .tp_dealloc = (destructor)kw_dealloc,
    .tp_traverse = (traverseproc)kw_traverse,
    .tp_clear = (inquiry)kw_clear,
    .tp_vectorcall_offset = offsetof(Keywords, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = kw_get,
    .tp_getattro = kw_getattro,
    .tp_setattro = PyObject_GenericSetAttr,
    .tp_dictoffset = offsetof(Keywords, dict),
    .tp_repr = (reprfunc)kw_repr,
    .tp_getset = kw_getset,
    .tp_methods = kw_methods,
};

int
keywords_type_add(PyObject *m)
{
    if (PyType_Ready(&Keywords_T) < 0)
        return -1;
    return PyModule_AddObjectRef(m, "Keywords", (PyObject *)&Keywords_T);
}
