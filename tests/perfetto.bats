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
