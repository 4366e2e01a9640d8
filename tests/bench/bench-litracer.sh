#!/bin/sh
# tests/bench/bench-litracer.sh: the driver end to end (make bench), as
# issue 7 measures it: litracer -q on a 1M-line current-format log
# against a five-stage cat pipeline moving the same bytes (lines/s, and
# the ratio in "x cat"; the goal is at least 1M lines/s and at most 5),
# in one part and in two (-w 2), and the stages one by one on what the
# stage before them wrote.  Knobs: LINES (default 1000000), RUNS,
# BENCHDIR.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TOP
. "$TOP/tests/bench/lib.sh"
LINES=${LINES:-1000000}

log=$(genlog_cached new "$LINES")
out=$BENCHDIR/litracer-$LINES.json
out2=$BENCHDIR/litracer-w2-$LINES.json

# ltparse, ltpair, ltlanefix and ltjson: four stages, five cats.
header "litracer end to end ($LINES log lines; x cat: against cat x5)"
measure "litracer -q" "$log" 4 "litracer -q -o '$out' '$log' 2>/dev/null"
measure "litracer -q -w 2" "$log" 4 \
    "litracer -q -w 2 -o '$out2' '$log' 2>/dev/null"
measure "litracer -q --no-lanefix" "$log" 3 \
    "litracer -q --no-lanefix -o '$out2' '$log' 2>/dev/null"
measure "litracer -q --no-complete" "$log" 4 \
    "litracer -q --no-complete -o '$out2' '$log' 2>/dev/null"
litracer -q -w 2 -o "$out2" "$log" 2>/dev/null
if cmp -s "$out" "$out2"; then
	echo "(-w 2 wrote the same trace as one part)"
else
	echo "bench: -w 2 wrote another trace than one part" >&2
	exit 1
fi

# Each stage alone on its input as the chain gives it (x cat: one cat).
p=$BENCHDIR/litracer-$LINES.lt1
pp=$BENCHDIR/litracer-$LINES.paired.lt1
l=$BENCHDIR/litracer-$LINES.laned.lt1
[ -s "$p" ] || ltparse "$log" > "$p"
[ -s "$pp" ] || ltpair "$p" > "$pp"
[ -s "$l" ] || ltlanefix -q "$pp" > "$l"
header "the stages alone ($LINES log lines)"
measure "ltparse" "$log" 1 "ltparse '$log' > /dev/null"
measure "ltparse -P 1/2 & -P 2/2" "$log" 1 \
    "ltparse -P 1/2 '$log' > /dev/null & ltparse -P 2/2 '$log' > /dev/null; wait"
measure "ltpair" "$p" 1 "ltpair '$p' > /dev/null"
measure "ltlanefix" "$pp" 1 "ltlanefix -q '$pp' > /dev/null"
measure "ltjson" "$l" 1 "ltjson '$l' > /dev/null"
