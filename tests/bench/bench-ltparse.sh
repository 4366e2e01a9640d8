#!/bin/sh
# tests/bench/bench-ltparse.sh: ltparse speed and memory (make bench).
#
# Logs of every generation made by genlog, ltparse alone against cat,
# two parts on two cores, a JSON trace, and peak RSS at two sizes to show
# that memory does not grow with the input.  Knobs: LINES (default
# 1000000), RUNS, BENCHDIR.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TOP
. "$TOP/tests/bench/lib.sh"
LINES=${LINES:-1000000}


header "ltparse ($LINES lines)"
for fmt in new old v1 mixed; do
	f=$(genlog_cached "$fmt" "$LINES")
	measure "ltparse $fmt" "$f" 1 "ltparse '$f' > /dev/null"
done

f=$(genlog_cached new "$LINES")
measure "ltparse -P 1/2 & -P 2/2 (new)" "$f" 1 \
    "ltparse -P 1/2 '$f' > /dev/null & ltparse -P 2/2 '$f' > /dev/null; wait"
measure "ltparse -P 2/2 alone (new)" "$f" 1 "ltparse -P 2/2 '$f' > /dev/null"

j="$BENCHDIR/ltparse-new-$LINES.json"
[ -s "$j" ] || ltparse "$f" | ltjson > "$j"
measure "ltparse JSON (ltjson of new)" "$j" 1 "ltparse '$j' > /dev/null"

header "ltparse peak memory against input size"
small=$(genlog_cached new $((LINES / 4)))
measure "ltparse new, 1/4 size" "$small" 1 "ltparse '$small' > /dev/null"
measure "ltparse new, full size" "$f" 1 "ltparse '$f' > /dev/null"
