"""An accumulator's state as plain data, and back.

A segment-parallel run moves partial accumulators between processes, and a
checkpoint saves the merged one to disk; both use the form made here, so no
test needs code of its own to be saved or sent.  ``export_state`` walks an
object's attributes and returns a tree of plain values: None, bool, int,
float, str, numpy arrays, lists and str-keyed dicts, plus tagged dicts (one
key starting with ``$``) for what JSON has no word for:

- ``{"$bytes": uint8 array}``, ``{"$bytearray": uint8 array}``;
- ``{"$scalar": 0-d array}``: a numpy scalar, its dtype kept;
- ``{"$tuple": [...]}``, ``{"$dict": [[key, value], ...]}`` (keys that are not
  plain strings, such as the bit indices of bit_linear_complexity);
- ``{"$enum": "module:Class", "value": ...}`` (a result's verdict);
- ``{"$object": "module:Class", "attrs": {...}}``: a nested object (a folded
  test's ``inner``, PerSequence's ``current``, its p-value summaries, a
  unit splitter's pending bytes).

What the suite rebuilds is skipped: functions and other callables (the
per-sequence factory), locks, modules.  ``import_state`` loads a tree into a
freshly built accumulator: attributes are set in place, nested objects of
the same class are loaded into the ones already there (so their locks and
factories stay), and objects the fresh one lacks are made with
``cls.__new__`` without running their ``__init__``.  A class is looked up
by name in a closed table (``state_classes``: the classes of the battery's
own modules, of ``randqa.folding`` and ``randqa.results``), never imported
by a name the tree gives, so loading a tree runs no code it names; a tree
that does not fit the accumulator (other attributes, an array of another
dtype or shape, a class outside the table, nesting deeper than
``MAX_DEPTH``) raises ``StateError``.

An object whose state is smaller than its attributes says so with
``_state_export()`` (the attributes its state holds, arrays made for it
and not copied again) and ``_state_import(values, where)`` (the object
rebuilt from them, StateError when they do not make one): a sparse hash
table saves its entries, not its empty slots.

``to_document``/``from_document`` turn a tree into a JSON-ready document
plus a dict of named arrays (what a checkpoint writes to an ``.npz``).
"""

from __future__ import annotations

import enum
import importlib
import pkgutil
import threading
import types
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

_LOCK_TYPES = (type(threading.Lock()), type(threading.RLock()))
#: the modules besides the battery's whose classes a state may name
_STATE_MODULES = ("randqa.folding", "randqa.results")
#: the deepest nesting a state (or its document) may have; real ones have about 10 levels
MAX_DEPTH = 64


class StateError(ValueError):
    """A state tree that does not fit the object it is loaded into."""


def _skipped(value: Any) -> bool:
    """Whether an attribute is rebuilt from the suite rather than saved."""
    return (callable(value) and not isinstance(value, np.ndarray)) or isinstance(value, (_LOCK_TYPES, types.ModuleType))


def _class_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _attributes(obj: Any) -> dict[str, Any]:
    if hasattr(obj, "__dict__"):
        return vars(obj)
    slots = [s for klass in type(obj).__mro__ for s in getattr(klass, "__slots__", ())]
    return {s: getattr(obj, s) for s in slots if hasattr(obj, s)}


def _saved_attributes(obj: Any) -> dict[str, Any]:
    """The attributes of ``obj`` that its state holds: not what the suite
    rebuilds, nor what another object saves (``_state_saved_elsewhere()``:
    a statistic shared by several tests travels once, with its owner); or
    what its own ``_state_export()`` gives, for an object whose state is
    smaller than its attributes (a sparse table saved as its entries)."""
    own = getattr(type(obj), "_state_export", None)
    if own is not None:
        return own(obj)
    elsewhere = getattr(obj, "_state_saved_elsewhere", None)
    names = set(elsewhere()) if callable(elsewhere) else set()
    return {name: value for name, value in _attributes(obj).items() if not _skipped(value) and name not in names}


def export_state(obj: Any) -> dict[str, Any]:
    """The saved attributes of ``obj`` as a tree of plain values (arrays copied)."""
    return _export_attributes(obj, "")


def _export_attributes(obj: Any, where: str) -> dict[str, Any]:
    # what an object's own _state_export makes is its own already: not copied again (its largest array)
    fresh = getattr(type(obj), "_state_export", None) is not None
    return {name: _export(value, f"{where}.{name}" if where else name, copy=not fresh)
            for name, value in _saved_attributes(obj).items()}


def _export(value: Any, where: str, copy: bool = True) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)) and type(value) in (bool, int, float, str):
        return value
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise TypeError(f"{where}: arrays of Python objects cannot be saved")
        return value.copy() if copy else value
    if isinstance(value, np.generic):
        return {"$scalar": np.array(value)}
    if isinstance(value, bytes):
        return {"$bytes": np.frombuffer(value, dtype=np.uint8).copy()}
    if isinstance(value, bytearray):
        return {"$bytearray": np.frombuffer(bytes(value), dtype=np.uint8).copy()}
    if isinstance(value, enum.Enum):
        return {"$enum": _class_name(type(value)), "value": value.value}
    if type(value) is list:
        return [_export(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if type(value) is tuple:
        return {"$tuple": [_export(v, f"{where}[{i}]") for i, v in enumerate(value)]}
    if type(value) is dict:
        if all(type(k) is str and not k.startswith("$") for k in value):
            return {k: _export(v, f"{where}.{k}") for k, v in value.items()}
        return {"$dict": [[_export(k, where), _export(v, f"{where}[{k!r}]")] for k, v in value.items()]}
    if _class_name(type(value)) in state_classes() and not isinstance(value, (type, enum.Enum, BaseException)):
        return {"$object": _class_name(type(value)), "attrs": _export_attributes(value, where)}
    raise TypeError(f"{where}: a {type(value).__name__} cannot be saved as plain data")


def import_state(obj: Any, state: dict[str, Any]) -> None:
    """Load a tree made by :func:`export_state` into ``obj`` (a fresh object of the same kind)."""
    if not isinstance(state, dict):
        raise StateError(f"{type(obj).__name__}: state is not a mapping")
    _load_attributes(obj, state, type(obj).__name__, strict=True, depth=0)


def _load_attributes(obj: Any, state: dict[str, Any], where: str, strict: bool, depth: int) -> None:
    own = getattr(type(obj), "_state_import", None)
    if own is not None and not strict:  # made without its __init__: nothing to compare with yet
        type(obj).__init__(obj)
    current = _saved_attributes(obj)
    if (strict or own is not None) and set(current) != set(state):
        missing = sorted(set(current) - set(state)) or sorted(set(state) - set(current))
        raise StateError(f"{where}: the saved state does not fit (attribute {missing[0]!r})")
    values = {}
    for name, encoded in state.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise StateError(f"{where}: {name!r} is not an attribute name")
        values[name] = _import(encoded, current.get(name), f"{where}.{name}", depth + 1)
    if own is not None:
        own(obj, values, where)  # its own form, rebuilt (a table from its entries)
        return
    for name, value in values.items():
        object.__setattr__(obj, name, value)  # object's: frozen dataclasses too


def _import(encoded: Any, template: Any, where: str, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise StateError(f"{where}: nested deeper than {MAX_DEPTH} levels")
    if encoded is None or type(encoded) in (bool, int, float, str):
        if not _same_kind(encoded, template):
            raise StateError(f"{where}: saved as {type(encoded).__name__}, expected {type(template).__name__}")
        return encoded
    if isinstance(encoded, np.ndarray):
        if isinstance(template, np.ndarray):
            if template.dtype != encoded.dtype:
                raise StateError(f"{where}: saved as {encoded.dtype}, expected {template.dtype}")
            # an array built with its final shape keeps it (tables of counts); empty ones grow (pending bytes)
            if template.ndim != encoded.ndim or (template.size and template.shape != encoded.shape):
                raise StateError(f"{where}: saved with shape {encoded.shape}, expected {template.shape}")
        return encoded.copy() if not encoded.flags.writeable else encoded
    if isinstance(encoded, list):
        _check_not_plain(template, "list", where)
        templates = template if isinstance(template, list) and len(template) == len(encoded) else [None] * len(encoded)
        return [_import(v, t, f"{where}[{i}]", depth + 1) for i, (v, t) in enumerate(zip(encoded, templates))]
    if not isinstance(encoded, dict):
        raise StateError(f"{where}: a {type(encoded).__name__} is not state")
    tags = [k for k in encoded if k.startswith("$")]
    if not tags:
        _check_not_plain(template, "mapping", where)
        templates = template if isinstance(template, dict) else {}
        return {k: _import(v, templates.get(k), f"{where}.{k}", depth + 1) for k, v in encoded.items()}
    tag = tags[0]
    body = encoded[tag]
    if tag in ("$bytes", "$bytearray", "$tuple", "$dict"):
        _check_not_plain(template, tag[1:], where)
    if tag in ("$bytes", "$bytearray"):
        data = _uint8(body, where).tobytes()
        return data if tag == "$bytes" else bytearray(data)
    if tag == "$scalar":
        if not isinstance(body, np.ndarray) or body.ndim != 0:
            raise StateError(f"{where}: a numpy scalar must be saved as a 0-d array")
        return body[()]
    if tag == "$tuple":
        items = _list(body, where)
        templates = template if isinstance(template, tuple) and len(template) == len(items) else (None,) * len(items)
        return tuple(_import(v, t, f"{where}[{i}]", depth + 1) for i, (v, t) in enumerate(zip(items, templates)))
    if tag == "$dict":
        templates = template if isinstance(template, dict) else {}
        result = {}
        for pair in _list(body, where):
            if not isinstance(pair, list) or len(pair) != 2:
                raise StateError(f"{where}: a $dict holds [key, value] pairs")
            key = _import(pair[0], None, where, depth + 1)
            if isinstance(key, (list, dict, np.ndarray, set, bytearray)):
                raise StateError(f"{where}: unhashable key")
            result[key] = _import(pair[1], templates.get(key), f"{where}[{key!r}]", depth + 1)
        return result
    if tag == "$enum":
        cls = own_class(body, where)
        if not issubclass(cls, enum.Enum):
            raise StateError(f"{where}: {body} is not an enumeration")
        try:
            return cls(encoded.get("value"))
        except (ValueError, TypeError):
            raise StateError(f"{where}: {encoded.get('value')!r} is not a {cls.__name__}") from None
    if tag == "$object":
        cls = own_class(body, where)
        if issubclass(cls, (enum.Enum, BaseException)):
            raise StateError(f"{where}: {body} is not a kind of object a state holds")
        attrs = encoded.get("attrs")
        if not isinstance(attrs, dict):
            raise StateError(f"{where}: an object's attrs must be a mapping")
        if type(template) is cls:
            _load_attributes(template, attrs, where, strict=True, depth=depth)
            return template
        if template is not None and not isinstance(template, (int, float, str)):
            raise StateError(f"{where}: saved a {cls.__name__}, expected a {type(template).__name__}")
        made = cls.__new__(cls)
        _load_attributes(made, attrs, where, strict=False, depth=depth)
        return made
    raise StateError(f"{where}: unknown tag {tag!r}")


def _check_not_plain(template: Any, saved_as: str, where: str) -> None:
    """A container never replaces a flag, a number or a text (a count saved
    as a list would reach the arithmetic that reads it)."""
    if type(template) in (bool, int, float, str):
        raise StateError(f"{where}: saved as a {saved_as}, expected {type(template).__name__}")


def _same_kind(value: Any, template: Any) -> bool:
    """Whether a plain value may replace ``template``: a flag a flag, text
    text, a number a number (a count may have become a float sum); an
    attribute that is None in a fresh object may hold anything."""
    if template is None or type(template) not in (bool, int, float, str):
        return True
    if type(template) in (int, float):
        return type(value) in (int, float)
    return type(value) is type(template)


def _uint8(body: Any, where: str) -> np.ndarray:
    if not isinstance(body, np.ndarray) or body.dtype != np.uint8 or body.ndim != 1:
        raise StateError(f"{where}: bytes must be saved as a 1-d uint8 array")
    return body


def _list(body: Any, where: str) -> list:
    if not isinstance(body, list):
        raise StateError(f"{where}: expected a list")
    return body


def own_class(name: Any, where: str = "state") -> type:
    """The class ``module:Qualname`` of the closed table ``state_classes()``;
    any other name is refused, so a saved state cannot name code to run."""
    if not isinstance(name, str):
        raise StateError(f"{where}: bad class name {name!r}")
    cls = state_classes().get(name)
    if cls is None:
        raise StateError(f"{where}: {name[:100]!r} is not one of the classes a randqa state holds")
    return cls


@lru_cache(maxsize=1)
def state_classes() -> dict[str, type]:
    """Every class a state may name, by ``module:Qualname``: those defined in
    the battery's modules (its tests and their shared machinery) and in
    ``_STATE_MODULES``.  The modules come from randqa's own list, imported
    here by randqa, never from a name found in a saved state."""
    package = __name__.rpartition(".")[0]  # the battery, listed from its folder without importing it here
    folder = str(Path(__file__).parent)
    names = [f"{package}.{m.name}" for m in pkgutil.iter_modules([folder])] + list(_STATE_MODULES)
    table: dict[str, type] = {}
    for module_name in names:
        module = importlib.import_module(module_name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module_name:
                table[_class_name(value)] = value
    return table


# --------------------------------------------------------------------------
# A tree as a JSON document plus named arrays


def to_document(tree: Any, arrays: dict[str, np.ndarray]) -> Any:
    """``tree`` with every array moved into ``arrays`` (named ``a0``, ``a1``, ...)
    and replaced by ``{"$array": name}``: the rest is JSON."""
    if isinstance(tree, np.ndarray):
        name = f"a{len(arrays)}"
        arrays[name] = tree
        return {"$array": name}
    if isinstance(tree, list):
        return [to_document(v, arrays) for v in tree]
    if isinstance(tree, dict):
        return {k: to_document(v, arrays) for k, v in tree.items()}
    return tree


def from_document(doc: Any, arrays: Any, depth: int = 0) -> Any:
    """The inverse of :func:`to_document`; ``arrays`` maps names to arrays (an npz)."""
    if depth > MAX_DEPTH:
        raise StateError(f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(doc, list):
        return [from_document(v, arrays, depth + 1) for v in doc]
    if isinstance(doc, dict):
        if set(doc) == {"$array"}:
            name = doc["$array"]
            if not isinstance(name, str) or name not in arrays:
                raise StateError(f"array {str(name)[:40]!r} is missing")
            return arrays[name]
        return {k: from_document(v, arrays, depth + 1) for k, v in doc.items()}
    if doc is None or type(doc) in (bool, int, float, str):
        return doc
    raise StateError(f"a {type(doc).__name__} is not state")


def array_names(doc: Any, depth: int = 0) -> list[str]:
    """The names of the arrays a document refers to (``{"$array": name}``), in order."""
    if depth > MAX_DEPTH:
        raise StateError(f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(doc, list):
        return [name for v in doc for name in array_names(v, depth + 1)]
    if isinstance(doc, dict):
        if set(doc) == {"$array"}:
            return [doc["$array"]] if isinstance(doc["$array"], str) else []
        return [name for v in doc.values() for name in array_names(v, depth + 1)]
    return []
