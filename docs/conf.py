"""Sphinx configuration of the sklearn_rank_metrics documentation.

Build with ``python -m sphinx -W --keep-going -b html docs docs/_build/html``
(warnings are errors; the gallery in ``docs/examples`` runs at build time).
"""

from __future__ import annotations

import sys
from pathlib import Path

from sphinx_gallery.sorting import FunctionSortKey

import sklearn_rank_metrics

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

project = "sklearn_rank_metrics"
author = "The sklearn_rank_metrics developers"
copyright = "2026, The sklearn_rank_metrics developers"
release = sklearn_rank_metrics.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    # reads the benchmarks' Markdown reports, included as they are written
    "myst_parser",
    # docs/_ext: the metric catalogue, alias and convention tables, built from the
    # package's declarations at build time
    "rank_metrics_tables",
    # "ndcg@10" in running text stays text, not an e-mail link
    "metric_names_not_emails",
]

templates_path = ["_templates"]
# pages are reStructuredText; Markdown only comes in through include directives
source_suffix = {".rst": "restructuredtext"}
# examples/ is sphinx-gallery's source: its pages are built into auto_examples/
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "examples"]
# user_guide/architecture.rst includes a section of CONTRIBUTING.md, whose headings
# start at "###" there: MyST's note that a document starts below H1 does not apply
suppress_warnings = ["myst.header"]
nitpicky = False

autosummary_generate = True
# the numpydoc Parameters sections give every type; signatures stay short
autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
toc_object_entries_show_parents = "hide"

html_theme = "pydata_sphinx_theme"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_title = "sklearn_rank_metrics"
html_theme_options = {
    "show_toc_level": 2,
    "navigation_with_keys": False,
    # the generated reference tables are wide: no "On this page" column beside them
    # (conventions.rst, the one with sections, lists them at its top instead)
    # (names, not a pattern: two patterns matching one page are a warning)
    "secondary_sidebar_items": {
        "**": ["page-toc", "edit-this-page", "sourcelink"],
        **{f"reference/{page.stem}": [] for page in (DOCS / "reference").glob("*.rst")},
    },
}
# the generated reference tables are wide: no section navigation beside them
html_sidebars = {"reference/*": []}

# no intersphinx: the build runs offline (CI has no network)

# The gallery: docs/examples/plot_*.py run at every build (about a minute on two
# cores); a failing example fails the build. The order is the reader's path, from
# model selection to evaluation details; a new example goes into the list.
_GALLERY_ORDER = [
    "plot_tune_ranker_with_query_folds.py",
    "plot_compare_two_models.py",
    "plot_metric_at_k.py",
    "plot_trec_run_vs_run.py",
    "plot_sampled_metric_correction.py",
    "plot_ties_change_a_score.py",
]
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    # a bound list method pickles, so Sphinx can cache the configuration
    "within_subsection_order": FunctionSortKey(_GALLERY_ORDER.index, "_GALLERY_ORDER"),
    "download_all_examples": False,
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "remove_config_comments": True,
    "min_reported_time": 0,
}


def _skip_namedtuple_fields(app, what, name, obj, skip, options):
    """A NamedTuple's field accessors ("Alias for field number 0"): its Attributes
    section documents them already."""
    doc = getattr(obj, "__doc__", None) or ""
    return True if doc.startswith("Alias for field number") else None


def _top_level_parts(text):
    """``text`` split at the commas outside brackets and quotes."""
    parts, depth, quote, start = [], 0, None, 0
    for index, char in enumerate(text):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


def _hide_private_parameters(app, what, name, obj, options, signature, return_annotation):
    """Drop the parameters whose name starts with "_" from a rendered signature (a
    dataclass's private fields, such as RankingData's ``_row_location``): the class
    still takes them, the documentation does not offer them."""
    if not signature or not signature.startswith("(") or "_" not in signature:
        return None
    kept = [
        part
        for part in _top_level_parts(signature[1:-1])
        if not part.lstrip("*").startswith("_")
    ]
    while kept and kept[-1] in ("*", "/"):  # a marker left with nothing after it
        kept.pop()
    return f"({', '.join(kept)})", return_annotation


def setup(app):
    app.connect("autodoc-skip-member", _skip_namedtuple_fields)
    app.connect("autodoc-process-signature", _hide_private_parameters)
