#!/bin/sh
# tests/bench/bench-ltparse.sh: ltparse speed and memory (make bench).
#
# Logs of every generation (genlog when built, else the tests' awk
# generator), ltparse alone against cat, two parts on two cores, a JSON
# trace, and peak RSS at two sizes to show memory does not grow with the
# input.  Knobs: LINES (default 1000000), RUNS, BENCHDIR.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TOP
. "$TOP/tests/bench/lib.sh"
LINES=${LINES:-1000000}

# log FORMAT LINES: a generated log, made once.
log() {
	if command -v genlog > /dev/null 2>&1; then
		genlog_cached "$1" "$2"
		return
	fi
	_f="$BENCHDIR/mklog-$1-$2.log"
	[ -s "$_f" ] || awk -v fmt="$1" -v n="$2" \
	    -f "$TOP/tests/data/ltparse/mklog.awk" > "$_f"
	printf '%s\n' "$_f"
}

header "ltparse ($LINES lines)"
for fmt in new old v1 mixed; do
	f=$(log "$fmt" "$LINES")
	measure "ltparse $fmt" "$f" 1 "ltparse '$f' > /dev/null"
done

f=$(log new "$LINES")
measure "ltparse -P 1/2 & -P 2/2 (new)" "$f" 1 \
    "ltparse -P 1/2 '$f' > /dev/null & ltparse -P 2/2 '$f' > /dev/null; wait"
measure "ltparse -P 2/2 alone (new)" "$f" 1 "ltparse -P 2/2 '$f' > /dev/null"

j="$BENCHDIR/ltparse-new-$LINES.json"
[ -s "$j" ] || ltparse "$f" | ltjson > "$j"
measure "ltparse JSON (ltjson of new)" "$j" 1 "ltparse '$j' > /dev/null"

header "ltparse peak memory against input size"
small=$(log new $((LINES / 4)))
measure "ltparse new, 1/4 size" "$small" 1 "ltparse '$small' > /dev/null"
measure "ltparse new, full size" "$f" 1 "ltparse '$f' > /dev/null"
