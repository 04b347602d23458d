"""Sphinx configuration: ``python -m sphinx -W -b html docs docs/_build/html``."""

import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
# The examples and the reference describe the CPU; a default device from the
# environment (STRIDED_DEFAULT_DEVICE) must not change what the site shows.
os.environ.pop("STRIDED_DEFAULT_DEVICE", None)

import strided  # noqa: E402

project = "strided"
author = "the strided authors"
copyright = "the strided authors"
release = version = strided.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",  # the reference's summary tables (docs/_tools/reference.py)
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_data", "_tools", "Thumbs.db", ".DS_Store"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

autosummary_generate = False  # tables only: the entries are on the same pages
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_default_options = {"undoc-members": False}
napoleon_numpy_docstring = True
napoleon_use_ivar = True  # (an Attributes section as fields: autodoc documents the members)
napoleon_google_docstring = True  # (PyTorch's "Args:" sections: strided.torch.distributions, adapted from it)

html_theme = "pydata_sphinx_theme"
html_title = f"strided {release}"
html_static_path = []  # images are referenced from the pages (docs/_static/*.svg)
# The top bar shows the five sections (index.md's toctree: each a page with its own
# toctree), the API reference among them; the left sidebar shows the current section's
# pages.
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "show_nav_level": 1,
    "navigation_depth": 3,
}

# Pages that other parts of the project write (scaling out, performance,
# reliability) are listed in a section's toctree; until a page exists, its
# toctree line is dropped at read time instead of failing the build.
OPTIONAL_PAGES = ("scaling", "performance", "reliability")
SECTION_PAGES = ("ecosystem-section", "internals")


def _drop_missing_pages(app, docname, source):
    if docname not in SECTION_PAGES:
        return
    here = pathlib.Path(app.srcdir)
    missing = [p for p in OPTIONAL_PAGES if not (here / f"{p}.md").exists()]
    if missing:
        lines = source[0].splitlines()
        source[0] = "\n".join(line for line in lines if line.strip() not in missing) + "\n"


def _repository_url():
    """The repository's address from pyproject.toml's [project.urls] (Source or Repository),
    or None: then {source} shows the path without a link."""
    import tomllib

    try:
        urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"].get("urls", {})
    except (OSError, KeyError, ValueError):
        return None
    for key in ("Source", "Repository", "Source code", "Homepage"):
        url = urls.get(key)
        if url and (key != "Homepage" or "github.com" in url or "gitlab" in url):
            return url.rstrip("/")
    return None


REPOSITORY = _repository_url()


def source_role(name, rawtext, text, lineno, inliner, options=None, content=()):
    """``{source}`path``: a file or folder of the repository, linked to it there. A path
    that does not exist is an error (the build runs with -W), so no link goes stale."""
    from docutils import nodes

    path = text.strip()
    if not (ROOT / path).exists():
        msg = inliner.reporter.error(f"{{source}}: no such file or folder in the repository: {path}",
                                     line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    literal = nodes.literal(path, path)
    if REPOSITORY is None:
        return [literal], []
    kind = "tree" if (ROOT / path).is_dir() else "blob"
    return [nodes.reference(rawtext, "", literal, refuri=f"{REPOSITORY}/{kind}/main/{path}")], []


def setup(app):
    app.connect("source-read", _drop_missing_pages)
    app.add_role("source", source_role)
