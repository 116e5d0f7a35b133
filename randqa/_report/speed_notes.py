"""What the speed numbers say, in words: footnotes naming how each speed was
measured, nmap-dev's ranking next to the mail's (B. Enright's PRNG benchmark
mail to nmap-dev, 2008; randqa/speed/nmap.py), the answer to the mail's
question from a compare run, and the same question asked of the language
runtimes' own generators (``randqa compare --preset runtimes``).  Rendering only: everything is computed from
numbers already measured (randqa.speed) and saved in the documents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from randqa.results import Verdict
from randqa.run_result import RunResult
from randqa.sizes import format_size

#: what the feed column (``generation_mb_s``) means
FEED_NOTE = ("how fast randqa's own source feeds the tests; for glibc rand() and the runtimes' generators "
             "randqa's bit-exact reimplementation, not the speed applications get")

#: the mail's five options as randqa backends, in the mail's order
#: (randqa.speed.nmap.NMAP_OPTIONS has their harness and the mail's times)
NMAP_MAIL_BACKENDS = ("urandom", "openssl", "glibc-rand-byte", "glibc-rand-short", "dnet-arc4")

#: where the rc4 suite's fluhrer_mcgrew first fails one long stream of each
#: ARC4 option (docs/suites.md, suite rc4); the length depends on the seed: one
#: dnet-arc4 run was suspicious at 16 GiB and failed at 32 GiB
ARC4_LONG_STREAM = {
    "dnet-arc4": "16-32 GiB",
    "arc4": "16-32 GiB",
    "arc4-drop": "16-32 GiB",
}
RC4_COMMAND = "randqa test {name} --suite rc4 --tests fluhrer_mcgrew --progressive --min 1G --max 64G"


def format_ratio(x: float) -> str:
    """A ratio with two significant figures, never in exponent form: 0.40x, 4.6x, 29x."""
    return f"{x:.2f}x" if x < 1 else f"{x:.1f}x" if x < 10 else f"{x:.0f}x"


# ---------------------------------------------------------------- footnotes

def speed_of(run: RunResult) -> float | None:
    """A compared run's speed as applications call it (MB/s); None when not measured."""
    return None if run.speed is None else run.speed.speed_mb_s


def method_markers(runs: list[RunResult]) -> dict[str, str]:
    """A footnote letter per distinct speed method of the runs, in order of appearance."""
    markers: dict[str, str] = {}
    for run in runs:
        method = run.speed and run.speed.speed_method
        if method and method not in markers:
            markers[method] = chr(ord("a") + len(markers) % 26)
    return markers


def feed_differs(runs: list[RunResult]) -> bool:
    """Whether any run's feed rate was timed on other code than its speed (glibc rand())."""
    return any(run.speed is not None and None not in (run.speed.generation_mb_s, run.speed.speed_mb_s)
               and run.speed.generation_mb_s != run.speed.speed_mb_s for run in runs)


# ---------------------------------------------------------------- nmap's benchmark

@dataclass
class Ranking:
    """Options fastest first, as (mail label, time / the fastest's time), per machine."""

    here: list[tuple[str, float]]
    xeon: list[tuple[str, float]]
    p4: list[tuple[str, float]]


def _ranked(times: dict[str, float]) -> list[tuple[str, float]]:
    best = min(times.values())
    return [(label, t / best) for label, t in sorted(times.items(), key=lambda kv: kv[1])]


def ranking(times: list[tuple[str, float, float, float]]) -> Ranking:
    """Rank (label, seconds here, mail's Xeon s, mail's P4 s) rows on each machine."""
    return Ranking(_ranked({t[0]: t[1] for t in times}), _ranked({t[0]: t[2] for t in times}),
                   _ranked({t[0]: t[3] for t in times}))


def what_changed(times: list[tuple[str, float, float, float]], reference: str = "dnet_rand") -> str:
    """One sentence, from measured times, on how this machine differs from the mail's."""
    ref = next((t for t in times if t[0] == reference), None)
    if ref is None or len(times) < 2:
        return ""
    ranks = ranking(times)
    here, xeon, p4 = ranks.here[0][0], ranks.xeon[0][0], ranks.p4[0][0]
    if here == xeon == p4:
        lead = f"{here} is fastest here, as on both the mail's machines"
    elif here == xeon:
        lead = f"{here} is fastest here, as on the mail's Xeon (its P4: {p4})"
    elif here == p4:
        lead = f"{here} is fastest here, as on the mail's P4 (its Xeon: {xeon})"
    else:
        lead = f"{here} is fastest here, where the mail's Xeon had {xeon} and its P4 {p4}"
    parts = [f"{label} {format_ratio(s / ref[1])} (Xeon {format_ratio(x / ref[2])})"
             for label, s, x, _ in times if label != reference]
    return f"What changed: {lead}; in multiples of {reference}'s time, " + ", ".join(parts) + "."


# ---------------------------------------------------------------- the answer

def nmap_answer(runs: list[RunResult]) -> list[str]:
    """Lines answering the mail's question from measured compare runs: the
    fastest option as applications call it, the bytes each takes to fail,
    and what the rc4 suite finds on long ARC4 streams.  Empty unless at
    least two of the mail's options were compared with a speed."""
    by_name = {run.source["name"]: run for run in runs}
    options = [by_name[name] for name in NMAP_MAIL_BACKENDS if name in by_name and speed_of(by_name[name])]
    if len(options) < 2:
        return []
    ordered = sorted(options, key=lambda r: -(speed_of(r) or 0.0))
    best = ordered[0]
    fastest = speed_of(best) or 0.0
    others = ", ".join(f"{r.source['name']} {speed_of(r):,.1f} ({format_ratio(fastest / (speed_of(r) or 0.0))} slower)"
                       for r in ordered[1:])
    lines = ["nmap's question, answered from this run (MB/s as applications call each option):",
             f"  fastest: {best.source['name']} at {fastest:,.1f} MB/s; then {others}"]
    survivors = [r for r in ordered if r.first_failure_bytes is None]
    if survivors and survivors[0] is not best:
        lines.append(f"  fastest that did not fail: {survivors[0].source['name']} at {speed_of(survivors[0]):,.1f} MB/s")
    lines.append("  bytes to fail (suite " + (best.suite or "?") + "): "
                 + "; ".join(f"{r.source['name']} {_failure_text(r)}" for r in sorted(options, key=_failure_order)))
    for run in runs:
        name = run.source["name"]
        base = name.partition(":")[0]
        if base in ARC4_LONG_STREAM and speed_of(run):
            tested = format_size(run.bytes_tested)
            now = "still passes" if run.first_failure_bytes is None else "already fails"
            lines.append(f"  {name} on long streams: `{RC4_COMMAND.format(name=name)}` fails at {ARC4_LONG_STREAM[base]} "
                         f"(RC4's Fluhrer-McGrew digraph biases); this run stopped at {tested}, where {name} {now}.")
    return lines


# ---------------------------------------------------------------- the runtimes' answer

def _times(x: float) -> str:
    """A ratio in words: 4.6 times, 29 times."""
    return format_ratio(x).removesuffix("x") + " times"


def runtime_sentence(run: RunResult, runs: list[RunResult]) -> str:
    """'NAME: N times slower than the fastest here, fails at L, predictable
    from P bytes', from the measured numbers of ``run`` among ``runs``."""
    name = run.source["name"]
    speed = speed_of(run)
    if not speed:
        runtime = run.runtime or {}
        pace = (f"no speed ({runtime['name']} is not installed)" if runtime and not runtime.get("installed")
                else "no speed measured")
    else:
        fastest = max((r for r in runs if speed_of(r)), key=lambda r: speed_of(r) or 0.0)
        top = speed_of(fastest) or speed
        pace = ("the fastest here" if fastest is run or top == speed
                else f"{_times(top / speed)} slower than the fastest here")
        pace += f" ({speed:,.1f} MB/s)"
    at = run.first_failure_bytes
    if at is None and run.verdict == Verdict.INSUFFICIENT:
        quality = f"no verdict in {format_size(run.bytes_tested)}"
    elif at is None:
        quality = f"no failure up to {format_size(run.bytes_tested)}"
    else:
        quality = f"fails at {format_size(at)}"
    predicted = run.predictability
    if predicted is None:
        guess = "predictability not checked"
    elif predicted.predictable_from_bytes is None:
        guess = "no predictor succeeded"
    else:
        guess = f"predictable from {predicted.predictable_from_bytes:,} bytes"
    return f"{name}: {pace}, {quality}, {guess}"


def _runtime_version(runtime: dict[str, Any]) -> str:
    """"node 20.20.2": the runtime's name and the first dotted number of its version line."""
    found = re.search(r"\d+(?:\.\d+)+", runtime.get("version", ""))
    return f"{runtime['name']} {found.group(0)}" if found else runtime["name"]


def runtimes_answer(runs: list[RunResult]) -> list[str]:
    """Lines answering "fast and good enough?" for the runtimes' generators of
    a compare run: a sentence per source (runtime_sentence), then which
    runtimes were live on the machine (installed, timed, and their own bytes
    equal to what was tested) and which were not.  Empty unless at least two
    runtime backends were compared."""
    if sum(1 for run in runs if run.runtime) < 2:
        return []
    lines = ["The runtimes' generators, answered from this run (MB/s as each runtime calls its own generator "
             "in its own loop):"]
    lines += ["  " + runtime_sentence(run, runs) for run in runs]
    live, confirmed, absent = {}, set(), []
    checked_bytes = []
    for run in runs:
        runtime = run.runtime
        if not runtime:
            continue
        if not runtime.get("installed"):
            absent.append(runtime["name"])
            continue
        live.setdefault(runtime["name"], _runtime_version(runtime))
        if runtime.get("live_equal"):
            confirmed.add(runtime["name"])
            checked_bytes.append(runtime["live_checked_bytes"])
    if live:
        listed = [version + ("" if name in confirmed else " (its bytes not confirmed)") for name, version in live.items()]
        first = f"the first {format_size(min(checked_bytes))}" if checked_bytes else "the bytes"
        lines.append(f"  live here (speed timed in the runtime itself; {first} tested equal to the runtime's own "
                     "for the same seed): " + ", ".join(listed))
    if absent:
        lines.append("  not installed here (tested from randqa's bit-exact C, no speed): "
                     + ", ".join(dict.fromkeys(absent)))
    return lines


def _failure_text(run: RunResult) -> str:
    at = run.first_failure_bytes
    if at is None:
        return f"none up to {format_size(run.bytes_tested)}"
    return format_size(at) if run.is_progressive else f"fails at {format_size(at)} (one length tested)"


def _failure_order(run: RunResult) -> tuple[int, float]:
    at = run.first_failure_bytes
    return (1, 0.0) if at is None else (0, float(at))


# ---------------------------------------------------------------- headlines

def headline(run: RunResult, runs: list[RunResult]) -> str:
    """'Fast and good enough?' for one run of a report, from measured numbers:
    its speed relative to the fastest source among ``runs``, and the length
    at which it first failed, or "no failure up to N"."""
    name = run.source["name"]
    timed = [r for r in runs if speed_of(r)]
    speed = speed_of(run)
    if not speed:
        pace = "no speed measured (not a generator)"
    else:
        fastest = max(timed, key=lambda r: speed_of(r) or 0.0)
        top = speed_of(fastest) or speed
        if top == speed:
            pace = f"the fastest here ({speed:,.1f} MB/s)" if len(timed) > 1 else f"{speed:,.1f} MB/s"
        else:
            pace = f"{format_ratio(top / speed)} slower than {fastest.source['name']} ({speed:,.1f} MB/s)"
    at = run.first_failure_bytes
    if at is None and run.verdict == Verdict.INSUFFICIENT:
        quality = f"no verdict: too little data in {format_size(run.bytes_tested)}"
    elif at is None:
        doubt = " (some results suspicious)" if run.verdict == Verdict.SUSPICIOUS else ""
        quality = f"good enough: no failure up to {format_size(run.bytes_tested)}{doubt}"
    elif run.is_progressive:
        quality = f"not good enough: first fails at {format_size(at)}"
    else:
        quality = f"not good enough: fails at {format_size(at)} (one length tested)"
    return f"{name}: {pace}; {quality}."
