#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of dev/results.py on console logs shaped like real ones."""
import importlib.util
import os
import unittest

spec = importlib.util.spec_from_file_location(
    "results", os.path.join(os.path.dirname(__file__), "results.py"))
results = importlib.util.module_from_spec(spec)
spec.loader.exec_module(results)

KSELFTEST = """\
PREPAGE-GUEST: 6.12.117 swap: /dev/zram0
TAP version 13
1..2
# timeout set to 300
# selftests: prepage: anon_trace
# TAP version 13
# 1..3
# # Starting 3 tests from 1 test cases.
# #  RUN           anon_trace.first_touch ...
# #            OK  anon_trace.first_touch
# ok 1 anon_trace.first_touch
# not ok 2 anon_trace.swapin_exact
# ok 3 anon_trace.other # SKIP no swap device is active
# # FAILED: 1 / 3 tests passed.
not ok 1 selftests: prepage: anon_trace # exit=1
# selftests: prepage: crashes
# TAP version 13
not ok 2 selftests: prepage: crashes # exit=139
# selftests: prepage: cut_off
# ok 1 first
"""

KUNIT = """\
[    1.000000] KTAP version 1
[    1.000001] 1..1
[    1.000002]     KTAP version 1
[    1.000003]     # Subtest: prepage_core
[    1.000004]     # module: prepage
[    1.000005]     1..3
[    1.000006]     ok 1 extent_merge
[    1.000007]         ok 1 gap 10
[    1.000008]     not ok 2 extent_split
[    1.000009]     ok 3 parse # SKIP no file
[    1.000010] # prepage_core: pass:1 fail:1 skip:1 total:3
[    1.000011] not ok 1 prepage_core
[    1.000012]     # Subtest: unfinished
[    1.000013]     ok 1 first
"""


class ResultsTest(unittest.TestCase):
    def test_kselftest(self):
        got = results.kselftest(KSELFTEST.splitlines(True))
        self.assertEqual(got, [
            ("PASS", "kselftest", "prepage: anon_trace:anon_trace.first_touch"),
            ("FAIL", "kselftest", "prepage: anon_trace:anon_trace.swapin_exact"),
            ("SKIP", "kselftest", "prepage: anon_trace:anon_trace.other"),
            ("FAIL", "kselftest", "prepage: crashes"),
            ("FAIL", "kselftest", "prepage: cut_off (no result: crashed or cut off)"),
        ])

    def test_kselftest_exit_status_without_failed_case(self):
        log = ("# selftests: prepage: t\n# ok 1 a\n"
               "not ok 1 selftests: prepage: t # TIMEOUT 300 seconds\n")
        got = results.kselftest(log.splitlines(True))
        self.assertEqual(got, [("PASS", "kselftest", "prepage: t:a"),
                               ("FAIL", "kselftest", "prepage: t (exit status)")])

    def test_kunit(self):
        got = results.kunit(KUNIT.splitlines(True))
        self.assertEqual(got, [
            ("PASS", "kunit", "prepage_core.extent_merge"),
            ("FAIL", "kunit", "prepage_core.extent_split"),
            ("SKIP", "kunit", "prepage_core.parse"),
            ("PASS", "kunit", "unfinished.first"),
            ("FAIL", "kunit", "unfinished (suite did not finish)"),
        ])


if __name__ == "__main__":
    unittest.main()
