#!/bin/sh
# bench-ltproto: ltproto beside ltjson on the stream of the default chain
# (LINES lines of the current format), their sizes, and, where Perfetto's
# trace processor is found ($TRACE_PROCESSOR, PATH, ../shared), the
# import of each.
set -eu
. "$TOP/tests/bench/lib.sh"
LINES=${LINES:-1000000}
log=$(genlog_cached new "$LINES")
lt1=$BENCHDIR/chain-$LINES.lt1
[ -s "$lt1" ] || ltparse "$log" | ltpair | ltlanefix -q | ltstat -t > "$lt1"
header "ltproto and ltjson, the default chain's stream of a $LINES-line log"
measure "ltjson" "$lt1" 1 "ltjson '$lt1' > '$BENCHDIR/t.json'"
measure "ltproto" "$lt1" 1 "ltproto -o '$BENCHDIR/t.pftrace' '$lt1'"
measure "litracer -q -o t.pftrace" "$log" 6 \
    "litracer -q -o '$BENCHDIR/l.pftrace' '$log' 2>/dev/null"
j=$(wc -c < "$BENCHDIR/t.json")
p=$(wc -c < "$BENCHDIR/t.pftrace")
awk -v j="$j" -v p="$p" 'BEGIN {
	printf "sizes: JSON %.1f MB, .pftrace %.1f MB (%.0f%% of the JSON)\n",
	    j / 1e6, p / 1e6, 100 * p / j }'
tp=${TRACE_PROCESSOR:-}
[ -n "$tp" ] || tp=$(command -v trace_processor_shell || command -v trace_processor || :)
[ -n "$tp" ] || tp=$TOP/../shared/perfetto/trace_processor_shell
if [ -x "$tp" ]; then
	echo 'select count(*) from slice;' > "$BENCHDIR/q.sql"
	header "Perfetto's importer ($tp)"
	measure "import t.json" "$BENCHDIR/t.json" 1 \
	    "'$tp' -q '$BENCHDIR/q.sql' '$BENCHDIR/t.json' > /dev/null 2>&1"
	measure "import t.pftrace" "$BENCHDIR/t.pftrace" 1 \
	    "'$tp' -q '$BENCHDIR/q.sql' '$BENCHDIR/t.pftrace' > /dev/null 2>&1"
fi
