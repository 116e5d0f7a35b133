"""Your own generator, in each form randqa tests, from the command line and
from Python alike (``randqa test --help``; docs: "Testing your generator").

Stand in this folder (or copy this file into yours) and run::

    randqa test ./mygen.py:MyGen --seed 1 -n 16M    # a class with random_raw: MyGen(seed)
    randqa test mygen:MyGen --seed 1 -n 16M         # the same, by module name
    randqa test ./mygen.py:MyPCG --seed 1 -n 16M    # a numpy BitGenerator class: MyPCG(seed)
    randqa test ./mygen.py:rng -n 16M               # a BitGenerator instance, from its state
    randqa test ./mygen.py:my_splitmix -n 16M       # an object with random_raw, from its state
    randqa test ./mygen.py:my_bytes -n 16M          # a function f(k) -> bytes
    randqa test ./mygen.py:make --seed 1 -n 16M     # a function make(seed): make(1)

or, from Python::

    import randqa
    import mygen

    randqa.test(mygen.MyGen, "16M", seed=1)         # the same statistics as the first command
    randqa.test(mygen.my_bytes, "16M")              # ... as the my_bytes command (in a fresh process)
    randqa.test("./mygen.py:MyGen", "16M", seed=1)  # the command line's spec works here too

A class (and ``make(seed)``) is constructed with the seed; an instance is
tested from its current state and a function ``f(k)`` is called with the
number of bytes wanted, so neither takes a seed.  ``random_raw(n)`` returns
``n`` integer words, written as little-endian bytes (4 per word when every
word is below 2**32, else 8).
"""

from __future__ import annotations

import numpy as np

GAMMA = np.uint64(0x9E3779B97F4A7C15)


def splitmix64(counters: np.ndarray) -> np.ndarray:
    """SplitMix64's output function (Steele, Lea & Flood 2014) of an array of counter values."""
    with np.errstate(over="ignore"):
        z = counters * GAMMA
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


class MyGen:
    """A class whose instances have random_raw(size): 64-bit words, as numpy's BitGenerators give them.
    randqa constructs it with the seed: ``MyGen(seed)``."""

    def __init__(self, seed: int = 0) -> None:
        self.counter = np.uint64(seed) << np.uint64(32)

    def random_raw(self, size: int | None = None) -> np.ndarray | np.uint64:
        count = 1 if size is None else int(size)
        with np.errstate(over="ignore"):
            counters = self.counter + np.arange(1, count + 1, dtype=np.uint64)
        self.counter = counters[-1]
        words = splitmix64(counters)
        return words[0] if size is None else words


class MyPCG(np.random.PCG64):
    """A numpy BitGenerator class (numpy's PCG64 under your own name): ``MyPCG(seed)``."""


#: a numpy BitGenerator instance: tested from the state it is in (a copy, so this one keeps it)
rng = np.random.PCG64(2026)

#: an object with random_raw: tested from its current state, as a BitGenerator instance is
my_splitmix = MyGen(seed=7)

_stream = MyGen(seed=1)


def my_bytes(k: int) -> bytes:
    """A function f(k) returning up to k bytes: the next k bytes of one stream."""
    return _stream.random_raw((k + 7) // 8).tobytes()[:k]


def make(seed: int) -> MyGen:
    """A function make(seed) (its first parameter named seed) returning a generator: called with the seed."""
    return MyGen(seed)
