/* strided/_csrc/contract.h: what the compiled hot path (the sources in _chot/) reads from Python
 * objects, declared once, and the checks that make reading it safe (and, at the end,
 * what the backward engine's loop, _cgrad.c, reads from graph nodes).
 *
 * The C code owns no object layout. It reads fields of objects that Python code
 * made and that Python code (a user's included) may change at any time:
 *
 *   Array     (strided._core.array.Array, exact type; subclasses take Python)
 *             the eight ``__slots__`` of ARRAY_SLOTS below, by offset;
 *   DType     (strided._core.dtypes.DType) the three slots of DTYPE_SLOTS;
 *   Storage   (strided._core.storage.Storage) its version counter, STORAGE_SLOTS;
 *   Ext       (autograd and names, set up by strided.named) three slots of EXT_SLOTS;
 *   registry  a row's dtype tables: lists (per dtype index) of entries, each a tuple
 *             (result DType, cast or None, {Device: kernel}) or None; matmul's and
 *             where's two-item lists ([result DTypes, kernel], [bool DType, kernel]);
 *   the pool  ``_pool.MIN_BYTES``, a list whose item 0 is the pooled-buffer threshold;
 *   caches    the named handler's dicts (name outcomes), read with dict lookups.
 *
 * Why it is safe. Offsets are never assumed: ``setup_array`` (and ``setup_named``)
 * look each slot's offset up from the class's slot descriptors, by the names in
 * the tables below, and refuse a class whose slot is not an object slot. A slot
 * can still be deleted (``del x._dtype``: NULL), never set (``object.__new__``) or
 * hold anything (``x._dtype = 5``). So every entry point runs ``contract_array`` on
 * each Array it is handed before reading any slot, and ``contract_ext`` on each
 * Ext; an object that fails is not an error here: the entry point declines and
 * the Python definition runs, raising exactly the error it raises without the
 * extension (an AttributeError, a TypeError). A DType's own slots, the registry
 * rows and the pool list are checked where they are read (``dtype_index``,
 * ``nbytes_of``, ``contract_entry``, ``contract_list2``, ``contract_pool_limit``),
 * with the same rule: anything unexpected declines.
 *
 * What a check cannot cover: Python code that runs in the middle of an entry point
 * (a kernel that releases the GIL, a dict's ``__missing__``) may change a slot that
 * was checked. So the readers below tolerate NULL and wrong types themselves, the
 * objects an entry point keeps using across such a call are held by a reference of
 * its own, and no slot is cached across calls.
 */
#ifndef STRIDED_CONTRACT_H
#define STRIDED_CONTRACT_H

#include <Python.h>
#include <structmember.h>

#define SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))

/* The storage of the state below (the classes, the slot offsets): static in an extension
   of one source; in one of several sources (_chot: chot.h defines CONTRACT_EXTERN) declared
   extern in each and defined in one (module.c defines CONTRACT_DEFINE). */
#if !defined(CONTRACT_EXTERN)
#define CONTRACT_STATE static
#elif defined(CONTRACT_DEFINE)
#define CONTRACT_STATE
#else
#define CONTRACT_STATE extern
#endif

/* What a slot must hold. Items of tuples (shape, strides) are checked where they are
   read, with the arithmetic that uses them (nbytes_of, tuple_ints). */
typedef enum {
    W_SET,           /* anything (compared by identity or passed on), but set */
    W_INT,           /* an exact int */
    W_TUPLE,         /* an exact tuple */
    W_TUPLE_OR_NONE, /* an exact tuple, or None */
    W_STORAGE_OR_NONE, /* a Storage (or subclass), or None */
    W_DTYPE,         /* an exact DType (its own slots, DTYPE_SLOTS, are checked where read:
                        dtype_index, nbytes_of, wrap) */
    W_DEVICE,        /* a Device (or subclass) */
} Want;

/* One row per slot read: X(its name in the Python class, the C name of its offset,
   what it must hold, whether the elementwise entry points read it). Each table
   expands into the offsets, the rows setup() looks up (contract_setup) and the checks
   the entry points run (an unrolled sequence of contract_want calls, each with a
   constant Want: the elementwise ones check the slots they read, the views all). */
typedef struct {
    const char *name; /* the slot's name in the Python class */
    Py_ssize_t *off;  /* where setup puts its offset */
    Want want;
} Slot;

#define CONTRACT_OFFSET(name, off, want, ew) CONTRACT_STATE Py_ssize_t off;
#define CONTRACT_ROW(name, off, want, ew) {name, &off, want},
#define CONTRACT_CHECK(name, off, want, ew) &&contract_want(SLOT(o, off), want)
#define CONTRACT_CHECK_EW(name, off, want, ew) &&(!(ew) || contract_want(SLOT(o, off), want))

/* The classes, given at setup (strong references). */
CONTRACT_STATE PyTypeObject *Array_T, *DType_T, *Storage_T, *Device_T, *Ext_T;

/* Array's slots: the native view (None until built; an ndarray on CPU, a CuPy array
   on CUDA: the C code uses it as an ndarray only after checking its type), the
   Storage (None for a kernel result not yet materialized), the offset, shape and
   strides in elements (strides None while lazy), the dtype, the device, and the
   extension record (None: no autograd, no names; anything else takes Python). */
#define ARRAY_SLOTS(X)                     \
    X("_np", O_np, W_SET, 1)               \
    X("_st", O_st, W_STORAGE_OR_NONE, 1)   \
    X("_off", O_off, W_INT, 0)             \
    X("_shape", O_shape, W_TUPLE, 1)       \
    X("_str", O_str, W_TUPLE_OR_NONE, 0)   \
    X("_dtype", O_dtype, W_DTYPE, 1)       \
    X("_device", O_device, W_DEVICE, 1)    \
    X("_ext", O_ext, W_SET, 1)

/* DType's slots: its row index in the registry's tables, its NumPy dtype (compared by
   identity with a kernel result's), its size in bytes, its hash (NumPy's dtype's: read by
   the compiled __hash__, _chot's dtype_hash, which checks it where read). */
#define DTYPE_SLOTS(X)                  \
    X("_index", D_index, W_INT, 1)      \
    X("_np", D_np, W_SET, 1)            \
    X("itemsize", D_itemsize, W_INT, 1) \
    X("_hash", D_hash, W_SET, 0)

/* Storage's slots: the version counter an in-place write bumps (an exact int, checked
   where read: view_setitem), and the flat native array (its type and fields checked
   where read: native_build); dtype, device and _family are only written (storage.c, a
   fresh Storage's slots as Storage.__init__ sets them). */
#define STORAGE_SLOTS(X)                    \
    X("_version", S_version, W_INT, 1)      \
    X("_data", S_data, W_SET, 0)            \
    X("dtype", S_dtype, W_SET, 0)           \
    X("device", S_device, W_SET, 0)         \
    X("_family", S_family, W_SET, 0)

/* Ext's slots (strided.named's fast link): read are requires_grad and grad_fn
   (compared with False and None), names (a tuple or None, checked where read): the
   three rows marked 1, which contract_ext checks; the other six are only written, when
   a fresh Ext for a named result of the Python class gets all nine (their offsets are
   looked up all the same). */
#define EXT_SLOTS(X)                       \
    X("requires_grad", E_rg, W_SET, 1)     \
    X("grad", E_grad, W_SET, 0)            \
    X("grad_fn", E_fn, W_SET, 1)           \
    X("output_nr", E_nr, W_SET, 0)         \
    X("retains_grad", E_retains, W_SET, 0) \
    X("hooks", E_hooks, W_SET, 0)          \
    X("names", E_names, W_SET, 1)          \
    X("is_view", E_view, W_SET, 0)         \
    X("acc", E_acc, W_SET, 0)

ARRAY_SLOTS(CONTRACT_OFFSET)
DTYPE_SLOTS(CONTRACT_OFFSET)
STORAGE_SLOTS(CONTRACT_OFFSET)
EXT_SLOTS(CONTRACT_OFFSET)
static const Slot ARRAY_ROWS[] = {ARRAY_SLOTS(CONTRACT_ROW)};
static const Slot DTYPE_ROWS[] = {DTYPE_SLOTS(CONTRACT_ROW)};
static const Slot STORAGE_ROWS[] = {STORAGE_SLOTS(CONTRACT_ROW)};
static const Slot EXT_ROWS[] = {EXT_SLOTS(CONTRACT_ROW)};
#define N_ROWS(t) ((int)(sizeof(t) / sizeof((t)[0])))

/* --- errors: a C path clears only the errors it expects -----------------------------------
 * An entry point declines (the Python definition then runs and raises its own error) on
 * the errors it expects: an int that does not fit (OverflowError, from the C API's
 * conversions), or an ordinary error of Python code that the Python definition runs too
 * (a kernel, ``_nat``, a dict's ``__missing__``, NumPy's loop resolution: an Exception).
 * It never clears MemoryError, nor what is not an Exception (KeyboardInterrupt,
 * SystemExit): those propagate from where they arose, so a Ctrl-C that arrives while a C
 * path runs Python code is never lost, and the Python definition does not run again
 * after it. */

/* 1 when no error is set any more (there was none, or one of `expected` that was
   cleared); 0 when one stays set and must propagate. */
static inline int
contract_clear(PyObject *expected)
{
    if (!PyErr_Occurred())
        return 1;
    if (PyErr_ExceptionMatches(PyExc_MemoryError) || !PyErr_ExceptionMatches(expected))
        return 0;
    PyErr_Clear();
    return 1;
}

/* A refused buffer request (PyObject_GetBuffer: BufferError, TypeError, ValueError):
   the same as contract_clear for those. */
static inline int
contract_clear_buffer(void)
{
    if (!PyErr_Occurred())
        return 1;
    if (!PyErr_ExceptionMatches(PyExc_BufferError) && !PyErr_ExceptionMatches(PyExc_TypeError)
        && !PyErr_ExceptionMatches(PyExc_ValueError))
        return 0;
    PyErr_Clear();
    return 1;
}

/* A failed call into Python code: an ordinary error cleared (declined), any other left
   set (propagates). NULL either way. */
static inline PyObject *
contract_decline(void)
{
    (void)contract_clear(PyExc_Exception);
    return NULL;
}

/* --- setup: the offsets, from the slot descriptors ----------------------------------- */

static int
contract_offset(PyTypeObject *t, const char *name, Py_ssize_t *off)
{
    PyObject *d = PyDict_GetItemString(t->tp_dict, name);
    if (d == NULL || Py_TYPE(d) != &PyMemberDescr_Type) {
        PyErr_Format(PyExc_TypeError, "setup(): %s.%s is not a __slots__ member", t->tp_name, name);
        return -1;
    }
    PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
    if (m->type != T_OBJECT_EX || m->offset < (Py_ssize_t)sizeof(PyObject)
        || m->offset + (Py_ssize_t)sizeof(PyObject *) > t->tp_basicsize) {
        PyErr_Format(PyExc_TypeError, "setup(): %s.%s is not an object slot", t->tp_name, name);
        return -1;
    }
    *off = m->offset;
    return 0;
}

/* Every row's offset in t, or -1 with an error set (and the offsets unchanged). */
static int
contract_setup(PyTypeObject *t, const Slot *rows, int n)
{
    Py_ssize_t found[16];
    if (n > 16) {
        PyErr_SetString(PyExc_SystemError, "setup(): more than 16 slots in a table");
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (contract_offset(t, rows[i].name, &found[i]) < 0)
            return -1;
    for (int i = 0; i < n; i++)
        *rows[i].off = found[i];
    return 0;
}

/* --- on entry -------------------------------------------------------------------------- */

/* v (a slot's value, NULL when deleted or never set) holds what w asks for. */
static inline int
contract_want(PyObject *v, Want w)
{
    if (v == NULL)
        return 0;
    switch (w) {
    case W_SET:
        return 1;
    case W_INT:
        return PyLong_CheckExact(v);
    case W_TUPLE:
        return PyTuple_CheckExact(v);
    case W_TUPLE_OR_NONE:
        return v == Py_None || PyTuple_CheckExact(v);
    case W_STORAGE_OR_NONE:
        return v == Py_None || Py_IS_TYPE(v, Storage_T) || PyObject_TypeCheck(v, Storage_T);
    case W_DTYPE:
        return Py_IS_TYPE(v, DType_T);
    case W_DEVICE:
        return Py_IS_TYPE(v, Device_T) || PyObject_TypeCheck(v, Device_T);
    }
    return 0;
}

/* A DType (exact type) whose slots hold. */
static inline int
contract_dtype(PyObject *o)
{
    return DType_T != NULL && Py_IS_TYPE(o, DType_T) DTYPE_SLOTS(CONTRACT_CHECK);
}

/* An Array (exact type) whose slots hold: the test every entry point runs on each Array
   argument before reading it. */
static inline int
contract_array(PyObject *o)
{
    return Array_T != NULL && Py_IS_TYPE(o, Array_T) ARRAY_SLOTS(CONTRACT_CHECK);
}

/* An elementwise operand: not an Array, or an Array whose slots that the elementwise
   entry points read hold. 0 means "decline, let Python raise". */
static inline int
contract_operand(PyObject *o)
{
    return !Py_IS_TYPE(o, Array_T) || (1 ARRAY_SLOTS(CONTRACT_CHECK_EW));
}

/* An Ext (exact type) whose slots that the C paths read (EXT_SLOTS' rows marked 1) are set. */
static inline int
contract_ext(PyObject *o)
{
    return Ext_T != NULL && Py_IS_TYPE(o, Ext_T) EXT_SLOTS(CONTRACT_CHECK_EW);
}

/* A registry entry usable by the fast case: (result DType, None, {Device: kernel});
   its result dtype and kernel dict (borrowed), else 0. */
static inline int
contract_entry(PyObject *ent, PyObject **res, PyObject **kc)
{
    if (ent == NULL || !PyTuple_CheckExact(ent) || PyTuple_GET_SIZE(ent) != 3
        || PyTuple_GET_ITEM(ent, 1) != Py_None || !PyDict_Check(PyTuple_GET_ITEM(ent, 2))
        || !Py_IS_TYPE(PyTuple_GET_ITEM(ent, 0), DType_T))
        return 0;
    *res = PyTuple_GET_ITEM(ent, 0);
    *kc = PyTuple_GET_ITEM(ent, 2);
    return 1;
}

/* matmul's and where's tables: a list of exactly two items. */
static inline int
contract_list2(PyObject *t)
{
    return t != NULL && PyList_CheckExact(t) && PyList_GET_SIZE(t) == 2;
}

/* K_ASTYPE's table: a list of exactly one item. */
static inline int
contract_list1(PyObject *t)
{
    return t != NULL && PyList_CheckExact(t) && PyList_GET_SIZE(t) == 1;
}

/* The pool's threshold (bytes) from its one-item list, or 0 (nothing counts as small)
   when the list is not what it should be. */
static inline Py_ssize_t
contract_pool_limit(PyObject *big_list)
{
    if (big_list == NULL || !PyList_CheckExact(big_list) || PyList_GET_SIZE(big_list) < 1)
        return 0;
    PyObject *v = PyList_GET_ITEM(big_list, 0);
    if (!PyLong_CheckExact(v))
        return 0;
    Py_ssize_t big = PyLong_AsSsize_t(v);
    if (big == -1 && PyErr_Occurred()) {
        (void)contract_clear(PyExc_OverflowError); /* (the only error of an exact int) */
        return 0;
    }
    return big;
}

/* --- the backward engine (_cgrad.c) ------------------------------------------------------ */

/* A graph node's attributes (the fields of _cgrad.NodeBase, Node's compiled base: read at
   their offsets for a node whose class resolves every field name to NodeBase's own
   descriptor, checked once per class and version tag; any other node by name through the
   ordinary attribute lookup, so a subclass's or an instance's own value counts), each
   checked where read: the counts as plain ints (anything else: the Python loop runs
   that node), next_functions as a tuple of 2-tuples (anything else: the Python walk,
   or the Python ``_distribute`` for the rest of that node's edges), the hook
   containers by truth value, as the Python loop tests them. X(name, C name, what). */
#define NODE_ATTRS(X)                                  \
    X("_seq", n_seq, "an int, unique per node")        \
    X("_nout", n_nout, "an int, the outputs' count")   \
    X("next_functions", n_next, "a tuple of (node or None, int)") \
    X("_pre", n_pre, "hooks: tested for truth")        \
    X("_retains", n_retains, "hooks: tested for truth") \
    X("_prehooks", n_prehooks, "hooks: tested for truth") \
    X("_hooks", n_hooks, "hooks: tested for truth")

/* --- the buffer pool in C (_cpool.c) ----------------------------------------------------
 * _cpool.empty(shape, dtype, nbytes) reads one Python object of its own: the threshold
 * list, with contract_pool_limit above (anything else there, and it compares nbytes
 * with MIN_BYTES[0] as Python does, raising Python's error). nbytes must be an exact
 * int; shape and dtype go to numpy.ndarray unread, which checks them. */

#endif /* STRIDED_CONTRACT_H */
