# tests/helper.bash: loaded by every bats file (load helper).
# Puts the freshly built tools first in PATH and gives the helpers the
# tests share: golden files, streams, skips, torture loops that keep what
# broke a tool, and the real Perfetto importer.
#
# Every helper that checks something returns non-zero when the check
# fails, so a test fails on it wherever it stands (bats runs tests with
# set -e).  Never put one after ! or before || true.

# bats makes BATS_TEST_DIRNAME absolute: no subshell a test for TOP
case $BATS_TEST_DIRNAME in
/?*/*) TOP=${BATS_TEST_DIRNAME%/*} ;;
*) TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd) ;;
esac
PATH="$TOP/tools/bin:$TOP/tests/gen:$TOP/tests/bench:$PATH"
DATA="$TOP/tests/data"
export TOP PATH DATA
export LC_ALL=C
# Every ltchain (litracer runs two) checks what a stage hands on with a
# line against the line (ltchain(1), LT_HINTCHECK): a wrong one stops it.
export LT_HINTCHECK=1

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

# Skips.  A test skips only for want of something outside the project,
# and says what: tests/check.sh lists the reasons after the run.

# missing WHY: skip the test because a tool is missing; WHY says which
# ("node is not installed").  With CI=true the test fails instead: CI
# installs every tool, so a skip there hides a test that did not run.
missing() {
	if [ "${CI:-}" = true ]; then
		echo "$1 (CI=true: a test may not skip for a missing tool)" >&2
		return 1
	fi
	skip "$1"
}

# need CMD: skip the test, saying why and which Debian package has CMD,
# when CMD is not installed.
need() {
	local pkg=
	command -v "$1" >/dev/null 2>&1 && return 0
	case $1 in
	gzip|jq|mandoc|valgrind) pkg=$1 ;;
	nm) pkg=binutils ;;
	node) pkg=nodejs ;;
	script) pkg=bsdutils ;;
	tsort) pkg=coreutils ;;
	esac
	missing "$1 is not installed${pkg:+ (Debian: apt-get install $pkg)}"
}

# vg PROG ARG...: PROG of tools/bin run under valgrind's memcheck (an
# error or a leak fails it), or as it is where valgrind cannot run it: a
# sanitized build (make check-asan) checks itself, and what is not a
# native ELF file (CI's aarch64 wrappers) runs under qemu.
vg() {
	local p=$TOP/tools/bin/$1
	shift
	need valgrind
	if grep -q __asan_init "$p" ||
	    [ "$(od -An -c -N4 "$p" | tr -d ' ')" != 177ELF ]; then
		"$p" "$@"
	else
		valgrind -q --error-exitcode=99 --leak-check=full \
		    --errors-for-leak-kinds=all "$p" "$@"
	fi
}

# built NAME...: each NAME is a program of this project (tools/bin/,
# tests/gen/, tests/bench/) and is built.  Fails, never skips: what make
# check builds must be there.
built() {
	local n
	for n in "$@"; do
		[ -x "$TOP/tools/bin/$n" ] || [ -x "$TOP/tests/gen/$n" ] ||
		    [ -x "$TOP/tests/bench/$n" ] ||
		    { echo "$n is not built (make check builds it)" >&2; return 1; }
	done
}

# json_ok FILE: FILE is valid JSON for an independent parser (node).
json_ok() {
	need node
	node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$1"
}

# jget FILE EXPR: EXPR evaluated by node on the JSON object o of FILE.
# Called in $(...), where a skip ends only the subshell: a test that
# uses it says "need node" first.
jget() {
	need node
	node -e 'const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		const v = eval(process.argv[2]);
		console.log(typeof v === "object" ? JSON.stringify(v) : String(v))' "$1" "$2"
}

# Streams.

# lt FILE: write stdin, with TABs for '|', as an lt1 stream file.
lt() {
	{ echo '#lt1'; tr '|' '\t'; } >"$1"
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

# nomatch [GREP-OPTION...] PATTERN FILE...: no line of FILE matches;
# the lines that do are printed.  A grep error (no such file) fails too,
# where "! grep -q" would pass.
nomatch() {
	local st=0
	grep "$@" || st=$?
	[ "$st" -eq 1 ] || { echo "nomatch $*: grep exit $st" >&2; return 1; }
}

# bad TOOL INPUT MESSAGE [OPTION...]: TOOL OPTION... on a file holding
# INPUT (printf %b) exits 1, says "TOOL: FILE:MESSAGE" and nothing else on
# stderr, and writes no #stat line of its own (no success).
# shellcheck disable=SC2154 # bats' run sets output and stderr
bad() {
	local tool=$1 in=$2 want=$3
	shift 3
	printf '%b' "$in" >"$BATS_TEST_TMPDIR/bad"
	run -1 --separate-stderr "$tool" "$@" "$BATS_TEST_TMPDIR/bad" || return 1
	[ "$stderr" = "$tool: $BATS_TEST_TMPDIR/bad:$want" ] ||
	    { echo "got: $stderr"; return 1; }
	[[ $output != *"#stat	$tool"* ]] || { echo "#stat after an error"; return 1; }
}

# synopsis TOOL: the SYNOPSIS of TOOL's man page as one line of text
# (by mandoc: a test that uses it says "need mandoc" first).
synopsis() {
	mandoc -Tascii "$TOP/man/$1.1" | sed -e 's/.\x08//g' |
	    awk '/^SYNOPSIS/ { s = 1; next }
		s && /^[A-Z]/ { exit }
		s && NF { sub(/^ +/, ""); line = line (line == "" ? "" : " ") $0 }
		END { print line }'
}

# readme_shows CMD: does the standard input begin with what README.md
# shows after the line "$ CMD", up to a line "..."?  (More than 20
# lines of it, or the test fails; diff says what differs.)
readme_shows() {
	local r=$BATS_TEST_TMPDIR/readme
	awk -v a="\$ $1" 'on && $0 == "..." { exit } on { print } $0 == a { on = 1 }' \
	    "$TOP/README.md" >"$r"
	[ "$(wc -l <"$r")" -gt 20 ] || return 1
	head -n "$(wc -l <"$r")" | diff "$r" -
}

# Torture: inputs no tool may crash on (jq's prefix test, random bytes,
# mutated streams).  A tool survives an input when it exits 0 (done) or 1
# (bad data) with no sanitizer report; under make check-asan a crash is
# an abort (134).  What broke a tool is kept, or can be made again from
# the seed printed, so the failure can be replayed.  The loops run in a
# subshell without bats' DEBUG trap, which costs more per command than
# the tools they run.

# keep FILE: copy FILE where it outlives the test run ($LT_KEEP, else
# $TMPDIR, else /tmp) and say where.
keep() {
	local k
	k=$(mktemp "${LT_KEEP:-${TMPDIR:-/tmp}}/litracer-input.XXXXXX") &&
	    cp "$1" "$k" && echo "the input is kept in $k"
}

# survives WHAT INPUT CMD [ARG...]: CMD ARG... INPUT exits 0 or 1 with no
# sanitizer report; else say so with WHAT (how INPUT was made), the exit
# status and stderr, keep INPUT and fail.
survives() {
	local what=$1 in=$2 st=0 e='' err="$BATS_TEST_TMPDIR/survives.err"
	shift 2
	"$@" "$in" >/dev/null 2>"$err" || st=$?
	if [ -s "$err" ]; then
		IFS= read -r -d '' e <"$err" || :	# no fork, as $(<) has
	fi
	if [ "$st" -le 1 ] && [[ $e != *Sanitizer* && $e != *"runtime error:"* ]]; then
		return 0
	fi
	echo "$*: crashed (exit $st) on $what"
	if [ -n "$e" ]; then
		printf '%s\n' "$e" | head -n 40
	fi
	keep "$in"
	return 1
}

# survive_each [-m MAX] WHAT CMD [ARG...] -- INPUT...: CMD ARG...
# survives every INPUT, each started by tests/gen/survive (posix_spawn,
# at about half the cost of bats' shell forking itself); with -m, up to
# MAX of them a run (survive(1)'s -m).  The first INPUT it does not
# survive is run again by survives, which says so with the words
# "WHAT INPUT" prints (WHAT is a command), keeps it and fails; a crash
# that the second run does not give fails too, said and kept.
survive_each() {
	local many=() what st=0 bad how cmd=() err="$BATS_TEST_TMPDIR/survive_each.err"
	if [ "$1" = -m ]; then
		many=(-m "$2")
		shift 2
	fi
	what=$1
	shift
	while [ "$1" != -- ]; do
		cmd+=("$1")
		shift
	done
	shift
	bad=$(survive "${many[@]}" "$err" "${cmd[@]}" -- "$@") || st=$?
	[ "$st" -ne 0 ] || return 0
	if [ "$st" -ne 1 ]; then
		echo "survive ${cmd[*]}: exit $st"
		return 1
	fi
	how=$("$what" "$bad")
	survives "$how" "$bad" "${cmd[@]}" || return 1
	echo "${cmd[*]}: crashed once on $how, not when run again:"
	cat "$err"
	keep "$bad"
	return 1
}

# prefixes [-m MAX] STEP FILE CMD [ARG...]: CMD ARG... survives the
# prefixes of FILE of 0, STEP, 2*STEP ... bytes, and the whole FILE.
# One perl writes them all.  With -m, CMD reads up to MAX files in one
# run, each to its end (ltparse's logs): a run that exits 0 with no
# sanitizer report passes them all; any other run is made again one
# prefix at a time, which names the prefix at fault.
prefixes() (
	trap - DEBUG
	local many=() step f size i p="$BATS_TEST_TMPDIR/prefix" all=()
	if [ "$1" = -m ]; then
		many=(-m "$2")
		shift 2
	fi
	step=$1 f=$2
	shift 2
	rm -rf "$p" && mkdir "$p" || return 1
	perl -e 'my ($step, $f, $d) = @ARGV;
		open(my $in, "<:raw", $f) or die "$f: $!\n";
		local $/; my $s = <$in> // ""; my $n = length $s;
		for (my $i = 0; ; $i += $step) {
			$i = $n if $i > $n;
			open(my $o, ">:raw", "$d/$i") or die "$d/$i: $!\n";
			print $o substr($s, 0, $i);
			close $o or die "$d/$i: $!\n";
			last if $i == $n;
		}' "$step" "$f" "$p" || return 1
	size=$(wc -c <"$f") || return 1
	# shellcheck disable=SC2317 # survive_each calls it
	_prefix_what() { echo "the first ${1##*/} bytes of $f (head -c ${1##*/})"; }
	for ((i = 0; i < size; i += step)); do
		all+=("$p/$i")
	done
	survive_each "${many[@]}" _prefix_what "$@" -- "${all[@]}" "$p/$size"
)

# randbytes SEED N: N bytes made from SEED, the same for the same SEED
# (and the same awk).
randbytes() {
	awk -v seed="$1" -v n="$2" 'BEGIN {
		srand(seed)
		for (i = 0; i < n; i++)
			printf "%c", int(rand() * 256)
	}'
}

# garbage N CMD [ARG...]: CMD ARG... survives N seeds of random bytes,
# each as 600 bytes and as 3000 bytes after an #lt1 header (the 600 are
# the first of the 3000, as randbytes makes them; one awk makes all).
# The seeds are LT_SEED, LT_SEED+1 ... (LT_SEED is random unless set):
# the failure prints the LT_SEED that replays it.
garbage() (
	trap - DEBUG
	local n=$1 i in=() base=${LT_SEED:-$RANDOM}
	local g="$BATS_TEST_TMPDIR/garbage"
	shift
	awk -v base="$base" -v n="$n" -v g="$g" 'BEGIN {
		for (i = 0; i < n; i++) {
			srand(base + i)
			f = g "." i ".600"
			h = g "." i ".lt1"
			printf "#lt1\n" >h
			for (k = 0; k < 3000; k++) {
				c = int(rand() * 256)
				if (k < 600)
					printf "%c", c >f
				printf "%c", c >h
			}
			close(f)
			close(h)
		}
	}' || return 1
	# shellcheck disable=SC2317 # survive_each calls it
	_garbage_what() {
		local i=${1#"$g".}
		i=${i%.*}
		case $1 in
		*.600) printf '600 random bytes' ;;
		*) printf '#lt1 and 3000 random bytes' ;;
		esac
		echo "; replay: LT_SEED=$((base + i)) bats $BATS_TEST_FILENAME -f '$BATS_TEST_DESCRIPTION'"
	}
	for ((i = 0; i < n; i++)); do
		in+=("$g.$i.600" "$g.$i.lt1")
	done
	survive_each _garbage_what "$@" -- "${in[@]}"
)

# mutants N FILE CMD [ARG...]: CMD ARG... survives N damaged copies of
# the lt1 stream FILE (tests/data/ltpair/mutate.awk, seeds 1 to N, made
# by one awk).
mutants() (
	trap - DEBUG
	local n=$1 f=$2 seed in=() m="$BATS_TEST_TMPDIR/mutant"
	shift 2
	awk -v seeds="$n" -v out="$m." -f "$DATA/ltpair/mutate.awk" "$f" ||
	    return 1
	# shellcheck disable=SC2317 # survive_each calls it
	_mutant_what() { echo "awk -v seed=${1##*.} -f $DATA/ltpair/mutate.awk $f"; }
	for ((seed = 1; seed <= n; seed++)); do
		in+=("$m.$seed")
	done
	survive_each _mutant_what "$@" -- "${in[@]}"
)

# The real Perfetto importer: trace_processor_shell, the trace processor
# ui.perfetto.dev runs, is the judge of "Perfetto imports it cleanly".

# tp_need: set TP to the trace processor: $TRACE_PROCESSOR, else
# trace_processor_shell or trace_processor on PATH, else
# $TOP/../shared/perfetto/trace_processor_shell.  Without one the test is
# skipped, saying how to get one (with CI=true it fails).  Call it in the
# test itself, not in $(...): a skip there ends only the subshell.
tp_need() {
	local st=0
	tp_find || st=$?
	[ "$st" -ne 2 ] || return 1
	[ "$st" -eq 0 ] ||
	    missing "Perfetto's trace processor is not installed: download trace_processor from https://github.com/google/perfetto/releases, then put it on PATH or set TRACE_PROCESSOR"
}

# tp_find: as tp_need, but return 1 where there is none (no skip), 2 for
# a TRACE_PROCESSOR that is not a program (said).
tp_find() {
	TP=
	if [ -n "${TRACE_PROCESSOR:-}" ]; then
		TP=$(command -v "$TRACE_PROCESSOR") || {
			echo "TRACE_PROCESSOR=$TRACE_PROCESSOR: not a program" >&2
			return 2
		}
	elif TP=$(command -v trace_processor_shell) ||
	    TP=$(command -v trace_processor); then
		:
	elif [ -x "$TOP/../shared/perfetto/trace_processor_shell" ]; then
		TP=$TOP/../shared/perfetto/trace_processor_shell
	else
		return 1
	fi
}

# tp_run FILE SQLFILE OUT: the trace processor on the trace FILE with the
# statements of SQLFILE, its CSV in OUT.  A failed import (truncated JSON)
# or a bad query fails, with the importer's messages.  tp_need must have
# run.
tp_run() {
	local err="$BATS_TEST_TMPDIR/tp.err" st _
	[ -n "${TP:-}" ] || { echo "tp_query: call tp_need first" >&2; return 1; }
	# A trace processor killed by a signal (from outside: the machine is
	# shared) is run again, twice at most.
	for _ in 1 2 3; do
		st=0
		"$TP" -q "$2" "$1" >"$3" 2>"$err" || st=$?
		[ "$st" -gt 128 ] || break
	done
	if [ "$st" -ne 0 ]; then
		echo "$TP -q: exit $st on $1 for: $(cat "$2")" >&2
		cat "$err" >&2
		return 1
	fi
}

# tp_query FILE SQL: import the trace FILE and print the result of the
# one statement SQL, as the trace processor's CSV without its header
# row: strings quoted ("x"), numbers bare, NULL as "[NULL]".  A failed
# import (truncated JSON) or a bad query fails, with the importer's
# messages.  tp_need must have run.
tp_query() {
	local q="$BATS_TEST_TMPDIR/tp.sql" out="$BATS_TEST_TMPDIR/tp.csv"
	printf '%s\n' "$2" >"$q"
	tp_run "$1" "$q" "$out" || return 1
	sed 1d "$out"
}

# tp_queries FILE OUT SQL...: as tp_query for each statement SQL, with
# one import of FILE (a trace processor run costs more than a query):
# the result of the first SQL in OUT.1, of the second in OUT.2 ...
tp_queries() {
	local f=$1 out=$2 q="$BATS_TEST_TMPDIR/tp.sql" sql
	shift 2
	# a marker statement between two results: a value of a result may
	# hold blank lines
	for sql; do
		printf '%s;\nselect 0 as lt_tp_next;\n' "$sql"
	done >"$q"
	tp_run "$f" "$q" "$out.csv" || return 1
	awk -v out="$out" -v n=$# '
		BEGIN { k = 1; f = out "." k; printf "" >f; at = "head" }
		at == "head" { at = "rows"; next }
		at == "rows" && $0 == "" { blank++; next }
		at == "rows" && $0 == "\"lt_tp_next\"" { blank = 0; close(f); at = "mark"; next }
		at == "rows" { for (; blank > 0; blank--) print "" >f; print >f; next }
		at == "mark" { at = "gap"; next }
		at == "gap" && $0 == "" { next }
		at == "gap" { k++; f = out "." k; printf "" >f; at = "rows"; next }
		END {
			if (at != "gap" || k != n) {
				print "tp_queries: " k " results of " n " read" >"/dev/stderr"
				exit 1
			}
		}
	' "$out.csv"
}

# TP_ERRORS: the query of tp_errors.
TP_ERRORS="select name, idx, severity, source, value from stats
    where severity in ('error', 'data_loss') and value > 0
    order by name, idx"

# tp_errors FILE: every stat of severity error or data_loss above 0 that
# importing FILE counts (what the UI shows on its Trace errors, Import
# errors and Data losses cards), one CSV line each: name, idx, severity,
# source, value.  Nothing for a clean import.
tp_errors() {
	tp_query "$1" "$TP_ERRORS"
}

# tp_clean FILE [ERRORS]: importing FILE counts no error and no data
# loss; those it counts are printed.  ERRORS, a file, holds the result
# of TP_ERRORS on FILE already (from tp_queries).
tp_clean() {
	local e
	if [ $# -gt 1 ]; then
		e=$(<"$2")
	else
		e=$(tp_errors "$1") || return 1
	fi
	[ -z "$e" ] || { printf '%s: Perfetto counts\n%s\n' "$1" "$e"; return 1; }
}

# tp_viewsql TRACE OFFSET_NS [nodepth|full]: the query of what Perfetto
# made of TRACE, one line per slice, arg, flow, counter, named thread
# and named process (tp_view runs it); times plus OFFSET_NS.  Args are keyed without their
# "args." or "debug.".  With nodepth, a slice is known by its thread,
# not its track and depth (Perfetto moves crossing slices to other
# tracks).  With full, an arg and each end of a flow is known by its
# whole slice (times, names, depth, track, thread, process), and
# doubles by 12 significant digits (Perfetto's JSON reader may miss
# the last bit, where the .pftrace holds it exactly).
tp_viewsql() {
	local depth="s.depth || '|' || case when t.type = 'thread_overlapping_slice'
	    or t.name = 'overlapping slices' then 'moved' else t.type end"
	local val="a.display_value" num="c.value" sl="(s.ts + $2) || '|' ||
	    coalesce(s.name, '')" fo="(o.ts + $2) || '|' || o.name"
	local fi="(i.ts + $2) || '|' || i.name" from="flow f join slice o on
	    f.slice_out = o.id join slice i on f.slice_in = i.id"
	[ "${3:-}" != nodepth ] || depth="''"
	if [ "${3:-}" = full ]; then
		val="case when a.value_type = 'real' then
		    printf('%.12g', a.real_value) else a.display_value end"
		num="printf('%.12g', c.value)"
		sl="k.k"
		fo="o.k"
		fi="i.k"
		from="flow f join k o on f.slice_out = o.id join k i on
		    f.slice_in = i.id"
	fi
	echo "
	with k as (select s.id, (s.ts + $2) || '|' || s.dur || '|' ||
	    coalesce(s.name, '') || '|' || coalesce(s.category, '') || '|' ||
	    $depth || '|' || coalesce(th.tid, '') || '|' ||
	    coalesce(th.name, '') || '|' || coalesce(p.pid, p2.pid, '') as k
	from slice s join track t on s.track_id = t.id
	left join thread th on th.utid = extract_arg(t.dimension_arg_set_id, 'utid')
	left join process p on p.upid = th.upid
	left join process p2 on p2.upid = extract_arg(t.dimension_arg_set_id, 'upid'))
	select 'slice|' || k.k from k
	union all
	select 'arg|' || $sl || '|' ||
	    coalesce(th.tid, '') || '|' || substr(a.key, instr(a.key, '.') + 1) ||
	    '|' || a.value_type || '|' || $val
	from slice s join k on k.id = s.id join track t on s.track_id = t.id
	left join thread th on th.utid = extract_arg(t.dimension_arg_set_id, 'utid')
	join args a on a.arg_set_id = s.arg_set_id
	where a.key like 'args.%' or a.key like 'debug.%'
	union all
	select 'flow|' || $fo || '|' || $fi from $from
	union all
	select 'counter|' || (c.ts + $2) || '|' || $num || '|' || t.name ||
	    '|' || coalesce(p.pid, '')
	from counter c join track t on c.track_id = t.id
	left join process p on p.upid = extract_arg(t.dimension_arg_set_id, 'upid')
	union all
	select 'thread|' || th.tid || '|' || th.name || '|' || coalesce(p.pid, '') ||
	    '|' || coalesce((select group_concat(key || '=' || display_value)
	    from args a where a.arg_set_id = th.arg_set_id), '')
	from thread th left join process p using (upid)
	where th.name is not null and not (th.utid = 0 and th.name = 'swapper')
	union all
	select 'process|' || p.pid || '|' || p.name || '|' ||
	    coalesce((select group_concat(key || '=' || display_value)
	    from args a where a.arg_set_id = p.arg_set_id), '')
	from process p where p.name is not null"
}

# tp_view TRACE OFFSET_NS [nodepth|full]: what Perfetto imports of
# TRACE, a line each, sorted (tp_viewsql).
tp_view() {
	tp_query "$1" "$(tp_viewsql "$@")" | sort
}

# tp_views JSON PFTRACE MODE OUT: one import of each trace of one stream
# (ltjson's, its times plus its metadata's ts_offset_us, and ltproto's):
# its view (tp_viewsql MODE), sorted, in OUT.json and OUT.pftrace, and
# its errors (TP_ERRORS) in OUT.j.2 and OUT.p.2.
tp_views() {
	local off
	off=$(sed -n 's/.*"ts_offset_us":\(-\{0,1\}[0-9]*\).*/\1/p' "$1")
	tp_queries "$1" "$4.j" "$(tp_viewsql "$1" "${off:-0}000" "$3")" \
	    "$TP_ERRORS" || return 1
	tp_queries "$2" "$4.p" "$(tp_viewsql "$2" 0 "$3")" "$TP_ERRORS" ||
	    return 1
	sort "$4.j.1" >"$4.json"
	sort "$4.p.1" >"$4.pftrace"
}

# tp_same JSON PFTRACE: Perfetto imports the two traces of one stream
# as the same trace, slice by slice (times, names, depth, thread),
# flow by flow (the slices at each end) and arg by arg (keys with
# their array indexes, types, values), with the same counters, threads
# and processes; and both with no error and no data loss.  Prints what
# it compared: "N slices, N flows, N args, N counters".
tp_same() {
	local v="$BATS_TEST_TMPDIR/tp_same" k n out=
	tp_views "$1" "$2" full "$v" || return 1
	if ! cmp -s "$v.json" "$v.pftrace"; then
		echo "$1 (-) and $2 (+) differ in Perfetto:"
		diff -u "$v.json" "$v.pftrace" | sed -n '3,42p'
		return 1
	fi
	tp_clean "$1" "$v.j.2" || return 1
	tp_clean "$2" "$v.p.2" || return 1
	for k in slice flow arg counter; do
		n=$(grep -c "^\"$k|" "$v.json") || true
		out="$out${out:+, }$n ${k}s"
	done
	echo "$out"
}
