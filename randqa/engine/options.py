"""The options of ``randqa test`` and ``randqa compare`` and the keywords of
``randqa.test`` and ``randqa.compare``, declared once: flags, range or
choices, default, help and metavar.  The CLI's decorators are made here
(:func:`click_option`), the API's defaults come from here
(:func:`api_defaults`), and the API's keywords are checked by converting
through the same click types (:func:`check_value`), so a bad value gets
click's own line whichever way it came.

Options of the CLI alone (--max-memory, --scheduler, --checkpoint, ...) keep
their decorators next to their commands: nothing else declares them."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from typing import Any, Callable

import click

from randqa.battery.suites import DEFAULT_SUITE
from randqa.engine.read_options import DEFAULT_PROGRESSIVE_MIN
from randqa.engine.records import DEFAULT_CHECKPOINT_EVERY_S
from randqa.engine.parallel import SCHEDULER_TIMEOUT_S
from randqa.errors import UsageError
from randqa.folding import WORD_BITS
from randqa.interleaving import MAX_INTERLEAVE, MAX_STREAMS
from randqa.sizes import parse_size
from randqa.sources import FORMATS
from randqa.speed.generation import REPEATS as SPEED_REPEATS

#: how many worker processes (--jobs) or threads (the API's threads) a run may use
_PARALLEL_RANGE = click.IntRange(min=1, max=256)

class FiniteFloatRange(click.FloatRange):
    """A float in a range that is a number: click's FloatRange lets NaN
    through (no comparison holds for it) and takes inf at an open end."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


#: the most digits a seed may have: the seeds a run derives from it (stream
#: K's base + K D with a spaced:D of as many digits, a sweep's base + K) stay
#: within the 300 digits `randqa report` reads back from a run's JSON
MAX_SEED_DIGITS = 256


class SeedRange(click.IntRange):
    """A seed: a whole number >= 0 of at most MAX_SEED_DIGITS digits."""

    def __init__(self) -> None:
        super().__init__(min=0)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        seed = super().convert(value, param, ctx)
        if seed >= 10 ** MAX_SEED_DIGITS:
            self.fail(f"a seed has at most {MAX_SEED_DIGITS} digits, not {len(str(seed))}.", param, ctx)
        return seed


#: an Option's cli_default when the CLI's default is the API's
SAME_DEFAULT: Any = object()


def size_option(ctx: click.Context | None, param: click.Parameter | None, value: str | None) -> int | None:
    """click callback turning '64K' etc. into an int (UsageError naming the option on nonsense)."""
    if value is None:
        return None
    try:
        return parse_size(value)
    except UsageError as exc:
        if param is None or not param.opts:
            raise
        raise UsageError(f"{'/'.join(param.opts)}: {exc}") from None


@dataclass(frozen=True)
class Option:
    """One option: the CLI's flags and the API's keyword (the table's key) for the same value."""

    #: the CLI's flags ("--x/--no-x" for a pair); none: a keyword of the API alone
    flags: tuple[str, ...] = ()
    help: str = ""
    #: the click type that holds its range or choices
    type: click.ParamType | None = None
    #: the API's default, and the CLI's unless cli_default says otherwise
    default: Any = None
    cli_default: Any = SAME_DEFAULT
    metavar: str | None = None
    show_default: bool | str = False
    #: the CLI command's parameter when it is not the keyword
    dest: str | None = None
    #: a size the CLI parses ('64K'); the API takes a whole number too
    size: bool = False
    is_flag: bool = False
    #: the CLI takes it more than once (a tuple of values)
    multiple: bool = False

    def click_option(self, keyword: str) -> click.Option:
        """The option as click declares it (the line of a bad value names its flags)."""
        return click.Option([*self.flags, self.dest or keyword], type=self.type)


#: the --stream-seeds schemes (randqa/sources/multistream.py)
SCHEME_HELP = ("consecutive (seed, seed+1, ... through the generator's own seeding), spaced:D (seed + i*D), "
               "bitflip (seeds one bit apart, a Gray-code walk), jump (the generator's own jump, else randqa's "
               "jump by 2^64 outputs), spawn (numpy SeedSequence.spawn), or module:attr naming f(seed, k) that "
               "returns the K BitGenerators")

_SIZE_HELP = "Test this much (1000, 64K, 16MiB, 2G; binary suffixes)."

#: keyword -> its declaration
OPTIONS: dict[str, Option] = {
    "n": Option(("-n", "--bytes"), dest="size", size=True, metavar="SIZE",
                help=_SIZE_HELP + " Counts bits with --format bits. Default: all of a file or stdin, 64 MiB of a "
                                  "generator."),
    "seed": Option(("--seed",), type=SeedRange(),
                   help="Seed of a generator backend (default: drawn from the OS and recorded)."),
    "suite": Option(("--suite",), default=DEFAULT_SUITE, show_default=True,
                    help="Suite name (see `randqa suites`) or path of a suite TOML file."),
    "tests": Option(("--tests",), dest="test_names", metavar="A,B", help="Run only these tests of the suite."),
    "format": Option(("--format",), dest="fmt", type=click.Choice(FORMATS), default="bytes", show_default=True,
                     help="bytes: raw binary. bits: ASCII '0'/'1' text as NIST STS reads it."),
    "word_bits": Option(("--word-bits",), type=click.Choice([str(bits) for bits in WORD_BITS]),
                        help="Fold: every test reads only the low --low-bits bits of each word of this size "
                             "(PractRand's [Low1/8])."),
    "low_bits": Option(("--low-bits",), type=click.IntRange(min=1, max=63),
                       help="With --word-bits: how many low bits of each word to keep (default 1)."),
    "sequences": Option(("--sequences",), type=click.IntRange(min=1), metavar="K",
                        help="For suites that test sequences (nist-sp800-22): test K sequences and give STS's "
                             "second-level analysis."),
    "progressive": Option(("--progressive",), default=False, is_flag=True,
                          help="Test doubling lengths from --min to --max; stop at the first failure."),
    "min": Option(("--min",), dest="min_size", size=True, metavar="SIZE", cli_default=f"{DEFAULT_PROGRESSIVE_MIN >> 10}K", show_default=True,
                  help="First length of --progressive."),
    "max": Option(("--max",), dest="max_size", size=True, metavar="SIZE",
                  help="Last length of --progressive (default: -n; else 1 GiB of a generator, or all of stdin or "
                       "a file)."),
    "keep_going": Option(("--keep-going",), default=False, is_flag=True,
                         help="With --progressive, go on to --max after a failure."),
    "seed_sweep": Option(("--seed-sweep",), type=click.IntRange(min=2), metavar="K",
                         help="Test the starts of K streams seeded --seed, --seed+1, ... (generators only; see "
                              "randqa/engine/seed_sweep.py)."),
    "positions": Option(("--positions",), type=click.IntRange(min=1, max=4096), default=256, show_default=True,
                        help="Bytes read from the start of each stream by --seed-sweep."),
    "json": Option(("--json",), dest="json_path", metavar="PATH",
                   help="Write the results as JSON to PATH ('-' for stdout)."),
    "html": Option(("--html",), dest="html_path", metavar="PATH", help="Write a self-contained HTML report to PATH."),
    "jobs": Option(("-j", "--jobs"), type=_PARALLEL_RANGE, default=os.cpu_count() or 1,
                   show_default="every core",
                   help="At most this many workers: a long run's segments are tested side by side in this many "
                        "threads of this process (with --segment, or a seed sweep: an embedded Dask cluster of "
                        "worker processes, started in the background); a short run's tests are spread over this "
                        "many threads (randqa/engine/run_mode.py; 1: all in one thread)."),
    # the API runs in this process: its threads have the range of --jobs
    "threads": Option(type=_PARALLEL_RANGE, default=1),
    "progress": Option(("--progress/--no-progress",), default=False, cli_default=None,
                       help="Progress bar on stderr (default: when stderr is a terminal)."),
    "name": Option(),
    "streams": Option(("--streams",), type=click.IntRange(min=2, max=MAX_STREAMS), metavar="K",
                      help="Test K streams of the generator: interleaved, each alone, and each pair's XOR (the "
                           "quick suite's tests)."),
    "stream_seeds": Option(("--stream-seeds",), metavar="SCHEME", help=f"How the K streams are seeded: {SCHEME_HELP}."),
    "interleave": Option(("--interleave",), type=click.IntRange(min=1, max=MAX_INTERLEAVE), size=True,
                         metavar="BYTES",
                         help="Bytes of one stream before the next stream's (default: the generator's word size)."),
    "speed_repeats": Option(("--speed-repeats",), type=click.IntRange(min=1), default=SPEED_REPEATS, show_default=True,
                            help="Timed speed runs per generator; the median is reported."),
    "predict": Option(("--predict/--no-predict",), dest="run_predictors", default=True, show_default=True,
                      help="Run randqa predict's predictors on each source: the table's 'predictable from' column."),
    "scheduler_timeout": Option(("--scheduler-timeout",), type=FiniteFloatRange(min=0, min_open=True, max=3600),
                                default=SCHEDULER_TIMEOUT_S, show_default=True, metavar="SECONDS",
                                help="Seconds for the scheduler to answer, and again for a worker to join; past them "
                                     "the run ends with one line (exit 2)."),
    "checkpoint_every": Option(("--checkpoint-every",), type=FiniteFloatRange(min=0),
                               default=DEFAULT_CHECKPOINT_EVERY_S, show_default=True, metavar="SECONDS",
                               help="Seconds between checkpoints (one is also written at exit)."),
    # its choices and their help are randqa.engine.compare's presets: `randqa compare` gives them
    "preset": Option(("--preset",), metavar="NAME"),
}


def option_type(name: str) -> click.ParamType:
    """The click type of option ``name``: its range or its choices."""
    kind = OPTIONS[name].type
    assert kind is not None, name
    return kind


def click_option(keyword: str, **changes: Any) -> Callable[[Any], Any]:
    """The click decorator of option ``keyword``; ``changes`` replace fields
    of its declaration where a command words or defaults it otherwise."""
    option = replace(OPTIONS[keyword], **changes)
    if not option.flags:
        raise ValueError(f"{keyword} is a keyword of the API alone")
    default = option.default if option.cli_default is SAME_DEFAULT else option.cli_default
    settings: dict[str, Any] = {"help": option.help, "default": default}
    if option.is_flag:
        settings["is_flag"] = True
    if option.multiple:
        settings["multiple"] = True
    if option.size:
        settings["callback"] = size_option  # the range, if any, is checked with the other values
    elif option.type is not None:
        settings["type"] = option.type
    if option.metavar is not None:
        settings["metavar"] = option.metavar
    if option.show_default:
        settings["show_default"] = option.show_default
    declarations = [*option.flags] + ([option.dest] if option.dest else [])
    return click.option(*declarations, **settings)


def api_defaults(*keywords: str, **changes: Any) -> dict[str, Any]:
    """The API's default of each of ``keywords`` (``changes``: a function's own)."""
    return {keyword: changes[keyword] if keyword in changes else OPTIONS[keyword].default for keyword in keywords}


def check_value(name: str, value: Any) -> None:
    """UsageError with click's line unless ``value`` (when given) is one
    option ``name`` takes (a choice's value as its text: ``--word-bits 12``)."""
    if value is None:
        return
    option = OPTIONS[name]
    if option.type is None:
        return
    # a keyword of the API alone has no flags for click's line to name: the line names the keyword
    declared = option.click_option(name) if option.flags else None
    try:
        option.type.convert(str(value) if isinstance(option.type, click.Choice) else value, declared, None)
    except click.BadParameter as exc:
        raise UsageError(exc.format_message() if declared else f"Invalid value for {name}: {exc.message}") from None
