#!/bin/sh
# tests/bench/bench-ltlanefix.sh: ltlanefix on traces of the shape of the
# issue: a Kineto trace of 455,000 events with 3,500 crossing pairs
# (trace-lanefix: about 8.5 s and 482 MiB on an 87 MB one), and 4,000
# slices that all cross each other on one track (trace-lanefix: 1.1 s).
# Then ltlanefix in the default chain on LitData logs of growing size:
# ltpair tells it what is open, so its memory must not grow with the log.
# Knobs: EVENTS (default 455000), CROSSINGS (3500), SCALE (log lines,
# default "1000000 4000000"; add 16000000 for the issue's row), RUNS,
# BENCHDIR.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TOP
. "$TOP/tests/bench/lib.sh"

EVENTS=${EVENTS:-455000}
CROSSINGS=${CROSSINGS:-3500}
json=$(gentrace_cached "kineto-$EVENTS-$CROSSINGS.json" -n "$EVENTS" -x "$CROSSINGS")
lt=$(gentrace_cached "kineto-$EVENTS-$CROSSINGS.lt" -l -n "$EVENTS" -x "$CROSSINGS")
stair=$(gentrace_cached stair-4000.lt -l -f stair -n 4000)

header "ltlanefix: $EVENTS Kineto events, $CROSSINGS crossing pairs"
measure "ltlanefix (lt1 in)" "$lt" 1 "ltlanefix -q '$lt' > /dev/null"
measure "ltlanefix | ltjson (lt1 in)" "$lt" 2 \
    "ltlanefix -q '$lt' | ltjson > /dev/null"
# The whole chain, once ltparse reads Chrome JSON.
if printf '{"traceEvents":[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1}]}\n' |
    ltparse 2>/dev/null | grep -q '	X	'; then
	measure "ltparse | ltlanefix | ltjson (JSON in)" "$json" 3 \
	    "ltparse '$json' | ltlanefix -q | ltjson > /dev/null"
	measure "ltparse | ltjson (no lanefix)" "$json" 2 \
	    "ltparse '$json' | ltjson > /dev/null"
else
	echo "(the JSON chain is skipped: this ltparse does not read JSON)"
fi
measure "ltlanefix: 4,000 mutually crossing slices" "$stair" 1 \
    "ltlanefix -q '$stair' > /dev/null"
ltlanefix -q "$lt" | grep '^#stat	ltlanefix' | tr '\t' ' '

header "ltlanefix in the default chain, LitData logs (memory must stay flat)"
for n in ${SCALE:-1000000 4000000}; do
	log=$(genlog_cached new "$n")
	paired="$BENCHDIR/new-$n.paired.lt1"
	[ -s "$paired" ] || ltparse "$log" | ltpair > "$paired"
	measure "ltlanefix, $n lines, as it goes" "$paired" 1 \
	    "ltlanefix -q '$paired' > /dev/null"
	measure "ltlanefix, $n lines, held whole" "$paired" 2 \
	    "grep -v '^#open	\\|^#close	' '$paired' | ltlanefix -q > /dev/null"
	measure "ltlanefix -k, $n lines, sorted" "$paired" 1 \
	    "ltlanefix -k -q '$paired' > /dev/null"
done
