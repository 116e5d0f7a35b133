"""Plain-text rendering for the terminal: a run's table of tests, a
comparison's table of sources, and what ``randqa predict`` showed."""

from __future__ import annotations

import re
from typing import Any

from randqa.interleaving import view_of
from randqa._report.speed_notes import FEED_NOTE, feed_differs, method_markers, nmap_answer, runtimes_answer, speed_of
from randqa.results import TestResult, Verdict, worst_verdict
from randqa.run_result import CompareResult, RunResult
from randqa.sizes import format_size


def format_number(x: float | None, digits: int = 6) -> str:
    if x is None:
        return "-"
    if x != 0 and (abs(x) < 1e-4 or abs(x) >= 1e7):
        return f"{x:.{digits - 2}e}"
    return f"{x:.{digits}f}"


def format_pvalue(p: float | None, verdict: str | None = None) -> str:
    """A p-value for a table: "-" beside an insufficient verdict (too little
    data to judge) or none, scientific below 1e-4, and "<5e-324" for one that
    underflowed to 0 (smaller than the smallest double), never 0.000000."""
    if p is None or verdict == Verdict.INSUFFICIENT:
        return "-"
    if p == 0:
        return "<5e-324"
    return format_number(p)


#: bit_linear_complexity's lowest-complexity result: (word bits, bit)
_LOWEST_COMPLEXITY = re.compile(r"^bit_linear_complexity(?:\[\w+=\w+\])?\[bit=(\d+)/(\d+),lowest\]$")


def failure_causes(results: list[TestResult]) -> list[str]:
    """What a run's failures say about the generator, where randqa knows it:
    a bit position that stayed constant, or is linear, from
    ``bit_linear_complexity``'s lowest complexity (a recurrence of order L
    makes a run of that bit over N consecutive words; random bits need about
    N/2), and a frequency bias.  One sentence each; none for a pass."""
    failed = (Verdict.FAIL, Verdict.UNCONFIRMED)
    findings = []
    for r in results:
        match = _LOWEST_COMPLEXITY.match(r.name)
        counts = _whole_details(r.details, "lowest_complexity", "length")
        if match and r.verdict in failed and counts is not None:
            lowest, length = counts
            findings.append((int(match.group(2)), int(match.group(1)), lowest, length, r.name))
    causes: list[str] = []
    said: list[tuple[int, int]] = []
    # constant bits first, then narrow words and long runs: bit b of w-bit words
    # is also bit b + k*w of wider words, so it is said once, for the narrowest
    for word_bits, bit, lowest, length, name in sorted(findings, key=lambda f: (f[2] > 1, f[0], -f[3])):
        if any(word_bits % w == 0 and bit % w == b for w, b in said):
            continue
        said.append((word_bits, bit))
        if lowest == 0:
            causes.append(f"bit {bit} of the {word_bits}-bit words is constant: 0 in {length:,} words in a row ({name})")
        elif lowest == 1:  # all ones, or a one and then zeros
            causes.append(f"bit {bit} of the {word_bits}-bit words is constant, or nearly: linear complexity 1 over "
                          f"{length:,} words in a row ({name})")
        else:
            causes.append(f"bit {bit} of the {word_bits}-bit words is linear: a recurrence of order {lowest:,} makes "
                          f"{length:,} of them in a row (random bits: about {length // 2:,}) ({name})")
    for r in results:
        counts = _whole_details(r.details, "ones", "bits")
        if r.name == "frequency" and r.verdict in failed and counts is not None and counts[1] > 0:
            causes.append(f"{100 * counts[0] / counts[1]:.2f}% of the bits are 1 ({r.name})")
    return causes


def _whole_details(details: dict[str, Any], *keys: str) -> tuple[int, ...] | None:
    """The whole numbers a result's details hold under ``keys``; None when
    one is missing or is not one (a saved document read back may lack them)."""
    values = []
    for key in keys:
        value = details.get(key)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        values.append(value)
    return tuple(values)


def render_run(run: RunResult) -> str:
    """The table of tests with a header and the overall verdict."""
    seed = "-" if run.source.get("seed") is None else str(run.source["seed"])
    rate = run.bytes_tested / run.elapsed_s / 1e6 if run.elapsed_s > 0 else float("inf")
    amount = f"{run.bits_tested} bits" if run.unit == "bits" else format_size(run.bytes_tested)
    lines = [
        f"source {run.source['name']}  seed {seed}  suite {run.suite}",
        f"tested {amount} in {run.elapsed_s:.2f} s ({rate:.0f} MB/s)",
        "",
    ]
    shown = run.results
    streams = run.source.get("streams")
    if streams:
        shown, summary = _streams_summary(run.results, streams)
        lines[-1:-1] = summary
    width = max([len("test")] + [len(r.name) for r in shown])
    lines.append(f"{'test':<{width}}  {'statistic':>14}  {'p-value':>12}  verdict")
    for r in shown:
        verdict = r.verdict if r.needs is None else f"{r.verdict} (needs {r.needs})"
        if r.retest:
            verdict += f"; {retest_summary(r.retest)}"
        lines.append(f"{r.name:<{width}}  {format_number(r.statistic):>14}  {format_pvalue(r.pvalue, r.verdict):>12}  "
                     f"{verdict}")
    lines.append("")
    causes = failure_causes(run.results)
    if causes:
        lines.extend(f"cause: {cause}" for cause in causes)
        lines.append("")
    lengths = run.progression.lengths if run.progression is not None else []
    if lengths:
        lines.append("progressive: verdict after each length (worst test)")
        for entry in lengths:
            worst = [t for t in entry["tests"] if t["verdict"] == entry["verdict"]]
            shown = (Verdict.FAIL, Verdict.UNCONFIRMED, Verdict.SUSPICIOUS)
            which = ", ".join(t["name"] for t in worst[:3]) if entry["verdict"] in shown else ""
            lines.append(f"  {format_size(entry['bytes']):>10}  {entry['verdict']:<12} {which}".rstrip())
        lines.extend(retest_lines(lengths))
        first = run.first_failure_bytes
        lines.append(f"first failure at {format_size(first)}" if first else "no failure up to " + format_size(run.bytes_tested))
        lines.append("")
    lines.extend(f"note: {n}" for n in run.notes)
    lines.append(f"verdict: {run.verdict.upper()}")
    document = run.to_json()
    statement = false_fail_statement(document.get("false_fail_rate"), document.get("thresholds"))
    if statement:
        lines.append(statement)
    return "\n".join(lines)


def retest_lines(lengths: list[dict[str, Any]]) -> list[str]:
    """What the retests of a progressive run's suspicious and unconfirmed
    results found: "  gap[...]: suspicious at 256 MiB (p = 2.1e-05), not
    repeated on the next 256 MiB (p = 0.41)", one line each."""
    lines = []
    for entry in lengths:
        for t in entry["tests"]:
            if t.get("retest"):
                tails = [p for p in (t.get("p_value"), t.get("p_value_low")) if p is not None]
                seen = f" (p = {min(tails):.2g})" if tails else ""
                lines.append(f"  {t['name']}: {t['verdict']} at {format_size(entry['bytes'])}{seen}, "
                             f"{retest_summary(t['retest'])}")
    return lines


def retest_summary(retest: dict[str, Any] | None) -> str:
    """How a retest came out, in words: "repeated on the next 256 MiB (p =
    2.1e-05)", "not repeated on the next 1 KiB (p = 0.41)", "not repeated on
    the next 512 B, cut short (p = 0.41)", "not retested: the data ended"."""
    if not retest:
        return ""
    where = format_size(int(retest["bytes"]))
    if retest.get("repeated") is None:
        return f"not retested: {retest.get('reason') or 'no data'}"
    p = retest.get("p_value")
    shown = "-" if p is None else f"{p:.2g}"
    cut = ", cut short" if retest.get("cut_short") else ""
    return f"{'repeated' if retest['repeated'] else 'not repeated'} on the next {where}{cut} (p = {shown})"


def false_fail_statement(rate: dict[str, Any] | None, thresholds: dict[str, Any] | None, subject: str = "this run") -> str:
    """A run's ``false_fail_rate`` in words, for reports ("" without one):
    "a good generator FAILs this run with probability at most 9.7e-07 (805
    tail checks; FAIL: p < 1e-06 repeated on fresh data (p < 1e-09 where there is
    none or it is cut short), or p < 1e-20)";
    ``subject`` names what FAILs ("each of these runs")."""
    if not rate or not thresholds or "fail_at_once" not in thresholds:
        return ""
    if thresholds["fail_at_once"] < thresholds["fail"]:
        unrepeated = thresholds["fail"] * thresholds.get("suspicious", 1e-3)
        rule = (f"p < {thresholds['fail']:g} repeated on fresh data (p < {unrepeated:.2g} where there is none or it "
                f"is cut short), "
                f"or p < {thresholds['fail_at_once']:g}")
    else:
        rule = f"p < {thresholds['fail_at_once']:g}, no retests"
    return (f"a good generator FAILs {subject} with probability at most {rate['at_most']:.2g} "
            f"({rate['tail_checks']:,} tail checks; FAIL: {rule})")


def _smallest_p(results: list[TestResult]) -> str:
    tails = [(min(p for p in (r.pvalue, r.pvalue_low) if p is not None), r.name) for r in results
             if r.pvalue is not None or r.pvalue_low is not None]
    if not tails:
        return "no p-values yet"
    p, name = min(tails)
    return f"smallest p {format_number(p, 4)} ({name})"


def _streams_summary(results: list[TestResult], streams: dict[str, Any]) -> tuple[list[TestResult], list[str]]:
    """For a run of interleaved streams: the results the table shows (the
    interleaved stream's, and every other that is not a pass), and a line
    per stream alone and one for the pairs' XOR above it."""
    views: dict[tuple[int, ...], list[TestResult]] = {}
    for r in results:
        views.setdefault(view_of(r.name) or (), []).append(r)
    members = streams.get("members") or []
    lines = [f"streams: {streams['count']}, seeded {streams['scheme']}, interleaved every "
             f"{format_size(streams['interleave_bytes'])}; the table below has the interleaved stream's tests and "
             "every other result that is not a pass"]
    for index in range(streams["count"]):
        own = views.get((index,), [])
        seed = members[index].get("seed") if index < len(members) else None
        label = f"  stream {index}" + ("" if seed is None else f" (seed {seed})")
        verdict = worst_verdict([r.verdict for r in own]) if own else "-"
        lines.append(f"{label:<28}  {verdict:<12}  {len(own)} results, {_smallest_p(own)}")
    pairs = [key for key in views if len(key) == 2]
    if pairs:
        paired = [r for key in pairs for r in views[key]]
        lines.append(f"{'  pairs XOR (quick suite)':<28}  {worst_verdict([r.verdict for r in paired]):<12}  "
                     f"{len(pairs)} pairs, {len(paired)} results, {_smallest_p(paired)}")
    lines.append("")
    shown = [r for r in results if view_of(r.name) is None or r.verdict in (Verdict.FAIL, Verdict.UNCONFIRMED, Verdict.SUSPICIOUS)]
    return shown, lines


def failing_tests(run: RunResult) -> list[str]:
    """Names of the tests that failed, were unconfirmed ('!') or looked suspicious ('?'), worst first."""
    bad = [r for r in run.results if r.verdict in (Verdict.FAIL, Verdict.UNCONFIRMED, Verdict.SUSPICIOUS)]
    bad.sort(key=lambda r: -Verdict(r.verdict).severity)
    mark = {Verdict.FAIL: "", Verdict.UNCONFIRMED: "!", Verdict.SUSPICIOUS: "?"}
    return [r.name + mark[Verdict(r.verdict)] for r in bad]


#: what the compare table's "predictable from" column means
PREDICTABLE_NOTE = ("fewest observed bytes from which a predictor (randqa predict) predicted the next 64 KiB "
                    "exactly; '-': none succeeded, which is not a proof of unpredictability")


def predictable_from(run: RunResult, missing: str = "-") -> str:
    """The compare table's "predictable from" cell: bytes, or ``missing``
    when no predictor succeeded or none ran."""
    n = None if run.predictability is None else run.predictability.predictable_from_bytes
    return missing if n is None else f"{n:,} B"


def render_compare(comparison: CompareResult) -> str:
    """The terminal table of a comparison."""
    runs = comparison.runs
    progressive = any(run.is_progressive for run in runs)
    markers = method_markers(runs)
    feed = feed_differs(runs)
    predicted = any(run.predictability is not None for run in runs)
    header = ["source", "MB/s", "feed MB/s" if feed else "", "tested", "verdict", "first failure" if progressive else "",
              "predictable from" if predicted else "", "seed", "failed tests"]
    rows = []
    for run in runs:
        speed = speed_of(run)
        generation = run.speed.generation_mb_s if run.speed else None
        marker = markers.get((run.speed.speed_method if run.speed else None) or "", "")
        failure = run.first_failure_bytes
        seed = run.source.get("seed")
        verdict = run.verdict
        rows.append([
            run.source["name"],
            "-" if speed is None else f"{speed:.1f} {marker}".rstrip(),
            "-" if generation is None else f"{generation:.1f}",
            format_size(run.bytes_tested),
            verdict.upper() if verdict in (Verdict.FAIL, Verdict.UNCONFIRMED) else verdict,
            ("none" if failure is None else format_size(failure)) if progressive else "",
            predictable_from(run) if predicted else "",
            "-" if seed is None else str(seed),
            ", ".join(failing_tests(run)) or "-",
        ])
    keep = [i for i, h in enumerate(header) if h]
    header = [header[i] for i in keep]
    rows = [[row[i] for i in keep] for row in rows]
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    right = {"MB/s", "feed MB/s", "tested", "first failure", "predictable from"}

    def line(cells: list[str]) -> str:
        out = [c.rjust(w) if h in right else c.ljust(w) for c, w, h in zip(cells, widths, header)]
        return "  ".join(out).rstrip()

    lines = [f"suite {comparison.suite}  MB/s: as applications call each generator (a, b, ... below), median of "
             f"{comparison.speed_repeats} runs apart from testing  ('?' = suspicious, '!' = unconfirmed)", "",
             line(header)]
    lines += [line(r) for r in rows]
    lines.append("")
    lines += [f"{marker}: {method}" for method, marker in markers.items()]
    if feed:
        lines.append(f"feed MB/s: {FEED_NOTE}")
    if predicted:
        lines.append(f"predictable from: {PREDICTABLE_NOTE}")
    if markers:
        lines.append("")
    for run in runs:
        for note in run.notes:
            lines.append(f"note: {run.source['name']}: {note}")
        for line_ in retest_lines(run.judged_lengths()):
            lines.append(f"retest: {run.source['name']}:{line_[1:]}")
        for cause in failure_causes(run.results):
            lines.append(f"cause: {run.source['name']}: {cause}")
    rates = [run.false_fail_rate()["at_most"] for run in runs]
    if rates:
        lines.append(f"false FAIL: a good generator FAILs each of these runs with probability at most {max(rates):.2g} "
                     f"(docs/verdicts.md)")
    if comparison.interrupted:
        lines.append("note: interrupted: sources after the last row were not tested")
    for answer in (nmap_answer(runs), runtimes_answer(runs)):
        if answer:
            lines += ([] if lines[-1] == "" else [""]) + answer + [""]
    count = len(runs)
    lines.append(f"compared {count} source{'' if count == 1 else 's'} in {comparison.elapsed_s:.1f} s")
    return "\n".join(lines)


def _percent(fraction: float | None) -> str:
    if fraction is None:
        return "-"
    if fraction == 1.0:
        return "100%"
    return f"{100 * fraction:.2f}%"


def render_predict(doc: dict[str, Any], *, width: int = 120) -> str:
    """The terminal table of a ``randqa predict`` document: one line per
    predictor, then what was shown."""
    seed = doc["source"].get("seed")
    head = f"predict {doc['source'].get('name', 'data')}" + (f" (seed {seed})" if seed is not None else "")
    lines = [f"{head}: {doc['bytes_read']:,} bytes read", ""]
    header = ("predictor", "observed", "checked", "exact", "structure")
    rows = []
    for r in doc["predictors"]:
        summary = str(r["structure"].get("summary", ""))
        if not r["applicable"]:
            rows.append((r["name"], "-", "-", "n/a", summary))
        else:
            mark = " *" if r["succeeded"] else ""
            rows.append((r["name"], f"{r['observed_bytes']:,}", f"{r['checked_bytes']:,}",
                         _percent(r["exact_fraction"]) + mark, summary))
    widths = [max(len(header[i]), *(len(row[i]) for row in rows)) for i in range(4)]
    room = max(20, width - sum(widths) - 8)

    def line(cells: tuple[str, ...]) -> str:
        text = cells[4] if len(cells[4]) <= room else cells[4][: room - 3] + "..."
        return (f"{cells[0]:<{widths[0]}}  {cells[1]:>{widths[1]}}  {cells[2]:>{widths[2]}}  "
                f"{cells[3]:>{widths[3]}}  {text}").rstrip()

    lines.append(line(header))
    lines.extend(line(row) for row in rows)
    lines.append("")
    best = doc["predictable_from_bytes"]
    if best is None:
        lines.append(f"no predictor succeeded on {format_size(doc['bytes_read'])} "
                     "(none of these structures was found; that is not a proof that none exists)")
    else:
        names = [r["name"] for r in doc["predictors"] if r["succeeded"] and r["observed_bytes"] == best]
        lines.append(f"predictable from {best:,} bytes ({', '.join(names)}): "
                     "* = every checked byte predicted exactly")
    return "\n".join(lines)


def render_problems(run: dict[str, Any]) -> str:
    """The failed and suspicious tests of a run document with their p-values,
    failures first, then by their smaller tail p (one line each, after a header)."""
    bad = [t for t in run["tests"] if t.get("verdict") in (Verdict.FAIL, Verdict.UNCONFIRMED, Verdict.SUSPICIOUS)]

    def order(test: dict[str, Any]) -> tuple[int, float]:
        tails = [p for p in (test.get("p_value"), test.get("p_value_low")) if p is not None]
        return -Verdict(test["verdict"]).severity, min(tails, default=1.0)

    bad.sort(key=order)
    width = max([len("test")] + [len(t["name"]) for t in bad])
    lines = [f"{'test':<{width}}  {'p-value':>12}  {'lower-tail p':>12}  verdict"]
    for t in bad:
        low = "" if t.get("p_value_low") is None else format_pvalue(t["p_value_low"])
        lines.append(f"{t['name']:<{width}}  {format_pvalue(t.get('p_value')):>12}  {low:>12}  {t['verdict']}")
    return "\n".join(lines)
