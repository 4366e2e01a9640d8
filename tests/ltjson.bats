#!/usr/bin/env bats
# ltjson: lt1 to Chrome trace JSON.

bats_require_minimum_version 1.5.0

setup() {
	load helper
	T=$BATS_TEST_TMPDIR
}

# lt1 FILE LINE...: write a stream with the header and the given lines.
lt1() {
	local f=$1
	shift
	printf '#lt1\n' >"$f"
	[ $# -eq 0 ] || printf '%s\n' "$@" >>"$f"
}

@test "ltjson -h prints the usage on stdout and exits 0" {
	run -0 --separate-stderr ltjson -h
	[ "${lines[0]}" = "usage: ltjson [-O offset] [-S file] [-s file] [file ...]" ]
	[ -z "$stderr" ]
}

@test "the usage line equals the man page synopsis" {
	need mandoc
	syn=$(synopsis ltjson)
	run -0 ltjson -h
	[ "${lines[0]}" = "usage: $syn" ]
}

@test "a bad option is a usage error: exit 2" {
	run -2 --separate-stderr ltjson -x
	[ -z "$output" ]
	[[ "$stderr" == *"usage: ltjson [-O offset] [-S file] [-s file] [file ...]"* ]]
}

@test "a bad -O value is refused with exit 2" {
	run -2 --separate-stderr ltjson -O -9223372036854776 /dev/null
	[ "$stderr" = "ltjson: -O -9223372036854776: too small" ]
	run -2 --separate-stderr ltjson -O 9223372036854776 /dev/null
	[ "$stderr" = "ltjson: -O 9223372036854776: too large" ]
	run -2 --separate-stderr ltjson -O 1.5 /dev/null
	[ "$stderr" = "ltjson: -O 1.5: invalid" ]
}

@test "a missing file: exit 2 and the file named" {
	run -2 --separate-stderr ltjson "$T/nosuch"
	[ "$stderr" = "ltjson: $T/nosuch: No such file or directory" ]
}

@test "an unreadable input (a directory): exit 2 and the file named" {
	run -2 --separate-stderr ltjson "$T"
	[ "$stderr" = "ltjson: read error: $T: Is a directory" ]
}

@test "an empty input is not a stream: exit 1" {
	: >"$T/empty"
	run -1 --separate-stderr ltjson "$T/empty"
	[ "$stderr" = "ltjson: $T/empty:1: empty input, not an lt1 stream" ]
}

@test "a missing header: exit 1 with file and line" {
	printf 'ts:1;PID:1; TID:2; name: x;ph: B;\n' >"$T/log"
	run -1 --separate-stderr ltjson "$T/log"
	[ "$stderr" = "ltjson: $T/log:1: not an lt1 stream: missing #lt1 header (a log or a trace is read by ltparse, or converted by litracer)" ]
}

@test "an unknown stream version: exit 1" {
	printf '#lt2\n' >"$T/v2"
	run -1 --separate-stderr ltjson "$T/v2"
	[ "$stderr" = "ltjson: $T/v2:1: unsupported stream version \"#lt2\"" ]
}

@test "a record with too few columns: exit 1 with its line" {
	lt1 "$T/s" "1	B	1	1	-	c	n	{}	{}" "2	E	1	1	-	c	n"
	run -1 --separate-stderr ltjson "$T/s"
	[ "$stderr" = "ltjson: $T/s:3: expected 9 columns, found 7" ]
}

@test "a record with too many columns: exit 1" {
	lt1 "$T/s" "1	B	1	1	-	c	n	{}	{}	x"
	run -1 --separate-stderr ltjson "$T/s"
	[ "$stderr" = "ltjson: $T/s:2: expected 9 columns, found more" ]
}

@test "bad columns are named: ts, ph, pid, args, extra, name" {
	bad ltjson '#lt1\n1.2345\tB\t1\t1\t-\tc\tn\t{}\t{}\n' '2: column ts: not microseconds (-?D+ with at most 3 decimals) or -'
	bad ltjson '#lt1\n1\tBE\t1\t1\t-\tc\tn\t{}\t{}\n' '2: column ph: not a one-character phase'
	bad ltjson '#lt1\n1\tB\t1.5\t1\t-\tc\tn\t{}\t{}\n' '2: column pid: not an integer, a JSON string or -'
	bad ltjson '#lt1\n1\tB\t1\t1\t-\tc\tn\t{"a":1,}\t{}\n' '2: column args: trailing comma in object'
	bad ltjson '#lt1\n1\tB\t1\t1\t-\tc\tn\t{}\t[1]\n' '2: column extra: not a JSON object'
	bad ltjson '#lt1\n1\tB\t1\t1\t-\tc\ta"b\t{}\t{}\n' "2: column name: unescaped '\"' in string"
}

@test "bad data stops the trace unterminated, never presented as complete" {
	lt1 "$T/s" "1	B	1	1	-	c	n	{}	{}" "2	E	1	1	-	c	n	{	{}"
	run -1 ltjson "$T/s"
	[[ "$output" != *'"metadata"'* ]]
}

@test "golden: every column, directives, #top and metadata" {
	golden "$DATA/ltjson/basic.json" ltjson "$DATA/ltjson/basic.lt1"
	json_ok "$DATA/ltjson/basic.json"
}

@test "traceEvents comes first and events are one per line" {
	run -0 ltjson "$DATA/ltjson/basic.lt1"
	[ "${lines[0]}" = '{"traceEvents":[' ]
	[[ "${lines[1]}" == '{"ts":'*'},' ]]
	[ "$(grep -c '"ph":' <<<"$output")" -eq 6 ]
}

@test "an empty stream gives an empty but valid trace" {
	lt1 "$T/s"
	run -0 ltjson "$T/s"
	[ "${lines[0]}" = '{"traceEvents":[' ]
	[ "${lines[1]}" = '],' ]
	ltjson "$T/s" >"$T/out.json"
	json_ok "$T/out.json"
}

@test "epoch timestamps: one whole-us offset, every digit kept, recorded" {
	lt1 "$T/s" "1795940303867556.25	X	1	1	0.75	c	a	{}	{}" \
	    "1795940303867557	X	1	1	1	c	b	{}	{}" \
	    "1795940303867555.001	i	1	1	-	c	c	{}	{}"
	run -0 ltjson "$T/s"
	[[ "${lines[1]}" == '{"ts":1940303867556.25,'* ]]
	[[ "${lines[2]}" == '{"ts":1940303867557,'* ]]
	[[ "${lines[3]}" == '{"ts":1940303867555.001,'* ]]
	[[ "$output" == *'"ts_offset_us":1794000000000000,'* ]]
}

@test "offset + ts gives back the absolute time, to the nanosecond" {
	need node
	lt1 "$T/s" "1795940303867556.25	B	1	1	-	c	a	{}	{}" \
	    "1795940303999999.999	E	1	1	-	c	a	{}	{}"
	ltjson "$T/s" >"$T/t.json"
	run -0 node -e '
		const t = JSON.parse(require("fs").readFileSync(process.argv[1]));
		const off = BigInt(t.metadata.litracer.ts_offset_us);
		for (const e of t.traceEvents) {
			const [i, f = ""] = String(e.ts).split(".");
			const ns = (BigInt(i) + off) * 1000n + BigInt((f + "000").slice(0, 3));
			console.log(ns.toString());
		}' "$T/t.json"
	[ "${lines[0]}" = 1795940303867556250 ]
	[ "${lines[1]}" = 1795940303999999999 ]
}

@test "the offset keeps Perfetto's double conversion exact" {
	need node
	genlog -n 20000 >"$T/log"
	ltparse "$T/log" | ltjson >"$T/t.json"
	# What Perfetto does: double(text) * 1000, rounded, against the text.
	run -0 node -e '
		const t = JSON.parse(require("fs").readFileSync(process.argv[1]));
		let bad = 0, n = 0;
		for (const e of t.traceEvents) {
			if (e.ts === undefined) continue;
			const [i, f = ""] = String(e.ts).split(".");
			const want = BigInt(i) * 1000n + BigInt((f + "000").slice(0, 3));
			if (BigInt(Math.round(e.ts * 1000)) !== want) bad++;
			n++;
		}
		console.log(n, bad);' "$T/t.json"
	[ "${output#* }" = 0 ]
	[ "${output% *}" -gt 1000 ]
}

@test "relative timestamps get no offset" {
	lt1 "$T/s" "0	X	1	1	5	c	a	{}	{}" "12.5	X	1	1	1	c	b	{}	{}"
	run -0 ltjson "$T/s"
	[[ "${lines[1]}" == '{"ts":0,'* ]]
	[[ "$output" == *'"ts_offset_us":0,'* ]]
}

@test "a first ts 23 to 104 days after the clock's base gets an offset too: exact" {
	# Kineto floors its base to three months: 51.6 days here, past
	# 2^42 us, where a double no longer holds three decimals.
	lt1 "$T/s" "4458676417703.567	X	1	1	3.853	c	a	{}	{}" \
	    "4458676417711.898	X	1	1	2.634	c	b	{}	{}"
	run -0 ltjson -S "$T/st" "$T/s"
	[ "${lines[1]}" = '{"ts":1458676417703.567,"ph":"X","pid":1,"tid":1,"dur":3.853,"cat":"c","name":"a"},' ]
	[[ "$output" == *'"ts_offset_us":3000000000000,'* ]]
	grep -q '	rounded_ts=0	' "$T/st"
	# under 23.1 days: none, as for times from 0
	lt1 "$T/s" "1999999999999.5	X	1	1	1	c	a	{}	{}"
	run -0 ltjson "$T/s"
	[[ "$output" == *'"ts_offset_us":0,'* ]]
	lt1 "$T/s" "2000000000000.5	X	1	1	1	c	a	{}	{}"
	run -0 ltjson "$T/s"
	[[ "$output" == *'"ts_offset_us":1000000000000,'* ]]
}

@test "-O sets the offset; -O 0 keeps absolute times, whole us where Perfetto cannot hold more" {
	lt1 "$T/s" "1795940303867556.25	X	1	1	1	c	a	{}	{}"
	run -0 ltjson -O 1795940000000000 "$T/s"
	[[ "${lines[1]}" == '{"ts":303867556.25,'* ]]
	[[ "$output" == *'"ts_offset_us":1795940000000000,'* ]]
	run -0 ltjson -O 0 "$T/s"
	[[ "${lines[1]}" == '{"ts":1795940303867556,"ph":"X","pid":1,"tid":1,"dur":1,'* ]]
	[[ "$output" == *'"rounded_ts":2,'* ]] || false
}

@test "a ts before the offset is never written negative: clamped, counted, exit 1" {
	lt1 "$T/s" "1795940303867556.25	X	1	1	1	c	a	{}	{}" \
	    "5	X	1	1	1	c	b	{}	{}" "6	X	1	1	1	c	c	{}	{}"
	run -1 --separate-stderr ltjson -S "$T/st" "$T/s"
	[ "$stderr" = "ltjson: $T/s:3: ts 5 is before the offset chosen from the first event; written as the trace's start, since Perfetto drops a negative ts (see -O)" ]
	[ "${lines[2]}" = '{"ts":0,"ph":"X","pid":1,"tid":1,"dur":0,"cat":"c","name":"b"},' ]
	[[ "$output" != *'"ts":-'* ]]
	[[ "$output" == *'"clamped_ts":4,'* ]]
	# the offset that keeps every event, for a second run (litracer does it)
	grep -q '	ts_offset_needed_us=0$' "$T/st"
	# with it the early events keep their times and the late one, far
	# beyond the exact window, is rounded to a whole microsecond
	run -0 ltjson -O 0 "$T/s"
	[[ "${lines[1]}" == '{"ts":1795940303867556,"ph":"X","pid":1,"tid":1,"dur":1,'* ]]
	[[ "${lines[2]}" == '{"ts":5,"ph":"X"'* ]]
	[[ "$output" == *'"clamped_ts":0,"rounded_ts":2,'* ]] || false
}

@test "metadata events without ts stay without ts" {
	run -0 ltjson "$DATA/ltjson/basic.lt1"
	[ "${lines[5]}" = '{"ph":"M","pid":13966,"tid":0,"name":"process_name","args":{"name":"rank 0 (pid 13966)"}},' ]
}

@test "#stat lines of one tool add up; text values stay strings" {
	lt1 "$T/s" "#stat	ltparse	lines=3	events=2	mode=fast" \
	    "#stat	ltparse	lines=4	events=4	mode=slow"
	run -0 ltjson "$T/s"
	[[ "$output" == *'"ltparse":{"lines":7,"events":6,"mode":"slow"}'* ]]
}

@test "a malformed #stat or #top directive is bad data" {
	bad ltjson '#lt1\n#stat\tltparse\tlines\n' '2: #stat field "lines" is not key=value'
	bad ltjson '#lt1\n#top\tx\t{nope}\n' '2: #top x: expected a string key at byte 1'
	bad ltjson '#lt1\n#top\ttraceEvents\t[]\n' '2: #top traceEvents is not allowed'
}

@test "non-canonical columns are repaired into valid UTF-8 and counted" {
	printf '#lt1\n1\ti\t1\t1\t-\tc\\u00e9\tbad\xff\xfe byte\t{"k" : "\\ud83d\\ude00 \\u0000"}\t{}\n' >"$T/s"
	run -0 ltjson "$T/s"
	[ "${lines[1]}" = $'{"ts":1,"ph":"i","pid":1,"tid":1,"cat":"c\xc3\xa9","name":"bad\xef\xbf\xbd\xef\xbf\xbd byte","args":{"k":"\xf0\x9f\x98\x80 \xef\xbf\xbd"}}' ]
	[[ "$output" == *'"repaired":1'* ]]
	ltjson "$T/s" >"$T/t.json"
	json_ok "$T/t.json"
}

@test "object columns: what looks plain is still checked whole" {
	for a in '{"a":01}|invalid number' '{"a":1,}|trailing comma in object' \
	    '{"a":-}|invalid number' '{"a":1}x|text after the value' \
	    '{"a":"b\"}|unterminated string'; do
		lt1 "$T/s" "1	i	1	1	-	c	n	${a%|*}	{}"
		run -1 --separate-stderr ltjson "$T/s"
		[ "$stderr" = "ltjson: $T/s:2: column args: ${a#*|}" ]
		[ -z "$output" ]
	done
	# valid, canonical, just not of the plain kind: written as they are
	lt1 "$T/s" '1	i	1	1	-	c	n	{"a":1.5e3,"b":true,"d":[1],"e":{"f":-0},"":""}	{"s":"\u0001"}'
	run -0 ltjson "$T/s"
	[ "${lines[1]}" = '{"ts":1,"ph":"i","pid":1,"tid":1,"cat":"c","name":"n","args":{"a":1.5e3,"b":true,"d":[1],"e":{"f":-0},"":""},"s":"\u0001"}' ]
	[[ "$output" == *'"repaired":0'* ]]
}

@test "-S writes every counter for scripts" {
	run -0 ltjson -S "$T/stats" "$DATA/ltjson/basic.lt1"
	run -0 cat "$T/stats"
	[ "${lines[0]}" = "#stat	ltparse	lines=4	events=4	skipped=0" ]
	[ "${lines[1]}" = "#stat	ltjson	events=6	B=1	E=1	X=1	I=1	M=2	C=0	flows=0	other=0	processes=2	repaired=0	clamped_ts=0	rounded_ts=0	dupkeys=0" ]
	[ "${lines[2]}" = "#duration	1343.75" ]
	[ "${lines[3]}" = "#span	epoch	1	1343.75" ]
	[ "${lines[4]}" = "#span	read	1	112.5" ]
}

@test "a write error (disk full) is reported, exit 2" {
	[ -w /dev/full ] || skip "/dev/full is missing (Linux has it; as root: mknod -m 666 /dev/full c 1 7)"
	run -2 --separate-stderr sh -c "ltjson '$DATA/ltjson/basic.lt1' > /dev/full"
	[ "$stderr" = "ltjson: write error: <stdout>: No space left on device" ]
}

@test "several inputs make one trace; - is standard input" {
	run -0 sh -c "ltjson '$DATA/ltjson/basic.lt1' - < '$DATA/ltjson/basic.lt1'"
	[ "$(grep -c '"ph":"X"' <<<"$output")" -eq 2 ]
	[[ "$output" == *'"ltparse":{"lines":8,'* ]]
}

@test "every prefix of a stream gives exit 0 or 1, never a crash" {
	prefixes 1 "$DATA/ltjson/basic.lt1" ltjson
}

@test "random valid streams always give valid JSON" {
	need node
	awk 'BEGIN {
		srand(7); print "#lt1"
		split("B E X i M C s f b e", ph, " ")
		for (i = 0; i < 3000; i++) {
			ts = int(rand() * 1e6) "." int(rand() * 1000)
			pid = rand() < 0.1 ? "\"p " int(rand() * 9) "\"" : int(rand() * 99)
			printf "%s\t%s\t%s\t%d\t%s\tc%d\tn\\\\%d\\\"x\t{\"k\":%d,\"s\":\"\\u00e9\"}\t{\"id\":%d}\n",
			    ts, ph[1 + int(rand() * 10)], pid, rand() * 9,
			    rand() < 0.5 ? "-" : int(rand() * 100), i % 5, i, i, i
		}
	}' >"$T/s"
	ltjson "$T/s" >"$T/t.json"
	json_ok "$T/t.json"
	run -0 grep -c '"ph":' "$T/t.json"
	[ "$output" -eq 3000 ]
}

@test "X events without a category are summed under the empty category" {
	lt1 "$T/s" "0	X	1	1	1		a	{}	{}" "1	X	1	1	2		b	{}	{}"
	run -0 ltjson "$T/s"
	[[ "$output" == *'"span_us":{"":3}'* ]]
}

@test "B/E pairs count in the span times like X events" {
	lt1 "$T/s" "0	B	1	1	-	io	read	{}	{}" "1	B	1	1	-	cpu	sample	{}	{}" \
	    "3	E	1	1	-	io	read	{}	{}" "4	E	1	1	-	cpu	sample	{}	{}" \
	    "5	B	1	2	-	io	read	{}	{}" "7.5	E	1	2	-			{}	{}" \
	    "8	B	1	2	-	io	never	{}	{}" "9	X	1	3	1	io	read	{}	{}"
	run -0 ltjson -S "$T/st" "$T/s"
	run -0 grep '^#span' "$T/st"
	[ "${lines[0]}" = "#span	io	3	6.5" ]
	[ "${lines[1]}" = "#span	cpu	1	3" ]
}

@test "displayTimeUnit is not written back" {
	lt1 "$T/s" "0	X	1	1	1	c	a	{}	{}" "#top	displayTimeUnit	\"ns\"" \
	    "#top	otherData	{\"k\":1}"
	run -0 ltjson "$T/s"
	[[ "$output" != *displayTimeUnit* ]]
	[[ "$output" == *'"otherData":{"k":1}'* ]]
}

@test "a trace longer than the exact window: late times whole us, touching slices still touch in Perfetto" {
	# 200 days after the first event, fractional slices that touch; the
	# old writer's fractions made Perfetto spill 9 of them (rounding)
	b=$((1795940303867556 + 200 * 86400000000))
	{
		printf '#lt1\n'
		printf '1795940303867556.25\tX\t1\t1\t1.5\tc\tfirst\t{}\t{}\n'
		for i in $(seq 0 49); do
			printf '%s.%03d\tX\t1\t1\t0.%03d\tc\tt%d\t{}\t{}\n' \
			    "$((b + 10 * i))" $((i * 17 % 1000)) \
			    $((999 - i * 17 % 1000)) "$i"
			printf '%s.999\tX\t1\t1\t0.5\tc\tu%d\t{}\t{}\n' "$((b + 10 * i))" "$i"
		done
	} >"$T/s"
	run -0 ltjson -S "$T/st" "$T/s"
	printf '%s\n' "$output" >"$T/t.json"
	# every late time is a whole microsecond, the early one kept exact
	[[ "${lines[1]}" == '{"ts":1940303867556.25,'* ]]
	run -0 grep -c '"ts":[0-9]*,"ph":"X","pid":1,"tid":1,"dur":[0-9]*,' "$T/t.json"
	[ "$output" -eq 100 ]
	grep -q '	rounded_ts=' "$T/st"
	tp_need
	tp_clean "$T/t.json"
	run -0 tp_query "$T/t.json" "select count(*) from slice s join thread_track t on s.track_id = t.id"
	[ "$output" -eq 101 ]
}

@test "an extra member that repeats a column's key is dropped: the column wins, counted" {
	lt1 "$T/s" '5	X	9	2	1	c	n	{}	{"ts":7,"ph":"B","pid":8,"cname":"good","id":3}' \
	    '5	i	-	2	-	c	n	{}	{"pid":"kept","s":"t"}'
	run -0 ltjson "$T/s"
	[ "${lines[1]}" = '{"ts":5,"ph":"X","pid":9,"tid":2,"dur":1,"cat":"c","name":"n","cname":"good","id":3},' ]
	# a column that is absent leaves its member in extra to stand
	[ "${lines[2]}" = '{"ts":5,"ph":"i","tid":2,"cat":"c","name":"n","pid":"kept","s":"t"}' ]
	[[ "$output" == *'"dupkeys":3'* ]]
	lt1 "$T/s" '5	X	9	2	1	c	n	{"a":1}	{"x":{"ts":1},"args":{"b":2}}'
	run -0 ltjson "$T/s"
	[ "${lines[1]}" = '{"ts":5,"ph":"X","pid":9,"tid":2,"dur":1,"cat":"c","name":"n","args":{"a":1},"x":{"ts":1}}' ]
}

@test "pid and tid: all 64 bits are accepted, -0 is written 0" {
	lt1 "$T/s" '5	i	-9223372036854775808	-0	-	c	n	{}	{}' \
	    '5	i	9223372036854775807	-0	-	c	n	{}	{}'
	run -0 ltjson "$T/s"
	[ "${lines[1]}" = '{"ts":5,"ph":"i","pid":-9223372036854775808,"tid":0,"cat":"c","name":"n"},' ]
	[ "${lines[2]}" = '{"ts":5,"ph":"i","pid":9223372036854775807,"tid":0,"cat":"c","name":"n"}' ]
	[[ "$output" == *'"repaired":2'* ]]
	bad ltjson '#lt1\n5\ti\t-9223372036854775809\t1\t-\tc\tn\t{}\t{}\n' '2: column pid: not an integer, a JSON string or -'
	# 0 and 18 digits as they are; a leading 0 is no JSON number
	lt1 "$T/s" '5	i	0	123456789012345678	-	c	n	{}	{}'
	run -0 ltjson "$T/s"
	[ "${lines[1]}" = '{"ts":5,"ph":"i","pid":0,"tid":123456789012345678,"cat":"c","name":"n"}' ]
	bad ltjson '#lt1\n5\ti\t01\t1\t-\tc\tn\t{}\t{}\n' '2: column pid: not an integer, a JSON string or -'
	bad ltjson '#lt1\n5\ti\t1\t00000000000000007\t-\tc\tn\t{}\t{}\n' '2: column tid: not an integer, a JSON string or -'
}

@test "a trace that starts before 1970 gets a negative offset, not clamped" {
	lt1 "$T/s" '-5.5	X	1	1	1	c	a	{}	{}' '3	X	1	1	1	c	b	{}	{}'
	run -0 ltjson "$T/s"
	[[ "${lines[1]}" == '{"ts":1999999999994.5,'* ]]
	[[ "${lines[2]}" == '{"ts":2000000000003,'* ]]
	[[ "$output" == *'"ts_offset_us":-2000000000000,'* ]] || false
}

@test "--help and every long option" {
	run -0 --separate-stderr ltjson --help
	[ "${lines[0]}" = "usage: ltjson [-O offset] [-S file] [-s file] [file ...]" ]
	[[ "$output" == *"-O, --offset"* && "$output" == *"-S, --stats"* ]]
	[[ "$output" == *"-h, --help"* ]]
	lt1 "$T/s" "1795940303867556.25	X	1	1	1	c	a	{}	{}"
	run -0 ltjson --offset=1795940000000000 --stats "$T/st" "$T/s"
	[[ "${lines[1]}" == '{"ts":303867556.25,'* ]]
	[ -s "$T/st" ]
}

@test "-s: the summary line of the run, the same from ltjson and ltproto, as litracer prints it" {
	ltparse "$DATA/sample.log" | ltpair | ltlanefix -q | ltstat -t >"$T/s.lt1"
	run -0 ltjson -s "$T/j.sum" "$T/s.lt1"
	run -0 ltproto --summary="$T/p.sum" -o "$T/s.pftrace" "$T/s.lt1"
	cmp "$T/j.sum" "$T/p.sum"
	[ "$(wc -l <"$T/j.sum")" -eq 1 ]
	run -0 --separate-stderr litracer -q -o "$T/d.json" "$DATA/sample.log"
	[ "$stderr" = "$(cat "$T/j.sum")" ]
	# a filter's counts, once one ran
	ltfilter -c read "$T/s.lt1" | ltjson -s "$T/f.sum" >/dev/null
	[[ "$(cat "$T/f.sum")" == *" read="*"ms filter_kept="*" filter_dropped="* ]]
	[[ "$(cat "$T/j.sum")" != *filter_* ]]
}

@test "ltcheck accepts exactly the lt1 that ltjson accepts, with the same message" {
	# a raw NUL, repaired to U+FFFD: fine for both
	printf '#lt1\n5\ti\t1\t1\t-\tc\tn\0ul\t{}\t{}\n' >"$T/nul"
	run -0 ltjson "$T/nul"
	[[ "$output" == *$'"name":"n\xef\xbf\xbdul"'* ]]
	run -0 ltcheck -q "$T/nul"
	# a #top nested 10,000 deep: refused by both
	{
		printf '#lt1\n#top\tdeep\t'
		head -c 10000 /dev/zero | tr '\0' '['
		head -c 10000 /dev/zero | tr '\0' ']'
		printf '\n'
	} >"$T/deep"
	for f in deep bad1 bad2 bad3 bad4 bad5 bad6; do
		case $f in
		bad1) lt1 "$T/$f" '5	i	1	1	-	c	n	{"a":1,}	{}' ;;
		bad2) lt1 "$T/$f" 'x	i	1	1	-	c	n	{}	{}' ;;
		bad3) lt1 "$T/$f" '5	i	1.5	1	-	c	n	{}	{}' ;;
		bad4) lt1 "$T/$f" '5	i	1	1	-	c	n	{}	[]' ;;
		bad5) lt1 "$T/$f" '5	i	1	1	-	c	n	{}' ;;
		bad6) lt1 "$T/$f" '#top	traceEvents	[]' ;;
		esac
		run -1 --separate-stderr ltjson "$T/$f"
		want=${stderr#ltjson: }
		[ -n "$want" ]
		run -1 --separate-stderr ltcheck "$T/$f"
		[ "$stderr" = "ltcheck: $want" ] || { echo "$f: $stderr"; false; }
	done
}

@test "#valid: a damaged column that would break the trace is checked in full and refused, whatever the stream claims" {
	# columns that broke the trace (Perfetto could not load it) with exit 0
	while IFS='|' read -r col val why; do
		printf '#lt1\n#valid\n1\tX\t1\t1\t1\tc\tn\t{}\t{}\n' >"$T/s"
		printf -v line '2\tX\t1\t1\t1\t%s\t%s\t%s\t%s' \
		    "$([ "$col" = cat ] && printf '%b' "$val" || echo c)" \
		    "$([ "$col" = name ] && printf '%b' "$val" || echo n)" \
		    "$([ "$col" = args ] && printf '%b' "$val" || echo '{}')" \
		    "$([ "$col" = extra ] && printf '%b' "$val" || echo '{}')"
		printf '%s\n' "$line" >>"$T/s"
		run -1 --separate-stderr ltjson "$T/s"
		[ "$stderr" = "ltjson: $T/s:4: column $col: $why" ] ||
		    { echo "$col $val: $stderr"; return 1; }
	done <<'END'
name|sa{"mple|unescaped '"' in string
cat|a\\|unterminated string
args|{"a":"b}|unterminated string
args|{"a":1}}|text after the value
args|{"a":"b"]|expected ',' or '}'
extra|{"cname\\u":"x"}|invalid \u escape in string
END
	# Perfetto reads the args of M and C events strictly: it refuses the
	# trace for {"sort_index":50,00000} in an M event, and hangs on a C
	# event's {"a" "b"}: their args are checked in full
	printf '#lt1\n#valid\n-\tM\t1\t1\t-\t\tthread_sort_index\t{"sort_index":50,00000}\t{}\n' >"$T/m"
	run -1 --separate-stderr ltjson "$T/m"
	[ "$stderr" = "ltjson: $T/m:3: column args: expected a string key" ]
	printf '#lt1\n#valid\n1\tC\t1\t1\t-\t\tc\t{"a" "b"}\t{}\n' >"$T/c"
	run -1 --separate-stderr ltjson "$T/c"
	[ "$stderr" = "ltjson: $T/c:3: column args: expected ':' after key" ]
	# a damage that leaves valid JSON, or JSON that can be repaired, is
	# written canonical, counted, and the trace loads
	tp_need
	printf '#lt1\n#valid\n1\tX\t1\t1\t1\tc\tcpu_o\001\t{"a": 1}\t{}\n' >"$T/ok"
	ltjson "$T/ok" >"$T/ok.json"
	grep -qF '"name":"cpu_o\u0001","args":{"a":1}' "$T/ok.json"
	grep -qF '"repaired":1' "$T/ok.json"
	tp_clean "$T/ok.json"
}

@test "#valid: args nested deeper than 1000 are refused as without it, never a crash (ltjson, ltproto)" {
	awk 'BEGIN { printf "#lt1\n#valid\n1\tX\t1\t1\t1\tc\tn\t"; for (i = 0; i < 100000; i++) printf "{\"a\":"; printf "1"; for (i = 0; i < 100000; i++) printf "}"; print "\t{}" }' >"$T/deep"
	for t in ltjson ltproto; do
		run -1 --separate-stderr sh -c '"$1" "$2" >/dev/null' sh "$t" "$T/deep"
		[ "$stderr" = "$t: $T/deep:3: column args: nesting too deep" ]
	done
	# 1000 deep is fine
	awk 'BEGIN { printf "#lt1\n#valid\n1\tX\t1\t1\t1\tc\tn\t"; for (i = 0; i < 999; i++) printf "{\"a\":"; printf "1"; for (i = 0; i < 999; i++) printf "}"; print "\t{}" }' >"$T/d1000"
	ltjson "$T/d1000" >/dev/null
	ltproto -o /dev/null "$T/d1000"
}

@test "a category repaired in the events is the same in span_us, and the trace loads" {
	tp_need
	printf '#lt1\n1\tX\t1\t1\t1\tsamp\001le\tn\t{}\t{}\n' >"$T/cat"
	ltjson "$T/cat" >"$T/cat.json"
	grep -qF '"cat":"samp\u0001le"' "$T/cat.json"
	grep -qF '"span_us":{"samp\u0001le":1}' "$T/cat.json"
	tp_clean "$T/cat.json"
}
