"""Which optional parts of randqa are installed, asked without importing them.

``pip install randqa`` tests and writes JSON; HTML reports need the ``html``
extra (matplotlib, jinja2, and jsonschema to read saved results back).  A
command that will draw a report can ask :func:`missing_html_extra` before its
run, instead of learning it when the report is drawn.
"""

from __future__ import annotations

from importlib.util import find_spec

#: the one line a feature of the html extra fails with when it is missing
HTML_EXTRA_NEEDED = "HTML reports need the html extra: pip install 'randqa[html]'"

#: what drawing an HTML report imports
_HTML_MODULES = ("matplotlib", "jinja2", "markupsafe")


def missing_html_extra() -> str | None:
    """HTML_EXTRA_NEEDED when a module of the html extra is not installed, else None."""
    return HTML_EXTRA_NEEDED if any(find_spec(name) is None for name in _HTML_MODULES) else None
