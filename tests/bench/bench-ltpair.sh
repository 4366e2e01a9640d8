#!/bin/sh
# tests/bench/bench-ltpair.sh: throughput and memory of ltpair and
# ltfilter, alone (against one cat) and in the user's pipeline (against
# as many cats).  Knobs: LINES (default 1000000), RUNS, BENCHDIR.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TOP
. "$TOP/tests/bench/lib.sh"
LINES=${LINES:-1000000}

# lt1 FORMAT: the ltparse stream of a generated log, made once.
lt1() {
	_l=$(genlog_cached "$1" "$LINES") || return 1
	_s="$BENCHDIR/$1-$LINES.lt1"
	[ -s "$_s" ] || ltparse "$_l" > "$_s" || return 1
	printf '%s\n' "$_s"
}

log=$(genlog_cached new "$LINES")
raw=$(lt1 new)
paired="$BENCHDIR/new-$LINES.paired.lt1"
[ -s "$paired" ] || ltpair "$raw" > "$paired"

header "ltpair ($LINES log lines)"
measure "ltpair, new" "$raw" 1 "ltpair '$raw' > /dev/null"
measure "ltpair -k, new" "$raw" 1 "ltpair -k '$raw' > /dev/null"
for f in old v1 mixed; do
	s=$(lt1 "$f")
	measure "ltpair, $f" "$s" 1 "ltpair '$s' > /dev/null"
done
# A run that crashes and breaks out of its loop leaves spans open.
crash="$BENCHDIR/crash-$LINES.lt1"
[ -s "$crash" ] || genlog -f new -n "$LINES" -c -b | ltparse > "$crash"
measure "ltpair, new, crash and break" "$crash" 1 \
    "ltpair '$crash' > /dev/null"

header "ltfilter ($LINES log lines)"
measure "ltfilter (no test)" "$raw" 1 "ltfilter '$raw' > /dev/null"
measure "ltfilter --cat read, raw B/E" "$raw" 1 \
    "ltfilter --cat read '$raw' > /dev/null"
measure "ltfilter -n 'd*,s*' -r 0 -w 1, raw" "$raw" 1 \
    "ltfilter -n 'd*,s*' -r 0 -w 1 '$raw' > /dev/null"
measure "ltfilter -v -c sample -d 1ms -T 1s, (X)" "$paired" 1 \
    "ltfilter -v -c sample -d 1ms -T 1s, '$paired' > /dev/null"

header "pipelines ($LINES log lines)"
measure "ltparse | ltpair" "$log" 2 "ltparse '$log' | ltpair > /dev/null"
measure "ltparse | ltpair | ltfilter --cat read" "$log" 3 \
    "ltparse '$log' | ltpair | ltfilter --cat read > /dev/null"
