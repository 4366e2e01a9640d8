#!/usr/bin/env bats
# harness: the test helpers themselves fail when they must.  Each torture
# loop is given a program that crashes and must catch it, keep or name
# the input, and tests/check.sh must count skips and fail CI on a
# missing tool.

bats_require_minimum_version 1.5.0

setup() {
	load helper
	T=$BATS_TEST_TMPDIR
	export LT_KEEP=$T
	mkdir "$T/bin"
}

# fake NAME BODY: a program NAME in $T/bin whose sh BODY sees the input
# file as $1; "crash" in BODY aborts it, as a sanitizer would.
fake() {
	printf '#!/bin/sh\ncrash() { kill -ABRT $$; }\n%s\n' "$2" >"$T/bin/$1"
	chmod +x "$T/bin/$1"
}

@test "prefixes: a crash on one prefix fails, naming and keeping it" {
	fake big 'if [ "$(wc -c <"$1")" -gt 50 ]; then crash; fi; exit 1'
	printf '%0100d' 0 >"$T/in"
	run -1 prefixes 10 "$T/in" "$T/bin/big"
	[[ "$output" == *"/big: crashed (exit 134) on the first 60 bytes of $T/in (head -c 60)"$'\n'* ]]
	[[ "${lines[-1]}" == "the input is kept in $T/litracer-input."* ]]
	cmp "${lines[-1]##* }" <(head -c 60 "$T/in")
	# exit 0 and 1 are fine, and the whole file is tried last
	fake whole 'if [ "$(wc -c <"$1")" -eq 100 ]; then exit 2; fi; exit 1'
	run -1 prefixes 30 "$T/in" "$T/bin/whole"
	[[ "${lines[0]}" == *"crashed (exit 2) on the first 100 bytes"* ]]
	run -0 prefixes 7 "$T/in" "$T/bin/whole" -x
}

@test "prefixes -m: many prefixes a run; a crash, a report or exit 1 tries each alone" {
	printf '%0100d' 0 >"$T/in"
	# runs with several files crash: every prefix is still tried alone
	fake batch 'if [ $# -gt 1 ]; then crash; fi; exit 0'
	run -0 prefixes -m 8 3 "$T/in" "$T/bin/batch"
	# the crash is found in its batch and named, 0 and 100 bytes tried
	fake big 'for f; do if [ "$(wc -c <"$f")" -eq 60 ]; then crash; fi; done; exit 0'
	run -1 prefixes -m 4 10 "$T/in" "$T/bin/big"
	[[ "$output" == *"/big: crashed (exit 134) on the first 60 bytes of $T/in (head -c 60)"$'\n'* ]]
	cmp "${lines[-1]##* }" <(head -c 60 "$T/in")
	fake ub 'for f; do if [ "$(wc -c <"$f")" -eq 0 ]; then echo "runtime error: x" >&2; fi; done; exit 0'
	run -1 prefixes -m 50 1 "$T/in" "$T/bin/ub"
	[[ "$output" == *"crashed (exit 0) on the first 0 bytes"* ]]
	fake whole 'for f; do if [ "$(wc -c <"$f")" -eq 100 ]; then exit 2; fi; done; exit 0'
	run -1 prefixes -m 1000 7 "$T/in" "$T/bin/whole"
	[[ "${lines[0]}" == *"crashed (exit 2) on the first 100 bytes"* ]]
	# a run of many files that exits 1 is made again one by one
	fake one 'if [ $# -gt 1 ]; then exit 1; fi; [ "$(wc -c <"$1")" -ne 30 ] || crash; exit 0'
	run -1 prefixes -m 5 10 "$T/in" "$T/bin/one"
	[[ "$output" == *"crashed (exit 134) on the first 30 bytes"* ]]
}

@test "survives: a sanitizer report fails even with exit 1" {
	fake ub 'echo "x.c:1:2: runtime error: signed integer overflow" >&2; exit 1'
	: >"$T/in"
	run -1 survives "an empty file" "$T/in" "$T/bin/ub"
	[[ "$output" == *"crashed (exit 1) on an empty file"*"runtime error: signed"* ]]
	fake asan 'echo "==1==ERROR: AddressSanitizer: heap-buffer-overflow" >&2; exit 1'
	run -1 survives "an empty file" "$T/in" "$T/bin/asan"
	fake quiet 'echo "quiet: $1:1: bad data" >&2; exit 1'
	run -0 survives "an empty file" "$T/in" "$T/bin/quiet"
}

@test "garbage: the seed of the input that crashed replays it" {
	# crashes on an input without the lt1 header: the first one
	fake nohead 'if [ "$(head -c 4 "$1")" != "#lt1" ]; then crash; fi; exit 1'
	LT_SEED=4242 run -1 garbage 3 "$T/bin/nohead"
	[[ "$output" == *"crashed (exit 134) on 600 random bytes; replay: LT_SEED=4242 bats "* ]]
	cmp "${lines[-1]##* }" <(randbytes 4242 600)
	# with the header, on the second seed
	fake second 'if cmp -s "$1" "'"$T/second"'"; then crash; fi; exit 1'
	{ echo '#lt1'; randbytes 4243 3000; } >"$T/second"
	LT_SEED=4242 run -1 garbage 3 "$T/bin/second"
	[[ "$output" == *"on #lt1 and 3000 random bytes; replay: LT_SEED=4243 "* ]]
	# the bytes are random, and the same for a seed
	[ "$(randbytes 1 3000 | od -An -v -tx1 | tr -s ' ' '\n' | sort -u | wc -l)" -gt 250 ]
	cmp <(randbytes 7 100) <(randbytes 7 100)
	run -1 cmp -s <(randbytes 7 100) <(randbytes 8 100)
}

@test "mutants: a crash on a damaged stream names its seed" {
	fake third 'if [ -e "$0.n" ]; then crash; fi; : >"$0.n"; exit 0'
	run -1 mutants 5 "$DATA/ltpair/chrome.lt1" "$T/bin/third"
	[[ "$output" == *"on awk -v seed=2 -f $DATA/ltpair/mutate.awk $DATA/ltpair/chrome.lt1"$'\n'* ]]
}

@test "survive_each: every input runs; the first crash is said and kept, even one that does not come again" {
	local i in=()
	for i in 1 2 3 4 5; do
		echo "$i" >"$T/in.$i"
		in+=("$T/in.$i")
	done
	what() { echo "input ${1##*.}"; }
	# every input runs, in order, each once
	fake log 'cat "$1" >>"$0.log"; exit 1'
	run -0 survive_each what "$T/bin/log" -- "${in[@]}"
	[ "$(tr -d '\n' <"$T/bin/log.log")" = 12345 ]
	# the first crash ends the loop, said with its words and kept (the
	# input comes last, after the arguments)
	fake c4 'for f; do :; done; cat "$f" >>"$0.log"; [ "$(cat "$f")" -lt 4 ] || crash; exit 0'
	run -1 survive_each what "$T/bin/c4" -x -- "${in[@]}"
	[ "${lines[0]}" = "$T/bin/c4 -x: crashed (exit 134) on input 4" ]
	[[ "${lines[-1]}" == "the input is kept in $T/litracer-input."* ]]
	cmp "${lines[-1]##* }" "$T/in.4"
	[ "$(tr -d '\n' <"$T/bin/c4.log")" = 12344 ]
	# a sanitizer report with exit 0 is a crash too
	fake ub '[ "$(cat "$1")" != 2 ] || echo "x.c:1:2: runtime error: y" >&2; exit 0'
	run -1 survive_each what "$T/bin/ub" -- "${in[@]}"
	[ "${lines[0]}" = "$T/bin/ub: crashed (exit 0) on input 2" ]
	# a crash that the second run does not give fails too, said and kept
	fake once 'if [ ! -e "$0.n" ]; then : >"$0.n"; echo "once: $1" >&2; crash; fi; exit 0'
	run -1 survive_each what "$T/bin/once" -- "${in[@]}"
	[ "${lines[0]}" = "$T/bin/once: crashed once on input 1, not when run again:" ]
	[ "${lines[1]}" = "once: $T/in.1" ]
	cmp "${lines[-1]##* }" "$T/in.1"
	# a program that cannot be started fails the loop: survive says so
	# (under qemu-user, which cannot tell, its run exits 127, and then
	# survives' shell says so)
	run -1 survive_each what "$T/bin/nosuch" -- "${in[@]}"
	[[ "$output" == *"$T/bin/nosuch: No such file or directory"* ]]
	# -m 2: two inputs a run, in order; a run that exits 1 has each of
	# its inputs run alone, and the crash is said as without -m (runs:
	# 1 2, 1, 2, 3 4, 3, 4, and 4 again by survives)
	fake m2 'for f; do cat "$f" >>"$0.log"; done; [ $# -eq 1 ] || exit 1; [ "$(cat "$1")" != 4 ] || crash; exit 0'
	run -1 survive_each -m 2 what "$T/bin/m2" -- "${in[@]}"
	[ "${lines[0]}" = "$T/bin/m2: crashed (exit 134) on input 4" ]
	[ "$(tr -d '\n' <"$T/bin/m2.log")" = 121234344 ]
	run -2 survive -m 0 "$T/err" true -- "${in[@]}"
	[[ "$output" == "usage: survive [-m MAX]"* ]]
}

@test "nomatch: a match or a missing file fails, no match passes" {
	printf 'a\nb\n' >"$T/f"
	run -0 nomatch c "$T/f"
	run -1 nomatch b "$T/f"
	[ "${lines[0]}" = b ]
	run -1 nomatch c "$T/nosuch"
}

@test "need and built: a missing tool skips, or fails with CI=true; a program of ours must be built" {
	CI=true run -1 need no-such-tool-here
	[ "$output" = "no-such-tool-here is not installed (CI=true: a test may not skip for a missing tool)" ]
	run -0 built ltparse genlog
	run -1 built ltnothing
	[ "$output" = "ltnothing is not built (make check builds it)" ]
}

@test "tp_need with no trace processor anywhere: CI=true fails, saying how to get one" {
	CI=true TRACE_PROCESSOR= TOP=$T PATH=/usr/bin:/bin run -1 tp_need
	[[ "$output" == "Perfetto's trace processor is not installed: download trace_processor from https://github.com/google/perfetto/releases"* ]]
	TRACE_PROCESSOR=$T/nosuch run -1 tp_need
	[ "$output" = "TRACE_PROCESSOR=$T/nosuch: not a program" ]
	run -1 tp_query "$T/x.json" 'select 1'
	[ "$output" = "tp_query: call tp_need first" ]
}

@test "tp_queries: one import, each result in a file as tp_query prints it; a bad query fails" {
	tp_need
	printf '{"traceEvents":[{"ph":"X","ts":1,"dur":2,"pid":1,"tid":1,"name":"a"},{"ph":"X","ts":5,"dur":2,"pid":1,"tid":1,"name":"b"}]}' >"$T/t.json"
	local q1="select name from slice order by ts" q2="select 'x' || char(10) || char(10) || 'y' as v"
	local q3="select 1 as z where 0"
	tp_queries "$T/t.json" "$T/r" "$q1" "$q2" "$q3" "$TP_ERRORS"
	cmp "$T/r.1" <(tp_query "$T/t.json" "$q1")
	cmp "$T/r.2" <(tp_query "$T/t.json" "$q2")
	[ ! -s "$T/r.3" ] && [ ! -s "$T/r.4" ]
	[ "$(cat "$T/r.1")" = $'"a"\n"b"' ]
	run -1 tp_queries "$T/t.json" "$T/r" "$q1" "select nosuch from slice"
	[[ "$output" == *"select nosuch from slice"* ]]
}

# check DIR [VAR=VALUE...]: tests/check.sh on DIR, in an environment of
# its own: the bats running this test must not leak into the one it runs
# (its variables, its libexec directory in PATH).
check() {
	local d=$1
	shift
	env -i PATH="${PATH//$BATS_LIBEXEC:/}" HOME="$HOME" TMPDIR="$T" "$@" \
	    sh "$TOP/tests/check.sh" "$d" 3>&-
}

# suite DIR: a bats file in DIR with a test that passes, one that needs a
# tool that does not exist, and two that skip for another reason.  (No
# line here starts with the test keyword: bats would take it as a test
# of this file.)
suite() {
	mkdir "$1"
	{
		echo "load $TOP/tests/helper"
		printf '@test "%s" { %s; }\n' passes true \
		    "needs a tool" "need no-such-tool-here" \
		    "no device" 'skip "no /dev/full"' \
		    "no device either" 'skip "no /dev/full"'
	} >"$1/s.bats"
}

@test "tests/check.sh: its last lines count the skips and say why" {
	suite "$T/s"
	run -0 check "$T/s"
	[ "${lines[-4]}" = "Result: PASS" ]
	[ "${lines[-3]}" = "Skipped: 3 of 4 tests:" ]
	[ "${lines[-2]}" = "     1  no-such-tool-here is not installed" ]
	[ "${lines[-1]}" = "     2  no /dev/full" ]
	rm "$T/s/s.bats"
	printf '@test "a" { true; }\n' >"$T/s/t.bats"
	run -0 check "$T/s"
	[ "${lines[-1]}" = "Skipped: none of 1 tests" ]
}

@test "tests/check.sh: its last lines name the failed tests, with what bats said of the first three" {
	mkdir "$T/f"
	for i in 1 2 3 4; do
		printf '@test "fails %s" { echo "why %s"; false; }\n' "$i" "$i"
	done >"$T/f/f.bats"
	run -1 check "$T/f"
	[ "${lines[-14]}" = "Failed: 4 of 4 tests:" ]
	for i in 1 2 3; do
		[ "${lines[-17 + 4 * i]}" = "  $T/f/f.bats: not ok $i fails $i" ]
		[ "${lines[-16 + 4 * i]}" = "    # (in test file $T/f/f.bats, line $i)" ]
		[ "${lines[-14 + 4 * i]}" = "    # why $i" ]
	done
	[ "${lines[-1]}" = "  $T/f/f.bats: not ok 4 fails 4" ]
}

@test "tests/check.sh with CI=true: a skip for a missing tool fails the run, naming it" {
	suite "$T/s"
	run -1 check "$T/s" CI=true
	[[ "$output" == *"not ok 2 needs a tool"*"no-such-tool-here is not installed (CI=true"* ]]
	# the skips, then the failure again, last
	[[ "$output" == *$'\n     2  no /dev/full\nFailed: 1 of 4 tests:\n  '"$T/s/s.bats: not ok 2 needs a tool"$'\n'* ]]
	[ "${lines[-1]}" = "    # no-such-tool-here is not installed (CI=true: a test may not skip for a missing tool)" ]
	# a test that skips by itself for a tool is caught after the run
	printf '@test "x" { skip "gzip is not installed"; }\n' >"$T/s/s.bats"
	run -1 check "$T/s" CI=true
	[ "${lines[-2]}" = "CI=true: tests may not skip for a missing tool:" ]
	[ "${lines[-1]}" = "  gzip is not installed" ]
}
