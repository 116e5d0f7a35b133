"""Sources of bytes: stdin, files, generators and Python objects, all opened
by :func:`open_source` (randqa.sources.opening).

Everything downstream sees only :class:`Source`, so any test or report works
on any source unchanged; what a source can do (its split method, its size,
``open_at``) it answers itself.
"""

from __future__ import annotations

from randqa.sources.backends import backend_names, open_backend, open_named_backend
from randqa.sources.base import Source, read_full
from randqa.sources.opening import FORMATS, open_source, seed_for
from randqa.sources.streams import BitTextStream, ByteStream, is_data_spec

__all__ = ["FORMATS", "Source", "read_full", "open_source", "ByteStream", "BitTextStream", "backend_names",
           "open_backend", "open_named_backend", "is_data_spec", "seed_for"]
