"""The options of the commands that interleave streams of one generator
(``test``, ``compare``, ``generate``): ``--streams``, ``--stream-seeds``,
``--interleave`` (randqa/sources/multistream.py)."""

from __future__ import annotations

from typing import Any

from randqa.engine.options import OPTIONS, click_option


def stream_options(command: Any = None, *, several_schemes: bool = False) -> Any:
    """--streams, --stream-seeds and --interleave; with ``several_schemes``
    (compare) --stream-seeds may be given more than once."""
    options = [
        click_option("streams"),
        click_option("stream_seeds", multiple=several_schemes, help=OPTIONS["stream_seeds"].help
                     + (" Give it several times to compare schemes side by side." if several_schemes else "")),
        click_option("interleave"),
    ]

    def decorate(target: Any) -> Any:
        for option in reversed(options):
            target = option(target)
        return target

    return decorate(command) if command is not None else decorate
