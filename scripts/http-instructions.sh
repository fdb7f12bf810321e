#!/usr/bin/env bash
# Instructions of one MCP `tools/call` through toolwire-mcp's HTTP router and bare rmcp's, in
# process, on both revisions, counted by callgrind (valgrind): unlike time, the count does not
# swing with the load of a shared machine. Each figure is the difference between a run of
# 1,200 calls and one of 200, over 1,000, so that the set-up drops out.
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
count() {
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$bin" "$@" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
echo "| revision | server | instructions per call |"
echo "|---|---|---|"
for revision in 2026-07-28 2025-11-25; do
  for server in rmcp toolwire; do
    few=$(count "$server" "$revision" 200)
    many=$(count "$server" "$revision" 1200)
    echo "| $revision | $server | $(( (many - few) / 1000 )) |"
  done
done
