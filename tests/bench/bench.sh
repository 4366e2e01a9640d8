#!/bin/sh
# tests/bench/bench.sh: `make bench`.  Runs every tests/bench/bench-*.sh.
# Knobs: LINES (log size, default 1000000), RUNS (default 3), BENCHDIR.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export TOP
. "$TOP/tests/bench/lib.sh"
echo "litracer benchmarks: best of $RUNS runs; cpu = user + system seconds of every process, beside cat pipelines moving the same bytes"
echo "machine: $(nproc) cores, $(uname -m); scratch: $BENCHDIR"
for f in "$TOP"/tests/bench/bench-*.sh; do
	[ -f "$f" ] || continue
	sh "$f"
done
