#!/usr/bin/env bats
# ltpair: B/E matching into X, unmatched events, counters, errors.

bats_require_minimum_version 1.5.0
load helper

D=$DATA/ltpair

@test "ltpair: -h prints the usage and options, and the man page agrees" {
	run -0 ltpair -h
	[ "${lines[0]}" = "usage: ltpair [-k] [-m keys] [file ...]" ]
	[[ $output == *"--no-complete"* ]]
	[[ $output == *"--match"* ]]
	need mandoc
	[ "usage: $(synopsis ltpair)" = "${lines[0]}" ]
}

@test "ltpair: golden: a LitData run (crossing spans, crash, break, lost line)" {
	golden "$D/litdata.out" ltpair "$D/litdata.lt1"
}

@test "ltpair: golden: -k keeps B and E, closes what stays open" {
	golden "$D/litdata-k.out" ltpair -k "$D/litdata.lt1"
}

@test "ltpair: golden: Chrome-style stream (bare E, merges, string ids, other phases)" {
	golden "$D/chrome.out" ltpair "$D/chrome.lt1"
}

@test "ltpair: golden: Chrome-style stream with -k" {
	golden "$D/chrome-k.out" ltpair -k "$D/chrome.lt1"
}

@test "ltpair: counts of a LitData log through ltparse" {
	ltparse "$D/litdata.log" | ltpair > "$BATS_TEST_TMPDIR/out"
	f=$BATS_TEST_TMPDIR/out
	[ "$(stat_of ltpair B "$f")" = 20 ]
	[ "$(stat_of ltpair E "$f")" = 16 ]
	[ "$(stat_of ltpair pairs "$f")" = 15 ]
	[ "$(stat_of ltpair X "$f")" = 15 ]
	[ "$(stat_of ltpair I "$f")" = 1 ]
	[ "$(stat_of ltpair unmatched_B "$f")" = 5 ]
	[ "$(stat_of ltpair unmatched_E "$f")" = 1 ]
	[ "$(stat_of ltpair crashes "$f")" = 1 ]
	# No B or E is left for Perfetto to swallow or drop.
	[ "$(records "$f" | awk -F '\t' '$2 == "B" || $2 == "E"' | wc -l)" -eq 0 ]
	# Nothing is lost: every event of the log is in an output record.
	[ "$(records "$f" | grep -vc '	M	')" -eq $((15 + 1 + 5 + 1)) ]
}

# truth FORMAT: ltpair's counts on genlog logs of FORMAT (plain, crash,
# break, persistent workers, several nodes; three seeds) equal the
# generator's truth, pair by pair per category, and no X joins a B and an
# E of different chunks, indexes, batches or epochs.  One awk checks a
# log's output against its truth.
truth() {
	local f=$1 opt seed t=$BATS_TEST_TMPDIR
	for opt in "" "-c" "-b" "-c -b -p" "-N 2 -r 3 -c -b" "-w 0 -b"; do
		for seed in 1 2 3; do
			# shellcheck disable=SC2086
			genlog -f "$f" $opt -s "$seed" -n 20000 -t "$t/truth" > "$t/log"
			ltparse "$t/log" > "$t/raw"
			# v1 names its decompress B and E differently; ltparse
			# must make them one name before anything can pair them.
			nomatch '	Decompress' "$t/raw"
			ltpair "$t/raw" > "$t/out"
			awk -F '\t' -v what="-f $f $opt -s $seed" '
			function fail(m) { print what ": " m; bad = 1 }
			FNR == NR {
				i = index($0, "=")
				truth[substr($0, 1, i - 1)] = substr($0, i + 1)
				next
			}
			$1 == "#stat" && $2 == "ltpair" {
				delete got
				for (i = 3; i <= NF; i++) {
					split($i, kv, "=")
					got[kv[1]] = kv[2]
				}
			}
			/"E\.(chunk|index|batch|epoch)"/ { fail("joins two spans: " $0) }
			# Per category: ltparse gives every LitData span one.
			!/^#/ && $2 == "X" && $8 !~ /"ltpair":"unmatched_B"/ { n[$6]++ }
			END {
				split("B E I pairs unmatched_B unmatched_E crashes", k, " ")
				for (i = 1; i in k; i++)
					if (!(k[i] in got) || got[k[i]] != truth[k[i]])
						fail(k[i] "=" got[k[i]] ", truth " truth[k[i]])
				if (!("X" in got) || got["X"] != got["pairs"])
					fail("X=" got["X"] ", pairs=" got["pairs"])
				for (c in truth)
					if (c ~ /^pairs_[a-z]*$/ && truth[c] ~ /^[1-9][0-9]*$/)
						want[substr(c, 7)] = truth[c]
				for (c in n)
					if (!(c in want) || n[c] != want[c])
						fail("category \"" c "\": " n[c] " X, truth " want[c])
				for (c in want)
					if (!(c in n))
						fail("category " c ": no X, truth " want[c])
				exit bad
			}' "$t/truth" "$t/out"
		done
	done
}

@test "ltpair: genlog's truth: new format" {
	truth new
}

@test "ltpair: genlog's truth: old format (0.2.57-0.2.67)" {
	truth old
}

@test "ltpair: genlog's truth: v1 format (0.2.45-0.2.56)" {
	truth v1
}

@test "ltpair: genlog's truth: mixed (v1, old, new appended)" {
	truth mixed
}

@test "ltpair: a read that begins before a sample and ends inside the next one" {
	lt "$BATS_TEST_TMPDIR/in" <<-'EOF'
	160|B|101|2|-|sample|sample|{"chunk":0,"index":0}|{}
	161|B|101|2|-|read|read|{"chunk":0,"size":2}|{}
	170|E|101|2|-|sample|sample|{"chunk":0,"index":0}|{}
	181|B|101|2|-|sample|sample|{"chunk":1,"index":2}|{}
	182|E|101|2|-|read|read|{"chunk":0,"size":2}|{}
	183|B|101|2|-|read|read|{"chunk":1,"size":2}|{}
	190|E|101|2|-|sample|sample|{"chunk":1,"index":2}|{}
	205|E|101|2|-|read|read|{"chunk":1,"size":2}|{}
	EOF
	run -0 ltpair "$BATS_TEST_TMPDIR/in"
	[ "${lines[1]}" = "$(printf '160\tX\t101\t2\t10\tsample\tsample\t{"chunk":0,"index":0}\t{}')" ]
	[ "${lines[2]}" = "$(printf '161\tX\t101\t2\t21\tread\tread\t{"chunk":0,"size":2}\t{}')" ]
	[ "${lines[3]}" = "$(printf '181\tX\t101\t2\t9\tsample\tsample\t{"chunk":1,"index":2}\t{}')" ]
	[ "${lines[4]}" = "$(printf '183\tX\t101\t2\t22\tread\tread\t{"chunk":1,"size":2}\t{}')" ]
	[ "${#lines[@]}" -eq 6 ]
}

@test "ltpair: old prefetch spans overlap and close first-in-first-out" {
	lt "$BATS_TEST_TMPDIR/in" <<-'EOF'
	10|B|5|1|-|download|prefetch|{"chunk":12}|{}
	11|B|5|1|-|download|prefetch|{"chunk":13}|{}
	12|B|5|1|-|download|prefetch|{"chunk":14}|{}
	20|E|5|1|-|download|prefetch|{"chunk":12}|{}
	31|E|5|1|-|download|prefetch|{"chunk":13}|{}
	42|E|5|1|-|download|prefetch|{"chunk":14}|{}
	EOF
	run -0 ltpair "$BATS_TEST_TMPDIR/in"
	[ "$(printf '%s\n' "${lines[@]}" | cut -f 1,5,8 | sed -n 2,4p)" = "$(printf '10\t10\t{"chunk":12}\n11\t20\t{"chunk":13}\n12\t30\t{"chunk":14}')" ]
	# Without identifying keys the most recent B is taken (LIFO).
	run -0 ltpair -m '' "$BATS_TEST_TMPDIR/in"
	[ "$(printf '%s\n' "${lines[@]}" | cut -f 1,5 | sed -n 2,4p)" = "$(printf '12\t8\n11\t20\n10\t32')" ]
}

@test "ltpair: -m chooses the identifying keys" {
	lt "$BATS_TEST_TMPDIR/in" <<-'EOF'
	1|B|1|1|-|c|lock|{"file":"/a"}|{}
	2|B|1|1|-|c|lock|{"file":"/b"}|{}
	3|E|1|1|-|c|lock|{"file":"/a"}|{}
	4|E|1|1|-|c|lock|{"file":"/b"}|{}
	EOF
	run -0 ltpair "$BATS_TEST_TMPDIR/in"
	# file is not a default key: LIFO, and the E's file is kept aside.
	[[ ${lines[1]} == *'{"file":"/b","E.file":"/a"}'* ]]
	run -0 ltpair --match chunk,file "$BATS_TEST_TMPDIR/in"
	[ "$(printf '%s\n' "${lines[@]}" | cut -f 1,5,8 | sed -n 2,3p)" = "$(printf '1\t2\t{"file":"/a"}\n2\t2\t{"file":"/b"}')" ]
	# v1 locks (path) and lock operations (op) are default keys.
	sed 's/"file"/"path"/' "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/v1"
	run -0 ltpair "$BATS_TEST_TMPDIR/v1"
	[ "$(printf '%s\n' "${lines[@]}" | cut -f 1,5 | sed -n 2,3p)" = "$(printf '1\t2\n2\t2')" ]
}

@test "ltpair: random overlapping downloads: every pair is right, no X joins two chunks" {
	for seed in 1 2 3 4 5; do
		awk -v seed="$seed" -v want="$BATS_TEST_TMPDIR/want" '
		BEGIN {
			srand(seed)
			print "#lt1"
			for (t = 1; t <= 3000; t++) {
				th = int(rand() * 3) + 1
				n = nopen[th] + 0
				if (n == 0 || (n < 6 && rand() < 0.55)) {
					c = chunk++
					ids[th, n] = c
					nopen[th]++
					printf "%d\tB\t7\t%d\t-\tdownload\tdownload\t{\"chunk\":%d}\t{}\n", t, th, c
				} else {
					k = int(rand() * n)
					c = ids[th, k]
					ids[th, k] = ids[th, n - 1]
					nopen[th]--
					pairs++
					printf "%d\tE\t7\t%d\t-\tdownload\tdownload\t{\"chunk\":%d,\"e\":%d}\t{}\n", t, th, c, t
				}
			}
			print pairs, nopen[1] + nopen[2] + nopen[3] > want
		}' > "$BATS_TEST_TMPDIR/in"
		ltpair "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/out"
		read -r pairs open < "$BATS_TEST_TMPDIR/want"
		[ "$(stat_of ltpair X "$BATS_TEST_TMPDIR/out")" = "$pairs" ]
		[ "$(stat_of ltpair unmatched_B "$BATS_TEST_TMPDIR/out")" = "$open" ]
		[ "$(stat_of ltpair unmatched_E "$BATS_TEST_TMPDIR/out")" = 0 ]
		nomatch 'E\.chunk' "$BATS_TEST_TMPDIR/out"
		# dur is exactly E.ts - B.ts for every pair.
		records "$BATS_TEST_TMPDIR/out" | awk -F '\t' '
			$8 ~ /"e":/ {
				e = $8; sub(/.*"e":/, "", e); sub(/}.*/, "", e)
				if ($1 + $5 != e) { print "bad: " $0; bad = 1 }
			}
			END { exit bad }'
	done
}

@test "ltpair: dur is exact in nanoseconds at epoch magnitude" {
	lt "$BATS_TEST_TMPDIR/in" <<-'EOF'
	1795940303867556.25|B|1|1|-|c|a|{}|{}
	1795940303867557.001|E|1|1|-|c|a|{}|{}
	1795940303867557.001|B|1|1|-|c|b|{}|{}
	1795940304867557.999|E|1|1|-|c|b|{}|{}
	EOF
	run -0 ltpair "$BATS_TEST_TMPDIR/in"
	[ "$(printf '%s\n' "${lines[@]}" | cut -f 1,5 | sed -n 2,3p)" = "$(printf '1795940303867556.25\t0.751\n1795940303867557.001\t1000000.998')" ]
}

@test "ltpair: an E before its B (clock step) gives dur 0, marked" {
	lt "$BATS_TEST_TMPDIR/in" <<-'EOF'
	100|B|1|1|-|c|a|{"k":1}|{}
	87.5|E|1|1|-|c|a|{"k":1}|{}
	EOF
	run -0 ltpair "$BATS_TEST_TMPDIR/in"
	[ "${lines[1]}" = "$(printf '100\tX\t1\t1\t0\tc\ta\t{"k":1,"ltpair":"negative_dur","ltpair_dur":-12.5}\t{}')" ]
	[[ ${lines[2]} == *"	negative_dur=1	"* ]]
	run -0 ltpair -k "$BATS_TEST_TMPDIR/in"
	[ "${lines[2]}" = "$(printf '100\tE\t1\t1\t-\tc\ta\t{"k":1,"ltpair":"negative_dur","ltpair_dur":-12.5}\t{}')" ]
}

@test "ltpair: an unmatched B reaches the end of the last span of its thread" {
	lt "$BATS_TEST_TMPDIR/in" <<-'EOF'
	10|B|1|1|-|download|download|{"chunk":5}|{"cname":"rail_load"}
	20|X|1|1|30|download|prefetch|{}|{}
	40|i|1|1|-|crash|crash|{}|{}
	99|i|1|2|-|other|thread|{}|{}
	EOF
	run -0 ltpair "$BATS_TEST_TMPDIR/in"
	[ "${lines[4]}" = "$(printf '10\tX\t1\t1\t40\tdownload\tdownload\t{"chunk":5,"ltpair":"unmatched_B"}\t{"cname":"rail_load"}')" ]
	run -0 ltpair -k "$BATS_TEST_TMPDIR/in"
	[ "${lines[5]}" = "$(printf '50\tE\t1\t1\t-\tdownload\tdownload\t{"ltpair":"unmatched_B"}\t{}')" ]
}

@test "ltpair: an E without B becomes a marked instant in place" {
	lt "$BATS_TEST_TMPDIR/in" <<-'EOF'
	5|i|1|1|-|a|before|{}|{}
	7|E|1|1|-|download|download|{"chunk":9}|{"cname":"rail_load"}
	9|i|1|1|-|a|after|{}|{}
	EOF
	run -0 ltpair "$BATS_TEST_TMPDIR/in"
	[ "${lines[2]}" = "$(printf '7\ti\t1\t1\t-\tdownload\tdownload\t{"chunk":9,"ltpair":"unmatched_E"}\t{"cname":"rail_load"}')" ]
	[[ ${lines[3]} == *after* ]]
	[[ ${lines[4]} == *"	unmatched_E=1	"* ]]
}

@test "ltpair: E closes only a B of its own thread, name and category" {
	lt "$BATS_TEST_TMPDIR/in" <<-'EOF'
	1|B|1|1|-|a|n|{}|{}
	2|E|1|2|-|a|n|{}|{}
	3|E|2|1|-|a|n|{}|{}
	4|E|1|1|-|b|n|{}|{}
	5|E|1|1|-|a|m|{}|{}
	6|E|1|1|-||n|{}|{}
	EOF
	run -0 ltpair "$BATS_TEST_TMPDIR/in"
	[ "$(printf '%s\n' "${lines[@]}" | cut -f 1,2,5 | sed -n 2,6p)" = "$(printf '2\ti\t-\n3\ti\t-\n4\ti\t-\n5\ti\t-\n1\tX\t5')" ]
}

@test "ltpair: an E with its B's args: the X has them once, as a merge writes them" {
	lt "$BATS_TEST_TMPDIR/in" <<-'EOF'
	1|B|1|1|-|c|plain|{"chunk":3,"op":"rm","size":-7}|{}
	2|E|1|1|-|c|plain|{"chunk":3,"op":"rm","size":-7}|{}
	3|B|1|1|-|c|dup|{"a":1,"a":2}|{}
	4|E|1|1|-|c|dup|{"a":1,"a":2}|{}
	5|B|1|1|-|c|blank|{"a": 1 , "b":"x"}|{}
	6|E|1|1|-|c|blank|{"a": 1 , "b":"x"}|{}
	7|B|1|1|-|c|esc|{"p":"a\u0062"}|{}
	8|E|1|1|-|c|esc|{"p":"a\u0062"}|{}
	9|B|1|1|-|c|ids|{"chunk":1}|{}
	10|B|1|1|-|c|ids|{"chunk":2}|{}
	11|E|1|1|-|c|ids|{"chunk":1}|{}
	12|E|1|1|-|c|ids|{"chunk":2}|{}
	EOF
	run -0 ltpair "$BATS_TEST_TMPDIR/in"
	[ "$(printf '%s\n' "${lines[@]}" | sed -n '2,7p' | cut -f 1,5,7,8)" = "$(printf '%s\n' \
	    '1	1	plain	{"chunk":3,"op":"rm","size":-7}' \
	    '3	1	dup	{"a":1,"a":2}' \
	    '5	1	blank	{"a":1,"b":"x"}' \
	    '7	1	esc	{"p":"a\u0062"}' \
	    '9	2	ids	{"chunk":1}' \
	    '10	2	ids	{"chunk":2}')" ]
	# a bad args column of an E is found even when no B needs it
	lt "$BATS_TEST_TMPDIR/bad" <<-'EOF'
	1|B|1|1|-|c|n|{"a":1}|{}
	2|E|1|1|-|c|n|{"a":1|{}
	EOF
	run -1 --separate-stderr ltpair "$BATS_TEST_TMPDIR/bad"
	[ "$stderr" = "ltpair: $BATS_TEST_TMPDIR/bad:3: column args: unterminated object" ]
}

@test "ltpair: other phases and directives pass through unchanged, in order" {
	lt "$BATS_TEST_TMPDIR/in" <<-'EOF'
	#top|schemaVersion|1
	1|C|1|0|-||mem|{"rss":1}|{}
	2|s|1|1|-|f|flow|{}|{"id":"0x1"}
	#stat|ltparse|lines=9
	#lt1
	3|f|1|1|-|f|flow|{}|{"id":"0x1","bp":"e"}
	4|X|1|1|2|c|x|{}|{}
	-|M|1|0|-||process_name|{"name":"p"}|{}
	5|n|1|1|-|c|async|{}|{"id":1}
	EOF
	run -0 ltpair "$BATS_TEST_TMPDIR/in"
	diff <(sed 1d "$BATS_TEST_TMPDIR/in") <(printf '%s\n' "${lines[@]}" | sed '1d;$d')
	[[ ${lines[-1]} == "#stat	ltpair	records=6	"* ]]
}

@test "ltpair: operands are read as one stream, '-' is standard input" {
	lt "$BATS_TEST_TMPDIR/a" <<-'EOF'
	1|B|1|1|-|c|a|{}|{}
	EOF
	lt "$BATS_TEST_TMPDIR/b" <<-'EOF'
	3|E|1|1|-|c|a|{}|{}
	EOF
	run -0 sh -c 'ltpair "$1" - < "$2"' sh "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	[ "${lines[1]}" = "$(printf '1\tX\t1\t1\t2\tc\ta\t{}\t{}')" ]
}

@test "ltpair: memory holds open spans only" {
	awk 'BEGIN { print "#lt1"
		for (i = 0; i < 100000; i++) {
			printf "%d\tB\t1\t1\t-\tc\tn\t{\"chunk\":%d}\t{}\n", 2 * i, i
			printf "%d\tE\t1\t1\t-\tc\tn\t{\"chunk\":%d}\t{}\n", 2 * i + 1, i
		} }' > "$BATS_TEST_TMPDIR/in"
	ltpair "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/out"
	[ "$(stat_of ltpair open_max "$BATS_TEST_TMPDIR/out")" = 1 ]
	[ "$(stat_of ltpair X "$BATS_TEST_TMPDIR/out")" = 100000 ]
}

@test "ltpair: bad options and files exit 2" {
	run -2 --separate-stderr ltpair -x
	[ "$stderr" = "$(printf '%s\n' "ltpair: invalid option -- 'x'" "usage: ltpair [-k] [-m keys] [file ...]")" ]
	[ -z "$output" ]
	run -2 --separate-stderr ltpair --bogus
	[ "${stderr_lines[1]}" = "usage: ltpair [-k] [-m keys] [file ...]" ]
	run -2 --separate-stderr ltpair -m
	[ "${stderr_lines[1]}" = "usage: ltpair [-k] [-m keys] [file ...]" ]
	run -2 --separate-stderr ltpair "$BATS_TEST_TMPDIR/nosuch"
	[ "$stderr" = "ltpair: $BATS_TEST_TMPDIR/nosuch: No such file or directory" ]
	[ -z "$output" ]
	run -2 --separate-stderr sh -c 'ltpair "$1" > /dev/full' sh "$D/chrome.lt1"
	[ "$stderr" = "ltpair: write error: <stdout>: No space left on device" ]
}

@test "ltpair: bad streams exit 1 with FILE:LINE" {
	bad ltpair '' '1: empty input, not an lt1 stream'
	bad ltpair '1\tB\t1\t1\t-\tc\tn\t{}\t{}\n' '1: not an lt1 stream: missing #lt1 header (a log or a trace is read by ltparse, or converted by litracer)'
	bad ltpair '#lt2\n' '1: unsupported stream version "#lt2"'
	bad ltpair '#lt1\n1\tB\t1\t1\t-\tc\tn\t{}\n' '2: expected 9 columns, found 8'
	bad ltpair '#lt1\n1\tB\t1\t1\t-\tc\tn\t{}\t{}\t\n' '2: expected 9 columns, found more'
	bad ltpair '#lt1\n1\tBE\t1\t1\t-\tc\tn\t{}\t{}\n' '2: column ph: not a one-character phase'
	bad ltpair '#lt1\n1\t\t1\t1\t-\tc\tn\t{}\t{}\n' '2: column ph: not a one-character phase'
	bad ltpair '#lt1\n1e3\tB\t1\t1\t-\tc\tn\t{}\t{}\n' '2: column ts: not microseconds (-?D+ with at most 3 decimals) or -'
	bad ltpair '#lt1\n1\tB\t1\t1\t-\tc\tn\t{}\t{}\n1.0001\tE\t1\t1\t-\tc\tn\t{}\t{}\n' '3: column ts: not microseconds (-?D+ with at most 3 decimals) or -'
	bad ltpair '#lt1\n1\tB\t1\t1\t-\tc\tn\t[1]\t{}\n' '2: column args: not a JSON object'
	bad ltpair '#lt1\n1\tB\t1\t1\t-\tc\tn\t{"a":}\t{}\n' '2: column args: expected a value'
	bad ltpair '#lt1\n1\tE\t1\t1\t-\tc\tn\t{"a":1\t{}\n' '2: column args: unterminated object'
	bad ltpair '#lt1\n1\tE\t1\t1\t-\tc\tn\t{"a" 1}\t{}\n' "2: column args: expected ':' after key"
	bad ltpair '#lt1\n1\tE\t1\t1\t-\tc\tn\t{"a":1}x\t{}\n' '2: column args: text after the object'
	bad ltpair '#lt1\n1\tE\t1\t1\t-\tc\tn\t{a:1}\t{}\n' '2: column args: expected a string key'
	bad ltpair '#lt1\n-9223372036854775\tB\t1\t1\t-\tc\tn\t{}\t{}\n9223372036854775\tE\t1\t1\t-\tc\tn\t{}\t{}\n' '3: column ts: too far from the ts of its B'
}

@test "ltpair: every prefix of a fixture exits 0 or 1, never crashes" {
	prefixes 97 "$D/litdata.lt1" ltpair
	prefixes 97 "$D/litdata.lt1" ltpair -k
}

@test "ltpair: garbage and mutated streams never crash it" {
	garbage 60 ltpair
	mutants 60 "$D/chrome.lt1" ltpair
	mutants 60 "$D/chrome.lt1" ltpair -k -m ''
}

@test "ltpair: --help exits 0 and lists every long option" {
	run -0 --separate-stderr ltpair --help
	[ "${lines[0]}" = "usage: ltpair [-k] [-m keys] [file ...]" ]
	[ "$stderr" = "" ]
	for o in --no-complete --match --help; do
		[[ $output == *"$o"* ]] || { echo "no $o"; false; }
	done
}

# An E finds its B among many open ones: by name, category and the
# identifying args both have, the newest that fits, as with a few.
@test "ltpair: among 40 open spans, each E closes the newest that fits" {
	{
		for i in $(seq 0 39); do
			echo "$i|B|1|1|-|io|read|{\"chunk\":$i}|{}"
		done
		echo "40|B|1|1|-|io|read|{\"size\":1}|{}"
		echo "41|B|1|1|-|cpu|read|{\"chunk\":7}|{}"
		echo "50|E|1|1|-|io|read|{\"chunk\":5,\"n\":1}|{}"
		echo "51|E|1|1|-|io|read|{\"chunk\":7}|{}"
		echo "52|E|1|1|-|io|read|{\"chunk\":5}|{}"
		echo "53|E|1|1|-|io|read|{\"chunk\":99}|{}"
		echo "55|E|1|1|-|io|write|{\"chunk\":1}|{}"
		echo "56|E|1|1|-||read|{}|{}"
		echo "57|E|1|1|-|||{}|{}"
	} | lt "$BATS_TEST_TMPDIR/in"
	run -0 ltpair "$BATS_TEST_TMPDIR/in"
	# The span without a chunk fits any chunk, and is the newest; chunk
	# 7 closes the io one (the cpu one is of another category); chunk 5
	# then its own; chunk 99 and write find none.
	[ "${lines[1]}" = '40	X	1	1	10	io	read	{"size":1,"chunk":5,"n":1}	{}' ]
	[ "${lines[2]}" = '7	X	1	1	44	io	read	{"chunk":7}	{}' ]
	[ "${lines[3]}" = '5	X	1	1	47	io	read	{"chunk":5}	{}' ]
	[ "${lines[4]}" = '53	i	1	1	-	io	read	{"chunk":99,"ltpair":"unmatched_E"}	{}' ]
	[ "${lines[5]}" = '55	i	1	1	-	io	write	{"chunk":1,"ltpair":"unmatched_E"}	{}' ]
	# no category, no name: the newest span, cpu's chunk 7, then chunk 39
	[ "${lines[6]}" = '41	X	1	1	15	cpu	read	{"chunk":7}	{}' ]
	[ "${lines[7]}" = '39	X	1	1	18	io	read	{"chunk":39}	{}' ]
	[ "$(stat_of ltpair unmatched_B <(printf '%s\n' "$output"))" = 37 ]
}

@test "ltpair: under #valid (args split when needed), the same output as without" {
	# 40 open spans on a thread (indexed), Es of other args, and spans
	# left open; with and without -k and -m
	{
		for i in $(seq 0 39); do
			echo "$i|B|1|1|-|io|read|{\"chunk\":$i,\"x\":\"a\"}|{}"
		done
		echo "41|B|1|2|-|io|read|{\"chunk\":7}|{}"
		echo "42|E|1|2|-|io|read|{\"chunk\":7,\"n\":1}|{}"
		echo "50|E|1|1|-|io|read|{\"chunk\":5}|{}"
		echo "51|E|1|1|-|io|read|{\"chunk\":7,\"x\":\"a\"}|{}"
		echo "52|E|1|1|-|io|read|{\"chunk\":9,\"x\":\"b\"}|{}"
		echo "40|E|1|1|-|io|read|{\"chunk\":3,\"x\":\"a\"}|{}"
	} | lt "$BATS_TEST_TMPDIR/busy"
	for f in "$D/chrome.lt1" "$D/litdata.lt1" "$BATS_TEST_TMPDIR/busy"; do
		sed '1a #valid' "$f" >"$BATS_TEST_TMPDIR/c"
		for o in -mepoch,batch,chunk,index,op,path -k -mchunk --match=; do
			ltpair "$o" "$f" >"$BATS_TEST_TMPDIR/a"
			ltpair "$o" "$BATS_TEST_TMPDIR/c" | grep -vx '#valid' >"$BATS_TEST_TMPDIR/b"
			cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b" ||
			    { echo "$f, ltpair $o"; return 1; }
		done
	done
	# the 40 spans were indexed: more than 16 were open at once
	[ "$(stat_of ltpair open_max "$BATS_TEST_TMPDIR/b")" -ge 40 ]
}

# 200,000 open B, then as many E that close none (another name, or
# another chunk): each E must not look at every open B.  CPU seconds,
# not wall time, are limited: the machine's load does not matter, and
# looking at every open B takes tens of minutes.
@test "ltpair: 200,000 open B and 200,000 E that close none, in linear time" {
	for v in name args; do
		awk -v v=$v 'BEGIN { print "#lt1"
			for (i = 0; i < 200000; i++)
				printf "%d\tB\t1\t1\t-\tc\tread\t{\"chunk\":%d}\t{}\n", i, i
			for (i = 0; i < 200000; i++)
				printf "%d\tE\t1\t1\t-\tc\t%s\t{\"chunk\":%d}\t{}\n",
				    200000 + i, v == "name" ? "write" : "read", 200000 + i
		}' >"$BATS_TEST_TMPDIR/in"
		sh -c 'ulimit -t 60; ltpair "$1"' sh "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/out"
		[ "$(stat_of ltpair unmatched_E "$BATS_TEST_TMPDIR/out")" = 200000 ]
		[ "$(stat_of ltpair unmatched_B "$BATS_TEST_TMPDIR/out")" = 200000 ]
		[ "$(stat_of ltpair open_max "$BATS_TEST_TMPDIR/out")" = 200000 ]
	done
}

# told FILE: check what FILE's #open and #close say: every X of a thread
# begins at or after the latest NOW told for it, or is that of a span told
# of, right after its #close; prints the number of X checked.
told() {
	awk -F '\t' '
	function ns(s,   i, f) {
		i = index(s, ".")
		if (!i) return s * 1000
		f = substr(s, i + 1) "000"
		return substr(s, 1, i - 1) * 1000 + substr(f, 1, 3)
	}
	$1 == "#open" {
		now[$2 "\t" $3] = ns($4)
		for (i = 5; i <= NF; i++) open[$2 "\t" $3 "\t" $i]++
		closed = ""
		next
	}
	$1 == "#close" {
		k = $2 "\t" $3 "\t" $4
		if (open[k] < 1) { print "closed, not open: " $0; bad = 1 }
		open[k]--
		closed = k
		next
	}
	/^#/ { closed = ""; next }
	$2 == "X" {
		t = $3 "\t" $4
		if (closed != "" && closed != t "\t" $1) { print "not its X: " $0; bad = 1 }
		if (closed == "" && (t in now) && ns($1) < now[t]) {
			print "before " now[t] ": " $0; bad = 1
		}
		n++
	}
	{ closed = "" }
	END { print n + 0; exit bad }' "$1"
}

@test "ltpair: #open and #close tell truly what is open, for ltlanefix" {
	genlog -n 40000 -c -b -s 8 | ltparse >"$BATS_TEST_TMPDIR/in.lt"
	ltpair "$BATS_TEST_TMPDIR/in.lt" >"$BATS_TEST_TMPDIR/out.lt"
	[ "$(grep -c '^#open	' "$BATS_TEST_TMPDIR/out.lt")" -gt 100 ]
	[ "$(grep -c '^#close	' "$BATS_TEST_TMPDIR/out.lt")" -gt 100 ]
	run -0 told "$BATS_TEST_TMPDIR/out.lt"
	[ "$output" -eq "$(records "$BATS_TEST_TMPDIR/out.lt" | grep -c '	X	')" ]
	[ "$output" -gt 19000 ]
	# -k: none.
	ltpair -k "$BATS_TEST_TMPDIR/in.lt" | grep -c '^#open\|^#close' && false
	# An X in the input: nothing more is told from there on.
	{ head -20000 "$BATS_TEST_TMPDIR/in.lt"
	  printf '1\tX\t1\t1\t1\tc\tx\t{}\t{}\n'
	  tail -n +20001 "$BATS_TEST_TMPDIR/in.lt"; } >"$BATS_TEST_TMPDIR/x.lt"
	ltpair "$BATS_TEST_TMPDIR/x.lt" | awk '/^1\tX\t1\t1\t1\t/ { x = 1 } x && /^#open/ { bad = 1 } END { exit bad || !x }'
}

@test "ltpair: a thread with nothing open sleeps between rounds and wakes as it was: told again, at the latest time it reached" {
	local k f=$BATS_TEST_TMPDIR/in.lt fill=$'2100\tI\t9\t9\t-\tc\tf\t{}\t{}'
	# 1 1 (a short key) and a long key, each a span; 1 2 never has one.
	# After a round, a record of each, earlier than what it reached,
	# then another round.
	{ printf '#lt1\n'
	  for k in '1\t1' '1234567890123\t1234567890'; do
		printf "1000\tB\t$k\t-\tc\ta\t{}\t{}\n2000\tE\t$k\t-\tc\ta\t{}\t{}\n"
	  done
	  printf '1500\tI\t1\t2\t-\tc\ti\t{}\t{}\n'
	  yes "$fill" | head -n 5000
	  printf '1500\tI\t1\t1\t-\tc\ti\t{}\t{}\n'
	  printf '1600\tI\t1234567890123\t1234567890\t-\tc\ti\t{}\t{}\n'
	  yes "$fill" | head -n 5000
	} >"$f"
	ltpair "$f" >"$f.out"
	[ "$(grep '^#open' "$f.out" | tr '\t' ' ')" = "#open 1234567890123 1234567890 2000
#open 1 1 2000
#open 1234567890123 1234567890 2000
#open 1 1 2000" ]
	# the second round comes after the records that woke them
	[ "$(grep -n '^1500	I	1	1	' "$f.out" | cut -d: -f1)" -lt "$(grep -n '^#open	1	1' "$f.out" | tail -1 | cut -d: -f1)" ]
}

# A sleeper keeps its key as two integers: only keys written plainly
# below 2^32 sleep, so 01 is not 1, and the others stay awake.
@test "ltpair: threads asleep are told by their pid and tid as written: 1 1, 01 1, 2^32-1 and 2^32 each wake with their own time" {
	local k f=$BATS_TEST_TMPDIR/in.lt fill=$'2100\tI\t9\t9\t-\tc\tf\t{}\t{}'
	{ printf '#lt1\n'
	  for k in '1\t1:2000' '01\t1:3000' '4294967295\t4294967295:4000' \
	      '4294967296\t1:5000' '"1"\t1:6000'; do
		printf "1000\tB\t${k%%:*}\t-\tc\ta\t{}\t{}\n${k##*:}\tE\t${k%%:*}\t-\tc\ta\t{}\t{}\n"
	  done
	  yes "$fill" | head -n 5000
	  for k in '1\t1' '01\t1' '4294967295\t4294967295' '4294967296\t1' \
	      '"1"\t1'; do
		printf "1500\tI\t$k\t-\tc\ti\t{}\t{}\n"
	  done
	  yes "$fill" | head -n 5000
	} >"$f"
	ltpair "$f" >"$f.out"
	[ "$(grep '^#open' "$f.out" | tr '\t' ' ' | sort | uniq -c | tr -s ' ')" = ' 2 #open "1" 1 6000
 2 #open 01 1 3000
 2 #open 1 1 2000
 2 #open 4294967295 4294967295 4000
 2 #open 4294967296 1 5000' ]
}

@test "ltpair: valgrind-clean on a small long-job log (thousands of threads)" {
	genlog -n 20000 -e 8 -w 4 -r 2 -a async > "$BATS_TEST_TMPDIR/g.log"
	ltparse "$BATS_TEST_TMPDIR/g.log" > "$BATS_TEST_TMPDIR/p.lt1"
	vg ltpair "$BATS_TEST_TMPDIR/p.lt1" > "$BATS_TEST_TMPDIR/a.lt1"
	ltpair "$BATS_TEST_TMPDIR/p.lt1" | cmp - "$BATS_TEST_TMPDIR/a.lt1"
}
