"""randqa.engine.plan: the option rules ``randqa test`` and ``randqa.test`` share.

Source: the CLI's documented options (`randqa test --help`, and docs/long-runs.md and docs/streams.md for the modes that
work with any suite).  Each rule is checked for its refusal and its
message, and the defaults that depend on the source for their values; no
data is tested except one short run per mode (16 KiB).
"""

from __future__ import annotations

import pytest

from randqa.engine.execute import execute
from randqa.engine.lengths import UNTIL_END
from randqa.engine.request import open_request
from randqa.engine.plan import DEFAULT_GENERATOR_BYTES, PROGRESSIVE_GENERATOR_MAX, TestOptions, plan_compare, plan_test
from randqa.errors import SuiteError, UsageError
from randqa.files import check_output_paths
from randqa.run_result import SweptSeeds


@pytest.mark.parametrize("options, message", [
    (TestOptions(low_bits=2), "--low-bits needs --word-bits"),
    (TestOptions(sequences=2), "--sequences needs a suite that tests sequences; 'standard' does not"),
    (TestOptions(suite="nist-sp800-22", sequences=2, size=1000), "give either --sequences or -n/--bytes, not both"),
    (TestOptions(progressive=True, fmt="bits"), "--progressive reads bytes; it does not take --format bits"),
    (TestOptions(seed_sweep=100, size=1024), "--seed-sweep reads --positions bytes of each seeded stream"),
    (TestOptions(seed_sweep=100, word_bits=8), "it takes no --progressive, -n, --word-bits or --format"),
    (TestOptions(word_bits=16, fmt="bits"), "--word-bits folds bytes; it does not take --format bits"),
    (TestOptions(progressive=True, min_size=4096, max_size=1024), "--min (4096) is larger than --max (1024)"),
    (TestOptions(seed=-1), "Invalid value for '--seed': -1 is not in the range x>=0."),
    (TestOptions(word_bits=12), "Invalid value for '--word-bits': '12' is not one of '8', '16', '32', '64'."),
    (TestOptions(word_bits=16, low_bits=70), "Invalid value for '--low-bits': 70 is not in the range 1<=x<=63."),
    (TestOptions(jobs=0), "Invalid value for '-j' / '--jobs': 0 is not in the range 1<=x<=256."),
    (TestOptions(positions=5000), "Invalid value for '--positions': 5000 is not in the range 1<=x<=4096."),
    (TestOptions(fmt="hex"), "Invalid value for '--format': 'hex' is not one of 'bytes', 'bits'."),
    (TestOptions(size=0), "invalid size '0': must be greater than zero"),
    (TestOptions(suite="no-such-suite"), "unknown suite 'no-such-suite'"),
    (TestOptions(tests="chi_square,nope"), "has no test 'nope'"),
])
def test_each_rule_refuses_with_one_line(options, message):
    with pytest.raises(UsageError) as info:
        plan_test(options)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_malformed_suite_file_is_a_suite_error(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("name = 1\n")
    with pytest.raises(SuiteError, match="'name' must be a string"):
        plan_test(TestOptions(suite=str(bad)))


def test_defaults_filled_in():
    folded = plan_test(TestOptions(word_bits=32))
    assert folded.options.low_bits == 1
    assert plan_test(TestOptions()).options.low_bits is None
    nist = plan_test(TestOptions(suite="nist-sp800-22", sequences=3))
    assert nist.options.size == 3 * 125_000
    bits = plan_test(TestOptions(suite="nist-sp800-22", sequences=3, fmt="bits"))
    assert bits.options.size == 3 * 1_000_000  # -n counts bits of bit text


def test_lengths_depend_on_the_source(tmp_path):
    data = tmp_path / "d.bin"
    data.write_bytes(bytes(range(256)) * 64)
    plain, progressive = plan_test(TestOptions()), plan_test(TestOptions(progressive=True))
    assert plain.request("pcg64").limit == DEFAULT_GENERATOR_BYTES and plain.request(str(data)).limit is None
    assert progressive.request("pcg64").progressive["max_bytes"] == PROGRESSIVE_GENERATOR_MAX
    from_file = progressive.request(str(data))
    assert from_file.progressive["max_bytes"] == UNTIL_END and from_file.progress_total() is None
    sized = plan_test(TestOptions(size=5000, progressive=True)).request("pcg64")
    assert sized.progressive["max_bytes"] == 5000 == sized.progress_total()
    with open_request(plain.request(str(data))) as opened:  # a source opened by the caller: its own length rule
        assert plain.request("d", opened=opened).limit is None
    with open_request(plain.request("pcg64")) as opened:
        assert plain.request("g", opened=opened).limit == DEFAULT_GENERATOR_BYTES


def test_requests_run_every_mode():
    plain = plan_test(TestOptions(size=16 << 10, seed=1, suite="quick"))
    assert execute(plain.request("pcg64")).bytes_tested == 16 << 10
    folded = plan_test(TestOptions(size=4096, seed=1, suite="quick", word_bits=16, low_bits=4))
    run = execute(folded.request("glibc-rand-short"))
    assert run.source["name"] == "glibc-rand-short[low4/16]" and run.bytes_tested == 4096
    progressive = plan_test(TestOptions(progressive=True, max_size=8192, seed=1))
    assert execute(progressive.request("randu")).first_failure_bytes == 1024
    sweep = plan_test(TestOptions(seed_sweep=10, positions=4, seed=5))
    run = execute(sweep.request("arc4"))
    assert run.seed_sweep == SweptSeeds(seeds=10, seeds_requested=10, positions=4, base_seed=5)


def test_a_seed_sweep_needs_a_named_generator(tmp_path):
    sweep = plan_test(TestOptions(seed_sweep=10))
    data = tmp_path / "d.bin"
    data.write_bytes(b"x" * 100)
    with pytest.raises(UsageError, match="needs a generator backend"):
        sweep.request(str(data))
    with pytest.raises(UsageError, match="unknown source 'pcg6'"):
        sweep.request("pcg6")


def test_folding_refused_for_bad_low_bits():
    # refused with the other option checks, before any source is opened
    with pytest.raises(UsageError, match="--low-bits: folding keeps 1 to 7 low bits"):
        plan_test(TestOptions(word_bits=8, low_bits=9))


def test_output_folders_are_checked(tmp_path):
    check_output_paths({"--json": str(tmp_path / "x.json")})
    check_output_paths({"--json": "-"})
    with pytest.raises(UsageError, match=r"--json /no/such/folder/x.json: folder /no/such/folder does not exist"):
        check_output_paths({"--json": "/no/such/folder/x.json"})


@pytest.mark.parametrize("kwargs, message", [
    ({"progressive": False, "min_size": 1024}, "--min, --max and --keep-going apply only with --progressive"),
    ({"progressive": True, "min_size": 1 << 20, "max_size": 1 << 16}, "--min (1048576) is larger than the last length (65536)"),
    ({"speed_repeats": 0}, "Invalid value for '--speed-repeats': 0 is not in the range x>=1."),
])
def test_compare_rules(kwargs, message):
    with pytest.raises(UsageError) as info:
        plan_compare(**kwargs)
    assert message in str(info.value)
    options = plan_compare(size=4096, progressive=False)
    assert options.size == 4096 and not options.progressive and options.min_size == 1024
