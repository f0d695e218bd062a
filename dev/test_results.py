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


R = results.Result


class ResultsTest(unittest.TestCase):
    def test_kselftest(self):
        got = results.kselftest(KSELFTEST.splitlines(True))
        self.assertEqual(got, [
            R("PASS", "kselftest", "prepage: anon_trace:anon_trace.first_touch"),
            R("FAIL", "kselftest", "prepage: anon_trace:anon_trace.swapin_exact"),
            R("SKIP", "kselftest", "prepage: anon_trace:anon_trace.other",
              "no swap device is active"),
            R("FAIL", "kselftest", "prepage: crashes"),
            R("FAIL", "kselftest", "prepage: cut_off (no result: crashed or cut off)"),
        ])

    def test_kselftest_exit_status_without_failed_case(self):
        log = ("# selftests: prepage: t\n# ok 1 a\n"
               "not ok 1 selftests: prepage: t # TIMEOUT 300 seconds\n")
        got = results.kselftest(log.splitlines(True))
        self.assertEqual(got, [R("PASS", "kselftest", "prepage: t:a"),
                               R("FAIL", "kselftest", "prepage: t (exit status)")])

    def test_kselftest_cut_off_before_the_next_program(self):
        log = ("# selftests: mm: a\n# ok 1 x\n"
               "# selftests: mm: b\nok 2 selftests: mm: b\n")
        got = results.kselftest(log.splitlines(True))
        self.assertEqual(got, [R("FAIL", "kselftest", "mm: a (no result: crashed or cut off)"),
                               R("PASS", "kselftest", "mm: b")])

    def test_kunit(self):
        got = results.kunit(KUNIT.splitlines(True))
        self.assertEqual(got, [
            R("PASS", "kunit", "prepage_core.extent_merge"),
            R("FAIL", "kunit", "prepage_core.extent_split"),
            R("SKIP", "kunit", "prepage_core.parse", "no file"),
            R("PASS", "kunit", "unfinished.first"),
            R("FAIL", "kunit", "unfinished (suite did not finish)"),
        ])

    def test_kunit_suite_run_again(self):
        log = KUNIT.split("[    1.000012]")[0].replace("not ok 2", "ok 2") * 2
        got = results.kunit(log.replace("# SKIP no file", "").splitlines(True))
        names = [r.name for r in got]
        self.assertEqual(names, [
            "prepage_core.extent_merge", "prepage_core.extent_split",
            "prepage_core.parse", "prepage_core[2].extent_merge",
            "prepage_core[2].extent_split", "prepage_core[2].parse"])
        self.assertEqual({r.verdict for r in got}, {"PASS"})


def judged(log, known=None):
    lines = log.splitlines(True)
    return [results.line(r) for r in
            results.judge(results.kselftest(lines) + results.kunit(lines), known)]


PREPAGE_PASS = ("# selftests: prepage: t\n# ok 1 a\n"
                "ok 1 selftests: prepage: t\n")
KUNIT_PASS = ("    # Subtest: prepage-core\n    1..1\n    ok 1 parse\n"
              "ok 1 prepage-core\n")


class JudgeTest(unittest.TestCase):
    """SKIPs of prepage tests fail; upstream failures need a known reason."""

    def test_prepage_skip_is_a_failure(self):
        log = ("# selftests: prepage: file_prepage\n"
               "# ok 1 file.hit # SKIP PREPAGE_TESTDIR is not set\n"
               "ok 1 selftests: prepage: file_prepage\n" + KUNIT_PASS)
        self.assertEqual(judged(log), [
            "FAIL kselftest prepage: file_prepage:file.hit (skipped: "
            "PREPAGE_TESTDIR is not set; a SKIP in the test VM is a failure)",
            "PASS kunit prepage-core.parse"])

    def test_prepage_program_skip_is_a_failure(self):
        log = ("# selftests: prepage: anon_trace\n"
               "ok 1 selftests: prepage: anon_trace # SKIP\n" + KUNIT_PASS)
        got = judged(log)
        self.assertTrue(got[0].startswith("FAIL kselftest prepage: anon_trace (skipped"), got)

    def test_kunit_skip_is_a_failure(self):
        log = PREPAGE_PASS + ("    # Subtest: prepage-core\n    1..1\n"
                              "    ok 1 parse # SKIP no file\nok 1 prepage-core\n")
        self.assertEqual(judged(log)[1],
                         "FAIL kunit prepage-core.parse (skipped: no file; "
                         "a SKIP in the test VM is a failure)")

    def test_everything_skipped_fails(self):
        log = ("# selftests: prepage: a\nok 1 selftests: prepage: a # SKIP\n"
               "# selftests: prepage: b\n# ok 1 x # SKIP\n"
               "ok 2 selftests: prepage: b\n"
               "    # Subtest: prepage-core\n    ok 1 y # SKIP\n")
        got = judged(log)
        self.assertTrue(got)
        self.assertFalse([g for g in got if not g.startswith("FAIL")], got)

    def test_no_prepage_results_fails(self):
        self.assertEqual(judged("PREPAGE-GUEST: 6.12 swap: none\n"), [
            "FAIL kselftest prepage (no results: the prepage kselftests did not run)",
            "FAIL kunit prepage (no results: the prepage KUnit suites did not run)"])
        # Upstream results and other suites do not stand in for them.
        log = ("# selftests: mm: cow\n# ok 1 a\nok 1 selftests: mm: cow\n"
               "    # Subtest: other\n    ok 1 z\nok 1 other\n")
        got = judged(log, known=[])
        self.assertIn("FAIL kselftest prepage (no results: the prepage kselftests did not run)", got)
        self.assertIn("FAIL kunit prepage (no results: the prepage KUnit suites did not run)", got)

    def test_upstream(self):
        known = results.read_known(
            "# comment\n\n"
            "mm: cow:Basic COW after fork() * | TCG has no such thing\n"
            "proc: read | /proc/x is odd here\n")
        log = (PREPAGE_PASS + KUNIT_PASS +
               "TAP version 13\n"
               "# selftests: mm: cow\n"
               "# ok 1 Basic COW after fork() with base page\n"
               "# not ok 2 Basic COW after fork() with THP\n"
               "# not ok 3 R/O pin\n"
               "# ok 4 io_uring # SKIP liburing missing\n"
               "# ok 5 # SKIP Hugetlb testing: dirty\n"
               "not ok 1 selftests: mm: cow # exit=1\n"
               "# selftests: proc: read\n"
               "not ok 2 selftests: proc: read # exit=1\n"
               "# selftests: mm: gup_test -u\n"
               "ok 3 selftests: mm: gup_test -u # SKIP\n")
        self.assertEqual(judged(log, known)[1:-1], [
            "PASS upstream mm: cow:Basic COW after fork() with base page",
            "SKIP upstream mm: cow:Basic COW after fork() with THP "
            "(known failure: TCG has no such thing)",
            "FAIL upstream mm: cow:R/O pin",
            "SKIP upstream mm: cow:io_uring (liburing missing)",
            "SKIP upstream mm: cow:Hugetlb testing: dirty",
            "SKIP upstream proc: read (known failure: /proc/x is odd here)",
            "SKIP upstream mm: gup_test -u",
        ])

    def test_upstream_flaky(self):
        """A failure that passed on the runner's second run is a SKIP that
        says so; the first run's output is not read as results."""
        log = (PREPAGE_PASS + KUNIT_PASS +
               "TAP version 13\n"
               "# selftests: mm: cow\n"
               "# first run: ok 1 Basic COW\n"
               "# first run: not ok 2 R/O pin\n"
               "# (mm: cow: exit 1 after 3s; running it again)\n"
               "# ok 1 Basic COW\n"
               "# ok 2 R/O pin\n"
               "# (mm: cow: exit 0 after 3s)\n"
               "ok 1 selftests: mm: cow # SKIP flaky: exit 1 on the first "
               "run, passed on the second\n")
        self.assertEqual(judged(log, [])[1:-1], [
            "PASS upstream mm: cow:Basic COW",
            "PASS upstream mm: cow:R/O pin",
            "SKIP upstream mm: cow (flaky: exit 1 on the first run, passed "
            "on the second)",
        ])
        log = (PREPAGE_PASS + KUNIT_PASS +
               "TAP version 13\n"
               "# selftests: mm: uffd-unit-tests\n"
               "# first run: Testing events on anon... ERROR\n"
               "# Testing events on anon... done\n"
               "ok 1 selftests: mm: uffd-unit-tests # SKIP flaky: exit 1 on "
               "the first run, passed on the second\n")
        self.assertEqual(judged(log, [])[1:-1], [
            "SKIP upstream mm: uffd-unit-tests (flaky: exit 1 on the first "
            "run, passed on the second)",
        ])

    def test_upstream_missing_fails(self):
        got = judged(PREPAGE_PASS + KUNIT_PASS, known=[])
        self.assertEqual(got[-1], "FAIL upstream (no results: the upstream kselftests did not run)")
        self.assertEqual(len(judged(PREPAGE_PASS + KUNIT_PASS)), 2)

    def test_known_file_format(self):
        with self.assertRaises(ValueError):
            results.read_known("mm: cow without a reason\n")
        known = os.path.join(os.path.dirname(__file__), "upstream-selftests.known")
        if os.path.exists(known):
            with open(known) as f:
                results.read_known(f.read())


if __name__ == "__main__":
    unittest.main()
