#!/usr/bin/env bats
# ltchain: the stages of a chain in one process give what the same
# programs joined by shell pipes give, byte for byte (stdout, stderr,
# the files written with -o, the exit status by ltchain's rule); -d
# keeps each stage's messages and status apart; a stage's failure ends
# it alone; signals and failures leave no -o temporary behind; usage.

bats_require_minimum_version 1.5.0

setup() {
	load helper
	T=$BATS_TEST_TMPDIR
	S=$DATA/sample.log
	NOENT="No such file or directory"
	USAGE="usage: ltchain [-d dir] program [arg ...]"
	USAGE+=" [| program [arg ...]] [|| program [arg ...]] ..."
}

# same_as_pipes STATUS [-i FILE] STAGE...: ltchain runs the stages
# (operands of ltchain, '|' or '||' between two) in $T/chain, and bash joins the
# same commands by pipes in $T/pipe, both reading FILE (or nothing).
# ltchain exits STATUS, and so would the pipeline by ltchain's rule (the
# first status neither 0 nor 141); stdout, stderr and the files the
# stages wrote (-o, relative) are the same, and neither run leaves
# another file.  Outputs in $T/chain.out and $T/pipe.out, stderr in
# $T/chain.err.
same_as_pipes() {
	local want=$1 in=/dev/null a cmd='' st=0 s rule=0
	shift
	if [ "$1" = -i ]; then
		in=$2
		shift 2
	fi
	rm -rf "$T/chain" "$T/pipe"
	mkdir "$T/chain" "$T/pipe"
	(cd "$T/chain" && exec ltchain "$@") <"$in" >"$T/chain.out" \
	    2>"$T/chain.err" || st=$?
	for a; do
		if [ "$a" = '|' ] || [ "$a" = '||' ]; then
			cmd+=' |'
		else
			printf -v a '%q' "$a"
			cmd+=" $a"
		fi
	done
	(cd "$T/pipe" && bash -c "$cmd"'; echo "${PIPESTATUS[*]}" >&3') \
	    <"$in" >"$T/pipe.out" 2>"$T/pipe.err" 3>"$T/pipe.st"
	for s in $(<"$T/pipe.st"); do
		if [ "$rule" -eq 0 ] && [ "$s" -ne 141 ]; then
			rule=$s
		fi
	done
	[ "$st" -eq "$want" ] || {
		echo "ltchain exits $st, not $want:"
		cat "$T/chain.err"
		return 1
	}
	[ "$rule" -eq "$want" ] ||
	    { echo "the pipeline: $(<"$T/pipe.st"), not $want"; return 1; }
	cmp "$T/pipe.out" "$T/chain.out"
	diff -u "$T/pipe.err" "$T/chain.err"
	diff -r "$T/pipe" "$T/chain"
}

# chain_d DIR STAGE...: ltchain -d DIR STAGE... in a new DIR, stdout in
# DIR.out, its own stderr in DIR.cerr, its exit status in $st.
chain_d() {
	local d=$1
	shift
	rm -rf "$d"
	mkdir "$d"
	st=0
	ltchain -d "$d" "$@" >"$d.out" 2>"$d.cerr" </dev/null || st=$?
}

# status_is DIR "PROG STATUS"...: DIR/PROG.status holds STATUS for
# each, and DIR holds no other .status file.
status_is() {
	local d=$1 l
	shift
	for l; do
		printf '%s %s\n' "${l% *}" "$(cat "$d/${l% *}.status")"
	done | diff -u <(printf '%s\n' "$@") -
	[ "$(ls "$d" | grep -c '\.status$')" -eq $# ]
}

# bigger LINE FILE: an lt1 stream of genlog's default log (about 20000
# lines) in FILE, with a line that is no record before its line LINE.
bigger() {
	genlog -n 20000 | ltparse >"$2.ok"
	{ head -n $(($1 - 1)) "$2.ok"; echo oops; tail -n "+$1" "$2.ok"; } \
	    >"$2"
}

# termed SEP: ltchain ltparse - | ltpair SEP ltstat -t -o $T/o/R | ltproto
# -o $T/o/P, which has made its temporaries beside $T/o/R (holding
# "old") and waits for input, is sent SIGTERM: it exits 143, says
# nothing, and leaves R as it was and no temporary, in time (a part
# after ||, a child of ltchain, ends on its own once ltchain has).
termed() {
	local st=0
	rm -f "$T/in"
	mkfifo "$T/in"
	ltchain ltparse - '|' ltpair "$1" ltstat -t -o "$T/o/R" '|' \
	    ltproto -o "$T/o/P" <"$T/in" >"$T/out" 2>"$T/err" 3>&- &
	pid=$!
	exec 4>"$T/in"
	for _ in $(seq 100); do
		[ "$(ls -A "$T/o" | wc -l)" -lt 3 ] || break
		sleep 0.05
	done
	[ "$(ls -A "$T/o" | wc -l)" -eq 3 ]
	kill -TERM "$pid"
	wait "$pid" || st=$?
	exec 4>&-
	[ "$st" -eq 143 ]
	for _ in $(seq 100); do
		[ "$(ls -A "$T/o")" != R ] || break
		sleep 0.05
	done
	[ "$(ls -A "$T/o")" = R ]
	[ "$(cat "$T/o/R")" = old ]
	[ ! -s "$T/err" ]
}

# cold_msg PROG WHAT DIR: what PROG says when its cold file cannot be
# made in DIR (TMPDIR), where WHAT stays.
cold_msg() {
	echo "$1: cannot make a temporary file in $3 (TMPDIR): $NOENT;" \
	    "the $2 it holds stay in memory"
}

@test "ltchain: -h, --version, and the man page's synopsis" {
	run -0 ltchain -h
	[ "${lines[0]}" = "$USAGE" ]
	[[ $output == *"--dir"* ]]
	[ "${lines[${#lines[@]} - 1]}" = "programs: ltparse ltpair ltfilter \
ltlanefix ltstat ltjson ltproto" ]
	run -0 ltchain --version
	[ "$output" = "ltchain 0.1.0" ]
	need mandoc
	[ "usage: $(synopsis ltchain)" = "$USAGE" ]
}

# The default chain, byte for byte, with ltstat's report.
@test "ltchain: the default chain of sample.log, as through pipes" {
	built ltchain genlog
	same_as_pipes 0 ltparse -- "$S" '|' ltpair '|' ltlanefix -q '|' \
	    ltstat -t -o REPORT '|' ltjson
	grep -q '^{"traceEvents":\[' "$T/chain.out"
	[ "$(grep -c '"ph":"X"' "$T/chain.out")" -gt 100 ]
	grep -q 'rank' "$T/chain/REPORT"
	[ ! -s "$T/chain.err" ]
}

@test "ltchain: the real LitData logs, as through pipes" {
	local r n=0 log
	for r in a b d e f67 h; do
		log=$DATA/real/$r/litdata_debug.log.gz
		[ -f "$log" ]
		same_as_pipes 0 ltparse -- "$log" '|' ltpair '|' \
		    ltlanefix -q '|' ltstat -t -o REPORT '|' ltjson ||
		    { echo "in run $r"; return 1; }
		[ -s "$T/chain/REPORT" ]
		n=$((n + 1))
	done
	[ "$n" -eq 6 ]
}

# ltstat -t | ltproto to stdout, then with both -o outputs, each
# written through a temporary of its stage's own, renamed at its end.
@test "ltchain: the .pftrace chain, as through pipes" {
	same_as_pipes 0 ltparse -- "$S" '|' ltpair '|' ltlanefix -q '|' \
	    ltstat -t '|' ltproto
	[ "$(head -c 1 "$T/chain.out" | od -An -tx1)" = " 0a" ]
	same_as_pipes 0 ltparse -- "$S" '|' ltpair '|' ltlanefix -q '|' \
	    ltstat -t -o REPORT '|' ltproto -o T.pftrace
	[ ! -s "$T/chain.out" ]
	[ -s "$T/chain/REPORT" ]
	[ -s "$T/chain/T.pftrace" ]
}

# LT_COLD_MEM=1: whatever ltstat and ltproto pack goes to their cold
# files at once, each stage its own, in one process.
@test "ltchain: ltstat and ltproto both spill to their cold files" {
	mkdir "$T/tmp"
	# without a temporary directory, each says so, once, by its name
	LT_COLD_MEM=1 TMPDIR=$T/none same_as_pipes 0 -i "$S" ltparse - \
	    '|' ltpair '|' ltlanefix -q '|' ltstat -t -o REPORT '|' ltproto
	[ "$(sort "$T/chain.err")" = "$(cold_msg ltproto tracks "$T/none")
$(cold_msg ltstat processes "$T/none")" ]
	cp "$T/chain.out" "$T/mem.pftrace"
	cp "$T/chain/REPORT" "$T/mem.report"
	# with one, each its own file, gone at the end
	LT_COLD_MEM=1 TMPDIR=$T/tmp same_as_pipes 0 -i "$S" ltparse - \
	    '|' ltpair '|' ltlanefix -q '|' ltstat -t -o REPORT '|' ltproto
	[ ! -s "$T/chain.err" ]
	[ -z "$(ls -A "$T/tmp")" ]
	cmp "$T/mem.pftrace" "$T/chain.out"
	cmp "$T/mem.report" "$T/chain/REPORT"
	# and what they keep in memory by default gives the same
	ltchain ltparse - '|' ltpair '|' ltlanefix -q '|' ltstat -t '|' \
	    ltproto <"$S" >"$T/hot.pftrace"
	cmp "$T/mem.pftrace" "$T/hot.pftrace"
}

@test "ltchain: ltfilter in the middle, as through pipes" {
	same_as_pipes 0 ltparse -- "$S" '|' ltpair '|' ltfilter --cat read \
	    '|' ltlanefix -q '|' ltjson
	grep -q '"cat":"read"' "$T/chain.out"
	nomatch '"cat":"download"' "$T/chain.out"
	same_as_pipes 0 ltparse -- "$S" '|' ltpair '|' \
	    ltfilter -v -n 'sample*' '|' ltjson
	nomatch '"name":"sample' "$T/chain.out"
}

# Where the columns of a line end and its times, which a stage hands on
# with the line, are what the next stage would read in it: under
# LT_HINTCHECK (the helper sets it) each stage checks, and stops with
# exit 2 on one that differs.  A long job's log, whose lanes ltlanefix
# renames and whose slices it moves, through every stage that hands
# them on: ltparse, ltpair (with -k too), ltfilter, ltlanefix (-k too),
# ltstat -t, and ltjson and ltproto reading them.
@test "ltchain: what a stage hands on with its lines is theirs" {
	[ "$LT_HINTCHECK" = 1 ]
	genlog -n 30000 -e 6 -w 4 -r 2 -a async >"$T/g.log"
	same_as_pipes 0 ltparse -- "$T/g.log" '|' ltpair '|' ltlanefix '|' \
	    ltstat -t -o REPORT '|' ltjson
	[ "$(grep -c 'moved to lane' "$T/chain.err")" -gt 10 ]
	same_as_pipes 0 ltparse -- "$T/g.log" '|' ltpair -k '|' \
	    ltlanefix -q '|' ltjson
	same_as_pipes 0 ltparse -- "$T/g.log" '|' ltpair '|' \
	    ltfilter -c 'read,sample,epoch' '|' ltlanefix -k -q '|' \
	    ltstat -t '|' ltproto
}

# Parts in processes of their own (||), joined by memory they share:
# the same bytes as pipes, what goes with the lines checked against
# them (LT_HINTCHECK), a part after each stage, a program in two parts.
@test "ltchain ||: parts in processes of their own, as through pipes" {
	[ "$LT_HINTCHECK" = 1 ]
	genlog -n 30000 -e 6 -w 4 -r 2 -a async >"$T/g.log"
	same_as_pipes 0 ltparse -- "$T/g.log" '|' ltpair '||' ltlanefix '|' \
	    ltstat -t -o REPORT '|' ltjson
	[ "$(grep -c 'moved to lane' "$T/chain.err")" -gt 10 ]
	grep -q 'rank' "$T/chain/REPORT"
	same_as_pipes 0 ltparse -- "$T/g.log" '||' ltpair '||' \
	    ltfilter -c 'read,sample,epoch' '||' ltlanefix -q '||' \
	    ltstat -t '||' ltproto
	same_as_pipes 0 ltparse -- "$T/g.log" '|' ltfilter -c 'read,sample' \
	    '||' ltpair '|' ltfilter -c read '|' ltjson
	grep -q '"name":"read"' "$T/chain.out"
	! grep -q '"name":"sample"' "$T/chain.out"
	# the stream on standard input, the trace on standard output
	same_as_pipes 0 -i "$T/g.log" ltparse '||' ltpair '|' ltjson
}

# Each part says how its stages ended; one killed by SIGPIPE (its
# output gone) cannot: ltchain says it for it.
@test "ltchain ||: how the stages of each part end" {
	chain_d "$T/d" ltparse -- "$S" '|' ltpair '||' ltlanefix -q '|' \
	    ltjson
	[ "$st" -eq 0 ]
	status_is "$T/d" "ltparse 0" "ltpair 0" "ltlanefix 0" "ltjson 0"
	ltchain ltparse -- "$S" '|' ltpair '|' ltlanefix -q '|' ltjson |
	    cmp - "$T/d.out"
	# a later part's bad option: the part before is cut off (once it
	# has more to write than the memory between them holds)
	genlog -n 50000 >"$T/big.log"
	same_as_pipes 2 ltparse -- "$T/big.log" '|' ltpair '||' \
	    ltfilter --bogus '|' ltjson
	[ "$(head -n 1 "$T/chain.err")" = \
	    "ltfilter: unrecognized option '--bogus'" ]
	chain_d "$T/d" ltparse -- "$T/big.log" '|' ltpair '||' \
	    ltfilter --bogus '|' ltjson
	[ "$st" -eq 2 ]
	status_is "$T/d" "ltparse 141" "ltpair 141" "ltfilter 2" "ltjson 1"
	# bad data in the first part: the next part ends with what came
	bigger 15001 "$T/bad.lt1"
	same_as_pipes 1 ltparse -- "$S" '|' ltpair "$T/bad.lt1" '||' ltjson
	grep -q '^{"traceEvents":\[' "$T/chain.out"
	chain_d "$T/d" ltparse -- "$S" '|' ltpair "$T/bad.lt1" '||' ltjson
	[ "$st" -eq 1 ]
	status_is "$T/d" "ltparse 141" "ltpair 1" "ltjson 0"
	# the reader of the output goes away: 141, nothing said
	rm -rf "$T/d"
	mkdir "$T/d"
	run -0 --separate-stderr bash -c 'ltchain -d "$3" ltparse -- "$1" \
	    "|" ltpair "||" ltlanefix -q "|" ltjson | head -c 100 >"$2";
	    echo "${PIPESTATUS[0]}"' sh "$T/big.log" "$T/head" "$T/d"
	[ "$output" = 141 ]
	[ -z "$stderr" ]
	[ "$(wc -c <"$T/head")" -eq 100 ]
	status_is "$T/d" "ltparse 141" "ltpair 141" "ltlanefix 141" \
	    "ltjson 141"
	for p in ltparse ltpair ltlanefix ltjson; do
		[ ! -s "$T/d/$p.err" ]
	done
	# a signal that ends ltchain ends every part, whose temporaries go
	mkdir "$T/o"
	echo old >"$T/o/R"
	termed '||'
}

# A stage takes the buffer the one before wrote, with the piece of a
# line it had left put in front, when that piece is small: lines of
# every length, some longer than that room, one longer than the
# buffers, go through as through pipes.
@test "ltchain: lines longer than the buffers, as through pipes" {
	ltparse -- "$S" | awk -F '\t' -v OFS='\t' '
	BEGIN { for (x = "x"; length(x) < 700000; x = x x) ; }
	{ print }
	$2 == "B" && ++n % 7 == 0 {
		s = substr(x, 1, n % 50 == 0 ? 700000 : (n * 997) % 40000)
		print $1, "X", $3, $4, 5, "long", "long" n,
		    "{\"s\":\"" s "\"}", "{}"
	}' >"$T/long.lt1"
	[ "$(grep -c '	long	' "$T/long.lt1")" -gt 50 ]
	same_as_pipes 0 ltpair -- "$T/long.lt1" '|' ltlanefix -q '|' ltjson
	[ "$(grep -c '"cat":"long"' "$T/chain.out")" -eq \
	    "$(grep -c '	long	' "$T/long.lt1")" ]
	[ "$(awk '/"cat":"long"/ && length($0) > m { m = length($0) }
	    END { print m }' "$T/chain.out")" -gt 700000 ]
	# between parts, a line longer than the memory's slots (256 KiB)
	cp "$T/chain.out" "$T/one.out"
	same_as_pipes 0 ltpair -- "$T/long.lt1" '||' ltlanefix -q '||' ltjson
	cmp "$T/one.out" "$T/chain.out"
}

# Stacks switched, buffers traded: memcheck finds no error and no leak
# where every stage returns.
@test "ltchain: valgrind-clean on a small long-job log" {
	genlog -n 20000 -e 8 -w 4 -r 2 -a async >"$T/g.log"
	vg ltchain ltparse -- "$T/g.log" '|' ltpair '|' ltlanefix -q '|' \
	    ltstat -t -o "$T/r1" '|' ltjson >"$T/a.json"
	ltparse -- "$T/g.log" | ltpair | ltlanefix -q | ltstat -t -o "$T/r2" |
	    ltjson | cmp - "$T/a.json"
	cmp "$T/r1" "$T/r2"
}

@test "ltchain: ltparse reads ltchain's standard input (-)" {
	same_as_pipes 0 -i "$S" ltparse - '|' ltpair '|' ltjson
	cp "$T/chain.out" "$T/file.json"
	ltparse -- "$S" | ltpair | ltjson >"$T/named.json"
	cmp "$T/named.json" "$T/file.json"
	# from a pipe, which cannot seek
	gzip -dc "$DATA/real/b/litdata_debug.log.gz" >"$T/b.log"
	ltparse -- "$T/b.log" | ltpair | ltjson >"$T/b.json"
	run -0 --separate-stderr bash -c 'cat "$1" |
	    ltchain ltparse - "|" ltpair "|" ltjson >"$2"' \
	    sh "$T/b.log" "$T/c.json"
	[ -z "$stderr" ]
	cmp "$T/b.json" "$T/c.json"
}

# ltpair reads real run a's stream; ltparse, reading sample.log, is cut
# off (141), which is no failure.
@test "ltchain: a later stage given a file reads it, not the stage before" {
	ltparse -- "$DATA/real/a/litdata_debug.log.gz" >"$T/a.lt1"
	same_as_pipes 0 ltparse -- "$S" '|' ltpair "$T/a.lt1" '|' ltjson
	ltpair "$T/a.lt1" | ltjson >"$T/a.json"
	cmp "$T/a.json" "$T/chain.out"
	chain_d "$T/d" ltparse -- "$S" '|' ltpair "$T/a.lt1" '|' ltjson
	[ "$st" -eq 0 ]
	status_is "$T/d" "ltparse 141" "ltpair 0" "ltjson 0"
}

# ltstat and ltproto say they have no temporary directory; a stage given
# as a path is known by its name.
@test "ltchain -d: each stage's messages and status apart" {
	mkdir "$T/tmp"
	LT_COLD_MEM=1 TMPDIR=$T/none chain_d "$T/d" ltparse -- "$S" '|' \
	    /nowhere/ltpair '|' ltlanefix -q '|' ltstat -t '|' ltproto
	[ "$st" -eq 0 ]
	[ ! -s "$T/d.cerr" ]
	[ "$(ls "$T/d" | tr '\n' ' ')" = "ltlanefix.err ltlanefix.status \
ltpair.err ltpair.status ltparse.err ltparse.status ltproto.err \
ltproto.status ltstat.err ltstat.status " ]
	cold_msg ltstat processes "$T/none" | diff -u - "$T/d/ltstat.err"
	cold_msg ltproto tracks "$T/none" | diff -u - "$T/d/ltproto.err"
	[ ! -s "$T/d/ltparse.err" ]
	[ ! -s "$T/d/ltpair.err" ]
	[ ! -s "$T/d/ltlanefix.err" ]
	status_is "$T/d" "ltparse 0" "ltpair 0" "ltlanefix 0" "ltstat 0" \
	    "ltproto 0"
	# the trace is the one written without -d
	LT_COLD_MEM=1 TMPDIR=$T/tmp ltchain ltparse -- "$S" '|' ltpair '|' \
	    ltlanefix -q '|' ltstat -t '|' ltproto >"$T/plain.pftrace"
	cmp "$T/plain.pftrace" "$T/d.out"
	# a directory that is not there: ltchain says so, no stage runs
	run -2 --separate-stderr ltchain -d "$T/nodir" ltparse -- "$S" \
	    '|' ltjson
	[ "$stderr" = "ltchain: $T/nodir/ltparse.err: $NOENT" ]
	[ -z "$output" ]
}

# The stage before is cut off (141), the one after reads the end of its
# input; ltfilter's message, its status 2 is ltchain's.
@test "ltchain: a middle stage's bad option" {
	same_as_pipes 2 ltparse -- "$S" '|' ltfilter --bogus '|' ltjson
	[ ! -s "$T/chain.out" ]
	[ "$(head -n 1 "$T/chain.err")" = \
	    "ltfilter: unrecognized option '--bogus'" ]
	[ "$(sed -n 2p "$T/chain.err")" = "$(ltfilter -h | head -n 1)" ]
	[ "$(wc -l <"$T/chain.err")" -eq 2 ]
	chain_d "$T/d" ltparse -- "$S" '|' ltfilter --bogus '|' ltjson
	[ "$st" -eq 2 ]
	status_is "$T/d" "ltparse 141" "ltfilter 2" "ltjson 1"
	cmp "$T/chain.err" "$T/d/ltfilter.err"
	[ ! -s "$T/d/ltparse.err" ]
	[ ! -s "$T/d/ltjson.err" ]
}

# ltpair fails on its input after 15000 good lines, which it wrote on:
# ltjson ends with what it got.  Then the first stage's failure, and
# the last stage's.
@test "ltchain: bad data in a stage, first, middle or last" {
	bigger 15001 "$T/bad.lt1"
	same_as_pipes 1 ltparse -- "$S" '|' ltpair "$T/bad.lt1" '|' ltjson
	[ "$(cat "$T/chain.err")" = \
	    "ltpair: $T/bad.lt1:15001: expected 9 columns, found 1" ]
	grep -q '^{"traceEvents":\[' "$T/chain.out"
	chain_d "$T/d" ltparse -- "$S" '|' ltpair "$T/bad.lt1" '|' ltjson
	[ "$st" -eq 1 ]
	status_is "$T/d" "ltparse 141" "ltpair 1" "ltjson 0"
	# the first stage: the others read nothing (1); its 2
	same_as_pipes 2 ltparse -- "$T/nosuch" '|' ltpair '|' ltjson
	[ "$(cat "$T/chain.err")" = "ltparse: $T/nosuch: $NOENT" ]
	chain_d "$T/d" ltparse -- "$T/nosuch" '|' ltpair '|' ltjson
	status_is "$T/d" "ltparse 2" "ltpair 1" "ltjson 1"
	# the last stage: 141 before it
	same_as_pipes 2 ltparse -- "$S" '|' ltpair '|' ltjson -Z
	[ "$(head -n 1 "$T/chain.err")" = "ltjson: invalid option -- 'Z'" ]
	chain_d "$T/d" ltparse -- "$S" '|' ltpair '|' ltjson -Z
	[ "$(cat "$T/d/ltpair.status")" = 141 ]
	[ "$(cat "$T/d/ltjson.status")" = 2 ]
}

@test "ltchain: the reader of its output goes away: 141, nothing said" {
	genlog -n 50000 >"$T/big.log"
	run -0 --separate-stderr bash -c 'ltchain ltparse -- "$1" "|" ltpair \
	    "|" ltlanefix -q "|" ltstat -t "|" ltjson | head -c 100 >"$2";
	    echo "${PIPESTATUS[0]}"' sh "$T/big.log" "$T/head"
	[ "$output" = 141 ]
	[ -z "$stderr" ]
	[ "$(wc -c <"$T/head")" -eq 100 ]
	grep -q '^{"traceEvents":\[' "$T/head"
	# with -d, no status is left of a run before: none was written
	mkdir "$T/d"
	for p in ltparse ltpair ltjson; do echo 0 >"$T/d/$p.status"; done
	run -0 --separate-stderr bash -c 'ltchain -d "$3" ltparse -- "$1" \
	    "|" ltpair "|" ltjson | head -c 100 >"$2";
	    echo "${PIPESTATUS[0]}"' sh "$T/big.log" "$T/head" "$T/d"
	[ "$output" = 141 ]
	[ -z "$stderr" ]
	for p in ltparse ltpair ltjson; do
		[ -f "$T/d/$p.status" ]
		[ ! -s "$T/d/$p.status" ]
	done
	[ ! -s "$T/d/ltjson.err" ]
}

# SIGPIPE while ltjson runs, SIGTERM while ltparse waits for input: the
# old file stays as it was, and no stage's temporary is left.
@test "ltchain: a signal that ends it leaves no -o temporary" {
	genlog -n 50000 >"$T/big.log"
	mkdir "$T/o"
	echo old >"$T/o/R"
	run -0 --separate-stderr bash -c 'ltchain ltparse -- "$1" "|" ltpair \
	    "|" ltstat -t -o "$2" "|" ltjson | head -c 100 >/dev/null;
	    echo "${PIPESTATUS[0]}"' sh "$T/big.log" "$T/o/R"
	[ "$output" = 141 ]
	[ -z "$stderr" ]
	[ "$(ls -A "$T/o")" = R ]
	[ "$(cat "$T/o/R")" = old ]
	# ltproto's and ltstat's temporaries are made before ltparse reads
	termed '|'
}

# ltstat -o and ltproto -o that fail on their input (a file, after 15000
# good lines) or are cut off by a stage after them that fails.
@test "ltchain: a failed or cut off stage leaves no -o temporary" {
	bigger 15001 "$T/bad.lt1"
	mkdir "$T/o"
	echo old >"$T/o/R"
	echo old >"$T/o/P"
	chain_d "$T/d" ltparse -- "$S" '|' ltstat -t -o "$T/o/R" \
	    "$T/bad.lt1" '|' ltjson
	[ "$st" -eq 1 ]
	[ "$(cat "$T/d/ltstat.err")" = \
	    "ltstat: $T/bad.lt1:15001: expected 9 columns, found 1" ]
	[ "$(ls -A "$T/o" | tr '\n' ' ')" = "P R " ]
	[ "$(cat "$T/o/R")" = old ]
	chain_d "$T/d" ltparse -- "$S" '|' ltproto -o "$T/o/P" "$T/bad.lt1"
	[ "$st" -eq 1 ]
	status_is "$T/d" "ltparse 141" "ltproto 1"
	[ "$(ls -A "$T/o" | tr '\n' ' ')" = "P R " ]
	[ "$(cat "$T/o/P")" = old ]
	# ltstat -o is cut off by a stage after it that fails
	chain_d "$T/d" ltparse -- "$S" '|' ltstat -t -o "$T/o/R" '|' \
	    ltfilter --bogus
	[ "$st" -eq 2 ]
	status_is "$T/d" "ltparse 141" "ltstat 141" "ltfilter 2"
	[ "$(ls -A "$T/o" | tr '\n' ' ')" = "P R " ]
	# both in one chain: ltproto fails, ltstat is cut off
	chain_d "$T/d" ltparse -- "$S" '|' ltstat -t -o "$T/o/R" '|' \
	    ltproto -o "$T/o/P" "$T/bad.lt1"
	[ "$st" -eq 1 ]
	status_is "$T/d" "ltparse 141" "ltstat 141" "ltproto 1"
	[ "$(ls -A "$T/o" | tr '\n' ' ')" = "P R " ]
	[ "$(cat "$T/o/R")" = old ]
	[ "$(cat "$T/o/P")" = old ]
}

# None writes an output, or a file in -d's directory.
@test "ltchain: usage errors: exit 2, said, and no stage runs" {
	local other="not a stage (ltparse ltpair ltfilter ltlanefix ltstat"
	other+=" ltjson ltproto)" twice="twice in a part of the chain: a"
	twice+=" program runs once in a process"
	mkdir "$T/d"
	run -2 --separate-stderr ltchain
	[ "$stderr" = "$USAGE" ]
	run -2 --separate-stderr ltchain -d "$T/d"
	[ "$stderr" = "$USAGE" ]
	run -2 --separate-stderr ltchain -x ltpair
	[ "$stderr" = "ltchain: invalid option -- 'x'
$USAGE" ]
	# an empty stage: first, last, between two, alone
	run -2 --separate-stderr ltchain -d "$T/d" '|' ltparse -- "$S"
	[ "$stderr" = "$USAGE" ]
	run -2 --separate-stderr ltchain -d "$T/d" ltparse -- "$S" '|'
	[ "$stderr" = "$USAGE" ]
	run -2 --separate-stderr ltchain -d "$T/d" ltparse -- "$S" '|' '|' \
	    ltjson
	[ "$stderr" = "$USAGE" ]
	run -2 --separate-stderr ltchain -d "$T/d" '|'
	[ "$stderr" = "$USAGE" ]
	# not a stage: unknown, or a program of the toolkit that is none
	run -2 --separate-stderr ltchain -d "$T/d" ltparse -- "$S" '|' ltfoo
	[ "$stderr" = "ltchain: ltfoo: $other" ]
	run -2 --separate-stderr ltchain -d "$T/d" ltparse -- "$S" '|' \
	    "$TOP/tools/bin/ltcheck"
	[ "$stderr" = "ltchain: $TOP/tools/bin/ltcheck: $other" ]
	# one program twice, by name or by path
	run -2 --separate-stderr ltchain -d "$T/d" ltparse -- "$S" '|' \
	    ltpair '|' ltfilter '|' ltpair
	[ "$stderr" = "ltchain: ltpair: $twice" ]
	run -2 --separate-stderr ltchain -d "$T/d" ltparse -- "$S" '|' \
	    ltpair '|' ./x/ltpair
	[ "$stderr" = "ltchain: ./x/ltpair: $twice" ]
	run -2 --separate-stderr ltchain -d "$T/d" ltparse -- "$S" '||' \
	    ltpair '|' ltjson '|' ltpair
	[ "$stderr" = "ltchain: ltpair: $twice" ]
	# an empty part
	run -2 --separate-stderr ltchain -d "$T/d" ltparse -- "$S" '||' '|' \
	    ltjson
	[ "$stderr" = "$USAGE" ]
	run -2 --separate-stderr ltchain -d "$T/d" ltparse -- "$S" '||'
	[ "$stderr" = "$USAGE" ]
	[ -z "$output" ]
	[ -z "$(ls -A "$T/d")" ]
}

# ltstat -m: 3 when a wait share is above it; the trace is written all
# the same.
@test "ltchain: exit 0 when every stage succeeds, ltstat -m's 3" {
	same_as_pipes 0 ltparse -- "$S" '|' ltpair '|' ltstat -t -m 100 '|' \
	    ltjson
	same_as_pipes 3 ltparse -- "$S" '|' ltpair '|' ltstat -t -m 50 '|' \
	    ltjson
	grep -q '^{"traceEvents":\[' "$T/chain.out"
	chain_d "$T/d" ltparse -- "$S" '|' ltpair '|' ltstat -t -m 50 '|' \
	    ltjson
	[ "$st" -eq 3 ]
	status_is "$T/d" "ltparse 0" "ltpair 0" "ltstat 3" "ltjson 0"
}
