#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scenario.py drift DIR... | apps DIR: the verdicts of the scenarios of
bench/README.md ("Scenarios for what only an engine that learns online
could win"), from prepage-bench's output (DIR/raw.txt) of
`make bench BENCH_SCENARIO=drift` (a run per drift, DIR/d<PCT>) or
`BENCH_SCENARIO=apps`. The criteria are the README's, written before the
first run; every ratio is paired switch by switch, with the 95% interval
of report.py's two-stage bootstrap. Exit 0 on PASS, 1 on FAIL, 2 when a
run the criteria need is missing or failed."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402


def load(d):
    path = os.path.join(d, "raw.txt")
    if not os.path.exists(path):
        return None
    recs = report.parse(path)
    # The anatomy trials' latencies are not measured ones (report.py).
    recs["SWITCH"] = [r for r in recs["SWITCH"] if not r.get("anatomy")]
    if not recs["CONFIG"] or not recs["SWITCH"]:
        return None
    return recs


def cmp(switches, ref, mode):
    """@mode against @ref over @switches: above 1, @mode is faster."""
    index = report.switch_index(switches)
    return report.compare(index, ref, mode)


def show(label, c):
    print(f"  {label:<44} {report.fmt_ci(c) if c else 'not run'}")


def r2(v):
    return None if v is None else round(v, 2)


def at_least(c, x):
    """Ratio at least @x with the interval's lower end above 1.00."""
    return c is not None and c["ci_low"] is not None and \
        r2(c["ratio"]) >= x and r2(c["ci_low"]) > 1.0


def not_slower(c):
    """The interval's upper end at 1.00 or above."""
    return c is not None and c["ci_high"] is not None and \
        r2(c["ci_high"]) >= 1.0


def faster(c):
    """The interval's lower end above 1.00."""
    return c is not None and c["ci_low"] is not None and \
        r2(c["ci_low"]) > 1.0


def judge(fails, label, c, test, wanted):
    """Note in @fails the comparison @c (@label) if @test says it fails
    the criterion @wanted."""
    if not test(c):
        fails.append(f"{label} {report.fmt_ci(c, False)} (wanted {wanted})")


NOT_SLOWER = (not_slower, "the upper end at 1.00 or above")
FASTER = (faster, "the lower end above 1.00")


def at_least_x(x):
    return (lambda c: at_least(c, x), f">= {x:.2f}x, lower end above 1.00")


def bad_pages(recs):
    return sum(r.get("bad", 0) for r in recs["MODE"])


def drift(dirs):
    runs = {}
    for d in dirs:
        recs = load(d)
        if recs is None:
            print(f"scenario drift: {d}: no run", file=sys.stderr)
            continue
        runs[recs["CONFIG"][0]["drift_pct"]] = recs
    print("== scenario A, drift: switches 41-60 of each app ==")
    fails, missing = [], []
    for pct in sorted(runs):
        recs = runs[pct]
        cfg = recs["CONFIG"][0]
        late = [r for r in recs["SWITCH"] if r.get("app_sw", -1) >= 40]
        modes = sorted({r["mode"] for r in late})
        print(f"drift {pct}% ({cfg['apps']} apps, {cfg['trials']} trials, "
              f"{len(late)} switches, modes {','.join(modes)}; "
              f"pages with wrong contents: {bad_pages(recs)})")
        pu = cmp(late, "userspace", "prepage")
        pr = cmp(late, "userspace-rerecord", "prepage")
        if pct in (0, 10, 20):
            need(pu, f"drift {pct}%: prepage or userspace", missing)
        if pct in (10, 20):
            need(pr, f"drift {pct}%: prepage or userspace-rerecord", missing)
        show("prepage vs userspace (replay)", pu)
        show("prepage vs userspace-rerecord", pr)
        show("  the same, switches 41-50 (no recording)",
             cmp([r for r in late if r["app_sw"] < 50],
                 "userspace-rerecord", "prepage"))
        show("userspace-rerecord vs userspace", cmp(late, "userspace",
                                                    "userspace-rerecord"))
        for m in modes:
            if m.startswith("prepage@"):
                show(f"prepage vs {m}", cmp(late, m, "prepage"))
        for m in ("userspace", "userspace-rerecord", "prepage",
                  "prepage-profile"):
            if m in modes and "baseline" in modes:
                show(f"{m} vs baseline", cmp(late, "baseline", m))
        if bad_pages(recs):
            fails.append(f"drift {pct}%: pages with wrong contents")
        if pct in (10, 20):
            judge(fails, f"drift {pct}%: prepage vs userspace", pu,
                  *at_least_x(1.10))
            judge(fails, f"drift {pct}%: prepage vs userspace-rerecord", pr,
                  *NOT_SLOWER)
        if pct == 0:
            judge(fails, "drift 0%: prepage vs userspace", pu, *NOT_SLOWER)
    for pct in (0, 10, 20):
        if pct not in runs:
            missing.append(f"drift {pct}%")
    return verdict(fails, missing)


def apps(d):
    recs = load(d)
    print("== scenario C, many apps, little profiling ==")
    if recs is None:
        return verdict([], [f"{d}: no run"])
    cfg = recs["CONFIG"][0]
    unprof = {i for i in range(32) if int(cfg["unprofiled"], 16) >> i & 1}
    upd, at = cfg["update_app"], cfg["update_at"]
    sw = recs["SWITCH"]
    counts = {}
    for r in sw:
        if r["mode"] == "baseline" and r["trial"] == 0:
            counts[r["app"]] = counts.get(r["app"], 0) + 1
    print(f"{cfg['apps']} apps, {cfg['trials']} trials, sequence "
          f"{cfg['sequences']}; never profiled: "
          f"{','.join(map(str, sorted(unprof)))}; app {upd} updated before "
          f"switch {at}; switches per app (a trial): "
          + " ".join(f"{a}:{counts[a]}" for a in sorted(counts)))
    print(f"pages with wrong contents: {bad_pages(recs)}")
    fails, missing = [], []
    allc = need(cmp(sw, "userspace", "prepage"), "prepage or userspace",
                missing)
    newc = need(cmp([r for r in sw if r["app"] in unprof], "baseline",
                    "prepage"), "the never-profiled apps' switches", missing)
    updc = need(cmp([r for r in sw if r["app"] == upd and r["sw"] >= at],
                    "baseline", "prepage"), "the updated app's switches",
                missing)
    show("all switches: prepage vs userspace", allc)
    show("all switches: prepage vs baseline", cmp(sw, "baseline", "prepage"))
    show("all switches: userspace vs baseline",
         cmp(sw, "baseline", "userspace"))
    show("never profiled: prepage vs baseline", newc)
    show("never profiled: userspace vs baseline",
         cmp([r for r in sw if r["app"] in unprof], "baseline", "userspace"))
    show(f"app {upd} after its update: prepage vs baseline", updc)
    show(f"app {upd} after its update: userspace vs baseline",
         cmp([r for r in sw if r["app"] == upd and r["sw"] >= at],
             "baseline", "userspace"))
    judge(fails, "all switches: prepage vs userspace", allc,
          *at_least_x(1.05))
    judge(fails, "never-profiled apps: prepage vs baseline", newc, *FASTER)
    judge(fails, "updated app after the update: prepage vs baseline", updc,
          *NOT_SLOWER)
    if bad_pages(recs):
        fails.append("pages with wrong contents")
    code = verdict(fails, missing)
    return max(code, learn_files(recs, unprof))


def recall(rows, h, m):
    """Hits over hits and misses of keys @h and @m summed over @rows."""
    hits = sum(r.get(h, 0) for r in rows)
    total = hits + sum(r.get(m, 0) for r in rows)
    return None if total == 0 else hits / total


def learn_files(recs, unprof):
    """Issue 41, item 3's criterion (bench/README.md, "Learning files
    without a profile"): each never-profiled app reaches half of its
    steady-state file and anonymous recall by its 3rd switch, and its
    switches are not slower than baseline beyond the interval."""
    print("== issue 41, item 3: learning files without a profile ==")
    sw = [r for r in recs["SWITCH"] if r["mode"] == "prepage"]
    if not sw or "fh" not in sw[0]:
        print("INCOMPLETE: no prepage switch with per-switch counts")
        return 2
    fails = []
    for app in sorted(unprof):
        rows = [r for r in sw if r["app"] == app]
        if not rows:
            fails.append(f"app {app}: no switch")
            continue
        steady, third = [], [r for r in rows if r["app_sw"] == 2]
        for t in sorted({r["trial"] for r in rows}):
            mine = [r for r in rows if r["trial"] == t]
            half = len(mine) // 2
            steady += [r for r in mine if r["app_sw"] >= half]
        for side, h, m in (("file", "fh", "fm"), ("anon", "ah", "am")):
            st, th = recall(steady, h, m), recall(third, h, m)
            if not third:
                fails.append(f"app {app}: no 3rd switch")
                continue
            ok = not st or (th is not None and th >= st / 2)
            print(f"  app {app} {side}: steady-state recall "
                  f"{'-' if st is None else f'{st:.0%}'}, 3rd switch "
                  f"{'-' if th is None else f'{th:.0%}'}"
                  f"{'' if ok else ' (below half)'}")
            if not ok:
                fails.append(f"app {app} {side}: 3rd switch's recall "
                             f"{th or 0:.0%}, below half of {st:.0%}")
    base = cmp([r for r in recs["SWITCH"] if r["app"] in unprof],
               "baseline", "prepage")
    show("never profiled: prepage vs baseline", base)
    judge(fails, "never-profiled apps: prepage vs baseline", base,
          *NOT_SLOWER)
    never = [r for r in recs["SWITCH"] if r["app"] in unprof]
    off = "prepage@file_learn=0"
    show(f"never profiled: prepage vs {off}", cmp(never, off, "prepage"))
    show(f"all switches: prepage vs {off}",
         cmp(recs["SWITCH"], off, "prepage"))
    for mode in ("prepage", off):
        rows = [r for r in recs["SWITCH"] if r["mode"] == mode]
        nv = [r for r in rows if r["app"] in unprof]
        fr = recall(nv, "fh", "fm")
        ar = recall(nv, "ah", "am")
        print(f"  {mode}: never-profiled apps' recall file "
              f"{'-' if fr is None else f'{fr:.0%}'}, anon "
              f"{'-' if ar is None else f'{ar:.0%}'}; all apps' file "
              f"{recall(rows, 'fh', 'fm') or 0:.0%}")
    return verdict(fails, [])


def need(c, what, missing):
    """@c, noted in @missing as @what when no switch of it ran."""
    if c is None:
        missing.append(what)
    return c


def verdict(fails, missing):
    if missing:
        print("INCOMPLETE: not run: " + "; ".join(missing))
        return 2
    if fails:
        print("FAIL:")
        for f in fails:
            print(f"  {f}")
        return 1
    print("PASS")
    return 0


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("drift", "apps") or \
            (sys.argv[1] == "apps" and len(sys.argv) != 3):
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "drift":
        return drift(sys.argv[2:])
    return apps(sys.argv[2])


if __name__ == "__main__":
    sys.exit(main())
