"""``randqa test`` and ``randqa suites``: test one source with a suite."""

from __future__ import annotations

import click

from randqa import engine
from randqa.cli.common import (EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, check_output_path, command_line, size_option,
                               table_stream)
from randqa.cli.workers import launch_run, parallel_options
from randqa.errors import UsageError
from randqa.report.json_report import write_json
from randqa.report.terminal import render_run
from randqa.results import RunResult, Verdict
from randqa.sources import FORMATS, is_data_spec, open_source
from randqa.battery.suites import DEFAULT_SUITE, load_suite, suite_names

#: how much of an endless generator `randqa test NAME` reads without -n
DEFAULT_GENERATOR_BYTES = 64 << 20
#: where `randqa test NAME --progressive` stops without --max
PROGRESSIVE_GENERATOR_MAX = 1 << 30


@click.command("test")
@click.argument("source", metavar="SOURCE")
@click.option("-n", "--bytes", "size", callback=size_option, metavar="SIZE",
              help="Test this much (1000, 64K, 16MiB, 2G; binary suffixes). Counts bits with --format bits. "
                   "Default: all of a file or stdin, 64 MiB of a generator.")
@click.option("--seed", type=click.IntRange(min=0), help="Seed of a generator backend (default: drawn from the OS and recorded).")
@click.option("--suite", default=DEFAULT_SUITE, show_default=True, help="Suite name (see `randqa suites`) or path of a suite TOML file.")
@click.option("--tests", "test_names", metavar="A,B", help="Run only these tests of the suite.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="bytes", show_default=True,
              help="bytes: raw binary. bits: ASCII '0'/'1' text as NIST STS reads it.")
@click.option("--word-bits", type=click.Choice(["8", "16", "32", "64"]),
              help="Fold: every test reads only the low --low-bits bits of each word of this size (PractRand's [Low1/8]).")
@click.option("--low-bits", type=click.IntRange(min=1, max=63),
              help="With --word-bits: how many low bits of each word to keep (default 1).")
@click.option("--sequences", type=click.IntRange(min=1), metavar="K",
              help="For suites that test sequences (nist-sp800-22): test K sequences and give STS's second-level analysis.")
@click.option("--progressive", is_flag=True, help="Test doubling lengths from --min to --max; stop at the first failure.")
@click.option("--min", "min_size", callback=size_option, metavar="SIZE", default="1K", show_default=True,
              help="First length of --progressive.")
@click.option("--max", "max_size", callback=size_option, metavar="SIZE",
              help="Last length of --progressive (default: -n; else 1 GiB of a generator, or all of stdin or a file).")
@click.option("--keep-going", is_flag=True, help="With --progressive, go on to --max after a failure.")
@click.option("--seed-sweep", "seed_sweep", type=click.IntRange(min=2), metavar="K",
              help="Test the starts of K streams seeded --seed, --seed+1, ... (generators only; see randqa/seed_sweep.py).")
@click.option("--positions", type=click.IntRange(min=1, max=4096), default=256, show_default=True,
              help="Bytes read from the start of each stream by --seed-sweep.")
@click.option("--json", "json_path", metavar="PATH", help="Write the results as JSON to PATH ('-' for stdout).")
@click.option("--html", "html_path", metavar="PATH", help="Write a self-contained HTML report to PATH.")
@parallel_options
@click.option("--progress/--no-progress", default=None, help="Progress bar on stderr (default: when stderr is a terminal).")
def test_command(source: str, size: int | None, seed: int | None, suite: str, test_names: str | None, fmt: str,
                 word_bits: str | None, low_bits: int | None, sequences: int | None, progressive: bool, min_size: int, max_size: int | None, keep_going: bool,
                 seed_sweep: int | None, positions: int, json_path: str | None, html_path: str | None, jobs: int,
                 scheduler: str | None, segment: int | None, checkpoint: str | None, checkpoint_every: float,
                 progress: bool | None) -> int:
    """Test SOURCE: '-' for stdin, a file path, or a generator name (`randqa list`)."""
    check_output_path(json_path, "--json")
    check_output_path(html_path, "--html")
    chosen = load_suite(suite, tests=test_names)
    if low_bits is not None and not word_bits:
        raise UsageError("--low-bits needs --word-bits")
    low_bits = low_bits or 1
    if sequences is not None:
        if chosen.sequence_bytes is None:
            raise UsageError(f"--sequences needs a suite that tests sequences; {chosen.name!r} does not")
        if size is not None:
            raise UsageError("give either --sequences or -n/--bytes, not both")
        size = sequences * chosen.sequence_bytes * (8 if fmt == "bits" else 1)  # -n counts bits of bit text
    if progressive and fmt != "bytes":
        raise UsageError("--progressive reads bytes; it does not take --format bits")
    from randqa.engine.checkpoint import RunSpec, suite_to_json
    from randqa.engine.launch import identity_of

    check_output_path(checkpoint, "--checkpoint")
    if seed_sweep is not None:
        if progressive or size is not None or word_bits or fmt != "bytes":
            raise UsageError("--seed-sweep reads --positions bytes of each seeded stream: it takes no --progressive, -n, --word-bits or --format")
        _check_sweepable(source)
        run = RunSpec(kind="seed-sweep", source=source, suite=suite_to_json(chosen), seed=seed or 0, segment=segment,
                      seed_sweep={"seeds": seed_sweep, "positions": positions, "base_seed": seed or 0})
    else:
        if word_bits and fmt != "bytes":
            raise UsageError("--word-bits folds bytes; it does not take --format bits")
        endless = not is_data_spec(source)
        progression = None
        if progressive:
            # stdin and files: until the data ends
            last = max_size or size or (PROGRESSIVE_GENERATOR_MAX if endless else engine.UNTIL_END)
            if min_size > last:
                raise UsageError(f"--min ({min_size}) is larger than --max ({last})")
            progression = {"min_bytes": min_size, "max_bytes": last, "keep_going": keep_going}
            size = None
        elif size is None and endless:
            size = DEFAULT_GENERATOR_BYTES
        run = RunSpec(kind="test", source=source, suite=suite_to_json(chosen), seed=seed, fmt=fmt,
                      fold=[int(word_bits), low_bits] if word_bits else None, limit=size, progressive=progression,
                      segment=segment, identity=identity_of(source, fmt))
    result = launch_run(run, jobs=jobs, scheduler=scheduler, checkpoint=checkpoint, checkpoint_every=checkpoint_every,
                        outputs={"json": json_path, "html": html_path}, progress=progress)
    return _report_run(result, json_path, html_path)


def _check_sweepable(source: str) -> None:
    from randqa.sources import backend_names

    if source not in backend_names():
        with open_source(source):  # a clear error for unknown names; stdin and files cannot be re-seeded
            pass
        raise UsageError("--seed-sweep needs a generator backend (randqa list), not stdin or a file")


def _report_run(result: RunResult, json_path: str | None, html_path: str | None) -> int:
    """Print the table, write JSON/HTML, and return the exit code of a run."""
    from randqa.report.environment import environment

    result.extra["command"] = command_line()
    result.extra.update(environment())
    print(render_run(result), file=table_stream(json_path), flush=True)
    doc = result.to_json()
    if json_path:
        write_json(doc, json_path)
    if html_path:
        from randqa.report.html import write_html_report

        write_html_report([doc], html_path)
    if result.interrupted:
        return EXIT_INTERRUPTED
    return EXIT_FAILED if result.verdict == Verdict.FAIL else EXIT_OK


@click.command("suites")
def suites_command() -> int:
    """List the suites shipped with randqa."""
    for name in suite_names():
        s = load_suite(name)
        print(f"{name:<16} {len(s.tests):>3} tests  {s.description}")
    return EXIT_OK


COMMANDS: list[click.Command] = [test_command, suites_command]
