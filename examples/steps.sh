#!/bin/sh
# Used by the `steps` tool of tools.toml: works through $1 steps, reporting progress on stderr.
count=$1
i=0
while [ "$i" -lt "$count" ]; do
    sleep 0.2
    i=$((i + 1))
    echo "::progress $i/$count step $i" >&2
done
echo "finished $count steps"
