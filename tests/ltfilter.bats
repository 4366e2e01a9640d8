#!/usr/bin/env bats
# ltfilter: tests, metadata following events, counters, errors.

bats_require_minimum_version 1.5.0
load helper

D=$DATA/ltfilter
RUN=$DATA/ltpair/litdata.lt1	# a LitData run as ltparse writes it
CHROME=$D/chrome.lt1		# Chrome-style: M records first
USAGE="usage: ltfilter [-v] [-c list] [-d dur] [-n list] [-p list] [-r list] [-T from,to] [-t from,to] [-w list] [file ...]"

# names OUT: column 1, 2 and 7 of the records of OUT, one per line.
kept() {
	records "$1" | cut -f 1,2,7
}

@test "ltfilter: -h prints the usage and options, and the man page agrees" {
	run -0 ltfilter -h
	[ "${lines[0]}" = "$USAGE" ]
	[[ $output == *"--cat LIST"* ]]
	need mandoc
	[ "usage: $(synopsis ltfilter)" = "${lines[0]}" ]
}

@test "ltfilter: --cat read keeps exactly the reads and the names of their thread and process" {
	ltparse "$DATA/ltpair/litdata.log" | ltfilter --cat read > "$BATS_TEST_TMPDIR/out"
	f=$BATS_TEST_TMPDIR/out
	# The events: every read B and E of the log, and nothing else.
	[ "$(records "$f" | awk -F '\t' '$2 != "M"' | cut -f 2,6,7,8 | cut -c 1-30)" = "$(printf '%s\n' \
	    'B	read	read	{"chunk":0,"size":' 'E	read	read	{"chunk":0,"size":' \
	    'B	read	read	{"chunk":1,"size":' 'E	read	read	{"chunk":1,"size":')" ]
	[ "$(grep -c 'name: read;' "$DATA/ltpair/litdata.log")" -eq 4 ]
	# The names: the reading thread (pid 101, tid 2) and its process.
	[ "$(records "$f" | awk -F '\t' '$2 == "M"' | cut -f 3,4,7)" = "$(printf '%s\n' \
	    '101	0	process_name' '101	0	process_sort_index' \
	    '101	2	thread_name' '101	2	thread_sort_index')" ]
	[ "$(stat_of ltfilter kept "$f")" = 4 ]
	[ "$(stat_of ltfilter dropped "$f")" = 33 ]
	[ "$(stat_of ltfilter meta_kept "$f")" = 4 ]
	[ "$(stat_of ltfilter meta_dropped "$f")" = 16 ]
	[ "$(stat_of ltparse events "$f")" = 37 ]
}

@test "ltfilter: the user's pipeline gives a valid trace, raw or paired" {
	ltparse "$DATA/ltpair/litdata.log" | ltfilter --cat read | ltjson > "$BATS_TEST_TMPDIR/t.json"
	json_ok "$BATS_TEST_TMPDIR/t.json"
	grep -q '"name":"read"' "$BATS_TEST_TMPDIR/t.json"
	ltparse "$DATA/ltpair/litdata.log" | ltpair | ltfilter --cat read > "$BATS_TEST_TMPDIR/out"
	[ "$(kept "$BATS_TEST_TMPDIR/out" | grep -c '	X	read')" -eq 2 ]
	[ "$(stat_of ltfilter kept "$BATS_TEST_TMPDIR/out")" = 2 ]
}

@test "ltfilter: golden: categories, names, inverted" {
	golden "$D/cat-download-read.out" ltfilter -c download,read "$RUN"
	golden "$D/not-name-d.out" ltfilter -v -n 'd*' "$RUN"
}

@test "ltfilter: golden: rank, worker and pid" {
	golden "$D/rank1.out" ltfilter --rank 1 "$RUN"
	golden "$D/pid101-worker0.out" ltfilter -w 0 -p 100-101 -p 7 "$RUN"
}

@test "ltfilter: golden: after ltpair, a relative window and a minimum duration" {
	ltpair "$RUN" > "$BATS_TEST_TMPDIR/paired"
	golden "$D/paired-window.out" ltfilter -T 100,200 "$BATS_TEST_TMPDIR/paired"
	golden "$D/paired-mindur.out" ltfilter -d 100 "$BATS_TEST_TMPDIR/paired"
}

@test "ltfilter: golden: M records before their events wait for a kept event" {
	golden "$D/chrome-blink.out" ltfilter -c blink "$CHROME"
	golden "$D/chrome-not-blink.out" ltfilter -v -c blink "$CHROME"
}

@test "ltfilter: a kept event always follows the names of its process and thread" {
	for opts in "-c blink" "-c gpu" "-n GC" "-v -n Paint" "-p gpu" "-t 25,"; do
		# shellcheck disable=SC2086
		ltfilter $opts "$CHROME" > "$BATS_TEST_TMPDIR/out"
		records "$BATS_TEST_TMPDIR/out" | awk -F '\t' -v opts="$opts" '
			$2 == "M" && $7 ~ /^process_/ { p[$3] = 1; next }
			$2 == "M" { t[$3 "/" $4] = 1; next }
			!p[$3] || !t[$3 "/" $4] { print opts ": no names before " $0; bad = 1 }
			END { exit bad }'
	done
	# Thread 1/8 has no kept event: neither of its M records remains.
	run -0 ltfilter -c blink "$CHROME"
	[[ $output != *'"idle"'* ]]
	[[ $output != *'"sort_index":2'* ]]
	[[ $output != *'"no events"'* ]]
}

@test "ltfilter: a thread holds its M records, however many, in order, until a kept event or the end" {
	t=$BATS_TEST_TMPDIR/held.lt1
	# thread 5/1: 60 names (past 1 KiB held), then a read, kept; 5/2:
	# 3 names and a step, not kept; process 5 named once, then 5/1's
	# names after its read go at once
	{
		printf '#lt1\n'
		printf -- '-\tM\t5\t0\t-\t\tprocess_name\t{"name":"worker five"}\t{}\n'
		for i in $(seq 1 60); do
			printf -- '-\tM\t5\t1\t-\t\tthread_name\t{"name":"reader number %03d"}\t{}\n' "$i"
			[ "$i" -gt 3 ] || printf -- '-\tM\t5\t2\t-\t\tthread_name\t{"name":"other %d"}\t{}\n' "$i"
		done
		printf '100\tX\t5\t2\t10\tstep\tstep\t{}\t{}\n'
		printf '200\tX\t5\t1\t10\tread\tread\t{"chunk":1}\t{}\n'
		printf -- '-\tM\t5\t1\t-\t\tthread_sort_index\t{"sort_index":4}\t{}\n'
	} > "$t"
	ltfilter --cat read "$t" > "$t.out"
	records "$t.out" | cut -f 2-4,7,8 > "$t.got"
	{
		printf 'M\t5\t0\tprocess_name\t{"name":"worker five"}\n'
		for i in $(seq 1 60); do
			printf 'M\t5\t1\tthread_name\t{"name":"reader number %03d"}\n' "$i"
		done
		printf 'X\t5\t1\tread\t{"chunk":1}\n'
		printf 'M\t5\t1\tthread_sort_index\t{"sort_index":4}\n'
	} | diff - "$t.got"
	[ "$(stat_of ltfilter meta_kept "$t.out")" = 62 ]
	[ "$(stat_of ltfilter meta_dropped "$t.out")" = 3 ]
}

@test "ltfilter: categories: lists, repeats, globs, Chrome's comma-joined categories" {
	run -0 ltfilter -c gpu -c devtools.timeline "$CHROME"
	[ "$(kept <(echo "$output") | grep -v '	M	' | cut -f 3)" = "$(printf 'Layout\nSwap')" ]
	run -0 ltfilter -c 'd*' "$CHROME"
	[ "$(kept <(echo "$output") | grep -v '	M	' | cut -f 3)" = "$(printf 'Layout\nGC')" ]
	run -0 ltfilter -c read,, "$RUN"
	[ "$(records <(echo "$output") | grep -cv '	M	')" -eq 4 ]
}

@test "ltfilter: names are matched decoded, exactly or as globs" {
	run -0 ltfilter -n 'Pa"int' "$CHROME"
	[ "$(kept <(echo "$output") | grep -v '	M	' | cut -f 1)" = 40 ]
	run -0 ltfilter -n 'Pa?int,Swap' "$CHROME"
	[ "$(kept <(echo "$output") | grep -v '	M	' | cut -f 1)" = "$(printf '12\n40')" ]
	run -0 ltfilter -n 'Pa[a-z]nt' "$CHROME"
	[ "$(kept <(echo "$output") | grep -v '	M	' | cut -f 1)" = 30 ]
}

@test "ltfilter: pids: integers, ranges, string pids" {
	lt "$BATS_TEST_TMPDIR/in" <<-'EOF'
	1|i|-5|1|-|c|a|{}|{}
	2|i|3|1|-|c|b|{}|{}
	3|i|9|1|-|c|c|{}|{}
	4|i|"io 9"|1|-|c|d|{}|{}
	5|i|-|1|-|c|e|{}|{}
	EOF
	run -0 ltfilter -p -6--4,3-9 "$BATS_TEST_TMPDIR/in"
	[ "$(kept <(echo "$output") | cut -f 3 | tr -d '\n')" = abc ]
	run -0 ltfilter -p 'io 9' "$BATS_TEST_TMPDIR/in"
	[ "$(kept <(echo "$output") | cut -f 3 | tr -d '\n')" = d ]
	run -0 ltfilter -v -p 3 "$BATS_TEST_TMPDIR/in"
	[ "$(kept <(echo "$output") | cut -f 3 | tr -d '\n')" = acde ]
}

@test "ltfilter: rank and worker come from the event's own args" {
	lt "$BATS_TEST_TMPDIR/in" <<-'EOF'
	1|i|1|1|-|c|a|{"dist_global_rank":0,"worker_rank":1}|{}
	2|i|1|1|-|c|b|{"dist_global_rank":1,"worker_rank":1}|{}
	3|i|1|1|-|c|c|{"dist_global_rank":"1","worker_rank":0}|{}
	4|i|1|1|-|c|d|{"worker_rank":1}|{}
	5|i|1|1|-|c|e|{"dist_global_rank":1.0}|{}
	6|i|1|1|-|c|f|{"x":{"dist_global_rank":1}}|{}
	EOF
	run -0 ltfilter -r 1 "$BATS_TEST_TMPDIR/in"
	[ "$(kept <(echo "$output") | cut -f 3 | tr -d '\n')" = bc ]
	run -0 ltfilter -r 0-1 -w 1 "$BATS_TEST_TMPDIR/in"
	[ "$(kept <(echo "$output") | cut -f 3 | tr -d '\n')" = ab ]
	run -0 ltfilter -v -r 1 "$BATS_TEST_TMPDIR/in"
	[ "$(kept <(echo "$output") | cut -f 3 | tr -d '\n')" = adef ]
}

@test "ltfilter: time windows: overlap, bounds, units, relative base" {
	lt "$BATS_TEST_TMPDIR/in" <<-'EOF'
	-|M|1|0|-||process_name|{"name":"p"}|{}
	1000|i|1|1|-|c|first|{}|{}
	1500|X|1|1|600|c|overlaps|{}|{}
	1999.999|i|1|1|-|c|last-in|{}|{}
	2000|i|1|1|-|c|at-end|{}|{}
	1100|X|1|1|0|c|zero|{}|{}
	1000|X|1|1|100|c|ends-at-from|{}|{}
	-|i|1|1|-|c|no-ts|{}|{}
	EOF
	t() {
		ltfilter "$@" "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/out"
		kept "$BATS_TEST_TMPDIR/out" | awk -F '\t' '$2 != "M" { printf "%s ", $3 }'
	}
	[ "$(t -t 1100,2000)" = "overlaps last-in zero " ]
	[ "$(t -t 2000,)" = "overlaps at-end " ]
	[ "$(t -t 2100,)" = "" ]
	[ "$(t -t ,1000.001)" = "first ends-at-from " ]
	[ "$(t -t 1.1ms,2ms)" = "overlaps last-in zero " ]
	[ "$(t -t 0.0011s,2000000ns)" = "overlaps last-in zero " ]
	# Relative to the first event with a ts: 1000 here, although
	# "first" is dropped by -n.
	[ "$(t -T 100,1000 -n 'z*,o*')" = "overlaps zero " ]
	[ "$(t -v -t 1100,2000)" = "first at-end ends-at-from no-ts " ]
}

@test "ltfilter: -d keeps long spans and every record without a duration" {
	lt "$BATS_TEST_TMPDIR/in" <<-'EOF'
	1|X|1|1|999.999|c|short|{}|{}
	2|X|1|1|1000|c|long|{}|{}
	3|B|1|1|-|c|begin|{}|{}
	4|i|1|1|-|crash|crash|{}|{}
	EOF
	run -0 ltfilter -d 1ms "$BATS_TEST_TMPDIR/in"
	[ "$(kept <(echo "$output") | cut -f 3 | tr -d '\n')" = longbegincrash ]
	run -0 ltfilter --invert --min-dur 1000 "$BATS_TEST_TMPDIR/in"
	[ "$(kept <(echo "$output") | cut -f 3 | tr -d '\n')" = short ]
}

@test "ltfilter: no test keeps every event and every directive in order" {
	run -0 ltfilter "$RUN"
	diff <(sed 1d "$RUN") <(printf '%s\n' "${lines[@]}" | sed '1d;$d')
	[ "${lines[-1]}" = "$(printf '#stat\tltfilter\tkept=37\tdropped=0\tmeta_kept=20\tmeta_dropped=0')" ]
}

@test "ltfilter: operands are read as one stream" {
	run -0 sh -c 'ltfilter -c blink "$1" - < "$1"' sh "$CHROME"
	[ "$(echo "$output" | grep -c '	Layout	')" -eq 2 ]
	# The second copy's M records of a kept process pass at once.
	[ "$(echo "$output" | grep -c 'process_name')" -eq 2 ]
	[[ ${lines[-1]} == *"kept=6	dropped=4	meta_kept=8	meta_dropped=10" ]]
}

# badopt MESSAGE ARGS...: exit 2 with MESSAGE, nothing on stdout.
badopt() {
	local want=$1
	shift
	run -2 --separate-stderr ltfilter "$@" "$RUN"
	[ "$stderr" = "$want" ] || { echo "got: $stderr"; false; }
	[ -z "$output" ]
}

@test "ltfilter: bad options exit 2" {
	run -2 --separate-stderr ltfilter -x
	[ "$stderr" = "$(printf '%s\n' "ltfilter: invalid option -- 'x'" "$USAGE")" ]
	run -2 --separate-stderr ltfilter --cat
	[ "${stderr_lines[1]}" = "$USAGE" ]
	badopt "ltfilter: -r x: invalid" -r x
	badopt "ltfilter: -r 3-1: empty range" -r 3-1
	badopt "ltfilter: -w 1-: invalid" -w 1-
	badopt "ltfilter: -w 99999999999999999999: too large" -w 99999999999999999999
	badopt "ltfilter: -p 1--: invalid" -p 1--
	badopt "ltfilter: -p 5-1: empty range" -p 5-1
	badopt "ltfilter: -t 5: expected from,to" -t 5
	badopt "ltfilter: -t 1,2,3: expected from,to" -t 1,2,3
	badopt "ltfilter: -t 1h,2: 1h: not a time" -t 1h,2
	badopt "ltfilter: -T 1,1e: 1e: not a time" -T 1,1e
	badopt "ltfilter: -T 5,5: empty window" -T 5,5
	badopt "ltfilter: -d -1: bad duration" -d -1
	badopt "ltfilter: -d ms: bad duration" -d ms
	run -2 --separate-stderr ltfilter "$BATS_TEST_TMPDIR/nosuch"
	[ "$stderr" = "ltfilter: $BATS_TEST_TMPDIR/nosuch: No such file or directory" ]
	run -2 --separate-stderr sh -c 'ltfilter "$1" > /dev/full' sh "$RUN"
	[ "$stderr" = "ltfilter: write error: <stdout>: No space left on device" ]
}

@test "ltfilter: bad streams exit 1 with FILE:LINE" {
	bad ltfilter '' '1: empty input, not an lt1 stream'
	bad ltfilter 'ts:1;PID:1; TID:2; name: a;ph: B;\n' '1: not an lt1 stream: missing #lt1 header (a log or a trace is read by ltparse, or converted by litracer)'
	bad ltfilter '#lt1\n1\ti\t1\t1\t-\tc\n' '2: expected 9 columns, found 6'
	bad ltfilter '#lt1\n1.5.5\ti\t1\t1\t-\tc\tn\t{}\t{}\n' '2: column ts: not microseconds (-?D+ with at most 3 decimals) or -' -t 0,
	bad ltfilter '#lt1\n1\ti\t1\t1\t-\tc\tn\t{}\t{}\nx\ti\t1\t1\t-\tc\tn\t{}\t{}\n' '3: column ts: not microseconds (-?D+ with at most 3 decimals) or -' -T 0,
	bad ltfilter '#lt1\n1\tX\t1\t1\t1e3\tc\tn\t{}\t{}\n' '2: column dur: not microseconds (-?D+ with at most 3 decimals) or -' -d 1
	bad ltfilter '#lt1\n1\ti\t1\t1\t-\tc\tn\t{"worker_rank":1,}\t{}\n' "2: column args: expected a string key" -w 1
	bad ltfilter '#lt1\n1\ti\t1\t1\t-\tc\tn\tnull\t{}\n' "2: column args: not a JSON object" -r 1
	# Columns no test reads are not checked.
	printf '#lt1\nx\ti\t1\t1\t-\tc\tn\tnull\t{}\n' | ltfilter -c c > /dev/null
}

@test "ltfilter: every prefix of a fixture exits 0 or 1, never crashes" {
	prefixes 89 "$RUN" ltfilter -c read -r 0 -T 10,300 -d 1
}

@test "ltfilter: garbage and mutated streams never crash it" {
	garbage 60 ltfilter -n 'a*' -p 1
	mutants 60 "$CHROME" ltfilter -c 'b*' -n 'P*' -r 0 -w 0 -t 0,50 -d 0
	mutants 60 "$CHROME" ltfilter -v -p gpu,1
}

@test "-T counts from a #t0 directive that comes before any record" {
	printf '#lt1\n#t0\t100\n150\tX\t1\t1\t1\tc\ta\t{}\t{}\n105\tX\t1\t1\t1\tc\tb\t{}\t{}\n' >"$BATS_TEST_TMPDIR/s"
	run -0 ltfilter -T 0,10 "$BATS_TEST_TMPDIR/s"
	[ "$(grep -v '^#' <<<"$output" | cut -f 7)" = b ]
	[ "${lines[1]}" = "#t0	100" ]
	printf '#lt1\n#t0\tx\n' >"$BATS_TEST_TMPDIR/bad"
	run -1 --separate-stderr ltfilter -T 0,10 "$BATS_TEST_TMPDIR/bad"
	[ "$stderr" = "ltfilter: $BATS_TEST_TMPDIR/bad:2: #t0: not microseconds (-?D+ with at most 3 decimals)" ]
}

@test "-T after ltpair and ltlanefix still counts from the log's first event" {
	# the first event opens a span that ltpair writes only when it ends,
	# after the instant at 50 us: -T 60,200 must keep that span (0 to 100),
	# and would keep nothing if it counted from the instant
	printf '%s\n' \
	    'ts:1000000000.000000;PID:7; TID:70; name: a;ph: B;cat: read;' \
	    'ts:1000000000.000050;PID:7; TID:70; name: m;ph: i;cat: mark;' \
	    'ts:1000000000.000100;PID:7; TID:70; name: a;ph: E;cat: read;' \
	    >"$BATS_TEST_TMPDIR/l.log"
	ltparse "$BATS_TEST_TMPDIR/l.log" | ltpair | ltlanefix -q | ltfilter -T 60,200 >"$BATS_TEST_TMPDIR/out"
	[ "$(grep -v '^[#-]' "$BATS_TEST_TMPDIR/out" | cut -f 2,7)" = "X	a" ]
}

@test "-n and -c match the characters a JSON escape stands for" {
	printf '#lt1\n1\ti\t1\t1\t-\tc\\u00e9\tcaf\\u00e9 \\ud83d\\ude00\t{}\t{}\n2\ti\t1\t1\t-\tc\tnul\\u0000\\t\t{}\t{}\n3\ti\t1\t1\t-\tc\tbad\\u12zz\\u\t{}\t{}\n' >"$BATS_TEST_TMPDIR/u.lt"
	run -0 ltfilter -n 'café 😀' "$BATS_TEST_TMPDIR/u.lt"
	[ "$(records /dev/stdin <<<"$output" | cut -f 1)" = 1 ]
	run -0 ltfilter -c 'cé' "$BATS_TEST_TMPDIR/u.lt"
	[ "$(records /dev/stdin <<<"$output" | cut -f 1)" = 1 ]
	# U+0000 stands as U+FFFD, as everywhere; a raw TAB is a TAB
	run -0 ltfilter -n "nul�	" "$BATS_TEST_TMPDIR/u.lt"
	[ "$(records /dev/stdin <<<"$output" | cut -f 1)" = 2 ]
	# an escape that is not one is matched as written
	run -0 ltfilter -n 'bad\\u12zz\\u' "$BATS_TEST_TMPDIR/u.lt"
	[ "$(records /dev/stdin <<<"$output" | cut -f 1)" = 3 ]
}

@test "ltfilter: windows near the ends of int64 time: no overflow, the right events kept" {
	# a first event 1 ms short of the int64 limit: -T 1s,2s cannot be met,
	# and -T 0,1ms keeps what lies in the first millisecond
	lt "$BATS_TEST_TMPDIR/s" <<'X'
9223372036853775.807|i|1|1|-|c|a|{}|{}
9223372036854775.5|i|1|1|-|c|b|{}|{}
X
	run -0 ltfilter -T 1s,2s "$BATS_TEST_TMPDIR/s"
	[ -z "$(records <(printf '%s\n' "$output"))" ]
	run -0 ltfilter -T 0,1ms "$BATS_TEST_TMPDIR/s"
	[ "$(kept <(printf '%s\n' "$output") | cut -f 3 | tr '\n' ' ')" = "a b " ]
	# a window far beyond the first event keeps everything before it
	lt "$BATS_TEST_TMPDIR/e" <<'X'
1795940303867556.25|i|1|1|-|c|a|{}|{}
1795940313867556|i|1|1|-|c|b|{}|{}
X
	run -0 ltfilter -T ,8000000000s "$BATS_TEST_TMPDIR/e"
	[ "$(kept <(printf '%s\n' "$output") | cut -f 3 | tr '\n' ' ')" = "a b " ]
	run -0 ltfilter -T 5s, "$BATS_TEST_TMPDIR/e"
	[ "$(kept <(printf '%s\n' "$output") | cut -f 3 | tr '\n' ' ')" = "b " ]
	# an event at the most negative time, a window counted from it
	lt "$BATS_TEST_TMPDIR/n" <<'X'
-9223372036854775.808|i|1|1|-|c|a|{}|{}
9223372036854775.807|i|1|1|-|c|b|{}|{}
X
	run -0 ltfilter -T 1s, "$BATS_TEST_TMPDIR/n"
	[ "$(kept <(printf '%s\n' "$output") | cut -f 3 | tr '\n' ' ')" = "b " ]
}

@test "ltfilter: a time bound beyond int64 nanoseconds is a clear error" {
	badopt "ltfilter: -T ,9300000000s: 9300000000s: out of range (about 292 years at most)" -T ,9300000000s
	badopt "ltfilter: -t -9300000000s,: -9300000000s: out of range (about 292 years at most)" -t -9300000000s,
}

@test "ltfilter: --help exits 0 and shows every long option" {
	run -0 --separate-stderr ltfilter --help
	for o in --cat --min-dur --name --pid --rank --rel-time --time --worker --invert --help; do
		[[ "$output" == *"$o"* ]] || { echo "missing $o"; false; }
	done
}
