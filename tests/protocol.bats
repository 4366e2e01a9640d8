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

@test "every lt1 reader refuses a missing or unknown header with exit 1" {
	printf 'ts:1;PID:1; TID:2; name: x;ph: B;\n' >"$T/log"
	printf '#lt2\n' >"$T/v2"
	: >"$T/empty"
	# every C program but ltparse (logs and JSON in) and ltcheck (its own
	# report on a trace) reads lt1, and is in READERS
	[ "$(cd "$TOP/tools" && ls ./*.c | sed 's|^\./||; s|\.c$||' |
	    grep -vx 'ltparse\|ltcheck' | sort | tr '\n' ' ')" = \
	    "$(printf '%s\n' $READERS | sort | tr '\n' ' ')" ]
	# shellcheck disable=SC2086
	built $READERS
	for t in $READERS; do
		run -1 --separate-stderr "$t" "$T/log"
		[ "$stderr" = "$t: $T/log:1: not an lt1 stream: missing #lt1 header" ]
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
