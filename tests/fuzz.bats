#!/usr/bin/env bats
# fuzz: the libFuzzer harnesses tests/fuzz/fuzz_*.c, built by make check
# with the normal compiler and tests/fuzz/main.c (no libFuzzer) into
# tests/fuzz/bin/, replay the seeds of tests/fuzz/seeds: a harness that
# no longer builds fails make check, one whose checks fail on a seed
# fails here.  make fuzz builds them with libFuzzer and fuzzes.

bats_require_minimum_version 1.5.0
load helper

@test "fuzz harnesses: every one is built by make check and replays every seed" {
	local c h n=0
	for c in "$TOP"/tests/fuzz/fuzz_*.c; do
		h=$TOP/tests/fuzz/bin/$(basename "$c" .c)
		[ -x "$h" ] || { echo "$h is not built (make check builds it)"; false; }
		[ "$h" -nt "$c" ] || { echo "$h is older than $c (make check builds it)"; false; }
		"$h" "$TOP"/tests/fuzz/seeds/* >"$BATS_TEST_TMPDIR/out" 2>&1 ||
		    { echo "${h##*/}: exit $? on the seeds"; cat "$BATS_TEST_TMPDIR/out"; false; }
		n=$((n + 1))
	done
	[ "$n" -ge 10 ]
}

@test "fuzz harnesses without libFuzzer: an unreadable input is exit 2, named" {
	run -2 --separate-stderr "$TOP/tests/fuzz/bin/fuzz_json" "$BATS_TEST_TMPDIR/nosuch"
	# (argv[0]: the path, or the name under CI's qemu wrapper)
	[[ $stderr == *"fuzz_json: $BATS_TEST_TMPDIR/nosuch: No such file or directory" ]]
	run -2 --separate-stderr "$TOP/tests/fuzz/bin/fuzz_json" "$BATS_TEST_TMPDIR"
	[[ $stderr == *": $BATS_TEST_TMPDIR: Is a directory" ]]
}
