"""go-math-rand pinned to Go's own math/rand.

Known answers: go1.19.8, ``rand.New(rand.NewSource(seed)).Uint64()`` called
700 times and the values at indices 0, 1, 2, 606, 607 and 699 printed (607
is the first value whose feed word was itself made by the generator).
Seeds 0 and 2**31 - 1 are the same stream (NewSource reduces the seed mod
2^31 - 1), which Go's seeding shows and randqa must too.  Where go is
installed, go-math-rand-live must equal go-math-rand byte for byte, and
randqa's copy of the seeding table (_go_rng_cooked.h) must be what Go's own
state gives.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import randqa.sources
from randqa.sources.runtimes import driver_for
from runtime_checks import assert_live_equals_compiled, known_answers_test, read_stream, skip_unless_installed

INDICES = (0, 1, 2, 606, 607, 699)
GO_1_19 = {
    0: [8717895732742165505, 2259404117704393152, 6050128673802995827, 14605069800497345725, 4621739702096724847,
        12430032155749799229],
    1: [5577006791947779410, 8674665223082153551, 15352856648520921629, 11728227432073157542, 5991972744052607848,
        11107963287568347231],
    42: [12663951391086054483, 9832119173398632219, 5571782338101878760, 3140963254762864922, 11026700289403624963,
         1336404688899735282],
    2**62 + 12345: [12964011769593816688, 882808584837785694, 3621407042814064245, 3717295510689936368,
                    1683465425933179754, 3499978366810606984],
}


test_go_math_rand_equals_go = known_answers_test("go-math-rand", INDICES, GO_1_19)


def test_seeds_equal_mod_2_31_minus_1_give_one_stream():
    assert read_stream("go-math-rand", 0, 64) == read_stream("go-math-rand", 2**31 - 1, 64)
    assert read_stream("go-math-rand", 5, 64) == read_stream("go-math-rand", 5 + 3 * (2**31 - 1), 64)


def test_go_math_rand_live_equals_the_c_generator():
    assert_live_equals_compiled("go-math-rand", 64 << 10)


def test_the_seeding_table_is_gos_own():
    skip_unless_installed("go-math-rand")
    header = Path(randqa.sources.__file__).parent / "_go_rng_cooked.h"
    cooked = subprocess.run(driver_for("go-math-rand").cooked_command(), capture_output=True, text=True, check=True)
    assert cooked.stdout == header.read_text()
