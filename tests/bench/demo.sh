#!/bin/sh
# tests/bench/demo.sh: `make demo`.  Generates a realistic LitData log
# (2 ranks x 2 workers, a crash and a restart, a training loop left with
# break), converts it with litracer, checks the result with ltcheck and
# shows a stage of the chain by hand.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PATH=$TOP/tools/bin:$TOP/tests/gen:$TOP/tests/bench:$PATH
export PATH
log=${DEMO_LOG:-litdata_demo.log}
out=${DEMO_TRACE:-litdata_demo_trace.json}

echo "== a LitData log: genlog -n 200000 -c -b > $log"
genlog -n 200000 -c -b > "$log"
printf '%s lines, %s bytes; two of them:\n' "$(wc -l < "$log")" \
    "$(wc -c < "$log")"
grep -m 1 'name: read;ph: B' "$log" | cut -c 1-150
grep -m 1 '_apply_delete' "$log" | cut -c 1-150

echo
echo "== litracer -o $out $log"
litracer -o "$out" "$log"

echo
echo "== ltcheck $out"
ltcheck "$out"

echo
echo "== one stage at a time: the read spans of rank 0, as lt1"
ltparse "$log" | ltpair | ltfilter --cat read --rank 0 | grep -v '^#' |
    head -n 3 | cut -c 1-150

echo
echo "Open $out in https://ui.perfetto.dev (Open trace file)."
