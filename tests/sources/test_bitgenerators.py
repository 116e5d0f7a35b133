"""A numpy BitGenerator named as module:attribute is a backend, written as
the named numpy backends write it (32-bit raw outputs as 4 bytes).
"""

from __future__ import annotations

import pytest

from randqa.errors import UsageError
from randqa.sources.backends import open_backend
from reference_generators import backend_stream


def test_module_attribute_bitgenerator():
    assert backend_stream("numpy.random:PCG64", 5, 4096) == backend_stream("pcg64", 5, 4096)
    # 32-bit raw outputs are written as 4 bytes, as mt19937-numpy is
    assert backend_stream("numpy.random:MT19937", 5, 4096) == backend_stream("mt19937-numpy", 5, 4096)
    with pytest.raises(UsageError, match="cannot import"):
        open_backend("no_such_module_xyz:Gen", 1)
