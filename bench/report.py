#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize a prepage-bench run: a table on stdout, JSON, CSV and a PNG.

    bench/report.py RAW OUTDIR

RAW is the guest output of prepage-bench (SWITCH/APPSTAT/MODE lines,
and TARGET/HIST lines for the footprints' stability). Writes
OUTDIR/results.json, OUTDIR/switches.csv, OUTDIR/summary.csv,
OUTDIR/latency.png (mean per app and mode, with 95% intervals),
OUTDIR/cdf.png (the distribution of switch latency per mode), with
anatomy trials OUTDIR/anatomy.png and, with HIST lines, OUTDIR/hist.png
(how many of the 10 profiling switches used a page). Exits 1 if the run
saw a page with wrong contents or has no results.

Latencies and counters come from the measured trials only; the anatomy
trials (SWITCH anatomy=1, task delay accounting on) give the split of a
switch's latency and, against the measured trials, what the accounting
costs.

A mode is compared with another switch by switch: the same switch (trial,
sequence, app, round) in both, as a ratio of latencies; the ratios'
geometric mean has a 95% interval from a bootstrap that resamples whole
rounds of a trial (the switches of one round share their memory state).
"""
import csv
import json
import math
import os
import random
import statistics
import sys

PAGE = 4096
ORDER = ["ideal", "baseline", "userspace", "userspace-file", "populate",
         "prepage-file", "prepage-anon", "prepage", "prepage-profile",
         "userspace-oracle", "populate-oracle", "prepage-oracle"]
# /proc/<pid>/prepage sizes at the end of a mode (APPSTAT): averaged over
# apps and trials, not summed.
TABLE_KEYS = ["file_target_pages", "anon_target_pages",
              "anon_candidate_pages"]
# The parts of a switch (anatomy), in ms, in stacking order: time on a
# CPU other than swap-in and direct reclaim (the render, minor faults),
# swap-in (zram: decompression, on a CPU), direct reclaim, waiting for a
# CPU, waiting for block I/O (file reads, and pages being read by a
# prepager), and the rest (sleeps none of these count: locks, pipes).
ANATOMY = ["cpu", "swapin", "reclaim", "cpu_wait", "blkio", "other"]
# The paired comparisons, (B, A): B against the reference A. A mode with
# settings of its own (MODE@NAME=VALUE) is also compared with MODE.
PAIRS = [("prepage", "baseline"), ("prepage", "userspace"),
         ("prepage-file", "userspace-file"), ("prepage", "populate"),
         ("prepage", "prepage-profile"), ("userspace", "baseline"),
         ("populate", "baseline"), ("prepage-oracle", "userspace-oracle"),
         ("prepage-oracle", "populate-oracle"), ("ideal", "baseline")]
# The bootstrap: resamples, and the seed that makes the report the same
# every time it is made from the same run.
RESAMPLES = 2000
SEED = 1
# How many of the 10 profiling switches used a page (HIST k1..k10), in
# the bands the targets are published in (TARGET band_9_10=...).
BANDS = [("9-10", 9, 10), ("5-8", 5, 8), ("1-4", 1, 4)]
SOURCES = ["model", "generated", "recorded"]
# Student's t, 97.5th percentile, for 1..30 degrees of freedom.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
        2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101,
        2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
        2.048, 2.045, 2.042]


def glitch(r):
    """Whether switch @r's delay counters cannot be right: time running,
    waiting for a CPU and sleeping in block I/O exclude each other, so
    they cannot add up to more than the switch (plus the counters' own
    slack). It happens when the scheduler delays the dequeue of a task
    that sleeps (EEVDF's DELAY_DEQUEUE): its block I/O delay is then
    started for another task, and ended for it from a stale start; the
    benchmark turns DELAY_DEQUEUE off for the anatomy trials where the
    kernel lets it (MODE ... delay_dequeue_off=1). Under TCG the clocks
    of two vCPUs can also be apart when a task sleeps on one and is
    woken from the other."""
    parts = r["run_us"] + r["cpu_wait_us"] + r["blkio_us"]
    return parts > 1.1 * r["latency_us"] + 1000


def anatomy(sw):
    """Mean ms per part over the anatomy switches @sw, those with
    impossible counters left out (and counted)."""
    bad = [r for r in sw if glitch(r)]
    sw = [r for r in sw if not glitch(r)]
    if not sw:
        return None
    n = len(sw)
    mean = {k: sum(r[k + "_us"] for r in sw) / n / 1000
            for k in ("run", "swapin", "reclaim", "cpu_wait", "blkio",
                      "thrash", "latency")}
    a = {"cpu": max(0.0, mean["run"] - mean["swapin"] - mean["reclaim"]),
         "swapin": mean["swapin"], "reclaim": mean["reclaim"],
         "cpu_wait": mean["cpu_wait"], "blkio": mean["blkio"]}
    a["other"] = mean["latency"] - sum(a.values())
    a["latency"] = mean["latency"]
    a["run"] = mean["run"]
    a["thrash"] = mean["thrash"]
    a["switches"] = n
    a["left_out"] = len(bad)
    a["minflt"] = sum(r.get("minflt", 0) for r in sw) / n
    a["majflt"] = sum(r.get("majflt", 0) for r in sw) / n
    # Footprint pages not resident at the start, in the profile or not.
    for k in ("cold_file_prof", "cold_file_other", "cold_anon_prof",
              "cold_anon_other"):
        a[k] = sum(r.get(k, 0) for r in sw) / n
    return a


def parse(path):
    recs = {"SWITCH": [], "APPSTAT": [], "MODE": [], "CONFIG": [],
            "OVERHEAD": [], "PROFILE": [], "TARGET": [], "HIST": [],
            "APPINFO": [], "WORKLOAD": []}
    with open(path, errors="replace") as f:
        for line in f:
            words = line.split()
            if not words or words[0] not in recs:
                continue
            rec = {}
            for w in words[1:]:
                k, _, v = w.partition("=")
                try:
                    rec[k] = float(v) if "." in v else int(v)
                except ValueError:
                    rec[k] = v
            recs[words[0]].append(rec)
    return recs


def pct(vals, p):
    s = sorted(vals)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def ratio(a, b):
    return a / b if b else None


def t975(df):
    """Student's t, 97.5th percentile, for @df degrees of freedom (past
    the table, the Cornish-Fisher expansion around the normal's)."""
    if df <= len(T975):
        return T975[df - 1]
    z = 1.959964
    return (z + (z ** 3 + z) / (4 * df)
            + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z)
            / (384 * df ** 3))


def mean_ci(vals):
    """Half the width of the t interval, 95%, of the mean of @vals (0
    with fewer than two)."""
    n = len(vals)
    return t975(n - 1) * statistics.stdev(vals) / math.sqrt(n) if n > 1 \
        else 0.0


def switch_index(measured):
    """The latency (us) of each measured switch @measured by mode, then by
    (trial, seq, app, round, n): a sequence can go to an app more than
    once in a round (hub), and the n-th visit of a mode pairs with the
    n-th of another (the sequences are drawn from the same seed)."""
    index = {}
    for r in measured:
        sw = index.setdefault(r["mode"], {})
        key = (r.get("trial"), r.get("seq"), r.get("app"), r.get("round"))
        n = 0
        while key + (n,) in sw:
            n += 1
        sw[key + (n,)] = r["latency_us"]
    return index


def geo_ratio(clusters):
    """The geometric mean of the ratios of @clusters' switches (each
    cluster [sum of the log ratios, switches, sum of A's latencies, sum
    of B's])."""
    return math.exp(sum(c[0] for c in clusters) / sum(c[1] for c in clusters))


def mean_ratio(clusters):
    """A's mean latency over B's, over the switches of @clusters (as
    geo_ratio()'s): the ratio of what a user waits in all."""
    b = sum(c[3] for c in clusters)
    return sum(c[2] for c in clusters) / b if b else float("nan")


def cluster_bootstrap(trials, stats=(geo_ratio,), resamples=RESAMPLES,
                      seed=SEED):
    """Each estimate of @stats (functions of a list of clusters) over
    @trials (per trial, its rounds' clusters) and its 95% percentile
    interval from @resamples two-stage resamples with replacement: the
    trials, then the rounds within each trial drawn (each trial runs a
    mode with its own memory cgroup and balloon, and its rounds carry
    memory state from one to the next); every estimate is read from the
    same resamples. [(estimate, low, high)], low and high None with fewer
    than two rounds in all."""
    flat = [c for t in trials for c in t]
    ests = [f(flat) for f in stats]
    if len(flat) < 2:
        return [(e, None, None) for e in ests]
    rng = random.Random(seed)
    boots = [[] for _ in stats]
    for _ in range(resamples):
        pick = []
        for t in rng.choices(trials, k=len(trials)):
            pick.extend(rng.choices(t, k=len(t)))
        for b, f in zip(boots, stats):
            b.append(f(pick))
    out = []
    for e, b in zip(ests, boots):
        b.sort()
        out.append((e, pct(b, 2.5), pct(b, 97.5)))
    return out


def compare(index, a, b):
    """Mode @b against the reference @a (@index from switch_index()),
    switch by switch over the switches that ran in both: the geometric
    mean of lat_a / lat_b (above 1: @b is faster), which weighs every
    switch alike, and the ratio of their mean latencies (what a user
    waits in all, which long switches weigh in), each with its 95%
    interval, the switches of one round of one trial resampled together
    (they share the memory state). None if no switch ran in both."""
    sa, sb = index.get(a, {}), index.get(b, {})
    clusters = {}
    for key in sa.keys() & sb.keys():
        if sa[key] <= 0 or sb[key] <= 0:
            continue
        c = clusters.setdefault((key[0], key[3]), [0.0, 0, 0.0, 0.0])
        c[0] += math.log(sa[key] / sb[key])
        c[1] += 1
        c[2] += sa[key]
        c[3] += sb[key]
    if not clusters:
        return None
    # In a fixed order: the resamples draw by position.
    trials = {}
    for k in sorted(clusters, key=str):
        trials.setdefault(k[0], []).append(clusters[k])
    tr = [trials[t] for t in sorted(trials, key=str)]
    (est, low, high), (mest, mlow, mhigh) = cluster_bootstrap(
        tr, (geo_ratio, mean_ratio))
    return {"b": b, "a": a, "ratio": est, "ci_low": low, "ci_high": high,
            "verdict": verdict(low, high),
            "mean_ratio": mest, "mean_ci_low": mlow, "mean_ci_high": mhigh,
            "mean_verdict": verdict(mlow, mhigh),
            "pairs": sum(c[1] for t in tr for c in t),
            "clusters": sum(len(t) for t in tr), "trials": len(tr)}


def verdict(low, high):
    """What the interval [@low, @high] of the ratio of B to A says, at the
    precision it is printed with: an interval that contains 1.00 is no
    difference."""
    if low is None:
        return "-"
    return "B faster" if round(low, 2) > 1 else \
        "B slower" if round(high, 2) < 1 else "no difference"


def fmt_ci(c, mark=True, key=""):
    """Comparison @c as '1.10x [1.02-1.19]' (its geometric mean; with
    @key "mean_", its ratio of means); with @mark, ' =' after it when the
    interval contains 1.00 (two blanks when not, to keep a column
    aligned)."""
    if c is None:
        return "-"
    est = c[key + "ratio"]
    low, high = c[key + "ci_low"], c[key + "ci_high"]
    if low is None:
        return f"{est:.2f}x" + ("  " if mark else "")
    return (f"{est:.2f}x [{low:.2f}-{high:.2f}]"
            + ((" =" if c[key + "verdict"] == "no difference" else "  ")
               if mark else ""))


def comparisons(index, modes):
    """The paired comparisons (PAIRS, then each mode with settings of its
    own against its base mode) of the modes @modes that ran."""
    want = [(b, a) for b, a in PAIRS if a in modes and b in modes]
    want += [(m, m.split("@")[0]) for m in modes
             if "@" in m and m.split("@")[0] in modes]
    out = []
    for b, a in want:
        c = compare(index, a, b)
        if c:
            out.append(c)
    return out


def summarize(recs):
    anat_sw = [r for r in recs["SWITCH"] if r.get("anatomy")]
    measured = [r for r in recs["SWITCH"] if not r.get("anatomy")]
    # A mode with settings of its own (MODE@NAME=VALUE) follows MODE.
    seen = {r["mode"] for r in measured}
    modes = sorted((m for m in seen if m.split("@")[0] in ORDER),
                   key=lambda m: (ORDER.index(m.split("@")[0]), m))
    modes += sorted({r["mode"] for r in measured} - set(modes))
    out = {"config": recs["CONFIG"][0] if recs["CONFIG"] else {}, "modes": {}}
    by_trial = {}
    for m in modes:
        sw = [r for r in measured if r["mode"] == m]
        lat = [r["latency_us"] / 1000 for r in sw]
        trials = sorted({r["trial"] for r in sw})
        per_trial = [statistics.mean(r["latency_us"] / 1000 for r in sw
                                     if r["trial"] == t) for t in trials]
        by_trial[m] = dict(zip(trials, per_trial))
        apps = sorted({r["app"] for r in sw})
        st, tables = {}, []
        for r in recs["APPSTAT"]:
            if r["mode"] == m and not r.get("anatomy"):
                tables.append({k: r.get(k, 0) for k in TABLE_KEYS})
                for k, v in r.items():
                    if k not in ["mode", "trial", "app"] + TABLE_KEYS:
                        st[k] = st.get(k, 0) + v
        md = [r for r in recs["MODE"] if r["mode"] == m
              and not r.get("anatomy")]
        an_m = [r for r in anat_sw if r["mode"] == m]
        an = anatomy(an_m)
        if an:
            an["per_sequence"] = {q: anatomy([r for r in an_m
                                              if r.get("seq") == q])
                                  for q in sorted({r.get("seq") for r in an_m}
                                                  - {None})}
            # What the delay accounting costs: the anatomy trials' mean
            # latency against the measured trials'.
            an["overhead"] = ratio(an["latency"],
                                   statistics.mean(r["latency_us"] / 1000
                                                   for r in sw))
        n = len(sw)
        fp, fh, fm = (st.get(k, 0) for k in ("file_prepaged", "file_hit",
                                              "file_miss"))
        ap, ah, am = (st.get(k, 0) for k in ("anon_prepaged", "anon_hit",
                                              "anon_miss"))
        out["modes"][m] = {
            "switches": n,
            "mean_ms": statistics.mean(lat),
            "median_ms": statistics.median(lat),
            "p95_ms": pct(lat, 95),
            "trial_means_ms": per_trial,
            "stdev_ms": statistics.stdev(lat) if n > 1 else 0.0,
            "per_sequence": {q: statistics.mean(
                r["latency_us"] / 1000 for r in sw if r.get("seq") == q)
                for q in sorted({r.get("seq") for r in sw} - {None})},
            # The render touches the app's files first, then its heap:
            # when it reached the heap splits the latency in two.
            "files_ms": statistics.mean(
                (r["latency_us"] - r["heap_us"]) / 1000 for r in sw)
            if all("heap_us" in r for r in sw) else None,
            "heap_ms": statistics.mean(r["heap_us"] / 1000 for r in sw)
            if all("heap_us" in r for r in sw) else None,
            "per_app": {a: {"mean_ms": statistics.mean(
                                r["latency_us"] / 1000 for r in sw if r["app"] == a),
                            "stdev_ms": statistics.stdev(
                                [r["latency_us"] / 1000 for r in sw if r["app"] == a])
                            if sum(r["app"] == a for r in sw) > 1 else 0.0,
                            # Half the 95% interval of the mean (t).
                            "ci95_ms": mean_ci(
                                [r["latency_us"] / 1000 for r in sw if r["app"] == a])}
                        for a in apps},
            "file_precision": ratio(fh, fp), "file_recall": ratio(fh, fh + fm),
            "anon_precision": ratio(ah, ap), "anon_recall": ratio(ah, ah + am),
            "prepaged_mb_per_switch": (fp + ap) * PAGE / 2**20 / n,
            "wasted_mb_per_switch": (fp - fh + ap - ah) * PAGE / 2**20 / n,
            # Prepaged pages reclaimed before the app used them.
            "file_evicted": ratio(st.get("file_evicted", 0), fp),
            "anon_evicted": ratio(st.get("anon_evicted", 0), ap),
            # Misses the prefetcher could have saved (target or plan
            # pages): the app got there first.
            "file_late": ratio(st.get("file_late", 0), fm),
            "anon_late": ratio(st.get("anon_late", 0), am),
            # The anonymous misses no plan held, per switch: the pages
            # the app swapped in itself outside the window's targets.
            "anon_out_per_switch": (am - st.get("anon_late", 0)) / n
            if "anon_miss" in st else None,
            # Windows whose prepagers stopped early, by why, per switch:
            # the budget ran out, memory pressure (bringing more in would
            # have made the app's memory cgroup or its node reclaim), the
            # window ended first (the prepagers were behind the app), no
            # memory.
            "stops_per_switch": {k: st.get(k + "_stops", 0) / n
                                 for k in ("budget", "pressure", "closed",
                                           "nomem")},
            # Switches in which a side sat out, backed off because its
            # prepaging had not paid (min_precision_permille).
            "sat_out_per_switch": {k: st.get(k + "_sat_out", 0) / n
                                   for k in ("file", "anon")},
            # The memory lock of the driver, and what it left (MiB):
            # the same for every mode, or the modes are not comparable.
            "balloon_mb": [r["balloon_mb"] for r in md if "balloon_mb" in r],
            "avail_mb": [r["avail_mb"] for r in md if "avail_mb" in r],
            "prepager_cpu_ms_per_switch":
                sum(r["prepager_cpu_ms"] for r in md) / n,
            # The userspace modes' replay thread (runs without the
            # prepagers, so one column shows whichever prefetched).
            "replay_cpu_ms_per_switch":
                sum(r.get("replay_cpu_ms", 0) for r in md) / n,
            "kswapd_cpu_ms_per_switch":
                sum(r.get("kswapd_cpu_ms", 0) for r in md) / n,
            # The CPUs the prefetcher kept busy during a switch, on
            # average: its CPU time per switch over the switch's mean
            # latency (its windows end when the switch is done).
            "prefetch_cpus": (sum(r["prepager_cpu_ms"] +
                                  r.get("replay_cpu_ms", 0) for r in md) / n /
                              statistics.mean(lat)) if lat else None,
            # TLB shootdown IPIs, all CPUs (x86 only; None elsewhere):
            # what flushing the app's TLB from another CPU costs it.
            "tlb_ipis_per_switch":
                sum(r["tlb_ipis"] for r in md) / n
                if md and all(r.get("tlb_ipis", -1) >= 0 for r in md)
                else None,
            "start_ms_mean": statistics.mean(r.get("start_us", 0) / 1000
                                             for r in sw),
            "start_ms_p95": pct([r.get("start_us", 0) / 1000 for r in sw], 95),
            # The writer's own CPU in the 'start' write: the rest of its
            # wall time it waited (for a CPU, a lock).
            "start_cpu_ms_p95": pct([r.get("start_cpu_us", 0) / 1000
                                     for r in sw], 95),
            # Of the rest, how long it was runnable but preempted.
            "start_wait_ms_p95": pct([r.get("start_wait_us", 0) / 1000
                                      for r in sw], 95),
            "end_ms_mean": statistics.mean(r["end_us"] / 1000 for r in sw),
            # After 'end': the wait for the window to be counted.
            "settle_ms_mean": statistics.mean(r.get("settle_us", 0) / 1000
                                              for r in sw),
            "bad_pages": sum(r["bad"] for r in sw) +
                         sum(r["bad"] for r in an_m),
            "counters": st,
            # Table sizes at the end of the mode, per app.
            "tables": {k: statistics.mean(t[k] for t in tables)
                       for k in TABLE_KEYS} if tables else {},
            "anatomy": an,
        }
    base = out["modes"].get("baseline", {}).get("mean_ms")
    ideal = out["modes"].get("ideal", {}).get("mean_ms")
    index = switch_index(measured)
    for m, s in out["modes"].items():
        # The ratio of the means; and switch by switch, the geometric
        # mean of the ratios with its 95% interval (compare()).
        s["speedup_vs_baseline"] = ratio(base, s["mean_ms"]) if base else None
        c = compare(index, "baseline", m) if base else None
        s["vs_baseline"] = c
        s["speedup_vs_baseline_geo"] = c and c["ratio"]
        s["speedup_vs_baseline_ci_low"] = c and c["ci_low"]
        s["speedup_vs_baseline_ci_high"] = c and c["ci_high"]
        # The same switches' mean latencies: what a user waits in all.
        s["speedup_vs_baseline_mean"] = c and c["mean_ratio"]
        s["speedup_vs_baseline_mean_ci_low"] = c and c["mean_ci_low"]
        s["speedup_vs_baseline_mean_ci_high"] = c and c["mean_ci_high"]
        s["ratio_to_ideal"] = ratio(s["mean_ms"], ideal) if ideal else None
        # Paired by trial: the modes of a trial run one after the other,
        # so that a slow stretch of the host slows a trial's modes alike
        # and shows less in these than in the trial spread.
        s["speedup_by_trial"] = paired(by_trial.get("baseline"), by_trial[m])
        # A mode with settings of its own against its base mode.
        if "@" in m:
            s["speedup_vs_base_mode_by_trial"] = paired(
                by_trial.get(m.split("@")[0]), by_trial[m])
    out["pairs"] = comparisons(index, modes)
    out["run"] = run_info(recs, measured, modes)
    return out


def run_info(recs, measured, modes):
    """How much the run measured: its trials, measured switches per mode
    (@modes, from @measured) and the VM time of the modes (MODE wall_ms),
    measured and anatomy trials."""
    wall = [0.0, 0.0]
    for r in recs["MODE"]:
        wall[bool(r.get("anatomy"))] += r.get("wall_ms", 0)
    timed = any("wall_ms" in r for r in recs["MODE"])
    return {"trials": sorted({r["trial"] for r in measured}),
            "anatomy_trials": sorted({r["trial"] for r in recs["SWITCH"]
                                      if r.get("anatomy")}),
            "switches": {m: sum(r["mode"] == m for r in measured)
                         for m in modes},
            "wall_min": sum(wall) / 60000 if timed else None,
            "wall_min_measured": wall[0] / 60000,
            "wall_min_anatomy": wall[1] / 60000}


def run_line(run):
    """@run (run_info()) in a sentence."""
    n = set(run["switches"].values())
    sw = (f"{n.pop()} per mode" if len(n) == 1 else
          ", ".join(f"{m} {v}" for m, v in run["switches"].items()))
    an = len(run["anatomy_trials"])
    nt = len(run["trials"])
    return (f"Run: {nt} measured trial{'s' if nt != 1 else ''}"
            + (f" (and {an} anatomy)" if an else "")
            + f"; measured switches: {sw}"
            + ("" if run["wall_min"] is None else
               f"; the modes' VM wall time {run['wall_min']:.1f} min"
               + (f" ({run['wall_min_measured']:.1f} measured, "
                  f"{run['wall_min_anatomy']:.1f} anatomy)" if an else "")))


def paired(ref, mode):
    """Speedups of @mode against @ref ({trial: mean ms}) trial by trial,
    in trial order, over the trials both ran; None if there are none."""
    if not ref:
        return None
    common = sorted(set(ref) & set(mode))
    return [ref[t] / mode[t] for t in common] or None


def spread(vals, spec=".2f", unit="x"):
    return "-" if not vals else \
        f"{format(min(vals), spec)}-{format(max(vals), spec)}{unit}"


def render(cols, rows):
    """A right-aligned text table: header @cols, then @rows."""
    widths = [max(len(str(x)) for x in col) for col in zip(cols, *rows)]
    return "\n".join("  ".join(str(c).rjust(w) for c, w in zip(r, widths))
                     for r in [cols] + rows)


def fmt(v, spec=".1f", pctg=False):
    if v is None:
        return "-"
    return f"{v * 100:.1f}%" if pctg else format(v, spec)


def table(summary):
    cols = ["mode", "mean ms", "median", "p95", "trial spread", "vs base",
            "vs base (mean)", "by trial", "/ideal", "file P", "file R", "anon P", "anon R", "MB/sw",
            "waste MB/sw", "evict f/a", "late f/a", "out/sw",
            "stops b/p/c/n", "sat out f/a", "anon T/C",
            "pref ms/sw", "pref CPUs", "kswapd ms/sw", "TLB IPI/sw",
            "start ms",
            "start p95", "start CPU p95", "start wait p95", "end ms",
            "settle ms"]
    rows = []
    for m, s in summary["modes"].items():
        tm = s["trial_means_ms"]
        rows.append([m, fmt(s["mean_ms"]), fmt(s["median_ms"]),
                     fmt(s["p95_ms"]),
                     f"{min(tm):.1f}-{max(tm):.1f}",
                     fmt_ci(s["vs_baseline"]) if s.get("vs_baseline") else
                     fmt(s["speedup_vs_baseline"], ".2f") + "x"
                     if s["speedup_vs_baseline"] else "-",
                     fmt_ci(s["vs_baseline"], key="mean_")
                     if s.get("vs_baseline") else "-",
                     spread(s["speedup_by_trial"]),
                     fmt(s["ratio_to_ideal"], ".2f"),
                     fmt(s["file_precision"], pctg=True),
                     fmt(s["file_recall"], pctg=True),
                     fmt(s["anon_precision"], pctg=True),
                     fmt(s["anon_recall"], pctg=True),
                     fmt(s["prepaged_mb_per_switch"], ".2f"),
                     fmt(s["wasted_mb_per_switch"], ".2f"),
                     fmt(s["file_evicted"], ".0%") + "/" +
                     fmt(s["anon_evicted"], ".0%"),
                     fmt(s["file_late"], ".0%") + "/" +
                     fmt(s["anon_late"], ".0%"),
                     fmt(s["anon_out_per_switch"], ".1f"),
                     "/".join(fmt(s["stops_per_switch"][k], ".0%")
                              for k in ("budget", "pressure", "closed",
                                        "nomem")),
                     "/".join(fmt(s["sat_out_per_switch"][k], ".0%")
                              for k in ("file", "anon")),
                     "%s/%s" % tuple(fmt(s["tables"].get(k), ".0f") for k in
                                     ("anon_target_pages",
                                      "anon_candidate_pages")),
                     fmt(s["prepager_cpu_ms_per_switch"] +
                         s["replay_cpu_ms_per_switch"]),
                     fmt(s["prefetch_cpus"], ".2f"),
                     fmt(s["kswapd_cpu_ms_per_switch"]),
                     fmt(s["tlb_ipis_per_switch"], ".0f"),
                     fmt(s["start_ms_mean"], ".2f"),
                     fmt(s["start_ms_p95"], ".2f"),
                     fmt(s["start_cpu_ms_p95"], ".2f"),
                     fmt(s["start_wait_ms_p95"], ".2f"),
                     fmt(s["end_ms_mean"], ".2f"),
                     fmt(s["settle_ms_mean"], ".2f")])
    return render(cols, rows)


def sequence_table(summary):
    """Mean ms per mode and app sequence, and the speedup vs baseline."""
    seqs = sorted({q for s in summary["modes"].values()
                   for q in s["per_sequence"]})
    if not seqs:
        return None
    base = summary["modes"].get("baseline", {}).get("per_sequence", {})
    cols = ["mode"] + [f"{q} ms (vs base)" for q in seqs]
    rows = []
    for m, s in summary["modes"].items():
        row = [m]
        for q in seqs:
            v = s["per_sequence"].get(q)
            b = base.get(q)
            row.append("-" if v is None else
                       f"{v:.1f} ({b / v:.2f}x)" if b else f"{v:.1f}")
        rows.append(row)
    return render(cols, rows)


def phase_table(summary):
    """Mean ms per mode of the render's two parts: files, then heap."""
    rows = [[m, f"{s['mean_ms']:.1f}",
             f"{s['files_ms']:.1f}", f"{s['heap_ms']:.1f}"]
            for m, s in summary["modes"].items()
            if s.get("files_ms") is not None]
    if not rows:
        return None
    return render(["mode", "latency", "files ms", "heap ms"], rows)


def pairs_table(summary):
    """The paired comparisons (summary["pairs"], from compare())."""
    rows = [[f"{c['b']} vs {c['a']}", f"{c['ratio']:.2f}x",
             "-" if c["ci_low"] is None else
             f"{c['ci_low']:.2f}-{c['ci_high']:.2f}", c["verdict"],
             f"{c['mean_ratio']:.2f}x",
             "-" if c["mean_ci_low"] is None else
             f"{c['mean_ci_low']:.2f}-{c['mean_ci_high']:.2f}",
             c["mean_verdict"], c["pairs"], c["clusters"]]
            for c in summary.get("pairs", [])]
    if not rows:
        return None
    return render(["B vs A", "geo mean", "95% CI", "verdict",
                   "mean ratio", "95% CI", "verdict", "pairs", "clusters"],
                  rows)


def bands(counts):
    """The pages seen @counts ({k: pages used in exactly k of the
    windows}) and the % of them in each band of BANDS."""
    seen = sum(counts.values())
    return seen, {b: 100 * sum(v for k, v in counts.items() if lo <= k <= hi)
                  / seen if seen else None for b, lo, hi in BANDS}


def hist_entry(counts, overlaps, target):
    """One HIST row, summed over apps: @counts {k: pages}, @overlaps
    [(overlap, pages seen)] of the apps that know theirs (their mean,
    weighted by the pages), against @target (footprint()'s)."""
    seen, share = bands(counts)
    w = sum(n for _, n in overlaps)
    e = {"seen_pages": seen, "k": {k: counts[k] for k in sorted(counts)},
         "bands": share,
         "overlap": sum(o * n for o, n in overlaps) / w if w else None}
    if target and seen:
        e["vs_target"] = {b: share[b] - target["bands"][b]
                          for b, _, _ in BANDS
                          if target["bands"].get(b) is not None}
        e["max_vs_target"] = max((abs(v) for v in e["vs_target"].values()),
                                 default=None)
    return e


def footprint(recs):
    """How stable the apps' footprints are over the 10 profiling
    switches: the published targets (TARGET, per side), and per side and
    source (HIST: the model's expectation, what the generator produced,
    what the kernel recorded) the pages used in exactly k of them, summed
    over apps and per app. None without TARGET or HIST lines."""
    if not recs["TARGET"] and not recs["HIST"]:
        return None
    target = {}
    for r in recs["TARGET"]:
        ov = r.get("overlap", -1)
        target[r["side"]] = {
            "bands": {b: r.get("band_%d_%d" % (lo, hi))
                      for b, lo, hi in BANDS},
            "overlap": ov if isinstance(ov, (int, float)) and ov >= 0
            else None,
            "source": r.get("source")}
    total, per_app = {}, {}
    for r in recs["HIST"]:
        ov = r.get("overlap", -1)
        counts = {int(k[1:]): v for k, v in r.items()
                  if k[:1] == "k" and k[1:].isdigit()}
        for key in ((r["side"], r["source"]),
                    (r["app"], r["side"], r["source"])):
            g = (total if len(key) == 2 else per_app).setdefault(
                key, [{}, []])
            for k, v in counts.items():
                g[0][k] = g[0].get(k, 0) + v
            if isinstance(ov, (int, float)) and ov >= 0:
                g[1].append((ov, sum(counts.values())))

    def order(keys, i):
        return sorted(keys, key=lambda k: (
            ["file", "anon"].index(k[i]) if k[i] in ("file", "anon") else 2,
            str(k[i]),
            SOURCES.index(k[i + 1]) if k[i + 1] in SOURCES else 3,
            str(k[i + 1])))
    out = {"target": target, "sides": {}, "per_app": {}}
    for side, src in order(total, 0):
        out["sides"].setdefault(side, {})[src] = hist_entry(
            *total[side, src], target.get(side))
    for app, side, src in sorted(order(per_app, 1), key=lambda k: k[0]):
        out["per_app"].setdefault(app, {}).setdefault(side, {})[src] = \
            hist_entry(*per_app[app, side, src], target.get(side))
    return out


def footprint_table(fp):
    """The footprint() summary as a table: per side the target, then
    each source summed over apps; and a line per app and side."""
    def diff(e):
        if e.get("vs_target") is None:
            return "-", "-"
        return ("/".join(f"{e['vs_target'][b]:+.1f}" if b in e["vs_target"]
                         else "-" for b, _, _ in BANDS),
                fmt(e["max_vs_target"]))
    rows = []
    sides = list(fp["sides"]) + [s for s in fp["target"]
                                 if s not in fp["sides"]]
    for side in sides:
        t = fp["target"].get(side)
        if t:
            rows.append([side, f"target ({t['source']})", "-"] +
                        [fmt(t["bands"][b], ".0f") for b, _, _ in BANDS] +
                        [fmt(t["overlap"], ".2f"), "", ""])
        for src, e in fp["sides"].get(side, {}).items():
            # The model is what the targets are drawn from: its distance
            # from them is not a result.
            d = diff(e) if src != "model" else ("", "")
            rows.append([side, src, e["seen_pages"]] +
                        [fmt(e["bands"][b]) for b, _, _ in BANDS] +
                        [fmt(e["overlap"], ".2f"), *d])
    lines = [render(["side", "source", "seen pages", "9-10 %", "5-8 %",
                     "1-4 %", "overlap", "vs target 9-10/5-8/1-4",
                     "max |diff|"], rows)]
    for app, sides in fp["per_app"].items():
        for side, srcs in sides.items():
            lines.append(f"app {app} {side}: " + "; ".join(
                f"{src} " + "/".join(fmt(e["bands"][b], ".0f")
                                     for b, _, _ in BANDS)
                + (f" ov {e['overlap']:.2f}" if e["overlap"] is not None
                   else "")
                + f" ({e['seen_pages']} pages)"
                + (f" max|diff| {e['max_vs_target']:.1f}"
                   if src != "model" and e.get("max_vs_target") is not None
                   else "")
                for src, e in srcs.items()))
    return "\n".join(lines)


def anatomy_table(summary):
    """The parts of a switch per mode, mean ms, from the anatomy trials."""
    rows = []
    for m, s in summary["modes"].items():
        a = s.get("anatomy")
        if not a:
            continue
        rows.append([m, fmt(a["latency"])] +
                    [fmt(a[k]) for k in ANATOMY] +
                    [fmt(a["thrash"]), fmt(a["minflt"], ".0f"),
                     fmt(a["majflt"], ".0f"),
                     "%.0f/%.0f" % (a["cold_file_prof"], a["cold_file_other"]),
                     "%.0f/%.0f" % (a["cold_anon_prof"], a["cold_anon_other"]),
                     fmt(a["overhead"], ".2f") + "x",
                     f"{a['left_out']}/{a['switches'] + a['left_out']}"])
    if not rows:
        return None
    cols = ["mode", "latency", "on CPU", "swap-in", "dir.reclaim",
            "CPU wait", "block I/O", "other", "(thrash)", "minflt", "majflt",
            "cold file", "cold anon", "vs untraced", "left out"]
    return render(cols, rows)


def plot_anatomy(summary, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    modes = [m for m, s in summary["modes"].items() if s.get("anatomy")]
    if not modes:
        return False
    seqs = sorted({q for m in modes
                   for q in summary["modes"][m]["anatomy"]["per_sequence"]})
    panels = [("all sequences", None)] + [(q, q) for q in seqs]
    fig, axes = plt.subplots(1, len(panels), sharey=True,
                             figsize=(3 + 2.2 * len(panels) *
                                      max(1, len(modes) / 4), 5.5))
    if len(panels) == 1:
        axes = [axes]
    labels = {"cpu": "on CPU (render, minor faults)",
              "swapin": "swap-in", "reclaim": "direct reclaim",
              "cpu_wait": "waiting for a CPU", "blkio": "block I/O wait",
              "other": "other"}
    for ax, (title, q) in zip(axes, panels):
        bottom = [0.0] * len(modes)
        for k in ANATOMY:
            vals = []
            for m in modes:
                a = summary["modes"][m]["anatomy"]
                a = a if q is None else a["per_sequence"].get(q) or {}
                vals.append(max(0.0, a.get(k, 0.0)))
            ax.bar(range(len(modes)), vals, 0.7, bottom=bottom,
                   label=labels[k])
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_xticks(range(len(modes)))
        ax.set_xticklabels(modes, rotation=45, ha="right", fontsize="small")
        ax.set_title(title)
    axes[0].set_ylabel("mean switch latency (ms), split by task delay "
                       "accounting")
    axes[-1].legend(fontsize="small")
    fig.suptitle("Where a switch's milliseconds go (prepage-bench anatomy "
                 "trials)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def overhead(recs, prefix=""):
    """Median ns per operation per test and kernel, and ratios to base.
    @prefix "icount-": the loops run under QEMU's -icount (shift=0), where
    the guest's ns are the instructions its vCPU executed."""
    labels = [prefix + k for k in ("base", "off", "idle")]
    got = [r for r in recs["OVERHEAD"] if r["kernel"] in labels]
    tests = sorted({r["test"] for r in got})
    kernels = [k[len(prefix):] for k in labels
               if any(r["kernel"] == k for r in got)]
    out = {}
    for t in tests:
        out[t] = {}
        for k in kernels:
            v = [r["ns_per_op"] for r in got
                 if r["test"] == t and r["kernel"] == prefix + k]
            out[t][k] = {"median_ns": statistics.median(v), "samples": len(v),
                         "min_ns": min(v), "max_ns": max(v)}
        base = out[t].get("base", {}).get("median_ns")
        for k in kernels:
            out[t][k]["ratio_to_base"] = ratio(out[t][k]["median_ns"], base)
    return out


def overhead_table(oh, unit="ns"):
    cols = ["fault loop", "kernel", f"median {unit}/op", "min-max", "vs base"]
    rows = []
    for t, ks in oh.items():
        for k, v in ks.items():
            rows.append([t, {"base": "base (no series)",
                             "off": "series, prepage off",
                             "idle": "series, enabled idle"}[k],
                         f"{v['median_ns']:.0f}",
                         f"{v['min_ns']:.0f}-{v['max_ns']:.0f}",
                         fmt(v["ratio_to_base"], ".3f")])
    return render(cols, rows)


def plot(summary, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib missing, no plot (run dev/setup.sh)",
              file=sys.stderr)
        return False
    modes = list(summary["modes"])
    apps = sorted({a for s in summary["modes"].values() for a in s["per_app"]})
    width = 0.8 / max(1, len(modes))
    fig, ax = plt.subplots(figsize=(max(8, 1.5 * len(apps) + 3), 5))
    for i, m in enumerate(modes):
        pa = summary["modes"][m]["per_app"]
        xs = [a + (i - (len(modes) - 1) / 2) * width for a in apps]
        # Past the 10 colours, the same ones hatched.
        ax.bar(xs, [pa[a]["mean_ms"] if a in pa else 0 for a in apps], width,
               yerr=[pa[a]["ci95_ms"] if a in pa else 0 for a in apps],
               capsize=2, label=m, color=f"C{i % 10}",
               hatch="//" if i >= 10 else None)
    ax.set_xticks(apps)
    ax.set_xticklabels([f"app {a}" for a in apps])
    ax.set_ylabel("switch latency (ms, mean and its 95% CI)")
    ax.set_title("App switch latency per app and mode (prepage-bench, one VM run)")
    # Below the axes: over the bars it hides the error bars.
    ax.legend(fontsize="small", ncol=min(6, len(modes)), loc="upper center",
              bbox_to_anchor=(0.5, -0.07))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def plot_cdf(recs, summary, path):
    """The empirical CDF of the measured switches' latency, per mode."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for i, m in enumerate(summary["modes"]):
        lat = sorted(r["latency_us"] / 1000 for r in recs["SWITCH"]
                     if r["mode"] == m and not r.get("anatomy"))
        ax.step(lat, [(j + 1) / len(lat) for j in range(len(lat))],
                where="post", color=f"C{i % 10}",
                linestyle=["-", "--", ":"][i // 10 % 3], label=m)
    ax.set_xlabel("switch latency (ms)")
    ax.set_ylabel("share of the switches at or below it")
    ax.set_ylim(0, 1.01)
    ax.grid(alpha=0.3)
    ax.set_title("Distribution of app switch latency per mode "
                 "(prepage-bench, measured switches)")
    ax.legend(fontsize="small", loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def plot_hist(fp, path):
    """Per side, the share of the pages seen used in exactly k of the 10
    profiling switches, per source (summed over apps), with the targets
    in the title."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    sides = [s for s in fp["sides"] if fp["sides"][s]]
    if not sides:
        return False
    fig, axes = plt.subplots(1, len(sides), sharey=True,
                             figsize=(6.5 * len(sides), 5))
    if len(sides) == 1:
        axes = [axes]
    for ax, side in zip(axes, sides):
        srcs = fp["sides"][side]
        ks = sorted({k for e in srcs.values() for k in e["k"]})
        width = 0.8 / len(srcs)
        for i, (src, e) in enumerate(srcs.items()):
            ax.bar([k + (i - (len(srcs) - 1) / 2) * width for k in ks],
                   [100 * e["k"].get(k, 0) / e["seen_pages"]
                    if e["seen_pages"] else 0 for k in ks], width,
                   label=f"{src} ({e['seen_pages']} pages)")
        t = fp["target"].get(side)
        title = f"{side}"
        if t:
            title += ("\ntarget (%s): " % t["source"] + ", ".join(
                f"{b}: {fmt(t['bands'][b], '.0f')}%" for b, _, _ in BANDS)
                + (f", overlap {t['overlap']:.2f}"
                   if t["overlap"] is not None else ""))
        ax.set_title(title, fontsize="medium")
        ax.set_xticks(ks)
        ax.set_xlabel("used in k of the 10 profiling switches")
        ax.legend(fontsize="small")
    axes[0].set_ylabel("share of the pages seen (%), all apps")
    fig.suptitle("Footprint stability: model, generated, recorded")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    raw, outdir = sys.argv[1:]
    recs = parse(raw)
    if not recs["SWITCH"] and not recs["OVERHEAD"]:
        print(f"report: no SWITCH records in {raw}", file=sys.stderr)
        return 1
    os.makedirs(outdir, exist_ok=True)
    summary = summarize(recs) if recs["SWITCH"] else {"modes": {}}
    if recs["OVERHEAD"]:
        for key, prefix in (("overhead", ""), ("overhead_icount", "icount-")):
            oh = overhead(recs, prefix)
            if oh:
                summary[key] = oh
    fp = footprint(recs)
    if fp:
        summary["footprint"] = fp
    if recs["PROFILE"]:
        summary["profile"] = {
            k: sum(p.get(k, 0) for p in recs["PROFILE"])
            for k in ("file_recorded", "file_generated", "file_common",
                      "anon_recorded", "anon_generated", "anon_common")}
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
    if recs["SWITCH"]:
        with open(os.path.join(outdir, "switches.csv"), "w", newline="") as f:
            fields = []
            for r in recs["SWITCH"]:
                fields += [k for k in r if k not in fields]
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(recs["SWITCH"])
    with open(os.path.join(outdir, "summary.csv"), "w", newline="") as f:
        keys = ["mean_ms", "median_ms", "p95_ms", "stdev_ms",
                "speedup_vs_baseline", "speedup_vs_baseline_geo",
                "speedup_vs_baseline_ci_low", "speedup_vs_baseline_ci_high",
                "speedup_vs_baseline_mean",
                "speedup_vs_baseline_mean_ci_low",
                "speedup_vs_baseline_mean_ci_high",
                "ratio_to_ideal", "file_precision",
                "file_recall", "anon_precision", "anon_recall",
                "prepaged_mb_per_switch", "wasted_mb_per_switch",
                "prepager_cpu_ms_per_switch", "replay_cpu_ms_per_switch",
                "prefetch_cpus", "kswapd_cpu_ms_per_switch", "tlb_ipis_per_switch",
                "start_ms_mean", "start_ms_p95",
                "start_cpu_ms_p95", "start_wait_ms_p95", "end_ms_mean",
                "settle_ms_mean", "files_ms", "heap_ms",
                "switches",
                "bad_pages"]
        w = csv.writer(f)
        w.writerow(["mode"] + keys)
        for m, s in summary["modes"].items():
            w.writerow([m] + [s[k] for k in keys])
    plotted = summary["modes"] and plot(summary, os.path.join(outdir, "latency.png"))
    anat_plotted = summary["modes"] and plot_anatomy(
        summary, os.path.join(outdir, "anatomy.png"))
    cdf_plotted = plotted and plot_cdf(recs, summary,
                                       os.path.join(outdir, "cdf.png"))
    hist_plotted = fp and plot_hist(fp, os.path.join(outdir, "hist.png"))
    if summary["modes"]:
        cfg = summary.get("config", {})
        if cfg:
            print(" ".join(f"{k}={v}" for k, v in cfg.items()))
        print(run_line(summary["run"]))
        if recs["APPINFO"]:
            summary["apps"] = recs["APPINFO"]
            print("Apps (real programs; memory after a profiling switch and "
                  "its use phase, MiB: file resident / anon resident or "
                  "swapped): " + ", ".join(
                      f"{a['app']} {a['name']} {a['rss_file_kb'] / 1024:.0f}"
                      f"/{a['rss_anon_kb'] / 1024:.0f}"
                      for a in recs["APPINFO"]))
        print(table(summary))
        pt = pairs_table(summary)
        if pt:
            print("\nPaired comparisons (95% CI, two-stage bootstrap: "
                  "trials, then rounds within them):")
            print(pt)
            print("(geo mean = A's latency over B's, switch by switch "
                  "(trial, sequence, app, round), geometric mean;\n mean "
                  "ratio = A's mean latency over B's, over the same "
                  "switches: what a user waits in all;\n above 1.00 B is "
                  "faster; pairs = switches in both, clusters = "
                  f"(trial, round)s; {RESAMPLES} resamples)")
        var = [(m, s["speedup_vs_base_mode_by_trial"])
               for m, s in summary["modes"].items()
               if s.get("speedup_vs_base_mode_by_trial")]
        if var:
            print("\nModes with settings of their own against their base "
                  "mode, trial by trial (speedup):")
            print(render(["mode", "trials", "min-max"],
                         [[m, " ".join(f"{v:.2f}" for v in vs), spread(vs)]
                          for m, vs in var]))
        # Real programs have no files-then-heap render to split.
        ph = not recs["APPINFO"] and phase_table(summary)
        if ph:
            print("\nThe render's two parts (ms, mean; files first, then "
                  "the heap: anonymous memory):")
            print(ph)
        seq = sequence_table(summary)
        if seq:
            print("\nPer app sequence:")
            print(seq)
        prof = summary.get("profile")
        if prof:
            print("\nProfile (prepagectl record, all apps), pages: "
                  + "; ".join(
                      f"{side} {prof[side + '_recorded']} recorded"
                      + (f", {prof[side + '_generated']} in the generator's "
                         f"footprints, {prof[side + '_common']} in both"
                         if not recs["APPINFO"] else "")
                      for side in ("file", "anon")))
        if fp:
            print("\nFootprint stability over the 10 profiling switches "
                  "(share of the pages seen, %):")
            print(footprint_table(fp))
            print("(seen pages = used in any of the 10, all apps; 9-10 % = "
                  "the share used in 9 or 10 of them, ...;\n overlap = of "
                  "one switch's pages, the share used again in the next "
                  "(apps weighted by their pages);\n vs target = points "
                  "from the published share per band, max |diff| = the "
                  "largest of them)")
        mem = [(m, s["avail_mb"]) for m, s in summary["modes"].items()
               if s.get("avail_mb") and any(s["avail_mb"])]
        if mem:
            print("\nMemAvailable left to the apps by the balloon, MiB "
                  "(min-max over trials): " +
                  ", ".join(f"{m} {min(v)}-{max(v)}" for m, v in mem))
        an = anatomy_table(summary)
        dd_off = any(r.get("delay_dequeue_off") for r in recs["MODE"]
                     if r.get("anatomy"))
        if an:
            print("\nAnatomy of a switch (ms, mean; anatomy trials, task "
                  "delay accounting on):")
            print(an)
            print("(on CPU = run time less swap-in and direct reclaim; "
                  "thrash = waits on refaulting pages, inside swap-in and "
                  "block I/O;\n minflt, majflt = the app's faults per "
                  "switch;\n cold file, cold anon = footprint pages not "
                  "resident when the switch starts (not cached; swapped "
                  "out), in the profile / not in it;\n vs untraced = the "
                  "anatomy trials' mean "
                  "latency against the measured trials';\n left out = "
                  "switches whose counters add up to more than the switch "
                  "(see glitch() in bench/report.py), not in the means;\n"
                  f" the scheduler's DELAY_DEQUEUE was "
                  f"{'off' if dd_off else 'on'}"
                  " in the anatomy trials)")
    if "overhead" in summary:
        print("\nOverhead when off (fault loops, no switches; wall time "
              "under TCG, 2 vCPUs):")
        print(overhead_table(summary["overhead"]))
    if "overhead_icount" in summary:
        print("\nThe same loops counted in instructions (QEMU -icount "
              "shift=0, 1 vCPU: the guest's ns are the\ninstructions it "
              "executed, kernel and user, interrupts included; min-max "
              "over every round of every boot):")
        print(overhead_table(summary["overhead_icount"], unit="insn"))
    print(f"\n(vs base = baseline's latency over the mode's, switch by "
          f"switch, geometric mean [95% CI, two-stage bootstrap over trials\n"
          f" and their rounds]; vs base (mean) = baseline's mean latency "
          f"over the mode's, the same switches [95% CI, the same\n"
          f" resamples]; = : the "
          f"95% interval contains 1.00: no difference;\n"
          f" by trial = the speedup against baseline of each trial, "
          f"paired, lowest-highest;\n P = precision, R = recall; MB/sw = prepaged per switch; pref = "
          f"CPU of the prefetcher: the prepage threads, or the userspace modes'\n"
          f"replay thread; kswapd = kswapd's CPU; TLB IPI = TLB shootdown IPIs (x86); start, end = time of the 'start' (in the\n"
          f"latency) and 'end' (after it) writes; start CPU = the writer's own CPU in\n"
          f"'start', the rest of it waited; start wait = of that, runnable but "
          f"preempted; settle = the wait after 'end' for the window to be counted;\n anon T/C = target/candidate "
          f"pages per app at the end)\n"
          f"written: {outdir}/results.json switches.csv summary.csv"
          f"{' latency.png' if plotted else ''}"
          f"{' cdf.png' if cdf_plotted else ''}"
          f"{' anatomy.png' if anat_plotted else ''}"
          f"{' hist.png' if hist_plotted else ''}")
    bad = sum(s["bad_pages"] for s in summary["modes"].values())
    if bad:
        print(f"report: {bad} pages with wrong contents", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
