"""The options of the commands that interleave streams of one generator
(``test``, ``compare``, ``generate``): ``--streams``, ``--stream-seeds``,
``--interleave`` (randqa/sources/multistream.py)."""

from __future__ import annotations

from typing import Any

import click

from randqa.cli.common import size_option
from randqa.engine.options import option_type

SCHEME_HELP = ("consecutive (seed, seed+1, ... through the generator's own seeding), spaced:D (seed + i*D), "
               "bitflip (seeds one bit apart, a Gray-code walk), jump (the generator's own jump, else randqa's "
               "jump by 2^64 outputs), spawn (numpy SeedSequence.spawn), or module:attr naming f(seed, k) that "
               "returns the K BitGenerators")


def stream_options(command: Any = None, *, several_schemes: bool = False) -> Any:
    """--streams, --stream-seeds and --interleave; with ``several_schemes``
    (compare) --stream-seeds may be given more than once."""
    options = [
        click.option("--streams", type=option_type("streams"), metavar="K",
                     help="Test K streams of the generator: interleaved, each alone, and each pair's XOR "
                          "(the quick suite's tests)."),
        click.option("--stream-seeds", "stream_seeds", metavar="SCHEME", multiple=several_schemes,
                     help="How the K streams are seeded: " + SCHEME_HELP + "."
                          + (" Give it several times to compare schemes side by side." if several_schemes else "")),
        click.option("--interleave", callback=size_option, metavar="BYTES",
                     help="Bytes of one stream before the next stream's (default: the generator's word size)."),
    ]

    def decorate(target: Any) -> Any:
        for option in reversed(options):
            target = option(target)
        return target

    return decorate(command) if command is not None else decorate
