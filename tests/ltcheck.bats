#!/usr/bin/env bats
# tests/ltcheck.bats: ltcheck, the validator that predicts Perfetto's import.
#
# Every rule of ltcheck(1), RULES, has a fixture tests/data/ltcheck/RULE.json
# (its example) and a golden RULE.out holding `ltcheck -t` for the three
# version bands; the exit status is checked against the cards.  Where
# Perfetto's trace processor is at hand, the counters ltcheck predicts are
# compared with those it counts, on the fixtures and on what the chain
# writes for generated logs and traces (the differential suite, below).

bats_require_minimum_version 1.5.0
load helper

D="$DATA/ltcheck"

# The real importer, Perfetto's trace processor, judges the predictions.
# COUNTED: the query of what Perfetto counts, a "counter TAB value" row
# each: every stat above 0 but the importer's own timings (info stats of
# source analysis).
COUNTED="select name || char(9) || sum(value) from stats
    where value > 0 and not (severity = 'info' and source = 'analysis')
    group by name"

# counted FILE: COUNTED on FILE, sorted; "fatal TAB 1" if the load fails.
counted() {
	local rows="$BATS_TEST_TMPDIR/counted"
	if ! tp_query "$1" "$COUNTED" >"$rows" 2>/dev/null; then
		printf 'fatal\t1\n'
		return
	fi
	tr -d '"' <"$rows" | sort
}

# predicted FILE [ARG...]: the counters ltcheck -t ARG... predicts for
# FILE, in the same form (the rules without a counter left out).
predicted() {
	local f=$1
	shift
	ltcheck -t "$@" "$f" | awk -F '\t' '$1 !~ /^[A-Z]/ { print $1 "\t" $2 }' |
	    sort
}

# agree FILE...: for every FILE, the counters ltcheck predicts are those
# Perfetto counts (as counted and predicted give them); else both are
# shown.  Each FILE costs one trace processor and one ltcheck; one awk
# compares them all.
agree() {
	local f n=0 d="$BATS_TEST_TMPDIR/agree"
	local q="$d.sql"
	[ $# -gt 0 ] || { echo "agree: no file"; return 1; }
	printf '%s\n' "$COUNTED" >"$q"
	for f; do
		n=$((n + 1))
		tp_run "$f" "$q" "$d.tp.$n" 2>/dev/null ||
		    printf '"x"\nfatal\t1\n' >"$d.tp.$n"
		ltcheck -t "$f" >"$d.lt.$n" || [ $? -eq 1 ]
	done
	# per FILE: the trace processor's CSV (a header, then "name<TAB>value"
	# quoted), ltcheck's -t lines (the rules without a counter, upper
	# case, left out)
	awk -F '\t' -v d="$d" -v n="$n" -v names="$(printf '%s\n' "$@")" '
		BEGIN {
			split(names, file, "\n")
			for (i = 1; i <= n; i++) {
				split("", tp)
				split("", lt)
				f = d ".tp." i
				for (l = 0; (getline line <f) > 0; )
					if (l++ > 0) {
						gsub(/"/, "", line)
						tp[line]++
					}
				close(f)
				f = d ".lt." i
				while ((getline line <f) > 0) {
					split(line, c, "\t")
					if (c[1] !~ /^[A-Z]/)
						lt[c[1] "\t" c[2]]++
				}
				close(f)
				out = ""
				for (k in tp)
					if (tp[k] != lt[k] + 0)
						out = out "\n  Perfetto " tp[k] "x, ltcheck " lt[k] + 0 "x: " k
				for (k in lt)
					if (!(k in tp))
						out = out "\n  Perfetto 0x, ltcheck " lt[k] "x: " k
				if (out != "") {
					print file[i] ": the trace processor and ltcheck differ:" out
					bad = 1
				}
			}
			exit bad
		}'
}

# bands RULE: the -t output for v58, v56 and v50 equals RULE.out, and the
# exit status of each run says whether TE, IE, DL or FATAL was predicted.
bands() {
	local v st want out="$BATS_TEST_TMPDIR/bands.out" one="$BATS_TEST_TMPDIR/one"
	: > "$out"
	for v in 58 56 50; do
		st=0
		ltcheck -t -V "$v" "$D/$1.json" > "$one" || st=$?
		want=0
		if grep -q -E '	(TE|IE|DL|FATAL)$' "$one"; then
			want=1
		fi
		[ "$st" -eq "$want" ] || { echo "-V $v: exit $st, want $want"; return 1; }
		{ echo "# -V $v"; cat "$one"; } >> "$out"
	done
	if [ -n "${UPDATE:-}" ]; then
		cp "$out" "$D/$1.out"
	fi
	diff -u "$D/$1.out" "$out"
}

@test "-h and --help print the usage (the man page's synopsis) and every long option, exit 0" {
	need mandoc
	local o
	run -0 --separate-stderr ltcheck --help
	[ "${lines[0]}" = "usage: ltcheck [-Pqst] [-V version] [file]" ]
	[ "${lines[0]}" = "usage: $(synopsis ltcheck)" ]
	[ -z "$stderr" ]
	for o in trace-processor quiet summary counters perfetto-version help; do
		[[ "$output" == *", --$o"* ]]
		grep -q -e "Fl \\\\-$o" "$TOP/man/ltcheck.1"
	done
	run -0 ltcheck -h
	[ "${lines[0]}" = "usage: ltcheck [-Pqst] [-V version] [file]" ]
}

@test "the long options do what the short ones do" {
	local f="$D/PF-BE-CROSS-NAMED.json"
	diff <(ltcheck -t -V 56 "$f") <(ltcheck --counters --perfetto-version 56 "$f")
	diff <(ltcheck -t -V 50 "$f") <(ltcheck --counters --perfetto-version=50 "$f")
	diff <(ltcheck -q -s "$f" 2>&1) <(ltcheck --quiet --summary "$f" 2>&1)
	run -2 --separate-stderr ltcheck --counters --summary "$f"
	[ "$stderr" = "usage: ltcheck [-Pqst] [-V version] [file]" ]
	run -2 --separate-stderr ltcheck --bogus "$f"
	[ "${stderr_lines[-1]}" = "usage: ltcheck [-Pqst] [-V version] [file]" ]
}

@test "bad options and operands: usage, exit 2, nothing on stdout" {
	run -2 --separate-stderr ltcheck -x "$D/PF-X-OVERLAP.json"
	[ -z "$output" ]
	[ "${stderr_lines[-1]}" = "usage: ltcheck [-Pqst] [-V version] [file]" ]
	run -2 --separate-stderr ltcheck a.json b.json
	[ "$stderr" = "usage: ltcheck [-Pqst] [-V version] [file]" ]
	run -2 --separate-stderr ltcheck -s -t "$D/PF-X-OVERLAP.json"
	[ "$stderr" = "usage: ltcheck [-Pqst] [-V version] [file]" ]
	run -2 --separate-stderr ltcheck -V 0 "$D/PF-X-OVERLAP.json"
	[ "$stderr" = "ltcheck: -V 0: too small" ]
	run -2 --separate-stderr ltcheck -V v57 "$D/PF-X-OVERLAP.json"
	[ "$stderr" = "ltcheck: -V v57: invalid" ]
	[ -z "$output" ]
}

@test "a missing file is a system error, exit 2" {
	run -2 --separate-stderr ltcheck "$BATS_TEST_TMPDIR/nope.json"
	[ "$stderr" = "ltcheck: $BATS_TEST_TMPDIR/nope.json: No such file or directory" ]
	[ -z "$output" ]
}

@test "a write error is a system error, exit 2" {
	[ -w /dev/full ] || skip "/dev/full is missing (Linux has it; as root: mknod -m 666 /dev/full c 1 7)"
	run -2 --separate-stderr sh -c "ltcheck '$D/PF-X-OVERLAP.json' > /dev/full"
	[[ "$stderr" == "ltcheck: write error: <stdout>:"* ]]
}

@test "A: PF-DETECT-PREFIX (a BOM) fails the load" { bands PF-DETECT-PREFIX; }
@test "A: PF-DETECT-EMPTY ([]) fails the load" { bands PF-DETECT-EMPTY; }
@test "A: PF-JSON-SYNTAX (\"ts\":01) fails the load" { bands PF-JSON-SYNTAX; }
@test "A: PF-UNICODE-SURROGATE in name fails the load" { bands PF-UNICODE-SURROGATE; }
@test "A: PF-TRACEEVENTS-NOT-ARRAY fails the load" { bands PF-TRACEEVENTS-NOT-ARRAY; }
@test "A: PF-TRUNCATED-OBJECT fails the load" { bands PF-TRUNCATED-OBJECT; }
@test "A: PF-BAD-DUR-STALL, array form: TE and the rest lost" { bands PF-BAD-DUR-STALL; }
@test "A: PF-BAD-DUR-STALL, object form: fails the load" { bands PF-BAD-DUR-STALL-object; }
@test "A: PF-ARRAY-NO-CLOSE is accepted" { bands PF-ARRAY-NO-CLOSE; }
@test "A: PF-TRAILING-COMMA accepted since v51, fatal before" { bands PF-TRAILING-COMMA; }
@test "A: PF-EMPTY-OBJECT skipped since v57, TE before" { bands PF-EMPTY-OBJECT; }
@test "B: PF-MISSING-PH" { bands PF-MISSING-PH; }
@test "B: PF-MISSING-TS" { bands PF-MISSING-TS; }
@test "B: PF-NEGATIVE-TS" { bands PF-NEGATIVE-TS; }
@test "B: PF-TS-OVERFLOW (ns written as us) is silent" { bands PF-TS-OVERFLOW; }
@test "B: PF-NUM-DIGITS goes negative: dropped" { bands PF-NUM-DIGITS; }
@test "B: PF-NUM-OVERFLOW in a member (tdur 1e400) fails the load" { bands PF-NUM-OVERFLOW; }
@test "B: PF-NUM-OVERFLOW in args loses the args after it, silently" { bands PF-NUM-OVERFLOW-args; }
@test "B: PF-NUM-OVERFLOW in a counter's args: the importer never ends, fatal" {
	printf '[{"ph":"C","ts":1,"pid":1,"name":"c","args":{"v":2e999}}]' >"$BATS_TEST_TMPDIR/c.json"
	run -1 ltcheck -t "$BATS_TEST_TMPDIR/c.json"
	[ "$output" = $'fatal\t1\tFATAL' ]
}
@test "B: PF-X-NO-DUR" { bands PF-X-NO-DUR; }
@test "B: PF-X-NEG-DUR" { bands PF-X-NEG-DUR; }
@test "B: PF-INSTANT-NO-TID" { bands PF-INSTANT-NO-TID; }
@test "B: PF-ASYNC-NO-ID" { bands PF-ASYNC-NO-ID; }
@test "B: PF-COUNTER-BAD" { bands PF-COUNTER-BAD; }
@test "B: PF-META-BAD" { bands PF-META-BAD; }
@test "B: PF-PHASE-T" { bands PF-PHASE-T; }
@test "B: PF-MAX-DEPTH (513 nested B)" { bands PF-MAX-DEPTH; }
@test "B: PF-FLOW-INVALID-ID" { bands PF-FLOW-INVALID-ID; }
@test "B: PF-FLOW-INVALID-ID of ids beyond 64 bits: strtoull's, not the model's" { bands PF-FLOW-INVALID-ID-64bit; }
@test "B: PF-FLOW-NO-ENCLOSING" { bands PF-FLOW-NO-ENCLOSING; }
@test "B: PF-FLOW-BEFORE-SLICE" { bands PF-FLOW-BEFORE-SLICE; }
@test "B: PF-FLOW-DUP-ID" { bands PF-FLOW-DUP-ID; }
@test "B: PF-FLOW-V2-NO-DIRECTION" { bands PF-FLOW-V2-NO-DIRECTION; }
@test "B: PF-FLOW-END-NO-START is info only" { bands PF-FLOW-END-NO-START; }
@test "B: PF-DISPLAY-TIME-UNIT is info only" { bands PF-DISPLAY-TIME-UNIT; }
@test "C: PF-X-OVERLAP: spill v57+, drop v51-56, silent before" { bands PF-X-OVERLAP; }
@test "C: PF-X-OVERLAP-ROUNDING" { bands PF-X-OVERLAP-ROUNDING; }
@test "C: PF-TS-PRECISION" { bands PF-TS-PRECISION; }
@test "C: PF-BE-CROSS-NAMED" { bands PF-BE-CROSS-NAMED; }
@test "C: PF-BE-CROSS-UNNAMED is silent" { bands PF-BE-CROSS-UNNAMED; }
@test "C: PF-B-INSIDE-X-OUTLIVES" { bands PF-B-INSIDE-X-OUTLIVES; }
@test "C: PF-CHILD-OUTLIVES-PARENT is silent" { bands PF-CHILD-OUTLIVES-PARENT; }
@test "C: PF-SAME-TS-B-BEFORE-E" { bands PF-SAME-TS-B-BEFORE-E; }
@test "C: PF-E-UNMATCHED is silent" { bands PF-E-UNMATCHED; }
@test "C: PF-E-NAME-MISMATCH is silent" { bands PF-E-NAME-MISMATCH; }
@test "C: PF-B-UNTERMINATED is silent" { bands PF-B-UNTERMINATED; }
@test "C: PF-TIE-ORDER is info" { bands PF-TIE-ORDER; }
@test "C: PF-ASYNC-KEY-MISMATCH is silent" { bands PF-ASYNC-KEY-MISMATCH; }
@test "C: PF-ASYNC-ID-TYPE is silent" { bands PF-ASYNC-ID-TYPE; }
@test "D: PF-PID-COERCE: the tid becomes 0, then the pid: it crosses the main thread" { bands PF-PID-COERCE; }
@test "D: PF-PID-STRING: a string tid is another thread: its flow finds no slice" { bands PF-PID-STRING; }
@test "D: PF-PHASE-IGNORED is silent" { bands PF-PHASE-IGNORED; }
@test "E: SC-DUP-KEY, SC-CONTROL-CHAR, SC-INSTANT-SCOPE, SC-META-UNKNOWN, SC-ARGS-NOT-OBJECT, SC-TOPLEVEL-IGNORED: warnings only" {
	local r
	for r in SC-DUP-KEY SC-CONTROL-CHAR SC-INSTANT-SCOPE SC-META-UNKNOWN \
	    SC-ARGS-NOT-OBJECT SC-TOPLEVEL-IGNORED; do
		run -0 ltcheck -t "$D/$r.json"
		[ -z "$output" ]
		run -0 ltcheck "$D/$r.json"
		[[ "$output" == *"warnings (Perfetto accepts these):"* ]]
		[[ "$output" == *"  ok     -"*"$r"* ]]
	done
}
@test "E: SC-ID2-AMBIGUOUS and SC-BP-VALUE" {
	bands SC-ID2-AMBIGUOUS
	bands SC-BP-VALUE
}

@test "sorter: ties appended before the first X keep file order" {
	bands sort-quirk1
}

@test "sorter: an out-of-order event re-sorts the tie: E first" {
	bands sort-quirk1-sorted
}

@test "sorter: with an X in the file, E sorts before B at equal ts" {
	bands sort-e-first
}

@test "crossing X slices: spilled on v57+, dropped on v51-56" {
	run -1 ltcheck -t "$D/kineto-crossing.json"
	[ "$output" = "slice_spill_overlapping_complete_event	6	IE" ]
	run -1 ltcheck -t -V 56 "$D/kineto-crossing.json"
	[ "$output" = "slice_drop_overlapping_complete_event	6	IE" ]
}

@test "the report names rule, counter, card, count and the lines" {
	run -1 ltcheck "$D/PF-BE-CROSS-NAMED.json"
	[ "${lines[0]}" = "$D/PF-BE-CROSS-NAMED.json: JSON array form, 189 bytes, 4 events" ]
	[ "${lines[1]}" = "phases: B 2, E 2, X 0, I 0, M 0, C 0, flows 0, other 0" ]
	[ "${lines[2]}" = "Perfetto v57+: Trace Errors 0, Import Errors 0, Data Losses 1 event in 1 rule, silent losses 0" ]
	[[ "${lines[3]}" =~ ^\ \ DL\ +misplaced_end_event\ +1\ \ PF-BE-CROSS-NAMED$ ]]
	[ "${lines[5]}" = "      line 3" ]
}

@test "the card totals count events, as Perfetto's cards do: the findings' counts added up" {
	local f st c tot=0
	run -1 ltcheck "$D/kineto-crossing.json"
	[[ $output == *"Import Errors 6 events in 1 rule, Data Losses 0, silent losses 0"* ]]
	# every fixture: a card's total in the report is the sum of its -t
	# lines.  A file each: the fixture, the cards' line, the -t lines;
	# one awk adds them up.
	for f in "$D"/*.json; do
		c=$BATS_TEST_TMPDIR/c.$((tot + 1))
		echo "$f" >"$c"
		st=0
		ltcheck "$f" >"$BATS_TEST_TMPDIR/r" || st=$?
		[ "$st" -le 1 ]
		grep '^Perfetto .*: Trace Errors' "$BATS_TEST_TMPDIR/r" >>"$c" ||
		    continue
		ltcheck -t "$f" >>"$c" || st=$?
		[ "$st" -le 1 ]
		tot=$((tot + 1))
	done
	rm -f "$BATS_TEST_TMPDIR/c.$((tot + 1))"
	[ "$tot" -gt 40 ]
	awk -F '\t' '
		function check(   i, n) {
			for (i = 1; i <= 4; i++) {
				if (!match(line, "[:,] " name[i] " [0-9]+")) {
					print f ": no " name[i]
					bad = 1
					continue
				}
				n = substr(line, RSTART, RLENGTH)
				sub(/.* /, "", n)
				if (n != sum[code[i]] + 0) {
					print f ": " name[i] " " n ", -t adds up to " sum[code[i]] + 0
					bad = 1
				}
			}
		}
		BEGIN {
			split("TE IE DL silent", code, " ")
			split("Trace Errors,Import Errors,Data Losses,silent losses", name, ",")
		}
		FNR == 1 && NR > 1 { check() }
		FNR == 1 { f = $0; split("", sum); next }
		FNR == 2 { line = $0; next }
		{ sum[$3] += $2 }
		END { check(); exit bad }' "$BATS_TEST_TMPDIR"/c.*
}

@test "a syntax error is reported with its line and byte offset" {
	run -1 ltcheck "$D/PF-JSON-SYNTAX.json"
	[ "${lines[2]}" = "Perfetto v57+: the load fails" ]
	[[ "$output" == *"line 3, byte 83: invalid number"* ]]
}

@test "-q: nothing on stdout; one line on stderr when bad" {
	run -1 --separate-stderr ltcheck -q "$D/PF-BE-CROSS-NAMED.json"
	[ -z "$output" ]
	[ "$stderr" = "ltcheck: $D/PF-BE-CROSS-NAMED.json: Perfetto v57+: PF-BE-CROSS-NAMED misplaced_end_event 1" ]
	run -0 --separate-stderr ltcheck -q "$D/PF-B-UNTERMINATED.json"
	[ -z "$output" ]
	[ -z "$stderr" ]
	run -1 --separate-stderr ltcheck -q "$D/PF-JSON-SYNTAX.json"
	[ "$stderr" = "ltcheck: $D/PF-JSON-SYNTAX.json: Perfetto v57+: PF-JSON-SYNTAX fatal 1 (line 3, byte 83: invalid number)" ]
}

@test "standard input is read when no file is given" {
	run -1 sh -c "ltcheck -t < '$D/PF-X-OVERLAP.json'"
	[ "$output" = "slice_spill_overlapping_complete_event	1	IE" ]
}

@test "our chain: ltparse | ltjson gives a trace with nothing predicted" {
	ltparse "$D/chain.log" | ltjson > "$BATS_TEST_TMPDIR/t.json"
	run -0 ltcheck -t "$BATS_TEST_TMPDIR/t.json"
	[ -z "$output" ]
	run -0 ltcheck "$BATS_TEST_TMPDIR/t.json"
	[[ "$output" == *"ltjson counts: match"* ]]
	[[ "$output" == *"nothing to report"* ]]
	run -0 ltcheck -t -V 56 "$BATS_TEST_TMPDIR/t.json"
	[ -z "$output" ]
}

@test "lt1 input is checked as ltjson would write it" {
	run -0 sh -c "ltparse '$D/chain.log' | ltcheck -t"
	[ -z "$output" ]
	run -0 sh -c "ltparse '$D/chain.log' | ltcheck"
	[[ "${lines[0]}" == "<stdin>: lt1 stream (checked as ltjson writes it), "* ]]
	printf '#lt1\n0\tX\t1\t1\t10\t\ta\t{}\t{}\n5\tX\t1\t1\t10\t\tb\t{}\t{}\n' > "$BATS_TEST_TMPDIR/x.lt1"
	run -1 ltcheck -t "$BATS_TEST_TMPDIR/x.lt1"
	[ "$output" = "slice_spill_overlapping_complete_event	1	IE" ]
	# ltjson leaves displayTimeUnit out, so Perfetto will not see it
	printf '#lt1\n#top\tdisplayTimeUnit\t"ns"\n0\tX\t1\t1\t10\t\ta\t{}\t{}\n' > "$BATS_TEST_TMPDIR/t.lt1"
	run -0 ltcheck -t "$BATS_TEST_TMPDIR/t.lt1"
	[ -z "$output" ]
	ltjson "$BATS_TEST_TMPDIR/t.lt1" > "$BATS_TEST_TMPDIR/t.json"
	nomatch -F displayTimeUnit "$BATS_TEST_TMPDIR/t.json"
}

@test "lt1 input: epoch timestamps get ltjson's offset, so no precision loss" {
	printf '#lt1\n1795940303867556.25\tX\t1\t1\t1.75\tc\ta\t{}\t{}\n1795940303867558\tX\t1\t1\t1\tc\tb\t{}\t{}\n' > "$BATS_TEST_TMPDIR/e.lt1"
	run -0 ltcheck -t "$BATS_TEST_TMPDIR/e.lt1"
	[ -z "$output" ]
	ltjson "$BATS_TEST_TMPDIR/e.lt1" > "$BATS_TEST_TMPDIR/e.json"
	run -0 ltcheck -t "$BATS_TEST_TMPDIR/e.json"
	[ -z "$output" ]
	# written with absolute fractional times (ltjson -O 0 rounds them to
	# whole us), touching slices overlap by Perfetto's rounding
	printf '{"traceEvents":[\n%s,\n%s\n]}\n' \
	    '{"ts":1795940303867556.25,"ph":"X","pid":1,"tid":1,"dur":1.75,"cat":"c","name":"a"}' \
	    '{"ts":1795940303867558,"ph":"X","pid":1,"tid":1,"dur":1,"cat":"c","name":"b"}' \
	    > "$BATS_TEST_TMPDIR/e0.json"
	run -1 ltcheck -t "$BATS_TEST_TMPDIR/e0.json"
	[ "${lines[0]}" = "slice_spill_overlapping_complete_event	1	IE" ]
	[ "${lines[1]}" = "PF-TS-PRECISION	1	silent" ]
	run -1 ltcheck "$BATS_TEST_TMPDIR/e0.json"
	[[ "$output" == *"1  PF-TS-PRECISION"* ]]
}

@test "a bad lt1 record is bad data, exit 1" {
	printf '#lt1\nzero\tX\t1\t1\t10\t\ta\t{}\t{}\n' > "$BATS_TEST_TMPDIR/bad.lt1"
	run -1 --separate-stderr ltcheck "$BATS_TEST_TMPDIR/bad.lt1"
	[[ "$stderr" == "ltcheck: $BATS_TEST_TMPDIR/bad.lt1:2: column ts: not microseconds"* ]]
	[ -z "$output" ]
}

@test "counts that differ from ltjson's metadata are an error" {
	ltparse "$D/chain.log" | ltjson | sed 's/"B":21/"B":22/' > "$BATS_TEST_TMPDIR/m.json"
	run -1 ltcheck -t "$BATS_TEST_TMPDIR/m.json"
	[ "$output" = "LT-COUNT-MISMATCH	1	DL" ]
	run -1 ltcheck "$BATS_TEST_TMPDIR/m.json"
	[[ "$output" == *"ltjson counts: MISMATCH"* ]]
	[[ "$output" == *"B recorded 22, found 21"* ]]
}

@test "-s: per category, per process and trace duration" {
	ltparse "$D/chain.log" | ltjson > "$BATS_TEST_TMPDIR/t.json"
	run -0 ltcheck -q -s "$BATS_TEST_TMPDIR/t.json"
	[ "${lines[0]}" = "summary	events=59	B=21	E=21	X=0	I=1	M=16	C=0	flows=0	processes=3	duration_us=325" ]
	[ "${lines[5]}" = "category	read	count=8	slices=4	total_us=29	mean_us=7.25	p50_us=7.25	p95_us=7.25	max_us=7.25" ]
	[ "${lines[8]}" = "process	13966	events=14" ]
}

@test "-s: percentiles are nearest-rank" {
	printf '[{"ph":"X","cat":"c","ts":0,"dur":%s,"pid":1,"tid":%s}' 1 1 > "$BATS_TEST_TMPDIR/p.json"
	for i in 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		printf ',{"ph":"X","cat":"c","ts":0,"dur":%s,"pid":1,"tid":%s}' "$i" "$i" >> "$BATS_TEST_TMPDIR/p.json"
	done
	echo ']' >> "$BATS_TEST_TMPDIR/p.json"
	run -0 ltcheck -q -s "$BATS_TEST_TMPDIR/p.json"
	[ "${lines[1]}" = "category	c	count=20	slices=20	total_us=210	mean_us=10.5	p50_us=10	p95_us=19	max_us=20" ]
}

@test "every prefix of a trace gives exit 0 or 1, never a crash" {
	prefixes 1 "$D/PF-FLOW-BEFORE-SLICE.json" ltcheck -t
	ltparse "$D/chain.log" | ltjson > "$BATS_TEST_TMPDIR/t.json"
	prefixes 97 "$BATS_TEST_TMPDIR/t.json" ltcheck -t
}

@test "a truncated array keeps what was complete; a truncated object fails" {
	head -c 70 "$D/PF-X-OVERLAP.json" > "$BATS_TEST_TMPDIR/a.json"
	run -0 ltcheck -t "$BATS_TEST_TMPDIR/a.json"
	[ "$output" = "PF-ARRAY-NO-CLOSE	1	silent" ]
	printf '{"traceEvents":[{"ph":"X","ts":0,"dur":1,"pid":1,"tid":1}' > "$BATS_TEST_TMPDIR/o.json"
	run -1 ltcheck -t "$BATS_TEST_TMPDIR/o.json"
	[ "$output" = "fatal	1	FATAL" ]
}

@test "random bytes and mutated traces never crash it" {
	local i m=() f=$BATS_TEST_TMPDIR/m
	garbage 40 ltcheck
	for i in $(seq 1 40); do
		# flip bytes of a real trace
		awk -v seed="$i" 'BEGIN { srand(seed) } {
			s = $0
			for (k = 0; k < 3; k++) {
				p = int(rand() * length(s)) + 1
				c = substr("{}[]\",:0-9eE.tfn ", int(rand() * 18) + 1, 1)
				s = substr(s, 1, p - 1) c substr(s, p + 1)
			}
			print s }' "$D/PF-FLOW-BEFORE-SLICE.json" > "$f.$i"
		m+=("$f.$i")
	done
	mutated() { echo "PF-FLOW-BEFORE-SLICE.json mutated with seed ${1##*.}"; }
	survive_each mutated ltcheck -t -- "${m[@]}"
}

@test "X longer than 4.29 s: ordered and checked with their full dur" {
	bands long-dur
}

@test "v2 flows: an in leaves the flow open, so a later out is a duplicate; in and out is a step" {
	bands flow-v2
}

@test "flows without a slice at one ts are counted together, each one" {
	bands flow-no-enclosing-many
}

# A second oracle, catapult trace-viewer, where it is installed: set
# TRACEVIEWER to the traceviewer@1.0.11 package directory (npm install
# traceviewer@1.0.11).  It is not Perfetto: it shows where a trace that
# Perfetto accepts (or repairs) is still a problem in chrome://tracing.
@test "trace-viewer, where installed, agrees where the formats agree" {
	need node
	[ -n "${TRACEVIEWER:-}" ] ||
	    skip "TRACEVIEWER is not set: npm install traceviewer@1.0.11, then TRACEVIEWER=\$PWD/node_modules/traceviewer (.ci/run does)"
	tv() { node "$D/tv.js" "$TRACEVIEWER" "$D/$1.json"; }
	run -0 tv PF-E-UNMATCHED
	[ "${lines[0]}" = "warning	duration_parse_error	E phase event without a matching B phase event." ]
	run -0 tv PF-BE-CROSS-NAMED
	[[ "${lines[0]}" == "warning	title_match_error	"* ]]
	# Perfetto accepts a trailing comma, JSON.parse does not
	run -1 tv PF-TRAILING-COMMA
	[[ "$output" == "error	"* ]]
	# Perfetto spills or drops a crossing X; trace-viewer keeps both
	run -0 tv PF-X-OVERLAP
	[ "$output" = "slices	2" ]
	# Perfetto sorts E first at equal ts (the file has an X);
	# trace-viewer keeps file order and sees crossing titles
	run -0 tv sort-e-first
	[[ "${lines[0]}" == "warning	title_match_error	"* ]]
	[ "${lines[2]}" = "slices	3" ]
}

@test "a dur too large for 64 bits saturates: no overflow, a silent finding" {
	printf '[{"ph":"X","ts":310,"dur":1.77E79,"pid":1,"tid":7,"cat":"k"},\n{"ph":"X","ts":320,"dur":30,"pid":1,"tid":7,"cat":"k"}]\n' > "$BATS_TEST_TMPDIR/h.json"
	run -0 ltcheck -t "$BATS_TEST_TMPDIR/h.json"
	[ "$output" = "PF-TS-OVERFLOW	1	silent" ]
	run -0 ltcheck -q -s "$BATS_TEST_TMPDIR/h.json"
	[[ "${lines[1]}" == "category	k	count=2	slices=2	total_us=9223372036854775.807	"* ]]
}

@test "genlog logs through ltparse | ltjson: counts match; crossing spans are predicted" {
	built genlog
	genlog -f new -n 5000 > "$BATS_TEST_TMPDIR/g.log"
	ltparse "$BATS_TEST_TMPDIR/g.log" | ltjson > "$BATS_TEST_TMPDIR/g.json"
	# LitData's read spans outlive the sample spans they start in:
	# without ltlanefix, Perfetto truncates them
	run -1 ltcheck "$BATS_TEST_TMPDIR/g.json"
	[[ "$output" == *"ltjson counts: match"* ]]
	[[ "$output" == *"  DL     misplaced_end_event"*"PF-BE-CROSS-NAMED"* ]]
	ltparse "$DATA/sample.log" | ltjson > "$BATS_TEST_TMPDIR/s.json"
	run ltcheck -t "$BATS_TEST_TMPDIR/s.json"
	if grep -q -E '	(TE|IE|DL|FATAL)$' <<< "$output"; then
		[ "$status" -eq 1 ]
	else
		[ "$status" -eq 0 ]
	fi
}

@test "the full chain on bundled and generated logs: nothing Perfetto would count" {
	local f
	built ltparse ltpair ltlanefix ltjson genlog
	cp "$DATA/sample.log" "$BATS_TEST_TMPDIR/0.log"
	genlog -f new -n 20000 > "$BATS_TEST_TMPDIR/1.log"
	genlog -f old -n 20000 -c > "$BATS_TEST_TMPDIR/2.log"
	genlog -f v1 -n 20000 > "$BATS_TEST_TMPDIR/3.log"
	genlog -f mixed -n 20000 -b -a async > "$BATS_TEST_TMPDIR/4.log"
	for f in 0 1 2 3 4; do
		ltparse "$BATS_TEST_TMPDIR/$f.log" | ltpair | ltlanefix |
		    ltjson > "$BATS_TEST_TMPDIR/$f.json"
		run ltcheck -t "$BATS_TEST_TMPDIR/$f.json"
		echo "log $f: $output"
		[ "$status" -eq 0 ]
		run -0 ltcheck -t -V 56 "$BATS_TEST_TMPDIR/$f.json"
	done
}

@test "the model's files call one way: no circle, the findings table a leaf" {
	need nm
	need tsort
	local o objs=("$TOP/tools/ltcheck/ltcheck.o")
	for o in read report pfjson pfsim pfstack pfrec pfsum pffind pfnum \
	    pftp; do
		[ -f "$TOP/tools/ltcheck/$o.o" ] || skip "ltcheck is not built (make builds it)"
		objs+=("$TOP/tools/ltcheck/$o.o")
	done
	run -0 --separate-stderr sh "$D/calls.sh" "${objs[@]}"
	echo "$output"
	[ "${#lines[@]}" -eq 11 ]
	# main calls the readers and the writers, which call the model
	[ "${lines[0]}" = \
	    "ltcheck.o: pffind.o pfsim.o pftp.o read.o report.o" ]
	grep -qx "read.o: pffind.o pfjson.o pfsim.o pftp.o" <<< "$output"
	grep -qx "report.o: pffind.o pfsim.o pfsum.o" <<< "$output"
	grep -qx "pfstack.o: pffind.o pfrec.o pfsum.o" <<< "$output"
	grep -qx "pfsum.o: pfnum.o" <<< "$output"
	grep -qx "pffind.o:" <<< "$output"
	grep -qx "pfrec.o:" <<< "$output"
	grep -qx "pfnum.o:" <<< "$output"
	grep -qx "pftp.o:" <<< "$output"
}

# -------- the differential suite: ltcheck against the real importer --------

@test "real importer: every fixture, ltcheck's counters are Perfetto's" {
	local f fs=()
	tp_need
	for f in "$D"/*.json; do
		fs+=("$f")
	done
	[ "${#fs[@]}" -ge 60 ]
	agree "${fs[@]}"
}

@test "real importer: a number Perfetto cannot load, flow ids beyond 64 bits: predicted; the chain's trace loads" {
	local r="$DATA/repro"
	tp_need
	agree "$r/perfetto-1e400.json" "$r/ltcheck-flow-ids.json"
	[ "$(counted "$r/perfetto-1e400.json")" = $'fatal\t1' ]
	litracer -q -o "$BATS_TEST_TMPDIR/t.json" "$r/perfetto-1e400.json" 2>/dev/null
	agree "$BATS_TEST_TMPDIR/t.json"
	tp_clean "$BATS_TEST_TMPDIR/t.json"
}

@test "real importer: every reproducer, as it is and through the chain (JSON): ltcheck's counters are Perfetto's" {
	local f fs=() i=0
	tp_need
	for f in "$DATA"/repro/*.json; do
		i=$((i + 1))
		litracer -q -o "$BATS_TEST_TMPDIR/$i.json" "$f" 2>/dev/null
		fs+=("$f" "$BATS_TEST_TMPDIR/$i.json")
	done
	[ "${#fs[@]}" -ge 20 ]
	agree "${fs[@]}"
}

@test "real importer: the chain's trace of every genlog format and mode, with every option" {
	local fmt m opt i=0 fs=() g="$BATS_TEST_TMPDIR/g"
	tp_need
	[ -x "$TOP/tests/gen/genlog" ] || skip "genlog is not built (make check builds it)"
	local opts=(--no-complete --no-lanefix "--cat read,download"
	    "--rank 1 --from 1s --to 20s" "--worker 0 --pid 1-9999999")
	# every format in every mode through the default chain, and every
	# format through every option (in turn with each mode)
	for fmt in new old v1 mixed; do
		for m in "" "-c -a async" "-b -p -a nospan" "-l chunk -w 0" \
		    "-N 2 -r 3 -a sync -q"; do
			i=$((i + 1))
			# shellcheck disable=SC2086
			genlog -f "$fmt" -n 3000 -s "$i" $m >"$g$i.log"
			litracer -q -o "$g$i.json" "$g$i.log" 2>/dev/null
			fs+=("$g$i.json")
			opt=${opts[$(((i - 1) % 5))]}
			# shellcheck disable=SC2086
			litracer -q $opt -o "$g$i-opt.json" "$g$i.log" 2>/dev/null
			fs+=("$g$i-opt.json")
		done
	done
	[ "${#fs[@]}" -eq 40 ]
	agree "${fs[@]}"
}

@test "real importer: Kineto-like traces with crossings, odd and string tids, flows, long spans; raw and through the chain" {
	local a i=0 fs=() k="$BATS_TEST_TMPDIR/k"
	tp_need
	[ -x "$TOP/tests/gen/gentrace" ] || skip "gentrace is not built (make check builds it)"
	for a in "-x 40" "-i -x 30" "-d 120 -x 20" "-i -d 60" "-f dense -n 3000" \
	    "-f stair -n 60"; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		gentrace -n 8000 -s "$i" $a >"$k$i.json"
		litracer -q -o "$k$i-chain.json" "$k$i.json" 2>/dev/null
		litracer -q --no-lanefix -o "$k$i-nolf.json" "$k$i.json" 2>/dev/null
		litracer -q --no-complete -o "$k$i-be.json" "$k$i.json" 2>/dev/null
		fs+=("$k$i.json" "$k$i-chain.json" "$k$i-nolf.json" "$k$i-be.json")
	done
	agree "${fs[@]}"
	# the cases are there: a negative tid on the main thread's track,
	# flows of string-tid slices, precision lost past the offset window;
	# the chain gives every id one of its own (ltparse(1))
	grep -q slice_spill_overlapping_complete_event <(predicted "$k""2.json")
	grep -q flow_no_enclosing_slice <(predicted "$k""2.json")
	run ! grep -q flow_no_enclosing_slice <(predicted "$k""2-chain.json")
	grep -q PF-TS-PRECISION <(ltcheck -t "$k""3.json")
}

@test "real importer: an lt1 stream is checked as the JSON ltjson writes for it" {
	local f
	tp_need
	[ -x "$TOP/tests/gen/genlog" ] || skip "genlog is not built (make check builds it)"
	genlog -f mixed -n 4000 -b >"$BATS_TEST_TMPDIR/m.log"
	ltparse "$BATS_TEST_TMPDIR/m.log" | ltpair >"$BATS_TEST_TMPDIR/m.lt1"
	ltparse "$BATS_TEST_TMPDIR/m.log" >"$BATS_TEST_TMPDIR/be.lt1"
	for f in m be; do
		ltjson "$BATS_TEST_TMPDIR/$f.lt1" >"$BATS_TEST_TMPDIR/$f.json"
		diff -u <(counted "$BATS_TEST_TMPDIR/$f.json") \
		    <(predicted "$BATS_TEST_TMPDIR/$f.lt1")
	done
	# raw LitData B/E cross: the real importer truncates them
	grep -q misplaced_end_event <(predicted "$BATS_TEST_TMPDIR/be.lt1")
}

@test "real importer: the rules of v51-56 and v50 need a trace processor of those versions" {
	local v f
	tp_need
	v=$("$TP" --version 2>/dev/null | sed -n 's/^Perfetto v\([0-9]*\).*/\1/p')
	if [ -z "$v" ] || [ "$v" -eq 0 ] || [ "$v" -ge 57 ]; then
		skip "$TP is Perfetto v${v:-?} (unknown or 57+): the -V 56 and -V 50 predictions (dropped overlaps, {} and trailing commas) need a trace processor of v51 to v56: download trace_processor v56.0 from https://github.com/google/perfetto/releases and run this test with TRACE_PROCESSOR set to it"
	fi
	for f in "$D"/*.json; do
		diff -u <(counted "$f") <(predicted "$f" -V "$v")
	done
}

# -------- -P: the real importer beside the prediction --------

# fake_tp DIR NAME EXIT [ROW...]: a stand-in trace processor DIR/NAME that
# notes its arguments in DIR/args, prints the CSV header and ROWs, and
# exits with EXIT (after a load error message when not 0).
fake_tp() {
	local dir=$1 name=$2 st=$3 row
	shift 3
	mkdir -p "$dir"
	{
		echo '#!/bin/sh'
		echo "printf '%s\\n' \"\$@\" > '$dir/args'"
		if [ "$st" -ne 0 ]; then
			echo "echo 'failed to read trace file (path: x): Trace parse failure: broken' >&2"
			echo "exit $st"
		fi
		echo "echo '\"name\",\"severity\",\"source\",\"sum(value)\"'"
		for row; do
			echo "echo '$row'"
		done
	} > "$dir/$name"
	chmod +x "$dir/$name"
}

@test "-P: the real importer's counters beside the prediction, equal to what it reports" {
	local f="$D/PF-PID-COERCE.json"
	tp_need
	run -1 env TRACE_PROCESSOR="$TP" ltcheck -P "$f"
	[[ "$output" == *"trace processor $TP: its counters are those predicted"* ]]
	[[ "$output" =~ "  IE     slice_spill_overlapping_complete_event"\ +1\ +1$'\n' ]] ||
	    [[ "$output" =~ "  IE     slice_spill_overlapping_complete_event"\ +1\ +1$ ]]
	# -t: a column with what it counted, as tp_query reads it
	run -1 env TRACE_PROCESSOR="$TP" ltcheck -P -t "$f"
	[ "${lines[0]}" = "slice_spill_overlapping_complete_event	1	IE	$(tp_query "$f" "select value from stats where name = 'slice_spill_overlapping_complete_event'")" ]
	[ "${lines[1]}" = "PF-PID-COERCE	4	silent	-" ]
	# a clean trace stays exit 0; a load failure predicted is agreement
	run -0 env TRACE_PROCESSOR="$TP" ltcheck -q -P "$D/PF-B-UNTERMINATED.json"
	[ -z "$output" ]
	run -1 --separate-stderr env TRACE_PROCESSOR="$TP" ltcheck -P -t "$D/PF-TRUNCATED-OBJECT.json"
	[ "$output" = "fatal	1	FATAL	1" ]
	run -1 env TRACE_PROCESSOR="$TP" ltcheck -P "$D/PF-JSON-SYNTAX.json"
	[[ "${lines[-1]}" == "trace processor $TP: the load fails, as predicted: failed to read trace file"*"leading zero"* ]]
}

@test "-P: standard input and lt1 streams are imported from a temporary file, removed after" {
	local t="$BATS_TEST_TMPDIR/tmp"
	tp_need
	mkdir "$t"
	run -1 sh -c "TMPDIR='$t' TRACE_PROCESSOR='$TP' ltcheck -P -t < '$D/kineto-crossing.json'"
	[ "$output" = "slice_spill_overlapping_complete_event	6	IE	6" ]
	gzip -c "$D/kineto-crossing.json" > "$BATS_TEST_TMPDIR/k.json.gz"
	run -1 sh -c "TMPDIR='$t' TRACE_PROCESSOR='$TP' ltcheck -P -t < '$BATS_TEST_TMPDIR/k.json.gz'"
	[ "$output" = "slice_spill_overlapping_complete_event	6	IE	6" ]
	printf '#lt1\n#top\tdisplayTimeUnit\t"ns"\n0\tX\t1\t1\t10\t\ta\t{}\t{}\n5\tX\t1\t1\t10\t\tb\t{}\t{}\n' > "$BATS_TEST_TMPDIR/x.lt1"
	run -1 sh -c "TMPDIR='$t' TRACE_PROCESSOR='$TP' ltcheck -P -t < '$BATS_TEST_TMPDIR/x.lt1'"
	[ "$output" = "slice_spill_overlapping_complete_event	1	IE	1" ]
	run -0 find "$t" -type f
	[ -z "$output" ]
}

@test "-P: a disagreement is reported and exits 1" {
	local f="$D/PF-PID-COERCE.json" b="$BATS_TEST_TMPDIR/bin"
	fake_tp "$b" tp 0 '"slice_spill_overlapping_complete_event","error","analysis",3' \
	    '"misplaced_end_event","data_loss","analysis",2'
	run -1 env TRACE_PROCESSOR="$b/tp" ltcheck -P "$f"
	[[ "$output" == *"trace processor $b/tp: its counters DIFFER from the prediction"* ]]
	[[ "$output" =~ "IE     slice_spill_overlapping_complete_event"\ +1\ +3\ \ differs ]]
	[[ "$output" =~ "DL     misplaced_end_event"\ +0\ +2\ \ differs ]]
	# it was asked for the stats of the file, given as a path
	[ "$(sed -n 1p "$b/args")" = "-Q" ]
	[[ "$(sed -n 2p "$b/args")" == "select name, severity, source, sum(value) from stats "* ]]
	[ "$(sed -n 3p "$b/args")" = "$f" ]
	# a relative path stays one, never taken for a flag or a URL
	run -1 sh -c "cd '$D' && TRACE_PROCESSOR='$b/tp' ltcheck -P -t PF-PID-COERCE.json"
	[ "$(sed -n 3p "$b/args")" = "./PF-PID-COERCE.json" ]
	run -1 env TRACE_PROCESSOR="$b/tp" ltcheck -P -t "$f"
	[ "$output" = "slice_spill_overlapping_complete_event	1	IE	3
PF-PID-COERCE	4	silent	-
misplaced_end_event	0	DL	2" ]
	run -1 --separate-stderr env TRACE_PROCESSOR="$b/tp" ltcheck -q -P "$f"
	[ "${stderr_lines[1]}" = "ltcheck: $f: trace processor: slice_spill_overlapping_complete_event predicted 1, counted 3; misplaced_end_event predicted 0, counted 2" ]
	# a clean prediction that the importer contradicts is exit 1 too
	run -1 --separate-stderr env TRACE_PROCESSOR="$b/tp" ltcheck -q -P "$D/PF-B-UNTERMINATED.json"
	[ "$stderr" = "ltcheck: $D/PF-B-UNTERMINATED.json: trace processor: slice_spill_overlapping_complete_event predicted 0, counted 3; misplaced_end_event predicted 0, counted 2" ]
	# a load that fails where none was predicted
	fake_tp "$b" bad 1
	run -1 env TRACE_PROCESSOR="$b/bad" ltcheck -P -t "$D/PF-B-UNTERMINATED.json"
	[ "${lines[0]}" = "fatal	0	FATAL	1" ]
	run -1 env TRACE_PROCESSOR="$b/bad" ltcheck -P "$D/PF-B-UNTERMINATED.json"
	[ "${lines[-1]}" = "trace processor $b/bad: the load fails, NOT as predicted: failed to read trace file (path: x): Trace parse failure: broken" ]
}

@test "-P: the importer is \$TRACE_PROCESSOR, else trace_processor_shell or trace_processor on PATH; none: as without -P" {
	local f="$D/PF-X-OVERLAP.json" b="$BATS_TEST_TMPDIR/bin" p
	p="$TOP/tools/bin:/usr/bin:/bin"
	fake_tp "$b" trace_processor 0 '"slice_spill_overlapping_complete_event","error","analysis",7'
	run -1 env -u TRACE_PROCESSOR PATH="$b:$p" ltcheck -P -t "$f"
	[ "$output" = "slice_spill_overlapping_complete_event	1	IE	7" ]
	fake_tp "$b" trace_processor_shell 0 '"slice_spill_overlapping_complete_event","error","analysis",1'
	run -1 env -u TRACE_PROCESSOR PATH="$b:$p" ltcheck -P -t "$f"
	[ "$output" = "slice_spill_overlapping_complete_event	1	IE	1" ]
	run -1 env TRACE_PROCESSOR=trace_processor PATH="$b:$p" ltcheck -P -t "$f"
	[ "$output" = "slice_spill_overlapping_complete_event	1	IE	7" ]
	# none: -t and -q as without -P, the report says so
	run -1 env -u TRACE_PROCESSOR PATH="$p" ltcheck -P -t "$f"
	[ "$output" = "$(ltcheck -t "$f")" ]
	run -0 env -u TRACE_PROCESSOR PATH="$p" ltcheck -P -q "$D/PF-B-UNTERMINATED.json"
	[ -z "$output" ]
	run -1 env -u TRACE_PROCESSOR PATH="$p" ltcheck -P "$f"
	[ "${lines[-1]}" = "trace processor: none found (set TRACE_PROCESSOR, or put trace_processor on PATH)" ]
	# one named that does not exist is an error
	run -2 --separate-stderr env TRACE_PROCESSOR="$b/nope" ltcheck -P "$f"
	[ "$stderr" = "ltcheck: TRACE_PROCESSOR=$b/nope: no such program" ]
	[ -z "$output" ]
}

# gone PID...: each process ends within 10 s (gone, or a zombie for a
# moment, until init reaps it).
gone() {
	local p n
	for p; do
		n=0
		while kill -0 "$p" 2>/dev/null && [ "$n" -lt 100 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		run ! kill -0 "$p"
	done
}

@test "-P: a trace processor with no answer within LT_TP_TIMEOUT seconds is stopped, and said" {
	local t="$BATS_TEST_TMPDIR/tmp" b="$BATS_TEST_TMPDIR/bin" tp
	mkdir "$t" "$b"
	# one that runs for ever, with a child of its own
	printf '#!/bin/sh\nsleep 600 &\necho $$ $! >"%s/tp.pid"\nwait\n' "$b" >"$b/tp"
	chmod +x "$b/tp"
	run -2 --separate-stderr env TMPDIR="$t" LT_TP_TIMEOUT=1 TRACE_PROCESSOR="$b/tp" ltcheck -P "$D/kineto-crossing.json"
	[ "$stderr" = "ltcheck: $b/tp: no answer after 1 s: stopped (LT_TP_TIMEOUT gives it longer)" ]
	tp=$(cat "$b/tp.pid")
	gone $tp
	run -0 find "$t" -type f
	[ -z "$output" ]
	run -2 --separate-stderr env LT_TP_TIMEOUT=0 TRACE_PROCESSOR="$b/tp" ltcheck -P "$D/kineto-crossing.json"
	[ "$stderr" = "ltcheck: LT_TP_TIMEOUT=0: too small (seconds, 1 to 604800)" ]
}

@test "-P: ltcheck ended by a signal mid-import ends the trace processor and removes its temporary file" {
	local t="$BATS_TEST_TMPDIR/tmp" b="$BATS_TEST_TMPDIR/bin" pid tp st
	mkdir "$t" "$b"
	# a trace processor that says it started, then runs for ever (as a
	# child of its shell: the whole group must go)
	printf '#!/bin/sh\nsleep 600 &\necho $$ $! >"%s/tp.pid.tmp"\nmv "%s/tp.pid.tmp" "%s/tp.pid"\nwait\n' "$b" "$b" "$b" >"$b/tp"
	chmod +x "$b/tp"
	TMPDIR=$t TRACE_PROCESSOR=$b/tp ltcheck -P <"$D/kineto-crossing.json" >/dev/null 2>&1 3>&- &
	pid=$!
	while [ ! -s "$b/tp.pid" ] && kill -0 "$pid"; do sleep 0.1; done
	tp=$(cat "$b/tp.pid")
	[ -n "$(find "$t" -type f)" ]
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 143 ]
	run -0 find "$t" -type f
	[ -z "$output" ]
	gone $tp
}
