#!/bin/sh
# tests/bench/bench-longjob.sh: memory and CPU on the shape of a long job
# (issue 26).  DataLoader workers are new processes every epoch unless
# persistent, each with its own download threads, so a long job's log
# holds thousands of processes and tens of thousands of threads, a few
# dozen alive at once.  Every stage alone, on the stream the chain gives
# it, litracer -q, and the same stages in one ltchain process, at 1M and
# 4M lines (SCALE), on:
#   default   genlog -n N (2 epochs, about 120 threads)
#   long      genlog -n N -e N/10000 -w 4 -r 2 -a async (100 epochs per
#             1M lines, new worker pids each, 4 asyncio download threads
#             per worker: about 3,500 threads per 1M lines)
#   long -p   the same with persistent workers (-p)
# The goal: every stage's peak within 16 MiB (default) and 32 MiB (long),
# the 4M-line peak within 1.2x of the 1M one; a table at the end says
# which are.  A second gives the CPU of each case per million lines
# between the first and the last SCALE: what a million lines more cost,
# without what a run costs to start (the driver's processes, the
# stages' buffers), which the figure at 1M lines holds.
# Knobs: SCALE (default "1000000 4000000"), RUNS, BENCHDIR.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TOP
. "$TOP/tests/bench/lib.sh"

# shaped NAME LINES: a log of shape NAME (above), made once.
shaped() {
	_f="$BENCHDIR/shape-$1-$2.log"
	if [ ! -s "$_f" ]; then
		case $1 in
		default) genlog -n "$2" ;;
		long) genlog -n "$2" -e $(($2 / 10000)) -w 4 -r 2 -a async ;;
		long-p) genlog -n "$2" -e $(($2 / 10000)) -w 4 -r 2 -a async -p ;;
		esac > "$_f" || return 1
	fi
	printf '%s\n' "$_f"
}

# shellcheck disable=SC2086 # a list of sizes
set -- ${SCALE:-1000000 4000000}
for shape in default long long-p; do
	for n; do
		PEAKS=$BENCHDIR/peaks-$shape-$n
		CPUS=$BENCHDIR/cpus-$shape-$n
		rm -f "$PEAKS" "$CPUS"
		log=$(shaped "$shape" "$n")
		b=$BENCHDIR/shape-$shape-$n
		[ -s "$b.p" ] || ltparse "$log" > "$b.p"
		[ -s "$b.pp" ] || ltpair "$b.p" > "$b.pp"
		[ -s "$b.l" ] || ltlanefix -q "$b.pp" > "$b.l"
		[ -s "$b.s" ] || ltstat -t -o /dev/null "$b.l" > "$b.s"
		header "$shape shape, $n lines ($(ltparse "$log" |
		    sed -n 's/^#stat	ltparse	.*	processes=\([0-9]*\)	threads=\([0-9]*\).*/\1 processes, \2 threads/p'))"
		measure "ltparse" "$log" 1 "ltparse '$log' > /dev/null"
		measure "ltpair" "$b.p" 1 "ltpair '$b.p' > /dev/null"
		measure "ltlanefix" "$b.pp" 1 "ltlanefix -q '$b.pp' > /dev/null"
		measure "ltstat -t" "$b.l" 1 \
		    "ltstat -t -o /dev/null '$b.l' > /dev/null"
		measure "ltjson" "$b.s" 1 "ltjson '$b.s' > /dev/null"
		measure "ltproto" "$b.s" 1 "ltproto '$b.s' > /dev/null"
		# ltparse, ltpair, ltlanefix, ltstat -t, ltjson: five cats.
		measure "litracer -q" "$log" 5 \
		    "litracer -q -o '$b.json' '$log' 2>/dev/null"
		# the same stages in one process: what they cost without
		# the driver, its second process and their pipe
		measure "ltchain, one process" "$log" 5 \
		    "ltchain ltparse '$log' '|' ltpair '|' ltlanefix -q '|' \
		    ltstat -t -o /dev/null '|' ltjson > /dev/null"
		rm -f "$b.json"
	done
done

# The goal, case by case: the peaks of the first and the last SCALE, and
# their ratio beside the bound.
[ $# -ge 2 ] || exit 0
for last; do :; done
printf '\npeak MiB at %s and at %s lines, and their ratio (goal: at most %s)\n' \
    "$1" "$last" "16 MiB default, 32 MiB long, a ratio of 1.2"
for shape in default long long-p; do
	lim=32
	[ "$shape" != default ] || lim=16
	awk -F '\t' -v shape="$shape" -v lim="$lim" '
	NR == FNR { a[$1] = $2; next }
	($1 in a) {
		r = a[$1] > 0 ? $2 / a[$1] : 0
		ok = r <= 1.2 && a[$1] / 1024 <= lim && $2 / 1024 <= lim
		printf "%-8s %-28s %8.1f %8.1f %6.2fx  %s\n", shape, $1,
		    a[$1] / 1024, $2 / 1024, r, ok ? "ok" : "over"
	}' "$BENCHDIR/peaks-$shape-$1" "$BENCHDIR/peaks-$shape-$last"
done

printf '\nCPU s at %s and at %s lines, and per million lines between them\n' \
    "$1" "$last"
printf '%-8s %-28s %8s %8s %8s %8s\n' shape case first last per-1M \
    'cats per-1M'
for shape in default long long-p; do
	awk -F '\t' -v shape="$shape" -v m="$((last - $1))" '
	BEGIN { m /= 1e6 }
	NR == FNR { a[$1] = $2; ac[$1] = $3; next }
	($1 in a) && m > 0 {
		printf "%-8s %-28s %8.3f %8.3f %8.3f %8.3f\n", shape, $1,
		    a[$1], $2, ($2 - a[$1]) / m, ($3 - ac[$1]) / m
	}' "$BENCHDIR/cpus-$shape-$1" "$BENCHDIR/cpus-$shape-$last"
done
