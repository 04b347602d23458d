/* strided._csrc._cgrad: the backward engine's loop and the recorders, compiled.
 *
 * It stands in front of strided/autograd/_graph.py's ``run_backward``, which stays the
 * definition and the fallback (STRIDED_NO_CEXT=1, or this module not built). Two steps
 * of a plain backward (no ``inputs=``) run here:
 *
 *   discover(roots)      the walk that counts, for each node, the edges feeding it
 *                        (``deps``); None when anything is unexpected (then the Python
 *                        walk runs, and raises what it raises);
 *   drain(heap, buffers, deps, keep_graph)
 *                        the loop that pops the ready node created last, runs its
 *                        ``apply`` on the gradients that arrived for it, and hands what it
 *                        returns to the nodes its edges lead to.
 *
 * Everything a node does stays Python: ``apply``, ``release``, its hooks (``_pre_hooks``,
 * ``_post_hooks``), and the sum of two gradients for one slot (``_add``). What moves to C
 * is the bookkeeping around them (heap, buffers, dependency counts), which costs about a
 * microsecond a node in Python -- and, for the rule nodes (``_record.RuleNode``), the
 * body of ``apply`` around the rule's formulas (``rule_apply``, below: the formulas,
 * ``SavedVar.unpack``'s uncommon cases and ``fit_grad`` stay Python); for a leaf's
 * ``AccumulateGrad``, its first gradient that only the engine holds becomes ``.grad``
 * here (``acc_apply_fast``: ``_graph._stealable``'s conditions; anything else runs
 * ``AccumulateGrad.apply``).
 *
 * Beside the engine, ``axpy`` is the optimizers' host update in one pass (SGD's
 * ``p += g * -lr`` and its momentum buffer), with NumPy's roundings.
 *
 * What it reads (contract.h, "the backward engine"): the nodes' fields, at their offsets
 * in NodeBase (below: Node's compiled base) for a node whose class leaves them NodeBase's
 * own, else by name through the ordinary attribute lookup (so a subclass's own values
 * count), each checked where read; a rule's attributes from Rule's slots likewise
 * (rule_attr); the grad mode from GradState's thread-local flag (state_enabled). ``drain`` declines only between nodes: at a heap entry or a node it does
 * not expect, it returns with the heap, buffers and counts exactly as the Python loop
 * would have them, and that loop runs the rest. Inside a node, an edge it does not expect
 * (not a 2-tuple, an index that is not a plain int in range) hands that edge and the
 * ones after it to the Python ``_distribute``. Errors raised by Python code it calls
 * propagate unchanged, as they would from the Python loop.
 *
 * Recording (the forward pass) has three compiled entry points, each the Python function it
 * stands for step for step, with the same Python calls where that function calls Python
 * (``edge_of`` for a leaf or a view, ``SavedVar``, ``Ext``, the kernel, the plan and save
 * helpers) and the same attributes set in the same order; STRIDED_NO_CEXT=1 runs the
 * Python definitions, and tests/autograd/test_record_c.py compares the two:
 *
 *   record_ew(rule, impl, args)        _record._record_ew (an elementwise row, out of place);
 *   record_call(name, rule, impl, args, kwargs, call_next)
 *                                      _record._record without an in-place target or out=
 *                                      (matmul, reductions, views); a list of arrays or
 *                                      arguments the rule refuses go to the Python _record;
 *   record_node(rule, cls, inputs, saved, result)
 *                                      _fused._record (nn.functional's fused linear and
 *                                      cross entropy).
 *
 * They read everything through the ordinary attribute and dict API (no slot offsets), so
 * an unexpected value behaves as in Python or raises what Python raises.
 *
 * Gradients it holds: none across a call into Python. The hand-off list it passes to
 * ``apply`` is the only thing referring to its gradients (``_stealable`` counts on it),
 * and the list ``apply`` returns is released once its gradients sit in the buffers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* (only NODE_ATTRS is used here: the slot readers stay unused) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "contract.h"
#pragma GCC diagnostic pop

/* What setup() is told once. */
static PyObject *Handoff_T;     /* _graph._Handoff: the gradients passed to apply */
static PyObject *add_fn;        /* _graph._add(a, b): two gradients for one slot */
static PyObject *pre_hooks_fn;  /* _graph._pre_hooks(node, grads_in) -> grads_in */
static PyObject *post_hooks_fn; /* _graph._post_hooks(node, outs, grads_in) -> outs */
static PyObject *distribute_fn; /* _graph._distribute(nf, outs, buffers, deps, heap) */
static PyObject *heappush_fn, *heappop_fn; /* heapq's own */

#define NODE_NAME(name, cname, want) static PyObject *cname;
NODE_ATTRS(NODE_NAME)
static PyObject *s_apply, *s_release;

/* --- NodeBase: the fields of a node in C (_graph.py: Node's base) --------------------------
 *
 * Node (autograd/_graph.py) derives from this type when the module is built, else from
 * _graph._NodeFields, a plain class with the same fields' defaults. The fields the engine
 * and the recorders read and write on every node live here, at fixed offsets, instead of
 * in an instance dict (a node's attribute read through the generic API costs ~200-240
 * instructions, ~25-40 a node per backward; mlp10). Each is an ordinary attribute to
 * Python (a getset: read, written, deleted), with _NodeFields' class defaults where it
 * has one: ``_nout`` 1, ``next_functions`` (), the four hook attributes None; the others
 * raise AttributeError until set, as a missing instance attribute does. Anything else a
 * node is given goes to its ``__dict__`` (made on first use); weak references work.
 *
 * The C code reads a field by offset only for a node whose type is a NodeBase subtype
 * with the generic getattr/setattr and whose MRO resolves every field name to this
 * type's own descriptor (a subclass could shadow one with a class attribute): decided
 * once per type and kept while the type's version tag holds (any change to the class or
 * a base changes the tag). Any other node is read through the attribute API, as before. */

enum {
    F_SEQ, F_NOUT, F_NEXT, F_PRE, F_RETAINS, F_PREHOOKS, F_HOOKS, F_RULE, F_SLOTS, F_METAS, F_NEEDS,
    F_OUT_METAS, F_VALS, F_VARIABLE, NFIELDS
};
static const char *const field_names[NFIELDS] = {
    "_seq", "_nout", "next_functions", "_pre", "_retains", "_prehooks", "_hooks", "_rule", "_slots",
    "_metas", "_needs", "_out_metas", "_vals", "variable"};
static PyObject *field_name[NFIELDS];    /* interned */
static PyObject *field_default[NFIELDS]; /* NULL: AttributeError while unset */
static PyObject *field_descr[NFIELDS];   /* NodeBase's own getset descriptors (borrowed) */

typedef struct {
    PyObject_HEAD
    PyObject *f[NFIELDS];
    PyObject *dict;
    PyObject *weakreflist;
} NodeObject;


/* --- GradState: the grad mode, per thread, in C (autograd/_mode.py's STATE) --------------
 *
 * ``STATE.enabled`` of _mode.py: a threading.local there (STRIDED_NO_CEXT=1), whose
 * attribute read costs ~370 instructions from C and is made ~80 times a step. Here one
 * object whose ``enabled`` reads and writes a C thread-local flag (a Python thread is an
 * OS thread: each thread has its own mode, True in a new thread as the class default
 * there). It keeps the truth of what is stored (True or False read back; what the code
 * stores is a bool); deleting it restores the default. The C paths read the flag
 * directly (state_enabled). */
static _Thread_local int grad_off; /* 1: this thread's grad mode is off */

static PyObject *
gs_get(PyObject *self, void *closure)
{
    return PyBool_FromLong(!grad_off);
}

static int
gs_set(PyObject *self, PyObject *value, void *closure)
{
    int t = value == NULL ? 1 : PyObject_IsTrue(value);
    if (t < 0)
        return -1;
    grad_off = !t;
    return 0;
}

static PyGetSetDef gs_getset[] = {
    {"enabled", gs_get, gs_set, "Whether operations are recorded (this thread).", NULL},
    {NULL},
};

static PyTypeObject GradState_T = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "strided._csrc._cgrad.GradState",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The grad mode of each thread (autograd/_mode.py's STATE), in C.",
    .tp_getset = gs_getset,
    .tp_new = PyType_GenericNew,
};

static PyTypeObject NodeBase_T;

static PyObject *
nb_get(PyObject *self, void *closure)
{
    Py_ssize_t k = (Py_ssize_t)closure;
    PyObject *v = ((NodeObject *)self)->f[k];
    if (v == NULL)
        v = field_default[k];
    if (v == NULL) {
        PyErr_Format(PyExc_AttributeError, "'%.100s' object has no attribute '%U'", Py_TYPE(self)->tp_name,
                     field_name[k]);
        return NULL;
    }
    return Py_NewRef(v);
}

static int
nb_set(PyObject *self, PyObject *value, void *closure)
{
    Py_ssize_t k = (Py_ssize_t)closure;
    PyObject **slot = &((NodeObject *)self)->f[k];
    if (value == NULL && *slot == NULL) {
        PyErr_Format(PyExc_AttributeError, "'%.100s' object has no attribute '%U'", Py_TYPE(self)->tp_name,
                     field_name[k]);
        return -1;
    }
    Py_XSETREF(*slot, Py_XNewRef(value));
    return 0;
}

static int
nb_traverse(PyObject *self, visitproc visit, void *arg)
{
    NodeObject *n = (NodeObject *)self;
    for (int k = 0; k < NFIELDS; k++)
        Py_VISIT(n->f[k]);
    Py_VISIT(n->dict);
    return 0;
}

static int
nb_clear(PyObject *self)
{
    NodeObject *n = (NodeObject *)self;
    for (int k = 0; k < NFIELDS; k++)
        Py_CLEAR(n->f[k]);
    Py_CLEAR(n->dict);
    return 0;
}

static void
nb_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    if (((NodeObject *)self)->weakreflist != NULL)
        PyObject_ClearWeakRefs(self);
    (void)nb_clear(self);
    Py_TYPE(self)->tp_free(self);
}

#define NB_FIELD(k) {NULL, nb_get, nb_set, NULL, (void *)(Py_ssize_t)(k)}
static PyGetSetDef nb_getset[NFIELDS + 2] = {
    NB_FIELD(F_SEQ), NB_FIELD(F_NOUT), NB_FIELD(F_NEXT), NB_FIELD(F_PRE), NB_FIELD(F_RETAINS),
    NB_FIELD(F_PREHOOKS), NB_FIELD(F_HOOKS), NB_FIELD(F_RULE), NB_FIELD(F_SLOTS), NB_FIELD(F_METAS),
    NB_FIELD(F_NEEDS), NB_FIELD(F_OUT_METAS), NB_FIELD(F_VALS), NB_FIELD(F_VARIABLE),
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL},
};
#undef NB_FIELD

static PyTypeObject NodeBase_T = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "strided._csrc._cgrad.NodeBase",
    .tp_basicsize = sizeof(NodeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The fields of a backward-graph node, in C (see autograd/_graph.py, Node).",
    .tp_traverse = nb_traverse,
    .tp_clear = nb_clear,
    .tp_dealloc = nb_dealloc,
    .tp_getset = nb_getset,
    .tp_dictoffset = offsetof(NodeObject, dict),
    .tp_weaklistoffset = offsetof(NodeObject, weakreflist),
};

/* Per type: whether its nodes' fields can be read by offset, and the apply and release
   its MRO resolves to (borrowed; the type holds them while its version tag holds). */
typedef struct {
    PyTypeObject *t;
    unsigned int tag;
    PyObject *apply, *release;
} ntype_entry;
#define NT_CACHE 256
static ntype_entry nt_cache[NT_CACHE]; /* (indexed by the version tag: unique per type) */

static ntype_entry *node_type_miss(PyTypeObject *t);

/* The entry of node's type when its fields can be read by offset, else NULL (no error). */
static inline ntype_entry *
node_type(PyObject *node)
{
    PyTypeObject *t = Py_TYPE(node);
    ntype_entry *e = &nt_cache[t->tp_version_tag & (NT_CACHE - 1)];
    if (e->t == t && e->tag == t->tp_version_tag && (t->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG))
        return e;
    return node_type_miss(t);
}

static ntype_entry *
node_type_miss(PyTypeObject *t)
{
    if (field_descr[0] == NULL || !PyType_IsSubtype(t, &NodeBase_T) || t->tp_getattro != PyObject_GenericGetAttr
        || t->tp_setattro != PyObject_GenericSetAttr)
        return NULL;
    /* (_PyType_Lookup runs no Python code: dict lookups of exact str keys; and it gives the
       type a version tag) */
    for (int k = 0; k < NFIELDS; k++)
        if (_PyType_Lookup(t, field_name[k]) != field_descr[k])
            return NULL;
    PyObject *apply = _PyType_Lookup(t, s_apply), *release = _PyType_Lookup(t, s_release);
    if (!(t->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG))
        return NULL; /* (no tag to key on: decided again next time) */
    ntype_entry *e = &nt_cache[t->tp_version_tag & (NT_CACHE - 1)];
    e->t = t;
    e->tag = t->tp_version_tag;
    e->apply = apply;
    e->release = release;
    return e;
}


/* --- a Rule's attributes, read by slot (_record.py: Rule's __slots__) ----------------------
 *
 * The recorders and the compiled apply read ~6 of a rule's attributes per node. Rule has
 * __slots__ (no instance dict), so for an exact Rule, while Rule's version tag is the one
 * the slots were checked under (each name resolving to its own member descriptor), an
 * attribute is its slot; a slot never set, another class, or a changed Rule class reads
 * through the attribute API. setup_rule_slots tells the class once. */
static PyObject *a_positional, *a_joint, *a_getters, *a_uses, *a_formulas, *r_diff, *r_plans, *r_cls,
    *s_binder, *s_saves, *s_node, *s_multi, *s_argnames, *s_unwrap, *s_layout;
#define NRULE 15
static PyObject **const rule_names[NRULE] = {&a_positional, &a_joint, &a_getters, &a_uses, &a_formulas, &r_diff,
                                             &r_plans, &r_cls, &s_binder, &s_saves, &s_node, &s_multi,
                                             &s_argnames, &s_unwrap, &s_layout};
static Py_ssize_t rule_offs[NRULE];
static PyObject *rule_descr[NRULE];
static PyTypeObject *RuleS_T; /* (set last by setup_rule_slots) */
static unsigned int rule_tag;

/* Whether Rule's slots may be read now: its tag is the checked one, or it checks again. */
static int
rule_slots_hold(void)
{
    PyTypeObject *t = RuleS_T;
    if ((t->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) && t->tp_version_tag == rule_tag)
        return 1;
    for (int i = 0; i < NRULE; i++)
        if (_PyType_Lookup(t, *rule_names[i]) != rule_descr[i])
            return 0;
    if (!(t->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG))
        return 0;
    rule_tag = t->tp_version_tag;
    return 1;
}

/* r.<name> (a new reference), or NULL with an error. */
static PyObject *
rule_attr(PyObject *r, PyObject *name)
{
    if (RuleS_T != NULL && Py_IS_TYPE(r, RuleS_T) && rule_slots_hold())
        for (int i = 0; i < NRULE; i++)
            if (*rule_names[i] == name) {
                PyObject *v = SLOT(r, rule_offs[i]);
                if (v != NULL)
                    return Py_NewRef(v);
                break;
            }
    return PyObject_GetAttr(r, name);
}

/* v (a new reference, released here; NULL: an error is set) is want: 1, 0, or -1 */
static int
is_then_drop(PyObject *v, PyObject *want)
{
    if (v == NULL)
        return -1;
    int res = v == want;
    Py_DECREF(v);
    return res;
}

/* r.<name> is want: 1, 0, or -1 with an error */
static int
rule_is(PyObject *r, PyObject *name, PyObject *want)
{
    return is_then_drop(rule_attr(r, name), want);
}

static PyObject *
setup_rule_slots(PyObject *mod, PyObject *cls)
{
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "setup_rule_slots(Rule): a class");
        return NULL;
    }
    for (int i = 0; i < NRULE; i++)
        if (*rule_names[i] == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "setup_rule_slots(): the module's names are not set up");
            return NULL;
        }
    PyTypeObject *t = (PyTypeObject *)cls;
    Py_ssize_t offs[NRULE];
    PyObject *descr[NRULE];
    for (int i = 0; i < NRULE; i++) {
        if (contract_offset(t, PyUnicode_AsUTF8(*rule_names[i]), &offs[i]) < 0)
            return NULL;
        descr[i] = _PyType_Lookup(t, *rule_names[i]);
    }
    if (!(t->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG)) {
        PyErr_SetString(PyExc_RuntimeError, "setup_rule_slots(): the class has no version tag");
        return NULL;
    }
    PyTypeObject *old = RuleS_T;
    RuleS_T = NULL;
    Py_XDECREF(old);
    for (int i = 0; i < NRULE; i++) {
        rule_offs[i] = offs[i];
        Py_XSETREF(rule_descr[i], Py_NewRef(descr[i]));
    }
    rule_tag = t->tp_version_tag;
    RuleS_T = (PyTypeObject *)Py_NewRef(cls); /* last: it turns the slot reads on */
    Py_RETURN_NONE;
}

#define NODE_F(node, k) (((NodeObject *)(node))->f[k])

/* node.<field k> (a new reference), by offset where node_type allows, else the attribute
   API; NULL with an error. */
static PyObject *
node_get(PyObject *node, int k)
{
    if (node_type(node) != NULL) {
        PyObject *v = NODE_F(node, k);
        if (v == NULL)
            v = field_default[k];
        if (v != NULL)
            return Py_NewRef(v);
    }
    return PyObject_GetAttr(node, field_name[k]);
}

/* node.<field k> = v: 0, or -1 with an error. */
static int
node_set(PyObject *node, int k, PyObject *v)
{
    if (node_type(node) != NULL) {
        Py_XSETREF(NODE_F(node, k), Py_NewRef(v));
        return 0;
    }
    return PyObject_SetAttr(node, field_name[k], v);
}

/* Whether node's own __dict__ holds ``name`` (which would shadow a method): 1, 0, -1. */
static int
node_dict_has(PyObject *node, PyObject *name)
{
    PyObject *d = ((NodeObject *)node)->dict;
    if (d == NULL)
        return 0;
    if (!PyDict_CheckExact(d))
        return 1;
    return PyDict_Contains(d, name);
}

/* Set up NodeBase (module init): the field names, defaults and descriptors. */
static int
nodebase_ready(PyObject *mod)
{
    for (int k = 0; k < NFIELDS; k++) {
        if ((field_name[k] = PyUnicode_InternFromString(field_names[k])) == NULL)
            return -1;
        nb_getset[k].name = field_names[k];
    }
    if ((field_default[F_NOUT] = PyLong_FromLong(1)) == NULL || (field_default[F_NEXT] = PyTuple_New(0)) == NULL)
        return -1;
    for (int k = F_PRE; k <= F_HOOKS; k++)
        field_default[k] = Py_None;
    /* object's own __new__ (a static type left without one could not be instantiated),
       so object.__new__(cls), as the recorders make nodes, makes one too */
    NodeBase_T.tp_new = PyBaseObject_Type.tp_new;
    if (PyType_Ready(&NodeBase_T) < 0)
        return -1;
    for (int k = 0; k < NFIELDS; k++)
        if ((field_descr[k] = PyDict_GetItemWithError(NodeBase_T.tp_dict, field_name[k])) == NULL)
            return -1;
    return PyModule_AddObjectRef(mod, "NodeBase", (PyObject *)&NodeBase_T);
}

/* The largest output count read from a node (a bound on the list built for it). */
#define MAX_NOUT (1 << 20)

/* node.<name> as an exact int in [0, MAX_NOUT], or -1: anything else (an ordinary error
   cleared; a KeyboardInterrupt or MemoryError stays set: the caller checks PyErr_Occurred
   and propagates it, contract.h). */
static Py_ssize_t
node_count(PyObject *node, int k)
{
    PyObject *v = node_get(node, k);
    if (v == NULL) {
        (void)contract_clear(PyExc_Exception);
        return -1;
    }
    Py_ssize_t n = -1;
    if (PyLong_CheckExact(v)) {
        int overflow;
        long long k = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (!overflow && k >= 0 && k <= MAX_NOUT)
            n = (Py_ssize_t)k;
    }
    Py_DECREF(v);
    return n;
}

/* _Handoff([None] * n) */
static PyObject *
new_handoff(Py_ssize_t n)
{
    PyTypeObject *t = (PyTypeObject *)Handoff_T;
    PyObject *h;
    if (t->tp_new == PyType_GenericNew && t->tp_init == PyList_Type.tp_init) {
        /* the class call's steps (a list subclass without __new__ or __init__ of its own:
           the generic new, then list.__init__, which extends the empty list by the Nones) */
        h = t->tp_alloc(t, 0);
        for (Py_ssize_t i = 0; h != NULL && i < n; i++)
            if (PyList_Append(h, Py_None) < 0)
                Py_CLEAR(h);
        return h;
    }
    PyObject *lst = PyList_New(n);
    if (lst == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        PyList_SET_ITEM(lst, i, Py_NewRef(Py_None));
    h = PyObject_CallOneArg(Handoff_T, lst);
    Py_DECREF(lst);
    return h;
}

/* bool(node.<name>), or -1 with an error set (as the Python loop's ``if node._pre``). */
static int
node_truth(PyObject *node, int k)
{
    PyObject *v = node_get(node, k);
    if (v == NULL)
        return -1;
    int r = v == Py_None ? 0 : PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

/* A plain int's value, or 0 with *ok = 0 (not an exact int, or out of range). */
static long long
plain_int(PyObject *v, int *ok)
{
    int overflow;
    long long k;
    if (!PyLong_CheckExact(v)) {
        *ok = 0;
        return 0;
    }
    k = PyLong_AsLongLongAndOverflow(v, &overflow);
    *ok = !overflow && !(k == -1 && PyErr_Occurred());
    if (!*ok)
        (void)contract_clear(PyExc_OverflowError); /* (the only error of an exact int) */
    return k;
}

/* The rest of the edges, from the i-th, through the Python ``_distribute``. */
static int
distribute_rest(PyObject *nf, PyObject *outs, Py_ssize_t i, PyObject *buffers, PyObject *deps,
                PyObject *heap)
{
    PyObject *nf_rest = PySequence_GetSlice(nf, i, PY_SSIZE_T_MAX);
    PyObject *outs_rest = nf_rest ? PySequence_GetSlice(outs, i, PY_SSIZE_T_MAX) : NULL;
    PyObject *r = NULL;
    if (outs_rest != NULL) {
        PyObject *args[5] = {nf_rest, outs_rest, buffers, deps, heap};
        r = PyObject_Vectorcall(distribute_fn, args, 5, NULL);
    }
    Py_XDECREF(nf_rest);
    Py_XDECREF(outs_rest);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

/* buffers[child][nr] = g, or the sum with what is there (_add): 1 when done, 0 when
   child's buffer or output count is not as expected (nothing changed), -1 on error. */
static int
give(PyObject *buffers, PyObject *child, Py_ssize_t nr, PyObject *g)
{
    PyObject *cb = PyDict_GetItemWithError(buffers, child); /* borrowed */
    if (cb == NULL) {
        if (PyErr_Occurred())
            return -1;
        Py_ssize_t nout = node_count(child, F_NOUT);
        if (nout < 0 || nr >= nout)
            return PyErr_Occurred() ? -1 : 0;
        cb = new_handoff(nout);
        if (cb == NULL)
            return -1;
        int r = PyDict_SetItem(buffers, child, cb);
        if (r == 0)
            PyList_SetItem(cb, nr, Py_NewRef(g)); /* (None was there) */
        Py_DECREF(cb);
        return r < 0 ? -1 : 1;
    }
    if (Py_TYPE(cb) != (PyTypeObject *)Handoff_T || nr >= PyList_GET_SIZE(cb))
        return 0;
    Py_INCREF(cb);
    PyObject *args[2] = {Py_NewRef(PyList_GET_ITEM(cb, nr)), g};
    PyObject *sum = PyObject_Vectorcall(add_fn, args, 2, NULL);
    Py_DECREF(args[0]);
    int r = sum == NULL ? -1 : PyList_SetItem(cb, nr, sum); /* (IndexError if it shrank) */
    Py_DECREF(cb);
    return r < 0 ? -1 : 1;
}

/* _graph._distribute, for a tuple of edges and a list (or tuple) of gradients. */
static int
distribute(PyObject *nf, PyObject *outs, PyObject *buffers, PyObject *deps, PyObject *heap)
{
    if (!PyTuple_CheckExact(nf) || !(PyList_CheckExact(outs) || PyTuple_CheckExact(outs)))
        return distribute_rest(nf, outs, 0, buffers, deps, heap);
    for (Py_ssize_t i = 0;; i++) {
        /* zip(nf, outs): as long as the shorter (outs is re-read: Python code runs here) */
        if (i >= PyTuple_GET_SIZE(nf) || i >= PySequence_Fast_GET_SIZE(outs))
            return 0;
        PyObject *e = PyTuple_GET_ITEM(nf, i);
        if (!PyTuple_CheckExact(e) || PyTuple_GET_SIZE(e) != 2)
            return distribute_rest(nf, outs, i, buffers, deps, heap);
        PyObject *child = PyTuple_GET_ITEM(e, 0), *nr_o = PyTuple_GET_ITEM(e, 1);
        if (child == Py_None)
            continue;
        PyObject *d_o = PyDict_GetItemWithError(deps, child); /* borrowed */
        if (d_o == NULL) {
            if (PyErr_Occurred())
                return -1;
            continue;
        }
        int ok;
        long long d = plain_int(d_o, &ok);
        if (!ok)
            return distribute_rest(nf, outs, i, buffers, deps, heap);
        PyObject *g = PySequence_Fast_ITEMS(outs)[i];
        if (g != Py_None) {
            long long nr = plain_int(nr_o, &ok);
            if (!ok || nr < 0)
                return distribute_rest(nf, outs, i, buffers, deps, heap);
            /* (held across the Python code below, which might change outs; released
               before the next node runs, so the buffers hold the only reference) */
            Py_INCREF(g);
            int r = give(buffers, child, (Py_ssize_t)nr, g);
            Py_DECREF(g);
            if (r < 0)
                return -1;
            if (r == 0)
                return distribute_rest(nf, outs, i, buffers, deps, heap);
        }
        if (d == 1) {
            PyObject *zero = PyLong_FromLong(0);
            if (zero == NULL || PyDict_SetItem(deps, child, zero) < 0) {
                Py_XDECREF(zero);
                return -1;
            }
            Py_DECREF(zero);
            Py_INCREF(child); /* (the edge's tuple may go while Python code runs) */
            PyObject *seq = node_get(child, F_SEQ);
            PyObject *neg = seq ? PyNumber_Negative(seq) : NULL;
            Py_XDECREF(seq);
            PyObject *item = neg ? PyTuple_Pack(2, neg, child) : NULL;
            Py_XDECREF(neg);
            Py_DECREF(child);
            if (item == NULL)
                return -1;
            PyObject *args[2] = {heap, item};
            PyObject *r = PyObject_Vectorcall(heappush_fn, args, 2, NULL);
            Py_DECREF(item);
            if (r == NULL)
                return -1;
            Py_DECREF(r);
        }
        else {
            PyObject *dm = PyLong_FromLongLong(d - 1);
            int r = dm ? PyDict_SetItem(deps, child, dm) : -1;
            Py_XDECREF(dm);
            if (r < 0)
                return -1;
        }
    }
}

/* Whether every gradient in grads_in is None (the Python loop's test before apply). */
static int
all_none(PyObject *grads_in)
{
    if (Py_IS_TYPE(grads_in, (PyTypeObject *)Handoff_T) || PyList_CheckExact(grads_in)) {
        /* (the hand-off, a list subclass that iterates as a list: read in place, not copied
           into a list first as PySequence_Fast copies a subclass) */
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(grads_in); i++)
            if (PyList_GET_ITEM(grads_in, i) != Py_None)
                return 0;
        return 1;
    }
    PyObject *seq = PySequence_Fast(grads_in, "grads_in");
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int r = 1;
    for (Py_ssize_t i = 0; i < n && r; i++)
        r = PySequence_Fast_ITEMS(seq)[i] == Py_None;
    Py_DECREF(seq);
    return r;
}

static PyObject *node_apply(PyObject *node, PyObject *grads);

/* RuleNode.release and Node.release (setup_release), recognised on a node's bound method */
static PyObject *rule_release_fn, *base_release_fn, *s_vals_rel;

/* node.release(): RuleNode's (``self._vals = None``) and Node's (nothing) done here; any
   other method called. 0, or -1 with an error. */
static int
node_release(PyObject *node)
{
    ntype_entry *te = rule_release_fn != NULL ? node_type(node) : NULL;
    PyObject *rel = te != NULL ? te->release : NULL; /* (read before any Python code runs) */
    if (rel != NULL && (rel == rule_release_fn || rel == base_release_fn)) {
        int own = node_dict_has(node, s_release); /* (an instance's own release shadows the class's) */
        if (own < 0)
            return -1;
        if (!own) {
            if (rel == rule_release_fn)
                Py_XSETREF(NODE_F(node, F_VALS), Py_NewRef(Py_None)); /* self._vals = None */
            return 0;
        }
    }
    PyObject *m = PyObject_GetAttr(node, s_release), *r;
    if (m == NULL)
        return -1;
    if (PyMethod_Check(m) && PyMethod_GET_SELF(m) == node && rule_release_fn != NULL
        && (PyMethod_GET_FUNCTION(m) == rule_release_fn || PyMethod_GET_FUNCTION(m) == base_release_fn)) {
        int err = PyMethod_GET_FUNCTION(m) == rule_release_fn ? PyObject_SetAttr(node, s_vals_rel, Py_None) : 0;
        Py_DECREF(m);
        return err;
    }
    r = PyObject_CallNoArgs(m);
    Py_DECREF(m);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

static PyObject *
setup_release(PyObject *mod, PyObject *args)
{
    PyObject *rule, *base;
    if (!PyArg_ParseTuple(args, "OO:setup_release", &rule, &base))
        return NULL;
    if (s_vals_rel == NULL && (s_vals_rel = PyUnicode_InternFromString("_vals")) == NULL)
        return NULL;
    Py_XSETREF(base_release_fn, Py_NewRef(base));
    Py_XSETREF(rule_release_fn, Py_NewRef(rule)); /* last: it turns the compiled case on */
    Py_RETURN_NONE;
}

/* One node, popped from the heap: its hooks, apply, release, and its gradients handed on. */
static int
run_node(PyObject *node, PyObject *grads_in, PyObject *buffers, PyObject *deps, PyObject *heap,
         int keep_graph)
{
    /* grads_in: a new reference, given to this function */
    PyObject *nf = NULL, *outs = NULL;
    int hooked = 0;
    int hook_fields[3] = {F_PRE, F_RETAINS, F_PREHOOKS}; /* (in the Python loop's order) */
    for (int k = 0; k < 3 && !hooked; k++) {
        hooked = node_truth(node, hook_fields[k]);
        if (hooked < 0)
            goto error;
    }
    if (hooked) {
        PyObject *r = PyObject_CallFunctionObjArgs(pre_hooks_fn, node, grads_in, NULL);
        if (r == NULL)
            goto error;
        Py_SETREF(grads_in, r);
    }
    nf = node_get(node, F_NEXT);
    if (nf == NULL)
        goto error;
    int none = all_none(grads_in);
    if (none < 0)
        goto error;
    if (none) {
        Py_ssize_t n = PyObject_Length(nf);
        if (n < 0)
            goto error;
        outs = PyList_New(n);
        if (outs == NULL)
            goto error;
        for (Py_ssize_t i = 0; i < n; i++)
            PyList_SET_ITEM(outs, i, Py_NewRef(Py_None));
    }
    else {
        outs = node_apply(node, grads_in); /* (RuleNode's: compiled, rule_apply) */
        if (outs == NULL)
            goto error;
        int h = node_truth(node, F_HOOKS);
        if (h < 0)
            goto error;
        if (h) {
            PyObject *r = PyObject_CallFunctionObjArgs(post_hooks_fn, node, outs, grads_in, NULL);
            if (r == NULL)
                goto error;
            Py_SETREF(outs, r);
        }
        if (!keep_graph && node_release(node) < 0)
            goto error;
    }
    Py_CLEAR(grads_in);
    int t = PyObject_IsTrue(nf);
    if (t < 0 || (t && distribute(nf, outs, buffers, deps, heap) < 0))
        goto error;
    Py_DECREF(nf);
    Py_DECREF(outs);
    return 0;
error:
    Py_XDECREF(grads_in);
    Py_XDECREF(nf);
    Py_XDECREF(outs);
    return -1;
}

static PyObject *
drain(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyList_CheckExact(args[0]) || !PyDict_CheckExact(args[1])
        || !PyDict_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "drain(heap: list, buffers: dict, deps: dict, keep_graph)");
        return NULL;
    }
    if (Handoff_T == NULL)
        Py_RETURN_NONE; /* (not set up: the Python loop runs everything) */
    PyObject *heap = args[0], *buffers = args[1], *deps = args[2];
    int keep_graph = PyObject_IsTrue(args[3]);
    if (keep_graph < 0)
        return NULL;
    while (PyList_GET_SIZE(heap) > 0) {
        /* Decide before anything changes: a heap entry or node not as expected is left to
           the Python loop, with the heap as it is. */
        PyObject *top = PyList_GET_ITEM(heap, 0);
        if (!PyTuple_CheckExact(top) || PyTuple_GET_SIZE(top) != 2)
            break;
        PyObject *node = Py_NewRef(PyTuple_GET_ITEM(top, 1));
        PyObject *grads_in = Py_XNewRef(PyDict_GetItemWithError(buffers, node));
        Py_ssize_t nout = 0;
        if (grads_in == NULL) {
            if (PyErr_Occurred()) {
                Py_DECREF(node);
                return NULL;
            }
            nout = node_count(node, F_NOUT);
            if (nout < 0) {
                Py_DECREF(node);
                if (PyErr_Occurred())
                    return NULL;
                break;
            }
        }
        PyObject *popped = PyObject_Vectorcall(heappop_fn, &heap, 1, NULL);
        if (popped == NULL) {
            Py_XDECREF(grads_in);
            Py_DECREF(node);
            return NULL;
        }
        Py_DECREF(popped);
        if (grads_in != NULL) {
            if (PyDict_DelItem(buffers, node) < 0) {
                Py_DECREF(grads_in);
                Py_DECREF(node);
                return NULL;
            }
        }
        else if ((grads_in = new_handoff(nout)) == NULL) {
            Py_DECREF(node);
            return NULL;
        }
        int r = run_node(node, grads_in, buffers, deps, heap, keep_graph);
        Py_DECREF(node);
        if (r < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

/* The Python walk of run_backward for a plain backward: {node: edges feeding it}. */
static PyObject *
discover(PyObject *mod, PyObject *roots)
{
    if (!PyList_CheckExact(roots)) {
        PyErr_SetString(PyExc_TypeError, "discover(roots: list)");
        return NULL;
    }
    PyObject *deps = PyDict_New(), *seen = PySet_New(NULL), *stack = PyList_New(0);
    PyObject *node = NULL, *nf = NULL;
    if (deps == NULL || seen == NULL || stack == NULL)
        goto error;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(roots); i++) {
        PyObject *e = PyList_GET_ITEM(roots, i);
        if (!PyTuple_CheckExact(e) || PyTuple_GET_SIZE(e) != 2)
            goto decline;
        PyObject *n = PyTuple_GET_ITEM(e, 0);
        if (n == Py_None)
            continue;
        Py_INCREF(n); /* (a node's __hash__ or __eq__ is Python code: n held across it) */
        int in = PySet_Contains(seen, n);
        int bad = in < 0 || (!in && (PySet_Add(seen, n) < 0 || PyList_Append(stack, n) < 0));
        Py_DECREF(n);
        if (bad)
            goto error;
    }
    while (PyList_GET_SIZE(stack) > 0) {
        Py_ssize_t top = PyList_GET_SIZE(stack) - 1;
        node = Py_NewRef(PyList_GET_ITEM(stack, top));
        if (PyList_SetSlice(stack, top, top + 1, NULL) < 0)
            goto error;
        nf = node_get(node, F_NEXT);
        if (nf == NULL) {
            if (!contract_clear(PyExc_Exception))
                goto error; /* (KeyboardInterrupt, MemoryError: propagate) */
            goto decline;
        }
        if (!PyTuple_CheckExact(nf))
            goto decline;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(nf); i++) {
            PyObject *e = PyTuple_GET_ITEM(nf, i);
            if (!PyTuple_CheckExact(e) || PyTuple_GET_SIZE(e) != 2)
                goto decline;
            PyObject *child = PyTuple_GET_ITEM(e, 0);
            if (child == Py_None)
                continue;
            PyObject *d = PyDict_GetItemWithError(deps, child);
            int ok = 1;
            long long k = 0;
            if (d == NULL && PyErr_Occurred())
                goto error;
            if (d != NULL)
                k = plain_int(d, &ok);
            PyObject *dn = ok ? PyLong_FromLongLong(k + 1) : NULL;
            if (dn == NULL || PyDict_SetItem(deps, child, dn) < 0) {
                Py_XDECREF(dn);
                goto error;
            }
            Py_DECREF(dn);
            int in = PySet_Contains(seen, child);
            if (in < 0 || (!in && (PySet_Add(seen, child) < 0 || PyList_Append(stack, child) < 0)))
                goto error;
        }
        Py_CLEAR(nf);
        Py_CLEAR(node);
    }
    Py_DECREF(seen);
    Py_DECREF(stack);
    return deps;
decline:
    Py_XDECREF(deps);
    Py_XDECREF(seen);
    Py_XDECREF(stack);
    Py_XDECREF(node);
    Py_XDECREF(nf);
    Py_RETURN_NONE;
error:
    /* (the Python walk meets the same error: a node's hash or eq that raises, memory) */
    Py_XDECREF(deps);
    Py_XDECREF(seen);
    Py_XDECREF(stack);
    Py_XDECREF(node);
    Py_XDECREF(nf);
    return NULL;
}

/* --- the gradient of maximum(x, 0) and minimum(x, 0) ------------------------------------- */

/* pick(g, x, out, upper): out = _rules._pick(g, x < 0 (x > 0 when upper), x, 0), the
   gradient of maximum(x, 0) (minimum) for x: +0.0 where x loses, g * 0.5 on a tie
   (x == 0, either sign), g elsewhere (a NaN x neither loses nor ties). The Python
   formula makes four passes (two comparisons, a count of the ties, a select); this one.
   g, x and out: C-contiguous buffers of one format, float32 or float64, of one length
   (out writable). Returns False, writing nothing, for anything else. */
/* Branch-free, so that it vectorizes (a ReLU's mask is irregular: a branch per element
   mispredicts about half the time), and the tests on x made on its bits (a floating
   comparison is control flow to the compiler, which keeps its invalid flag on NaN). x
   loses (x < 0, or x > 0 when upper; not a zero, not NaN) exactly when its bits lie in
   [lo, lo + inf's bits - 1]: from -0.0's successor to -inf (lo = sign bit + 1), or from
   +0.0's successor to +inf (lo = 1); one unsigned test of bits - lo. A tie is x's bits
   without the sign all zero. Every g * 0.5 is computed, then the bits selected. On x86-64
   with GCC, an AVX2 clone runs where the CPU has it (the same operations, wider). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define PICK_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PICK_CLONES
#endif

#define PICK_FN(NAME, T, U, SIGN, INF)                                                    \
    PICK_CLONES static void NAME(const T *restrict gp, const U *restrict xb, U *restrict ob, \
                                 Py_ssize_t n, int upper)                                 \
    {                                                                                     \
        const U lo = upper ? (U)1 : (U)(SIGN) + 1, width = (U)(INF) - 1;                  \
        for (Py_ssize_t i = 0; i < n; i++) {                                              \
            T gv = gp[i], hv = gv * (T)0.5;                                               \
            U gb, hb, xv = xb[i];                                                         \
            memcpy(&gb, &gv, sizeof gb);                                                  \
            memcpy(&hb, &hv, sizeof hb);                                                  \
            U tie = -(U)((U)(xv << 1) == 0);                                              \
            U keep = -(U)((U)(xv - lo) > width);                                          \
            ob[i] = ((hb & tie) | (gb & ~tie)) & keep;                                    \
        }                                                                                 \
    }

PICK_FN(pick_f32, float, uint32_t, 0x80000000u, 0x7f800000u)
PICK_FN(pick_f64, double, uint64_t, 0x8000000000000000ull, 0x7ff0000000000000ull)

/* The item size of a native float32 ("f") or float64 ("d") buffer, else 0. */
static int
float_format(const Py_buffer *b)
{
    const char *f = b->format;
    if (f == NULL || f[0] == '\0' || f[1] != '\0')
        return 0;
    if (f[0] == 'f' && b->itemsize == 4)
        return 4;
    if (f[0] == 'd' && b->itemsize == 8)
        return 8;
    return 0;
}

/* relu's gradient, PyTorch's threshold_backward(g, result, 0): out = where(r <= 0, +0.0, g),
   r being relu's result. Branch-free on r's bits as above: r is kept (neither a zero nor
   negative: positive, or NaN of either sign) exactly when its bits without the sign
   exceed 0 (sign clear) or inf's bits (sign set: only a NaN does). */
#define THRESHOLD_FN(NAME, U, SIGN, INF)                                                   \
    PICK_CLONES static void NAME(const U *restrict gb, const U *restrict rb, U *restrict ob, \
                                 Py_ssize_t n)                                            \
    {                                                                                     \
        for (Py_ssize_t i = 0; i < n; i++) {                                              \
            U rv = rb[i];                                                                 \
            U t = -(U)(rv >> (sizeof(U) * 8 - 1)) & (U)(INF);                             \
            U keep = -(U)((rv & ~(U)(SIGN)) > t);                                         \
            ob[i] = gb[i] & keep;                                                         \
        }                                                                                 \
    }

THRESHOLD_FN(threshold_f32, uint32_t, 0x80000000u, 0x7f800000u)
THRESHOLD_FN(threshold_f64, uint64_t, 0x8000000000000000ull, 0x7ff0000000000000ull)

/* The buffers of (g, x, out): C-contiguous, one float format (float32 or float64), one
   length, out writable and overlapping neither input. Returns the item size (4 or 8),
   0 (nothing held, no error) when they are not, or -1 with an error set (a
   KeyboardInterrupt, MemoryError: contract_clear_buffer keeps those). */
static int
three_buffers(PyObject *const *args, Py_buffer *bg, Py_buffer *bx, Py_buffer *bo)
{
    const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT;
    if (PyObject_GetBuffer(args[0], bg, flags) < 0)
        return contract_clear_buffer() ? 0 : -1;
    if (PyObject_GetBuffer(args[1], bx, flags) < 0) {
        PyBuffer_Release(bg);
        return contract_clear_buffer() ? 0 : -1;
    }
    if (PyObject_GetBuffer(args[2], bo, flags | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(bg);
        PyBuffer_Release(bx);
        return contract_clear_buffer() ? 0 : -1;
    }
    int size = float_format(bg);
    int ok = size != 0 && float_format(bx) == size && float_format(bo) == size
             && bg->len == bx->len && bg->len == bo->len
             && !(bo->buf < (void *)((char *)bg->buf + bg->len) && bg->buf < (void *)((char *)bo->buf + bo->len))
             && !(bo->buf < (void *)((char *)bx->buf + bx->len) && bx->buf < (void *)((char *)bo->buf + bo->len));
    if (!ok) {
        PyBuffer_Release(bg);
        PyBuffer_Release(bx);
        PyBuffer_Release(bo);
        return 0;
    }
    return size;
}

/* max's and min's gradient over the last axis where each row has one hit:
   one_hit(g, x, r, out) with x and out of rows * n elements, g and r of rows (the result
   and its gradient, one per row), all C-contiguous, one float format: out[i, j] = g[i]
   where x[i, j] == r[i], else +0.0 -- _rules._minmax_grad's where(x == r, g, 0.0) when
   every row holds r[i] exactly once (no tie, no NaN: a NaN row's r is NaN, which equals
   nothing). False, out's contents then undefined, where a row holds it 0 or 2+ times
   (ties share the gradient: the formula runs) or the buffers do not fit. */
#define ONE_HIT_FN(NAME, T, U)                                                              \
    static int NAME(const char *gp, const char *xp, const char *rp, char *op, Py_ssize_t rows,  \
                    Py_ssize_t n)                                                            \
    {                                                                                        \
        const T *x = (const T *)xp, *r = (const T *)rp;                                      \
        const U *g = (const U *)gp;                                                          \
        U *o = (U *)op;                                                                      \
        for (Py_ssize_t i = 0; i < rows; i++, x += n, o += n) {                              \
            T ri = r[i];                                                                     \
            U gi = g[i];                                                                     \
            Py_ssize_t hits = 0;                                                             \
            for (Py_ssize_t j = 0; j < n; j++) {                                             \
                U m = -(U)(x[j] == ri);                                                      \
                hits += (Py_ssize_t)(m & 1);                                                 \
                o[j] = gi & m;                                                               \
            }                                                                                \
            if (hits != 1)                                                                   \
                return 0;                                                                    \
        }                                                                                    \
        return 1;                                                                            \
    }

ONE_HIT_FN(one_hit_f32, float, uint32_t)
ONE_HIT_FN(one_hit_f64, double, uint64_t)

static PyObject *
one_hit(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "one_hit(g, x, r, out)");
        return NULL;
    }
    const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT;
    Py_buffer b[4];
    int got = 0, ok = 1;
    for (; got < 4; got++)
        if (PyObject_GetBuffer(args[got], &b[got], flags | (got == 3 ? PyBUF_WRITABLE : 0)) < 0) {
            ok = 0;
            break;
        }
    if (!ok && !contract_clear_buffer()) {
        for (int i = 0; i < got; i++)
            PyBuffer_Release(&b[i]);
        return NULL;
    }
    int size = ok ? float_format(&b[0]) : 0;
    Py_ssize_t rows = size ? b[0].len / size : 0, n = rows ? b[1].len / size / rows : 0;
    ok = ok && size && float_format(&b[1]) == size && float_format(&b[2]) == size && float_format(&b[3]) == size
         && b[2].len == b[0].len && b[1].len == b[3].len && rows > 0 && n > 0 && rows * n * size == b[1].len;
    for (int i = 0; ok && i < 3; i++) /* (out overlaps no input) */
        ok = !((char *)b[3].buf < (char *)b[i].buf + b[i].len && (char *)b[i].buf < (char *)b[3].buf + b[3].len);
    if (ok)
        ok = size == 4 ? one_hit_f32(b[0].buf, b[1].buf, b[2].buf, b[3].buf, rows, n)
                       : one_hit_f64(b[0].buf, b[1].buf, b[2].buf, b[3].buf, rows, n);
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&b[i]);
    return PyBool_FromLong(ok);
}

static PyObject *
pick(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "pick(g, x, out, upper)");
        return NULL;
    }
    int upper = PyObject_IsTrue(args[3]);
    if (upper < 0)
        return NULL;
    Py_buffer bg, bx, bo;
    int size = three_buffers(args, &bg, &bx, &bo);
    if (size < 0)
        return NULL;
    if (size == 0)
        Py_RETURN_FALSE;
    Py_ssize_t n = bg.len / size;
    Py_BEGIN_ALLOW_THREADS
    if (size == 4)
        pick_f32((const float *)bg.buf, (const uint32_t *)bx.buf, (uint32_t *)bo.buf, n, upper);
    else
        pick_f64((const double *)bg.buf, (const uint64_t *)bx.buf, (uint64_t *)bo.buf, n, upper);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&bg);
    PyBuffer_Release(&bx);
    PyBuffer_Release(&bo);
    Py_RETURN_TRUE;
}

static PyObject *
threshold(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "threshold(g, result, out)");
        return NULL;
    }
    Py_buffer bg, br, bo;
    int size = three_buffers(args, &bg, &br, &bo);
    if (size < 0)
        return NULL;
    if (size == 0)
        Py_RETURN_FALSE;
    Py_ssize_t n = bg.len / size;
    Py_BEGIN_ALLOW_THREADS
    if (size == 4)
        threshold_f32((const uint32_t *)bg.buf, (const uint32_t *)br.buf, (uint32_t *)bo.buf, n);
    else
        threshold_f64((const uint64_t *)bg.buf, (const uint64_t *)br.buf, (uint64_t *)bo.buf, n);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&bg);
    PyBuffer_Release(&br);
    PyBuffer_Release(&bo);
    Py_RETURN_TRUE;
}

/* The optimizers' update p += g * a (SGD's ``p.add_(g, alpha=-lr)``: the host path's
   ``np.add(p, np.multiply(g, a), out=p)``) in one pass, without the product's temporary.
   The same two roundings as NumPy's two loops: the product rounded to the element type,
   then the sum (this file is compiled as ISO C: -std=c11 keeps GCC from contracting
   them into one fused multiply-add, whatever the clone's target). ``a`` is the Python
   float NumPy casts to the array's type (a weak scalar), so float32 multiplies by
   (float)a; a NaN ``a`` is declined (the optimizers refuse a NaN rate before this).
   NaNs: a lane with one NaN operand gives that NaN, quieted, in either operand order.
   Note: where p and g * a are both NaN, x86 returns one of the two payloads depending on
   the instruction's operand order; NumPy's own add differs there by position (its vector
   body and its scalar tail order them differently: measured on NumPy 2.4, float32 and
   float64), so no order is NumPy's; this loop's is the compiler's. */
#define AXPY_FN(NAME, T)                                                                   \
    PICK_CLONES static void NAME(T *restrict pp, const T *restrict gp, T a, Py_ssize_t n)  \
    {                                                                                     \
        for (Py_ssize_t i = 0; i < n; i++)                                                \
            pp[i] = pp[i] + gp[i] * a;                                                    \
    }

AXPY_FN(axpy_f32, float)
AXPY_FN(axpy_f64, double)

/* SGD's momentum buffer b = b * m + g * a (``buf.mul_(m).add_(g, alpha=a)``: NumPy's
   multiply in place, then add of g or of g * a) in one pass: the same roundings (b * m,
   g * a, their sum; g * 1 is g exactly, its NaN quieted as the sum quiets it anyway). */
#define AXPBY_FN(NAME, T)                                                                  \
    PICK_CLONES static void NAME(T *restrict bp, T m, const T *restrict gp, T a, Py_ssize_t n) \
    {                                                                                     \
        for (Py_ssize_t i = 0; i < n; i++)                                                \
            bp[i] = bp[i] * m + gp[i] * a;                                                \
    }

AXPBY_FN(axpby_f32, float)
AXPBY_FN(axpby_f64, double)

/* SGD's step with a momentum buffer (optim/sgd.py's _host_update with momentum, one
   element at a time): g = grad (negated with maximize; + p * wd with weight decay), b =
   b * m + g * fa, then p += (nesterov ? g + b * m : b) * a -- the NumPy calls' roundings,
   each operation rounded to T (no contraction: -std=c11), every element's operands read
   before they are written, as the whole-array calls read them (the caller declines
   overlapping buffers). NaNs: as axpy's note says (two NaN operands: the compiler's order). */
#define SGD_MOM_FN(NAME, T)                                                                  \
    PICK_CLONES static void NAME(T *restrict pp, const T *restrict gp, T *restrict bp, T a, T m, \
                                 T fa, T wd, int has_wd, int nesterov, int maximize, Py_ssize_t n) \
    {                                                                                       \
        for (Py_ssize_t i = 0; i < n; i++) {                                                \
            T g = gp[i];                                                                    \
            if (maximize)                                                                   \
                g = -g;                                                                     \
            if (has_wd)                                                                     \
                g = g + pp[i] * wd;                                                         \
            T b = bp[i] * m + g * fa;                                                       \
            bp[i] = b;                                                                      \
            T u = nesterov ? g + b * m : b;                                                 \
            pp[i] = pp[i] + u * a;                                                          \
        }                                                                                   \
    }

SGD_MOM_FN(sgd_mom_f32, float)
SGD_MOM_FN(sgd_mom_f64, double)

static PyObject *
axpy(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    /* axpy(p, g, a): p += g * a; axpy(b, g, a, m): b = b * m + g * a */
    if (nargs != 3 && nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "axpy(p, g, a) or axpy(b, g, a, m)");
        return NULL;
    }
    for (Py_ssize_t k = 2; k < nargs; k++)
        if (!PyFloat_CheckExact(args[k]) || PyFloat_AS_DOUBLE(args[k]) != PyFloat_AS_DOUBLE(args[k]))
            Py_RETURN_FALSE;
    double a = PyFloat_AS_DOUBLE(args[2]);
    double m = nargs == 4 ? PyFloat_AS_DOUBLE(args[3]) : 1.0;
    const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT;
    Py_buffer bp, bg;
    if (PyObject_GetBuffer(args[0], &bp, flags | PyBUF_WRITABLE) < 0)
        return contract_clear_buffer() ? Py_NewRef(Py_False) : NULL;
    if (PyObject_GetBuffer(args[1], &bg, flags) < 0) {
        PyBuffer_Release(&bp);
        return contract_clear_buffer() ? Py_NewRef(Py_False) : NULL;
    }
    int size = float_format(&bp);
    int ok = size != 0 && float_format(&bg) == size && bp.len == bg.len
             && !(bp.buf < (void *)((char *)bg.buf + bg.len) && bg.buf < (void *)((char *)bp.buf + bp.len));
    if (!ok) {
        PyBuffer_Release(&bp);
        PyBuffer_Release(&bg);
        Py_RETURN_FALSE;
    }
    Py_ssize_t n = bp.len / size;
    Py_BEGIN_ALLOW_THREADS
    if (nargs == 4 && size == 4)
        axpby_f32((float *)bp.buf, (float)m, (const float *)bg.buf, (float)a, n);
    else if (nargs == 4)
        axpby_f64((double *)bp.buf, m, (const double *)bg.buf, a, n);
    else if (size == 4)
        axpy_f32((float *)bp.buf, (const float *)bg.buf, (float)a, n);
    else
        axpy_f64((double *)bp.buf, (const double *)bg.buf, a, n);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&bp);
    PyBuffer_Release(&bg);
    Py_RETURN_TRUE;
}

/* --- the recorder of an elementwise row (_record.py's ``_record_ew``) --------------------
 *
 * record_ew(rule, impl, args) is ``_record._record_ew`` step for step: the same edges,
 * metadata, plan, saved values, node attributes, in the same order, with the same Python
 * calls where the Python version calls Python (``edge_of`` for a leaf or a view,
 * ``SavedVar``, ``Ext``, the kernel ``impl``, ``_ew_plan`` on a plan-cache miss, the
 * run without recording when no gradient is needed, and the view bookkeeping of a result
 * that has a Storage). Everything is read through the ordinary attribute and dict API,
 * so an unexpected value behaves as it does in Python (or raises what Python raises);
 * nothing is cached across calls but what setup_record was told. */

static PyObject *Array_C, *Ext_C, *ViewInfo_C, *SavedVar_C; /* the classes */
static PyObject *saved_new(PyObject *x, PyObject *nr); /* SavedVar(x[, nr]) (below) */
static PyObject *zero_edge_nr; /* 0, an edge's output number (setup_leaf) */
static PyObject *edge_of_fn, *run_off_fn, *ew_plan_fn, *view_fix_fn, *seq_iter, *no_edge;
static PyObject *r_dtype, *r_kind, *r_ext, *r_rg, *r_grad_fn, *r_is_view, *r_output_nr, *r_shape,
    *r_device, *r_st, *r_seq, *r_rule, *r_slots, *r_metas, *r_needs, *r_next,
    *r_out_metas, *r_vals, *r_result, *s_fc, *r_nout;

/* Whether the slots of Array and Ext can be read by offset (contract.h: set up by
   setup_record from the classes' slot descriptors; each object is checked with
   contract_array / ext_ok before its slots are read, else the attribute API reads it). */
static int slots_ready;

static inline int
ext_ok(PyObject *e)
{
    return slots_ready && Py_IS_TYPE(e, Ext_T) && SLOT(e, E_rg) != NULL && SLOT(e, E_fn) != NULL
           && SLOT(e, E_view) != NULL && SLOT(e, E_nr) != NULL;
}

/* ``a._dtype.kind in "fc"``: 1, 0, or -1 with an error. */
static Py_ssize_t D_kind_off; /* DType's ``kind`` slot (setup_record), 0 when unknown */

static int
float_kind(PyObject *a)
{
    if (slots_ready && contract_array(a)) {
        PyObject *k = D_kind_off ? SLOT(SLOT(a, O_dtype), D_kind_off) : NULL; /* (an exact DType) */
        if (k != NULL && PyUnicode_CheckExact(k) && PyUnicode_GET_LENGTH(k) == 1) {
            Py_UCS4 c = PyUnicode_READ_CHAR(k, 0); /* (``k in "fc"`` for one character) */
            return c == 'f' || c == 'c';
        }
        k = PyObject_GetAttr(SLOT(a, O_dtype), r_kind);
        if (k == NULL)
            return -1;
        int r = PySequence_Contains(s_fc, k);
        Py_DECREF(k);
        return r;
    }
    PyObject *dt = PyObject_GetAttr(a, r_dtype);
    if (dt == NULL)
        return -1;
    PyObject *k = PyObject_GetAttr(dt, r_kind);
    Py_DECREF(dt);
    if (k == NULL)
        return -1;
    int r = PySequence_Contains(s_fc, k);
    Py_DECREF(k);
    return r;
}

/* (a._shape, a._dtype, a._device) */
static PyObject *
meta_of(PyObject *a)
{
    if (slots_ready && contract_array(a))
        return PyTuple_Pack(3, SLOT(a, O_shape), SLOT(a, O_dtype), SLOT(a, O_device));
    PyObject *s = PyObject_GetAttr(a, r_shape);
    PyObject *d = s ? PyObject_GetAttr(a, r_dtype) : NULL;
    PyObject *v = d ? PyObject_GetAttr(a, r_device) : NULL;
    PyObject *t = v ? PyTuple_Pack(3, s, d, v) : NULL;
    Py_XDECREF(s);
    Py_XDECREF(d);
    Py_XDECREF(v);
    return t;
}

/* A node of class cls as the Python recorders make one (object.__new__, no __init__): the
   next sequence number, the rule, slots, metas and needs, nout 1 where with_nout, and
   next_functions the edges as a tuple; fn names the recorder in the error of an ended node
   counter. A new reference, or NULL with an error set. (The recorders below share it.) */
static PyObject *
new_node(PyObject *cls, PyObject *r, PyObject *slots, PyObject *metas, PyObject *needs, PyObject *edges,
         int with_nout, const char *fn)
{
    PyObject *empty = PyTuple_New(0);
    PyObject *node = empty ? PyBaseObject_Type.tp_new((PyTypeObject *)cls, empty, NULL) : NULL;
    Py_XDECREF(empty);
    if (node == NULL)
        return NULL;
    PyObject *seq = PyIter_Next(seq_iter);
    if (seq == NULL) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_RuntimeError, "%s(): the node counter ended", fn);
        Py_DECREF(node);
        return NULL;
    }
    int err = node_set(node, F_SEQ, seq) < 0;
    Py_DECREF(seq);
    PyObject *one = !err && with_nout ? PyLong_FromLong(1) : NULL;
    err = err || (with_nout && one == NULL) || node_set(node, F_RULE, r) < 0
          || node_set(node, F_SLOTS, slots) < 0 || node_set(node, F_METAS, metas) < 0
          || node_set(node, F_NEEDS, needs) < 0 || (with_nout && node_set(node, F_NOUT, one) < 0);
    Py_XDECREF(one);
    PyObject *next = err ? NULL : PyList_AsTuple(edges);
    err = err || next == NULL || node_set(node, F_NEXT, next) < 0;
    Py_XDECREF(next);
    if (err) {
        Py_DECREF(node);
        return NULL;
    }
    return node;
}

/* edge_of's leaf case, compiled: (accumulator(x), 0) for a leaf x (requires grad, no
 * grad_fn, not a view) of the contract whose Ext's ``acc`` is None or a weak reference:
 * the live AccumulateGrad it refers to, else a new one made as accumulator makes it
 * (object.__new__, the next sequence number, ``variable``, the weak reference in acc).
 * acc is read again after the allocations, just before the store (nothing in between
 * can let another thread run), so two threads cannot give one leaf two nodes: what
 * accumulator's lock ensures. NULL with no error: edge_of (the definition) runs. */
static PyTypeObject *AccGrad_T; /* AccumulateGrad (setup_leaf) */
static PyObject *s_variable_leaf;

static PyObject *
leaf_edge(PyObject *a, PyObject *e)
{
    if (AccGrad_T == NULL || SLOT(e, E_acc) == NULL)
        return NULL;
    PyObject *ref = SLOT(e, E_acc), *acc = NULL;
    if (ref != Py_None) {
        if (!PyWeakref_CheckRefExact(ref))
            return NULL;
        acc = PyWeakref_GET_OBJECT(ref);
        if (acc != Py_None && Py_REFCNT(acc) > 0)
            return PyTuple_Pack(2, acc, zero_edge_nr);
    }
    Py_INCREF(ref); /* (held: compared again below, before the store) */
    Py_INCREF(e);   /* (held across the allocations, as the definition's local) */
    PyObject *empty = PyTuple_New(0);
    acc = empty ? PyBaseObject_Type.tp_new(AccGrad_T, empty, NULL) : NULL;
    Py_XDECREF(empty);
    if (acc == NULL) {
        Py_DECREF(ref);
        Py_DECREF(e);
        return NULL;
    }
    PyObject *seq = PyIter_Next(seq_iter), *w = NULL, *edge = NULL;
    if (seq == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "edge_of(): the node counter ended");
        goto done;
    }
    if (node_set(acc, F_SEQ, seq) < 0 || node_set(acc, F_VARIABLE, a) < 0)
        goto done;
    w = PyWeakref_NewRef(acc, NULL);
    if (w == NULL)
        goto done;
    /* An allocation above may have run the collector, and finalizers another thread: if
       that thread gave the leaf its node meanwhile, that node is the edge (one node per
       leaf, as accumulator's lock ensures). From here to the store nothing allocates. */
    PyObject *now = SLOT(e, E_acc);
    if (now != ref && now != NULL && PyWeakref_CheckRefExact(now) && PyWeakref_GET_OBJECT(now) != Py_None) {
        Py_DECREF(w);
        edge = PyTuple_Pack(2, PyWeakref_GET_OBJECT(now), zero_edge_nr);
        goto done;
    }
    Py_SETREF(SLOT(e, E_acc), w);
    if (PyObject_IS_GC(e) && !PyObject_GC_IsTracked(e))
        PyObject_GC_Track(e); /* (as Ext's own setattr: _chot/names.c) */
    edge = PyTuple_Pack(2, acc, zero_edge_nr);
done:
    Py_XDECREF(seq);
    Py_DECREF(acc);
    Py_DECREF(ref);
    Py_DECREF(e);
    return edge;
}

static PyObject *
setup_leaf(PyObject *mod, PyObject *args)
{
    PyObject *cls;
    if (!PyArg_ParseTuple(args, "O!:setup_leaf", &PyType_Type, &cls))
        return NULL;
    if (seq_iter == NULL || !slots_ready) {
        PyErr_SetString(PyExc_RuntimeError, "setup_leaf(): setup_record() with the slot offsets first");
        return NULL;
    }
    if (s_variable_leaf == NULL && (s_variable_leaf = PyUnicode_InternFromString("variable")) == NULL)
        return NULL;
    if (zero_edge_nr == NULL && (zero_edge_nr = PyLong_FromLong(0)) == NULL)
        return NULL;
    Py_XSETREF(AccGrad_T, (PyTypeObject *)Py_NewRef(cls)); /* last: it turns leaf_edge on */
    Py_RETURN_NONE;
}


/* e.requires_grad = True; e.grad_fn = node; e.output_nr = 0, for a new result's Ext: the
   slots written as Ext's setattr writes them (then tracked by the collector) when e is an
   Ext of the contract, else through the attribute API. 0, or -1 with an error. */
static int
ext_attach(PyObject *e, PyObject *node)
{
    PyObject *zero = PyLong_FromLong(0);
    if (zero == NULL)
        return -1;
    int err = 0;
    if (slots_ready && Py_IS_TYPE(e, Ext_T)) {
        Py_XSETREF(SLOT(e, E_rg), Py_NewRef(Py_True));
        Py_XSETREF(SLOT(e, E_fn), Py_NewRef(node));
        Py_XSETREF(SLOT(e, E_nr), Py_NewRef(zero));
        if (PyObject_IS_GC(e) && !PyObject_GC_IsTracked(e))
            PyObject_GC_Track(e);
    }
    else
        err = PyObject_SetAttr(e, r_rg, Py_True) < 0 || PyObject_SetAttr(e, r_grad_fn, node) < 0
              || PyObject_SetAttr(e, r_output_nr, zero) < 0;
    Py_DECREF(zero);
    return err ? -1 : 0;
}

/* The edge of Array a (a new reference): _record_ew's inlined edge_of. */
static PyObject *
edge_for(PyObject *a)
{
    if (slots_ready && contract_array(a)) {
        PyObject *e = SLOT(a, O_ext);
        if (e == Py_None)
            return Py_NewRef(no_edge);
        if (ext_ok(e)) {
            PyObject *rg = SLOT(e, E_rg);
            int t = rg == Py_True ? 1 : rg == Py_False ? 0 : -2;
            if (t == -2) {
                Py_INCREF(e); /* (held across Python code: rg's __bool__) */
                t = PyObject_IsTrue(rg);
                Py_DECREF(e);
                if (t < 0)
                    return NULL;
                if (t)
                    return PyObject_CallOneArg(edge_of_fn, a); /* (rare: let Python decide) */
            }
            if (!t)
                return Py_NewRef(no_edge);
            PyObject *gf = SLOT(e, E_fn);
            if (gf != Py_None && (PyObject *)Py_TYPE(SLOT(e, E_view)) != ViewInfo_C)
                return PyTuple_Pack(2, gf, SLOT(e, E_nr));
            if (gf == Py_None && t == 1 && (PyObject *)Py_TYPE(SLOT(e, E_view)) != ViewInfo_C) {
                PyObject *edge = leaf_edge(a, e); /* (a leaf: its AccumulateGrad) */
                if (edge != NULL || PyErr_Occurred())
                    return edge;
            }
            return PyObject_CallOneArg(edge_of_fn, a);
        }
    }
    PyObject *e = PyObject_GetAttr(a, r_ext);
    if (e == NULL)
        return NULL;
    if (e == Py_None) {
        Py_DECREF(e);
        return Py_NewRef(no_edge);
    }
    PyObject *rg = PyObject_GetAttr(e, r_rg);
    int t = rg ? PyObject_IsTrue(rg) : -1;
    Py_XDECREF(rg);
    if (t <= 0) {
        Py_DECREF(e);
        return t < 0 ? NULL : Py_NewRef(no_edge);
    }
    PyObject *gf = PyObject_GetAttr(e, r_grad_fn);
    if (gf == NULL) {
        Py_DECREF(e);
        return NULL;
    }
    if (gf != Py_None) {
        PyObject *iv = PyObject_GetAttr(e, r_is_view);
        if (iv == NULL) {
            Py_DECREF(gf);
            Py_DECREF(e);
            return NULL;
        }
        int view = (PyObject *)Py_TYPE(iv) == ViewInfo_C;
        Py_DECREF(iv);
        if (!view) {
            PyObject *nr = PyObject_GetAttr(e, r_output_nr);
            PyObject *edge = nr ? PyTuple_Pack(2, gf, nr) : NULL;
            Py_XDECREF(nr);
            Py_DECREF(gf);
            Py_DECREF(e);
            return edge;
        }
    }
    Py_DECREF(gf);
    Py_DECREF(e);
    return PyObject_CallOneArg(edge_of_fn, a);
}

static PyObject *
record_ew(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyTuple_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "record_ew(rule, impl, args: tuple)");
        return NULL;
    }
    if (seq_iter == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "record_ew(): setup_record() was not called");
        return NULL;
    }
    PyObject *r = args[0], *impl = args[1], *a = args[2];
    Py_ssize_t n = PyTuple_GET_SIZE(a) - 1;
    PyObject *edges = PyList_New(0), *metas = PyList_New(0);
    PyObject *plan = NULL, *vals = NULL, *result = NULL, *node = NULL, *tmp = NULL;
    PyObject *ret = NULL;
    long slot_bits = 0, need_bits = 0;
    if (edges == NULL || metas == NULL)
        goto done;
    if (n > 30) { /* (never: elementwise rows take one or two arrays) */
        PyErr_SetString(PyExc_TypeError, "record_ew(): too many arguments");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyTuple_GET_ITEM(a, i);
        if ((PyObject *)Py_TYPE(x) != Array_C)
            continue;
        int k = float_kind(x);
        if (k < 0)
            goto done;
        if (!k)
            continue;
        PyObject *edge = edge_for(x);
        if (edge == NULL)
            goto done;
        int err = PyList_Append(edges, edge);
        int need = PyTuple_Check(edge) && PyTuple_GET_SIZE(edge) >= 1 && PyTuple_GET_ITEM(edge, 0) != Py_None;
        if (!PyTuple_Check(edge) || PyTuple_GET_SIZE(edge) < 1) {
            /* (Python's ``edge[0]`` on something else: let Python say what it says) */
            PyObject *first = err ? NULL : PySequence_GetItem(edge, 0);
            if (first == NULL)
                err = -1;
            else {
                need = first != Py_None;
                Py_DECREF(first);
            }
        }
        Py_DECREF(edge);
        if (err < 0)
            goto done;
        PyObject *m = meta_of(x);
        if (m == NULL || PyList_Append(metas, m) < 0) {
            Py_XDECREF(m);
            goto done;
        }
        Py_DECREF(m);
        slot_bits |= 1L << i;
        if (need)
            need_bits |= 1L << i;
    }
    if (!need_bits) {
        PyObject *argv[3] = {r, impl, a};
        ret = PyObject_Vectorcall(run_off_fn, argv, 3, NULL);
        goto done;
    }
    {
        PyObject *plans = rule_attr(r, r_plans);
        if (plans == NULL)
            goto done;
        tmp = Py_BuildValue("(ll)", slot_bits, need_bits);
        if (tmp == NULL) {
            Py_DECREF(plans);
            goto done;
        }
        if (PyDict_CheckExact(plans)) {
            plan = PyDict_GetItemWithError(plans, tmp);
            Py_XINCREF(plan);
            if (plan == NULL && PyErr_Occurred()) {
                Py_DECREF(plans);
                goto done;
            }
        }
        else {
            plan = PyObject_CallMethod(plans, "get", "O", tmp);
            if (plan == NULL) {
                Py_DECREF(plans);
                goto done;
            }
            if (plan == Py_None)
                Py_CLEAR(plan);
        }
        Py_DECREF(plans);
        Py_CLEAR(tmp);
        if (plan == NULL) {
            PyObject *sb = PyLong_FromLong(slot_bits), *nb = sb ? PyLong_FromLong(need_bits) : NULL;
            if (nb != NULL) {
                PyObject *argv[3] = {r, sb, nb};
                plan = PyObject_Vectorcall(ew_plan_fn, argv, 3, NULL);
            }
            Py_XDECREF(sb);
            Py_XDECREF(nb);
            if (plan == NULL)
                goto done;
        }
    }
    if (!PyTuple_CheckExact(plan) || PyTuple_GET_SIZE(plan) != 4) {
        PyErr_SetString(PyExc_TypeError, "record_ew(): a plan is a 4-tuple");
        goto done;
    }
    PyObject *slots = PyTuple_GET_ITEM(plan, 0), *needs = PyTuple_GET_ITEM(plan, 1);
    PyObject *saved = PyTuple_GET_ITEM(plan, 2), *keep = PyTuple_GET_ITEM(plan, 3);
    vals = PyDict_New();
    if (vals == NULL)
        goto done;
    {
        PyObject *it = PyObject_GetIter(saved), *item;
        if (it == NULL)
            goto done;
        while ((item = PyIter_Next(it)) != NULL) {
            PyObject *nm = NULL, *io = NULL, *v = NULL, *sv = NULL;
            int bad = !PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 2;
            if (bad)
                PyErr_SetString(PyExc_TypeError, "record_ew(): a saved entry is a (name, index) pair");
            else {
                nm = PyTuple_GET_ITEM(item, 0);
                io = PyTuple_GET_ITEM(item, 1);
                v = PyObject_GetItem(a, io);
                if (v != NULL)
                    sv = (PyObject *)Py_TYPE(v) == Array_C ? saved_new(v, NULL) : Py_NewRef(v);
            }
            int err = sv == NULL ? -1 : PyDict_SetItem(vals, nm, sv);
            Py_XDECREF(sv);
            Py_XDECREF(v);
            Py_DECREF(item);
            if (err < 0) {
                Py_DECREF(it);
                goto done;
            }
        }
        Py_DECREF(it);
        if (PyErr_Occurred())
            goto done;
    }
    /* The kernel path calls no namespace function and checks no grad mode (no out=). */
    result = PyObject_Call(impl, a, NULL);
    if (result == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(a); i++)
        if (result == PyTuple_GET_ITEM(a, i)) {
            ret = Py_NewRef(result); /* the function returned its input: the history is there */
            goto done;
        }
    {
        PyObject *cls = rule_attr(r, r_cls);
        if (cls == NULL)
            goto done;
        if (!PyType_Check(cls)) {
            PyErr_SetString(PyExc_TypeError, "record_ew(): rule.cls is not a class");
            Py_DECREF(cls);
            goto done;
        }
        node = new_node(cls, r, slots, metas, needs, edges, 0, "record_ew");
        Py_DECREF(cls);
        if (node == NULL)
            goto done;
    }
    int fl = (PyObject *)Py_TYPE(result) == Array_C ? float_kind(result) : 0;
    if (fl < 0)
        goto done;
    if (fl) {
        PyObject *m = meta_of(result);
        tmp = m ? PyList_New(1) : NULL;
        if (tmp == NULL) {
            Py_XDECREF(m);
            goto done;
        }
        PyList_SET_ITEM(tmp, 0, m);
        if (node_set(node, F_OUT_METAS, tmp) < 0)
            goto done;
        Py_CLEAR(tmp);
        PyObject *e = PyObject_GetAttr(result, r_ext);
        if (e == NULL)
            goto done;
        if (e == Py_None) {
            Py_DECREF(e);
            e = PyObject_CallNoArgs(Ext_C);
            if (e == NULL || PyObject_SetAttr(result, r_ext, e) < 0) {
                Py_XDECREF(e);
                goto done;
            }
        }
        int err = ext_attach(e, node) < 0;
        if (!err) {
            PyObject *st = PyObject_GetAttr(result, r_st);
            if (st == NULL)
                err = 1;
            else {
                if (st != Py_None) { /* a result that views an input's memory: Python's loop */
                    PyObject *argv[3] = {result, e, a};
                    PyObject *v = PyObject_Vectorcall(view_fix_fn, argv, 3, NULL);
                    err = v == NULL;
                    Py_XDECREF(v);
                }
                Py_DECREF(st);
            }
        }
        Py_DECREF(e);
        if (err)
            goto done;
    }
    else {
        tmp = PyList_New(1);
        if (tmp == NULL)
            goto done;
        PyList_SET_ITEM(tmp, 0, Py_NewRef(Py_None));
        if (node_set(node, F_OUT_METAS, tmp) < 0)
            goto done;
        Py_CLEAR(tmp);
    }
    {
        int k = PyObject_IsTrue(keep);
        if (k < 0)
            goto done;
        if (k) {
            PyObject *zero = PyLong_FromLong(0);
            PyObject *sv = zero ? saved_new(result, zero) : NULL;
            Py_XDECREF(zero);
            if (sv == NULL || PyDict_SetItem(vals, r_result, sv) < 0) {
                Py_XDECREF(sv);
                goto done;
            }
            Py_DECREF(sv);
        }
    }
    if (node_set(node, F_VALS, vals) < 0)
        goto done;
    ret = Py_NewRef(result);
done:
    Py_XDECREF(edges);
    Py_XDECREF(metas);
    Py_XDECREF(plan);
    Py_XDECREF(vals);
    Py_XDECREF(result);
    Py_XDECREF(node);
    Py_XDECREF(tmp);
    return ret;
}

/* --- SavedVar(x) and SavedVar(x, output_nr), compiled (_graph.py: SavedVar.__init__) -------
 *
 * saved_new(x, nr) is SavedVar.__init__ step for step for an Array x of the contract
 * (exact type, its slots as they should be) with no Ext or an Ext of the contract, whose
 * Storage (if any) is an exact Storage with no family and an int version: the lazy input
 * kept as is (no Storage, metadata: version 0, its producer), otherwise the Storage made
 * first (``x._materialize()``: _chot's C case, else the method), the version read, and
 * for an output (nr not NULL) a bare alias of x (Array._new's eight slots). The object is
 * object.__new__(SavedVar) with its five slots set, as the class call makes it (its
 * __init__ sets nothing else). Anything else calls the class (the definition). Set up by
 * setup_saved with the class and _chot's materialize; STRIDED_NO_CEXT=1 runs the
 * definition, and tests/autograd/test_mlp10.py compares the two. */
static PyTypeObject *SV_T;          /* SavedVar (setup_saved) */
static PyObject *c_materialize_fn;  /* _chot.materialize(x) -> bool, or None */
static PyObject *s_materialize_m;   /* "_materialize" */
static Py_ssize_t SV_x, SV_st, SV_ver, SV_nr, SV_producer;
static int sv_storage_ready;
/* 1 while a saved-tensor hook is registered (torch.autograd.graph.saved_tensors_hooks):
   every SavedVar is then made by the class (its __init__ calls the pack hook). */
static int sv_hooks;

/* 1: x's Storage is an exact Storage whose family is None and version an exact int */
static inline int
sv_plain_storage(PyObject *st)
{
    return sv_storage_ready && Py_IS_TYPE(st, Storage_T) && SLOT(st, S_family) == Py_None
           && SLOT(st, S_version) != NULL && PyLong_CheckExact(SLOT(st, S_version));
}

/* _graph.alias(x) of an Array x of the contract whose Storage is st (x._st, read by the
   caller): Array._new(x._np, st, x._off, x._shape, x._str, x._dtype, x._device), its
   eight slots set on the class's own allocation as object.__new__ makes it. */
static PyObject *
bare_alias(PyObject *x, PyObject *st)
{
    PyObject *a = Array_T->tp_alloc(Array_T, 0);
    if (a == NULL)
        return NULL;
    SLOT(a, O_np) = Py_NewRef(SLOT(x, O_np));
    SLOT(a, O_st) = Py_NewRef(st);
    SLOT(a, O_off) = Py_NewRef(SLOT(x, O_off));
    SLOT(a, O_shape) = Py_NewRef(SLOT(x, O_shape));
    SLOT(a, O_str) = Py_NewRef(SLOT(x, O_str));
    SLOT(a, O_dtype) = Py_NewRef(SLOT(x, O_dtype));
    SLOT(a, O_device) = Py_NewRef(SLOT(x, O_device));
    SLOT(a, O_ext) = Py_NewRef(Py_None);
    return a;
}

static PyObject *
saved_new(PyObject *x, PyObject *nr)
{
    if (SV_T == NULL || sv_hooks || !slots_ready || !contract_array(x))
        goto definition;
    PyObject *e = SLOT(x, O_ext);
    if (e != Py_None && !ext_ok(e))
        goto definition;
    PyObject *st = SLOT(x, O_st);
    if (st == Py_None) {
        if (nr == NULL && e != Py_None) { /* a lazy input with metadata: saved as is */
            PyObject *sv = SV_T->tp_alloc(SV_T, 0);
            if (sv == NULL)
                return NULL;
            SLOT(sv, SV_st) = Py_NewRef(Py_None);
            SLOT(sv, SV_ver) = PyLong_FromLong(0);
            SLOT(sv, SV_nr) = Py_NewRef(Py_None);
            SLOT(sv, SV_x) = Py_NewRef(x);
            SLOT(sv, SV_producer) = Py_NewRef(SLOT(e, E_fn));
            if (SLOT(sv, SV_ver) == NULL)
                Py_CLEAR(sv);
            return sv;
        }
        /* x._materialize(): the C case, else the method (Python code may run) */
        Py_INCREF(x);
        PyObject *r = c_materialize_fn != NULL && c_materialize_fn != Py_None
                      ? PyObject_CallOneArg(c_materialize_fn, x) : Py_NewRef(Py_False);
        if (r == Py_False) {
            Py_DECREF(r);
            r = PyObject_CallMethodNoArgs(x, s_materialize_m);
        }
        Py_DECREF(x);
        if (r == NULL)
            return NULL;
        Py_DECREF(r);
        /* (the definition reads x._st again: so does this, through the contract) */
        if (!contract_array(x))
            goto definition_after;
        e = SLOT(x, O_ext);
        if (e != Py_None && !ext_ok(e))
            goto definition_after;
        st = SLOT(x, O_st);
        if (st == Py_None)
            goto definition_after;
    }
    if (!sv_plain_storage(st))
        goto definition_after;
    PyObject *sv = SV_T->tp_alloc(SV_T, 0);
    if (sv == NULL)
        return NULL;
    SLOT(sv, SV_st) = Py_NewRef(st);
    SLOT(sv, SV_ver) = Py_NewRef(SLOT(st, S_version));
    SLOT(sv, SV_nr) = Py_NewRef(nr != NULL ? nr : Py_None);
    if (nr == NULL) {
        SLOT(sv, SV_x) = Py_NewRef(x);
        SLOT(sv, SV_producer) = Py_NewRef(e != Py_None ? SLOT(e, E_fn) : Py_None);
        return sv;
    }
    PyObject *a = bare_alias(x, st);
    if (a == NULL) {
        Py_DECREF(sv);
        return NULL;
    }
    SLOT(sv, SV_x) = a;
    SLOT(sv, SV_producer) = Py_NewRef(Py_None);
    return sv;
definition:
    return nr == NULL ? PyObject_CallOneArg(SavedVar_C, x) : PyObject_CallFunctionObjArgs(SavedVar_C, x, nr, NULL);
definition_after:
    /* (x has its Storage now, or Python code changed it: the class's __init__ runs on it
       as it is, as the definition's next steps would) */
    return nr == NULL ? PyObject_CallOneArg(SavedVar_C, x) : PyObject_CallFunctionObjArgs(SavedVar_C, x, nr, NULL);
}

static PyObject *
saved_var(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "saved_var(x, output_nr=None)");
        return NULL;
    }
    if (SavedVar_C == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "saved_var(): setup_record() was not called");
        return NULL;
    }
    return saved_new(args[0], nargs == 2 && args[1] != Py_None ? args[1] : NULL);
}

static PyObject *
set_saved_hooks(PyObject *mod, PyObject *flag)
{
    int f = PyObject_IsTrue(flag);
    if (f < 0)
        return NULL;
    sv_hooks = f;
    Py_RETURN_NONE;
}

static PyObject *
setup_saved(PyObject *mod, PyObject *args)
{
    PyObject *cls, *mat;
    if (!PyArg_ParseTuple(args, "O!O:setup_saved", &PyType_Type, &cls, &mat))
        return NULL;
    if (!slots_ready || Storage_T == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup_saved(): setup_record() with the slot offsets first");
        return NULL;
    }
    Slot rows[] = {{"_x", &SV_x, W_SET}, {"_st", &SV_st, W_SET}, {"_ver", &SV_ver, W_SET},
                   {"_nr", &SV_nr, W_SET}, {"_producer", &SV_producer, W_SET}};
    if (contract_setup((PyTypeObject *)cls, rows, 5) < 0
        || contract_setup(Storage_T, STORAGE_ROWS, N_ROWS(STORAGE_ROWS)) < 0)
        return NULL;
    if (s_materialize_m == NULL && (s_materialize_m = PyUnicode_InternFromString("_materialize")) == NULL)
        return NULL;
    sv_storage_ready = 1;
    Py_XSETREF(c_materialize_fn, Py_NewRef(mat));
    Py_XSETREF(SV_T, (PyTypeObject *)Py_NewRef(cls)); /* last: it turns saved_new on */
    Py_RETURN_NONE;
}

/* The Python recorders' step for one differentiable array a bound to parameter p: the slot
   (p, None), a's edge, a's meta, and p in needs when the edge has a node. 0, or -1 with an
   error set. */
static int
add_slot(PyObject *a, PyObject *p, PyObject *slots, PyObject *edges, PyObject *metas, PyObject *needs)
{
    PyObject *edge = edge_for(a);
    if (edge == NULL)
        return -1;
    int need = PyTuple_Check(edge) && PyTuple_GET_SIZE(edge) >= 1 && PyTuple_GET_ITEM(edge, 0) != Py_None;
    PyObject *slot = PyTuple_Pack(2, p, Py_None);
    int err = slot == NULL || PyList_Append(slots, slot) < 0 || PyList_Append(edges, edge) < 0;
    Py_XDECREF(slot);
    if (!err && !(PyTuple_Check(edge) && PyTuple_GET_SIZE(edge) >= 1)) {
        PyObject *first = PySequence_GetItem(edge, 0);
        err = first == NULL;
        need = first != NULL && first != Py_None;
        Py_XDECREF(first);
    }
    Py_DECREF(edge);
    if (err)
        return -1;
    PyObject *m = meta_of(a);
    err = m == NULL || PyList_Append(metas, m) < 0;
    Py_XDECREF(m);
    if (err || (need && PySet_Add(needs, p) < 0))
        return -1;
    return 0;
}

/* record_node(rule, cls, inputs, saved, result): _fused._record step for step (the node of
 * a fused operation: inputs as (parameter, array or None) pairs, saved values as
 * (parameter, value) pairs, one output). */
static PyObject *
record_node(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "record_node(rule, cls, inputs, saved, result)");
        return NULL;
    }
    if (seq_iter == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "record_node(): setup_record() was not called");
        return NULL;
    }
    PyObject *r = args[0], *cls = args[1], *result = args[4];
    PyObject *slots = PyList_New(0), *edges = PyList_New(0), *metas = PyList_New(0);
    PyObject *needs = PySet_New(NULL), *vals = PyDict_New();
    PyObject *node = NULL, *tmp = NULL, *ret = NULL, *it = NULL, *item = NULL;
    if (slots == NULL || edges == NULL || metas == NULL || needs == NULL || vals == NULL)
        goto done;
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "record_node(): cls is not a class");
        goto done;
    }
    if ((it = PyObject_GetIter(args[2])) == NULL)
        goto done;
    while ((item = PyIter_Next(it)) != NULL) {
        if (!PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 2) {
            PyErr_SetString(PyExc_TypeError, "record_node(): an input is a (parameter, array) pair");
            goto done;
        }
        PyObject *p = PyTuple_GET_ITEM(item, 0), *a = PyTuple_GET_ITEM(item, 1);
        if (a != Py_None) {
            if (add_slot(a, p, slots, edges, metas, needs) < 0)
                goto done;
        }
        Py_CLEAR(item);
    }
    Py_CLEAR(it);
    if (PyErr_Occurred())
        goto done;
    if ((it = PyObject_GetIter(args[3])) == NULL)
        goto done;
    while ((item = PyIter_Next(it)) != NULL) {
        if (!PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 2) {
            PyErr_SetString(PyExc_TypeError, "record_node(): a saved value is a (parameter, value) pair");
            goto done;
        }
        PyObject *p = PyTuple_GET_ITEM(item, 0), *v = PyTuple_GET_ITEM(item, 1);
        PyObject *sv = (PyObject *)Py_TYPE(v) == Array_C ? saved_new(v, NULL) : Py_NewRef(v);
        int err = sv == NULL || PyDict_SetItem(vals, p, sv) < 0;
        Py_XDECREF(sv);
        if (err)
            goto done;
        Py_CLEAR(item);
    }
    Py_CLEAR(it);
    if (PyErr_Occurred())
        goto done;
    node = new_node(cls, r, slots, metas, needs, edges, 1, "record_node");
    if (node == NULL)
        goto done;
    {
        PyObject *m = meta_of(result);
        tmp = m ? PyList_New(1) : NULL;
        if (tmp == NULL) {
            Py_XDECREF(m);
            goto done;
        }
        PyList_SET_ITEM(tmp, 0, m);
        if (node_set(node, F_OUT_METAS, tmp) < 0)
            goto done;
        Py_CLEAR(tmp);
    }
    {
        PyObject *e = PyObject_CallNoArgs(Ext_C);
        int err = e == NULL || PyObject_SetAttr(result, r_ext, e) < 0 || ext_attach(e, node) < 0;
        Py_XDECREF(e);
        if (err)
            goto done;
    }
    if (node_set(node, F_VALS, vals) < 0)
        goto done;
    ret = Py_NewRef(result);
done:
    Py_XDECREF(slots);
    Py_XDECREF(edges);
    Py_XDECREF(metas);
    Py_XDECREF(needs);
    Py_XDECREF(vals);
    Py_XDECREF(node);
    Py_XDECREF(tmp);
    Py_XDECREF(it);
    Py_XDECREF(item);
    return ret;
}

/* record_call(name, rule, impl, args, kwargs, call_next): _record._record for the calls the
 * autograd link hands it (no in-place target, no out=, one output, not an elementwise row),
 * step for step; a differentiable parameter bound to a
 * list or tuple of arrays, or arguments the rule's signature refuses, go to the Python
 * _record (before anything is recorded), which handles and reports them. */
static PyObject *record_py_fn, *saves_fn, *save_fn, *run_off2_fn, *node_cls_fn;
static int attr_is(PyObject *o, PyObject *name, PyObject *want); /* (below) */
/* setup_call_rule: the Rule class, node_class and its _CLASSES (record_call's inlined steps) */
static PyObject *Rule_C, *node_class_fn, *classes_d;
static PyObject *s_none_pick, *s_ndim_pick; /* node_pick's kinds ("none", "ndim") */

static PyObject *
setup_call_rule(PyObject *mod, PyObject *args)
{
    PyObject *rc, *ncf, *cd;
    if (!PyArg_ParseTuple(args, "O!OO!:setup_call_rule", &PyType_Type, &rc, &ncf, &PyDict_Type, &cd))
        return NULL;
#define INTERN_ONCE(v, str) if (v == NULL && (v = PyUnicode_InternFromString(str)) == NULL) return NULL;
    INTERN_ONCE(s_argnames, "argnames") INTERN_ONCE(s_unwrap, "unwrap") INTERN_ONCE(s_binder, "_binder")
    INTERN_ONCE(s_saves, "saves") INTERN_ONCE(s_node, "node") INTERN_ONCE(s_none_pick, "none")
    INTERN_ONCE(s_ndim_pick, "ndim")
#undef INTERN_ONCE
    Py_XSETREF(node_class_fn, Py_NewRef(ncf));
    Py_XSETREF(classes_d, Py_NewRef(cd));
    Py_XSETREF(Rule_C, Py_NewRef(rc)); /* last: it turns the inlined steps on */
    Py_RETURN_NONE;
}
static PyObject *r_bind;

static PyObject *run_impl_obj, *run_off_py; /* _dispatch._run_impl and _record._run_off (setup_link) */
static PyObject *STATE_o, *a_enabled; /* (tentative: set by setup_apply, below) */
static int attr_true(PyObject *o, PyObject *name); /* (below) */

/* STATE.enabled's truth: 1, 0, or -1 with an error (GradState's flag read directly). */
static inline int
state_enabled(void)
{
    if (Py_IS_TYPE(STATE_o, &GradState_T))
        return !grad_off;
    return attr_true(STATE_o, a_enabled);
}

/* _record._run_off(name, impl, args, kwargs, call_next) with its frames inlined where it
   is the function setup_call was given and call_next is _run_impl: recording off (the
   thread's STATE.enabled False), impl(*args, **kwargs), the previous value restored
   whatever happens (its ``finally``). Otherwise the Python function runs. */
static PyObject *
run_off_fast(PyObject *const *argv)
{
    if (run_impl_obj == NULL || run_off2_fn != run_off_py || argv[4] != run_impl_obj || STATE_o == NULL
        || !PyTuple_CheckExact(argv[2]) || !PyDict_CheckExact(argv[3]))
        return PyObject_Vectorcall(run_off2_fn, argv, 5, NULL);
    if (Py_IS_TYPE(STATE_o, &GradState_T)) { /* (the flag: no Python code to run) */
        int prev_off = grad_off;
        grad_off = 1;
        PyObject *res = PyObject_Call(argv[1], argv[2], PyDict_GET_SIZE(argv[3]) ? argv[3] : NULL);
        grad_off = prev_off;
        return res;
    }
    PyObject *prev = PyObject_GetAttr(STATE_o, a_enabled);
    if (prev == NULL)
        return NULL;
    if (PyObject_SetAttr(STATE_o, a_enabled, Py_False) < 0) {
        Py_DECREF(prev);
        return NULL;
    }
    PyObject *res = PyObject_Call(argv[1], argv[2], PyDict_GET_SIZE(argv[3]) ? argv[3] : NULL);
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    if (PyObject_SetAttr(STATE_o, a_enabled, prev) < 0) { /* (Python: the finally's error wins) */
        Py_XDECREF(et);
        Py_XDECREF(ev);
        Py_XDECREF(tb);
        Py_CLEAR(res);
    }
    else
        PyErr_Restore(et, ev, tb);
    Py_DECREF(prev);
    return res;
}

/* The rule's binder (its generated ``lambda <sig>: {name: name, ...}``) without its Python
   call, for a signature of plain parameters and perhaps a ``**`` one (Rule.layout: (names,
   defaults, the ``**`` parameter's name or None, the marker of a parameter without a
   default)): the same dict, in the parameters' order, each argument bound by position,
   then by keyword, then to its default, the keywords no parameter names gathered in a
   dict under the ``**`` parameter. A new reference; NULL with no error set where Python
   would refuse the call (too many arguments, one given twice, a missing or unknown
   keyword, a keyword that is not a str) or the layout is not of that form: the binder
   then runs and says so; NULL with an error set: out of memory. */
static PyObject *
layout_bind(PyObject *lay, PyObject *a, PyObject *kw)
{
    if (!PyTuple_CheckExact(lay) || PyTuple_GET_SIZE(lay) != 4 || !PyTuple_CheckExact(a) || !PyDict_CheckExact(kw))
        return NULL;
    PyObject *names = PyTuple_GET_ITEM(lay, 0), *defs = PyTuple_GET_ITEM(lay, 1);
    PyObject *varkw = PyTuple_GET_ITEM(lay, 2), *required = PyTuple_GET_ITEM(lay, 3);
    if (!PyTuple_CheckExact(names) || !PyTuple_CheckExact(defs) || PyTuple_GET_SIZE(names) != PyTuple_GET_SIZE(defs))
        return NULL;
    Py_ssize_t np = PyTuple_GET_SIZE(names), na = PyTuple_GET_SIZE(a), nk = PyDict_GET_SIZE(kw), used = 0;
    if (na > np)
        return NULL;
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < np; i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        PyObject *v = nk ? PyDict_GetItemWithError(kw, name) : NULL; /* (borrowed: kw is held) */
        if (v == NULL && PyErr_Occurred())
            goto fail;
        if (i < na) {
            if (v != NULL)
                goto decline; /* (given by position and by keyword) */
            v = PyTuple_GET_ITEM(a, i);
        }
        else if (v != NULL)
            used++;
        else if ((v = PyTuple_GET_ITEM(defs, i)) == required)
            goto decline; /* (missing) */
        if (PyDict_SetItem(d, name, v) < 0)
            goto fail;
    }
    if (varkw == Py_None) {
        if (used < nk)
            goto decline; /* (a keyword no parameter names) */
        return d;
    }
    if (!PyUnicode_CheckExact(varkw))
        goto decline;
    PyObject *extra = PyDict_New();
    if (extra == NULL)
        goto fail;
    if (used < nk) {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (PyDict_Next(kw, &pos, &k, &v)) {
            if (!PyUnicode_CheckExact(k)) { /* (no user __eq__ runs here) */
                Py_DECREF(extra);
                goto decline;
            }
            int named = PyDict_Contains(d, k); /* (d holds exactly the parameters so far) */
            if (named < 0 || (!named && PyDict_SetItem(extra, k, v) < 0)) {
                Py_DECREF(extra);
                goto fail;
            }
        }
    }
    int err = PyDict_SetItem(d, varkw, extra);
    Py_DECREF(extra);
    if (err < 0)
        goto fail;
    return d;
decline:
    Py_DECREF(d);
    return NULL;
fail:
    Py_DECREF(d);
    (void)contract_clear(PyExc_Exception); /* (an ordinary error: the binder's call says it) */
    return NULL;
}

/* layout_bind(layout, args, kwargs): the compiled binding of a rule's arguments, or None
   where it declines (for tests: tests/autograd/test_record_bind16.py compares it with the
   binder). */
static PyObject *
layout_bind_py(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyTuple_CheckExact(args[1]) || !PyDict_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "layout_bind(layout, args: tuple, kwargs: dict)");
        return NULL;
    }
    PyObject *d = layout_bind(args[0], args[1], args[2]);
    return d != NULL || PyErr_Occurred() ? d : Py_NewRef(Py_None);
}

/* Rule.node_name's choice for a node given as a tuple (_record.py: node_by_none's
   ("none", param, if_none, otherwise), node_by_ndim's ("ndim", p1, p2, both2, both1,
   other)) without the Python call: the name (a new reference); NULL with no error set
   where it does not read as that (another form, a parameter that is not an Array of the
   contract): the Python node_name then decides. */

static PyObject *
node_pick(PyObject *n, PyObject *params)
{
    Py_ssize_t len = PyTuple_GET_SIZE(n);
    if (len < 4 || !PyDict_CheckExact(params))
        return NULL;
    PyObject *kind = PyTuple_GET_ITEM(n, 0);
    if (kind == s_none_pick && len == 4) {
        PyObject *v = PyDict_GetItemWithError(params, PyTuple_GET_ITEM(n, 1)); /* (params.get) */
        if (v == NULL && PyErr_Occurred())
            return NULL;
        return Py_NewRef(PyTuple_GET_ITEM(n, v == NULL || v == Py_None ? 2 : 3));
    }
    if (kind == s_ndim_pick && len == 6) {
        PyObject *a = PyDict_GetItemWithError(params, PyTuple_GET_ITEM(n, 1));
        PyObject *b = a != NULL ? PyDict_GetItemWithError(params, PyTuple_GET_ITEM(n, 2)) : NULL;
        if (b == NULL || !slots_ready || (PyObject *)Py_TYPE(a) != Array_C || (PyObject *)Py_TYPE(b) != Array_C
            || !contract_array(a) || !contract_array(b))
            return NULL; /* (an error set stays set: the caller sees it) */
        Py_ssize_t na = PyTuple_GET_SIZE(SLOT(a, O_shape)), nb = PyTuple_GET_SIZE(SLOT(b, O_shape));
        return Py_NewRef(PyTuple_GET_ITEM(n, na == 2 && nb == 2 ? 3 : na == 1 && nb == 1 ? 4 : 5));
    }
    return NULL;
}

static PyObject *
record_call(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6 || !PyTuple_CheckExact(args[3]) || !PyDict_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError, "record_call(name, rule, impl, args: tuple, kwargs: dict, call_next)");
        return NULL;
    }
    if (seq_iter == NULL || record_py_fn == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "record_call(): setup_record() was not called");
        return NULL;
    }
    PyObject *name = args[0], *r = args[1], *impl = args[2], *a = args[3], *kw = args[4], *next = args[5];
    PyObject *params = NULL, *diff = NULL, *arrays = NULL, *slots = NULL, *edges = NULL, *metas = NULL;
    PyObject *needs = NULL, *sv = NULL, *vals = NULL, *result = NULL, *node = NULL, *tmp = NULL, *ret = NULL;
    int fallback = 0;
    int plain = Rule_C != NULL && (PyObject *)Py_TYPE(r) == Rule_C; /* (Rule's own methods) */
    {
        PyObject *bind = NULL;
        if (plain) {
            /* Rule.bind without its frame: no argnames, no unwrapping: self._binder(*args, **kwargs) */
            int direct = rule_is(r, s_argnames, Py_None);
            if (direct > 0)
                direct = rule_is(r, s_unwrap, Py_False);
            if (direct < 0)
                goto done;
            if (direct) {
                PyObject *lay = rule_attr(r, s_layout);
                if (lay == NULL)
                    goto done;
                params = layout_bind(lay, a, kw);
                Py_DECREF(lay);
                if (params != NULL || PyErr_Occurred())
                    goto bound;
                bind = rule_attr(r, s_binder); /* (declined: the binder binds, or says why not) */
                if (bind == NULL)
                    goto done;
                params = PyObject_Call(bind, a, PyDict_GET_SIZE(kw) ? kw : NULL);
                Py_CLEAR(bind);
                goto bound;
            }
        }
        bind = PyObject_GetAttr(r, r_bind);
        if (bind == NULL)
            goto done;
        PyObject *argv[2] = {a, kw};
        params = PyObject_Vectorcall(bind, argv, 2, NULL);
        Py_DECREF(bind);
    bound:
        if (params == NULL) {
            if (!contract_clear(PyExc_Exception))
                goto done; /* (not an ordinary error: it propagates) */
            fallback = 1;
            goto done;
        }
    }
    if (!PyDict_CheckExact(params)) {
        fallback = 1;
        goto done;
    }
    diff = rule_attr(r, r_diff);
    if (diff == NULL)
        goto done;
    if (!PyTuple_CheckExact(diff)) {
        fallback = 1;
        goto done;
    }
    Py_ssize_t nd = PyTuple_GET_SIZE(diff);
    for (Py_ssize_t i = 0; i < nd; i++) { /* lists of arrays: the Python recorder */
        PyObject *v = PyDict_GetItemWithError(params, PyTuple_GET_ITEM(diff, i));
        if (v == NULL && PyErr_Occurred())
            goto done;
        if (v != NULL && (PyList_CheckExact(v) || PyTuple_CheckExact(v)) && Py_SIZE(v) > 0) {
            fallback = 1;
            goto done;
        }
    }
    arrays = PyList_New(0);
    slots = PyList_New(0);
    edges = PyList_New(0);
    metas = PyList_New(0);
    needs = PySet_New(NULL);
    if (arrays == NULL || slots == NULL || edges == NULL || metas == NULL || needs == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < nd; i++) {
        PyObject *p = PyTuple_GET_ITEM(diff, i);
        PyObject *v = PyDict_GetItemWithError(params, p); /* borrowed; params is ours */
        if (v == NULL) {
            if (PyErr_Occurred())
                goto done;
            continue;
        }
        if ((PyObject *)Py_TYPE(v) != Array_C)
            continue;
        if (PyList_Append(arrays, v) < 0)
            goto done;
        int k = float_kind(v);
        if (k < 0)
            goto done;
        if (!k)
            continue;
        if (add_slot(v, p, slots, edges, metas, needs) < 0)
            goto done;
    }
    if (PySet_GET_SIZE(needs) == 0) {
        PyObject *argv[5] = {name, impl, a, kw, next};
        ret = PyObject_Vectorcall(run_off2_fn, argv, 5, NULL);
        goto done;
    }
    {
        if (plain) { /* _saves' cache hit: r.saves[frozenset(needs)] */
            PyObject *key = PyFrozenSet_New(needs), *cache = key ? rule_attr(r, s_saves) : NULL;
            if (cache != NULL && PyDict_CheckExact(cache))
                sv = Py_XNewRef(PyDict_GetItemWithError(cache, key));
            Py_XDECREF(key);
            Py_XDECREF(cache);
            if (sv == NULL && PyErr_Occurred())
                goto done;
            if (sv != NULL && (!PyTuple_CheckExact(sv) || PyTuple_GET_SIZE(sv) != 2))
                Py_CLEAR(sv); /* (not what _saves stores: the function says) */
        }
        if (sv == NULL) {
            PyObject *argv[2] = {r, needs};
            sv = PyObject_Vectorcall(saves_fn, argv, 2, NULL);
        }
        if (sv == NULL)
            goto done;
        if (!PyTuple_CheckExact(sv) || PyTuple_GET_SIZE(sv) != 2 || !PyTuple_CheckExact(PyTuple_GET_ITEM(sv, 0))) {
            PyErr_SetString(PyExc_TypeError, "record_call(): _saves returns (names, keep_result)");
            goto done;
        }
    }
    vals = PyDict_New();
    if (vals == NULL)
        goto done;
    {
        PyObject *names = PyTuple_GET_ITEM(sv, 0);
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
            PyObject *n = PyTuple_GET_ITEM(names, i);
            PyObject *v = PyObject_GetItem(params, n);
            if (v == NULL)
                goto done;
            /* (save(v) of anything but an array, a list or a tuple: v itself) */
            PyObject *s = (PyObject *)Py_TYPE(v) == Array_C ? saved_new(v, NULL)
                          : PyList_CheckExact(v) || PyTuple_CheckExact(v) || PyList_Check(v) || PyTuple_Check(v)
                          ? PyObject_CallOneArg(save_fn, v) : Py_NewRef(v);
            Py_DECREF(v);
            int err = s == NULL || PyDict_SetItem(vals, n, s) < 0;
            Py_XDECREF(s);
            if (err)
                goto done;
        }
    }
    {
        PyObject *argv[5] = {name, impl, a, kw, next};
        result = run_off_fast(argv);
        if (result == NULL)
            goto done;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(arrays); i++)
        if (result == PyList_GET_ITEM(arrays, i)) {
            ret = Py_NewRef(result); /* the function returned its input: the history is there */
            goto done;
        }
    {
        PyObject *cls = rule_attr(r, r_cls);
        if (cls == Py_None && plain && classes_d != NULL) {
            /* (a node name that depends on the arguments) r.node(params), its class from
               _CLASSES (node_class's hit), else node_class(name) */
            PyObject *nfn = rule_attr(r, s_node);
            PyObject *nm = nfn && PyTuple_CheckExact(nfn) ? node_pick(nfn, params)
                           : nfn && !PyUnicode_Check(nfn) ? PyObject_CallOneArg(nfn, params) : NULL;
            Py_XDECREF(nfn);
            if (nm != NULL && PyUnicode_CheckExact(nm)) {
                PyObject *c = PyDict_GetItemWithError(classes_d, nm);
                Py_SETREF(cls, c != NULL ? Py_NewRef(c) : PyErr_Occurred() ? NULL
                                                        : PyObject_CallOneArg(node_class_fn, nm));
            }
            else
                Py_CLEAR(cls); /* (an error, a name node_class would refuse, or no choice made in
                                  C: the Python node_cls below, as Python) */
            Py_XDECREF(nm);
            if (cls == NULL && !PyErr_Occurred()) { /* (the node name was not a str) */
                PyObject *argv[2] = {r, params};
                cls = PyObject_Vectorcall(node_cls_fn, argv, 2, NULL);
            }
        }
        else if (cls == Py_None) { /* (a node name that depends on the arguments) */
            PyObject *argv[2] = {r, params};
            Py_SETREF(cls, PyObject_Vectorcall(node_cls_fn, argv, 2, NULL));
        }
        if (cls == NULL)
            goto done;
        if (!PyType_Check(cls)) {
            PyErr_SetString(PyExc_TypeError, "record_call(): rule.cls is not a class");
            Py_DECREF(cls);
            goto done;
        }
        node = new_node(cls, r, slots, metas, needs, edges, 1, "record_call");
        Py_DECREF(cls);
        if (node == NULL)
            goto done;
    }
    {
        int fl = (PyObject *)Py_TYPE(result) == Array_C ? float_kind(result) : 0;
        if (fl < 0)
            goto done;
        PyObject *m = fl ? meta_of(result) : Py_NewRef(Py_None);
        tmp = m ? PyList_New(1) : NULL;
        if (tmp == NULL) {
            Py_XDECREF(m);
            goto done;
        }
        PyList_SET_ITEM(tmp, 0, m);
        if (fl) {
            PyObject *e = PyObject_GetAttr(result, r_ext);
            if (e == NULL)
                goto done;
            if (e == Py_None) {
                Py_DECREF(e);
                e = PyObject_CallNoArgs(Ext_C);
                if (e == NULL || PyObject_SetAttr(result, r_ext, e) < 0) {
                    Py_XDECREF(e);
                    goto done;
                }
            }
            int err = ext_attach(e, node) < 0;
            if (!err) {
                PyObject *st = PyObject_GetAttr(result, r_st);
                if (st == NULL)
                    err = 1;
                else {
                    if (st != Py_None) { /* a view of an input's memory: Python's loop */
                        PyObject *argv[3] = {result, e, arrays};
                        PyObject *v = PyObject_Vectorcall(view_fix_fn, argv, 3, NULL);
                        err = v == NULL;
                        Py_XDECREF(v);
                    }
                    Py_DECREF(st);
                }
            }
            Py_DECREF(e);
            if (err)
                goto done;
        }
        if (node_set(node, F_OUT_METAS, tmp) < 0)
            goto done;
        Py_CLEAR(tmp);
    }
    {
        int k = PyObject_IsTrue(PyTuple_GET_ITEM(sv, 1));
        if (k < 0)
            goto done;
        if (k) {
            PyObject *zero = PyLong_FromLong(0);
            PyObject *s = zero ? saved_new(result, zero) : NULL;
            Py_XDECREF(zero);
            if (s == NULL || PyDict_SetItem(vals, r_result, s) < 0) {
                Py_XDECREF(s);
                goto done;
            }
            Py_DECREF(s);
        }
    }
    if (node_set(node, F_VALS, vals) < 0)
        goto done;
    ret = Py_NewRef(result);
done:
    if (fallback && ret == NULL && !PyErr_Occurred()) {
        PyObject *argv[7] = {name, r, impl, a, kw, next, Py_None};
        ret = PyObject_Vectorcall(record_py_fn, argv, 7, NULL);
    }
    Py_XDECREF(params);
    Py_XDECREF(diff);
    Py_XDECREF(arrays);
    Py_XDECREF(slots);
    Py_XDECREF(edges);
    Py_XDECREF(metas);
    Py_XDECREF(needs);
    Py_XDECREF(sv);
    Py_XDECREF(vals);
    Py_XDECREF(result);
    Py_XDECREF(node);
    Py_XDECREF(tmp);
    return ret;
}

/* --- RuleNode.apply (_record.py), compiled ------------------------------------------------
 *
 * rule_apply(node, grads) is ``RuleNode.apply`` step for step for a node of one output
 * whose rule's formulas take positional arguments (every rule of ours): the same
 * environment (``g``, ``ctx``, the saved values, unpacked as the Python loop unpacks
 * them: a plain backward's unchanged SavedVar inline, anything else through
 * ``SavedVar.unpack`` / ``unpack``), the same formula calls in the same order (the joint
 * formula, or one per needed parameter in ``_needs``'s order), the environment dropped
 * before the results are fitted, and the same checks (``fit_grad`` for a result of
 * another shape, dtype, device or type; ``_zeros_if_none`` for ZERO). Anything else (a
 * node of several outputs, keyword formulas, values of unexpected types) calls the Python
 * definition. The engine's loop (run_node) calls it in place of ``node.apply`` when the
 * node's ``apply`` is RuleNode's own; STRIDED_NO_CEXT=1 runs the definition, and
 * tests/autograd/test_apply_c.py compares the two. */

static PyObject *py_apply;     /* RuleNode.apply, the definition */
static PyObject *ZERO_o, *STATE_o, *FREED_o, *unpack_fn, *fit_grad_fn, *zeros_if_none_fn,
    *object_new_fn;
static PyObject *a_enabled, *a_ver, *a_x,
    *a_nr, *a_family, *a_version, *a_np, *a_off, *a_str, *a_unpack, *a_g, *a_ctx, *a_name;

/* attribute ``name`` of o is exactly the object want (1), not (0), or -1 with an error */
static int
attr_is(PyObject *o, PyObject *name, PyObject *want)
{
    return is_then_drop(PyObject_GetAttr(o, name), want);
}

/* A saved value as the environment gets it (new reference); ``sv`` is a SavedVar. */
static PyObject *
env_value(PyObject *node, PyObject *sv, int cg)
{
    PyObject *st = NULL, *x = NULL, *r = NULL, *a = NULL, *ext = NULL;
    int slow = cg;
    if (!cg && SV_T != NULL && Py_IS_TYPE(sv, SV_T)) {
        /* The same steps on the slots (setup_saved's offsets): a plain Storage whose version
           is the saved one, x an Array of the contract; anything else the attribute API */
        PyObject *s = SLOT(sv, SV_st), *ver = SLOT(sv, SV_ver), *xx = SLOT(sv, SV_x), *nr = SLOT(sv, SV_nr);
        if (s != NULL && ver != NULL && xx != NULL && nr != NULL && sv_plain_storage(s)
            && PyLong_CheckExact(ver) && contract_array(xx)) {
            int ne = SLOT(s, S_version) == ver ? 0 : PyObject_RichCompareBool(SLOT(s, S_version), ver, Py_NE);
            if (ne < 0)
                return NULL;
            if (ne)
                return PyObject_CallMethodObjArgs(sv, a_unpack, node, Py_False, NULL); /* (stale) */
            if (nr != Py_None || SLOT(xx, O_ext) == Py_None)
                return Py_NewRef(xx);
            return bare_alias(xx, s); /* alias(x), x having its Storage */
        }
    }
    if (!slow) {
        st = PyObject_GetAttr(sv, r_st);
        if (st == NULL)
            return NULL;
        if (st == Py_None)
            slow = 1;
        else {
            int f = attr_is(st, a_family, Py_None);
            if (f < 0)
                goto done;
            if (!f)
                slow = 1;
            else {
                PyObject *v1 = PyObject_GetAttr(st, a_version), *v2 = v1 ? PyObject_GetAttr(sv, a_ver) : NULL;
                int ne = v2 ? PyObject_RichCompareBool(v1, v2, Py_NE) : -1;
                Py_XDECREF(v1);
                Py_XDECREF(v2);
                if (ne < 0)
                    goto done;
                slow = ne;
            }
        }
    }
    if (slow) { /* (lazy, reinterpreted, stale or recording) */
        r = PyObject_CallMethodObjArgs(sv, a_unpack, node, cg ? Py_True : Py_False, NULL);
        goto done;
    }
    /* SavedVar.unpack's common case: the saved array itself (a saved output: a bare alias
       already) or, for an input with metadata, a bare alias of it */
    x = PyObject_GetAttr(sv, a_x);
    if (x == NULL)
        goto done;
    int nr_none = attr_is(sv, a_nr, Py_None);
    if (nr_none < 0)
        goto done;
    ext = nr_none ? PyObject_GetAttr(x, r_ext) : NULL;
    if (nr_none && ext == NULL)
        goto done;
    if (!nr_none || ext == Py_None) {
        r = Py_NewRef(x);
        goto done;
    }
    a = PyObject_CallOneArg(object_new_fn, Array_C); /* alias(x), x having its Storage */
    if (a == NULL)
        goto done;
    PyObject *names[7] = {a_np, r_st, a_off, r_shape, a_str, r_dtype, r_device};
    for (int i = 0; i < 7; i++) {
        PyObject *v = i == 1 ? Py_NewRef(st) : PyObject_GetAttr(x, names[i]);
        int e = v == NULL ? -1 : PyObject_SetAttr(a, names[i], v);
        Py_XDECREF(v);
        if (e < 0)
            goto done;
    }
    if (PyObject_SetAttr(a, r_ext, Py_None) < 0)
        goto done;
    r = Py_NewRef(a);
done:
    Py_XDECREF(st);
    Py_XDECREF(x);
    Py_XDECREF(a);
    Py_XDECREF(ext);
    return r;
}

/* RuleNode.apply's ``env``: {"g": grads[0], "ctx": node, then each saved value by name},
   kept as pairs (new references) in insertion order instead of a dict; a name's value is
   the last pair with that name, as the dict's item would be. The dict itself is made only
   for a getter that is called with it (env_dict). */
typedef struct {
    Py_ssize_t n;
    PyObject **k, **v; /* n names and values */
    PyObject *dict;    /* (made on demand) */
} Env;

static void
env_clear(Env *env)
{
    for (Py_ssize_t i = 0; i < env->n; i++) {
        Py_DECREF(env->k[i]);
        Py_DECREF(env->v[i]);
    }
    env->n = 0;
    Py_CLEAR(env->dict);
}

/* env[name] (borrowed), or NULL (not there, or an error). */
static PyObject *
env_find(const Env *env, PyObject *name)
{
    if (env->dict != NULL)
        return PyDict_GetItemWithError(env->dict, name);
    for (Py_ssize_t i = env->n - 1; i >= 0; i--)
        if (env->k[i] == name)
            return env->v[i];
    for (Py_ssize_t i = env->n - 1; i >= 0; i--) /* (equal names, not the same object) */
        if (PyUnicode_CheckExact(env->k[i]) && PyUnicode_Compare(env->k[i], name) == 0)
            return env->v[i];
    return NULL;
}

/* The env as the dict RuleNode.apply builds (borrowed; NULL with an error). From then on
   the dict holds the values alone (the definition's references: one each). */
static PyObject *
env_dict(Env *env)
{
    if (env->dict == NULL) {
        PyObject *d = PyDict_New();
        for (Py_ssize_t i = 0; d != NULL && i < env->n; i++)
            if (PyDict_SetItem(d, env->k[i], env->v[i]) < 0)
                Py_CLEAR(d);
        if (d == NULL)
            return NULL;
        env_clear(env);
        env->dict = d;
    }
    return env->dict;
}

/* getters[p](env) as a tuple (new reference), or NULL with an error. ``getters[p]`` is
   Rule.__init__'s ``_getter(uses[p])``: for a tuple of names in ``uses[p]`` (``uses`` the
   rule's own dict) the tuple of env[n] is built here, as the getter builds it (a KeyError
   naming the first missing name), without the one-name getter's lambda frame; anything
   else calls the getter with the env's dict. */
static PyObject *
picked(PyObject *getters, PyObject *uses, PyObject *p, Env *env)
{
    PyObject *names = uses != NULL && PyDict_CheckExact(uses) ? PyDict_GetItemWithError(uses, p) : NULL;
    if (names == NULL && PyErr_Occurred())
        return NULL;
    if (names != NULL && PyTuple_CheckExact(names)) {
        Py_ssize_t n = PyTuple_GET_SIZE(names), i;
        for (i = 0; i < n && PyUnicode_CheckExact(PyTuple_GET_ITEM(names, i)); i++)
            ;
        if (i == n) {
            PyObject *t = PyTuple_New(n);
            for (i = 0; t != NULL && i < n; i++) {
                PyObject *k = PyTuple_GET_ITEM(names, i), *v = env_find(env, k);
                if (v == NULL) {
                    if (!PyErr_Occurred())
                        PyErr_SetObject(PyExc_KeyError, k);
                    Py_CLEAR(t);
                    break;
                }
                PyTuple_SET_ITEM(t, i, Py_NewRef(v));
            }
            return t;
        }
    }
    PyObject *get = PyDict_CheckExact(getters) ? PyDict_GetItemWithError(getters, p) : NULL;
    if (get == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, p);
        return NULL;
    }
    PyObject *d = env_dict(env);
    if (d == NULL)
        return NULL;
    Py_INCREF(get);
    PyObject *t = PyObject_CallOneArg(get, d);
    Py_DECREF(get);
    if (t != NULL && !PyTuple_Check(t)) {
        PyObject *u = PySequence_Tuple(t);
        Py_SETREF(t, u);
    }
    return t;
}

/* --- fit_grad's broadcast case (_function.py: fit_grad, sum_to, _SumTo.forward) ---------- */

static PyObject *ndarray_T; /* (set by setup_accumulate) */
static PyObject *r_dtype_np, *zero_o;
static PyObject *sum_axes_d, *add_reduce_fn, *np_asarray_fn, *s_reshape, *s_nshape; /* setup_sum_to */

/* fit_grad(g, meta, op) for a plain backward's host gradient of meta's dtype and device
   whose shape sums down to meta's: _SumTo.forward's NumPy case step for step (the axes
   from _function._SUM_AXES, already worked out for this pair of shapes; the ufunc's
   reduce; wrap_new's Array). A new reference, or NULL with no error: the Python
   fit_grad (a miss of the cache, which also reports shapes that do not sum; a recording
   backward; a device array; a result of another dtype), or NULL with an error. */
static PyObject *
sum_to_host(PyObject *g, PyObject *meta)
{
    if (sum_axes_d == NULL || ndarray_T == NULL || STATE_o == NULL)
        return NULL;
    PyObject *shape = PyTuple_GET_ITEM(meta, 0), *dt = PyTuple_GET_ITEM(meta, 1), *dev = PyTuple_GET_ITEM(meta, 2);
    PyObject *gs = NULL, *n = NULL, *key = NULL, *hit = NULL, *red = NULL, *r = NULL, *a = NULL, *dnp = NULL;
    int rec; /* (sum_to records when enabled and g requires grad: Python's) */
    if (Py_IS_TYPE(STATE_o, &GradState_T))
        rec = !grad_off;
    else {
        PyObject *en = PyObject_GetAttr(STATE_o, a_enabled);
        if (en == NULL)
            return NULL;
        rec = en != Py_False;
        Py_DECREF(en);
    }
    if (rec || !PyTuple_CheckExact(shape))
        return NULL;
    int mine = attr_is(g, r_dtype, dt); /* (g of meta's dtype and device: no cast, no move) */
    if (mine > 0)
        mine = attr_is(g, r_device, dev);
    if (mine <= 0)
        return NULL;
    gs = PyObject_GetAttr(g, r_shape);
    n = gs ? PyObject_GetAttr(g, a_np) : NULL;
    if (n == NULL || !Py_IS_TYPE(n, (PyTypeObject *)ndarray_T) || !PyTuple_CheckExact(gs))
        goto done;
    key = PyTuple_Pack(2, gs, shape);
    if (key == NULL)
        goto done;
    hit = Py_XNewRef(PyDict_GetItemWithError(sum_axes_d, key));
    if (hit == NULL || !PyTuple_CheckExact(hit) || PyTuple_GET_SIZE(hit) != 2)
        goto done;
    PyObject *axes = PyTuple_GET_ITEM(hit, 0), *keep = PyTuple_GET_ITEM(hit, 1);
    if (!PyTuple_CheckExact(axes) || PyTuple_GET_SIZE(axes) == 0 || (keep != Py_True && keep != Py_False))
        goto done;
    if (keep == Py_True) { /* _ADD_REDUCE(n, axes, None, None, True) */
        PyObject *argv[5] = {n, axes, Py_None, Py_None, Py_True};
        red = PyObject_Vectorcall(add_reduce_fn, argv, 5, NULL);
    }
    else { /* np.asarray(_ADD_REDUCE(n, axes)).reshape(shape) */
        PyObject *argv[2] = {n, axes};
        PyObject *t = PyObject_Vectorcall(add_reduce_fn, argv, 2, NULL);
        PyObject *u = t ? PyObject_CallOneArg(np_asarray_fn, t) : NULL;
        Py_XDECREF(t);
        red = u ? PyObject_CallMethodOneArg(u, s_reshape, shape) : NULL;
        Py_XDECREF(u);
    }
    if (red == NULL)
        goto done;
    /* wrap_new(red, dtype, device): red's dtype is dtype._np here (else the definition) */
    PyObject *rdt = PyObject_GetAttr(red, r_dtype_np);
    dnp = rdt ? PyObject_GetAttr(dt, a_np) : NULL;
    int same = dnp != NULL && rdt == dnp;
    Py_XDECREF(rdt);
    if (dnp == NULL)
        goto done;
    if (!same || !Py_IS_TYPE(red, (PyTypeObject *)ndarray_T))
        goto done; /* (the definition computes it again: no error set, nothing changed) */
    PyObject *rs = PyObject_GetAttr(red, s_nshape);
    if (rs == NULL)
        goto done;
    PyObject *names[8] = {a_np, r_st, a_off, r_shape, a_str, r_dtype, r_device, r_ext};
    PyObject *vals[8] = {red, Py_None, zero_o, rs, Py_None, dt, dev, Py_None};
    if (slots_ready && Array_C == (PyObject *)Array_T) {
        /* (the class's own allocation, its eight slots set as object.__new__ and the
           setattrs would: bare_alias's way) */
        a = Array_T->tp_alloc(Array_T, 0);
        Py_ssize_t offs[8] = {O_np, O_st, O_off, O_shape, O_str, O_dtype, O_device, O_ext};
        for (int i = 0; a != NULL && i < 8; i++)
            SLOT(a, offs[i]) = Py_NewRef(vals[i]);
    }
    else {
        a = PyObject_CallOneArg(object_new_fn, Array_C); /* Array._new(red, None, 0, red.shape, None, dt, dev) */
        for (int i = 0; a != NULL && i < 8; i++)
            if (PyObject_SetAttr(a, names[i], vals[i]) < 0)
                Py_CLEAR(a);
    }
    Py_DECREF(rs);
    r = a;
done:
    Py_XDECREF(gs);
    Py_XDECREF(n);
    Py_XDECREF(key);
    Py_XDECREF(hit);
    Py_XDECREF(red);
    Py_XDECREF(dnp);
    return r;
}

static PyObject *
setup_sum_to(PyObject *mod, PyObject *args)
{
    PyObject *d, *red, *asa;
    if (!PyArg_ParseTuple(args, "O!OO:setup_sum_to", &PyDict_Type, &d, &red, &asa))
        return NULL;
    if ((s_reshape == NULL && (s_reshape = PyUnicode_InternFromString("reshape")) == NULL)
        || (s_nshape == NULL && (s_nshape = PyUnicode_InternFromString("shape")) == NULL)
        || (r_dtype_np == NULL && (r_dtype_np = PyUnicode_InternFromString("dtype")) == NULL)
        || (zero_o == NULL && (zero_o = PyLong_FromLong(0)) == NULL))
        return NULL;
    Py_XSETREF(add_reduce_fn, Py_NewRef(red));
    Py_XSETREF(np_asarray_fn, Py_NewRef(asa));
    Py_XSETREF(sum_axes_d, Py_NewRef(d)); /* last: it turns the compiled case on */
    Py_RETURN_NONE;
}

/* Are the node's _slots and next_functions tuples or lists of exact 2-tuples? 1 yes, 0 no
   (the definition then runs: it unpacks any pair, and raises Python's own errors for
   anything else), -1 an error. */
static int
pairs_only(PyObject *node)
{
    int fields[2] = {F_SLOTS, F_NEXT};
    for (int k = 0; k < 2; k++) {
        PyObject *seq = node_get(node, fields[k]);
        if (seq == NULL)
            return -1;
        int ok = PyTuple_CheckExact(seq) || PyList_CheckExact(seq);
        for (Py_ssize_t i = 0; ok && i < PySequence_Fast_GET_SIZE(seq); i++) {
            PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
            ok = PyTuple_CheckExact(it) && PyTuple_GET_SIZE(it) == 2;
        }
        Py_DECREF(seq);
        if (!ok)
            return 0;
    }
    return 1;
}

static PyObject *same_fn; /* _rules._same, the formula ``g`` (setup_same) */

static PyObject *
setup_same(PyObject *mod, PyObject *fn)
{
    if (!PyFunction_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "setup_same(fn): a function");
        return NULL;
    }
    Py_XSETREF(same_fn, Py_NewRef(fn));
    Py_RETURN_NONE;
}

/* _rules._conj, the formulas' conjugate (a dozen calls a small training step): an Array
   of a real dtype is its own conjugate, answered here without the Python frame; anything
   else (a complex Array, a Python or NumPy number, an Array whose DType this module
   cannot read) goes to the Python definition (setup_conj). */
static PyObject *conj_fn; /* _rules._conj_py */

static PyObject *
setup_conj(PyObject *mod, PyObject *fn)
{
    if (!PyFunction_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "setup_conj(fn): a function");
        return NULL;
    }
    Py_XSETREF(conj_fn, Py_NewRef(fn));
    Py_RETURN_NONE;
}

static PyObject *
conj_(PyObject *mod, PyObject *x)
{
    if (slots_ready && D_kind_off && Py_IS_TYPE(x, Array_T) && contract_array(x)) {
        PyObject *dt = SLOT(x, O_dtype);
        PyObject *k = dt != NULL && Py_IS_TYPE(dt, DType_T) ? SLOT(dt, D_kind_off) : NULL;
        if (k != NULL && PyUnicode_CheckExact(k) && PyUnicode_GET_LENGTH(k) == 1) {
            Py_UCS4 c = PyUnicode_READ_CHAR(k, 0);
            if (c == 'f' || c == 'i' || c == 'u' || c == 'b')
                return Py_NewRef(x);
        }
    }
    if (conj_fn == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "conj(): setup_conj() first");
        return NULL;
    }
    return PyObject_CallOneArg(conj_fn, x);
}

static PyObject *
rule_apply_impl(PyObject *node, PyObject *grads)
{
    PyObject *vals = NULL, *rule = NULL, *results = NULL, *out = NULL, *ret = NULL;
    PyObject *slots = NULL, *metas = NULL, *nf = NULL, *tmp = NULL;
    Env env_s = {0, NULL, NULL, NULL}, *env = &env_s;
    vals = node_get(node, F_VALS);
    if (vals == NULL)
        return NULL;
    if (vals == Py_None) {
        PyErr_SetObject(PyExc_RuntimeError, FREED_o);
        goto done;
    }
    int one = 0;
    tmp = node_get(node, F_NOUT);
    if (tmp == NULL)
        goto done;
    one = PyLong_CheckExact(tmp) && PyLong_AsLong(tmp) == 1;
    Py_CLEAR(tmp);
    rule = node_get(node, F_RULE);
    if (rule == NULL)
        goto done;
    int pos = rule_is(rule, a_positional, Py_True);
    if (pos < 0)
        goto done;
    int pairs = one && pos ? pairs_only(node) : 0;
    if (pairs < 0)
        goto done;
    if (!one || !pos || !pairs || !PyDict_CheckExact(vals) || !PyList_Check(grads) || PyList_GET_SIZE(grads) < 1) {
        ret = PyObject_CallFunctionObjArgs(py_apply, node, grads, NULL); /* the definition */
        goto done;
    }
    PyObject *items = NULL;
    int cg = 0;
    if (PyDict_GET_SIZE(vals)) {
        cg = state_enabled();
        if (cg < 0)
            goto done;
        /* (a copy of the items: Python code runs while they are read) */
        items = PyDict_Items(vals);
        if (items == NULL)
            goto done;
    }
    {
        Py_ssize_t cap = 2 + (items != NULL ? PyList_GET_SIZE(items) : 0);
        env->k = PyMem_New(PyObject *, cap);
        env->v = PyMem_New(PyObject *, cap);
        if (env->k == NULL || env->v == NULL) {
            Py_XDECREF(items);
            PyErr_NoMemory();
            goto done;
        }
        env->k[0] = Py_NewRef(a_g);
        env->v[0] = Py_NewRef(PyList_GET_ITEM(grads, 0));
        env->k[1] = Py_NewRef(a_ctx);
        env->v[1] = Py_NewRef(node);
        env->n = 2;
    }
    if (items != NULL) {
        Py_ssize_t i = 0;
        PyObject *k, *v;
        for (i = 0; i < PyList_GET_SIZE(items); i++) {
            PyObject *kv = PyList_GET_ITEM(items, i);
            k = PyTuple_GET_ITEM(kv, 0), v = PyTuple_GET_ITEM(kv, 1);
            PyObject *e;
            if ((PyObject *)Py_TYPE(v) == SavedVar_C)
                e = env_value(node, v, cg);
            else if (PyList_CheckExact(v) || PyTuple_CheckExact(v))
                e = PyObject_CallFunctionObjArgs(unpack_fn, v, node, cg ? Py_True : Py_False, NULL);
            else
                e = Py_NewRef(v);
            if (e == NULL) {
                Py_DECREF(items);
                goto done;
            }
            env->k[env->n] = Py_NewRef(k); /* env[k] = e */
            env->v[env->n++] = e;
        }
        Py_DECREF(items);
    }
    PyObject *joint = rule_attr(rule, a_joint);
    if (joint == NULL)
        goto done;
    PyObject *getters = rule_attr(rule, a_getters);
    PyObject *uses = getters != NULL ? rule_attr(rule, a_uses) : NULL;
    if (uses == NULL) {
        Py_XDECREF(getters);
        Py_DECREF(joint);
        goto done;
    }
    results = PyDict_New();
    if (results == NULL)
        goto formulas_done;
    if (joint != Py_None) {
        PyObject *diff = rule_attr(rule, r_diff), *res = NULL, *args = NULL, *seq = NULL;
        if (diff == NULL || !PyTuple_CheckExact(diff) || PyTuple_GET_SIZE(diff) < 1) {
            if (diff != NULL)
                PyErr_SetString(PyExc_TypeError, "rule_apply(): the rule's diff is not a tuple");
            goto joint_done;
        }
        args = picked(getters, uses, PyTuple_GET_ITEM(diff, 0), env);
        if (args == NULL)
            goto joint_done;
        res = PyObject_Call(joint, args, NULL);
        if (res == NULL)
            goto joint_done;
        if (!PyTuple_Check(res) && !PyList_Check(res)) {
            PyObject *t = PyTuple_Pack(1, res);
            Py_SETREF(res, t);
            if (res == NULL)
                goto joint_done;
        }
        seq = PySequence_Fast(res, "joint");
        if (seq == NULL)
            goto joint_done;
        Py_ssize_t n = PyTuple_GET_SIZE(diff);
        if (PySequence_Fast_GET_SIZE(seq) < n)
            n = PySequence_Fast_GET_SIZE(seq); /* (zip stops at the shorter) */
        for (Py_ssize_t i = 0; i < n; i++)
            if (PyDict_SetItem(results, PyTuple_GET_ITEM(diff, i), PySequence_Fast_ITEMS(seq)[i]) < 0)
                goto joint_done;
        Py_CLEAR(diff); /* (success marker) */
    joint_done:
        Py_XDECREF(args);
        Py_XDECREF(res);
        Py_XDECREF(seq);
        if (diff != NULL) { /* an error above */
            Py_DECREF(diff);
            Py_CLEAR(results);
        }
        else if (PyErr_Occurred())
            Py_CLEAR(results);
    }
    else {
        PyObject *formulas = rule_attr(rule, a_formulas);
        PyObject *needs = formulas ? node_get(node, F_NEEDS) : NULL;
        PyObject *it = needs ? PyObject_GetIter(needs) : NULL, *p;
        if (it == NULL)
            Py_CLEAR(results);
        while (it != NULL && (p = PyIter_Next(it)) != NULL) {
            PyObject *f = PyObject_GetItem(formulas, p), *r = NULL;
            if (f == ZERO_o)
                r = Py_NewRef(f);
            else if (f != NULL) {
                PyObject *args = picked(getters, uses, p, env);
                if (args != NULL && f == same_fn && PyTuple_GET_SIZE(args) == 1)
                    r = Py_NewRef(PyTuple_GET_ITEM(args, 0)); /* (_rules._same(g) is g) */
                else
                    r = args ? PyObject_Call(f, args, NULL) : NULL;
                Py_XDECREF(args);
            }
            int err = r == NULL || PyDict_SetItem(results, p, r) < 0;
            Py_XDECREF(f);
            Py_XDECREF(r);
            Py_DECREF(p);
            if (err) {
                Py_CLEAR(results);
                break;
            }
        }
        if (results != NULL && PyErr_Occurred())
            Py_CLEAR(results);
        Py_XDECREF(it);
        Py_XDECREF(needs);
        Py_XDECREF(formulas);
    }
formulas_done:
    Py_DECREF(joint);
    Py_DECREF(getters);
    Py_DECREF(uses);
    env_clear(env);
    if (results == NULL)
        goto done;
    slots = node_get(node, F_SLOTS);
    metas = slots ? node_get(node, F_METAS) : NULL;
    nf = metas ? node_get(node, F_NEXT) : NULL;
    if (nf == NULL)
        goto done;
    PyObject *s = PySequence_Fast(slots, "slots"), *m = s ? PySequence_Fast(metas, "metas") : NULL;
    PyObject *e = m ? PySequence_Fast(nf, "next_functions") : NULL;
    Py_ssize_t n = 0;
    if (e != NULL) {
        n = PySequence_Fast_GET_SIZE(s);
        if (PySequence_Fast_GET_SIZE(m) < n)
            n = PySequence_Fast_GET_SIZE(m);
        if (PySequence_Fast_GET_SIZE(e) < n)
            n = PySequence_Fast_GET_SIZE(e);
        out = PyList_New(0);
    }
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *slot = PySequence_Fast_ITEMS(s)[i], *meta = PySequence_Fast_ITEMS(m)[i];
        PyObject *edge = PySequence_Fast_ITEMS(e)[i], *r = NULL;
        if (!PyTuple_CheckExact(slot) || PyTuple_GET_SIZE(slot) != 2 || !PyTuple_CheckExact(edge)
            || PyTuple_GET_SIZE(edge) != 2) {
            PyErr_SetString(PyExc_TypeError, "rule_apply(): a node's slot or edge is not a pair");
            Py_CLEAR(out);
            break;
        }
        if (PyTuple_GET_ITEM(edge, 0) != Py_None) {
            r = PyDict_GetItemWithError(results, PyTuple_GET_ITEM(slot, 0));
            Py_XINCREF(r);
        }
        if (r == NULL && PyErr_Occurred()) {
            Py_CLEAR(out);
            break;
        }
        if (r != NULL && r != Py_None) {
            PyObject *idx = PyTuple_GET_ITEM(slot, 1);
            if (r == ZERO_o)
                Py_SETREF(r, PyObject_CallFunctionObjArgs(zeros_if_none_fn, Py_None, meta, NULL));
            else if (idx != Py_None)
                Py_SETREF(r, PyObject_GetItem(r, idx));
            int fit = 1;
            if (r != NULL && slots_ready && contract_array(r) && PyTuple_CheckExact(meta)
                && PyTuple_GET_SIZE(meta) == 3 && PyTuple_CheckExact(PyTuple_GET_ITEM(meta, 0))) {
                /* (the slots, in the definition's order: the shape compared, then dtype and
                   device by identity) */
                int same = PyObject_RichCompareBool(SLOT(r, O_shape), PyTuple_GET_ITEM(meta, 0), Py_EQ);
                if (same > 0)
                    same = SLOT(r, O_dtype) == PyTuple_GET_ITEM(meta, 1)
                           && SLOT(r, O_device) == PyTuple_GET_ITEM(meta, 2);
                if (same < 0)
                    Py_CLEAR(r);
                fit = same == 0;
            }
            else if (r != NULL && (PyObject *)Py_TYPE(r) == Array_C && PyTuple_CheckExact(meta)
                && PyTuple_GET_SIZE(meta) == 3) {
                PyObject *sh = PyObject_GetAttr(r, r_shape);
                int same = sh ? PyObject_RichCompareBool(sh, PyTuple_GET_ITEM(meta, 0), Py_EQ) : -1;
                Py_XDECREF(sh);
                if (same > 0)
                    same = attr_is(r, r_dtype, PyTuple_GET_ITEM(meta, 1));
                if (same > 0)
                    same = attr_is(r, r_device, PyTuple_GET_ITEM(meta, 2));
                if (same < 0)
                    Py_CLEAR(r);
                fit = same == 0;
            }
            if (r != NULL && fit && PyTuple_CheckExact(meta) && PyTuple_GET_SIZE(meta) == 3
                && (PyObject *)Py_TYPE(r) == Array_C) {
                PyObject *h = sum_to_host(r, meta); /* (the broadcast case, compiled) */
                if (h != NULL)
                    fit = 0;
                if (h != NULL || PyErr_Occurred())
                    Py_SETREF(r, h);
            }
            if (r != NULL && fit) {
                PyObject *name = PyObject_GetAttr((PyObject *)Py_TYPE(node), a_name);
                Py_SETREF(r, name ? PyObject_CallFunctionObjArgs(fit_grad_fn, r, meta, name, NULL) : NULL);
                Py_XDECREF(name);
            }
            if (r == NULL) {
                Py_CLEAR(out);
                break;
            }
        }
        else if (r == NULL)
            r = Py_NewRef(Py_None);
        int err = PyList_Append(out, r);
        Py_DECREF(r);
        if (err < 0)
            Py_CLEAR(out);
    }
    Py_XDECREF(s);
    Py_XDECREF(m);
    Py_XDECREF(e);
    ret = out;
done:
    Py_XDECREF(vals);
    Py_XDECREF(rule);
    env_clear(env);
    PyMem_Free(env->k);
    PyMem_Free(env->v);
    Py_XDECREF(results);
    Py_XDECREF(slots);
    Py_XDECREF(metas);
    Py_XDECREF(nf);
    Py_XDECREF(tmp);
    return ret;
}

/* --- AccumulateGrad.apply's common case (_graph.py: apply, _accumulate_into, _stealable) --
 *
 * A leaf's first gradient of a plain backward, when only the engine's hand-off refers to
 * it, becomes the leaf's .grad as is (PyTorch steals such gradients too). The Python
 * definition decides that with sys.getrefcount; here the same conditions are read from
 * the objects: the hand-off (exact _Handoff, one slot) holds the only reference to g (an
 * exact Array without metadata or Storage), g._np is the only reference to its exact
 * ndarray, C-contiguous and writeable, whose base is None or (a _PoolBlock, or an ndarray
 * without a base) referred to by it alone; the leaf's Ext (exact) has no hooks and no
 * .grad; STATE.enabled is false (no create_graph); and _ACCUMULATE is free (taken
 * without blocking around the write, as the definition holds it). Anything else runs
 * the definition. What it reads is read through the ordinary attribute API. */
static PyObject *free_held_fn; /* _chot.free_held (setup_accumulate's optional fifth argument) */
static PyObject *acc_apply, *ndarray_T, *PoolBlock_T, *acc_lock, *s_variable, *s_hooks, *s_grad,
    *s_flags, *s_c_contiguous, *s_writeable, *s_base, *s_acquire, *s_release_lock;

/* 1 when attribute name of o is exactly None, 0 when not, -1 with an error. */
static int
attr_none(PyObject *o, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(o, name);
    if (v == NULL)
        return -1;
    int r = v == Py_None;
    Py_DECREF(v);
    return r;
}

/* 1 when attribute name of o is true, 0 when false, -1 with an error. */
static int
attr_true(PyObject *o, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(o, name);
    if (v == NULL)
        return -1;
    int r = PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

/* Whether g (referred to by the hand-off alone) can become .grad: 1, 0, or -1 (error). */
static int
acc_stealable(PyObject *g)
{
    if (!Py_IS_TYPE(g, (PyTypeObject *)Array_C) || Py_REFCNT(g) != 1)
        return 0;
    int r;
    PyObject *a;
    if (slots_ready && contract_array(g)) { /* (the slots) */
        if (SLOT(g, O_ext) != Py_None || SLOT(g, O_st) != Py_None)
            return 0;
        a = Py_NewRef(SLOT(g, O_np));
    }
    else {
        if ((r = attr_none(g, r_ext)) <= 0)
            return r;
        if ((r = attr_none(g, r_st)) <= 0)
            return r;
        a = PyObject_GetAttr(g, a_np);
    }
    if (a == NULL)
        return -1;
    /* 2: g._np and ``a`` (3 when the third is the small-result free list's: _chot's
       free_held; the list never hands out an array another reference holds) */
    Py_ssize_t sole = 2;
    if (Py_REFCNT(a) == 3 && free_held_fn != NULL && Py_IS_TYPE(a, (PyTypeObject *)ndarray_T)) {
        PyObject *h = PyObject_CallOneArg(free_held_fn, a);
        if (h == NULL) {
            Py_DECREF(a);
            return -1;
        }
        sole += h == Py_True;
        Py_DECREF(h);
    }
    if (!Py_IS_TYPE(a, (PyTypeObject *)ndarray_T) || Py_REFCNT(a) != sole) {
        Py_DECREF(a);
        return 0;
    }
    PyObject *f = PyObject_GetAttr(a, s_flags);
    r = f == NULL ? -1 : attr_true(f, s_c_contiguous);
    if (r > 0)
        r = attr_true(f, s_writeable);
    Py_XDECREF(f);
    if (r <= 0) {
        Py_DECREF(a);
        return r;
    }
    PyObject *base = PyObject_GetAttr(a, s_base);
    Py_DECREF(a);
    if (base == NULL)
        return -1;
    if (base == Py_None) {
        Py_DECREF(base);
        return 1;
    }
    /* 2: a.base and ``base`` */
    if (Py_REFCNT(base) != 2) {
        Py_DECREF(base);
        return 0;
    }
    if (Py_IS_TYPE(base, (PyTypeObject *)PoolBlock_T))
        r = 1;
    else if (PyObject_TypeCheck(base, (PyTypeObject *)ndarray_T))
        r = attr_none(base, s_base);
    else
        r = 0;
    Py_DECREF(base);
    return r;
}

/* AccumulateGrad.apply(grads) when it steals g: [] (a new list); Py_NotImplemented
   (borrowed) to run the definition; NULL with an error. */
static PyObject *
acc_apply_fast(PyObject *node, PyObject *grads)
{
    if (!Py_IS_TYPE(grads, (PyTypeObject *)Handoff_T) || PyList_GET_SIZE(grads) != 1)
        return Py_NotImplemented;
    int en = state_enabled();
    if (en != 0)
        return en < 0 ? NULL : Py_NotImplemented;
    PyObject *x = node_get(node, F_VARIABLE);
    if (x == NULL)
        return NULL;
    PyObject *e = !Py_IS_TYPE(x, (PyTypeObject *)Array_C) ? Py_NewRef(Py_None)
                  : slots_ready && contract_array(x) ? Py_NewRef(SLOT(x, O_ext)) : PyObject_GetAttr(x, r_ext);
    Py_DECREF(x); /* (the node holds the leaf) */
    if (e == NULL)
        return NULL;
    PyObject *result = Py_NotImplemented;
    int r;
    if (!Py_IS_TYPE(e, (PyTypeObject *)Ext_C))
        goto done;
    if ((r = attr_true(e, s_hooks)) != 0 || (r = attr_none(e, s_grad)) != 1
        || (r = acc_stealable(PyList_GET_ITEM(grads, 0))) != 1) {
        if (r < 0)
            result = NULL;
        goto done;
    }
    PyObject *got = PyObject_CallMethodOneArg(acc_lock, s_acquire, Py_False);
    if (got == NULL) {
        result = NULL;
        goto done;
    }
    r = got == Py_True;
    Py_DECREF(got);
    if (!r)
        goto done; /* (another thread accumulates: the definition waits for it) */
    /* (nothing above ran Python code that could have set .grad: plain slots and C getters) */
    r = PyObject_SetAttr(e, s_grad, PyList_GET_ITEM(grads, 0));
    PyObject *rel = PyObject_CallMethodNoArgs(acc_lock, s_release_lock);
    if (r < 0 || rel == NULL) {
        Py_XDECREF(rel);
        result = NULL;
        goto done;
    }
    Py_DECREF(rel);
    result = PyList_New(0);
done:
    Py_DECREF(e);
    return result;
}

/* --- nn.functional.linear's recorded host case (autograd/_fused.py, linear) -------------
 *
 * linear_host(x, weight, bias) is ``_fused.linear``'s recorded branch for two-dimensional
 * x, reached from ``nn.functional.linear``: the checks of linear, fusable, _host and
 * host_product, then the same calls -- ``numpy.matmul(a, w.T)`` where host_product takes
 * matmul (float32/float64, every dimension > 1, a result of NO_FILL_BYTES or more, both
 * operands aligned and C- or F-contiguous: x and weight, w.T's layout follows),
 * ``a.dot(w.T)`` otherwise, ``numpy.add(r, b, out=r)`` for a bias --, the result an Array
 * built as ``Array._new`` builds it, and record_node's node (AddmmBackward0, or
 * MmBackward0 without a bias). It returns NotImplemented (nothing computed) for what it
 * does not take: x not 2-D, shapes that do not fit, any operand not an Array (exact) with
 * a cached ndarray native (exact) on a "cpu" device, dtypes not one floating DType,
 * names, recording off or no operand requiring grad, more handlers than strided's two
 * (an extension sees every call through dispatch). setup_linear tells it the rule, the two
 * node classes, numpy.matmul, numpy.add, the handler list and NO_FILL_BYTES. */
static PyObject *lin_rule, *lin_addmm, *lin_mm, *np_matmul, *np_add, *lin_handlers, *s_T, *s_dot,
    *s_out_kw, *s_x, *s_weight, *s_bias, *s_f, *s_shape_np, *s_itemsize;
static Py_ssize_t lin_no_fill = -1;
static PyObject *s_type, *s_cpu, *one_o, *s_momentum_buffer; /* (also sgd_run's) */

static PyObject *record_node(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);

/* An operand of linear_host: an Array whose slots hold, without names, with a cached
   exact ndarray; its Ext's requires_grad (1/0) in *rg; 0 to decline. */
static int
lin_operand(PyObject *a, int *rg)
{
    if (!contract_array(a) || !Py_IS_TYPE(SLOT(a, O_np), (PyTypeObject *)ndarray_T))
        return 0;
    PyObject *e = SLOT(a, O_ext);
    *rg = 0;
    if (e == Py_None)
        return 1;
    if (!contract_ext(e) || SLOT(e, E_names) != Py_None)
        return 0;
    *rg = SLOT(e, E_rg) == Py_True;
    return 1;
}

/* Whether a buffer-exporting ndarray is C- or F-contiguous and aligned to its item size
   (host_product's flags test): 1, 0, or -1 with an error. */
static int
c_aligned(PyObject *n, Py_ssize_t itemsize)
{
    Py_buffer b;
    if (PyObject_GetBuffer(n, &b, PyBUF_C_CONTIGUOUS) < 0) {
        if (!contract_clear_buffer())
            return -1;
        if (PyObject_GetBuffer(n, &b, PyBUF_F_CONTIGUOUS) < 0)
            return contract_clear_buffer() ? 0 : -1;
    }
    int r = ((uintptr_t)b.buf % (uintptr_t)itemsize) == 0;
    PyBuffer_Release(&b);
    return r;
}

static PyObject *
linear_host(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "linear_host(x, weight, bias)");
        return NULL;
    }
    PyObject *x = args[0], *w = args[1], *b = args[2];
    if (!slots_ready || lin_rule == NULL || ndarray_T == NULL || STATE_o == NULL || seq_iter == NULL)
        Py_RETURN_NOTIMPLEMENTED;
    int rx, rw, rb = 0;
    if (!lin_operand(x, &rx) || !lin_operand(w, &rw) || (b != Py_None && !lin_operand(b, &rb)))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *xs = SLOT(x, O_shape), *ws = SLOT(w, O_shape), *dt = SLOT(x, O_dtype), *dev = SLOT(x, O_device);
    if (PyTuple_GET_SIZE(xs) != 2 || PyTuple_GET_SIZE(ws) != 2 || SLOT(w, O_dtype) != dt
        || SLOT(w, O_device) != dev || (b != Py_None && (SLOT(b, O_dtype) != dt || SLOT(b, O_device) != dev)))
        Py_RETURN_NOTIMPLEMENTED;
    if (!(rx || rw || rb) || !PyList_CheckExact(lin_handlers) || PyList_GET_SIZE(lin_handlers) > 2)
        Py_RETURN_NOTIMPLEMENTED;
    Py_ssize_t m = PyLong_AsSsize_t(PyTuple_GET_ITEM(xs, 0)), k = PyLong_AsSsize_t(PyTuple_GET_ITEM(xs, 1));
    Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(ws, 0)), k2 = PyLong_AsSsize_t(PyTuple_GET_ITEM(ws, 1));
    if (PyErr_Occurred()) {
        PyErr_Clear(); /* (not exact ints: the definition raises what it raises) */
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (k != k2)
        Py_RETURN_NOTIMPLEMENTED;
    if (b != Py_None) {
        PyObject *bs = SLOT(b, O_shape);
        if (PyTuple_GET_SIZE(bs) != 1 || PyLong_AsSsize_t(PyTuple_GET_ITEM(bs, 0)) != n) {
            PyErr_Clear();
            Py_RETURN_NOTIMPLEMENTED;
        }
    }
    /* the dtype: real floating (kind "f"), its item size; the device: "cpu" */
    PyObject *kind = PyObject_GetAttr(dt, r_kind);
    if (kind == NULL)
        return NULL;
    int ok = PyUnicode_CheckExact(kind) && PyUnicode_Compare(kind, s_f) == 0;
    Py_DECREF(kind);
    if (!ok)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *t = PyObject_GetAttr(dev, s_type);
    if (t == NULL)
        return NULL;
    ok = PyUnicode_CheckExact(t) && PyUnicode_Compare(t, s_cpu) == 0;
    Py_DECREF(t);
    if (!ok)
        Py_RETURN_NOTIMPLEMENTED;
    if ((ok = state_enabled()) != 1)
        return ok < 0 ? NULL : Py_NewRef(Py_NotImplemented);
    PyObject *isz_o = PyObject_GetAttr(dt, s_itemsize);
    if (isz_o == NULL)
        return NULL;
    Py_ssize_t isz = PyLong_CheckExact(isz_o) ? PyLong_AsSsize_t(isz_o) : -1;
    Py_DECREF(isz_o);
    if (isz <= 0) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    /* (held across the calls below, which run NumPy and may run Python code) */
    PyObject *an = Py_NewRef(SLOT(x, O_np)), *wn = Py_NewRef(SLOT(w, O_np));
    PyObject *bn = b != Py_None ? Py_NewRef(SLOT(b, O_np)) : NULL;
    PyObject *wt = NULL, *r = NULL, *res = NULL, *ret = NULL;
    PyObject *inputs = NULL, *saved = NULL;
    int use_matmul = 0;
    if (m * n * isz >= lin_no_fill && m > 1 && n > 1 && k > 1 && (isz == 4 || isz == 8)) {
        int ca = c_aligned(an, isz), cw = ca > 0 ? c_aligned(wn, isz) : 0;
        if (ca < 0 || cw < 0)
            goto done;
        use_matmul = ca && cw;
    }
    if ((wt = PyObject_GetAttr(wn, s_T)) == NULL)
        goto done;
    if (use_matmul) {
        PyObject *margs[2] = {an, wt};
        r = PyObject_Vectorcall(np_matmul, margs, 2, NULL);
    }
    else
        r = PyObject_CallMethodOneArg(an, s_dot, wt);
    if (r == NULL)
        goto done;
    if (!Py_IS_TYPE(r, (PyTypeObject *)ndarray_T)) { /* (not what the definition's _new expects) */
        PyErr_SetString(PyExc_TypeError, "linear(): the product is not an ndarray");
        goto done;
    }
    if (bn != NULL) {
        PyObject *aargs[3] = {r, bn, r};
        PyObject *s = PyObject_Vectorcall(np_add, aargs, 2, s_out_kw);
        if (s == NULL)
            goto done;
        Py_DECREF(s);
    }
    /* Array._new(r, None, 0, r.shape, None, x._dtype, x._device) */
    PyObject *shape = PyObject_GetAttr(r, s_shape_np);
    if (shape == NULL)
        goto done;
    PyObject *empty = PyTuple_New(0);
    res = empty ? PyBaseObject_Type.tp_new(Array_T, empty, NULL) : NULL;
    Py_XDECREF(empty);
    if (res == NULL) {
        Py_DECREF(shape);
        goto done;
    }
    SLOT(res, O_np) = Py_NewRef(r);
    SLOT(res, O_st) = Py_NewRef(Py_None);
    SLOT(res, O_off) = PyLong_FromLong(0);
    SLOT(res, O_shape) = shape;
    SLOT(res, O_str) = Py_NewRef(Py_None);
    SLOT(res, O_dtype) = Py_NewRef(dt);
    SLOT(res, O_device) = Py_NewRef(dev);
    SLOT(res, O_ext) = Py_NewRef(Py_None);
    if (SLOT(res, O_off) == NULL)
        goto done;
    /* record_node(rule, cls, (("x", x), ("weight", w), ("bias", b)), (("x", x), ("weight", w)), res) */
    {   /* (the pairs made once and shared by both tuples: Py_BuildValue parsed its format
           on every call) */
        PyObject *px = PyTuple_Pack(2, s_x, x), *pw = px ? PyTuple_Pack(2, s_weight, w) : NULL;
        PyObject *pb = pw ? PyTuple_Pack(2, s_bias, b) : NULL;
        inputs = pb ? PyTuple_Pack(3, px, pw, pb) : NULL;
        saved = inputs ? PyTuple_Pack(2, px, pw) : NULL;
        Py_XDECREF(px);
        Py_XDECREF(pw);
        Py_XDECREF(pb);
    }
    if (saved == NULL)
        goto done;
    PyObject *rargs[5] = {lin_rule, b != Py_None ? lin_addmm : lin_mm, inputs, saved, res};
    ret = record_node(mod, rargs, 5);
done:
    Py_DECREF(an);
    Py_DECREF(wn);
    Py_XDECREF(bn);
    Py_XDECREF(wt);
    Py_XDECREF(r);
    Py_XDECREF(res);
    Py_XDECREF(inputs);
    Py_XDECREF(saved);
    return ret;
}

static PyObject *
setup_linear(PyObject *mod, PyObject *args)
{
    PyObject *o[6];
    Py_ssize_t nf;
    if (!PyArg_ParseTuple(args, "OO!O!OOO!n:setup_linear", &o[0], &PyType_Type, &o[1], &PyType_Type, &o[2],
                          &o[3], &o[4], &PyList_Type, &o[5], &nf))
        return NULL;
    Py_XSETREF(lin_addmm, Py_NewRef(o[1]));
    Py_XSETREF(lin_mm, Py_NewRef(o[2]));
    Py_XSETREF(np_matmul, Py_NewRef(o[3]));
    Py_XSETREF(np_add, Py_NewRef(o[4]));
    Py_XSETREF(lin_handlers, Py_NewRef(o[5]));
    lin_no_fill = nf;
    Py_XSETREF(lin_rule, Py_NewRef(o[0])); /* last: it turns linear_host on */
    Py_RETURN_NONE;
}

/* --- SGD's group loop (optim/sgd.py, SGD._update without momentum) --------------------
 *
 * sgd_run(params, start, a) runs ``p += p.grad * a`` (``_host_update``: the target's
 * checks, the Storage's version bumped, then axpy) for params[start], params[start+1], ...
 * in order, skipping a parameter whose .grad is None, and returns the index of the first
 * parameter it does not take (len(params) when it took them all): the caller runs that
 * one through the definition and calls again from the next. It takes a parameter only
 * where the definition's host path would (``optimizer.host2`` and ``write.target``'s
 * plain case): p an Array (exact) whose Ext (exact) has no grad_fn (a leaf: the .grad
 * getter has nothing to warn about) and no names, with a Storage and a cached native
 * that is an ndarray (exact), C-contiguous and writable (no internal overlap); .grad an
 * Array (exact) without names, of p's dtype, device and shape, with a cached ndarray
 * native; the device's type "cpu"; recording off (STATE.enabled false: the target's
 * autograd check passes); the two buffers float32 or float64 of one format and length,
 * not overlapping; a a float, not NaN. Then the same calls: version += 1 (through the
 * attribute API, as target does), then axpy's loop (NumPy's two roundings). */

/* The checks sgd_one and sgd_mom_one share, as their docs say: p a plain leaf Array (no
   graph, no names) with a .grad Array without names of p's dtype, device and shape, both
   with an exact ndarray native, p with a Storage, the device's type "cpu", recording off.
   2: take it (*e, *g, *pn, *gn, *st borrowed, read before any Python code ran), 1: skip it
   (.grad None), 0: decline, -1: error. */
static int
sgd_take(PyObject *p, PyObject **ep, PyObject **gp, PyObject **pnp, PyObject **gnp, PyObject **stp)
{
    if (!contract_array(p))
        return 0;
    PyObject *e = SLOT(p, O_ext);
    if (!contract_ext(e) || SLOT(e, E_fn) != Py_None || SLOT(e, E_names) != Py_None)
        return 0;
    PyObject *g = SLOT(e, E_grad);
    if (g == NULL)
        return 0;
    if (g == Py_None)
        return 1;
    if (!contract_array(g))
        return 0;
    PyObject *ge = SLOT(g, O_ext);
    if (ge != Py_None && (!contract_ext(ge) || SLOT(ge, E_names) != Py_None))
        return 0;
    PyObject *pn = SLOT(p, O_np), *gn = SLOT(g, O_np), *st = SLOT(p, O_st);
    if (SLOT(p, O_dtype) != SLOT(g, O_dtype) || SLOT(p, O_device) != SLOT(g, O_device) || st == Py_None
        || !Py_IS_TYPE(pn, (PyTypeObject *)ndarray_T) || !Py_IS_TYPE(gn, (PyTypeObject *)ndarray_T))
        return 0;
    int r = PyObject_RichCompareBool(SLOT(p, O_shape), SLOT(g, O_shape), Py_EQ);
    if (r <= 0)
        return r;
    PyObject *t = PyObject_GetAttr(SLOT(p, O_device), s_type);
    if (t == NULL)
        return -1;
    r = PyUnicode_CheckExact(t) && PyUnicode_Compare(t, s_cpu) == 0;
    Py_DECREF(t);
    if (!r)
        return 0;
    if ((r = state_enabled()) != 0)
        return r < 0 ? -1 : 0;
    *ep = e;
    *gp = g;
    *pnp = pn;
    *gnp = gn;
    *stp = st;
    return 2;
}

/* 1 when p (params[i]) was updated or skipped (no .grad), 0 to decline, -1 on error. */
static int
sgd_one(PyObject *p, double a)
{
    PyObject *e, *g, *pn, *gn, *st;
    int r = sgd_take(p, &e, &g, &pn, &gn, &st);
    if (r != 2)
        return r;
    /* (held: the version's attribute calls below may run Python code) */
    Py_INCREF(pn);
    Py_INCREF(gn);
    Py_INCREF(st);
    const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT;
    Py_buffer bp, bg;
    r = 0;
    if (PyObject_GetBuffer(pn, &bp, flags | PyBUF_WRITABLE) < 0) {
        r = contract_clear_buffer() ? 0 : -1;
        goto out;
    }
    if (PyObject_GetBuffer(gn, &bg, flags) < 0) {
        PyBuffer_Release(&bp);
        r = contract_clear_buffer() ? 0 : -1;
        goto out;
    }
    int size = float_format(&bp);
    if (size != 0 && float_format(&bg) == size && bp.len == bg.len
        && !(bp.buf < (void *)((char *)bg.buf + bg.len) && bg.buf < (void *)((char *)bp.buf + bp.len))) {
        PyObject *v = PyObject_GetAttr(st, a_version);
        PyObject *v1 = v ? PyNumber_Add(v, one_o) : NULL;
        Py_XDECREF(v);
        r = v1 != NULL && PyObject_SetAttr(st, a_version, v1) == 0 ? 1 : -1;
        Py_XDECREF(v1);
        if (r == 1) {
            Py_ssize_t n = bp.len / size;
            Py_BEGIN_ALLOW_THREADS
            if (size == 4)
                axpy_f32((float *)bp.buf, (const float *)bg.buf, (float)a, n);
            else
                axpy_f64((double *)bp.buf, (const double *)bg.buf, a, n);
            Py_END_ALLOW_THREADS
        }
    }
    PyBuffer_Release(&bp);
    PyBuffer_Release(&bg);
out:
    Py_DECREF(pn);
    Py_DECREF(gn);
    Py_DECREF(st);
    return r;
}

/* SGD with momentum: the options of one call of sgd_run (floats, checked by the caller). */
typedef struct {
    double a, m, fa, wd;
    int has_wd, nesterov, maximize;
} sgd_opts;

/* The written array's checks for a momentum buffer (``write.target``'s plain cases):
   an Array (exact) of p's dtype, device and shape, no Ext (a buffer the optimizer made),
   a cached ndarray native. Its Storage (None while lazy: target writes a lazy array as
   it is, without a version) is returned borrowed in *st. 1 to take, 0 to decline. */
static int
sgd_buf_ok(PyObject *b, PyObject *p, PyObject **st)
{
    if (!contract_array(b) || SLOT(b, O_ext) != Py_None || SLOT(b, O_dtype) != SLOT(p, O_dtype)
        || SLOT(b, O_device) != SLOT(p, O_device) || !Py_IS_TYPE(SLOT(b, O_np), (PyTypeObject *)ndarray_T))
        return 0;
    int r = PyObject_RichCompareBool(SLOT(p, O_shape), SLOT(b, O_shape), Py_EQ);
    if (r <= 0)
        return r;
    *st = SLOT(b, O_st);
    return 1;
}

static int
bump_version(PyObject *st)
{
    PyObject *v = PyObject_GetAttr(st, a_version);
    PyObject *v1 = v ? PyNumber_Add(v, one_o) : NULL;
    Py_XDECREF(v);
    int r = v1 != NULL && PyObject_SetAttr(st, a_version, v1) == 0 ? 0 : -1;
    Py_XDECREF(v1);
    return r;
}

static inline int
disjoint(const Py_buffer *x, const Py_buffer *y)
{
    return !(x->buf < (void *)((char *)y->buf + y->len) && y->buf < (void *)((char *)x->buf + x->len));
}

/* sgd_one with a momentum buffer: states[p]["momentum_buffer"] (states[p] as the
   definition reads it: the state's defaultdict makes the entry), the buffer's checks,
   then the writes in the definition's order (the buffer's version, then p's) and one
   pass of sgd_mom. A missing or None buffer (the first step) declines: the definition
   makes it. 1 taken or skipped (.grad None), 0 declined, -1 error. */
static int
sgd_mom_one(PyObject *p, PyObject *states, const sgd_opts *o)
{
    PyObject *e, *g, *pn, *gn, *st;
    int r = sgd_take(p, &e, &g, &pn, &gn, &st);
    if (r != 2)
        return r;
    /* the state (held: the lookups below may run Python code) */
    Py_INCREF(p);
    Py_INCREF(g);
    PyObject *sd = PyObject_GetItem(states, p), *b = NULL, *bst = NULL, *bn = NULL;
    r = -1;
    if (sd == NULL)
        goto done;
    r = 0;
    if (!PyDict_CheckExact(sd))
        goto done;
    b = PyDict_GetItemWithError(sd, s_momentum_buffer);
    if (b == NULL) {
        r = PyErr_Occurred() ? -1 : 0;
        goto done;
    }
    Py_INCREF(b);
    if ((r = sgd_buf_ok(b, p, &bst)) <= 0)
        goto done;
    /* (re-read: the lookups may have run Python code that changed the slots) */
    r = 0;
    if (SLOT(p, O_np) != pn || SLOT(g, O_np) != gn || SLOT(p, O_st) != st || SLOT(e, E_grad) != g)
        goto done;
    bn = Py_NewRef(SLOT(b, O_np));
    Py_XINCREF(bst);
    Py_INCREF(pn);
    Py_INCREF(gn);
    Py_INCREF(st);
    const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT;
    Py_buffer bp, bg, bb;
    if (PyObject_GetBuffer(pn, &bp, flags | PyBUF_WRITABLE) < 0) {
        r = contract_clear_buffer() ? 0 : -1;
        goto held;
    }
    if (PyObject_GetBuffer(gn, &bg, flags) < 0) {
        PyBuffer_Release(&bp);
        r = contract_clear_buffer() ? 0 : -1;
        goto held;
    }
    if (PyObject_GetBuffer(bn, &bb, flags | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&bp);
        PyBuffer_Release(&bg);
        r = contract_clear_buffer() ? 0 : -1;
        goto held;
    }
    int size = float_format(&bp);
    if (size != 0 && float_format(&bg) == size && float_format(&bb) == size && bp.len == bg.len
        && bp.len == bb.len && disjoint(&bp, &bg) && disjoint(&bp, &bb) && disjoint(&bg, &bb)) {
        r = (bst == Py_None || bump_version(bst) == 0) && bump_version(st) == 0 ? 1 : -1;
        if (r == 1) {
            Py_ssize_t n = bp.len / size;
            Py_BEGIN_ALLOW_THREADS
            if (size == 4)
                sgd_mom_f32((float *)bp.buf, (const float *)bg.buf, (float *)bb.buf, (float)o->a, (float)o->m,
                            (float)o->fa, (float)o->wd, o->has_wd, o->nesterov, o->maximize, n);
            else
                sgd_mom_f64((double *)bp.buf, (const double *)bg.buf, (double *)bb.buf, o->a, o->m, o->fa,
                            o->wd, o->has_wd, o->nesterov, o->maximize, n);
            Py_END_ALLOW_THREADS
        }
    }
    PyBuffer_Release(&bp);
    PyBuffer_Release(&bg);
    PyBuffer_Release(&bb);
held:
    Py_DECREF(bn);
    Py_XDECREF(bst);
    Py_DECREF(pn);
    Py_DECREF(gn);
    Py_DECREF(st);
done:
    Py_XDECREF(b);
    Py_XDECREF(sd);
    Py_DECREF(g);
    Py_DECREF(p);
    return r;
}

static inline int
real_float(PyObject *o)
{
    return PyFloat_CheckExact(o) && PyFloat_AS_DOUBLE(o) == PyFloat_AS_DOUBLE(o);
}

static PyObject *
sgd_run(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if ((nargs != 3 && nargs != 9) || !PyList_CheckExact(args[0]) || !PyLong_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "sgd_run(params: list, start: int, a: float[, states, momentum, "
                                         "1 - dampening, weight_decay, nesterov, maximize])");
        return NULL;
    }
    Py_ssize_t i = PyLong_AsSsize_t(args[1]);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0)
        i = 0;
    if (!slots_ready || STATE_o == NULL || ndarray_T == NULL || !PyFloat_CheckExact(args[2])
        || PyFloat_AS_DOUBLE(args[2]) != PyFloat_AS_DOUBLE(args[2]))
        return PyLong_FromSsize_t(i);
    double a = PyFloat_AS_DOUBLE(args[2]);
    PyObject *params = args[0];
    sgd_opts o = {a, 0, 0, 0, 0, 0, 0};
    if (nargs == 9) {
        /* momentum, 1 - dampening, weight_decay (0.0: none): floats, not NaN; nesterov,
           maximize: bools. Anything else: nothing taken. */
        if (!real_float(args[4]) || !real_float(args[5]) || !real_float(args[6]) || !PyBool_Check(args[7])
            || !PyBool_Check(args[8]))
            return PyLong_FromSsize_t(i);
        o.m = PyFloat_AS_DOUBLE(args[4]);
        o.fa = PyFloat_AS_DOUBLE(args[5]);
        o.wd = PyFloat_AS_DOUBLE(args[6]);
        o.has_wd = o.wd != 0.0;
        o.nesterov = args[7] == Py_True;
        o.maximize = args[8] == Py_True;
    }
    for (; i < PyList_GET_SIZE(params); i++) {
        PyObject *p = Py_NewRef(PyList_GET_ITEM(params, i));
        int r = nargs == 9 ? sgd_mom_one(p, args[3], &o) : sgd_one(p, a);
        Py_DECREF(p);
        if (r < 0)
            return NULL;
        if (r == 0)
            break;
    }
    return PyLong_FromSsize_t(i);
}

/* node.apply(grads), the compiled RuleNode.apply in place of the definition, and
   AccumulateGrad.apply's common case (above) */
static PyObject *
node_apply(PyObject *node, PyObject *grads)
{
    if (py_apply == NULL && acc_apply == NULL)
        return PyObject_CallMethodOneArg(node, s_apply, grads);
    int tried = 0;
    ntype_entry *te = node_type(node);
    PyObject *ap = te != NULL ? te->apply : NULL; /* (read before any Python code runs) */
    if (ap != NULL && (ap == py_apply || ap == acc_apply)) {
        int own = node_dict_has(node, s_apply); /* (an instance's own apply shadows the class's) */
        if (own < 0)
            return NULL;
        if (!own) {
            PyObject *r = ap == py_apply ? rule_apply_impl(node, grads) : acc_apply_fast(node, grads);
            if (r != Py_NotImplemented)
                return r;
            tried = 1; /* (declined: the definition runs) */
        }
    }
    PyObject *m = PyObject_GetAttr(node, s_apply);
    if (m == NULL)
        return NULL;
    PyObject *r = Py_NotImplemented;
    if (!tried && PyMethod_Check(m) && PyMethod_GET_SELF(m) == node) {
        PyObject *fn = PyMethod_GET_FUNCTION(m);
        if (fn == py_apply && py_apply != NULL)
            r = rule_apply_impl(node, grads);
        else if (fn == acc_apply && acc_apply != NULL)
            r = acc_apply_fast(node, grads);
    }
    if (r == Py_NotImplemented)
        r = PyObject_CallOneArg(m, grads);
    Py_DECREF(m);
    return r;
}

static PyObject *
setup_accumulate(PyObject *mod, PyObject *args)
{
    PyObject *apply, *nd, *pb, *lock, *held = Py_None;
    if (!PyArg_ParseTuple(args, "OO!O!O|O:setup_accumulate", &apply, &PyType_Type, &nd, &PyType_Type, &pb, &lock,
                          &held))
        return NULL;
    if (STATE_o == NULL || Array_C == NULL || Ext_C == NULL || Handoff_T == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup_accumulate(): setup, setup_record and setup_apply run first");
        return NULL;
    }
#define INTERN_ONCE(v, str) if (v == NULL && (v = PyUnicode_InternFromString(str)) == NULL) return NULL;
    INTERN_ONCE(s_variable, "variable") INTERN_ONCE(s_hooks, "hooks") INTERN_ONCE(s_grad, "grad")
    INTERN_ONCE(s_flags, "flags") INTERN_ONCE(s_c_contiguous, "c_contiguous")
    INTERN_ONCE(s_writeable, "writeable") INTERN_ONCE(s_base, "base") INTERN_ONCE(s_acquire, "acquire")
    INTERN_ONCE(s_release_lock, "release")
#undef INTERN_ONCE
    Py_XSETREF(ndarray_T, Py_NewRef(nd));
    Py_XSETREF(PoolBlock_T, Py_NewRef(pb));
    Py_XSETREF(acc_lock, Py_NewRef(lock));
    Py_XSETREF(free_held_fn, held == Py_None ? NULL : Py_NewRef(held));
    Py_XSETREF(acc_apply, Py_NewRef(apply)); /* last: it turns the compiled case on */
    Py_RETURN_NONE;
}

static PyObject *
rule_apply(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "rule_apply(node, grads) takes two arguments");
        return NULL;
    }
    if (py_apply == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "rule_apply(): setup_apply has not run");
        return NULL;
    }
    return rule_apply_impl(args[0], args[1]);
}

static PyObject *
setup_apply(PyObject *mod, PyObject *args)
{
    PyObject *o[8];
    if (!PyArg_ParseTuple(args, "OOOUOOOO:setup_apply", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6],
                          &o[7]))
        return NULL;
    if (SavedVar_C == NULL || Array_C == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup_apply(): setup_record runs first");
        return NULL;
    }
    Py_XSETREF(ZERO_o, Py_NewRef(o[1]));
    Py_XSETREF(STATE_o, Py_NewRef(o[2]));
    Py_XSETREF(FREED_o, Py_NewRef(o[3]));
    Py_XSETREF(unpack_fn, Py_NewRef(o[4]));
    Py_XSETREF(fit_grad_fn, Py_NewRef(o[5]));
    Py_XSETREF(zeros_if_none_fn, Py_NewRef(o[6]));
    Py_XSETREF(object_new_fn, Py_NewRef(o[7]));
    Py_XSETREF(py_apply, Py_NewRef(o[0])); /* last: it turns the compiled apply on */
    Py_RETURN_NONE;
}

static PyObject *
setup_call(PyObject *mod, PyObject *args)
{
    PyObject *rec, *saves, *save, *off, *ncls;
    if (!PyArg_ParseTuple(args, "OOOOO:setup_call", &rec, &saves, &save, &off, &ncls))
        return NULL;
    Py_XSETREF(node_cls_fn, Py_NewRef(ncls));
    Py_XSETREF(saves_fn, Py_NewRef(saves));
    Py_XSETREF(save_fn, Py_NewRef(save));
    Py_XSETREF(run_off2_fn, Py_NewRef(off));
    Py_XSETREF(record_py_fn, Py_NewRef(rec)); /* last: it turns record_call on */
    Py_RETURN_NONE;
}

static PyObject *
setup_record(PyObject *mod, PyObject *args)
{
    PyObject *o[10];
    if (!PyArg_ParseTuple(args, "O!O!O!O!OOOOOO!:setup_record", &PyType_Type, &o[0], &PyType_Type, &o[1],
                          &PyType_Type, &o[2], &PyType_Type, &o[3], &o[4], &o[5], &o[6], &o[7], &o[8],
                          &PyTuple_Type, &o[9]))
        return NULL;
    Py_XSETREF(Array_C, Py_NewRef(o[0]));
    Py_XSETREF(Ext_C, Py_NewRef(o[1]));
    Py_XSETREF(ViewInfo_C, Py_NewRef(o[2]));
    Py_XSETREF(SavedVar_C, Py_NewRef(o[3]));
    Py_XSETREF(edge_of_fn, Py_NewRef(o[4]));
    Py_XSETREF(run_off_fn, Py_NewRef(o[5]));
    Py_XSETREF(ew_plan_fn, Py_NewRef(o[6]));
    Py_XSETREF(view_fix_fn, Py_NewRef(o[7]));
    Py_XSETREF(no_edge, Py_NewRef(o[9]));
    /* the slot offsets of Array and Ext (a class without those slots: the attribute API) */
    slots_ready = 0;
    static const char *const mods[3][2] = {{"strided._core.dtypes", "DType"},
                                           {"strided._core.storage", "Storage"},
                                           {"strided._core.device", "Device"}};
    PyObject *cl[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        PyObject *m = PyImport_ImportModule(mods[i][0]);
        cl[i] = m ? PyObject_GetAttrString(m, mods[i][1]) : NULL;
        Py_XDECREF(m);
        if (cl[i] == NULL || !PyType_Check(cl[i]))
            break;
    }
    if (cl[0] && cl[1] && cl[2] && PyType_Check(cl[0]) && PyType_Check(cl[1]) && PyType_Check(cl[2])
        && contract_setup((PyTypeObject *)o[0], ARRAY_ROWS, N_ROWS(ARRAY_ROWS)) == 0
        && contract_setup((PyTypeObject *)o[1], EXT_ROWS, N_ROWS(EXT_ROWS)) == 0) {
        Py_XSETREF(Array_T, (PyTypeObject *)Py_NewRef(o[0]));
        Py_XSETREF(Ext_T, (PyTypeObject *)Py_NewRef(o[1]));
        Py_XSETREF(DType_T, (PyTypeObject *)Py_NewRef(cl[0]));
        Py_XSETREF(Storage_T, (PyTypeObject *)Py_NewRef(cl[1]));
        Py_XSETREF(Device_T, (PyTypeObject *)Py_NewRef(cl[2]));
        if (contract_offset((PyTypeObject *)cl[0], "kind", &D_kind_off) < 0) {
            PyErr_Clear();
            D_kind_off = 0; /* (float_kind reads the attribute) */
        }
        slots_ready = 1;
    }
    else
        PyErr_Clear();
    for (int i = 0; i < 3; i++)
        Py_XDECREF(cl[i]);
    Py_XSETREF(seq_iter, Py_NewRef(o[8])); /* last: it turns record_ew on */
    Py_RETURN_NONE;
}

static PyObject *
setup(PyObject *mod, PyObject *args)
{
    PyObject *handoff, *add, *pre, *post, *dist;
    if (!PyArg_ParseTuple(args, "O!OOOO:setup", &PyType_Type, &handoff, &add, &pre, &post, &dist))
        return NULL;
    if (!PyType_IsSubtype((PyTypeObject *)handoff, &PyList_Type)) {
        PyErr_SetString(PyExc_TypeError, "setup(): the hand-off type must be a list subclass");
        return NULL;
    }
    PyObject *heapq = PyImport_ImportModule("heapq");
    if (heapq == NULL)
        return NULL;
    PyObject *push = PyObject_GetAttrString(heapq, "heappush");
    PyObject *pop = push ? PyObject_GetAttrString(heapq, "heappop") : NULL;
    Py_DECREF(heapq);
    if (pop == NULL) {
        Py_XDECREF(push);
        return NULL;
    }
    Py_XSETREF(heappush_fn, push);
    Py_XSETREF(heappop_fn, pop);
    Py_XSETREF(add_fn, Py_NewRef(add));
    Py_XSETREF(pre_hooks_fn, Py_NewRef(pre));
    Py_XSETREF(post_hooks_fn, Py_NewRef(post));
    Py_XSETREF(distribute_fn, Py_NewRef(dist));
    Py_XSETREF(Handoff_T, Py_NewRef(handoff)); /* last: it turns drain on */
    Py_RETURN_NONE;
}

/* --- the autograd link of the dispatch chain (_record._make_link's link with call_next
   _run_impl), its two common cases compiled:
     recording off:              impl(*args, **kwargs)                (call_next, inlined)
     an elementwise row called out of place with an operand that requires grad and a rule
     with a node class:          record_ew(rule, impl, args)          (_record_ew)
   Everything else (another name, out=, in-place targets, keywords, no rule, anything
   unexpected) runs the Python link it was given, which is the definition: STRIDED_NO_CEXT=1
   runs it alone, and tests/autograd/test_link7.py compares the two. */
static PyObject *link_py, *link_globals, *link_rules, *s_EW_name, *s_rec_name;

/* type(x) is Array and x._ext is not None and x._ext.requires_grad: 1, 0, or -1 (error) */
static int
link_rg(PyObject *x)
{
    if ((PyObject *)Py_TYPE(x) != Array_C)
        return 0;
    if (slots_ready && contract_array(x)) { /* (the slots: an Ext's requires_grad a bool) */
        PyObject *ex = SLOT(x, O_ext);
        if (ex == Py_None)
            return 0;
        if (ext_ok(ex) && (SLOT(ex, E_rg) == Py_True || SLOT(ex, E_rg) == Py_False))
            return SLOT(ex, E_rg) == Py_True;
    }
    PyObject *e = PyObject_GetAttr(x, r_ext);
    if (e == NULL)
        return -1;
    int r = 0;
    if (e != Py_None)
        r = attr_true(e, r_rg);
    Py_DECREF(e);
    return r;
}

/* _any_rg(args, kwargs): 1, 0, or -1 with an error */
static int
link_any_rg(PyObject *a, PyObject *kw)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(a); i++) {
        PyObject *v = PyTuple_GET_ITEM(a, i);
        if (PyList_CheckExact(v) || PyTuple_CheckExact(v)) {
            /* (a list may change size under us: index it afresh each time) */
            for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(v); j++) {
                PyObject *b = Py_NewRef(PySequence_Fast_GET_ITEM(v, j));
                int r = link_rg(b);
                Py_DECREF(b);
                if (r != 0)
                    return r;
            }
            continue;
        }
        int r = link_rg(v);
        if (r != 0)
            return r;
    }
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(kw, &pos, &k, &v)) {
        Py_INCREF(v);
        int r = link_rg(v);
        Py_DECREF(v);
        if (r != 0)
            return r;
    }
    return 0;
}

static PyObject *s_INPLACE_name, *s_rc_name, *s_out_key;
static PyObject *record_call(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);

/* The Python link's branch for a call that is neither an elementwise row nor in place
   (recording on, tuple args, dict kwargs, call_next _run_impl): no out= (else the Python
   link), no input that requires grad: impl(*args, **kwargs); a rule of one output found
   under the name itself: _record_call (the compiled record_call, called as the link
   calls it); anything else (the last part of a dotted name, no rule, several outputs):
   the Python link. */
static PyObject *
link_call(PyObject *mod, PyObject *const *args)
{
    PyObject *name = args[0], *impl = args[1], *a = args[2], *kw = args[3];
    PyObject *inpl = PyDict_GetItemWithError(link_globals, s_INPLACE_name); /* borrowed */
    if (inpl == NULL || !PyFrozenSet_CheckExact(inpl))
        return PyErr_Occurred() ? NULL : PyObject_Vectorcall(link_py, args, 4, NULL);
    int in = PySet_Contains(inpl, name);
    if (in != 0)
        return in < 0 ? NULL : PyObject_Vectorcall(link_py, args, 4, NULL);
    in = PyDict_Contains(kw, s_out_key);
    if (in != 0) /* (out= given, even as None: the Python link's _record) */
        return in < 0 ? NULL : PyObject_Vectorcall(link_py, args, 4, NULL);
    int rg = link_any_rg(a, kw);
    if (rg < 0)
        return NULL;
    if (!rg)
        return PyObject_Call(impl, a, PyDict_GET_SIZE(kw) ? kw : NULL);
    PyObject *r = PyDict_GetItemWithError(link_rules, name); /* borrowed */
    if (r == NULL)
        return PyErr_Occurred() ? NULL : PyObject_Vectorcall(link_py, args, 4, NULL);
    Py_INCREF(r);
    PyObject *mv = rule_attr(r, s_multi);
    int multi = mv == NULL ? -1 : PyObject_IsTrue(mv);
    Py_XDECREF(mv);
    PyObject *rec = multi == 0 ? PyDict_GetItemWithError(link_globals, s_rc_name) : NULL; /* borrowed */
    PyObject *res;
    if (multi < 0 || (rec == NULL && PyErr_Occurred()))
        res = NULL;
    else if (multi || rec == NULL || !PyCFunction_Check(rec)
             || PyCFunction_GET_FUNCTION(rec) != (PyCFunction)(void (*)(void))record_call)
        res = PyObject_Vectorcall(link_py, args, 4, NULL);
    else {
        PyObject *argv[6] = {name, r, impl, a, kw, run_impl_obj};
        res = record_call(mod, argv, 6);
    }
    Py_DECREF(r);
    return res;
}

static PyObject *
link_ew(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "link_ew(name, impl, args, kwargs)");
        return NULL;
    }
    if (link_py == NULL || STATE_o == NULL || Array_C == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "link_ew(): setup_link() was not called");
        return NULL;
    }
    PyObject *name = args[0], *impl = args[1], *a = args[2], *kw = args[3];
    if (!PyTuple_CheckExact(a) || !PyDict_CheckExact(kw) || !PyUnicode_CheckExact(name))
        goto python;
    int en = state_enabled();
    if (en < 0)
        return NULL;
    if (!en)
        return PyObject_Call(impl, a, PyDict_GET_SIZE(kw) ? kw : NULL);
    Py_ssize_t n = PyTuple_GET_SIZE(a);
    {
        PyObject *ew = PyDict_GetItemWithError(link_globals, s_EW_name); /* borrowed */
        if (ew == NULL) {
            if (PyErr_Occurred())
                return NULL;
            goto python;
        }
        if (!PyFrozenSet_CheckExact(ew))
            goto python;
        int in = PySet_Contains(ew, name);
        if (in < 0)
            return NULL;
        if (!in)
            return link_call(mod, args); /* (not an elementwise row) */
    }
    if (PyDict_GET_SIZE(kw) || (n != 2 && n != 3) || PyTuple_GET_ITEM(a, n - 1) != Py_None)
        goto python;
    int rg = link_rg(PyTuple_GET_ITEM(a, 0));
    if (rg == 0 && n == 3)
        rg = link_rg(PyTuple_GET_ITEM(a, 1));
    if (rg < 0)
        return NULL;
    if (!rg)
        return PyObject_Call(impl, a, NULL);
    {
        PyObject *r = PyDict_GetItemWithError(link_rules, name); /* borrowed */
        if (r == NULL) {
            if (PyErr_Occurred())
                return NULL;
            goto python;
        }
        Py_INCREF(r);
        PyObject *cls = rule_attr(r, r_cls);
        if (cls == NULL) {
            Py_DECREF(r);
            return NULL;
        }
        int has = cls != Py_None;
        Py_DECREF(cls);
        if (!has) {
            Py_DECREF(r);
            goto python;
        }
        /* _record_ew as the module has it now (the compiled record_ew, or what a test put
           there): called as the Python link calls it */
        PyObject *rec = PyDict_GetItemWithError(link_globals, s_rec_name); /* borrowed */
        if (rec == NULL) {
            Py_DECREF(r);
            if (PyErr_Occurred())
                return NULL;
            goto python;
        }
        PyObject *argv[3] = {r, impl, a};
        PyObject *res;
        if (PyCFunction_Check(rec) && PyCFunction_GET_FUNCTION(rec) == (PyCFunction)(void (*)(void))record_ew)
            res = record_ew(mod, argv, 3);
        else {
            Py_INCREF(rec);
            res = PyObject_Vectorcall(rec, argv, 3, NULL);
            Py_DECREF(rec);
        }
        Py_DECREF(r);
        return res;
    }
python:
    return PyObject_Vectorcall(link_py, args, 4, NULL);
}

static PyObject *
setup_link(PyObject *mod, PyObject *args)
{
    PyObject *o[5];
    if (!PyArg_ParseTuple(args, "OO!O!OO:setup_link", &o[0], &PyDict_Type, &o[1], &PyDict_Type, &o[2], &o[3],
                          &o[4]))
        return NULL;
    Py_XSETREF(run_impl_obj, Py_NewRef(o[3]));
    Py_XSETREF(run_off_py, Py_NewRef(o[4]));
    if (s_EW_name == NULL && (s_EW_name = PyUnicode_InternFromString("_EW")) == NULL)
        return NULL;
    if (s_rec_name == NULL && (s_rec_name = PyUnicode_InternFromString("_record_ew")) == NULL)
        return NULL;
    if ((s_INPLACE_name == NULL && (s_INPLACE_name = PyUnicode_InternFromString("_INPLACE")) == NULL)
        || (s_rc_name == NULL && (s_rc_name = PyUnicode_InternFromString("_record_call")) == NULL)
        || (s_out_key == NULL && (s_out_key = PyUnicode_InternFromString("out")) == NULL)
        || (s_multi == NULL && (s_multi = PyUnicode_InternFromString("multi")) == NULL))
        return NULL;
    Py_XSETREF(link_py, Py_NewRef(o[0]));
    Py_XSETREF(link_globals, Py_NewRef(o[1]));
    Py_XSETREF(link_rules, Py_NewRef(o[2]));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"setup_conj", setup_conj, METH_O,
     "setup_conj(fn): the Python conjugate (_rules._conj_py) for what conj() does not answer."},
    {"conj", conj_, METH_O,
     "conj(x): x itself for an Array of a real dtype (its own conjugate), else setup_conj's "
     "function of x."},
    {"setup_same", setup_same, METH_O,
     "setup_same(fn): the formula that returns its gradient unchanged (_rules._same), which the "
     "compiled apply does not call."},
    {"setup_leaf", setup_leaf, METH_VARARGS,
     "setup_leaf(AccumulateGrad): the recorders' edge of a leaf made in C (edge_of's accumulator "
     "case), once, after setup_record."},
    {"saved_var", (PyCFunction)(void (*)(void))saved_var, METH_FASTCALL,
     "saved_var(x, output_nr=None): SavedVar(x, output_nr), its common cases compiled (the "
     "recorders' own); anything else calls the class."},
    {"set_saved_hooks", set_saved_hooks, METH_O,
     "set_saved_hooks(flag): while true, every SavedVar is made by the class (saved-tensor hooks)."},
    {"setup_saved", setup_saved, METH_VARARGS,
     "setup_saved(SavedVar, materialize): the class and _chot's Array._materialize case (or "
     "None), once, after setup_record."},
    {"link_ew", (PyCFunction)(void (*)(void))link_ew, METH_FASTCALL,
     "link_ew(name, impl, args, kwargs): the autograd link (call_next _run_impl) with recording "
     "off or an elementwise row's recorded call compiled; anything else runs the Python link."},
    {"setup_link", setup_link, METH_VARARGS,
     "setup_link(link, _record's globals, RULES, _run_impl, _run_off): the Python link link_ew "
     "falls back to, and what record_call's inlined _run_off compares with, once (after "
     "setup_record and setup_apply)."},
    {"setup", setup, METH_VARARGS,
     "setup(Handoff, add, pre_hooks, post_hooks, distribute): what the loop calls back, once."},
    {"drain", (PyCFunction)(void (*)(void))drain, METH_FASTCALL,
     "drain(heap, buffers, deps, keep_graph): run_backward's loop for a plain backward, until "
     "the heap is empty or it meets a node it leaves to the Python loop."},
    {"one_hit", (PyCFunction)(void (*)(void))one_hit, METH_FASTCALL,
     "one_hit(g, x, r, out): max's or min's gradient over the last axis, out = where(x == r, g, 0) "
     "row by row (g and r one per row), where every row holds r exactly once; False (out undefined) "
     "where one does not, or the buffers are not C-contiguous float32 or float64 of one format."},
    {"pick", (PyCFunction)(void (*)(void))pick, METH_FASTCALL,
     "pick(g, x, out, upper): the gradient of maximum(x, 0) (minimum when upper) for x, into "
     "out; False (nothing written) unless all three are C-contiguous float32 or float64 "
     "buffers of one format and length."},
    {"threshold", (PyCFunction)(void (*)(void))threshold, METH_FASTCALL,
     "threshold(g, result, out): relu's gradient (PyTorch's threshold_backward at 0), "
     "where(result <= 0, +0.0, g), into out; False (nothing written) under pick's conditions."},
    {"axpy", (PyCFunction)(void (*)(void))axpy, METH_FASTCALL,
     "axpy(p, g, a): p += g * a in place (NumPy's multiply then add, one pass); axpy(b, g, "
     "a, m): b = b * m + g * a; False (nothing written) unless p and g are C-contiguous "
     "float32 or float64 buffers of one format and length, not overlapping, p writable, "
     "and a (and m) floats, not NaN."},
    {"linear_host", (PyCFunction)(void (*)(void))linear_host, METH_FASTCALL,
     "linear_host(x, weight, bias): _fused.linear's recorded host case for a 2-D x, compiled; "
     "NotImplemented (nothing computed) for what it does not take."},
    {"setup_linear", setup_linear, METH_VARARGS,
     "setup_linear(rule, AddmmBackward0, MmBackward0, numpy.matmul, numpy.add, handlers, "
     "NO_FILL_BYTES): what linear_host calls and compares with, once (after setup_record)."},
    {"sgd_run", (PyCFunction)(void (*)(void))sgd_run, METH_FASTCALL,
     "sgd_run(params, start, a): p += p.grad * a for params[start:] in order (SGD without "
     "momentum on the host: version bumped, axpy's loop), skipping .grad None; returns the "
     "index of the first parameter it leaves to the caller (len(params) when none). "
     "sgd_run(params, start, a, states, momentum, 1 - dampening, weight_decay, nesterov, "
     "maximize): the step with states[p]['momentum_buffer'] (one pass: buffer, then p), "
     "leaving a parameter without a buffer to the caller."},
    {"record_ew", (PyCFunction)(void (*)(void))record_ew, METH_FASTCALL,
     "record_ew(rule, impl, args): _record._record_ew (an elementwise row called out of place "
     "with an input that requires grad), compiled."},
    {"record_node", (PyCFunction)(void (*)(void))record_node, METH_FASTCALL,
     "record_node(rule, cls, inputs, saved, result): _fused._record (the node of a fused "
     "operation), compiled."},
    {"layout_bind", (PyCFunction)(void (*)(void))layout_bind_py, METH_FASTCALL,
     "layout_bind(layout, args, kwargs): a rule's arguments bound as its binder binds them, or None "
     "where it leaves them to the binder"},
    {"record_call", (PyCFunction)(void (*)(void))record_call, METH_FASTCALL,
     "record_call(name, rule, impl, args, kwargs, call_next): _record._record for a call with "
     "no in-place target and one output, compiled."},
    {"rule_apply", (PyCFunction)(void (*)(void))rule_apply, METH_FASTCALL,
     "rule_apply(node, grads): RuleNode.apply, compiled (the definition for what it does not "
     "take)."},
    {"setup_apply", setup_apply, METH_VARARGS,
     "setup_apply(apply, ZERO, STATE, FREED, unpack, fit_grad, zeros_if_none, object_new): "
     "RuleNode.apply and what it calls, once (after setup_record)."},
    {"setup_call_rule", setup_call_rule, METH_VARARGS, "setup_call_rule(Rule, node_class, _CLASSES)"},
    {"setup_rule_slots", setup_rule_slots, METH_O,
     "setup_rule_slots(Rule): the class whose __slots__ the recorders and the compiled apply read a "
     "rule's attributes from (while the class is as it was then), once."},
    {"setup_release", setup_release, METH_VARARGS, "setup_release(RuleNode.release, Node.release)"},
    {"setup_sum_to", setup_sum_to, METH_VARARGS, "setup_sum_to(_SUM_AXES, numpy.add.reduce, numpy.asarray)"},
    {"setup_accumulate", setup_accumulate, METH_VARARGS,
     "setup_accumulate(AccumulateGrad.apply, ndarray, PoolBlock, lock[, free_held]): what the compiled "
     "AccumulateGrad.apply compares with, once (after setup_apply)."},
    {"setup_call", setup_call, METH_VARARGS,
     "setup_call(record, saves, save, run_off, node_cls): the Python recorder and helpers record_call "
     "calls, once."},
    {"setup_record", setup_record, METH_VARARGS,
     "setup_record(Array, Ext, ViewInfo, SavedVar, edge_of, run_off, ew_plan, view_fix, seq, "
     "no_edge): what record_ew calls and compares with, once."},
    {"discover", discover, METH_O,
     "discover(roots): {node: number of edges feeding it} for a plain backward, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT, "strided._csrc._cgrad",
    "The backward engine's loop, compiled (see strided/autograd/_graph.py, run_backward).", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__cgrad(void)
{
#define NODE_INTERN(name, cname, want) \
    if ((cname = PyUnicode_InternFromString(name)) == NULL) return NULL;
    NODE_ATTRS(NODE_INTERN)
#undef NODE_INTERN
    if ((s_apply = PyUnicode_InternFromString("apply")) == NULL
        || (s_release = PyUnicode_InternFromString("release")) == NULL)
        return NULL;
#define INTERN(v, s) if ((v = PyUnicode_InternFromString(s)) == NULL) return NULL;
    INTERN(r_dtype, "_dtype") INTERN(r_kind, "kind") INTERN(r_ext, "_ext")
    INTERN(r_rg, "requires_grad") INTERN(r_grad_fn, "grad_fn") INTERN(r_is_view, "is_view")
    INTERN(r_output_nr, "output_nr") INTERN(r_shape, "_shape") INTERN(r_device, "_device")
    INTERN(r_st, "_st") INTERN(r_plans, "plans") INTERN(r_cls, "cls") INTERN(r_seq, "_seq")
    INTERN(r_rule, "_rule") INTERN(r_slots, "_slots") INTERN(r_metas, "_metas")
    INTERN(r_needs, "_needs") INTERN(r_next, "next_functions") INTERN(r_out_metas, "_out_metas")
    INTERN(r_vals, "_vals") INTERN(r_result, "result") INTERN(s_fc, "fc") INTERN(r_nout, "_nout") INTERN(r_bind, "bind") INTERN(r_diff, "diff")
    INTERN(a_positional, "positional") INTERN(a_joint, "joint") INTERN(a_getters, "getters") INTERN(a_uses, "uses")
    INTERN(a_formulas, "formulas") INTERN(a_enabled, "enabled") INTERN(a_ver, "_ver") INTERN(a_x, "_x")
    INTERN(a_nr, "_nr") INTERN(a_family, "_family") INTERN(a_version, "_version") INTERN(a_np, "_np")
    INTERN(a_off, "_off") INTERN(a_str, "_str") INTERN(a_unpack, "unpack") INTERN(a_g, "g")
    INTERN(a_ctx, "ctx") INTERN(a_name, "__name__") INTERN(s_type, "type") INTERN(s_cpu, "cpu")
    INTERN(s_momentum_buffer, "momentum_buffer")
    INTERN(s_T, "T") INTERN(s_dot, "dot") INTERN(s_x, "x") INTERN(s_weight, "weight") INTERN(s_bias, "bias")
    INTERN(s_f, "f") INTERN(s_shape_np, "shape") INTERN(s_itemsize, "itemsize")
    INTERN(s_argnames, "argnames") INTERN(s_unwrap, "unwrap") INTERN(s_binder, "_binder") INTERN(s_saves, "saves")
    INTERN(s_node, "node") INTERN(s_multi, "multi") INTERN(s_layout, "layout")
    if ((s_out_kw = Py_BuildValue("(s)", "out")) == NULL)
        return NULL;
#undef INTERN
    if ((one_o = PyLong_FromLong(1)) == NULL)
        return NULL;
    PyObject *mod = PyModule_Create(&moddef);
    if (mod == NULL || nodebase_ready(mod) < 0 || PyType_Ready(&GradState_T) < 0
        || PyModule_AddObjectRef(mod, "GradState", (PyObject *)&GradState_T) < 0) {
        Py_XDECREF(mod);
        return NULL;
    }
    return mod;
}
