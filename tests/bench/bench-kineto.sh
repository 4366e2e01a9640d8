#!/bin/sh
# tests/bench/bench-kineto.sh: the target of issue 5, the whole chain
#
#	ltparse t.json | ltlanefix | ltjson
#
# on a Kineto trace of 455,000 events with 3,500 crossing pairs, against
# trace-lanefix: about 8.5 s and 482 MiB on an 87 MB trace of that shape.
# 20 times faster is 0.425 s, a third of the memory 160.7 MiB.  gentrace
# makes such a trace heavier (about 101 MB), so the times are compared
# both as they are and with the reference scaled to the trace's size.
# The peak memory of lib.sh is that of the largest process (ltlanefix
# holds the trace); the sum of the three peaks is given too.
# Knobs: EVENTS (default 455000), CROSSINGS (3500), RUNS, BENCHDIR.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TOP
. "$TOP/tests/bench/lib.sh"

EVENTS=${EVENTS:-455000}
CROSSINGS=${CROSSINGS:-3500}
json=$(gentrace_cached "kineto-$EVENTS-$CROSSINGS.json" -n "$EVENTS" -x "$CROSSINGS")
bytes=$(wc -c <"$json")

header "the chain on a Kineto trace: $EVENTS events, $CROSSINGS crossing pairs"
measure "ltparse (JSON in)" "$json" 1 "ltparse '$json' > /dev/null"
measure "ltparse | ltjson" "$json" 2 "ltparse '$json' | ltjson > /dev/null"
measure "ltparse | ltlanefix | ltjson" "$json" 3 \
    "ltparse '$json' | ltlanefix -q | ltjson > /dev/null"
wall=$WALL
peak=$RSS

# The peak of each process of the chain, added up.
s=$BENCHDIR/kineto-rss
runstat -o "$s.1" ltparse "$json" |
    runstat -o "$s.2" ltlanefix -q |
    runstat -o "$s.3" ltjson >/dev/null
sum=$(cat "$s.1" "$s.2" "$s.3" | awk '{ k += $3 } END { print k }')

awk -v w="$wall" -v b="$bytes" -v p="$peak" -v s="$sum" 'BEGIN {
	ref = 8.5; mib = 482
	scaled = ref * b / 87e6
	printf "\ntrace-lanefix: %.1f s and %d MiB on 87 MB", ref, mib
	printf " (%.2f s scaled to this %.0f MB trace)\n", scaled, b / 1e6
	printf "chain: %.3f s: %.1fx faster than %.1f s, %.1fx than %.2f s" \
	    " (target: 20x)\n", w, ref / w, ref, scaled / w, scaled
	printf "memory: %.1f MiB peak process, %.1f MiB all three: %.1f%%" \
	    " of %d MiB (target: at most 33.3%%)\n", p / 1024, s / 1024,
	    100 * s / 1024 / mib, mib
}'
