"""The API reference's list of public names, and the generator of docs/api/*.rst.

``python docs/_tools/reference.py`` rewrites docs/api/*.rst from the public
names of strided: each section opens with a summary table (autosummary: the
name, the first line of its docstring, a link to its entry) before the entries,
whose signatures autodoc takes from ``inspect.signature``. tests/test_docs.py checks that every public name has a
docstring and an entry in those files, so a new name without a reference
entry fails the tests until this is rerun and the result committed.
"""

from __future__ import annotations

import inspect
import pathlib
import types

import strided
import strided.torch  # noqa: F401  (its pages: strided.torch, nn, nn.functional, optim, ...)
import strided.torch.nn.utils.rnn  # noqa: F401,E402  (the subpackages its pages walk)
import strided.torch.optim.swa_utils  # noqa: F401,E402
import strided.torch.utils.data  # noqa: F401,E402
import strided.torch.testing  # noqa: F401,E402
import strided.torch.random  # noqa: F401,E402

API = pathlib.Path(__file__).resolve().parent.parent / "api"

# Sections of the top-level namespace, by the module that defines each name.
SECTIONS = {
    "strided._api.creation": "Creation",
    "strided._api.elementwise": "Element-wise functions",
    "strided._api.views": "Views and layout",
    "strided._api.indexing": "Indexing",
    "strided._api.manipulation": "Manipulation",
    "strided._api.searching": "Searching",
    "strided._api.sets": "Sets",
    "strided._api.sorting": "Sorting",
    "strided._api.statistics": "Statistics",
    "strided._api.utility": "Utility",
    "strided._api.data_type_functions": "Data type functions",
    "strided._core.dtypes": "Data types",
    "strided._api.linalg_functions": "Linear algebra (namespace)",
    "strided.io._native": "Save and load",
    "strided.torch._random": "Random numbers",
    "strided._core.device": "Devices",
    "strided._core.array": "Array, Size",
    "strided._core.storage": "Storage",
    "strided.autograd._mode": "Gradient modes",
    "strided._api.info": "Inspection",
    "strided.torch._composites": "PyTorch functions beyond the standard",
    "strided._numpy.numeric": "NumPy functions beyond the standard",
    "strided._numpy.nanfunctions": "NumPy functions beyond the standard",
    "strided._numpy.histograms": "NumPy functions beyond the standard",
}
OTHER = "Constants and aliases"
SUBMODULES = ("linalg", "fft", "autograd", "named", "io", "lib.stride_tricks", "torch", "torch.cuda",
              "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.optim",
              "torch.optim.lr_scheduler", "torch.optim.swa_utils", "torch.special", "torch.nn.utils",
              "torch.nn.utils.rnn", "torch.nn.utils.parametrize", "torch.nn.utils.parametrizations",
              "torch.utils.data", "torch.testing", "torch.random", "torch.linalg", "torch.fft",
              "torch.distributions", "autograd.functional", "torch.func", "torch.amp",
              "torch.utils.checkpoint", "torch.nn.utils.prune", "torch.nn.utils.fusion",
              "torch.nn.utils.stateless")


def _mod(sub: str):
    """``strided.<sub>`` for a dotted submodule path (``lib.stride_tricks``)."""
    mod = strided
    for part in sub.split("."):
        mod = getattr(mod, part)
    return mod
ARRAY_DUNDERS = ("__array_namespace__", "__dlpack__", "__dlpack_device__")


def _public(mod) -> list:
    names = getattr(mod, "__all__", None)
    if mod is strided.torch:
        # strided.torch re-exports strided's names (documented on the namespace page):
        # its page lists only the names whose objects are its own.
        names = [n for n in dir(mod) if not n.startswith("_")
                 and getattr(strided, n, None) is not getattr(mod, n)]
    elif names is None:
        names = [n for n in dir(mod) if not n.startswith("_")]
        names.append("__array_namespace_info__")
    out = []
    for n in names:
        obj = getattr(mod, n)
        if isinstance(obj, types.ModuleType) or n == "annotations":
            continue
        out.append(n)
    return sorted(out)


def _kind(obj) -> str:
    if inspect.isclass(obj):
        return "class"
    if callable(obj) and not isinstance(obj, strided.DType):
        return "function"
    return "data"


def namespace_sections() -> dict:
    """{section title: [(name, kind), ...]} for ``strided``'s own names."""
    sections = {t: [] for t in SECTIONS.values()}
    sections[OTHER] = []
    for n in _public(strided):
        obj = getattr(strided, n)
        kind = _kind(obj)
        mod = getattr(obj, "__module__", None) if kind != "data" else None
        if kind == "data" or getattr(obj, "__name__", n) != n:
            title = OTHER  # constants, dtype objects and aliases (Tensor = Array, ...)
        else:
            title = SECTIONS.get(mod, OTHER)
        sections[title].append((n, kind))
    return {t: v for t, v in sections.items() if v}


def submodule_names(sub: str) -> list:
    mod = _mod(sub)
    return [(n, _kind(getattr(mod, n))) for n in _public(mod)]


def array_names() -> list:
    """Public attributes and methods of ``strided.Array``."""
    names = [n for n in dir(strided.Array) if not n.startswith("_")] + list(ARRAY_DUNDERS)
    out = []
    for n in sorted(names):
        attr = inspect.getattr_static(strided.Array, n)
        out.append((n, "attribute" if isinstance(attr, property) else "method"))
    return out


def public_objects():
    """Every public name as (qualified name, object, kind): what must be documented."""
    for title, entries in namespace_sections().items():
        for n, kind in entries:
            yield f"strided.{n}", getattr(strided, n), kind
    for sub in SUBMODULES:
        mod = _mod(sub)
        for n, kind in submodule_names(sub):
            yield f"strided.{sub}.{n}", getattr(mod, n), kind
    for n, kind in array_names():
        yield f"strided.Array.{n}", getattr(strided.Array, n), kind


DATA_DOCS = {
    "strided.e": "Euler's number, a Python float.",
    "strided.inf": "Positive infinity, a Python float.",
    "strided.nan": "Not a Number, a Python float.",
    "strided.pi": "The ratio of a circle's circumference to its diameter, a Python float.",
    "strided.newaxis": "``None``: an index that inserts a dimension of size 1.",
    "strided.autograd.RULES": "Derivative rules by operation name (a dict); one row per differentiable primitive.",
    "strided.autograd.NONDIFF": "Operations without a derivative, by name, with the reason (a dict); their "
                                "outputs never require grad.",
    "strided.named.RULES": "Name rules by operation name (a dict): how each operation's result names follow "
                           "from its inputs' names.",
    "strided.named.UNHOOKED": "Public functions that need no name rule, by name, with the reason (a dict).",
    "strided.torch.return_types": "The named tuples of results with values and indices (``return_types.max``, "
                                  "``.sort``, ``.topk``, ...), as ``torch.return_types``.",
    "strided.torch.contiguous_format": "PyTorch's row-major memory format (a ``torch.memory_format``).",
    "strided.torch.preserve_format": "PyTorch's default memory format of copies: a dense source's strides, "
                                     "else dense strides in its order (a ``torch.memory_format``).",
    "strided.torch.channels_last": "PyTorch's NHWC memory format of a 4-D tensor (a ``torch.memory_format``).",
    "strided.torch.channels_last_3d": "PyTorch's NDHWC memory format of a 5-D tensor (a ``torch.memory_format``).",
}


def _data_doc(qual: str) -> str:
    if qual in DATA_DOCS:
        return DATA_DOCS[qual]
    obj = eval(qual, {"strided": strided})  # noqa: S307 (our own qualified names)
    if isinstance(obj, strided.DType):
        alias = "" if qual.endswith("." + obj.name) else f" (PyTorch's alias of ``{obj.name}``)"
        return f"The ``{obj.name}`` data type{alias}; equal to ``numpy.dtype('{obj.name}')``."
    raise KeyError(f"no description for the public data name {qual}: add one to DATA_DOCS")


def _entry(qual: str, kind: str, no_index: bool = False) -> str:
    if no_index:
        name = qual.rpartition(".")[2]
        # (strided.torch's __all__ holds every name of strided too: never the home of one)
        obj = eval(qual, {"strided": strided})  # noqa: S307 (our own qualified names)
        sub = next(m for m in SUBMODULES if m != "torch" and name in getattr(_mod(m), "__all__", ())
                   and getattr(_mod(m), name) is obj)
        role = "class" if kind == "class" else "func"
        directive = "py:class" if kind == "class" else "py:function"
        return (f".. {directive}:: {qual}\n   :no-index:\n\n"
                f"   The same object as :{role}:`strided.{sub}.{name}`.\n")
    if qual == "strided.Tensor":
        return ".. autodata:: strided.Tensor\n   :no-value:\n\n   The same class as :class:`strided.Array` (PyTorch's name).\n"
    if qual == "strided.Array":
        return ".. autoclass:: strided.Array\n"  # its members are listed one by one below it
    if kind == "class":
        return f".. autoclass:: {qual}\n   :members:\n"
    if kind == "function":
        return f".. autofunction:: {qual}\n"
    if kind == "attribute":
        return f".. autoproperty:: {qual}\n"
    if kind == "method":
        return f".. automethod:: {qual}\n"
    return f".. py:data:: {qual}\n\n   {_data_doc(qual)}\n"


def _summary(entries) -> list:
    """A summary table (name, first line of the docstring, a link to the entry below) of a
    section's entries; constants are left out (their docstring would be their type's)."""
    names = [qual for qual, kind, *_ in entries if kind != "data"]
    if not names:
        return []
    return [".. autosummary::", "   :nosignatures:", ""] + [f"   {q}" for q in names] + [""]


def _page(title: str, intro: str, groups: dict) -> str:
    lines = [".. This file is generated by docs/_tools/reference.py; do not edit.", "",
             title, "=" * len(title), "", intro, ""]
    for sub, entries in groups.items():
        if sub:
            lines += [sub, "-" * len(sub), ""]
        lines += _summary(entries)
        for qual, kind, *no_index in entries:
            lines.append(_entry(qual, kind, *no_index))
    return "\n".join(lines).rstrip() + "\n"


INTROS = {
    "namespace": "The top-level namespace: the Array API standard's functions, with PyTorch's spellings and "
                 "the extensions' public names. Arrays also have each function as a method; see :doc:`array`.",
    "array": "Attributes and methods of :class:`strided.Array` (also spelled ``strided.Tensor``). The torch-style "
             "methods take PyTorch's argument names and defaults; see :doc:`../torch-differences`.",
    "linalg": "The standard's ``linalg`` extension.",
    "fft": "The standard's ``fft`` extension.",
    "autograd": "Reverse-mode automatic differentiation; see :doc:`../guide/autograd`.",
    "named": "Named dimensions; see :doc:`../guide/named`.",
    "io": "HDF5 files; see :doc:`../guide/hdf5`.",
    "lib.stride_tricks": "NumPy's ``numpy.lib.stride_tricks`` functions that code written for NumPy reaches "
                         "through the namespace (xarray's rolling windows): an extension beyond the standard.",
    "torch": "PyTorch's namespace over strided's arrays (``import strided.torch as torch``): every name of "
             ":doc:`namespace` plus the names below, which are its own; see :doc:`../porting-from-pytorch`.",
    "torch.cuda": "PyTorch's ``torch.cuda`` questions, answered for strided's ``cuda`` device.",
    "torch.nn": "PyTorch's ``torch.nn``: ``Module``, ``Parameter``, layers, containers, activations and losses.",
    "torch.nn.functional": "PyTorch's ``torch.nn.functional``: activations, losses and utilities, each a "
                           "composite of differentiable strided operations.",
    "torch.nn.init": "PyTorch's weight initialisations.",
    "torch.optim": "PyTorch's optimizers, step for step.",
    "torch.optim.lr_scheduler": "PyTorch's learning-rate schedulers.",
    "torch.optim.swa_utils": "PyTorch's stochastic weight averaging: ``AveragedModel``, ``SWALR``, ``update_bn``.",
    "torch.nn.utils": "PyTorch's ``torch.nn.utils``: gradient clipping, parameters as one vector, weight and "
                      "spectral normalization.",
    "torch.nn.utils.rnn": "PyTorch's ``torch.nn.utils.rnn``: padding and packing variable-length sequences "
                          "(``PackedSequence``, which the recurrent layers take).",
    "torch.nn.utils.parametrize": "PyTorch's ``torch.nn.utils.parametrize``: parameters and buffers computed "
                                  "from others on access (``register_parametrization``).",
    "torch.nn.utils.parametrizations": "PyTorch's ``torch.nn.utils.parametrizations``: ``weight_norm``, "
                                       "``spectral_norm`` and ``orthogonal`` as parametrizations.",
    "torch.distributions": "PyTorch's ``torch.distributions`` (adapted from PyTorch 2.13's modules): probability "
                           "distributions with ``sample``, ``rsample``, ``log_prob``, ``entropy``, "
                           "``kl_divergence`` and transforms.",
    "autograd.functional": "PyTorch's ``torch.autograd.functional`` (adapted from PyTorch 2.13): ``vjp``, "
                           "``jvp``, ``jacobian``, ``hessian``, ``hvp``, ``vhp`` over strided's autograd.",
    "torch.func": "PyTorch's ``torch.func``: ``grad``, ``vjp``, ``jacrev``, ``jacfwd`` (by reverse mode), "
                  "``hessian``, ``functional_call``, ``vmap``; transforms nest.",
    "torch.amp": "PyTorch's ``torch.amp``: ``GradScaler`` step for step; ``autocast`` as PyTorch's where it is "
                 "disabled, and an error where PyTorch would lower the precision of ops.",
    "torch.utils.checkpoint": "PyTorch's ``torch.utils.checkpoint``: the function runs again in backward "
                              "instead of keeping its intermediates.",
    "torch.nn.utils.prune": "PyTorch's ``torch.nn.utils.prune`` (adapted from PyTorch 2.13): masks as "
                            "``<name>_mask`` buffers over ``<name>_orig``, applied before each forward.",
    "torch.nn.utils.fusion": "PyTorch's ``torch.nn.utils.fusion``: batch norm folded into the preceding "
                             "convolution or linear layer.",
    "torch.nn.utils.stateless": "PyTorch's ``torch.nn.utils.stateless.functional_call`` (deprecated there in "
                                "favour of ``torch.func.functional_call``).",
    "torch.utils.data": "PyTorch's ``torch.utils.data``: datasets, samplers, ``default_collate`` and ``DataLoader``.",
    "torch.testing": "PyTorch's ``torch.testing``: ``assert_close`` with its default tolerances, ``make_tensor``.",
    "torch.random": "PyTorch's ``torch.random``: the default generator's seed and state.",
    "torch.linalg": "PyTorch's ``torch.linalg``: its signatures (``dim``, ``keepdim``, positional ``ord``), "
                    "return types and errors; :doc:`linalg` is the standard's.",
    "torch.fft": "PyTorch's ``torch.fft``: its signatures (``dim``, positional ``n``) and dtypes; "
                 ":doc:`fft` is the standard's.",
    "torch.special": "PyTorch's ``torch.special``: the functions below, and the names it shares with "
                     "``torch`` (``expit``, ``gammaln``, ``psi``, ``erf``, ``logit``, ``xlogy``, ...), "
                     "which are :doc:`torch`'s functions.",
}


def _in_submodule(name: str) -> bool:
    """Whether a top-level name is also documented on a submodule's page."""
    obj = getattr(strided, name)
    return any(getattr(_mod(sub), name, None) is obj
               for sub in SUBMODULES if sub != "torch" and name in getattr(_mod(sub), "__all__", ()))


def _slug(title: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in title.lower()).split())


def _namespace_pages() -> dict:
    """The namespace in one page per chapter (docs/api/namespace/<chapter>.rst) and an
    index page (docs/api/namespace.rst) with each chapter's summary table."""
    out = {}
    lines = [".. This file is generated by docs/_tools/reference.py; do not edit.", "",
             "strided", "=======", "", INTROS["namespace"], "",
             "One page per chapter; each table links to the entries.", "",
             ".. toctree::", "   :hidden:", ""]
    chapters = {t: [(f"strided.{n}", k, _in_submodule(n)) for n, k in entries if n != "Array"]
                for t, entries in namespace_sections().items()}
    chapters = {t: e for t, e in chapters.items() if e}
    lines += [f"   namespace/{_slug(t)}" for t in chapters] + [""]
    for title, entries in chapters.items():
        slug = _slug(title)
        lines += [title, "-" * len(title), "", f"On its own page: :doc:`namespace/{slug}`.", ""]
        lines += _summary(entries)
        out[f"namespace/{slug}"] = _page(title, f"A chapter of the namespace :doc:`../namespace`.",
                                         {"": entries})
    out["namespace"] = "\n".join(lines).rstrip() + "\n"
    return out


def pages() -> dict:
    out = _namespace_pages()
    out["array"] = _page("strided.Array", INTROS["array"], {
        "": [("strided.Array", "class")] + [("strided.Array." + n, k) for n, k in array_names()]})
    for sub in SUBMODULES:
        out[sub] = _page(f"strided.{sub}", INTROS[sub], {
            "": [(f"strided.{sub}.{n}", k) + ((True,) if _homed_below(sub, n) else ())
                 for n, k in submodule_names(sub)]})
    return out


def _homed_below(sub: str, name: str) -> bool:
    """Whether ``strided.torch``'s class ``name`` is documented on a submodule's page (PyTorch's
    ``torch.autocast`` is ``torch.amp.autocast``): its entry here is then a pointer there (one
    description per object, as Sphinx wants)."""
    if sub != "torch":
        return False
    obj = getattr(_mod(sub), name)
    return inspect.isclass(obj) and any(
        m != "torch" and m.startswith("torch.") and name in getattr(_mod(m), "__all__", ())
        and getattr(_mod(m), name) is obj for m in SUBMODULES)


def main() -> None:
    API.mkdir(exist_ok=True)
    texts = pages()
    for old in API.rglob("*.rst"):  # a chapter that is gone
        name = old.relative_to(API).with_suffix("").as_posix()
        if name != "index" and name not in texts:
            old.unlink()
    for name, text in texts.items():
        (API / f"{name}.rst").parent.mkdir(exist_ok=True)
        (API / f"{name}.rst").write_text(text)


if __name__ == "__main__":
    main()
