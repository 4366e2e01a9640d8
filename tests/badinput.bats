#!/usr/bin/env bats
# Bad input against every program: exit status, message, and no output
# presented as a success when it is partial.

bats_require_minimum_version 1.5.0

setup() {
	load helper
	T=$BATS_TEST_TMPDIR
}

@test "diagnostics show the control characters they quote, escaped" {
	printf '#lt1\r\n' >"$T/crlf"
	for p in ltpair ltfilter ltlanefix ltjson; do
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
