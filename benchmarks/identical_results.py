"""Run a fixed set of randqa commands and store, or check, their JSON minus
what may differ between two runs of the same code: timings, speeds, the
execution block, dates and the machine.

    python benchmarks/identical_results.py store DIR          # outputs of this checkout
    python benchmarks/identical_results.py check DIR [NAME..] # this checkout against them

NAME.. limits the check to the documents whose names start so (e.g. `api`,
`nist`); $IDENTICAL_WORK is the folder the commands run in (default
/tmp/randqa-identical): use one per checkout when two run at once.

Every command is deterministic apart from those fields (fixed seeds, fixed
files, an interrupted run compared after its resume).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

#: keys whose values measure the machine or the moment, not the results
VOLATILE = {"elapsed_s", "execution", "date", "platform", "python", "cpu", "speed_mb_s", "speed_bytes",
            "generation_mb_s", "speed_method", "environment", "startup_s", "command", "randqa_version",
            "sessions", "resumed_at_bytes", "speed_repeats"}


#: name prefixes given to `check`: only these documents
ONLY: list[str] = []


def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def randqa(*args: str, stdin: bytes | None = None, expect: tuple[int, ...] = (0, 1)) -> None:
    proc = subprocess.run([sys.executable, "-m", "randqa", *args], input=stdin, capture_output=True, timeout=1800,
                          cwd=WORK)
    if proc.returncode not in expect:
        raise SystemExit(f"randqa {' '.join(args)}: exit {proc.returncode}: {proc.stderr.decode()[-500:]}")


#: every command runs in this folder and names its files relative to it, so
#: that documents made in two folders are comparable
WORK = Path(os.environ.get("IDENTICAL_WORK", "/tmp/randqa-identical"))


def commands(work: Path) -> dict[str, list[str]]:
    pcg, bits = "pcg64-7.bin", "bits.txt"
    if not (work / pcg).exists():
        data = np.random.PCG64(7).random_raw((17 << 20) // 8 + 1).astype("<u8").tobytes()
        (work / pcg).write_bytes(data[: (17 << 20) + 5])
    if not (work / bits).exists():
        rng = np.random.default_rng(11)
        (work / bits).write_text("".join(map(str, rng.integers(0, 2, 3_000_003))))
    return {
        "quick-generator": ["test", "pcg64", "--seed", "1", "-n", "16M", "--suite", "quick"],
        "standard-generator": ["test", "pcg64", "--seed", "1", "-n", "64M"],
        "standard-file": ["test", pcg],
        "standard-jobs2": ["test", "pcg64", "--seed", "4", "-n", "24M", "--jobs", "2", "--segment", "3840K"],
        "rc4-file": ["test", pcg, "--suite", "rc4", "-n", "17M"],
        "nist-file": ["test", pcg, "--suite", "nist-sp800-22", "--sequences", "3"],
        "nist-bits": ["test", bits, "--format", "bits", "--suite", "nist-sp800-22", "--sequences", "3"],
        "progressive-fail": ["test", "lfsr113", "--seed", "1", "--progressive", "--max", "1M"],
        "progressive-pass": ["test", "pcg64", "--seed", "2", "--progressive", "--max", "16M", "--keep-going"],
        "progressive-glibc": ["test", "glibc-rand-short", "--seed", "3", "--progressive", "--max", "1M"],
        "folded": ["test", "glibc-rand-short", "--seed", "1", "--word-bits", "16", "--low-bits", "1", "-n", "4M"],
        "seed-sweep": ["test", "arc4", "--seed", "1", "--seed-sweep", "4096"],
        "tests-option": ["test", "mt19937", "--seed", "5", "-n", "2M", "--tests", "bit_linear_complexity"],
        "compare": ["compare", "pcg64", "minstd", "mt19937", "--max", "2M", "--seed", "1"],
        "compare-quick-file": ["compare", pcg, "glibc-rand", "--suite", "quick", "--max", "4M", "--seed", "2"],
        "quick-progressive": ["test", "pcg64", "--seed", "3", "--suite", "quick", "--progressive", "--max", "8M"],
        "rc4-generator": ["test", "arc4", "--seed", "2", "--suite", "rc4", "-n", "4M"],
        "rc4-progressive": ["test", "glibc-rand", "--seed", "2", "--suite", "rc4", "--progressive", "--max", "4M"],
        "nist-generator": ["test", "minstd", "--seed", "1", "--suite", "nist-sp800-22", "-n", "1M"],
        "nist-progressive": ["test", "pcg64", "--seed", "6", "--suite", "nist-sp800-22", "--progressive",
                             "--max", "1M"],
        "nist-seed-sweep": ["test", "minstd", "--seed", "4", "--seed-sweep", "64", "--suite", "nist-sp800-22"],
        "seed-sweep-quick": ["test", "glibc-rand", "--seed", "1", "--seed-sweep", "512", "--suite", "quick",
                             "--positions", "64"],
        "folded-progressive": ["test", "minstd", "--seed", "2", "--word-bits", "32", "--low-bits", "8",
                               "--progressive", "--max", "2M", "--suite", "quick"],
        "streams": ["test", "pcg64", "--seed", "1", "--streams", "3", "--stream-seeds", "consecutive", "-n", "4M"],
        "streams-jump": ["test", "xoshiro256", "--seed", "1", "--streams", "2", "--stream-seeds", "jump", "-n", "2M",
                         "--suite", "quick"],
    }


API_SCRIPT = """
import json, sys
import numpy as np
import randqa
data = open(sys.argv[1], "rb").read()
battery = randqa.Battery("quick")
for start in range(0, len(data), 1_000_003):
    battery.update(data[start:start + 1_000_003])
print(json.dumps({
    "generator": randqa.test("pcg64", "4M", seed=1, suite="quick").to_json(),
    "bitgenerator": randqa.test(np.random.Philox(3), "2M", suite="quick").to_json(),
    "progressive": randqa.test("lfsr113", seed=1, progressive=True, max="1M").to_json(),
    "battery": battery.result().to_json(),
    "compare": randqa.compare(["pcg64", "minstd"], max="1M", seed=1, suite="quick").to_json(),
}))
"""


def wanted(name: str) -> bool:
    return not ONLY or any(name.startswith(prefix) for prefix in ONLY)


def run_all(work: Path) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, args in commands(work).items():
        if not wanted(name):
            continue
        target = work / f"{name}.json"
        randqa(*args, "--json", target.name)
        out[name] = strip(json.loads(target.read_text()))
        print(f"{name}: ok", flush=True)
    if wanted("stdin"):
        run_stdin(work, out)
    if wanted("resumed"):
        run_resumed(work, out)
    if wanted("api"):
        run_api(out)
    return out


def run_stdin(work: Path, out: dict[str, object]) -> None:
    data = (work / "pcg64-7.bin").read_bytes()
    target = work / "stdin.json"
    randqa("test", "-", "--suite", "quick", "--json", target.name, stdin=data)
    out["stdin"] = strip(json.loads(target.read_text()))
    print("stdin: ok", flush=True)


def run_resumed(work: Path, out: dict[str, object]) -> None:
    """A run stopped by SIGINT, then resumed: its final document."""
    ckpt, target = work / "run.ckpt", work / "resumed.json"
    for stale in (ckpt, target):
        stale.unlink(missing_ok=True)
    proc = subprocess.Popen([sys.executable, "-m", "randqa", "test", "pcg64", "--seed", "9", "-n", "8G", "--suite",
                             "quick", "--jobs", "1", "--checkpoint", ckpt.name, "--checkpoint-every", "1",
                             "--json", target.name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=WORK)
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=120)
    randqa("resume", ckpt.name)
    out["resumed"] = strip(json.loads(target.read_text()))
    print("resumed: ok", flush=True)


def run_api(out: dict[str, object]) -> None:
    # the Python API: a generator, a BitGenerator object and the streaming Battery
    api = subprocess.run([sys.executable, "-c", API_SCRIPT, "pcg64-7.bin"], capture_output=True, check=True,
                         timeout=1800, cwd=WORK)
    out.update({f"api-{k}": strip(v) for k, v in json.loads(api.stdout).items()})
    print("api: ok", flush=True)


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] not in ("store", "check") or (sys.argv[1] == "store" and sys.argv[3:]):
        raise SystemExit(__doc__)
    ONLY.extend(sys.argv[3:])
    folder = Path(sys.argv[2])
    folder.mkdir(parents=True, exist_ok=True)
    stored = folder / "results.json"
    WORK.mkdir(parents=True, exist_ok=True)
    got = run_all(WORK)
    if sys.argv[1] == "store":
        stored.write_text(json.dumps(got, indent=1, sort_keys=True))
        print(f"stored {len(got)} documents in {stored}")
        return
    old = json.loads(stored.read_text())
    old = {name: doc for name, doc in old.items() if wanted(name)}
    same = [name for name in old if got.get(name) == old[name]]
    differ = [name for name in old if name not in same]
    for name in differ:
        a, b = json.dumps(old[name], indent=1, sort_keys=True).splitlines(), json.dumps(got.get(name), indent=1, sort_keys=True).splitlines()
        import difflib
        print(f"--- {name} differs:")
        print("\n".join(list(difflib.unified_diff(a, b, lineterm="", n=1))[:40]))
    print(f"{len(same)} of {len(old)} documents identical (minus timings and execution){'' if not differ else ': ' + ', '.join(differ) + ' differ'}")
    raise SystemExit(1 if differ else 0)


if __name__ == "__main__":
    main()
