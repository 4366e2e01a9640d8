#!/usr/bin/env bats
# perfetto: what the chain writes, imported by Perfetto's own trace
# processor (tp_need in helper.bash finds it; without one these skip).

bats_require_minimum_version 1.5.0

setup() {
	load helper
	T=$BATS_TEST_TMPDIR
	tp_need
}

# slices FILE: how many slices Perfetto imports from FILE.
slices() {
	tp_query "$1" 'select count(*) from slice'
}

@test "the bundled sample through litracer -q: no error, no data loss, a slice per X" {
	litracer -q -o "$T/s.json" "$DATA/sample.log" 2>"$T/summary"
	tp_clean "$T/s.json"
	x=$(grep -c '"ph":"X"' "$T/s.json")
	# the summary counts the same X events as the trace holds
	[[ " $(cat "$T/summary") " == *" X=$x "* ]]
	[ "$x" -gt 900 ]
	n=$(slices "$T/s.json")
	[ "$n" -ge "$x" ] || { echo "$n slices for $x X events"; false; }
}

@test "the bundled sample with --no-complete: B/E pairs import clean, a slice per pair" {
	litracer -q --no-complete -o "$T/be.json" "$DATA/sample.log" 2>/dev/null
	tp_clean "$T/be.json"
	b=$(grep -c '"ph":"B"' "$T/be.json")
	[ "$b" -eq "$(grep -c '"ph":"E"' "$T/be.json")" ]
	[ "$b" -gt 900 ]
	n=$(slices "$T/be.json")
	[ "$n" -ge "$b" ] || { echo "$n slices for $b B/E pairs"; false; }
}

@test "the importer sees what ltlanefix repairs: crossing reads spill without it" {
	genlog -n 5000 >"$T/g.log"
	litracer -q --no-lanefix -o "$T/raw.json" "$T/g.log" 2>/dev/null
	# spilled since v57, dropped by v51-v56
	run -0 tp_errors "$T/raw.json"
	[[ "$output" == '"slice_'*'_overlapping_complete_event","[NULL]","error",'* ]]
	litracer -q -o "$T/fixed.json" "$T/g.log" 2>/dev/null
	tp_clean "$T/fixed.json"
	[ "$(slices "$T/fixed.json")" -ge "$(grep -c '"ph":"X"' "$T/fixed.json")" ]
}

@test "a truncated trace: tp_query fails and says why" {
	litracer -q -o "$T/s.json" "$DATA/sample.log" 2>/dev/null
	head -c 100000 "$T/s.json" >"$T/cut.json"
	run -1 tp_query "$T/cut.json" 'select count(*) from slice'
	[[ "$output" == *"JSON trace file is incomplete"* ]]
}

# -------- the .pftrace is the same trace as the JSON --------

# same_chain INPUT [NAME]: litracer -o t.json and -o t.pftrace of INPUT
# are the same trace in Perfetto (tp_same); what was compared, under
# NAME, goes to the TAP output as a "# compared" line.
same_chain() {
	local n
	litracer -q -o "$T/t.json" "$1" 2>/dev/null
	litracer -q -o "$T/t.pftrace" "$1" 2>/dev/null
	n=$(tp_same "$T/t.json" "$T/t.pftrace") || { echo "$n"; return 1; }
	echo "# compared ${2:-${1##*/}}: $n" >&3
}

@test "JSON and .pftrace the same in Perfetto: every reproducer of tests/data/repro" {
	local f n
	for f in "$DATA"/repro/*.json; do
		[ "${f##*/}" != ltcheck-flow-ids.json ] || continue
		same_chain "$f" || return 1
	done
	# a stream of the chain: the writers alone
	ltjson "$DATA/repro/pftrace-same-start.lt.gz" >"$T/t.json"
	ltproto -o "$T/t.pftrace" "$DATA/repro/pftrace-same-start.lt.gz"
	n=$(tp_same "$T/t.json" "$T/t.pftrace") || { echo "$n"; return 1; }
	echo "# compared pftrace-same-start.lt.gz: $n" >&3
}

# X ends that wait on their sequence (window.c) while its threads are
# left alone for two sweeps (16384 events each) go to cold.c and come
# back: when the thread is used again, and at the end of the stream.
@test "JSON and .pftrace the same in Perfetto: X ends kept in cold.c while threads are left alone, and to the end" {
	local n
	awk 'BEGIN { print "#lt1"
		# three threads of pid 1, nested slices, as they end
		for (t = 11; t <= 13; t++)
			for (k = 0; k < 20; k++) {
				b = 1000 + k * 10 + t / 10
				printf "%.1f\tX\t1\t%d\t3\tread\tchild\t{}\t{}\n", b + 2, t
				printf "%.1f\tX\t1\t%d\t8\tread\tparent\t{\"k\":%d}\t{}\n", b, t, k
			}
		# five threads of pid 3 with two slices: one sequence
		for (t = 31; t <= 35; t++) {
			printf "%.1f\tX\t3\t%d\t2\tread\tc\t{}\t{}\n", 1003 + t, t
			printf "%.1f\tX\t3\t%d\t6\tread\tp\t{}\t{}\n", 1001 + t, t
		}
		# another thread, for two sweeps
		for (i = 0; i < 40000; i++)
			printf "%.1f\tX\t2\t2\t1\tstep\tstep\t{}\t{}\n", 1300 + i * 2
		# two of the three again, later, and one of pid 3
		for (t = 11; t <= 12; t++)
			for (k = 0; k < 5; k++) {
				b = 90000 + k * 10 + t / 10
				printf "%.1f\tX\t1\t%d\t3\tread\tchild\t{}\t{}\n", b + 2, t
				printf "%.1f\tX\t1\t%d\t8\tread\tparent\t{}\t{}\n", b, t
			}
		printf "%.1f\tX\t3\t31\t2\tread\tc\t{}\t{}\n", 90001
		# the third, at the very end of its last child
		printf "%.1f\tX\t1\t13\t1\tread\tnext\t{}\t{}\n", 1196.3
	}' >"$T/ends.lt1"
	ltjson "$T/ends.lt1" >"$T/t.json"
	ltproto -o "$T/t.pftrace" "$T/ends.lt1"
	n=$(tp_same "$T/t.json" "$T/t.pftrace") || { echo "$n"; return 1; }
	echo "# compared X ends kept in cold.c: $n" >&3
}

@test "JSON and .pftrace the same in Perfetto: the bundled sample, genlog of every format" {
	local f
	same_chain "$DATA/sample.log"
	for f in new old v1 mixed; do
		genlog -f "$f" -n 4000 -s 3 -c -b >"$T/$f.log"
		same_chain "$T/$f.log" "genlog -f $f" || return 1
	done
}

@test "JSON and .pftrace the same in Perfetto: genlog of every tracer level and prefetch mode" {
	local m
	for m in "-l batch" "-l chunk" "-l sample" "-l debug" "-a sync" \
	    "-a async -p" "-a nospan -N 2 -r 3" "-a random -w 0"; do
		# shellcheck disable=SC2086
		genlog -n 3000 -s 4 $m >"$T/g.log"
		same_chain "$T/g.log" "genlog $m" || return 1
	done
}

@test "JSON and .pftrace the same in Perfetto: gentrace of every form" {
	local m
	for m in "-f kineto" "-f kineto -i -d 20" "-f dense" "-f stair" \
	    "-f kineto -x 40"; do
		# shellcheck disable=SC2086
		gentrace -n 3000 -s 5 $m >"$T/k.json"
		same_chain "$T/k.json" "gentrace $m" || return 1
	done
}
