"""The options whose values have a range or a set of choices, declared once
as click declares them.  The CLI's decorators take their types from here,
and the API's keywords are checked by converting through the same types, so
a bad value gets click's own line whichever way it came."""

from __future__ import annotations

from typing import Any

import click

from randqa.errors import UsageError
from randqa.folding import WORD_BITS
from randqa.interleaving import MAX_INTERLEAVE, MAX_STREAMS
from randqa.sources import FORMATS

#: option (the API's keyword) -> its flags and the type that holds its range or choices
OPTIONS: dict[str, click.Option] = {option.name or "": option for option in [
    click.Option(["--seed", "seed"], type=click.IntRange(min=0)),
    click.Option(["--format", "format"], type=click.Choice(FORMATS)),
    click.Option(["--word-bits", "word_bits"], type=click.Choice([str(bits) for bits in WORD_BITS])),
    click.Option(["--low-bits", "low_bits"], type=click.IntRange(min=1, max=63)),
    click.Option(["--sequences", "sequences"], type=click.IntRange(min=1)),
    click.Option(["--seed-sweep", "seed_sweep"], type=click.IntRange(min=2)),
    click.Option(["--positions", "positions"], type=click.IntRange(min=1, max=4096)),
    click.Option(["-j", "--jobs", "jobs"], type=click.IntRange(min=1, max=256)),
    click.Option(["--streams", "streams"], type=click.IntRange(min=2, max=MAX_STREAMS)),
    click.Option(["--interleave", "interleave"], type=click.IntRange(min=1, max=MAX_INTERLEAVE)),
    click.Option(["--speed-repeats", "speed_repeats"], type=click.IntRange(min=1)),
]}


def option_type(name: str) -> click.ParamType:
    """The click type of option ``name``: its range or its choices."""
    return OPTIONS[name].type


def check_value(name: str, value: Any) -> None:
    """UsageError with click's line unless ``value`` (when given) is one
    option ``name`` takes (a choice's value as its text: ``--word-bits 12``)."""
    if value is None:
        return
    option = OPTIONS[name]
    try:
        option.type.convert(str(value) if isinstance(option.type, click.Choice) else value, option, None)
    except click.BadParameter as exc:
        raise UsageError(exc.format_message()) from None
