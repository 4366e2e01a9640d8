#!/bin/sh
# bench-ltjson: ltjson alone on an lt1 stream, and ltparse | ltjson on the
# log it came from (LINES lines of the current format).
set -eu
. "$TOP/tests/bench/lib.sh"
LINES=${LINES:-1000000}
log=$(genlog_cached new "$LINES")
lt1=$BENCHDIR/new-$LINES.lt1
[ -s "$lt1" ] || ltparse "$log" > "$lt1"
header "ltjson, $LINES-line current-format log"
measure "ltjson" "$lt1" 1 "ltjson '$lt1' > /dev/null"
measure "ltparse | ltjson" "$log" 2 "ltparse '$log' | ltjson > /dev/null"
