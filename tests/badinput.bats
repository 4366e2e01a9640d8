#!/usr/bin/env bats
# The bad-input matrix: every kind of damaged, odd or hostile input
# against every program of the toolkit.  Each run is judged the same way
# (judge): the exit status the class of input calls for, a message that
# starts with the program's name when it fails, no sanitizer report, and
# no output presented as a success when it is partial: a stage's own
# #stat line, ltjson's metadata and litracer's output file appear only
# when the program succeeded, and then the output is complete.

bats_require_minimum_version 1.5.0

setup() {
	load helper
	T=$BATS_TEST_TMPDIR
	export TMPDIR=$T/tmp
	mkdir -p "$TMPDIR"
}

LT1="ltpair ltfilter ltlanefix ltstat ltjson ltproto"

# complete_json FILE: FILE is a whole JSON trace (node parses the small
# ones; a big one must at least end as ltjson ends a trace).
complete_json() {
	if [ "$(wc -c <"$1")" -lt 20000000 ]; then
		json_ok "$1"
	else
		# (the shell drops the final newline)
		[ "$(tail -c 5 "$1")" = '}}}}' ] || { echo "$1: not ended"; return 1; }
	fi
}

# judge PROG WANT FILE [ARG...]: PROG (ARG... FILE) exits with one of
# the statuses in WANT ("0", "1", "01"), and is judged as above.
judge() {
	local p=$1 want=$2 f=$3 st=0 e='' out=$T/judge.out err=$T/judge.err
	shift 3
	case $p in
	litracer)
		rm -f "$T/judge.json"
		litracer -q -o "$T/judge.json" "$@" "$f" >"$out" 2>"$err" || st=$? ;;
	ltcheck) ltcheck -q "$@" "$f" >"$out" 2>"$err" || st=$? ;;
	ltfilter) ltfilter -c '*' "$@" "$f" >"$out" 2>"$err" || st=$? ;;
	ltstat) ltstat -t "$@" "$f" >"$out" 2>"$err" || st=$? ;;
	*) "$p" "$@" "$f" >"$out" 2>"$err" || st=$? ;;
	esac
	[ -s "$err" ] && e=$(head -c 4000 "$err")
	if [[ $e == *Sanitizer* || $e == *"runtime error:"* || $st -gt 2 ]]; then
		echo "$p $f: crashed (exit $st): $e"
		keep "$f"
		return 1
	fi
	[[ $want == *$st* ]] || { echo "$p $f: exit $st, want $want: $e"; return 1; }
	if [ "$st" -ne 0 ]; then
		# ltcheck -q reports findings on stdout, exit 1; litracer
		# shows the failing stage's messages, then its own
		if [ "$p" = litracer ]; then
			[[ $(tail -n 1 "$err") == "litracer: "* ]] ||
			    { echo "$p $f: message: $e"; return 1; }
		elif [ "$p" != ltcheck ] || [ ! -s "$out" ]; then
			[[ $e == "$p: "* ]] || { echo "$p $f: message: $e"; return 1; }
		fi
		case $p in
		litracer)
			[ ! -e "$T/judge.json" ] || { echo "$p $f: wrote a trace"; return 1; }
			[ -z "$(ls -A "$TMPDIR")" ] || { echo "$p $f: left $(ls -A "$TMPDIR")"; return 1; }
			;;
		ltjson)
			# a whole trace with times clamped says so (ltjson(1))
			grep -q '"clamped_ts":[1-9]' "$out" ||
			    nomatch -F '"metadata":{"litracer"' "$out" || return 1 ;;
		ltcheck|ltproto) ;;
		*)
			nomatch -F "#stat	$p	" "$out" || return 1 ;;
		esac
		return 0
	fi
	case $p in
	litracer) complete_json "$T/judge.json" ;;
	ltjson) complete_json "$out" ;;
	ltproto)
		# a protobuf Trace: its first packet, field 1
		[ "$(od -An -tx1 -N1 "$out" | tr -d ' ')" = 0a ] ||
		    { echo "$p $f: not a trace"; return 1; } ;;
	ltcheck) ;;
	*)
		[[ $(tail -n 1 "$out") == "#stat	$p	"* ]] ||
		    { echo "$p $f: no #stat at the end"; return 1; } ;;
	esac
}

# lt1 stages judged alike: judge_lt1 WANT FILE.
judge_lt1() {
	local p
	for p in $LT1; do
		judge "$p" "$1" "$2" || return 1
	done
}

@test "empty input: lt1 readers refuse it, ltparse says there is nothing, litracer writes nothing" {
	: >"$T/empty"
	judge_lt1 1 "$T/empty"
	judge ltparse 0 "$T/empty"
	judge ltcheck 1 "$T/empty"
	judge litracer 1 "$T/empty"
	run -1 --separate-stderr litracer -q -o "$T/e.json" "$T/empty"
	[ "$stderr" = "litracer: no events in the input; $T/e.json was not written" ]
	run -1 --separate-stderr ltjson "$T/empty"
	[ "$stderr" = "ltjson: $T/empty:1: empty input, not an lt1 stream" ]
}

@test "a header only: an empty stream, fine for every stage; no events for litracer" {
	printf '#lt1\n' >"$T/hdr"
	judge_lt1 0 "$T/hdr"
	judge ltparse 0 "$T/hdr"
	judge ltcheck 0 "$T/hdr"
	judge litracer 1 "$T/hdr"
}

@test "binary garbage: refused by lt1 readers, skipped line by line as a log" {
	randbytes 11 8192 >"$T/bin"
	judge_lt1 1 "$T/bin"
	judge ltparse 0 "$T/bin"
	judge ltcheck 1 "$T/bin"
	judge litracer 1 "$T/bin"
	{ echo '#lt1'; randbytes 12 8192; } >"$T/hbin"
	judge_lt1 1 "$T/hbin"
	judge ltcheck 1 "$T/hbin"
}

@test "NUL bytes: repaired to U+FFFD, in lt1, in a log and in JSON" {
	printf '#lt1\n5\tB\t1\t1\t-\tc\tn\0ul\t{}\t{}\n6\tE\t1\t1\t-\tc\tn\0ul\t{}\t{}\n' >"$T/nul"
	judge_lt1 0 "$T/nul"
	judge ltcheck 0 "$T/nul"
	run -0 ltjson "$T/nul"
	[[ $output == *$'"name":"n\xef\xbf\xbdul"'* ]]
	printf 'ts:1774156435562254.250;PID:10; TID:139714073724736; name: re\0ad;ph: B;cat: read;\n' >"$T/nul.log"
	judge ltparse 0 "$T/nul.log"
	judge litracer 1 "$T/nul.log"
	printf '{"traceEvents":[{"ph":"X","ts":1,"dur":2,"pid":1,"tid":1,"name":"a\0b"}]}' >"$T/nul.json"
	judge ltparse 0 "$T/nul.json"
	judge litracer 0 "$T/nul.json"
}

@test "invalid UTF-8: replaced, never passed to the trace" {
	printf '#lt1\n5\tB\t1\t1\t-\tc\tn\xff\xfeu\t{"a":"\xc3"}\t{}\n6\tE\t1\t1\t-\tc\tn\xff\xfeu\t{}\t{}\n' >"$T/u"
	judge_lt1 0 "$T/u"
	judge ltcheck 0 "$T/u"
	printf '{"traceEvents":[{"ph":"X","ts":1,"dur":2,"pid":1,"tid":1,"name":"a\xff\xfeb"}]}' >"$T/u.json"
	judge ltparse 0 "$T/u.json"
	judge litracer 0 "$T/u.json"
	ltjson "$T/u" >"$T/u.out"
	nomatch -P '\xff' "$T/u.out"
}

@test "a 10 MB line: a record, a log line and a JSON event of any length" {
	{ printf '#lt1\n5\ti\t1\t1\t-\tc\t'; head -c 10000000 /dev/zero | tr '\0' x; printf '\t{}\t{}\n'; } >"$T/long"
	judge_lt1 0 "$T/long"
	judge ltcheck 0 "$T/long"
	{
		printf 'ts:1774156435562254.250;PID:10; TID:139714073724736; name: read;ph: B;cat: read;x: '
		head -c 10000000 /dev/zero | tr '\0' y
		printf ';\n'
	} >"$T/long.log"
	judge ltparse 0 "$T/long.log"
	judge litracer 0 "$T/long.log"
}

@test "records across reads, and a bad one past the first: every lt1 reader splits each whole and names the bad one's line" {
	# 30,000 records of varied lengths, about 2.6 MB: many end past a
	# read of the input buffer (1 MiB) or of a pipe
	awk 'BEGIN { print "#lt1"; for (i = 1; i <= 30000; i++) {
		pad = sprintf("%*s", i % 97, ""); gsub(/ /, "x", pad)
		printf "%d\tX\t1\t%d\t%d\tc\tn%s\t{\"i\":%d}\t{}\n", i * 10,
		    i % 3 + 1, 5, pad, i } }' >"$T/s"
	for p in ltpair ltlanefix ltjson; do
		"$p" "$T/s" >"$T/file.out"
		# through a pipe written 777 bytes at a time
		dd if="$T/s" bs=777 2>/dev/null | "$p" >"$T/pipe.out"
		cmp "$T/file.out" "$T/pipe.out" || { echo "$p: a pipe differs"; return 1; }
	done
	[ "$(grep -c '"name":"nx' "$T/file.out")" -gt 100 ]
	# line 25,002: 8 columns, after more than a read's worth of records
	awk 'NR == 25002 { sub(/\t\{\}$/, "") } { print }' "$T/s" >"$T/bad"
	for p in $LT1; do
		case $p in
		ltstat) run -1 --separate-stderr ltstat -t "$T/bad" ;;
		ltfilter) run -1 --separate-stderr ltfilter -c '*' "$T/bad" ;;
		*) run -1 --separate-stderr "$p" "$T/bad" ;;
		esac
		[[ "$stderr" == *"$p: $T/bad:25002: expected 9 columns, found 8"* ]] || { echo "$p: $stderr"; return 1; }
	done
}

@test "truncations: a stream, a log and a trace cut short" {
	printf '#lt1\n5\tB\t1\t1\t-\tc\tn\t{"chunk":1}\t{}\n6\tE\t1\t1\t-\tc\tn\t{"chu' >"$T/cut"
	judge_lt1 1 "$T/cut"
	judge ltcheck 1 "$T/cut"
	run -1 --separate-stderr ltpair "$T/cut"
	[ "$stderr" = "ltpair: $T/cut:3: expected 9 columns, found 8" ]
	printf '{"traceEvents":[{"ph":"X","ts":1,"dur":2,"pid":1,"tid":1,"name":"a"},{"ph":"X","ts":2,"du' >"$T/cut.json"
	judge ltparse 1 "$T/cut.json"
	judge ltcheck 1 "$T/cut.json"
	judge litracer 1 "$T/cut.json"
	# a log cut inside a record: the torn line is counted, the rest kept
	printf 'ts:1774156435562254.250;PID:10; TID:139714073724736; name: read;ph: B;cat: read;\nts:17741564355' >"$T/cut.log"
	judge ltparse 0 "$T/cut.log"
	judge litracer 0 "$T/cut.log"
}

@test "CRLF: a stream is refused with the CR shown, a log is read" {
	printf '#lt1\r\n5\ti\t1\t1\t-\tc\tn\t{}\t{}\r\n' >"$T/crlf"
	judge_lt1 1 "$T/crlf"
	judge ltcheck 1 "$T/crlf"
	run -1 --separate-stderr ltfilter "$T/crlf"
	[ "$stderr" = "ltfilter: $T/crlf:1: unsupported stream version \"#lt1\\r\"" ]
	l='ts:1774156435562254.250;PID:10; TID:139714073724736; name: read;ph: B;cat: read;chunk: 1;'
	printf '%s\r\n%s\r\n' "$l" "${l/ph: B/ph: E}" >"$T/crlf.log"
	judge ltparse 0 "$T/crlf.log"
	judge litracer 0 "$T/crlf.log"
	run -0 --separate-stderr litracer -q -o "$T/c.json" "$T/crlf.log"
	[ "$(sumval() { tr ' ' '\n' <<<"$1" | awk -F = -v k="$2" '$1 == k { print $2 }'; }; sumval "$stderr" X)" = 1 ]
}

@test "a million unmatched B: kept, counted" {
	awk 'BEGIN { print "#lt1"
		for (i = 0; i < 1000000; i++)
			printf "%d\tB\t1\t%d\t-\tc\tn\t{}\t{}\n", i, i % 7 }' >"$T/b.lt1"
	# ltpair's output, judged, is counted; each program runs once
	judge ltpair 0 "$T/b.lt1"
	[[ $(tail -n 1 "$T/judge.out") == *"	unmatched_B=1000000	"* ]]
	for p in $LT1; do
		[ "$p" = ltpair ] || judge "$p" 0 "$T/b.lt1"
	done
	awk 'BEGIN { for (i = 0; i < 1000000; i++)
		printf "ts:%d.250;PID:10; TID:139714073724736; name: read;ph: B;cat: read;chunk: %d;\n", 1774156435562254 + i, i }' >"$T/b.log"
	judge ltparse 0 "$T/b.log"
	judge litracer 0 "$T/b.log"
}

@test "deep nesting: a 10,000-deep value is refused where it is read, never a crash" {
	{
		printf '#lt1\n5\ti\t1\t1\t-\tc\tn\t{"a":'
		head -c 10000 /dev/zero | tr '\0' '['
		head -c 10000 /dev/zero | tr '\0' ']'
		printf '}\t{}\n'
	} >"$T/deep"
	# stages that pass args through unread keep them; ltjson reads all
	judge ltpair 0 "$T/deep"
	judge ltfilter 0 "$T/deep"
	judge ltlanefix 0 "$T/deep"
	judge ltjson 1 "$T/deep"
	judge ltcheck 1 "$T/deep"
	run -1 --separate-stderr ltjson "$T/deep"
	[ "$stderr" = "ltjson: $T/deep:2: column args: nesting too deep" ]
	{
		printf '{"traceEvents":[{"ph":"X","ts":1,"dur":2,"pid":1,"tid":1,"name":"a","args":{"a":'
		head -c 10000 /dev/zero | tr '\0' '['
		head -c 10000 /dev/zero | tr '\0' ']'
		printf '}}]}'
	} >"$T/deep.json"
	judge ltparse 1 "$T/deep.json"
	judge ltcheck 1 "$T/deep.json"
	judge litracer 1 "$T/deep.json"
}

@test "odd pids, tids, timestamps and durations: written so that Perfetto takes them" {
	printf '#lt1\n5\tX\t-0\t-9223372036854775808\t-3\tc\tn\t{}\t{}\n9223372036854775.807\ti\t"p 1"\t9223372036854775807\t-\tc\tn\t{}\t{}\n0\tB\t4294967296\t-1\t-\tc\tn\t{}\t{}\n' >"$T/odd"
	judge_lt1 0 "$T/odd"
	judge ltcheck 01 "$T/odd"
	# the most negative time cannot be kept by any whole-us offset
	printf '#lt1\n5\ti\t1\t1\t-\tc\tn\t{}\t{}\n-9223372036854775.808\ti\t1\t1\t-\tc\tn\t{}\t{}\n' >"$T/min"
	judge ltjson 1 "$T/min"
	run -1 ltjson "$T/min"
	nomatch '"ts":-' <(printf '%s\n' "$output")
	printf '{"traceEvents":[{"ph":"X","ts":-1e300,"dur":-2,"pid":-5,"tid":1.5,"name":"a"},{"ph":"X","ts":1,"dur":2,"pid":"p","tid":18446744073709551616,"name":"b"}]}' >"$T/odd.json"
	judge ltparse 0 "$T/odd.json"
	judge litracer 0 "$T/odd.json"
}

@test "duplicate keys: the last one, as Perfetto reads it, or the column" {
	printf '{"traceEvents":[{"ph":"X","ph":"B","ts":1,"dur":2,"pid":1,"tid":1,"tid":2,"name":"a"}]}' >"$T/dup.json"
	judge ltparse 0 "$T/dup.json"
	judge litracer 0 "$T/dup.json"
	run -0 ltparse -v "$T/dup.json"
	[[ $output == *"	dupkeys=2	"* ]]
	printf '#lt1\n5\tX\t9\t2\t1\tc\tn\t{}\t{"ts":7,"ph":"B","pid":8}\n' >"$T/dup"
	judge_lt1 0 "$T/dup"
	judge ltcheck 0 "$T/dup"
	run -0 ltjson "$T/dup"
	[[ $output == *'"dupkeys":3'* ]]
}

@test "wrong columns: 8 and 10 are refused with the count" {
	printf '#lt1\n5\ti\t1\t1\t-\tc\tn\t{}\n' >"$T/c8"
	printf '#lt1\n5\ti\t1\t1\t-\tc\tn\t{}\t{}\tx\n' >"$T/c10"
	judge_lt1 1 "$T/c8"
	judge_lt1 1 "$T/c10"
	judge ltcheck 1 "$T/c8"
	run -1 --separate-stderr ltlanefix "$T/c8"
	[ "$stderr" = "ltlanefix: $T/c8:2: expected 9 columns, found 8" ]
	run -1 --separate-stderr ltjson "$T/c10"
	[ "$stderr" = "ltjson: $T/c10:2: expected 9 columns, found more" ]
}

@test "a missing header: refused, the line named" {
	printf '5\ti\t1\t1\t-\tc\tn\t{}\t{}\n' >"$T/nohdr"
	judge_lt1 1 "$T/nohdr"
	judge ltcheck 1 "$T/nohdr"
	run -1 --separate-stderr ltpair "$T/nohdr"
	[ "$stderr" = "ltpair: $T/nohdr:1: not an lt1 stream: missing #lt1 header (a log or a trace is read by ltparse, or converted by litracer)" ]
}

@test "diagnostics show the control characters they quote, escaped" {
	printf '#lt1\r\n' >"$T/crlf"
	for p in $LT1; do
		run -1 --separate-stderr "$p" "$T/crlf"
		[ "$stderr" = "$p: $T/crlf:1: unsupported stream version \"#lt1\\r\"" ] ||
		    { echo "$p: $stderr"; false; }
	done
	printf '#lt1\n#stat\tx\tli\001nes\n' >"$T/ctl"
	run -1 --separate-stderr ltjson "$T/ctl"
	[ "$stderr" = "ltjson: $T/ctl:2: #stat field \"li\\x01nes\" is not key=value" ]
	# and in a file name
	run -2 --separate-stderr ltjson "$T/a$(printf '\033')b"
	[ "$stderr" = "ltjson: $T/a\\x1bb: No such file or directory" ]
}
