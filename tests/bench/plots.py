#!/usr/bin/env python3
"""Figures and a table from cudavision-bench JSON lines (--json FILE).

    tests/bench/plots.py OUT/*.json                 # the table only
    tests/bench/plots.py OUT/*.json --out docs/img  # and the figures

Figures (SVG and PNG, matplotlib):
  pcie-floor-share.svg  share of the overlapped PCIe floor (fps / floor fps,
                        each run against the floor measured in that run) per
                        element and format: single-stream cases from system
                        memory (pinned, pageable); bars are the median of the
                        runs, whiskers min and max
  streams-scaling.svg   aggregate fps against the number of streams, one line
                        per element / format / input / devices; for frames in
                        CUDA memory a dashed line at 1 / kernel time of the
                        one-stream run (the rate of back-to-back kernels) and a dotted one at
                        half of it (the issue's target for 32 streams); bars
                        min-max of the runs

The table (stdout) lists every case: label, element, format, size, input,
depth, streams, devices, wait mode, fps median [min-max], per-stream fps
min/median/max, kernel ms, host us, CPU us/frame, GPU utilisation, share of
the PCIe floor.

SPDX-License-Identifier: LGPL-2.1-or-later
"""
import argparse
import json
import os
import sys


def load(paths):
    cases = []
    for p in paths:
        with open(p) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    cases.append(json.loads(line))
                except json.JSONDecodeError as e:
                    sys.exit("%s:%d: not JSON: %s" % (p, n, e))
    return cases


def med(c, key):
    v = c.get(key)
    if isinstance(v, dict):
        return v.get("median", -1)
    return -1 if v is None else v


def rng(c, key):
    v = c.get(key) or {}
    return v.get("min", -1), v.get("max", -1)


def name(c):
    props = (" " + c["props"]) if c.get("props") else ""
    return "%s%s %s %dx%d" % (c["element"], props, c["format"], c["width"],
                              c["height"])


def devices(c):
    return ",".join(str(d) for d in c.get("devices", [0]))


def table(cases, out=sys.stdout):
    hdr = ("case", "input", "d", "streams", "dev", "wait", "fps median [min-max]",
           "per stream min/med/max", "kernel ms", "host sub/wait/fin us",
           "CPU us/f", "GPU %", "PCIe floor %")
    rows = []
    for c in cases:
        if "kernel" in c:       # -k: the kernel alone
            rows.append(("kernel %s %s %dx%d" % (c["kernel"], c["format"],
                                                 c["width"], c["height"]),
                         "device", "", "", "", "", "%.2f us" % c["kernel_us"],
                         "", "", "", "", "", ""))
            continue
        lo, hi = rng(c, "fps")
        util = c.get("gpu_util_nvml_pct", {})
        gpu = "/".join("%.0f" % v["median"] for v in util.values()
                       if v["median"] >= 0) or "-"
        share = med(c, "pcie_floor_share_pct")
        rows.append((
            (c.get("label") + ": " if c.get("label") else "") + name(c),
            c["input"], str(c["depth"]), str(c["streams"]), devices(c),
            c.get("wait_mode", ""),
            "%.0f [%.0f-%.0f]" % (med(c, "fps"), lo, hi),
            "%.0f/%.0f/%.0f" % (med(c, "stream_fps_min"),
                                med(c, "stream_fps_median"),
                                med(c, "stream_fps_max")),
            "%.4f" % med(c, "kernel_ms") if med(c, "kernel_ms") >= 0 else "-",
            "%.1f/%.1f/%.1f" % (med(c, "host_submit_us"),
                                med(c, "host_wait_us"),
                                med(c, "host_finish_us"))
            if med(c, "host_submit_us") >= 0 else "-",
            "%.1f" % med(c, "cpu_us_per_frame"), gpu,
            "%.1f" % share if share >= 0 else "-"))
    widths = [max(len(r[i]) for r in rows + [hdr]) for i in range(len(hdr))]
    for r in [hdr] + rows:
        print("  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip(),
              file=out)


def plot_share(cases, outdir, plt):
    sel = [c for c in cases if "kernel" not in c and c.get("streams") == 1
           and c.get("input") in ("pinned", "pageable")
           and med(c, "pcie_floor_share_pct") >= 0]
    if not sel:
        print("plots: no single-stream system-memory case with a floor: "
              "no pcie-floor-share figure", file=sys.stderr)
        return None
    labels = ["%s\n%s d%d %s" % (name(c), c["input"], c["depth"],
                                 c.get("wait_mode", "")) for c in sel]
    vals = [med(c, "pcie_floor_share_pct") for c in sel]
    lo = [v - rng(c, "pcie_floor_share_pct")[0] for v, c in zip(vals, sel)]
    hi = [rng(c, "pcie_floor_share_pct")[1] - v for v, c in zip(vals, sel)]
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(sel)), 4.8))
    ax.bar(range(len(sel)), vals, yerr=[lo, hi], capsize=4, color="#4c72b0")
    ax.axhline(100, color="k", lw=0.8)
    ax.axhline(80, color="#c44e52", lw=0.8, ls="--", label="target 80 %")
    ax.set_xticks(range(len(sel)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("% of the overlapped PCIe floor (fps)")
    ax.set_title("Share of the PCIe floor, median of %s runs" %
                 "/".join(sorted({str(c["repeat"]) for c in sel})))
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return save(fig, outdir, "pcie-floor-share", plt)


def plot_streams(cases, outdir, plt):
    groups = {}
    for c in cases:
        if "kernel" in c:
            continue
        key = (name(c), c["input"], c["depth"], devices(c),
               c.get("wait_mode", ""))
        groups.setdefault(key, []).append(c)
    groups = {k: sorted(v, key=lambda c: c["streams"])
              for k, v in groups.items() if len({c["streams"] for c in v}) > 1}
    if not groups:
        print("plots: no case run at several stream counts: no "
              "streams-scaling figure", file=sys.stderr)
        return None
    fig, ax = plt.subplots(figsize=(7.5, 5))
    for (nm, inp, depth, devs, wait), cs in sorted(groups.items()):
        x = [c["streams"] for c in cs]
        y = [med(c, "fps") for c in cs]
        lo = [v - rng(c, "fps")[0] for v, c in zip(y, cs)]
        hi = [rng(c, "fps")[1] - v for v, c in zip(y, cs)]
        line = ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=3,
                           label="%s, %s, depth %d, GPU %s" % (nm, inp, depth,
                                                                devs))
        # the kernel time of one stream: with several the streams' events
        # overlap and measure each other's work too
        ks = [med(c, "kernel_ms") for c in cs
              if med(c, "kernel_ms") > 0 and c["streams"] == 1]
        if inp == "cuda" and ks:
            k = ks[0]
            ndev = len(devs.split(","))
            ax.axhline(ndev * 1e3 / k, ls="--", lw=0.8,
                       color=line[0].get_color(),
                       label="%d / kernel time (%.1f us)" % (ndev, k * 1e3))
            ax.axhline(ndev * 0.5e3 / k, ls=":", lw=0.8,
                       color=line[0].get_color(),
                       label="50 % of it (the 32-stream target)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("streams (pipelines in one process)")
    ax.set_ylabel("aggregate frames/s (median of runs, min-max)")
    ax.set_title("Aggregate throughput against streams")
    ax.legend(fontsize=7)
    ax.grid(True, which="both", lw=0.3)
    fig.tight_layout()
    return save(fig, outdir, "streams-scaling", plt)


def save(fig, outdir, stem, plt):
    os.makedirs(outdir, exist_ok=True)
    paths = [os.path.join(outdir, stem + ext) for ext in (".svg", ".png")]
    for p in paths:
        fig.savefig(p, dpi=120)
    plt.close(fig)
    for p in paths:
        print("plots: wrote", p)
    return paths


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", nargs="+", help="cudavision-bench --json files")
    ap.add_argument("--out", help="directory for the figures (e.g. docs/img); "
                    "without it, the table only")
    a = ap.parse_args()
    cases = load(a.json)
    if not cases:
        sys.exit("plots: no cases in %s" % " ".join(a.json))
    table(cases)
    if a.out:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            sys.exit("plots: no matplotlib (Debian: python3-matplotlib)")
        made = [plot_share(cases, a.out, plt), plot_streams(cases, a.out, plt)]
        if not any(made):
            sys.exit("plots: nothing to draw")


if __name__ == "__main__":
    main()
