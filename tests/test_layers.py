"""Imports point one way: no module of randqa imports from a layer above it.

The layers, lowest first (docs/architecture.md):

- basics: results, errors, sizes, folding, interleaving, files, the version;
- sources: where bytes come from;
- battery: the tests and the suite loader, which never see a source;
- engine: streams sources through the battery (also speed and predict);
- report: renders results and documents, never runs anything;
- the CLI and the package's top level, above everything.

Every ``import`` in every module is read with ast, function-level imports
included, so a lazy import cannot hide an upward one.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import randqa

PACKAGE = Path(randqa.__file__).parent

#: module prefix -> layer; the longest matching prefix wins
LAYER_OF = {
    "randqa._version": "basics",
    "randqa._folding": "basics",
    "randqa.errors": "basics",
    "randqa.sizes": "basics",
    "randqa.folding": "basics",
    "randqa.interleaving": "basics",
    "randqa.files": "basics",
    "randqa.results": "basics",
    "randqa.run_result": "basics",
    "randqa.sources": "sources",
    "randqa.battery": "battery",
    "randqa.engine": "engine",
    "randqa.speed": "engine",
    "randqa.predict": "engine",
    "randqa._report": "report",
    "randqa.cli": "top",
    "randqa.__main__": "top",
    "randqa": "top",
}

#: layer -> the layers its modules may import from
MAY_IMPORT = {
    "basics": {"basics"},
    "sources": {"basics", "sources"},
    "battery": {"basics", "battery"},
    "engine": {"basics", "sources", "battery", "engine"},
    "report": {"basics", "report"},
    "top": {"basics", "sources", "battery", "engine", "report", "top"},
}


def layer(module: str) -> str:
    for prefix in sorted(LAYER_OF, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return LAYER_OF[prefix]
    raise AssertionError(f"{module} is in no layer: add it to LAYER_OF")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def containing_module(name: str) -> str:
    """``name`` if it is a module (Python or compiled), else the module that
    defines it: `from randqa.x import f` imports from randqa.x."""
    while "." in name:
        path = PACKAGE.parent.joinpath(*name.split("."))
        if path.with_suffix(".py").exists() or (path / "__init__.py").exists() or path.with_suffix(".c").exists():
            return name
        name = name.rsplit(".", 1)[0]
    return name


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every randqa module ``path`` imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from randqa.battery import _counts` imports the module randqa.battery._counts
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in found if name == "randqa" or name.startswith("randqa.")]


def upward_imports() -> list[str]:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = module_name(path)
        own = layer(importer)
        for line, imported in imported_modules(path):
            target = containing_module(imported)
            if layer(target) not in MAY_IMPORT[own]:
                problems.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {importer} ({own}) imports {target} ({layer(target)})")
    return problems


def import_cycles() -> list[list[str]]:
    """Every group of modules that import one another, directly or through
    others (Tarjan's strongly connected components). All imports count,
    lazy and type-checking ones too: a cycle hidden in a function is still
    two modules that cannot be understood apart."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = module_name(path)
        graph.setdefault(importer, set()).update(
            target for _, imported in imported_modules(path)
            if (target := containing_module(imported)) != importer)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while not group or group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return cycles


def test_the_import_graph_has_no_cycle() -> None:
    assert import_cycles() == []


def test_the_cycle_finder_sees_a_cycle_through_a_lazy_import(tmp_path, monkeypatch) -> None:
    fake = tmp_path / "randqa"
    (fake / "engine").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "engine" / "__init__.py").write_text("")
    (fake / "engine" / "a.py").write_text("from randqa.engine.b import f\n")
    (fake / "engine" / "b.py").write_text("def f():\n    from randqa.engine import c\n")
    (fake / "engine" / "c.py").write_text("import randqa.engine.a\n")
    (fake / "engine" / "d.py").write_text("import randqa.engine.a\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert import_cycles() == [["randqa.engine.a", "randqa.engine.b", "randqa.engine.c"]]


def test_no_module_imports_from_a_layer_above_it() -> None:
    assert upward_imports() == []


def test_the_checker_sees_an_upward_import(tmp_path, monkeypatch) -> None:
    # a battery module importing a source must be reported, however it is imported
    fake = tmp_path / "randqa"
    for package in ("battery", "sources", "_report"):
        (fake / package).mkdir(parents=True)
        (fake / package / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "sources" / "base.py").write_text("")
    (fake / "_report" / "html.py").write_text("")
    (fake / "battery" / "leaky.py").write_text("def f():\n    from randqa.sources import base\n    import randqa._report.html\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    problems = upward_imports()
    assert len(problems) == 2
    assert "randqa.battery.leaky (battery) imports randqa.sources.base (sources)" in problems[0]
    assert "imports randqa._report.html (report)" in problems[1]
