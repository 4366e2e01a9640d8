#!/bin/sh
# tests/bench/bench-litracer.sh: the driver end to end (make bench):
# litracer -q on a 1M-line current-format log beside a five-stage cat
# pipeline moving the same bytes, in one part, two and four (-w 2, -w 4;
# the goal: the parts together at most 1.1x the CPU of one run), the
# stages one by one on what the stage before them wrote, and how CPU and
# memory scale with the log (SCALE: multiples of LINES, default 1 4 16;
# the goal is CPU per line steady and the peak within 1.3x of 1M lines).
# Knobs: LINES (default 1000000), SCALE, RUNS, BENCHDIR.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TOP
. "$TOP/tests/bench/lib.sh"
LINES=${LINES:-1000000}

log=$(genlog_cached new "$LINES")
out=$BENCHDIR/litracer-$LINES.json
out2=$BENCHDIR/litracer-w2-$LINES.json
FRESH="$out $out2 $BENCHDIR/scale.json"

# ltparse, ltpair, ltlanefix and ltjson: four stages, five cats.
header "litracer end to end ($LINES log lines; cat cpu: cat x5)"
measure "litracer -q" "$log" 4 "litracer -q -o '$out' '$log' 2>/dev/null"
for n in 2 4; do
	measure "litracer -q -w $n" "$log" 4 \
	    "litracer -q -w $n -o '$out2' '$log' 2>/dev/null"
done
measure "litracer -q --no-lanefix" "$log" 3 \
    "litracer -q --no-lanefix -o '$out2' '$log' 2>/dev/null"
measure "litracer -q --no-complete" "$log" 4 \
    "litracer -q --no-complete -o '$out2' '$log' 2>/dev/null"
litracer -q -o "$out" "$log" 2>/dev/null
for n in 2 4; do
	litracer -q -w $n -o "$out2" "$log" 2>/dev/null
	if cmp -s "$out" "$out2"; then
		echo "(-w $n wrote the same trace as one part)"
	else
		echo "bench: -w $n wrote another trace than one part" >&2
		exit 1
	fi
done

# Each stage alone on its input as the chain gives it (x cat: one cat).
p=$BENCHDIR/litracer-$LINES.lt1
pp=$BENCHDIR/litracer-$LINES.paired.lt1
l=$BENCHDIR/litracer-$LINES.laned.lt1
[ -s "$p" ] || ltparse "$log" > "$p"
[ -s "$pp" ] || ltpair "$p" > "$pp"
[ -s "$l" ] || ltlanefix -q "$pp" > "$l"
header "the stages alone ($LINES log lines)"
measure "ltparse" "$log" 1 "ltparse '$log' > /dev/null"
# the parts of -w N, sharing what they found in a directory as the
# driver has them do (ltparse -S): all N together beside one run
for n in 2 4; do
	rm -rf "$BENCHDIR/parts"
	measure "ltparse -P k/$n -S dir, k = 1..$n" "$log" 1 \
	    "rm -rf '$BENCHDIR/parts'; mkdir '$BENCHDIR/parts'; k=1
	    while [ \$k -le $n ]; do
		ltparse -P \$k/$n -S '$BENCHDIR/parts' '$log' > /dev/null &
		k=\$((k + 1))
	    done; wait"
done
rm -rf "$BENCHDIR/parts"
measure "ltpair" "$p" 1 "ltpair '$p' > /dev/null"
measure "ltlanefix" "$pp" 1 "ltlanefix -q '$pp' > /dev/null"
measure "ltjson" "$l" 1 "ltjson '$l' > /dev/null"

# Scaling: the same chain on logs SCALE times as long.
printf '\nlitracer -q as the log grows\n%-36s %7s %7s %9s %11s\n' case wall cpu \
    'peak MiB' 'cpu per 1M'
for k in ${SCALE:-1 4 16}; do
	n=$((LINES * k))
	f=$(genlog_cached new "$n")
	best "litracer -q -o '$BENCHDIR/scale.json' '$f' 2>/dev/null"
	awk -v l="litracer -q, $n lines" -v w="$WALL" -v c="$CPU" -v r="$RSS" \
	    -v n="$n" 'BEGIN {
		printf "%-36s %7.3f %7.3f %9.1f %9.3f s\n", l, w, c,
		    r / 1024, c / (n / 1e6)
	}'
done
rm -f "$BENCHDIR/scale.json"
