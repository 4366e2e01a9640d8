#!/bin/sh
# tests/bench/bench-ltparse.sh: ltparse speed and memory (make bench).
#
# Logs of every generation made by genlog, ltparse alone against cat,
# two and four parts sharing their state, JSON traces (ltjson's, and a Kineto trace of the
# shape of issue 5, from a file and from a pipe), and peak RSS at two
# sizes to show that memory does not grow with the input.  Knobs: LINES
# (default 1000000), EVENTS (455000), RUNS, BENCHDIR.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TOP
. "$TOP/tests/bench/lib.sh"
LINES=${LINES:-1000000}
EVENTS=${EVENTS:-455000}


header "ltparse ($LINES lines)"
for fmt in new old v1 mixed; do
	f=$(genlog_cached "$fmt" "$LINES")
	measure "ltparse $fmt" "$f" 1 "ltparse '$f' > /dev/null"
done

# N parts sharing their state in a directory (-S), as litracer -w runs
# them: together they should cost little more than one run.
f=$(genlog_cached new "$LINES")
d=$BENCHDIR/share
for n in 2 4; do
	measure "ltparse -P k/$n -S, all $n parts (new)" "$f" 1 \
	    "rm -rf '$d'; mkdir '$d'; k=1; while [ \$k -le $n ]; do
	    ltparse -P \$k/$n -S '$d' '$f' > /dev/null & k=\$((k + 1)); done; wait"
done
rm -rf "$d"

j="$BENCHDIR/ltparse-new-$LINES.json"
[ -s "$j" ] || ltparse "$f" | ltjson > "$j"
measure "ltparse JSON (ltjson of new)" "$j" 1 "ltparse '$j' > /dev/null"

# A pretty-printed Kineto trace (its end read, then a search for the
# offset key, then one reading), and ltjson's minified trace of it (the
# offset found in its end).
k=$(gentrace_cached "kineto-$EVENTS-3500.json" -n "$EVENTS" -x 3500)
kj=$BENCHDIR/kineto-$EVENTS-3500.ltjson.json
[ -s "$kj" ] || ltparse "$k" | ltjson >"$kj"
header "ltparse, JSON traces of $EVENTS events"
measure "ltparse Kineto trace" "$k" 1 "ltparse '$k' > /dev/null"
measure "ltparse Kineto trace from a pipe" "$k" 1 \
    "cat '$k' | ltparse > /dev/null"
measure "ltparse ltjson trace (ts offset)" "$kj" 1 "ltparse '$kj' > /dev/null"

header "ltparse peak memory against input size"
small=$(genlog_cached new $((LINES / 4)))
measure "ltparse new, 1/4 size" "$small" 1 "ltparse '$small' > /dev/null"
measure "ltparse new, full size" "$f" 1 "ltparse '$f' > /dev/null"
