#!/bin/sh
# tests/bench/bench-ltcheck.sh: ltcheck's speed (MB/s of JSON) and memory
# (bytes per slice), on Kineto-like traces of nested X slices and of B/E
# pairs made by an awk generator.  Knobs: LINES (events, default 1000000),
# RUNS, BENCHDIR (see lib.sh).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/bench/lib.sh"

EVENTS=${LINES:-1000000}

# nested N BE: a trace of N events on 8 threads of one process; each
# step slice holds three kernels.  BE=1 writes B/E pairs instead of X.
nested() {
	awk -v n="$1" -v be="$2" '
	function ev(ts, ph, name, cat, tid, dur) {
		printf "%s{\"ph\":\"%s\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":4242,\"tid\":%d,\"ts\":%d%s,\"args\":{\"External id\":%d,\"Sequence number\":%d}}", sep, ph, cat, name, tid, ts, dur != "" ? ",\"dur\":" dur : "", k, k * 7
		sep = ",\n"
	}
	BEGIN {
		print "{\"traceEvents\":["
		ts = 1000
		while (k < n) {
			for (t = 1; t <= 8 && k < n; t++) {
				b = ts + t
				if (be) {
					ev(b, "B", "step", "cpu_op", t, "")
					for (c = 0; c < 3; c++) {
						ev(b + 1 + c * 30, "B", "kernel_" c, "kernel", t, "")
						ev(b + 21 + c * 30, "E", "kernel_" c, "kernel", t, "")
					}
					ev(b + 100, "E", "step", "cpu_op", t, "")
					k += 8
				} else {
					ev(b, "X", "step", "cpu_op", t, 100)
					for (c = 0; c < 3; c++)
						ev(b + 1 + c * 30, "X", "kernel_" c, "kernel", t, 20)
					k += 4
				}
			}
			ts += 120
		}
		print "\n]}"
	}'
}

# trace N BE: the path of a generated trace, made once.
trace() {
	_t="$BENCHDIR/ltcheck-$1-$2.json"
	[ -s "$_t" ] || nested "$1" "$2" > "$_t"
	printf '%s\n' "$_t"
}

# perslice LABEL N BE SLICES: peak RSS of ltcheck over that of a tiny
# trace, divided by the number of slices.
perslice() {
	best "ltcheck -q '$(trace 1000 "$3")'"
	_small=$RSS
	best "ltcheck -q '$(trace "$2" "$3")'"
	awk -v l="$1" -v a="$_small" -v b="$RSS" -v s="$4" 'BEGIN {
		printf "%-40s %8.1f bytes per slice (peak RSS %.1f MiB)\n",
		    l, (b - a) * 1024 / s, b / 1024 }'
}

# cpu LABEL FILE CMD: MB/s of FILE per second of CPU (user + system) that
# CMD used: unlike the wall time, this does not depend on what else the
# machine runs.
cpu() {
	_t=$(sh -c "$3 > /dev/null; times" | awk 'NR == 2 {
		split($1, u, "m"); split($2, s, "m")
		print u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
	awk -v l="$1" -v t="$_t" -v n="$(wc -c < "$2")" 'BEGIN {
		if (t <= 0) t = 0.001
		printf "%-40s %8.3f s of CPU, %.1f MB/s\n", l, t, n / 1e6 / t }'
}

header "ltcheck ($EVENTS events)"
x=$(trace "$EVENTS" 0)
be=$(trace "$EVENTS" 1)
measure "ltcheck, X slices" "$x" 1 "ltcheck -q '$x'"
measure "ltcheck -t -V 56, X slices" "$x" 1 "ltcheck -t -V 56 '$x' > /dev/null"
measure "ltcheck, B/E pairs" "$be" 1 "ltcheck -q '$be'"
measure "ltcheck -s, B/E pairs" "$be" 1 "ltcheck -q -s '$be' > /dev/null"
cpu "cpu, X slices" "$x" "ltcheck -q '$x'"
cpu "cpu, B/E pairs" "$be" "ltcheck -q '$be'"
perslice "memory, X slices" "$EVENTS" 0 "$EVENTS"
perslice "memory, B/E pairs" "$EVENTS" 1 "$((EVENTS / 2))"
if command -v genlog > /dev/null 2>&1; then
	log=$(genlog_cached new "$EVENTS")
	# what litracer writes: raw B/E of a log cross, paired spans do not
	ltparse "$log" | ltpair | ltlanefix -q | ltjson \
	    > "$BENCHDIR/ltcheck-chain.json" || true
	measure "ltcheck, the chain's trace of genlog" \
	    "$BENCHDIR/ltcheck-chain.json" 1 \
	    "ltcheck -q '$BENCHDIR/ltcheck-chain.json'"
fi
