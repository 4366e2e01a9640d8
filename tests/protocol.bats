#!/usr/bin/env bats
# protocol: the lt1 stream rules every tool shares (litracer-stream(5)).

bats_require_minimum_version 1.5.0

setup() {
	load helper
	T=$BATS_TEST_TMPDIR
	ENV='dist_world_size: 1;dist_global_rank: 0;dist_num_nodes: 1;worker_world_size: 1;worker_rank: 0;'
}

# The tools that read lt1 and write it or JSON, and of them the filters
# (lt1 in, lt1 out).  Every one is built: a missing one fails the test.
READERS="ltpair ltfilter ltlanefix ltjson ltstat ltproto"
FILTERS="ltpair ltfilter ltlanefix"

@test "a stage after one that failed stays quiet on its empty standard input" {
	printf '{"traceEvents":[{"ph":' >"$T/bad.json"
	# shellcheck disable=SC2086
	for t in $READERS; do
		run --separate-stderr sh -c 'ltparse "$1" | "$2" >/dev/null' sh "$T/bad.json" "$t"
		[ "$status" -eq 1 ]
		# ltparse's message alone
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "ltparse: "* ]]
	done
}

@test "every lt1 reader refuses a missing or unknown header with exit 1" {
	printf 'ts:1;PID:1; TID:2; name: x;ph: B;\n' >"$T/log"
	printf '#lt2\n' >"$T/v2"
	: >"$T/empty"
	# every C program but ltparse (logs and JSON in), ltcheck (its own
	# report on a trace) and ltchain (which runs the others) reads lt1,
	# and is in READERS
	[ "$(cd "$TOP/tools" && ls ./*/*.c | sed -n 's|^\./\([^/]*\)/\1\.c$|\1|p' |
	    grep -vx 'ltparse\|ltcheck\|ltchain' | sort | tr '\n' ' ')" = \
	    "$(printf '%s\n' $READERS | sort | tr '\n' ' ')" ]
	# shellcheck disable=SC2086
	built $READERS
	for t in $READERS; do
		run -1 --separate-stderr "$t" "$T/log"
		[ "$stderr" = "$t: $T/log:1: not an lt1 stream: missing #lt1 header (a log or a trace is read by ltparse, or converted by litracer)" ]
		run -1 --separate-stderr "$t" "$T/v2"
		[ "$stderr" = "$t: $T/v2:1: unsupported stream version \"#lt2\"" ]
		run -1 --separate-stderr "$t" "$T/empty"
		[ "$stderr" = "$t: $T/empty:1: empty input, not an lt1 stream" ]
	done
}

@test "filters pass unknown directives and upstream #stat through, in order" {
	printf '#lt1\n#note\tfirst\n1\ti\t1\t1\t-\tc\tn\t{}\t{}\n#stat\tup\tn=1\n#note\tlast\n' >"$T/s"
	# shellcheck disable=SC2086
	built $FILTERS
	for t in $FILTERS; do
		run -0 "$t" "$T/s"
		d=$(grep '^#' <<<"$output" | grep -v "^#stat	$t	")
		[ "$d" = $'#lt1\n#note\tfirst\n#stat\tup\tn=1\n#note\tlast' ] ||
		    { echo "$t: $d"; false; }
		[ "$(grep -c "^#stat	$t	" <<<"$output")" -eq 1 ]
	done
}

@test "concatenated streams are one stream" {
	printf '#lt1\n1\ti\t1\t1\t-\tc\ta\t{}\t{}\n' >"$T/a"
	printf '#lt1\n2\ti\t1\t1\t-\tc\tb\t{}\t{}\n' >"$T/b"
	run -0 sh -c "cat '$T/a' '$T/b' | ltjson"
	[ "$(grep -c '"ph":"i"' <<<"$output")" -eq 2 ]
}

@test "ltparse writes nine columns per record and nothing raw that JSON escapes" {
	printf 'ts:1795940303867556.250;PID:7; TID:139640468265856; name: a\x01b;ph: B;cat: c;%s\n' "$ENV" >"$T/log"
	printf 'ts:1795940303867557.000;PID:7; TID:139640468265856; name: tab\there;ph: E;cat: c;%s\n' "$ENV" >>"$T/log"
	ltparse "$T/log" >"$T/s"
	run -0 awk -F '\t' '!/^#/ && NF != 9 { bad++ } END { print bad + 0 }' "$T/s"
	[ "$output" = 0 ]
	run -1 grep -c $'[\x01-\x08\x0b-\x1f]' "$T/s"
	[ "$output" = 0 ]
	grep -q $'\ta\\\\u0001b\t' "$T/s"
	grep -q $'\ttab\\\\there\t' "$T/s"
}

@test "escaping round trip: log values come out of the JSON unchanged" {
	need node
	printf 'ts:1795940303867556.250;PID:7; TID:139640468265856; name: read;ph: B;cat: read;q: say "hi";bs: C:\\path\\x;arrow: 2 → 4;ctl: a\x02b;ok: plain;%s\n' "$ENV" >"$T/log"
	ltparse "$T/log" | ltjson >"$T/t.json"
	run -0 node -e '
		const t = JSON.parse(require("fs").readFileSync(process.argv[1]));
		const a = t.traceEvents[0].args;
		console.log(JSON.stringify([a.q, a.bs, a.arrow, a.ctl, a.ok]));' "$T/t.json"
	[ "$output" = '["say \"hi\"","C:\\path\\x","2 → 4","a\u0002b","plain"]' ]
}

@test "invalid UTF-8 becomes U+FFFD, counted, and the JSON stays valid" {
	need node
	printf 'ts:1795940303867556.250;PID:7; TID:139640468265856; name: read;ph: B;cat: read;v: a\xffb\xc3(c;%s\n' "$ENV" >"$T/log"
	ltparse "$T/log" >"$T/s"
	[ "$(stat_of ltparse replaced "$T/s")" = 2 ]
	ltjson "$T/s" >"$T/t.json"
	run -0 node -e '
		const t = JSON.parse(require("fs").readFileSync(process.argv[1]));
		console.log(t.traceEvents[0].args.v);' "$T/t.json"
	[ "$output" = $'a\xef\xbf\xbdb\xef\xbf\xbd(c' ]
}

@test "times: shortest decimal microseconds, exact from seconds and microseconds" {
	printf 'ts:1795940303867556.250;PID:7; TID:1; name: a;ph: B;%s\n' "$ENV" >"$T/log"
	printf 'ts:1795940303.9949698;PID:7; TID:1; name: a;ph: E;%s\n' "$ENV" >>"$T/log"
	printf 'ts:1795940304.5;PID:7; TID:1; name: b;ph: i;%s\n' "$ENV" >>"$T/log"
	run -0 sh -c "ltparse '$T/log' | grep -v '^[#-]' | cut -f1"
	[ "${lines[0]}" = 1795940303867556.25 ]
	[ "${lines[1]}" = 1795940303994969.8 ]
	[ "${lines[2]}" = 1795940304500000 ]
}

# validchain FILE STRIP STAGE...: the chain of STAGEs on FILE, as lt1
# between stages, the JSON and a .pftrace at the end (the last STAGE is
# ltjson), every stage's input without #valid when STRIP: each input as
# c.in.STAGE.STRIP (without #valid, to compare).
validchain() {
	local f=$1 strip=$2 s in="$T/c.0"
	shift 2
	ltparse "$f" >"$in"
	for s in "$@"; do
		grep -v '^#valid$' "$in" >"$T/c.in.${s%% *}.$strip"
		[ -z "$strip" ] || in=$T/c.in.${s%% *}.$strip
		# shellcheck disable=SC2086 # a command and its options
		$s "$in" >"$T/c.out.${s%% *}" || return 1
		[ "${s%% *}" = ltjson ] &&
		    { ltproto -o "$T/c.pftrace.$strip" "$in" || return 1; }
		in=$T/c.out.${s%% *}
	done
	mv "$in" "$T/c.json.$strip"
}

@test "#valid: ltparse's promise holds, and the chain writes the same with it or without" {
	cd "$T"
	genlog -f mixed -n 3000 -c -b -s 3 >mixed.log
	genlog -f new -n 3000 -r 4 -N 2 -s 4 >new.log
	gentrace -n 2000 -x 20 >k.json
	gentrace -f stair -n 500 >s.json
	for f in "$TOP"/tests/data/ltparse/*.log "$TOP"/tests/data/ltparse/*.json \
	    "$TOP/tests/data/sample.log" mixed.log new.log k.json s.json; do
		[ "$(ltparse "$f" 2>/dev/null | sed -n 2p)" = '#valid' ] ||
		    { echo "$f: no #valid"; return 1; }
		for chain in default no-complete; do
			if [ $chain = default ]; then
				set -- ltpair 'ltlanefix -q' 'ltstat -t' 'ltjson -S st'
			else
				set -- ltpair 'ltstat -t' 'ltlanefix -k -q' 'ltjson -S st'
			fi
			validchain "$f" 1 "$@" 2>/dev/null
			# checked in full, nothing was not canonical
			ltjson -S "$T/st1" "$T/c.in.ltjson.1" >/dev/null 2>&1
			[ "$(stat_of ltjson repaired "$T/st1")" = 0 ] ||
			    { echo "$f: ltparse wrote records ltjson repairs"; return 1; }
			validchain "$f" '' "$@" 2>/dev/null
			for s in ltpair ltlanefix ltstat ltjson; do
				cmp "$T/c.in.$s." "$T/c.in.$s.1" ||
				    { echo "$f $chain: $s's input differs"; return 1; }
			done
			cmp c.json. c.json.1 ||
			    { echo "$f $chain: the JSON differs"; return 1; }
			cmp c.pftrace. c.pftrace.1 ||
			    { echo "$f $chain: the .pftrace differs"; return 1; }
		done
	done
}

@test "#valid holds before the first record of the only stream, and ends with a second" {
	rec=$'1\ti\t1\t1\t-\tc\tn\t{}\t{}'
	printf '#lt1\n#valid\n#note\n%s\n#valid\n%s\n' "$rec" "$rec" >"$T/one"
	printf '#lt1\n#valid\n%s\n' "$rec" >"$T/a"
	# shellcheck disable=SC2086
	built $FILTERS
	for t in $FILTERS; do
		# passed on before the records; a later one is dropped
		run -0 "$t" "$T/one"
		[ "$(grep -v '^#stat' <<<"$output" | grep -n '^#' | tr '\n' ' ')" = \
		    '1:#lt1 2:#valid 3:#note ' ] || { echo "$t: $output"; false; }
		# a second operand ends it: its header is passed on, and its
		# #valid dropped, so that the stages after check it
		run -0 "$t" "$T/a" "$T/a"
		[ "$(grep -v '^#stat' <<<"$output" | grep '^#' | tr '\n' ' ')" = \
		    '#lt1 #valid #lt1 ' ] || { echo "$t: $output"; false; }
		# and so does a "#lt1" line: passed on as it was
		run -0 sh -c "cat '$T/a' '$T/a' | $t"
		[ "$(grep -v '^#stat' <<<"$output" | grep '^#' | tr '\n' ' ')" = \
		    '#lt1 #valid #lt1 ' ] || { echo "$t: $output"; false; }
	done
}

@test "#valid: ltjson copies what it is promised, checks all after the promise ends" {
	# not canonical (a blank)
	bad=$'1\ti\t1\t1\t-\tc\tn\t{"a": "b"}\t{}'
	printf '#lt1\n%s\n' "$bad" >"$T/plain"
	printf '#lt1\n#valid\n%s\n' "$bad" >"$T/canon"
	run -0 ltjson "$T/plain"
	[[ "$output" == *'"args":{"a":"b"}'* ]]
	run -0 ltjson "$T/canon"
	[[ "$output" == *'"args":{"a": "b"}'* ]]
	# but args with an escape (or what is not printable ASCII) are
	# checked in full all the same, and so written canonical
	printf '#lt1\n#valid\n1\ti\t1\t1\t-\tc\tn\t{"a":"\\u0062"}\t{}\n' >"$T/esc"
	run -0 ltjson "$T/esc"
	[[ "$output" == *'"args":{"a":"b"}'* ]]
	# under the promise ts and dur are still read, and checked
	printf '#lt1\n#valid\n1.5e3\ti\t1\t1\t-\tc\tn\t{}\t{}\n' >"$T/ts"
	run -1 --separate-stderr ltjson "$T/ts"
	[ "$stderr" = "ltjson: $T/ts:3: column ts: not microseconds (-?D+ with at most 3 decimals) or -" ]
	# a second stream is checked again: its bad args are found
	printf '#lt1\n#valid\n1\ti\t1\t1\t-\tc\tn\t{}\t{}\n' >"$T/a"
	printf '#lt1\n#valid\n2\ti\t1\t1\t-\tc\tn\t{"a":}\t{}\n' >"$T/b"
	run -1 --separate-stderr ltjson "$T/a" "$T/b"
	[[ "$stderr" == "ltjson: $T/b:3: column args: "* ]]
	run -1 --separate-stderr sh -c "cat '$T/a' '$T/b' | ltjson"
	[[ "$stderr" == "ltjson: <stdin>:6: column args: "* ]]
	# ltcheck checks every record all the same
	printf '#lt1\n#valid\n1\ti\t1\t1\t-\tc\tn\t{"a":}\t{}\n' >"$T/invalid"
	run -1 --separate-stderr ltcheck "$T/invalid"
	[ "$stderr" = "ltcheck: $T/invalid:3: column args: expected a value" ]
}

@test "#valid: ltpair reads a B's args when it needs them, and names that B then" {
	printf '#lt1\n#valid\n1\tB\t1\t1\t-\tc\tn\t{"a":1\t{}\n2\tE\t1\t1\t-\tc\tn\t{"a":1\t{}\n' >"$T/same"
	# an E with the same bytes needs nothing of them: ltjson is the judge
	run -0 ltpair "$T/same"
	[[ "$output" == *$'1\tX\t1\t1\t1\tc\tn\t{"a":1\t{}'* ]]
	# an E with other args: the B's are split, and found bad
	printf '#lt1\n#valid\n1\tB\t1\t1\t-\tc\tn\t{"a":1\t{}\n2\tE\t1\t1\t-\tc\tn\t{}\t{}\n' >"$T/other"
	run -1 --separate-stderr ltpair "$T/other"
	[ "$stderr" = "ltpair: $T/other:4: column args of the B at ts 1: unterminated object" ]
	# never closed: at the end
	printf '#lt1\n#valid\n1\tB\t1\t1\t-\tc\tn\t{"a":1\t{}\n' >"$T/open"
	run -1 --separate-stderr ltpair "$T/open"
	[ "$stderr" = "ltpair: $T/open:3: column args of the B at ts 1: unterminated object" ]
	# without the promise, the B is checked where it is
	sed -i '/^#valid$/d' "$T/other"
	run -1 --separate-stderr ltpair "$T/other"
	[ "$stderr" = "ltpair: $T/other:2: column args: unterminated object" ]
}

@test "#valid: a damaged stream that keeps the promise crashes nothing" {
	sed '1a #valid' "$DATA/ltpair/chrome.lt1" >"$T/canon.lt1"
	[ "$(sed -n 2p "$T/canon.lt1")" = '#valid' ]
	mutants 40 "$T/canon.lt1" ltpair
	mutants 20 "$T/canon.lt1" ltpair -k
	mutants 20 "$T/canon.lt1" ltlanefix -q
	mutants 20 "$T/canon.lt1" ltstat -t
	mutants 40 "$T/canon.lt1" ltjson
	mutants 40 "$T/canon.lt1" ltproto
}

@test "#valid: a stream sorted by time is still a stream, with its promise" {
	ltparse "$TOP/tests/data/sample.log" >"$T/p"
	ltpair "$T/p" >"$T/s"
	# ltparse's, with -s or without; ltpair's #open and #close need -s
	# (litracer-stream(5)): the header first, the promise before records
	for c in "p -s" "p -b" "s -s"; do
		sort -t "$(printf '\t')" ${c#* } -k1,1n "$T/${c%% *}" >"$T/sorted"
		[ "$(sed -n 1p "$T/sorted")" = '#lt1' ] || { echo "$c"; return 1; }
		[ "$(grep -n -m1 '^#valid$' "$T/sorted" | cut -d: -f1)" -lt \
		    "$(grep -n -m1 -v '^#' "$T/sorted" | cut -d: -f1)" ]
		run -0 ltjson "$T/sorted"
	done
}

@test "every program prints its version with --version, lists it in -h and its man page" {
	local p v
	v=$(sed -n 's/^#define LT_VERSION[^"]*"\(.*\)"/\1/p' "$TOP/common/lt.h")
	[ -n "$v" ]
	for p in ltparse ltpair ltfilter ltlanefix ltjson ltcheck ltstat ltproto \
	    ltchain; do
		run -0 --separate-stderr "$p" --version
		[ "$output" = "$p $v" ] || { echo "$p --version: $output"; return 1; }
		[ -z "$stderr" ]
		run -0 "$p" -h
		[[ $output == *"      --version "* ]] || { echo "$p -h"; return 1; }
		grep -q -e '^\.It Fl \(\\-\|-\|Fl \)version$' "$TOP/man/$p.1" ||
		    { echo "man/$p.1 has no --version"; return 1; }
		if [ -w /dev/full ]; then
			run -2 --separate-stderr sh -c '"$1" --version >/dev/full' sh "$p"
			[ "$stderr" = "$p: write error: <stdout>: No space left on device" ]
		fi
	done
	# ltcheck's -V is the Perfetto version to predict for, not its own
	run -1 ltcheck -t -V 56 "$TOP/tests/data/ltcheck/PF-X-OVERLAP.json"
	[[ $output == *slice_drop_overlapping_complete_event* ]]
	run -2 --separate-stderr ltcheck -V
}
