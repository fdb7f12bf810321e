#!/usr/bin/env python3
"""Prints the peers benchmark's medians as markdown tables, with each line's ratio to the
toolwire line of its workload. Run after `cargo bench -p peers --bench peers`."""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")

# Each workload's group and the toolwire line the others are compared with.
GROUPS = [
    ("a_one_sync_call", "toolwire_invoke_validated"),
    ("b_2kb_order", "toolwire_invoke_validated"),
    ("c_10k_calls_sleeping_10ms", "toolwire_dispatch"),
    ("d_abort_to_result", "toolwire_invoke_abort"),
    ("e_openai_tool_list_1000", "toolwire_definitions"),
    ("e_openai_tool_list_1000_serialized", "toolwire_definitions"),
]


def fmt(ns: float) -> str:
    if ns >= 1_000_000:
        return f"{ns / 1_000_000:.2f} ms"
    if ns >= 1000:
        return f"{ns / 1000:.2f} µs"
    return f"{ns:.1f} ns"


for group, reference in GROUPS:
    medians = {}
    for bench in sorted((root / group).glob("*/new/estimates.json")):
        medians[bench.parent.parent.name] = json.loads(bench.read_text())["median"]["point_estimate"]
    if reference not in medians:
        continue
    print(f"\n{group} (ratio to {reference})\n")
    print("| line | median | ratio to toolwire |")
    print("|---|---|---|")
    for name, median in sorted(medians.items(), key=lambda item: item[1]):
        print(f"| `{name}` | {fmt(median)} | {median / medians[reference]:.2f}× |")
