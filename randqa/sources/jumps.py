"""The arithmetic of jumping ahead, shared by the generators that own a jump
(each generator picks its own in its module, next to its constants).

- closed-form LCG steps ``x -> A x + C`` (:func:`lcg_jump`; moduli up to
  2^64 run in ``_jump.lcg``);
- ``x^n mod p(x)`` for the characteristic polynomial ``p`` of a GF(2)-linear
  recurrence, applied to the state by Horner's rule: MT19937
  (:func:`mt19937_jump`) and the kinds of ``_jump.F2_KINDS`` (:func:`f2_jump`);
- powers of a 32x32 bit matrix (``_jump.xorshift32``, ``_jump.lfsr113``) and
  glibc's additive recurrence over Z/2^32 (``_jump.glibc_additive``).

The kernels are in ``_jump.c``; tests/sources/test_segments.py checks every
generator's jump against its sequential stream.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from randqa.sources import _jump


@lru_cache(maxsize=1)
def _mt_poly() -> np.ndarray:
    poly = np.zeros(_jump.MT_POLY_WORDS, dtype=np.uint64)
    _jump.mt19937_charpoly(poly)
    poly.setflags(write=False)
    return poly


def mt19937_jump(key: np.ndarray, pos: int, n: int) -> np.ndarray:
    """MT19937's mt[] (624 words) and index ``pos`` -> the mt[] whose outputs,
    from index 0, are the stream from ``n`` outputs on."""
    out = np.empty(624, dtype=np.uint32)
    _jump.mt19937(np.ascontiguousarray(key, dtype=np.uint32), int(pos), int(n), _mt_poly(), out)
    return out


@lru_cache(maxsize=None)
def _f2_poly(kind: str) -> np.ndarray:
    poly = np.zeros(_jump.F2_KINDS[kind][1], dtype=np.uint64)
    _jump.f2_charpoly(kind, poly)
    poly.setflags(write=False)
    return poly


def f2_jump(kind: str, state: np.ndarray, n: int) -> np.ndarray:
    """The state (uint64 words) of a GF(2)-linear generator of ``_jump.F2_KINDS``, ``n`` steps on."""
    out = np.empty(_jump.F2_KINDS[kind][0], dtype=np.uint64)
    _jump.f2_jump(kind, np.ascontiguousarray(state, dtype=np.uint64), int(n), _f2_poly(kind), out)
    return out


def mt19937_64_jump(key: np.ndarray, pos: int, n: int) -> np.ndarray:
    """MT19937-64's mt[] (312 words) and index ``pos`` -> the mt[] of the stream ``n`` outputs on."""
    window = np.empty(312, dtype=np.uint64)
    _jump.mt19937_64_window(np.ascontiguousarray(key, dtype=np.uint64), int(pos), window)
    return f2_jump("mt19937-64", window, n)


def lcg_jump(x: int, a: int, c: int, modulus: int, n: int) -> int:
    """x after n steps of x -> a x + c (mod ``modulus``): ``_jump.lcg`` up to
    64-bit moduli, Python integers beyond (the step map squared per bit of n)."""
    if modulus <= 1 << 64:
        return int(_jump.lcg(x, a, c, modulus, n))
    big_a, big_c = 1, 0  # the map of the steps taken so far: x -> A x + C
    while n:
        if n & 1:
            big_a, big_c = big_a * a % modulus, (big_c * a + c) % modulus
        a, c = a * a % modulus, c * (a + 1) % modulus
        n >>= 1
    return (big_a * x + big_c) % modulus
