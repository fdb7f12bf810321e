#!/usr/bin/env python3
"""Prints the median of every criterion benchmark under target/criterion, and each one's ratio
to the baseline of its group (the benchmark named *baseline* or direct_handler)."""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")


def fmt(ns: float, sign: str = "") -> str:
    if abs(ns) >= 1000:
        return f"{ns / 1000:{sign}.2f} µs"
    return f"{ns:{sign}.1f} ns"


for group in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "report"):
    medians = {}
    for bench in sorted(p for p in group.iterdir() if (p / "new" / "estimates.json").exists()):
        estimates = json.loads((bench / "new" / "estimates.json").read_text())
        medians[bench.name] = estimates["median"]["point_estimate"]
    base = next((n for n in medians if "baseline" in n or n == "direct_handler"), None)
    for name, median in medians.items():
        ratio = f"{median / medians[base]:.2f}x" if base else "-"
        extra = fmt(median - medians[base], "+") if base and name != base else ""
        print(f"| {group.name}/{name} | {fmt(median)} | {ratio} | {extra} |")
