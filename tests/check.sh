#!/bin/sh
# tests/check.sh: make check's runner.  Runs the bats files under prove,
# keeps each file's TAP, then prints what bats said about each failed
# test (prove shows only its number), what the tests that compare two
# traces compared ("# compared" lines), how many tests were skipped and
# why (prove prints "Result: PASS" even when tests skipped), and, last,
# the failed tests again, where a log's tail shows them: each one's
# name, and the first lines bats said of the first three.
#
# Usage: sh tests/check.sh [file.bats ...]   (default: every tests/*.bats)
# One file runs at a time; LT_JOBS=N runs N (every test works in its own
# $BATS_TEST_TMPDIR).  On a 2-vCPU VM, two at a time cost 46% more CPU
# (each process's grows when both vCPUs are busy) for 14% less time.
# With CI=true in the environment, a test skipped for want of a tool
# ("TOOL is not installed", what tests/helper.bash's need and tp_need
# say) fails the run, naming the tool.
#
# Internally, prove runs "sh tests/check.sh --bats FILE" for each file.
set -eu

if [ "${1:-}" = --bats ]; then
	# One bats file: its TAP to prove and to $LT_TAPDIR, its status kept.
	tap=$LT_TAPDIR/$(echo "$2" | tr / _).tap
	echo "# file $2" >"$tap"
	{ st=0; bats --tap "$2" || st=$?; echo "$st" >"$tap.status"; } |
	    tee -a "$tap"
	exit "$(cat "$tap.status")"
fi

cd "$(dirname "$0")/.."
LT_TAPDIR=$(mktemp -d "${TMPDIR:-/tmp}/litracer-check.XXXXXX")
export LT_TAPDIR
trap 'rm -rf "$LT_TAPDIR"' EXIT
trap 'exit 2' HUP INT TERM

[ $# -gt 0 ] || set -- tests/
st=0
prove -j "${LT_JOBS:-1}" -e 'sh tests/check.sh --bats' --ext .bats "$@" ||
    st=$?

# prove hides what bats says about a failed test: its "#" lines after
# "not ok".  Print them, then the skips, "ok N name # skip REASON".
cat "$LT_TAPDIR"/*.tap | awk -v ci="${CI:-}" '
/^# file / { file = substr($0, 8); next }
/^1\.\.[0-9]+$/ { total += substr($0, 4) }
/^# compared / { compared[++ncompared] = substr($0, 12) }
/^(not )?ok / { failed = 0 }
/^not ok / {
	failed = ++nfailed; said = 0
	failure[nfailed] = file ": " $0
	printf "\n%s\n", failure[nfailed]
	next
}
failed && /^#/ {
	if (++said <= 60)
		print
	else if (said == 61)
		print "# ..."
	if (failed <= 3 && said <= 5)
		failure[failed] = failure[failed] "\n    " $0
}
/^ok .* # skip/ {
	why = $0
	sub(/.* # skip */, "", why)
	if (why == "")
		why = "(no reason given)"
	if (!(why in n)) {
		order[++kinds] = why
		if (ci == "true" && why ~ /is not installed/)
			missing = missing "\n  " why
	}
	n[why]++
	skipped++
}
END {
	if (nfailed)
		print ""
	if (ncompared) {
		print "JSON and .pftrace compared in Perfetto (tests/perfetto.bats):"
		for (i = 1; i <= ncompared; i++)
			print "  " compared[i]
	}
	if (skipped == 0) {
		printf "Skipped: none of %d tests\n", total
	} else {
		printf "Skipped: %d of %d tests:\n", skipped, total
		for (i = 1; i <= kinds; i++)
			printf "%6d  %s\n", n[order[i]], order[i]
	}
	if (nfailed) {
		printf "Failed: %d of %d tests:\n", nfailed, total
		for (i = 1; i <= nfailed; i++)
			print "  " failure[i]
	}
	if (missing != "") {
		printf "CI=true: tests may not skip for a missing tool:%s\n", missing
		exit 1
	}
}' || st=1
exit "$st"
