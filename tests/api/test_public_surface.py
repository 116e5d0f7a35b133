"""The public surface: exactly the API in ``randqa.__all__``, a light
``import randqa``, runnable docstring examples and ``mypy --strict``.

Source: ``randqa.__all__`` and the README's "From Python" section; numpydoc's docstring
standard (https://numpydoc.readthedocs.io/en/latest/format.html) for the
sections; PEP 561 for ``py.typed``.  The doctests run every Examples
section of the public modules (a few seconds); mypy runs once (about 5 s
with a cold cache).
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import randqa

PACKAGE = Path(randqa.__file__).parent
PUBLIC_MODULES = ["randqa", "randqa.api.documents", "randqa.api.running", "randqa.api.battery", "randqa.testing"]
#: the files `mypy --strict` must pass: the public modules, the result types they expose and
#: the modules written for them (option plan, Python-object sources, schema, notebook view)
TYPED_FILES = ["__init__.py", "api/__init__.py", "api/_arguments.py", "api/documents.py", "api/running.py",
               "api/battery.py", "testing.py", "results.py", "run_result.py", "errors.py", "sizes.py", "engine/plan.py",
               "sources/python_objects.py", "_report/schema.py", "_report/inline.py"]


def test_all_is_exactly_the_api():
    assert sorted(randqa.__all__) == sorted(["Battery", "Comparison", "Result", "TestResult", "Verdict",
                                             "__version__", "compare", "report", "test", "testing"])
    for name in randqa.__all__:
        assert getattr(randqa, name) is not None
    assert set(randqa.__all__) <= set(dir(randqa))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        randqa.nope  # noqa: B018


def test_import_randqa_stays_light():
    code = ("import sys, randqa; heavy = [m for m in ('numpy', 'scipy', 'matplotlib', 'jsonschema', 'click', 'jinja2')"
            " if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_pytest_does_not_collect_randqa_test():
    assert randqa.test.__test__ is False  # `from randqa import test` in a test module is no test


def _public_callables():
    from randqa import api, testing

    objects = [api.test, api.compare, api.report, testing.assert_random, api.Battery, api.Result, api.Comparison]
    for cls in (api.Battery, api.Result, api.Comparison):
        # methods a class inherits from a private base are public on it too
        for owner in cls.__mro__:
            if not owner.__module__.startswith(api.__name__ + "."):
                continue
            objects += [member for name, member in vars(owner).items()
                        if not name.startswith("_") and inspect.isfunction(member)
                        and member not in objects]
    return objects


@pytest.mark.parametrize("obj", _public_callables(), ids=lambda o: o.__qualname__)
def test_numpydoc_sections(obj):
    doc = inspect.getdoc(obj) or ""
    assert doc, f"{obj.__qualname__} has no docstring"
    if inspect.isclass(obj) or obj.__name__ in ("test", "compare", "report", "assert_random"):
        sections = ["Parameters", "Examples"] + ([] if inspect.isclass(obj) else ["Returns", "Raises"])
        for section in sections:
            assert f"\n{section}\n{'-' * len(section)}\n" in doc, f"{obj.__qualname__}: no {section} section"


def test_every_public_example_runs():
    attempted = 0
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
        assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
        attempted += result.attempted
    assert attempted >= 30


def test_py_typed_ships():
    assert (PACKAGE / "py.typed").is_file()
    pyproject = (PACKAGE.parent / "pyproject.toml").read_text()
    assert '"py.typed"' in pyproject and '"schema/*.json"' in pyproject


def test_mypy_strict_passes_on_the_public_modules(tmp_path):
    pytest.importorskip("mypy", reason="mypy is in the test extra: pip install -e '.[test]'")
    files = [str(PACKAGE / f) for f in TYPED_FILES]
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"),
                           "--config-file", str(PACKAGE.parent / "pyproject.toml"), *files],
                          capture_output=True, text=True, cwd=PACKAGE.parent, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"Success: no issues found in {len(TYPED_FILES)} source files" in proc.stdout
