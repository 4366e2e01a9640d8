#!/usr/bin/env bats
# ltparse: LitData logs of every generation and Chrome trace JSON to lt1.

bats_require_minimum_version 1.5.0
load helper

D="$DATA/ltparse"
INT64_MAX=9223372036854775807


# parts N OUT ERR ARG...: ltparse -P k/N ARG... for k = 1 to N, one after
# the other, their outputs in OUT, their stderr in the file ERR (- leaves
# it on stderr).  The loop runs without bats' DEBUG trap, which costs
# more than a part.
parts() (
	trap - DEBUG
	local n=$1 out=$2 err=$3 k
	shift 3
	: >"$out"
	if [ "$err" != - ]; then
		exec 2>"$err"
	fi
	for ((k = 1; k <= n; k++)); do
		ltparse -P "$k/$n" "$@" >>"$out"
	done
)

# balanced FILE: lines = events + skipped, and every pid and tid of the
# records (or "-", none) fits Perfetto's 0..2^32-1.
balanced() {
	local l e s
	l=$(stat_of ltparse lines "$1") || return 1
	e=$(stat_of ltparse events "$1") || return 1
	s=$(stat_of ltparse skipped "$1") || return 1
	[ "$l" -eq $((e + s)) ] || { echo "lines $l != $e + $s"; return 1; }
	awk -F '\t' 'function bad(v) { return v != "-" && (v !~ /^[0-9]+$/ ||
		v > 4294967295) }
	    !/^#/ && (bad($3) || bad($4)) { print "bad id: " $0; b = 1 }
	    END { exit b }' "$1"
}

@test "ltparse -h prints the usage and every option with its long form, exit 0" {
	run -0 --separate-stderr ltparse -h
	[ "${lines[0]}" = "usage: ltparse [-v] [-n node] [-P k/N [-S dir [-G]]] [--progress-fd fd] [file ...]" ]
	for o in "-n, --node node" "-P, --part k/N" "-S, --share dir" "-G, --gather" "-v, --verbose" "-h, --help"; do
		[[ "$output" == *"  $o "* ]] || { echo "no $o"; return 1; }
	done
	[ -z "$stderr" ]
	run -0 ltparse --help
	[ "${lines[0]}" = "usage: ltparse [-v] [-n node] [-P k/N [-S dir [-G]]] [--progress-fd fd] [file ...]" ]
	need mandoc
	[ "usage: $(synopsis ltparse)" = "${lines[0]}" ]
}

@test "ltparse: the current format (0.2.68+), golden" {
	golden "$D/new.out" ltparse "$D/new.log"
	balanced "$D/new.out"
}

@test "ltparse: old format (0.2.57-0.2.67) gets stable names, args, categories, us" {
	golden "$D/old.out" ltparse "$D/old.log"
	balanced "$D/old.out"
	# read_chunk_12_size_512 -> read chunk=12 size=512, seconds -> us
	grep -q $'^1795940303995397.3\tB\t14015\t2\t-\tread\tread\t{"chunk":12,"size":512,' "$D/old.out"
	grep -q '"legacy_name":"read_chunk_12_size_512"' "$D/old.out"
	# the 25bf3ca8 CRASHED message is a crash instant; its traceback is noise
	grep -q $'\tI\t14015\t1\t-\tcrash\tcrash\t{"exception":"TypeError",' "$D/old.out"
	[ "$(stat_of ltparse skipped_traceback "$D/old.out")" -eq 8 ]
}

@test "ltparse: v1 format (0.2.45-0.2.56) with logger_name and level" {
	golden "$D/v1.out" ltparse "$D/v1.log"
	balanced "$D/v1.out"
	grep -q $'\tsample\tsample\t{"chunk":12,"index":6151,"logger_name":"litdata.streaming.dataset","level":"DEBUG"' "$D/v1.out"
	grep -q $'\tsample\tget_item\t{"chunk":12,"index":-1,' "$D/v1.out"
	# Decompressing/Decompressed data are one decompress span
	[ "$(grep -c $'\tdecompress\tdecompress\t' "$D/v1.out")" -eq 2 ]
	grep -q '"op":"increment","path":"C:\\\\Users\\\\me\\\\chunks\\\\chunk-0-12.bin"' "$D/v1.out"
	# a name no pattern knows keeps its name; "lock" in it gives the category
	grep -q $'\tlock\tsome_lock_thing\t' "$D/v1.out"
	# 0.2.45 says worker_rank 0 in every worker: no worker index is shown
	grep -q $'\tprocess_name\t{"name":"rank 0 worker (pid 14062)"}' "$D/v1.out"
	grep -q $'\tprocess_name\t{"name":"rank 0 (pid 14061)"}' "$D/v1.out"
	# ... in parts too: they tell the last one which processes are v1
	litracer -w 2 -q -o "$BATS_TEST_TMPDIR/w.json" "$D/v1.log"
	grep -q '"rank 0 worker (pid 14062)"' "$BATS_TEST_TMPDIR/w.json"
}

@test "ltparse: LitData's configuration lines: skipped and counted so, and passed on as #config" {
	cp "$DATA/real/a/litdata_debug.log.gz" "$BATS_TEST_TMPDIR/a.log.gz"
	ltparse "$BATS_TEST_TMPDIR/a.log.gz" > "$BATS_TEST_TMPDIR/a.lt1"
	a=$BATS_TEST_TMPDIR/a.lt1
	# 121 text lines: 112 _apply_delete lines and 9 of the settings.
	[ "$(stat_of ltparse skipped_text "$a")" -eq 121 ]
	[ "$(grep -c '^#config' "$a")" -eq 9 ]
	gzip -dc "$BATS_TEST_TMPDIR/a.log.gz" | grep -c -e 'PID:[0-9]*; TID:[0-9]*; \(Async chunk prefetch:\|max_cache_size\|The provided `max_cache_size`\)' > "$BATS_TEST_TMPDIR/n"
	[ "$(cat "$BATS_TEST_TMPDIR/n")" -eq 9 ]
	# PID TAB the message as JSON string contents, in the log's order.
	grep -qxF -e "$(printf '#config\t1693\tmax_cache_size=20000 (~5 chunks) with 2 workers: capping max_pre_download 4 → 2 to limit peak disk')" "$a"
	# The stages pass it on; ltjson and ltproto write no event of it.
	ltpair < "$a" | ltlanefix -q | ltstat -t > "$BATS_TEST_TMPDIR/t.lt1"
	[ "$(grep -c '^#config' "$BATS_TEST_TMPDIR/t.lt1")" -eq 9 ]
	ltjson < "$BATS_TEST_TMPDIR/t.lt1" > "$BATS_TEST_TMPDIR/t.json"
	grep -q 'capping' "$BATS_TEST_TMPDIR/t.json" && false
	# A line of noise that mentions the cache is not one.
	printf 'ts:1.0;PID:7; TID:8; a max_cache_size of 2\n' > "$BATS_TEST_TMPDIR/x.log"
	[ "$(ltparse "$BATS_TEST_TMPDIR/x.log" | grep -c '^#config')" -eq 0 ]
}

@test "ltparse: 0.2.45's PrepareChunksThread, which looks chunks up (index -1) beside its downloads, is the prefetch thread" {
	T=$BATS_TEST_TMPDIR
	{ printf 'ts:1795940304.2694746; logger_name:litdata.streaming.config; level:DEBUG; PID:14062; TID:140677120150400; name: get_item_for_chunk_index_3_and_index_12;ph: %s;\n' B E
	  printf 'ts:1795940304.3694746; logger_name:litdata.streaming.config; level:DEBUG; PID:14062; TID:140677000000000; name: get_item_for_chunk_index_4_and_index_-1;ph: %s;\n' B E
	  printf 'ts:1795940304.3894746; logger_name:litdata.streaming.downloader; level:DEBUG; PID:14062; TID:140677000000000; name: download_chunk_from_index_4;ph: %s;\n' B E
	} >"$T/v1.log"
	run -0 ltparse "$T/v1.log"
	[[ "$output" == *$'\t14062\t1\t-\t\tthread_name\t{"name":"main 140677120150400"}\t'* ]]
	[[ "$output" == *$'\t14062\t2\t-\t\tthread_name\t{"name":"prefetch 140677000000000"}\t'* ]]
}

@test "ltparse: inputs whose clocks are more than a day apart are said, each with its first time; aligned, not" {
	T=$BATS_TEST_TMPDIR
	printf '%s\n' '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":5,"dur":2}]}' >"$T/zero.json"
	run -0 --separate-stderr ltparse "$DATA/sample.log" "$T/zero.json"
	[ "$stderr" = "ltparse: inputs merged into one trace have clocks 20534 days apart: $DATA/sample.log starts at 1774156435562254.25 us (2026-03-22 05:13:55 UTC); $T/zero.json starts at 5 us (litracer(7): aligning inputs)" ]
	# the parts of -P say it once, as a whole run does: a log 10 days on
	awk '/^ts:[0-9]/ { i = index($0, "."); printf "ts:%.0f%s\n",
	    substr($0, 4, i - 4) + 864000000000, substr($0, i); next } 1' \
	    "$DATA/sample.log" >"$T/later.log"
	run -0 --separate-stderr ltparse "$DATA/sample.log" "$T/later.log"
	[[ "$stderr" == *"clocks 10 days apart: "*" $T/later.log starts at 1775020435562254.25 us (2026-04-01 05:13:55 UTC) "* ]]
	mkdir "$T/s"
	for k in 1 2 3; do
		ltparse -P "$k/3" -S "$T/s" "$DATA/sample.log" "$T/later.log" \
		    >"$T/p$k" 2>"$T/e$k" &
	done
	wait
	[ "$(cat "$T/e1" "$T/e2" "$T/e3")" = "$stderr" ]
	# aligned as litracer(7) says: the trace's offset moves it there
	printf '%s\n' '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":5,"dur":2}],"metadata":{"litracer":{"ts_offset_us":1774156435000000}}}' >"$T/aligned.json"
	run -0 --separate-stderr ltparse "$DATA/sample.log" "$T/aligned.json"
	[ -z "$stderr" ]
	[[ "$output" == *$'\n1774156435000005\tX\t'* ]]
}

@test "ltparse: a file of three generations appended, each line on its own" {
	# the file appended to a log keeps its byte order mark
	{ cat "$D/v1.log"; printf '\357\273\277'; cat "$D/old.log" "$D/new.log"; } > "$BATS_TEST_TMPDIR/mixed.log"
	golden "$D/mixed.out" ltparse "$BATS_TEST_TMPDIR/mixed.log"
	balanced "$D/mixed.out"
	[ "$(stat_of ltparse lines_v1 "$D/mixed.out")" -eq 15 ]
	[ "$(stat_of ltparse lines_old "$D/mixed.out")" -eq 14 ]
	[ "$(stat_of ltparse lines_new "$D/mixed.out")" -eq 18 ]
}

@test "ltparse: LitData's unknown colours become catapult's, only in logs" {
	T=$BATS_TEST_TMPDIR
	p='ts:1795940303867556.250;PID:13966; TID:139640468265856; name: x;ph: i;cat: c;'
	for c in memory_dump rail_animate cq_build_attempt_running \
	    light_memory_dump rail_load memory_dump_x ' memory_dump '; do
		printf '%scname:%s;\n' "$p" "$c"
	done > "$T/log"
	# catapult's own spelling; values trimmed, as every value of a log
	run -0 sh -c "ltparse '$T/log' | grep -v '^#' | cut -f 9 | cut -s -d '\"' -f 4"
	[ "$(echo $output)" = "light_memory_dump rail_animation cq_build_attempt_runnig light_memory_dump rail_load memory_dump_x light_memory_dump" ]
	# a JSON trace keeps what it says
	printf '{"traceEvents":[{"ph":"i","ts":1,"pid":1,"tid":1,"name":"x","cname":"memory_dump"}]}\n' > "$T/t.json"
	run -0 sh -c "ltparse '$T/t.json' | grep -v '^#' | cut -f 9"
	[ "${lines[0]}" = '{"cname":"memory_dump"}' ]
}

@test "ltparse: a record that ends in the env keys its process ended in before gets the args they make anew" {
	# ltparse keeps the last env keys of a process (its pid's slot: 100
	# and 121 share one) and the args it wrote for them; a record must
	# end in exactly those bytes to take them.
	S='dist_world_size: 2;dist_global_rank: 1;dist_num_nodes: 1;worker_world_size: 2;worker_rank: 1;'
	T='dist_world_size: 2;dist_global_rank: 0;dist_num_nodes: 1;worker_world_size: 2;worker_rank: 0;'
	p='ts:17867123450000%02d.000;PID:100; TID:140000000000001; name: %s;ph: I;%s%s\n'
	q='ts:17867123450000%02d.000;PID:121; TID:140000000000002; name: read;ph: I;%s%s\n'
	{
		printf "$p" 1 read 'chunk: 1;' "$S"
		printf "$p" 2 read 'chunk: 2;' "$S"
		printf "$p" 3 mark '' "$S"
		printf "$p" 4 'réad' 'chunk: "4";' "$S"
		printf "$p" 5 read_chunk_12_size_512 '' "$S"
		printf "$p" 6 read 'chunk: 6;' "$S"$'\r'
		printf "$p" 7 read 'chunk: 7;' "$S   "
		printf "$p" 8 read 'chunk: 8;' "${S%1;}3;"
		printf "$p" 9 read 'chunk: 9;' "$S"
		printf "$p" 10 read 'chunk: 10;' "${S}note: x y;"
		printf "$q" 11 'chunk: 11;' "$T"
		printf "$p" 12 read 'chunk: 12;' "$S"
		printf "$q" 13 'chunk: 13;' "$T"
		printf "$q" 14 'chunk: 14;' "$T"
		printf "$p" 15 read 'chunk: 15;' "${S%1;}w 1;"
		printf "$p" 16 read 'chunk: 16;' "${S%1;}w 1;"
		printf "$p" 17 read 'chunk: 17;' "${S}cat: late;"
		printf "$p" 18 read 'chunk: 18;' "${S}cat: late;"
		printf "$p" 19 read 'chunk: 19;' "$S"
	} > "$BATS_TEST_TMPDIR/log"
	e='"dist_world_size":2,"dist_global_rank":1,"dist_num_nodes":1,"worker_world_size":2,"worker_rank"'
	f='"dist_world_size":2,"dist_global_rank":0,"dist_num_nodes":1,"worker_world_size":2,"worker_rank":0'
	# cat, name and args of each record, cut anew as it would be alone
	w() { printf '%s\t%s\t{%s}\n' "$@"; }
	{
		w 'read' 'read' "\"chunk\":1,$e:1"
		w 'read' 'read' "\"chunk\":2,$e:1"
		w '' 'mark' "$e:1"
		w '' 'réad' "\"chunk\":\"\\\"4\\\"\",$e:1"
		w 'read' 'read' "\"chunk\":12,\"size\":512,$e:1,\"legacy_name\":\"read_chunk_12_size_512\""
		w 'read' 'read' "\"chunk\":6,$e:1"
		w 'read' 'read' "\"chunk\":7,$e:1"
		w 'read' 'read' "\"chunk\":8,$e:3"
		w 'read' 'read' "\"chunk\":9,$e:1"
		w 'read' 'read' "\"chunk\":10,$e:1,\"note\":\"x y\""
		w 'read' 'read' "\"chunk\":11,$f"
		w 'read' 'read' "\"chunk\":12,$e:1"
		w 'read' 'read' "\"chunk\":13,$f"
		w 'read' 'read' "\"chunk\":14,$f"
		w 'read' 'read' "\"chunk\":15,$e:\"w 1\""
		w 'read' 'read' "\"chunk\":16,$e:\"w 1\""
		w 'late' 'read' "\"chunk\":17,$e:1"
		w 'late' 'read' "\"chunk\":18,$e:1"
		w 'read' 'read' "\"chunk\":19,$e:1"
	} > "$BATS_TEST_TMPDIR/want"
	ltparse "$BATS_TEST_TMPDIR/log" > "$BATS_TEST_TMPDIR/out"
	[ "$(stat_of ltparse events "$BATS_TEST_TMPDIR/out")" -eq 19 ]
	[ "$(stat_of ltparse skipped "$BATS_TEST_TMPDIR/out")" -eq 0 ]
	run -0 sh -c "awk -F '\t' '!/^#/ && \$2 != \"M\"' '$BATS_TEST_TMPDIR/out' | cut -f 6-8"
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/want")" ]
	# so does each line alone, and from a pipe, where lines end anywhere
	for k in 2 3 4 9 12 14 16 18 19; do
		sed -n "${k}p" "$BATS_TEST_TMPDIR/log" | ltparse | awk -F '\t' '!/^#/ && $2 != "M"' | cut -f 6-8
	done > "$BATS_TEST_TMPDIR/alone"
	[ "$(cat "$BATS_TEST_TMPDIR/alone")" = "$(sed -n '2p;3p;4p;9p;12p;14p;16p;18p;19p' "$BATS_TEST_TMPDIR/want")" ]
	run -0 sh -c "dd if='$BATS_TEST_TMPDIR/log' bs=37 2>/dev/null | ltparse | awk -F '\t' '!/^#/ && \$2 != \"M\"' | cut -f 6-8"
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/want")" ]
}

@test "ltparse agrees with genlog's exact counts, every format, crashes, nodes" {
	built genlog
	for f in new old v1 mixed; do
		for opt in "" "-c -b" "-N 2 -r 4 -p -a async"; do
			# shellcheck disable=SC2086
			genlog -f "$f" -n 20000 $opt -t "$BATS_TEST_TMPDIR/truth" > "$BATS_TEST_TMPDIR/g.log"
			ltparse "$BATS_TEST_TMPDIR/g.log" > "$BATS_TEST_TMPDIR/g.lt1"
			balanced "$BATS_TEST_TMPDIR/g.lt1"
			# one awk: ltparse's counts, then the truth's
			{ read -r got; read -r want; } < <(awk -F '\t' '
			    function v(k) { return k in s ? s[k] : "(no " k ")" }
			    FNR == NR { i = index($0, "="); t[substr($0, 1, i - 1)] = substr($0, i + 1); next }
			    $1 == "#stat" && $2 == "ltparse" { for (i = 3; i <= NF; i++) { split($i, kv, "="); s[kv[1]] = kv[2] } }
			    $2 == "B" { b++ } $2 == "E" { e++ } $2 == "I" { n++ }
			    END {
				print v("lines"), v("events"), v("skipped_text"), v("skipped_traceback"), v("skipped_blank"), v("skipped_torn"), v("processes"), v("threads"), b + 0, e + 0, n + 0
				print t["lines"], t["event_lines"], t["noise_text"], t["noise_cont"], t["noise_blank"], 0, t["processes"], t["threads"], t["B"], t["E"], t["I"]
			    }' "$BATS_TEST_TMPDIR/truth" "$BATS_TEST_TMPDIR/g.lt1")
			[ -n "$want" ] && [ "$got" = "$want" ] || { echo "genlog -f $f $opt: got $got, want $want"; return 1; }
		done
	done
}

@test "ltparse: damage is skipped and counted by kind, never an event" {
	golden "$D/damage.out" ltparse "$D/damage.log"
	balanced "$D/damage.out"
	[ "$(stat_of ltparse skipped_torn "$D/damage.out")" -eq 15 ]
	[ "$(stat_of ltparse skipped_blank "$D/damage.out")" -eq 2 ]
	[ "$(stat_of ltparse salvaged "$D/damage.out")" -eq 1 ]
	[ "$(stat_of ltparse replaced "$D/damage.out")" -eq 4 ]
	# the cut "read E" of line 2 must not become an event
	run -1 grep -c $'^1795940303867600\t' "$D/damage.out"
}

@test "ltparse: an event of a phase LitData never writes is skipped, counted, and named by -v" {
	T=$BATS_TEST_TMPDIR
	p='ts:1795940303867556.250;PID:13966; TID:139640468265856;'
	for ph in B E I i b X s n C M; do
		printf '%s name: x;ph: %s;chunk: 1;\n' "$p" "$ph"
	done >"$T/ph.log"
	run -0 --separate-stderr ltparse -v "$T/ph.log"
	printf '%s\n' "$output" >"$T/out"
	balanced "$T/out"
	[ "$(stat_of ltparse events "$T/out")" -eq 4 ]
	[ "$(stat_of ltparse skipped_phase "$T/out")" -eq 6 ]
	[ "$(stat_of ltparse lines_new "$T/out")" -eq 10 ]
	[ "$(records "$T/out" | awk -F '\t' '$2 != "M"' | cut -f 2 | tr -d '\n')" = BEIi ]
	[ "${stderr_lines[0]}" = "ltparse: $T/ph.log:5: skipped phase line: ph \"b\", not a phase LitData writes" ]
	[ "${#stderr_lines[@]}" -eq 6 ]
}

@test "ltparse -v names every skipped line and why" {
	cd "$D"
	run -0 --separate-stderr ltparse -v damage.log
	diff -u "$D/damage.err" <(printf '%s\n' "${stderr_lines[@]}")
}

@test "ltparse: lines of 10 MB and a last line without newline" {
	awk 'BEGIN { printf "ts:1795940303867556.250;PID:1; TID:2; name: big;ph: i;v: "
		for (i = 0; i < 10 * 1024 * 1024 / 64; i++)
			printf "%s", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
		printf ";" }' > "$BATS_TEST_TMPDIR/big.log"
	# a file, not run's $output: bash copies 10 MB strings slowly
	ltparse "$BATS_TEST_TMPDIR/big.log" >"$BATS_TEST_TMPDIR/big.out"
	[ "$(grep -c $'\tbig\t' "$BATS_TEST_TMPDIR/big.out")" -eq 1 ]
	[ "$(awk -F '\t' '$7 == "big" { print length($8) }' "$BATS_TEST_TMPDIR/big.out")" -eq $((10 * 1024 * 1024 + 8)) ]
}

@test "ltparse: several inputs never merge, -n tags nodes, pids stay below 2^32" {
	run -0 ltparse "$D/new.log" "$D/new.log"
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/two"
	balanced "$BATS_TEST_TMPDIR/two"
	[ "$(stat_of ltparse processes "$BATS_TEST_TMPDIR/two")" -eq 4 ]
	# input i: pid = i * 2^22 + OS pid, and the names say where they are
	grep -q $'^-\tM\t4208270\t0\t-\t\tprocess_name\t{"name":"rank 1 (input 1, pid 13966)"}' "$BATS_TEST_TMPDIR/two"
	grep -q $'^-\tM\t8402574\t0\t-\t\tprocess_name\t{"name":"rank 1 (input 2, pid 13966)"}' "$BATS_TEST_TMPDIR/two"
	run -0 ltparse -n 1021 "$D/new.log" "$D/old.log"
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/tag"
	balanced "$BATS_TEST_TMPDIR/tag"
	grep -q '"name":"rank 1 worker 2 (node 1021, pid 13970)"' "$BATS_TEST_TMPDIR/tag"
	grep -q $'\t4290787006\t0\t-\t\tprocess_name\t{"name":"rank 1 (node 1022, pid 14014)"}' "$BATS_TEST_TMPDIR/tag"
	# one input without -n keeps the OS pids
	grep -q $'^-\tM\t13966\t0\t' "$D/new.out"
}

@test "ltparse: -n and input count limits" {
	run -2 --separate-stderr ltparse -n 1022 a b
	[ "$stderr" = "ltparse: -n 1022: too large for 2 inputs (node + inputs at most 1023)" ]
	run -2 --separate-stderr ltparse -n 1023 a
	[ "$stderr" = "ltparse: -n 1023: too large (0 to 1022)" ]
	run -2 --separate-stderr ltparse -n x a
	[ "$stderr" = "ltparse: -n x: invalid (0 to 1022)" ]
	[ -z "$output" ]
	run -2 --separate-stderr ltparse $(yes /dev/null | head -n 1024)
	[ "$stderr" = "ltparse: too many inputs (at most 1023)" ]
	[ -z "$output" ]
}

@test "ltparse: gzip input, from a file and from standard input" {
	need gzip
	gzip -c "$D/old.log" > "$BATS_TEST_TMPDIR/old.log.gz"
	golden "$D/old.out" ltparse "$BATS_TEST_TMPDIR/old.log.gz"
	run -0 sh -c 'ltparse < "$1"' sh "$BATS_TEST_TMPDIR/old.log.gz"
	diff -u "$D/old.out" <(printf '%s\n' "$output")
	run -0 sh -c 'cat "$1" | ltparse' sh "$BATS_TEST_TMPDIR/old.log.gz"
	diff -u "$D/old.out" <(printf '%s\n' "$output")
}

@test "ltparse: gzip that cannot run or damaged compressed data" {
	need gzip
	gzip -c "$D/old.log" > "$BATS_TEST_TMPDIR/old.log.gz"
	run -2 --separate-stderr env PATH=/nonexistent "$TOP/tools/bin/ltparse" "$BATS_TEST_TMPDIR/old.log.gz"
	[ "$stderr" = "ltparse: $BATS_TEST_TMPDIR/old.log.gz: compressed, and cannot run gzip -dc: No such file or directory" ]
	[ -z "$output" ]
	head -c 300 "$BATS_TEST_TMPDIR/old.log.gz" > "$BATS_TEST_TMPDIR/cut.gz"
	run -1 --separate-stderr ltparse "$BATS_TEST_TMPDIR/cut.gz"
	[ "${stderr_lines[-1]}" = "ltparse: $BATS_TEST_TMPDIR/cut.gz: gzip -dc failed (exit status 1): damaged compressed data" ]
	[[ "$output" != *"#stat"* ]]
}

@test "ltparse: missing file, unreadable input, write error, bad options" {
	run -2 --separate-stderr ltparse "$BATS_TEST_TMPDIR/nosuch.log"
	[ "$stderr" = "ltparse: $BATS_TEST_TMPDIR/nosuch.log: No such file or directory" ]
	[ -z "$output" ]
	run -2 --separate-stderr ltparse "$BATS_TEST_TMPDIR"
	[ "$stderr" = "ltparse: read error: $BATS_TEST_TMPDIR: Is a directory" ]
	run -2 --separate-stderr sh -c 'ltparse "$1" > /dev/full' sh "$D/new.log"
	[ "$stderr" = "ltparse: write error: <stdout>: No space left on device" ]
	run -2 --separate-stderr ltparse -x
	[ "${stderr_lines[1]}" = "usage: ltparse [-v] [-n node] [-P k/N [-S dir [-G]]] [--progress-fd fd] [file ...]" ]
	[ -z "$output" ]
}

@test "ltparse: a file with no event says so, and still balances" {
	printf 'hello\nworld\n' > "$BATS_TEST_TMPDIR/text"
	run -0 --separate-stderr ltparse "$BATS_TEST_TMPDIR/text"
	[ "$stderr" = "ltparse: no events in 2 lines: not a LitData enable_tracer() log?" ]
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/out"
	balanced "$BATS_TEST_TMPDIR/out"
	run -0 --separate-stderr ltparse /dev/null
	[ "$output" = "$(printf '#lt1\n#valid\n#stat\tltparse\tlines=0\tevents=0\tskipped=0\tskipped_blank=0\tskipped_text=0\tskipped_noise=0\tskipped_traceback=0\tskipped_torn=0\tskipped_phase=0\tskipped_json=0\tskipped_dur=0\tskipped_meta=0\tlines_v1=0\tlines_old=0\tlines_new=0\tlines_json=0\trenamed=0\tcat_inferred=0\tsalvaged=0\tprocesses=0\tthreads=0\tmetadata=0\treplaced=0\trepaired=0\tdupkeys=0\ttop=0\tflows_moved=0')" ]
	[ -z "$stderr" ]
}

@test "ltparse -P: the parts of generated logs concatenate to the whole stream" {
	built genlog
	for f in new old v1 mixed; do
		genlog -f "$f" -n 20000 -c -b -s 7 > "$BATS_TEST_TMPDIR/$f.log"
		ltparse "$BATS_TEST_TMPDIR/$f.log" > "$BATS_TEST_TMPDIR/whole"
		for n in 2 3 7 16; do
			parts "$n" "$BATS_TEST_TMPDIR/cat" - "$BATS_TEST_TMPDIR/$f.log"
			cmp "$BATS_TEST_TMPDIR/whole" "$BATS_TEST_TMPDIR/cat" ||
			    { echo "$f: -P k/$n differs"; return 1; }
		done
	done
}

@test "ltparse -P -S: links planted where the parts write are replaced, never followed" {
	T=$BATS_TEST_TMPDIR
	ltparse "$DATA/sample.log" >"$T/whole"
	mkdir "$T/s"
	echo precious >"$T/victim"
	# every file a part of three writes first, as another user could
	# plant them in a shared directory
	for k in 1 2 3; do
		for w in live.tmp scan.tmp end.tmp run.tmp; do
			ln -s "$T/victim" "$T/s/ltparse.$k.$w"
		done
	done
	for k in 1 2 3; do
		ltparse -P "$k/3" -S "$T/s" "$DATA/sample.log" >"$T/p$k" 2>"$T/e$k" &
	done
	wait
	[ "$(cat "$T/victim")" = precious ]
	cat "$T/p1" "$T/p2" "$T/p3" | cmp - "$T/whole"
	[ ! -s "$T/e1" ] && [ ! -s "$T/e2" ] && [ ! -s "$T/e3" ]
}

@test "ltparse -P: damage, tracebacks and several inputs cut anywhere" {
	cat "$D/damage.log" "$D/old.log" "$D/v1.log" > "$BATS_TEST_TMPDIR/a.log"
	ltparse "$BATS_TEST_TMPDIR/a.log" "$D/new.log" "$D/damage.log" > "$BATS_TEST_TMPDIR/whole"
	size=$(cat "$BATS_TEST_TMPDIR/a.log" "$D/new.log" "$D/damage.log" | wc -c)
	# parts of a few bytes: most line boundaries are part boundaries
	for n in 5 31 $((size / 20)); do
		parts "$n" "$BATS_TEST_TMPDIR/cat" /dev/null "$BATS_TEST_TMPDIR/a.log" "$D/new.log" "$D/damage.log"
		cmp "$BATS_TEST_TMPDIR/whole" "$BATS_TEST_TMPDIR/cat" ||
		    { echo "-P k/$n differs"; return 1; }
	done
}

@test "ltparse -P: what a part passes over before its range makes no thread" {
	T=$BATS_TEST_TMPDIR
	e='name: x;ph: i;'
	{
		printf 'ts:1795940303867556.250;PID:1; TID:10; %s\n' "$e"
		# a known thread's prefix, then NUL bytes and another thread
		printf 'ts:1795940303867557.000;PID:1; TID:10; na\0\0ts:1795940303867558.000;PID:2; TID:20; %s\n' "$e"
		# forms the quick look leaves to the parser
		printf 'ts:1795940303867559.000;PID:01; TID:10; %s\n' "$e"
		printf 'ts:1795940303867560.000;PID:1; TID:11 ; %s\n' "$e"
		printf 'ts:1795940303867561.000;PID:1;TID:12; %s\n' "$e"
		printf 'ts:1795940303867562.000;PID:3; TID:30; some text\n'
		printf 'ts:1795940303867563.000;PID:3; TID:31; %s\n' "$e"
		printf 'Traceback (most recent call last):\n  File "x"\nValueError: y\n'
		printf 'ts:1795940303867564.000;PID:1; TID:10; %s\n' "$e"
		printf 'ts:1795940303867565.000;PID:1; TID:13; %s\n' "$e"
		# its tid follows from the thread after the NUL bytes
		printf 'ts:1795940303867566.000;PID:2; TID:21; %s\n' "$e"
	} > "$T/log"
	ltparse -v "$T/log" > "$T/whole" 2> "$T/whole.err"
	[ "$(stat_of ltparse threads "$T/whole")" -eq 7 ]
	grep -q $'^1795940303867566\ti\t2\t2\t' "$T/whole"
	size=$(wc -c < "$T/log")
	for n in 2 3 5 $size; do
		parts "$n" "$T/cat" "$T/cat.err" -v "$T/log"
		cmp "$T/whole" "$T/cat" || { echo "-P k/$n differs"; return 1; }
		cmp "$T/whole.err" "$T/cat.err" ||
		    { echo "-v -P k/$n differs"; return 1; }
	done
}

@test "ltparse -P: -v reports each skipped line in one part only" {
	ltparse -v "$D/damage.log" 2> "$BATS_TEST_TMPDIR/whole.err" > /dev/null
	for k in 1 2 3; do
		ltparse -v -P "$k/3" "$D/damage.log" 2>> "$BATS_TEST_TMPDIR/parts.err" > /dev/null
	done
	diff -u "$BATS_TEST_TMPDIR/whole.err" "$BATS_TEST_TMPDIR/parts.err"
}

@test "ltparse -v: each message is one write(2), so that parts sharing stderr never interleave theirs" {
	need strace
	T=$BATS_TEST_TMPDIR
	# (LeakSanitizer cannot work under ptrace: not under check-asan)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -o "$T/trace" -e trace=write ltparse -v "$D/damage.log" >/dev/null 2>"$T/err"
	n=$(wc -l <"$T/err")
	[ "$n" -gt 5 ]
	[ "$(grep -c '^write(2, ' "$T/trace")" -eq "$n" ]
}

@test "ltparse -P: input that cannot be cut is converted whole by part 1" {
	need gzip
	gzip -c "$D/new.log" > "$BATS_TEST_TMPDIR/new.log.gz"
	for f in "$BATS_TEST_TMPDIR/new.log.gz" "$D/trace.json"; do
		ltparse "$f" > "$BATS_TEST_TMPDIR/whole"
		ltparse -P 1/3 "$f" > "$BATS_TEST_TMPDIR/cat"
		run -0 ltparse -P 2/3 "$f"
		[ -z "$output" ]
		run -0 ltparse -P 3/3 "$f"
		[ -z "$output" ]
		cmp "$BATS_TEST_TMPDIR/whole" "$BATS_TEST_TMPDIR/cat"
	done
	run -0 sh -c 'ltparse -P 2/2 < "$1"' sh "$D/new.log"
	[ -z "$output" ]
	# nothing of a pipe is read to find out it cannot be cut
	run -0 ltparse -P 1/2 <(cat "$D/new.log")
	diff -u "$D/new.out" <(printf '%s\n' "$output")
}

@test "ltparse: #t0 before the first timed event that is not M, once, in whichever part holds it" {
	T=$BATS_TEST_TMPDIR
	{ i=0; while [ $i -lt 300 ]; do echo "INFO some other logger line $i"; i=$((i + 1)); done
	  cat "$D/new.log" "$D/old.log"; } > "$T/late.log"
	ltparse "$T/late.log" > "$T/whole"
	[ "$(grep -c '^#t0' "$T/whole")" -eq 1 ]
	# just before the first record, with its ts
	first=$(grep -v '^#' "$T/whole" | head -n 1 | cut -f 1)
	[ "$(grep -A1 '^#t0' "$T/whole" | cut -f 1 | tail -n 1)" = "$first" ]
	[ "$(grep '^#t0' "$T/whole" | cut -f 2)" = "$first" ]
	for n in 2 3 5 9; do
		parts "$n" "$T/cat" - "$T/late.log"
		cmp "$T/whole" "$T/cat" || { echo "-P k/$n differs"; return 1; }
	done
	# JSON: metadata and events without ts do not count
	printf '[{"ph":"M","ts":5,"pid":1,"tid":1,"name":"process_name","args":{"name":"p"}},{"ph":"i","pid":1,"tid":1},{"ph":"i","ts":7.5,"pid":1,"tid":1},{"ph":"i","ts":2,"pid":1,"tid":1}]' > "$T/m.json"
	run -0 ltparse "$T/m.json"
	[ "$(printf '%s\n' "$output" | grep -c '^#t0')" -eq 1 ]
	[ "${lines[4]}" = $'#t0\t7.5' ]
	[ "${lines[5]}" = $'7.5\ti\t1\t1\t-\t\t\t{}\t{}' ]
	# several inputs: one #t0, from the first of them
	run -0 ltparse "$D/old.log" "$D/new.log"
	[ "$(printf '%s\n' "$output" | grep -c '^#t0')" -eq 1 ]
	[ "${lines[2]}" = "#t0	$(sed -n 3p "$D/old.out" | cut -f 2)" ]
}

# shareparts N DIR FILE...: the N parts of FILE... with -S DIR, run at
# the same time, concatenated on stdout; their stderr in DIR/err.
shareparts() {
	local g= n d k pids=
	[ "$1" != -G ] || { g=-G; shift; }
	n=$1 d=$2
	shift 2
	for k in $(seq "$n"); do
		# shellcheck disable=SC2086
		ltparse -v $g -P "$k/$n" -S "$d" "$@" >"$d/out.$k" 2>"$d/err.$k" &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086
	wait $pids
	if [ -n "$g" ]; then
		# part 1 writes the whole stream, the others nothing
		for k in $(seq 2 "$n"); do
			[ ! -s "$d/out.$k" ] || { echo "-G: part $k wrote" >&2; return 1; }
		done
		cat "$d/out.1"
	else
		for k in $(seq "$n"); do cat "$d/out.$k"; done
	fi
	for k in $(seq "$n"); do cat "$d/err.$k"; done >"$d/err"
}

@test "ltparse -P -S: parts sharing their state concatenate to the whole stream" {
	need genlog
	T=$BATS_TEST_TMPDIR
	for f in new old v1 mixed; do
		genlog -f "$f" -n 20000 -c -b -s 7 >"$T/$f.log"
	done
	cat "$D/damage.log" "$D/old.log" "$D/v1.log" >"$T/a.log"
	for set in new old v1 mixed "a.log $D/new.log $D/damage.log"; do
		files=
		for f in $set; do
			case $f in /*) files="$files $f" ;; *.log) files="$files $T/$f" ;; *) files="$files $T/$f.log" ;; esac
		done
		# shellcheck disable=SC2086
		ltparse -v $files >"$T/whole" 2>"$T/whole.err"
		for n in 2 4 7; do
			for g in "" -G; do
				mkdir "$T/d"
				# shellcheck disable=SC2086
				shareparts $g "$n" "$T/d" $files >"$T/cat"
				cmp "$T/whole" "$T/cat" || { echo "$set: -P k/$n -S $g differs"; return 1; }
				cmp "$T/whole.err" "$T/d/err" || { echo "$set: -v -P k/$n -S $g differs"; return 1; }
				# the last part removes what the parts shared
				[ -z "$(ls "$T/d" | grep '^ltparse\.')" ]
				rm -rf "$T/d"
			done
		done
	done
}

@test "ltparse -P: a range far larger than the buffer, with a line longer than 64 MiB" {
	need genlog
	T=$BATS_TEST_TMPDIR
	# a 70 MiB line (noise, skipped) makes the buffer grow, in a range
	# read a buffer at a time
	genlog -n 30000 -s 3 >"$T/g.log"
	long=$(($(wc -l <"$T/g.log") + 1))
	head -c 73400320 /dev/zero | tr '\0' x >>"$T/g.log"
	echo >>"$T/g.log"
	genlog -n 30000 -s 4 >>"$T/g.log"
	ltparse -v "$T/g.log" >"$T/whole" 2>"$T/whole.err"
	grep -qx "ltparse: $T/g.log:$long: skipped noise line" "$T/whole.err"
	[ "$(grep -c '	B	' "$T/whole")" -gt 10000 ]
	for n in 2 4; do
		mkdir "$T/d"
		shareparts "$n" "$T/d" "$T/g.log" >"$T/cat"
		cmp "$T/whole" "$T/cat" || { echo "-P k/$n -S differs"; return 1; }
		cmp "$T/whole.err" "$T/d/err" || { echo "-v -P k/$n -S differs"; return 1; }
		rm -rf "$T/d"
		: >"$T/cat"
		for k in $(seq "$n"); do
			ltparse -P "$k/$n" "$T/g.log" >>"$T/cat"
		done
		cmp "$T/whole" "$T/cat" || { echo "-P k/$n differs"; return 1; }
	done
}

@test "ltparse -P -S: a part never reads the bytes before its range" {
	need genlog
	T=$BATS_TEST_TMPDIR
	genlog -n 20000 -c -s 3 >"$T/g.log"
	ltparse "$T/g.log" >"$T/whole"
	mkdir "$T/d"
	# part 1 does not wait for part 2: it runs first, alone
	ltparse -P 1/2 -S "$T/d" "$T/g.log" >"$T/p1"
	# then the first half of the file is made garbage, its size kept, and
	# its time of change (which the parts check)
	touch -r "$T/g.log" "$T/time"
	head -c 1000000 /dev/zero | tr '\0' x | dd of="$T/g.log" conv=notrunc 2>/dev/null
	touch -r "$T/time" "$T/g.log"
	ltparse -P 2/2 -S "$T/d" "$T/g.log" >"$T/p2"
	cat "$T/p1" "$T/p2" | cmp "$T/whole" -
	# without -S, part 2 reads the garbage and gets other names
	ltparse -P 2/2 "$T/g.log" >"$T/p2b"
	run ! cmp -s "$T/p2" "$T/p2b"
}

@test "ltparse -P -S: a part that dies is reported by those that wait for it" {
	need genlog
	T=$BATS_TEST_TMPDIR
	genlog -n 20000 >"$T/g.log"
	mkdir "$T/d"
	# part 1 dies writing its records, once its first look is shared
	run -2 --separate-stderr sh -c 'ltparse -P 1/2 -S "$1" "$2" >/dev/full' sh "$T/d" "$T/g.log"
	[ -f "$T/d/ltparse.1.scan" ]
	run -2 --separate-stderr ltparse -P 2/2 -S "$T/d" "$T/g.log"
	[ "$stderr" = "ltparse: part 1 of 2 ended without writing $T/d/ltparse.1.end" ]
	[[ "$output" != *"#stat"* ]]
	run -2 --separate-stderr ltparse -S "$T/d" "$T/g.log"
	[ "$stderr" = "ltparse: -S $T/d: only with -P" ]
	# what a part of another run left is not taken
	rm -f "$T"/d/*
	ltparse -P 1/2 -S "$T/d" "$D/new.log" >/dev/null
	run -2 --separate-stderr ltparse -P 2/2 -S "$T/d" "$T/g.log"
	[ "$stderr" = "ltparse: $T/g.log: not the file the other parts of this run read ($T/d/ltparse.run): replaced while it was read, or the directory of another run" ]
	run -2 --separate-stderr ltparse -P 1/2 -S "$T/nosuch" "$T/g.log"
	[ "$stderr" = "ltparse: $T/nosuch/ltparse.1.run.tmp: No such file or directory" ]
}

@test "ltparse -P -S -G: a part that leaves no stream for part 1 is reported by it" {
	need genlog
	T=$BATS_TEST_TMPDIR
	genlog -n 20000 >"$T/g.log"
	mkdir "$T/d"
	# part 2 of 3 is not given -G: it writes its stream on its own output
	ltparse -G -P 3/3 -S "$T/d" "$T/g.log" >"$T/p3" &
	ltparse -P 2/3 -S "$T/d" "$T/g.log" >"$T/p2" &
	run -2 --separate-stderr ltparse -G -P 1/3 -S "$T/d" "$T/g.log"
	wait
	[ "$stderr" = "ltparse: part 2 of 3 ended without writing $T/d/ltparse.2.out" ]
	[[ "$output" != *"#stat"* ]]
	[ -s "$T/p2" ]
	[ ! -s "$T/p3" ]
	run -2 --separate-stderr ltparse -G -P 1/2 "$T/g.log"
	[ "$stderr" = "ltparse: -G: only with -P and -S" ]
	# a stream another run left is not taken for part 2's
	rm -rf "$T/d"
	mkdir "$T/d"
	echo "ltparse 2 parts 0123456789abcdef" >"$T/d/ltparse.2.out"
	run -2 --separate-stderr ltparse -G -P 1/2 -S "$T/d" "$T/g.log"
	[ "$stderr" = "ltparse: $T/d/ltparse.2.out: not the state of a part of this run" ]
}

@test "ltparse -P -S -G: part 1 appends the others' streams to an output in append mode, where the kernel cannot move them" {
	need genlog
	T=$BATS_TEST_TMPDIR
	genlog -n 20000 >"$T/g.log"
	ltparse "$T/g.log" >"$T/whole"
	mkdir "$T/d"
	echo before >"$T/app"
	ltparse -G -P 2/2 -S "$T/d" "$T/g.log" &
	ltparse -G -P 1/2 -S "$T/d" "$T/g.log" >>"$T/app"
	wait
	{ echo before; cat "$T/whole"; } | cmp - "$T/app"
	[ -z "$(ls -A "$T/d")" ]
}

@test "ltparse -P: bad part specifications" {
	run -2 --separate-stderr ltparse -P 3/2 "$D/new.log"
	[ "$stderr" = "ltparse: -P 3/2: k is too large (1 to N)" ]
	run -2 --separate-stderr ltparse -P 0/2 "$D/new.log"
	[ "$stderr" = "ltparse: -P 0/2: k is too small (1 to N)" ]
	run -2 --separate-stderr ltparse -P 1/0 "$D/new.log"
	[ "$stderr" = "ltparse: -P 1/0: N is too small (1 to 1000000)" ]
	run -2 --separate-stderr ltparse --part 2 "$D/new.log"
	[ "$stderr" = "ltparse: -P 2: expected k/N, such as 2/4" ]
	[ -z "$output" ]
}

@test "ltparse: every prefix of a damaged log and of a trace gives 0 or 1" {
	prefixes -m 500 1 "$D/damage.log" ltparse
	prefixes 1 "$D/trace.json" ltparse
}

@test "ltparse: Chrome trace JSON, every member kept, golden" {
	golden "$D/trace.out" ltparse "$D/trace.json"
	balanced "$D/trace.out"		# every id an integer Perfetto takes
	[ "$(stat_of ltparse lines "$D/trace.out")" -eq 9 ]
	[ "$(stat_of ltparse events "$D/trace.out")" -eq 7 ]
	[ "$(stat_of ltparse skipped_json "$D/trace.out")" -eq 2 ]
	[ "$(stat_of ltparse dupkeys "$D/trace.out")" -eq 2 ]
	# ts_offset_us of an ltjson trace is added back to every ts
	grep -q $'^2000.5\tX\t123\t456\t2.25\tcpu_op\taten::add\t' "$D/trace.out"
}

@test "ltparse: JSON from standard input, from a pipe, gzip-compressed" {
	need gzip
	run -0 sh -c 'ltparse < "$1"' sh "$D/trace.json"
	diff -u "$D/trace.out" <(printf '%s\n' "$output")
	run -0 sh -c 'cat "$1" | ltparse' sh "$D/trace.json"
	diff -u "$D/trace.out" <(printf '%s\n' "$output")
	run -0 sh -c 'gzip -c "$1" | ltparse' sh "$D/trace.json"
	diff -u "$D/trace.out" <(printf '%s\n' "$output")
	# the temporary file a pipe is kept in cannot be made
	run -2 --separate-stderr sh -c 'cat "$1" | TMPDIR=/nonexistent ltparse' sh "$D/trace.json"
	[ "$stderr" = "ltparse: /nonexistent: temporary file: No such file or directory" ]
	[[ "$output" != *"#stat"* ]]
	gzip -c "$D/trace.json" > "$BATS_TEST_TMPDIR/t.json.gz"
	golden "$D/trace.out" ltparse "$BATS_TEST_TMPDIR/t.json.gz"
	# a named pipe cannot be opened twice: it is kept, not reopened
	run -0 ltparse <(cat "$D/trace.json")
	diff -u "$D/trace.out" <(printf '%s\n' "$output")
	run -0 ltparse <(gzip -c "$D/trace.json")
	diff -u "$D/trace.out" <(printf '%s\n' "$output")
}

@test "ltparse: bare array JSON, with or without its closing bracket" {
	printf '[{"ph":"X","ts":1,"dur":2,"pid":1,"tid":1,"name":"a"},\n{"ph":"i","ts":3,"pid":1,"tid":1,"name":"b"},' > "$BATS_TEST_TMPDIR/a.json"
	run -0 ltparse "$BATS_TEST_TMPDIR/a.json"
	[ "${lines[3]}" = $'1\tX\t1\t1\t2\t\ta\t{}\t{}' ]
	[ "${lines[4]}" = $'3\ti\t1\t1\t-\t\tb\t{}\t{}' ]
	printf ' \n[]' > "$BATS_TEST_TMPDIR/e.json"
	run -0 ltparse "$BATS_TEST_TMPDIR/e.json"
	[ "${#lines[@]}" -eq 3 ]
}

@test "ltparse: JSON numbers become exact lt1 microseconds" {
	printf '{"traceEvents":[{"ph":"X","ts":1.0005e3,"dur":0.0004,"pid":1,"tid":1},{"ph":"X","ts":1795940303867556.2505,"dur":12,"pid":1,"tid":1},{"ph":"X","ts":-0.0015,"dur":1E-3,"pid":-0,"tid":99999999999999}]}' > "$BATS_TEST_TMPDIR/n.json"
	run -0 ltparse "$BATS_TEST_TMPDIR/n.json"
	[ "${lines[2]}" = $'#t0\t1000.5' ]
	[ "${lines[3]}" = $'1000.5\tX\t1\t1\t0\t\t\t{}\t{}' ]
	[ "${lines[4]}" = $'1795940303867556.251\tX\t1\t1\t12\t\t\t{}\t{}' ]
	# -0 is 0; a tid above 2^32-1 gets an id Perfetto takes, and a name
	[ "${lines[5]}" = $'-0.002\tX\t0\t4123492782\t0.001\t\t\t{}\t{}' ]
	[ "${lines[6]}" = $'-\tM\t0\t4123492782\t-\t\tthread_name\t{"name":"tid 99999999999999"}\t{}' ]
}

@test "ltparse: a JSON tid of 10 to 19 digits is named after itself, digit for digit" {
	# Every length, and zeros inside each group of eight digits, which
	# the number is written in.
	local t ids=() json= i
	for ((i = 10; i <= 19; i++)); do
		ids+=("${INT64_MAX:0:i}")
	done
	ids+=(10000000000000000 100000000000000000 9000000000000000001 \
	    1000000010000000100)
	for t in "${ids[@]}"; do
		json="$json${json:+,}{\"ph\":\"i\",\"ts\":1,\"pid\":1,\"tid\":$t}"
	done
	printf '[%s]' "$json" > "$BATS_TEST_TMPDIR/t.json"
	run -0 ltparse "$BATS_TEST_TMPDIR/t.json"
	for t in "${ids[@]}"; do
		[[ "$output" == *$'\tthread_name\t{"name":"tid '"$t"$'"}\t'* ]] ||
		    { echo "no name for tid $t"; return 1; }
	done
}

@test "ltparse: -n moves JSON pids to the node's block, names get the node" {
	run -0 ltparse -n 2 "$D/trace.json"
	[[ "$output" == *$'\t12583035\t456\t2.25\tcpu_op\taten::add\t'* ]]
	# a string pid gets a pid of the block, its name the node
	[[ "$output" == *$'\ti\t13294009\t4056303590\t-\t\tmark\t'* ]]
	[[ "$output" == *$'\n-\tM\t13294009\t0\t-\t\tprocess_name\t{"name":"stream 7 (node 2)"}\t{}\n'* ]]
	# the trace's process name says where the process ran
	[[ "$output" == *$'\t12583035\t0\t-\t\tprocess_name\t{"name":"python3 (node 2, pid 123)"}\t'* ]]
	# pid 1 has no name in the trace: it gets one saying where it ran
	[[ "$output" == *$'\n-\tM\t12582913\t0\t-\t\tprocess_name\t{"name":"node 2, pid 1"}\t{}\n#stat'* ]]
}

@test "ltparse: negative, huge, fractional, 0 and string tids and pids become ids Perfetto takes, names keep them" {
	T=$BATS_TEST_TMPDIR
	ltparse "$D/ids.json" >"$T/ids.lt1"
	balanced "$T/ids.lt1"
	# tid -19360192: an id of its own, never 0 nor the pid; its name too
	grep -q $'^1010\tX\t2568503\t2266449056\t200\t\tbwd\t' "$T/ids.lt1"
	grep -q $'\tM\t2568503\t2266449056\t-\t\tthread_name\t{"name":"pt_autograd (tid -19360192)"}' "$T/ids.lt1"
	grep -q $'\tM\t2568503\t3437834298\t-\t\tthread_name\t{"name":"tid 0"}' "$T/ids.lt1"
	grep -q $'\tM\t2568503\t4187112951\t-\t\tthread_name\t{"name":"tid 7.5"}' "$T/ids.lt1"
	grep -q $'\tM\t1659317207\t0\t-\t\tprocess_name\t{"name":"pid -1"}' "$T/ids.lt1"
	grep -q $'\tM\t1981894333\t0\t-\t\tprocess_name\t{"name":"renderer"}' "$T/ids.lt1"
	# the X slice of string tid "1890023232" and its flow's numeric one
	[ "$(awk -F '\t' '$4 == 1890023232' "$T/ids.lt1" | cut -f 2 | tr -d '\n')" = Xs ]
	need node
	ltjson "$T/ids.lt1" >"$T/ids.lt.json"
	node "$D/samevents.js" "$D/ids.json" "$T/ids.lt.json"
}

@test "ltparse: through the chain such a trace imports in Perfetto with no error, every slice and flow kept" {
	tp_need
	T=$BATS_TEST_TMPDIR
	# as written, Perfetto merges threads and loses the flow
	run ! tp_clean "$D/ids.json"
	ltparse "$D/ids.json" | ltpair | ltlanefix -q | ltjson >"$T/t.json"
	tp_clean "$T/t.json"
	[ "$(tp_query "$T/t.json" 'select count(*) from slice;')" -eq 9 ]
	[ "$(tp_query "$T/t.json" 'select count(*) from flow;')" -eq 1 ]
	# one thread per tid of the trace, each with its own slices
	[ "$(tp_query "$T/t.json" 'select count(distinct track_id) from slice;')" -eq 9 ]
}

@test "ltparse: a JSON X of negative dur is dropped, counted and named by -v, not passed on" {
	T=$BATS_TEST_TMPDIR
	printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":10,"dur":-3},\n{"ph":"X","name":"b","pid":1,"tid":1,"ts":20,"dur":5},\n{"ph":"X","name":"c","pid":1,"tid":1,"ts":30,"dur":-0.0001},\n{"ph":"B","name":"d","pid":1,"tid":1,"ts":40,"dur":-1}]' >"$T/nd.json"
	run -0 --separate-stderr ltparse -v "$T/nd.json"
	printf '%s\n' "$output" >"$T/nd.lt1"
	balanced "$T/nd.lt1"
	[ "$stderr" = "ltparse: $T/nd.json:1: skipped an X event with a negative dur" ]
	[ "$(stat_of ltparse skipped_dur "$T/nd.lt1")" -eq 1 ]
	# -0.0001 is 0 ns; a B's dur means nothing to Perfetto
	[ "$(records "$T/nd.lt1" | cut -f 2,5,7 | tr '\t\n' ' ')" = "X 5 b X 0 c B -1 d " ]
	tp_need
	ltparse "$T/nd.json" | ltpair | ltlanefix -q | ltjson >"$T/t.json"
	run ! tp_clean "$T/nd.json"
	tp_clean "$T/t.json"
}

@test "ltparse: numbers Perfetto misreads: the shortest text of the same double; beyond a double, left out" {
	T=$BATS_TEST_TMPDIR
	printf '%s\n' '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2,"tts":1e400,"args":{"f":0.00030637254901960784,"u":12345678901234567890,"i":9223372036854775807,"o":1e400,"l":[1,1e-400,2e999],"p":1.00000000000000000000,"s":0.5}},' \
	    '{"ph":"X","name":"b","pid":1,"tid":1,"ts":3,"dur":1e400},' \
	    '{"ph":"i","name":"c","pid":1,"tid":1,"ts":2e400}]' >"$T/n.json"
	run -0 --separate-stderr ltparse -v "$T/n.json"
	printf '%s\n' "$output" >"$T/n.lt1"
	balanced "$T/n.lt1"
	[ "$(records "$T/n.lt1")" = $'1\tX\t1\t1\t2\t\ta\t{"f":3.0637254901960784e-4,"u":1.2345678901234567e19,"i":9223372036854775807,"l":[1,0.0,null],"p":1.0,"s":0.5}\t{}' ]
	[ "$stderr" = "ltparse: $T/n.json:2: skipped an X event whose dur is beyond the range of a double
ltparse: $T/n.json:3: skipped an event whose ts is beyond the range of a double" ]
	[ "$(stat_of ltparse repaired "$T/n.lt1")" -eq 1 ]
	[ "$(stat_of ltparse skipped_dur "$T/n.lt1")" -eq 1 ]
	[ "$(stat_of ltparse skipped_json "$T/n.lt1")" -eq 1 ]
	tp_need
	# as written, the trace does not load; through the chain it does,
	# and Perfetto reads the numbers the input meant
	run ! tp_query "$T/n.json" 'select count(*) from slice'
	[[ "$output" == *"Double overflow/underflow parsing '1e400'"* ]]
	ltparse "$T/n.json" | ltpair | ltlanefix -q | ltjson >"$T/t.json"
	tp_clean "$T/t.json"
	[ "$(tp_query "$T/t.json" "select group_concat(key || '=' || display_value, ' ') from (select key, display_value from args where key like 'args.%' order by key)")" = '"args.f=0.00030637254901960784 args.i=9223372036854775807 args.l[0]=1 args.l[1]=0.0 args.p=1.0 args.s=0.5 args.u=1.2345678901234567e+19"' ]
}

@test "ltparse: a process and thread whose id is the empty string get names that say so; M events with no name go" {
	T=$BATS_TEST_TMPDIR
	# Kineto's Record Window End: "pid":"","tid":"" (31 of 42 real traces)
	run -0 ltparse "$DATA/repro/empty-string-pid.json"
	[[ "$output" == *$'\tprocess_name\t{"name":"pid \\"\\""}\t{}\n'* ]]
	[[ "$output" == *$'\tthread_name\t{"name":"tid \\"\\""}\t{}\n'* ]]
	printf '%s\n' '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},' \
	    '{"ph":"M","name":"process_name","pid":1,"args":{"name":""}},' \
	    '{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{}},' \
	    '{"ph":"M","name":"thread_sort_index","pid":1,"tid":1,"args":{"sort_index":"x"}},' \
	    '{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"t"}}]' >"$T/m.json"
	run -0 --separate-stderr ltparse -v "$T/m.json"
	printf '%s\n' "$output" >"$T/m.lt1"
	balanced "$T/m.lt1"
	[ "$(stat_of ltparse skipped_meta "$T/m.lt1")" -eq 3 ]
	[ "$(records "$T/m.lt1" | cut -f 2,7,8 | tr '\t\n' '  ')" = 'X a {} M thread_name {"name":"t"} ' ]
	[[ "$stderr" == *"m.json:2: skipped an M event naming a process or thread with no name"* ]]
	[[ "$stderr" == *"m.json:4: skipped an M event ordering a process or thread with no sort_index number"* ]]
	tp_need
	ltparse "$DATA/repro/empty-string-pid.json" | ltpair | ltlanefix -q |
	    ltjson >"$T/t.json"
	tp_clean "$T/t.json"
	[ "$(tp_query "$T/t.json" "select count(*) from thread where name = 'tid \"\"'")" -eq 1 ]
	run ! tp_clean "$T/m.json"
	ltparse "$T/m.json" | ltpair | ltlanefix -q | ltjson >"$T/t.json"
	tp_clean "$T/t.json"
	[ "$(tp_query "$T/t.json" "select name from thread where tid = 1")" = '"t"' ]
}

@test "ltparse: a launch's flow start goes before the 0-ns call of its time, so Perfetto binds it to the launch" {
	T=$BATS_TEST_TMPDIR
	run -0 --separate-stderr ltparse "$DATA/repro/flow-zero-dur-steals.json"
	printf '%s\n' "$output" >"$T/z.lt1"
	[ "$(records "$T/z.lt1" | cut -f 2,5,7 | tr '\t\n' '  ')" = 'X 7 cudaLaunchKernel s - ac2g X 0 cudaFuncSetAttribute X 10 kernel f - ac2g ' ]
	[ "$(stat_of ltparse flows_moved "$T/z.lt1")" -eq 1 ]
	[ "$stderr" = "ltparse: 1 flow starts written before a 0-ns slice of their time and thread, which Perfetto would bind them to: they bind to the slice of their correlation" ]
	# no flow there: the order stays
	printf '%s\n' '[{"ph":"X","name":"z","pid":1,"tid":1,"ts":1,"dur":0},' \
	    '{"ph":"X","name":"l","pid":1,"tid":1,"ts":1,"dur":5,"args":{"correlation":3}},' \
	    '{"ph":"s","name":"f","pid":1,"tid":1,"ts":1,"id":4}]' >"$T/n.json"
	[ "$(ltparse "$T/n.json" | records /dev/stdin | cut -f 7 | tr '\n' ' ')" = 'z l f ' ]
	tp_need
	# as written, the arrow starts at the call; through the chain, at the launch
	q='select o.name from flow f join slice o on f.slice_out = o.id'
	[ "$(tp_query "$DATA/repro/flow-zero-dur-steals.json" "$q")" = '"cudaFuncSetAttribute"' ]
	for x in json pftrace; do
		litracer -q -o "$T/t.$x" "$DATA/repro/flow-zero-dur-steals.json" 2>/dev/null
		[ "$(tp_query "$T/t.$x" "$q")" = '"cudaLaunchKernel"' ]
	done
}

@test "ltparse: a log's event of a foreign phase never reaches Perfetto" {
	tp_need
	T=$BATS_TEST_TMPDIR
	{ cat "$D/new.log"
	  printf 'ts:1795940303868999.000;PID:13966; TID:139640468265856; name: read;ph: b;cat: read;\n'
	  printf 'ts:1795940303869001.000;PID:13966; TID:139640468265856; name: x;ph: s;cat: read;\n'
	} >"$T/l.log"
	ltparse "$T/l.log" | ltpair | ltlanefix -q | ltjson >"$T/t.json"
	tp_clean "$T/t.json"
	[ "$(ltparse "$T/l.log" | stat_of ltparse skipped_phase -)" -eq 2 ]
}

@test "ltparse: bad JSON exits 1 with FILE:LINE: byte N: what" {
	printf '{"traceEvents":[{"ph":"X",}]}' > "$BATS_TEST_TMPDIR/b1.json"
	run -1 --separate-stderr ltparse "$BATS_TEST_TMPDIR/b1.json"
	[ "$stderr" = "ltparse: $BATS_TEST_TMPDIR/b1.json:1: byte 27: trailing comma in object" ]
	[[ "$output" != *"#stat"* ]]
	printf '{"traceEvents":[{"ph":"X"},\n{"ph":"B"' > "$BATS_TEST_TMPDIR/b2.json"
	run -1 --separate-stderr ltparse "$BATS_TEST_TMPDIR/b2.json"
	[ "$stderr" = "ltparse: $BATS_TEST_TMPDIR/b2.json:2: byte 38: the trace ends inside an event (incomplete file)" ]
	printf '{"traceEvents":[]} x' > "$BATS_TEST_TMPDIR/b3.json"
	run -1 --separate-stderr ltparse "$BATS_TEST_TMPDIR/b3.json"
	[ "$stderr" = "ltparse: $BATS_TEST_TMPDIR/b3.json:1: byte 20: text after the end of the trace" ]
	printf '{"traceEvents":{}}' > "$BATS_TEST_TMPDIR/b4.json"
	run -1 --separate-stderr ltparse "$BATS_TEST_TMPDIR/b4.json"
	[ "$stderr" = "ltparse: $BATS_TEST_TMPDIR/b4.json:1: byte 16: traceEvents is not an array" ]
	printf '[{"name":"x"},{}]' > "$BATS_TEST_TMPDIR/b6.json"
	run -0 --separate-stderr ltparse "$BATS_TEST_TMPDIR/b6.json"
	[ "$stderr" = "ltparse: no trace event has a one-character ph" ]
	[ "$(printf '%s\n' "$output" | grep -c '^#stat')" -eq 1 ]
	for e in 1 '"x"' '[1]' null; do
		printf '[{"ph":"i","ts":1},\n%s]' "$e" > "$BATS_TEST_TMPDIR/b5.json"
		run -1 --separate-stderr ltparse "$BATS_TEST_TMPDIR/b5.json"
		[ "$stderr" = "ltparse: $BATS_TEST_TMPDIR/b5.json:2: byte 21: an event is not an object" ]
	done
}

@test "ltparse | ltjson keeps every event of a trace (independent check with node)" {
	need node
	ltparse "$D/trace.json" | ltjson > "$BATS_TEST_TMPDIR/out.json"
	json_ok "$BATS_TEST_TMPDIR/out.json"
	node "$D/samevents.js" "$D/trace.json" "$BATS_TEST_TMPDIR/out.json"
	# and a trace of epoch-sized times, whose offset ltjson chose
	ltparse "$D/new.log" "$D/old.log" | ltjson > "$BATS_TEST_TMPDIR/a.json"
	ltparse "$BATS_TEST_TMPDIR/a.json" | ltjson > "$BATS_TEST_TMPDIR/b.json"
	node "$D/samevents.js" "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json"
}

@test "ltparse | ltjson | ltparse | ltjson: the same events, offset, times" {
	ltparse "$D/new.log" | ltjson > "$BATS_TEST_TMPDIR/a.json"
	ltparse "$BATS_TEST_TMPDIR/a.json" | ltjson > "$BATS_TEST_TMPDIR/b.json"
	diff -u <(sed -n '/^\]/q;p' "$BATS_TEST_TMPDIR/a.json") \
	    <(sed -n '/^\]/q;p' "$BATS_TEST_TMPDIR/b.json")
	grep -o '"ts_offset_us":[0-9]*' "$BATS_TEST_TMPDIR/a.json" > "$BATS_TEST_TMPDIR/oa"
	grep -o '"ts_offset_us":[0-9]*' "$BATS_TEST_TMPDIR/b.json" > "$BATS_TEST_TMPDIR/ob"
	diff "$BATS_TEST_TMPDIR/oa" "$BATS_TEST_TMPDIR/ob"
	[ "$(cat "$BATS_TEST_TMPDIR/oa")" != '"ts_offset_us":0' ]
}

# bigtrace: in the test's directory, a Kineto trace k.json, ltparse's
# stream of it k.lt, and ltjson's trace of that a.json, with a ts offset;
# both traces are larger than the end of a trace ltparse reads (1 MiB).
bigtrace() {
	cd "$BATS_TEST_TMPDIR"
	gentrace -n 9000 -x 50 >k.json
	ltparse k.json >k.lt
	ltjson k.lt >a.json
	[ "$(wc -c <a.json)" -gt 1100000 ]
	grep -q '"ts_offset_us":1691000000000000' a.json
	ltparse a.json >a.lt
	diff <(records k.lt) <(records a.lt)
}

@test "ltparse: the offset of a large ltjson trace, minified or pretty-printed, file, pipe or gzip" {
	need gzip
	bigtrace
	# a pretty-printer's way: members on lines of their own, indented
	sed -e 's/,"/,\n  "/g' -e 's/{"/{\n  "/g' a.json >p.json
	grep -qx '  "ts_offset_us":1691000000000000,' p.json
	ltparse p.json | diff a.lt -
	ltparse <a.json | diff a.lt -
	cat a.json | ltparse | diff a.lt -
	cat p.json | ltparse | diff a.lt -
	gzip -c p.json >p.json.gz
	ltparse p.json.gz | diff a.lt -
	gzip -c p.json | ltparse | diff a.lt -
	ltparse <(cat p.json) | diff a.lt -
}

@test "ltparse: the last metadata object of a large trace counts, wherever it is" {
	bigtrace
	# a small member after it, and one larger than the end read
	sed '$s/}$/,"traceName":"x"}/' a.json >m1.json
	ltparse m1.json >m1.lt
	diff <(records a.lt) <(records m1.lt)
	grep -qx $'#top\ttraceName\t"x"' m1.lt
	{ sed '$s/}$/,"pad":"/' a.json | tr -d '\n'
	  head -c 1200000 /dev/zero | tr '\0' x; printf '"}\n'; } >m2.json
	ltparse m2.json | records - | diff <(records a.lt) -
	# before traceEvents
	meta=$(sed -n '$s/^"metadata":\(.*\)}$/\1/p' a.json)
	{ printf '{"metadata":%s,"traceEvents":[\n' "$meta"
	  sed -n '2,/^\]/p' a.json | sed '$d'; printf ']}\n'; } >m3.json
	ltparse m3.json | records - | diff <(records a.lt) -
	# a later metadata that is not an object changes nothing
	sed '$s/}$/,"metadata":null}/' a.json >m4.json
	ltparse m4.json | records - | diff <(records a.lt) -
	# a later metadata object without the offset: the times as written
	sed '$s/}$/,"metadata":{"user":"x"}}/' a.json >m5.json
	ltparse m5.json >m5.lt
	[ "$(records m5.lt | head -n 1 | cut -f 1)" = 1108548132154 ]
	[ "$(records a.lt | head -n 1 | cut -f 1)" = 1692108548132154 ]
}

@test "ltparse: a large trace from another tool has no offset, whatever its members say" {
	need gzip
	bigtrace
	# an escape before the events, which makes ltparse read it all first
	sed '1s/^{$/{"x":"\\u00e9",/' k.json >k2.json
	ltparse k2.json >k2.lt
	diff <(records k.lt) <(records k2.lt)
	# ts_offset_us anywhere but in metadata.litracer is no offset
	sed -e '1s/^{$/{"ts_offset_us":5,"litracer":{"ts_offset_us":5},/' \
	    -e '$s/^}$/,"metadata":{"ts_offset_us":5,"litracer":{"x":5}}}/' \
	    k.json >k3.json
	ltparse k3.json | records - | diff <(records k.lt) -
	# the same, compressed: decompressed twice, or three times
	gzip -c k.json >k.json.gz
	gzip -c k3.json >k3.json.gz
	ltparse k.json.gz | diff k.lt -
	ltparse k3.json.gz | records - | diff <(records k.lt) -
	# nor is one that is not a number
	sed '$s/^}$/,"metadata":{"litracer":{"ts_offset_us":"5"}}}/' \
	    k.json >k4.json
	ltparse k4.json | records - | diff <(records k.lt) -
}

@test "ltparse: a large trace cut short: exit 1, offset only if the metadata was read" {
	bigtrace
	size=$(wc -c <a.json)
	head -c $((size - 2)) a.json >t1.json
	run -1 --separate-stderr sh -c 'ltparse t1.json >t1.lt'
	[ "$stderr" = "ltparse: t1.json:$(($(wc -l <t1.json) + 1)): byte $((size - 1)): the trace ends before its closing '}' (incomplete file)" ]
	# what was written before the error, with the offset
	n=$(records t1.lt | wc -l)
	[ "$n" -gt 1000 ]
	diff <(records a.lt | head -n "$n") <(records t1.lt)
	head -c 700000 a.json >t2.json
	run -1 --separate-stderr sh -c 'ltparse t2.json >t2.lt'
	[[ "$stderr" == "ltparse: t2.json:$(wc -l <t2.json): byte "*": the trace ends inside traceEvents (incomplete file)" ||
	   "$stderr" == "ltparse: t2.json:$(($(wc -l <t2.json) + 1)): byte "*": the trace ends inside an event (incomplete file)" ]]
	[ "$(records t2.lt | head -n 1 | cut -f 1)" = 1108548132154 ]
	nomatch '^#stat' t2.lt
}

@test "ltparse: a raw line feed in a string (repaired) where the end read starts" {
	cd "$BATS_TEST_TMPDIR"
	{ printf '{"traceEvents":[{"ph":"i","ts":1,"pid":1,"tid":1}],"note":"'
	  head -c 1200000 /dev/zero | tr '\0' b
	  printf '\n1]","metadata":{"litracer":{"ts_offset_us":1000}}}\n'; } >s.json
	run -0 ltparse s.json
	[ "${lines[3]}" = $'1001\ti\t1\t1\t-\t\t\t{}\t{}' ]
}

@test "ltparse: errors and warnings deep in a pretty-printed trace name their line and byte" {
	cd "$BATS_TEST_TMPDIR"
	gentrace -n 3000 -x 10 >k.json
	n=$(grep -n '"ph": "X"' k.json | sed -n '500p' | cut -d: -f1)
	[ "$n" -gt 1000 ]
	# no ':' after a key: the error is at the value's quote
	sed "${n}s/\"ph\": \"X\"/\"ph\" \"X\"/" k.json >bad.json
	b=$(awk -v n="$n" 'NR < n { off += length($0) + 1 }
	    NR == n { print off + index($0, "\"ph\" \"X\"") + 5; exit }' bad.json)
	run -1 --separate-stderr sh -c 'ltparse bad.json >/dev/null'
	[ "$stderr" = "ltparse: bad.json:$n: byte $b: expected ':' after key" ]
	# an event without ph is skipped, on the line of its '{'
	sed "${n}s/\"ph\": \"X\"/\"qh\": \"X\"/" k.json >noph.json
	[ "$(sed -n "$((n - 1))p" noph.json)" = '  {' ]
	run -0 --separate-stderr sh -c 'ltparse -v noph.json >/dev/null'
	[ "$stderr" = "ltparse: noph.json:$((n - 1)): skipped an event without ph" ]
}

@test "ltparse -P: a log cut shorter while a part reads it (logrotate's copytruncate) is an error naming it, exit 2" {
	need genlog
	T=$BATS_TEST_TMPDIR
	# 20 MB, far more than the pipe and the output buffer hold: the part
	# blocks writing with the rest of the file unread, the file is cut
	# to nothing, then the pipe is drained
	genlog -n 100000 -s 3 -q >"$T/t.log"
	sh -c '{ ltparse -P 1/1 "$1" 2>"$1.err"; echo $? >"$1.st"; } |
	    { head -c 1 >/dev/null; : >"$1"; cat >/dev/null; }' sh "$T/t.log"
	[ "$(cat "$T/t.log.st")" = 2 ]
	[ "$(cat "$T/t.log.err")" = "ltparse: $T/t.log: shrank while it was read" ]
}

@test "ltparse -P -S: a log that grows while the parts start is read by all as it was when the first started" {
	need genlog
	T=$BATS_TEST_TMPDIR
	genlog -n 4000 -s 11 -q >"$T/full.log"
	head -n 2000 "$T/full.log" >"$T/prefix.log"
	tail -n +2001 "$T/full.log" >"$T/rest.log"
	ltparse "$T/prefix.log" >"$T/whole"
	# part 1 runs first, alone (it waits for no other part), then the log
	# grows, then part 2 runs
	cp "$T/prefix.log" "$T/F.log"
	mkdir "$T/d"
	ltparse -P 1/2 -S "$T/d" "$T/F.log" >"$T/p1"
	cat "$T/rest.log" >>"$T/F.log"
	ltparse -P 2/2 -S "$T/d" "$T/F.log" >"$T/p2"
	cat "$T/p1" "$T/p2" | cmp "$T/whole" -
	[ -z "$(ls "$T/d")" ]
	# the other way round: part 2 starts first and waits for part 1,
	# which starts once the log has grown
	cp "$T/prefix.log" "$T/G.log"
	mkdir "$T/e"
	ltparse -P 2/2 -S "$T/e" "$T/G.log" >"$T/q2" 3>&- &
	pid=$!
	while [ ! -e "$T/e/ltparse.run" ] && kill -0 "$pid"; do sleep 0.1; done
	cat "$T/rest.log" >>"$T/G.log"
	ltparse -P 1/2 -S "$T/e" "$T/G.log" >"$T/q1"
	wait "$pid"
	cat "$T/q1" "$T/q2" | cmp "$T/whole" -
}

@test "ltparse -P -S: a log cut shorter or replaced between the parts' starts ends the run, saying so" {
	need genlog
	T=$BATS_TEST_TMPDIR
	genlog -n 4000 -s 11 -q >"$T/F.log"
	size=$(wc -c <"$T/F.log")
	mkdir "$T/d"
	ltparse -P 1/2 -S "$T/d" "$T/F.log" >/dev/null
	truncate -s 100000 "$T/F.log"
	run -2 --separate-stderr ltparse -P 2/2 -S "$T/d" "$T/F.log"
	[ "$stderr" = "ltparse: $T/F.log: shrank while it was read (100000 bytes, $size before)" ]
	[[ "$output" != *"#stat"* ]]
	rm -rf "$T/d"
	mkdir "$T/d"
	genlog -n 4000 -s 11 -q >"$T/F.log"
	ltparse -P 1/2 -S "$T/d" "$T/F.log" >/dev/null
	cp "$T/F.log" "$T/new.log"
	mv "$T/new.log" "$T/F.log"
	run -2 --separate-stderr ltparse -P 2/2 -S "$T/d" "$T/F.log"
	[ "$stderr" = "ltparse: $T/F.log: not the file the other parts of this run read ($T/d/ltparse.run): replaced while it was read, or the directory of another run" ]
}

@test "ltparse: the pid and tid columns follow the thread of each line when threads interleave" {
	for i in 1 2 3; do
		printf 'ts:%d.0;PID:7; TID:111; name: read;ph: B;cat: read;\n' "${i}01"
		printf 'ts:%d.0;PID:7; TID:222; name: read;ph: B;cat: read;\n' "${i}02"
		printf 'ts:%d.0;PID:7; TID:111; name: read;ph: B;cat: read;\n' "${i}03"
		printf 'ts:%d.0;PID:8; TID:333; name: read;ph: B;cat: read;\n' "${i}04"
	done > "$BATS_TEST_TMPDIR/il.log"
	ltparse "$BATS_TEST_TMPDIR/il.log" > "$BATS_TEST_TMPDIR/il.lt1"
	got=$(awk -F'\t' '$2 == "B" { printf "%s.%s ", $3, $4 }' "$BATS_TEST_TMPDIR/il.lt1")
	[ "$got" = "7.1 7.2 7.1 8.1 7.1 7.2 7.1 8.1 7.1 7.2 7.1 8.1 " ] || { echo "$got"; false; }
}

@test "ltparse: a process of many threads keeps each one's tid, past the few it looks up on a list, whole and in parts" {
	T=$BATS_TEST_TMPDIR
	# 3 processes; threads come back in an interleaved order, 12 of
	# them each in the first half of the log, 40 in the second.
	awk 'BEGIN { for (i = 0; i < 600; i++) {
		p = 100 + i % 3; t = 140000000000000 + (i * 7919) % (i < 300 ? 12 : 40)
		printf "ts:%d.0;PID:%d; TID:%.0f; name: read;ph: B;cat: read;\n", 1000 + i, p, t
	} }' > "$T/many.log"
	ltparse "$T/many.log" > "$T/whole"
	# every (pid, OS thread) has one tid, tids 1.. in order of first
	# appearance within the process: 40 threads per process
	paste -d' ' <(grep -o 'PID:[0-9]*; TID:[0-9]*' "$T/many.log") \
	    <(awk -F'\t' '$2 == "B" { print $3 "." $4 }' "$T/whole") | sort -u > "$T/pairs"
	[ "$(wc -l < "$T/pairs")" -eq 120 ]
	[ "$(cut -d' ' -f1-2 "$T/pairs" | sort -u | wc -l)" -eq 120 ]
	[ "$(cut -d' ' -f3 "$T/pairs" | sort -u | wc -l)" -eq 120 ]
	awk '{ sub(/^PID:/, "", $1); split($3, a, "."); if (a[1] != $1 + 0) exit 1 }' "$T/pairs"
	first=$(awk -F'\t' '$2 == "B" && $3 == 100 && !s[$4]++ { printf "%s ", $4 }' "$T/whole")
	[ "$first" = "$(seq -s' ' 1 40) " ] || { echo "$first"; false; }
	# the names at the end: one per thread, its OS id
	[ "$(grep -c '	thread_name	{"name":"main 1400000000000[0-9]*"}' "$T/whole")" -eq 120 ]
	# parts sharing their state give the same bytes
	mkdir "$T/run"
	pids=
	for k in 1 2 3; do
		ltparse -P $k/3 -S "$T/run" "$T/many.log" > "$T/part$k" &
		pids="$pids $!"
	done
	for p in $pids; do wait "$p"; done
	cat "$T/part1" "$T/part2" "$T/part3" | cmp - "$T/whole"
}
