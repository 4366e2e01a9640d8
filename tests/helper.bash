# tests/helper.bash: loaded by every bats file (load helper).
# Puts the freshly built tools first in PATH and gives small helpers.

TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
PATH="$TOP/tools:$TOP/tests/gen:$TOP/tests/bench:$PATH"
DATA="$TOP/tests/data"
export TOP PATH DATA
export LC_ALL=C

# golden EXPECTED CMD [ARG...]: CMD must exit 0 and its stdout must equal
# the file EXPECTED.  UPDATE=1 (make check UPDATE=1) rewrites EXPECTED.
golden() {
	local want=$1
	shift
	if ! "$@" >"$BATS_TEST_TMPDIR/golden.out" 2>"$BATS_TEST_TMPDIR/golden.err"; then
		echo "failed: $*" >&2
		cat "$BATS_TEST_TMPDIR/golden.err" >&2
		return 1
	fi
	if [ -n "${UPDATE:-}" ]; then
		cp "$BATS_TEST_TMPDIR/golden.out" "$want"
	fi
	diff -u "$want" "$BATS_TEST_TMPDIR/golden.out"
}

# need CMD: skip the test, saying why, when CMD is not installed.
need() {
	command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed"
}

# json_ok FILE: FILE is valid JSON for an independent parser (node).
json_ok() {
	need node
	node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$1"
}

# stat_of TOOL KEY FILE: the value of KEY in TOOL's #stat line of FILE.
stat_of() {
	awk -F '\t' -v tool="$1" -v key="$2" '
		$1 == "#stat" && $2 == tool {
			for (i = 3; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] == key) v = kv[2]
			}
		}
		END { if (v == "") exit 1; print v }' "$3"
}

# records FILE: the lt1 records of FILE, without header and directives.
records() {
	grep -v '^#' "$1" || true
}

# synopsis TOOL: the SYNOPSIS of TOOL's man page as one line of text.
synopsis() {
	mandoc -Tascii "$TOP/man/$1.1" | sed -e 's/.\x08//g' |
	    awk '/^SYNOPSIS/ { s = 1; next }
		s && /^[A-Z]/ { exit }
		s && NF { sub(/^ +/, ""); line = line (line == "" ? "" : " ") $0 }
		END { print line }'
}
