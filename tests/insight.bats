#!/usr/bin/env bats
# litracer's insight: the data waits, chunk flows and counters that
# ltstat -t adds by default, --no-insight, --report, and how they meet
# --cat and --no-complete.

bats_require_minimum_version 1.5.0

setup() {
	load helper
	T=$BATS_TEST_TMPDIR
	SAMPLE=$DATA/sample.log
	export TMPDIR=$T/tmp
	mkdir -p "$TMPDIR"
	cd "$T"
}

# count TRACE WHAT: how many slices named "data wait", flows, and counter
# tracks the trace holds, as "waits flows counters".
count() {
	tp_query "$1" "select (select count(*) from slice where name = 'data wait') || ' ' || (select count(*) from flow) || ' ' || (select count(*) from counter_track);" | tr -d '"'
}

@test "by default the trace has the waits, flows and counters, and imports clean" {
	tp_need
	run -0 --separate-stderr litracer -q -o t.json "$SAMPLE"
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	tp_clean t.json
	read -r w f c <<<"$(count t.json)"
	[ "$w" -gt 0 ] && [ "$f" -gt 0 ] && [ "$c" -gt 0 ]
	# what ltstat -t says it added is what Perfetto finds
	[ "$(tp_query t.json "select count(*) from slice where name = 'data wait';")" = \
	    "$(sed -n 's/.*"ltstat":{"waits":\([0-9]*\).*/\1/p' t.json)" ]
	# --no-insight: none of it, and nothing else changes
	run -0 --separate-stderr litracer -q --no-insight -o n.json "$SAMPLE"
	[ "$(count n.json)" = "0 0 0" ]
	grep -q '"ltstat"' n.json && false
	[ "$(ltparse n.json | grep -c '	X	')" -eq \
	    "$(ltparse t.json | grep -v '	data wait	' | grep -c '	X	')" ]
}

@test "--report prints ltstat's report of the trace after the summary" {
	run -0 --separate-stderr litracer -q --report -o t.json "$SAMPLE"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ ${lines[0]} == "ltstat: LitData 0.2.68 or later; 4 rank processes, "* ]]
	ltparse "$SAMPLE" | ltpair | ltlanefix -q | ltstat > want.txt
	diff want.txt <(printf '%s\n' "$output")
	# The trace on standard output: the report goes to standard error,
	# after the summary.
	run -0 --separate-stderr litracer -q --report -o - "$SAMPLE"
	json_ok <(printf '%s\n' "$output")
	[[ ${stderr_lines[0]} == "lines="* ]]
	[ "${stderr_lines[1]}" = "$(head -n 1 want.txt)" ]
	# The same report without the additions.
	run -0 --separate-stderr litracer -q --report --no-insight -o n.json "$SAMPLE"
	diff want.txt <(printf '%s\n' "$output")
}

@test "--cat: only what the categories listed leave (wait, flow, chunk are categories too)" {
	tp_need
	litracer -q --cat read -o r.json "$SAMPLE" 2>/dev/null
	[ "$(count r.json)" = "0 0 0" ]
	litracer -q --cat download,read,delete -o io.json "$SAMPLE" 2>/dev/null
	[ "$(count io.json)" = "0 0 0" ]
	litracer -q --cat 'download,read,delete,flow,chunk' -o f.json "$SAMPLE" 2>/dev/null
	tp_clean f.json
	read -r w f c <<<"$(count f.json)"
	[ "$w" -eq 0 ] && [ "$f" -gt 0 ] && [ "$c" -gt 0 ]
	[ "$(tp_query f.json "select count(*) from counter_track where name = 'data wait share';")" = 0 ]
	litracer -q --cat 'batch,wa*' -o b.json "$SAMPLE" 2>/dev/null
	tp_clean b.json
	read -r w f c <<<"$(count b.json)"
	[ "$w" -gt 0 ] && [ "$f" -eq 0 ]
	[ "$(tp_query b.json "select count(*) from counter_track where name != 'data wait share';")" = 0 ]
	# The wait tracks keep their names.
	[ "$(tp_query b.json "select count(distinct utid) from thread where name like '% data wait';")" -gt 0 ]
}

@test "--no-complete: the waits as B and E, flows bound; with --no-lanefix too, none" {
	tp_need
	litracer -q --no-complete -o be.json "$SAMPLE" 2>/dev/null
	tp_clean be.json
	read -r w f c <<<"$(count be.json)"
	[ "$w" -gt 0 ] && [ "$f" -gt 0 ] && [ "$c" -gt 0 ]
	[ "$(ltparse be.json | grep -c '	X	')" -eq 0 ]
	[ "$(tp_query be.json "select count(*) = sum(extract_arg(so.arg_set_id, 'args.chunk') = extract_arg(si.arg_set_id, 'args.chunk')) from flow f join slice so on so.id = f.slice_out join slice si on si.id = f.slice_in;")" = 1 ]
	# the same waits as with complete spans
	litracer -q -o x.json "$SAMPLE" 2>/dev/null
	[ "$(tp_query x.json "select count(*) || ' ' || sum(dur) from slice where name = 'data wait';")" = \
	    "$(tp_query be.json "select count(*) || ' ' || sum(dur) from slice where name = 'data wait';")" ]
	litracer -q --no-complete --no-lanefix -o raw.json "$SAMPLE" 2>/dev/null
	[ "$(count raw.json)" = "0 0 0" ]
}
