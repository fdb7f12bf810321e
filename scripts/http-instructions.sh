#!/usr/bin/env bash
# Instructions of one MCP `tools/call` through toolwire-mcp's HTTP router and bare rmcp's, in
# process, on both revisions, counted by callgrind (valgrind): unlike time, the count does not
# swing with the load of a shared machine. Each figure is the difference between a run of
# 1,200 calls and one of 200, over 1,000, so that the set-up drops out.
#
# Callgrind counts each byte that `rep movsb` copies as an instruction, and glibc's memcpy
# copies large blocks that way, so a large move weighs far more in the count than in time: the
# last column leaves memcpy and memmove out. Confirm a change in time as well: boxing a large
# future cut the count by 15 % and ran no faster.
#
# Usage: scripts/http-instructions.sh   (needs valgrind: apt-get install valgrind)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
command -v valgrind > /dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
bin=$(cargo bench -p toolwire-mcp --bench http_instructions --no-run --message-format=json 2> /dev/null \
  | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "http_instructions" and m.get("executable"):
        print(m["executable"])')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Runs the driver under callgrind; prints its instructions, and those outside memcpy/memmove.
count() {
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$bin" "$@" > /dev/null 2>&1
  callgrind_annotate --auto=no --threshold=100 "$out/cg" | python3 -c 'import re, sys
total = copies = 0
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(.*)", line)
    if not m:
        continue
    n = int(m.group(1).replace(",", ""))
    if "PROGRAM TOTALS" in m.group(2):
        total = n
    elif re.search(r"__mem(cpy|move)", m.group(2)):
        copies += n
print(total, total - copies)'
}
echo "| revision | server | instructions per call | without memcpy |"
echo "|---|---|---|---|"
for revision in 2026-07-28 2025-11-25; do
  for server in rmcp toolwire; do
    read -r few few_rest <<< "$(count "$server" "$revision" 200)"
    read -r many many_rest <<< "$(count "$server" "$revision" 1200)"
    echo "| $revision | $server | $(( (many - few) / 1000 )) | $(( (many_rest - few_rest) / 1000 )) |"
  done
done
