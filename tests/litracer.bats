#!/usr/bin/env bats
# litracer: the driver.

bats_require_minimum_version 1.5.0

setup() {
	load helper
	T=$BATS_TEST_TMPDIR
	SAMPLE=$DATA/sample.log
	export TMPDIR=$T/tmp
	mkdir -p "$TMPDIR"
	cd "$T"
	# The processes of a litracer under test carry this in their
	# environment (set on that command only): tagged finds them, and
	# nothing else that runs on the machine.
	tag=$T
	writer=
}

teardown() {
	[ -n "$writer" ] && kill "$writer" 2>/dev/null
	local p
	p=$(tagged)
	# shellcheck disable=SC2086
	[ -z "$p" ] || kill -KILL $p 2>/dev/null
	return 0
}

# tagged: the live processes (not zombies: their environment is gone)
# started with LT_TEST_TAG=$tag, one pid a line.
tagged() {
	local f
	[ -r /proc/self/environ ] || skip "needs /proc (Linux; mount -t proc proc /proc)"
	for f in $(grep -lsxzF "LT_TEST_TAG=$tag" /proc/[0-9]*/environ); do
		f=${f#/proc/}
		echo "${f%/environ}"
	done
}

# tagged_names: the names of the tagged processes, sorted.
tagged_names() {
	local p
	for p in $(tagged); do
		cat "/proc/$p/comm" 2>/dev/null
	done | sort
}

# tagged_stages: the tagged processes that are stages of the chain.
tagged_stages() {
	tagged_names | grep -x -e ltparse -e ltpair -e ltfilter -e ltlanefix \
	    -e ltjson -e ltchain -e gzip || true
}

# stage NAME: the pid of the tagged process NAME, once it runs (a
# generous bound: the test is not about speed).
stage() {
	local n=0 p
	while :; do
		for p in $(tagged); do
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$1" ] &&
			    { echo "$p"; return 0; }
		done
		n=$((n + 1))
		[ "$n" -le 600 ] || {
			echo "$1 never started; running:" $(tagged_names) >&2
			cat drv.err >&2 2>/dev/null
			return 1
		}
		sleep 0.1
	done
}

# gone: wait until no tagged process is left (a generous bound again:
# what matters is that they go).
gone() {
	local n=0
	while [ -n "$(tagged)" ]; do
		n=$((n + 1))
		[ "$n" -le 600 ] || { echo "still running:" $(tagged_names); return 1; }
		sleep 0.1
	done
}

# seen TEXT FILE: wait until FILE holds TEXT.
seen() {
	local n=0
	until grep -qF -- "$1" "$2" 2>/dev/null; do
		n=$((n + 1))
		[ "$n" -le 600 ] || { echo "never saw: $1"; cat -v "$2"; return 1; }
		sleep 0.1
	done
}

# nolitter: nothing left in TMPDIR, no temporary next to the output.
nolitter() {
	[ -z "$(ls -A "$TMPDIR")" ] || { ls -lA "$TMPDIR"; false; }
	[ -z "$(ls -A . | grep '^\.litracer')" ] || { ls -lA .; false; }
}

# need_unshare WHY: skip the test where unshare -rm fails, saying WHY
# it is needed and how to get it.
need_unshare() {
	unshare -rm true 2>/dev/null ||
	    skip "$1: unshare -rm fails here, the test needs user and mount namespaces (on a host: root, or sysctl kernel.unprivileged_userns_clone=1; in a container: docker run --privileged)"
}

# need_fullfs: skip the test where fullfs cannot work.  Called in the
# test itself: fullfs runs under run, where a skip ends only the subshell.
need_fullfs() {
	need_unshare "cannot mount a tmpfs"
}

# fullfs SIZE FILL CMD...: CMD in a mount namespace of its own where
# $T/fs is a tmpfs of SIZE, FILL (yes or no) filled to the brim.  Needs
# user namespaces (unshare -rm) or root (need_fullfs); the mount ends
# with CMD.
fullfs() {
	local size=$1 fill=$2
	shift 2
	mkdir -p "$T/fs"
	unshare -rm sh -c 'mount -t tmpfs -o size="$1" tmpfs "$0" || exit 99
	    [ "$2" = no ] || dd if=/dev/zero of="$0/fill" bs=4096 count=100000 2>/dev/null
	    shift 2
	    exec "$@"' "$T/fs" "$size" "$fill" "$@"
}

# truth KEY: a count of the bundled sample's ground truth, made with it by
# tests/gen/genlog -c -n 2000 -l sample -s 16 -t tests/data/sample.truth
truth() {
	awk -F = -v k="$1" '$1 == k { print $2 }' "$DATA/sample.truth"
}

# sumval KEY: a value of the summary line in $output (or $stderr).
sumval() {
	tr ' ' '\n' <<<"$1" | awk -F = -v k="$2" '$1 == k { print $2 }'
}

@test "litracer -h: usage on stdout, exit 0; the synopsis is the man page's" {
	need mandoc
	run -0 --separate-stderr litracer -h
	[ "${lines[0]}" = "usage: $(synopsis litracer)" ]
	[ -z "$stderr" ]
}

@test "litracer -V prints the toolkit's version" {
	v=$(sed -n 's/^#define LT_VERSION[^"]*"\(.*\)"/\1/p' "$TOP/common/lt.h")
	run -0 litracer -V
	[ "$output" = "litracer $v" ]
	run -0 litracer --version
	[ "$output" = "litracer $v" ]
}

@test "unknown options and missing arguments are usage errors" {
	run -2 --separate-stderr litracer --nope "$SAMPLE"
	[ "${stderr_lines[0]}" = "litracer: unknown option --nope" ]
	[[ "${stderr_lines[1]}" == "usage: litracer "* ]]
	run -2 --separate-stderr litracer "$SAMPLE" -o
	run -2 --separate-stderr litracer -o
	[ "${stderr_lines[0]}" = "litracer: option -o needs an argument" ]
	run -2 --separate-stderr litracer -w 0 "$SAMPLE"
	[ "$stderr" = "litracer: -w 0: not a positive integer" ]
	run -2 --separate-stderr litracer --snap-threshold-us x "$SAMPLE"
	[ "$stderr" = "litracer: --snap-threshold-us x: invalid" ]
	[ ! -e litdata_trace.json ]
}

@test "options before or after the files, grouped, with = or attached, as getopt_long takes them" {
	litracer -q -o plain.json "$SAMPLE" 2>plain.err
	run -0 --separate-stderr litracer "$SAMPLE" -o after.json -q
	[ "$stderr" = "$(cat plain.err)" ]
	cmp plain.json after.json
	run -0 --separate-stderr litracer -qo grouped.json "$SAMPLE"
	cmp plain.json grouped.json
	run -0 litracer -qoattached.json "$SAMPLE"
	cmp plain.json attached.json
	run -0 litracer -q -o=eq.json "$SAMPLE"
	cmp plain.json eq.json
	[ ! -e =eq.json ]
	run -0 litracer -q --output=long.json "$SAMPLE" --cat=read
	run -0 litracer -qw2 -o w.json "$SAMPLE"
	cmp plain.json w.json
	# -- ends the options: a file named -q
	cp "$SAMPLE" ./-q
	run -0 --separate-stderr litracer -o dash.json -- -q
	cmp plain.json dash.json
	[ -n "$stderr" ]
	# a flag given a value, an option glued to an unknown one
	run -2 --separate-stderr litracer --quiet=yes "$SAMPLE"
	[ "${stderr_lines[0]}" = "litracer: option --quiet takes no argument" ]
	run -2 --separate-stderr litracer -qx "$SAMPLE"
	[ "${stderr_lines[0]}" = "litracer: unknown option -x" ]
}

@test "two files where the second is meant as the output: a hint to use -o; one file twice: said" {
	cp "$SAMPLE" in.log
	run -2 --separate-stderr litracer in.log out.json
	[ "$stderr" = "litracer: out.json: No such file or directory; to write the trace there, use -o out.json" ]
	[ ! -e out.json ]
	run -2 --separate-stderr litracer -o t.json in.log out.json
	[ "$stderr" = "litracer: out.json: No such file or directory" ]
	# out.json exists, a trace this driver wrote: merged, and said
	litracer -q -o out.json in.log 2>/dev/null
	run -0 --separate-stderr litracer in.log out.json
	[ "${stderr_lines[1]}" = "ltparse: out.json: a trace litracer wrote, merged with the other inputs (a trace to write goes to litracer -o)" ]
	ln in.log link.log
	run -0 --separate-stderr litracer -q -o twice.json in.log link.log
	[ "${stderr_lines[0]}" = "litracer: in.log and link.log are the same file; it is read twice" ]
	[ "$(sumval "${stderr_lines[1]}" lines)" = $((2 * $(truth lines))) ]
}

@test "a bad item of a filter list is named under the driver's option, with no stage's prefix" {
	run -2 --separate-stderr litracer -q --rank '0,$(x)' "$SAMPLE"
	[ "$stderr" = 'litracer: --rank 0,$(x): $(x): invalid' ]
	run -2 --separate-stderr litracer -q --rank 1,x,2 "$SAMPLE"
	[ "$stderr" = "litracer: --rank 1,x,2: x: invalid" ]
}

@test "README's and ltjson(1)'s summary lines are the sample's, as litracer prints it" {
	local ex man
	ex=$(grep -m1 '^lines=2000 events=' "$TOP/README.md")
	ex=${ex% ...}
	man=$(sed -n 's/^\.Pq Ql \(lines=2000 events=.*\) \.\.\. ,$/\1/p' "$TOP/man/ltjson.1")
	[ -n "$ex" ] && [ -n "$man" ]
	run -0 --separate-stderr litracer -q -o t.json "$SAMPLE"
	[[ "$stderr" == "$ex "* ]]
	[[ "$stderr" == "$man "* ]]
}

@test "README shows the sample's report as litracer prints it" {
	litracer -q --report -o run.json "$SAMPLE" 2>/dev/null |
	    readme_shows 'litracer -q --report -o run.json tests/data/sample.log'
}

@test "CDPATH, a directory or TMPDIR whose name begins with a dash: nothing changes" {
	litracer -q -o plain.json "$SAMPLE" 2>/dev/null
	# run by a relative path, as the README's first command does
	run -0 --separate-stderr sh -c 'cd "$1" && CDPATH=. tools/litracer -q -o "$2/c.json" "$3"' sh "$TOP" "$T" "$SAMPLE"
	[ "${#stderr_lines[@]}" -eq 1 ]
	cmp plain.json c.json
	mkdir -- -out -tmp
	run -0 litracer -q -o -out/t.json "$SAMPLE"
	cmp plain.json ./-out/t.json
	run -0 env TMPDIR=-tmp litracer -q -o t.json "$SAMPLE"
	cmp plain.json t.json
	[ -z "$(ls -A -- -tmp -out | grep litracer)" ]
}

@test "-o a symbolic link: the file it names is replaced, the link stays" {
	echo old >real.json
	ln -s real.json link.json
	mkdir d
	ln -s ../real.json d/rel.json
	run -0 litracer -q -o link.json "$SAMPLE"
	[ -L link.json ]
	json_ok real.json
	echo old >real.json
	run -0 litracer -q -o d/rel.json "$SAMPLE"
	[ -L d/rel.json ]
	json_ok real.json
	nolitter
	[ -z "$(ls -A d | grep '^\.litracer')" ]
}

@test "the sweep leaves alone symbolic links that look like a dead run's temporaries" {
	host=$(uname -n | tr -cd 'A-Za-z0-9.-')
	echo keep >victim
	ln -s "$T/victim" ".litracer.1.$host.AAAAAA"
	run -0 --separate-stderr litracer -q -o t.json "$SAMPLE"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ -L ".litracer.1.$host.AAAAAA" ]
	[ "$(cat victim)" = keep ]
}

@test "--report into a closed standard output, or a reader that stops early" {
	run -2 --separate-stderr sh -c 'litracer -q --report -o r.json "$1" >&-' sh "$SAMPLE"
	[ "$stderr" = "litracer: --report writes to standard output, which is closed" ]
	[ ! -e r.json ]
	run -2 --separate-stderr sh -c 'litracer -V >&-'
	[ "$stderr" = "litracer: standard output: it is closed" ]
	# the report of many ranks, bigger than a pipe: | head -n 1 ends it
	genlog -n 30000 -r 64 -w 1 >many.log
	run -0 --separate-stderr bash -c 'litracer -q --report -o m.json "$1" | head -n 1; echo "${PIPESTATUS[0]}" >st' bash many.log
	[ "${#stderr_lines[@]}" -eq 1 ]
	grep -qx -e 0 -e 141 st
}

@test "SIGTERM during --validate ends the run at once" {
	printf '#!/bin/sh\nexec sleep 600\n' >tp
	chmod +x tp
	LT_TEST_TAG=$tag TRACE_PROCESSOR=$T/tp litracer -q --validate -o v.json "$SAMPLE" 2>drv.err &
	pid=$!
	stage ltcheck >/dev/null
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 143 ]
	# the trace was written before the check began
	json_ok v.json
}

@test "-h lists every long option the driver takes, as the man page does" {
	need mandoc
	run -0 litracer -h
	help=$output
	man=$(mandoc -Tascii "$TOP/man/litracer.1" | sed -e 's/.\x08//g')
	opts=$(sed -n '/^while \[ \$# -gt 0 \]/,/^done/p' "$TOP/tools/litracer" |
	    grep -o -- '--[a-z][a-z-]*' | sort -u)
	[ "$(wc -l <<<"$opts")" -ge 16 ]
	for o in $opts; do
		grep -q -e "$o\b" <<<"$help" || { echo "-h lacks $o"; false; }
		grep -q -e "$o\b" <<<"$man" || { echo "litracer.1 lacks $o"; false; }
	done
}

@test "-w 08, -w 09: decimal, not octal; 20 digits or 0: the driver's own message" {
	litracer -q -o w1.json "$SAMPLE" 2>/dev/null
	for w in 08 09 010; do
		run -0 --separate-stderr litracer -q -w "$w" -o "w$w.json" "$SAMPLE"
		[ "${#stderr_lines[@]}" -eq 1 ]
		cmp w1.json "w$w.json"
	done
	run -2 --separate-stderr litracer -w 12345678901234567890 "$SAMPLE"
	[ "$stderr" = "litracer: -w 12345678901234567890: at most 64" ]
	run -2 --separate-stderr litracer -w 65 "$SAMPLE"
	[ "$stderr" = "litracer: -w 65: at most 64" ]
	run -2 --separate-stderr litracer -w 000 "$SAMPLE"
	[ "$stderr" = "litracer: -w 000: not a positive integer" ]
	run -2 --separate-stderr litracer -w 1x "$SAMPLE"
	[ "$stderr" = "litracer: -w 1x: not a positive integer" ]
}

@test "--snap-threshold-us: ltlanefix's syntax (.5, 5., 1e1, 1_000); a bad one names the option" {
	for v in .5:500 5.:5000 1e1:10000 1_000:1000000; do
		run -0 --separate-stderr litracer -q --snap-threshold-us "${v%:*}" -o s.json "$SAMPLE"
		[ "$(grep -o '"threshold_ns":[0-9]*' s.json)" = "\"threshold_ns\":${v#*:}" ]
	done
	for v in x -1 ''; do
		run -2 --separate-stderr litracer -q --snap-threshold-us "$v" -o bad.json "$SAMPLE"
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "litracer: --snap-threshold-us $v: "?* ]]
		[[ "$stderr" != *failed* ]]
	done
	[ ! -e bad.json ]
	nolitter
}

@test "a bad filter value is the filter's message under the driver's option, before any work" {
	# a log big enough that a stage upstream of a failed filter is
	# killed by SIGPIPE: that is not what the user must read
	genlog -n 50000 >big.log
	run -2 --separate-stderr litracer -q --pid 5-1 -o f.json big.log
	[ "$stderr" = "litracer: --pid 5-1: empty range" ]
	run -2 --separate-stderr litracer -q --worker - -o f.json big.log
	[ "$stderr" = "litracer: --worker -: invalid" ]
	run -2 --separate-stderr litracer -q --rank x -o f.json big.log
	[ "$stderr" = "litracer: --rank x: invalid" ]
	run -2 --separate-stderr litracer -q --from 5x -o f.json big.log
	[ "$stderr" = "litracer: --from 5x: not a time" ]
	run -2 --separate-stderr litracer -q --to 5x -o f.json big.log
	[ "$stderr" = "litracer: --to 5x: not a time" ]
	run -2 --separate-stderr litracer -q --from 90s --to 30s -o f.json big.log
	[ "$stderr" = "litracer: --from 90s --to 30s: empty window" ]
	[ ! -e f.json ]
	nolitter
}

@test "no flags: litdata_trace.json from the log, clean for ltcheck" {
	run -0 --separate-stderr litracer "$SAMPLE"
	[ -s litdata_trace.json ]
	[ -z "$output" ]
	run -0 ltcheck litdata_trace.json
	[[ "$output" == *"nothing to report"* ]]
	json_ok litdata_trace.json
}

@test "the bundled sample shows a lane: reads that cross samples go to 'lane 1' tracks" {
	# as the README says; without ltlanefix Perfetto would spill them
	run -1 --separate-stderr litracer -q --validate --no-lanefix -o nl.json "$SAMPLE"
	[[ "${stderr_lines[1]}" == *slice_spill_overlapping_complete_event* ]]
	run -0 litracer -q -o s.json "$SAMPLE"
	run -0 sh -c 'ltparse s.json | awk -F "\t" '\''
	    $2 == "M" && $7 == "thread_name" && $8 ~ / lane 1"}$/ { lane[$3 " " $4] = 1 }
	    $2 == "X" && $7 == "read" { rd[$3 " " $4]++ }
	    END { for (k in lane) if (rd[k]) n++; print n + 0 }'\'
	[ "$output" -gt 0 ]
}

@test "no operand reads litdata_debug.log here, or says there is none" {
	run -2 --separate-stderr litracer
	[ "${stderr_lines[0]}" = "litracer: no input (and no litdata_debug.log here)" ]
	cp "$SAMPLE" litdata_debug.log
	run -0 litracer -q
	[ -s litdata_trace.json ]
}

@test "the quiet summary: the seed's keys in its order" {
	run -0 --separate-stderr litracer -q "$SAMPLE"
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	keys=$(tr ' ' '\n' <<<"$stderr" | cut -d= -f1 | head -n 12 | tr '\n' ' ')
	[ "$keys" = "lines events skipped B E X I unmatched_B unmatched_E crashes processes duration_ms " ]
	[[ "$stderr" == *" download="*ms* ]]
	[[ "$stderr" == *" read="*ms* ]]
}

@test "the summary agrees with counts made independently" {
	need node
	# the log's own events: no waits added (tests/insight.bats)
	run -0 --separate-stderr litracer -q --no-insight "$SAMPLE"
	s=$stderr
	[ "$(sumval "$s" lines)" = "$(truth lines)" ]
	[ "$(sumval "$s" skipped)" = $(($(truth noise_text) + $(truth noise_cont) + $(truth noise_blank))) ]
	[ "$(sumval "$s" unmatched_B)" = "$(truth unmatched_B)" ]
	[ "$(sumval "$s" unmatched_E)" = "$(truth unmatched_E)" ]
	[ "$(sumval "$s" crashes)" = "$(truth crashes)" ]
	[ "$(sumval "$s" X)" = $(($(truth pairs) + $(truth unmatched_B))) ]
	[ "$(sumval "$s" B)" = 0 ]
	[ "$(sumval "$s" E)" = 0 ]
	run -0 node -e '
		const t = JSON.parse(require("fs").readFileSync(process.argv[1]));
		const ev = t.traceEvents, by = {}, pids = new Set(), span = {};
		let lo = Infinity, hi = -Infinity;
		for (const e of ev) {
			by[e.ph] = (by[e.ph] || 0) + 1;
			pids.add(e.pid);
			if (e.ph === "M") continue;
			lo = Math.min(lo, e.ts);
			hi = Math.max(hi, e.ts + (e.dur || 0));
			if (e.ph === "X") span[e.cat] = (span[e.cat] || 0) + e.dur;
		}
		console.log(ev.length, by.X || 0, (by.I || 0) + (by.i || 0),
		    pids.size, ((hi - lo) / 1000).toFixed(3),
		    (span.read / 1000).toFixed(3));' litdata_trace.json
	read -r n x i p d r <<<"$output"
	[ "$(sumval "$s" events)" = "$n" ]
	[ "$(sumval "$s" X)" = "$x" ]
	[ "$(sumval "$s" I)" = "$i" ]
	[ "$(sumval "$s" processes)" = "$p" ]
	[ "$(sumval "$s" processes)" = "$(truth processes)" ]
	awk -v a="$(sumval "$s" duration_ms)" -v b="$d" 'BEGIN { exit !(a - b < 0.002 && b - a < 0.002) }'
	awk -v a="$(sumval "$s" read)" -v b="${r}ms" 'BEGIN { exit !(a + 0 - b < 0.002 && b - a < 0.002) }'
}

@test "-q --validate: exit 0 on the chain's own trace" {
	run -0 --separate-stderr litracer -q --validate -o v.json "$SAMPLE"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ -s v.json ]
}

@test "--validate: exit 1 when ltcheck predicts a problem" {
	# Read spans cross sample spans: without ltlanefix Perfetto spills.
	genlog -n 5000 >s.log
	run -1 --separate-stderr litracer -q --validate --no-lanefix -o nl.json s.log
	[ -s nl.json ]
	[[ "$stderr" == *"ltcheck"* ]]
	run -0 litracer -q --validate -o ok.json s.log
}

@test "--cat keeps only those categories, and the summary says so" {
	need node
	run -0 --separate-stderr litracer -q --cat download,read,delete -o io.json "$SAMPLE"
	run -0 node -e '
		const t = JSON.parse(require("fs").readFileSync(process.argv[1]));
		const c = new Set(t.traceEvents.filter(e => e.ph !== "M").map(e => e.cat));
		console.log([...c].sort().join(","));' io.json
	[ "$output" = "delete,download,read" ]
	run -0 --separate-stderr litracer -q --cat=read -o r.json "$SAMPLE"
	[[ "$stderr" == *" read="*"ms filter_kept="* ]]
	[[ "$stderr" != *"download="* ]]
	[ "$(sumval "$stderr" filter_kept)" = "$(sumval "$stderr" X)" ]
	[ "$(sumval "$stderr" filter_kept)" -gt 0 ]
	[ "$(sumval "$stderr" filter_dropped)" -gt 0 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "filters that keep nothing: an empty trace, exit 0, and stderr and the summary say so" {
	run -0 --separate-stderr litracer -q --rank 0 --from 30s --to 90s -o e.json "$SAMPLE"
	[ "$(sumval "${stderr_lines[0]}" events)" = 0 ]
	[ "$(sumval "${stderr_lines[0]}" filter_kept)" = 0 ]
	n=$(sumval "${stderr_lines[0]}" filter_dropped)
	[ "$n" -gt 900 ]
	[ "${stderr_lines[1]}" = "litracer: the filters kept none of the $n events; e.json is empty" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	json_ok e.json
	run -0 ltcheck e.json
}

@test "an input with no events is an error: the hint first, then the driver's line; the old trace stays" {
	echo previous >t.json
	printf 'just a line of text\n\n' >text.log
	run -1 --separate-stderr litracer -q -o t.json text.log
	[ "${stderr_lines[0]}" = "ltparse: no events in 2 lines: not a LitData enable_tracer() log?" ]
	[ "${stderr_lines[1]}" = "litracer: no events in the input; t.json was not written" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "$(cat t.json)" = previous ]
	# an lt1 stream on standard input: no log, and ltparse says what
	ltparse "$SAMPLE" >s.lt1
	run -1 --separate-stderr litracer -q -o t.json - <s.lt1
	[ "${stderr_lines[0]}" = "ltparse: standard input is an lt1 stream, not a log: its lines are skipped (ltpair, ltlanefix and ltjson read it; litracer reads it as its only file)" ]
	[ "$(cat t.json)" = previous ]
	# beside a log, it is named too (after the summary, as the stages'
	# messages), its lines counted as skipped, and the log converted as
	# beside an empty file
	run -0 --separate-stderr litracer -q -o t.json s.lt1 "$SAMPLE"
	[ "${stderr_lines[1]}" = "ltparse: s.lt1 is an lt1 stream, not a log: its lines are skipped (ltpair, ltlanefix and ltjson read it; litracer reads it as its only file)" ]
	[ "$(sumval "$stderr" skipped)" -eq $(($(truth noise_text) + $(wc -l <s.lt1))) ]
	: >empty.log
	litracer -q -o l.json empty.log "$SAMPLE" 2>/dev/null
	diff <(grep -v '^"metadata"' l.json) <(grep -v '^"metadata"' t.json)
	# to standard output: nothing to keep, the same status
	run -1 --separate-stderr litracer -q -o - text.log
	[ "${stderr_lines[1]}" = "litracer: no events in the input; the output is empty" ]
	nolitter
}

@test "an lt1 stream as the only file: the chain starts where the stream stands, with the log's trace and summary" {
	litracer -q -o log.json "$SAMPLE" 2>log.err
	litracer -q --report --no-complete -o logk.json "$SAMPLE" >logk.out 2>logk.err
	litracer -q -o log.pftrace "$SAMPLE" 2>/dev/null
	ltparse "$SAMPLE" >p.lt
	ltpair <p.lt >pp.lt
	ltlanefix -q <pp.lt | ltstat -t >full.lt
	# each stage the stream has been through is left out: not twice
	for s in p pp full; do
		run -0 --separate-stderr litracer -q -o $s.json $s.lt
		[ "$stderr" = "$(cat log.err)" ]
		cmp log.json $s.json
	done
	litracer -q -o p.pftrace p.lt 2>/dev/null
	cmp log.pftrace p.pftrace
	litracer -q --report --no-complete -o pk.json p.lt >pk.out 2>pk.err
	cmp logk.json pk.json
	cmp logk.out pk.out
	cmp logk.err pk.err
	# an option for a stage the stream has been through
	run -2 --separate-stderr litracer -q --report full.lt
	[ "$stderr" = "litracer: --report: full.lt has been through ltstat already; give litracer the stream from before ltstat, or the log" ]
	run -2 --separate-stderr litracer -q --lane-report full.lt
	[ "$stderr" = "litracer: --lane-report: full.lt has been through ltlanefix already; give litracer the stream from before ltlanefix, or the log" ]
	run -2 --separate-stderr litracer -q --no-complete --no-lanefix pp.lt
	[ "$stderr" = "litracer: --no-complete: pp.lt has been through ltpair already; give litracer the stream from before ltpair, or the log" ]
	# spans as B and E: no insight, and the warning says so
	ltlanefix -k -q <pp.lt >k.lt
	run -0 --separate-stderr litracer -q -o k.json k.lt
	[ "${stderr_lines[0]}" = "litracer: k.lt holds its spans as B and E (ltpair -k or ltlanefix -k): no data waits, flows or counters are added" ]
	[ "$(sumval "$stderr" B)" = "$(sumval "$stderr" E)" ]
	[ "$(sumval "$stderr" B)" -gt 0 ]
	run -0 ltcheck -t k.json
	[ -z "$output" ]
	run -2 --separate-stderr litracer -q --report k.lt
	[ "$stderr" = "litracer: --report: k.lt holds its spans as B and E (ltpair -k or ltlanefix -k), and ltstat reads X spans; give litracer the stream from before, or the log" ]
	# ltpair -k's B and E are what --no-complete --no-lanefix asks for
	ltpair -k <p.lt >be.lt
	litracer -q --no-complete --no-lanefix -o logbe.json "$SAMPLE" 2>logbe.err
	run -0 --separate-stderr litracer -q --no-complete --no-lanefix -o be.json be.lt
	[ "$stderr" = "$(cat logbe.err)" ]
	cmp logbe.json be.json
	# -w: parsed already
	run -0 --separate-stderr litracer -q -w 2 -o w.json full.lt
	[ "${stderr_lines[0]}" = "litracer: -w: full.lt is an lt1 stream, parsed already; -w is ignored" ]
	cmp log.json w.json
	# through ltstat -t before ltlanefix: the flows ltstat added late
	# stay on their threads, and ltlanefix says how many
	ltstat -t <pp.lt >st.lt
	run -0 --separate-stderr litracer -q -o st.json st.lt
	[ "${stderr_lines[0]}" = "$(cat log.err)" ]
	[[ "${stderr_lines[1]}" == "ltlanefix: "[1-9]*" flow(s) came after their slices were placed and stay on their threads as they came: "* ]]
	[ "${#stderr_lines[@]}" = 2 ]
	nolitter
}

@test "--no-complete keeps B/E events, all paired, with span times" {
	run -0 --separate-stderr litracer -q --no-complete --no-insight -o be.json "$SAMPLE"
	[ "$(sumval "$stderr" X)" = 0 ]
	[ "$(sumval "$stderr" B)" = "$(sumval "$stderr" E)" ]
	[ "$(sumval "$stderr" B)" = "$(truth B)" ]
	[[ "$stderr" == *" read="*ms* ]]
	# crossing spans went to lanes before they were split: clean
	run -0 ltcheck -t be.json
	[ -z "$output" ]
	run -0 --separate-stderr litracer -q --no-complete --validate -o be.json "$SAMPLE"
	# the same spans as without --no-complete
	litracer -q -o x.json "$SAMPLE" 2>/dev/null
	ltparse x.json | awk -F '\t' '$2 == "X" { print $1, $3, $4, $5, $7 }' | sort >x.spans
	ltparse be.json | ltpair | awk -F '\t' '$2 == "X" { print $1, $3, $4, $5, $7 }' | sort >be.spans
	[ -s x.spans ]
	cmp x.spans be.spans
}

@test "--no-complete: a read that crosses two samples is on a lane, and Perfetto nests all" {
	printf '%s\n' \
	    'ts:1795940303000000.000;PID:7; TID:70; name: sample;ph: B;cat: sample;chunk: 1;index: 5;' \
	    'ts:1795940303000010.000;PID:7; TID:70; name: read;ph: B;cat: read;chunk: 1;size: 2;' \
	    'ts:1795940303000020.000;PID:7; TID:70; name: sample;ph: E;cat: sample;chunk: 1;index: 5;' \
	    'ts:1795940303000030.000;PID:7; TID:70; name: sample;ph: B;cat: sample;chunk: 1;index: 6;' \
	    'ts:1795940303000040.000;PID:7; TID:70; name: read;ph: E;cat: read;chunk: 1;size: 2;' \
	    'ts:1795940303000050.000;PID:7; TID:70; name: sample;ph: E;cat: sample;chunk: 1;index: 6;' >cross.log
	run -0 --separate-stderr litracer -q --no-complete --validate -o c.json cross.log
	[ "$(sumval "$stderr" B)" = 3 ]
	[ "$(sumval "$stderr" E)" = 3 ]
	# the read and its end on the lane, the samples on the thread
	[ "$(ltparse c.json | awk -F '\t' '$2 ~ /^[BE]$/ { print $2, $4, $7 }' | tr '\n' ,)" = \
	    "B 1 sample,B 1001 read,E 1 sample,B 1 sample,E 1001 read,E 1 sample," ]
	# without ltlanefix, ltpair -k keeps the log's B and E: they cross
	run -1 --separate-stderr litracer -q --no-complete --no-lanefix --validate -o raw.json cross.log
	[ "$(sumval "${stderr_lines[0]}" B)" = 3 ]
	[[ "${stderr_lines[1]}" == *misplaced_end_event* ]]
}

@test "-o x.json.gz writes the same trace compressed" {
	litracer -q -o plain.json "$SAMPLE" 2>/dev/null
	run -0 litracer -q -o x.json.gz "$SAMPLE"
	[ "$(od -An -tx1 -N2 x.json.gz | tr -d ' ')" = 1f8b ]
	gzip -dc x.json.gz | cmp - plain.json
}

@test "-w 2 and -w 3 give the trace -w 1 gives, byte for byte" {
	genlog -n 30000 -c -b >big.log
	litracer -q -o w1.json big.log 2>w1.err
	litracer -q -w 2 -o w2.json big.log 2>w2.err
	litracer -q -w 3 -o w3.json big.log 2>w3.err
	cmp w1.json w2.json
	cmp w1.json w3.json
	cmp w1.err w2.err
}

# With -w the stages after the parts run in two processes, cut before
# ltstat, wherever the options put it.
@test "-w 2 with --report, --no-complete, --cat: what -w 1 writes" {
	genlog -n 30000 -c -b >big.log
	for w in 1 2; do
		litracer -q -w $w --report -o r$w.json big.log >r$w.out \
		    2>r$w.err
		litracer -q -w $w --no-complete -o n$w.json big.log 2>n$w.err
		litracer -q -w $w --cat read,wait -o c$w.json big.log 2>c$w.err
	done
	grep -q "^verdict: " r1.out
	grep -q '"ph":"B"' n1.json
	cmp r1.json r2.json
	cmp r1.out r2.out
	cmp r1.err r2.err
	cmp n1.json n2.json
	cmp n1.err n2.err
	cmp c1.json c2.json
	cmp c1.err c2.err
}

@test "-w with an input that cannot be split says so and still works" {
	gzip -c "$SAMPLE" >s.log.gz
	run -0 --separate-stderr litracer -q -w 2 -o g.json s.log.gz
	[ "${stderr_lines[0]}" = "litracer: -w needs one regular uncompressed file; parsing in one part" ]
	[ -s g.json ]
}

@test "gzip input, standard input and several files" {
	litracer -q -o plain.json "$SAMPLE" 2>/dev/null
	gzip -c "$SAMPLE" >s.log.gz
	litracer -q -o gz.json s.log.gz 2>/dev/null
	cmp plain.json gz.json
	litracer -q -o in.json - <"$SAMPLE" 2>/dev/null
	cmp plain.json in.json
	run -0 --separate-stderr litracer -q -o two.json "$SAMPLE" s.log.gz
	[ "$(sumval "$stderr" lines)" = $((2 * $(truth lines))) ]
	[ "$(sumval "$stderr" processes)" = $((2 * $(truth processes))) ]
}

@test "file names with spaces, quotes, a newline or a leading dash" {
	for name in "a b.log" "it's \"x\".log" $'new\nline.log' "-dash.log"; do
		cp "$SAMPLE" "./$name"
		run -0 litracer -q -o "out $name.json" -- "$name"
		[ -s "out $name.json" ]
	done
}

@test "a missing input: exit 2, named; nothing written" {
	run -2 --separate-stderr litracer -o o.json nosuch.log
	[ "$stderr" = "litracer: nosuch.log: No such file or directory" ]
	[ ! -e o.json ]
}

@test "the output may not be one of the inputs" {
	cp "$SAMPLE" in.log
	run -2 --separate-stderr litracer -o in.log in.log
	[ "$stderr" = "litracer: in.log: is the output too; choose another -o" ]
	cmp in.log "$SAMPLE"
}

@test "the output may not be what standard input reads (same device and inode)" {
	cp "$SAMPLE" in.log
	ln in.log link.log
	run -2 --separate-stderr sh -c 'litracer -o in.log - <in.log'
	[ "$stderr" = "litracer: standard input is in.log, the output too; choose another -o" ]
	run -2 --separate-stderr sh -c 'litracer -o link.log - <in.log'
	[ "$stderr" = "litracer: standard input is link.log, the output too; choose another -o" ]
	cmp in.log "$SAMPLE"
	nolitter
	# a pipe on standard input is not the output
	run -0 sh -c 'cat in.log | litracer -q -o in.json -'
	[ -s in.json ]
}

@test "-o DIR or -o DIR/: exit 2, a clear message, nothing written or left" {
	mkdir d
	run -2 --separate-stderr litracer -o d "$SAMPLE"
	[ "$stderr" = "litracer: d: Is a directory; -o takes a file name" ]
	run -2 --separate-stderr litracer -o d/ "$SAMPLE"
	[ "$stderr" = "litracer: d/: Is a directory; -o takes a file name" ]
	run -2 --separate-stderr litracer -o new/ "$SAMPLE"
	[ "$stderr" = "litracer: new/: not a file name (it ends in /)" ]
	[ -z "$(ls -A d)" ]
	[ ! -e new ]
	nolitter
}

@test "an existing FIFO or device as -o is written as it is, not replaced" {
	litracer -q -o plain.json "$SAMPLE" 2>/dev/null
	mkfifo o.json
	cat o.json >got.json &
	run -0 litracer -q -o o.json "$SAMPLE"
	wait $!
	[ -p o.json ]
	cmp got.json plain.json
	run -0 litracer -q -o /dev/null "$SAMPLE"
	[ -c /dev/null ]
	# --validate reads the trace back: only from a regular file
	run -2 --separate-stderr litracer -q --validate -o /dev/null "$SAMPLE"
	[ "$stderr" = "litracer: --validate reads the trace back: /dev/null is not a regular file" ]
	nolitter
}

@test "Perfetto imports what these runs write: an empty trace, a FIFO's, a snap threshold's" {
	tp_need
	run -0 litracer -q --rank 0 --from 30s --to 90s -o e.json "$SAMPLE"
	tp_clean e.json
	[ "$(tp_query e.json 'select count(*) from slice')" = 0 ]
	mkfifo o.json
	cat o.json >got.json &
	run -0 litracer -q -o o.json "$SAMPLE"
	wait $!
	tp_clean got.json
	run -0 litracer -q --snap-threshold-us 1e1 -o s.json "$SAMPLE"
	tp_clean s.json
	[ "$(tp_query s.json 'select count(*) from slice')" = \
	    "$(tp_query got.json 'select count(*) from slice')" ]
	[ "$(tp_query s.json 'select count(*) from slice')" -gt 900 ]
}

@test "--validate -o -: refused before any work" {
	run -2 --separate-stderr litracer -q --validate -o - "$SAMPLE"
	[ -z "$output" ]
	[ "$stderr" = "litracer: --validate reads the trace back: it needs an output file, not -o -" ]
	nolitter
}

@test "standard input closed: a file input works, - says it is closed" {
	litracer -q -o plain.json "$SAMPLE" 2>/dev/null
	run -0 --separate-stderr sh -c 'litracer -q -o x.json "$1" <&-' sh "$SAMPLE"
	cmp x.json plain.json
	run -2 --separate-stderr sh -c 'litracer -q -o y.json - <&-'
	[ "$stderr" = "litracer: -: standard input is closed" ]
	[ ! -e y.json ]
	nolitter
}

@test "-h and -V into a full device: exit 2, with the reason" {
	run -2 --separate-stderr sh -c 'litracer -h >/dev/full'
	[ "$stderr" = "litracer: standard output: No space left on device" ]
	run -2 --separate-stderr sh -c 'litracer -V >/dev/full'
	[ "$stderr" = "litracer: standard output: No space left on device" ]
}

@test "-o - | head -1: quiet, as a filter is" {
	genlog -n 50000 >big.log
	run -0 --separate-stderr bash -c 'litracer -q -o - "$1" | head -n 1; echo "${PIPESTATUS[0]}" >st' bash big.log
	[ "$output" = '{"traceEvents":[' ]
	[ -z "$stderr" ]
	grep -qx -e 0 -e 141 st
	nolitter
}

@test "a full output device: No space left on device, the output named, the writer blamed" {
	# ltlanefix, upstream of ltjson, is killed by SIGPIPE when ltjson
	# stops: it must not be blamed
	genlog -n 50000 >big.log
	run -2 --separate-stderr sh -c 'litracer -q -o - "$1" >/dev/full' sh big.log
	[ "${stderr_lines[0]}" = "ltjson: write error: <stdout>: No space left on device" ]
	[ "${stderr_lines[1]}" = "litracer: ltjson failed (exit 2); the output is incomplete" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	# a device or a FIFO is written as the chain runs: what it got of
	# the output is incomplete (not "was not written")
	run -2 --separate-stderr litracer -q -o /dev/full big.log
	[ "${stderr_lines[0]}" = "ltjson: write error: /dev/full: No space left on device" ]
	[ "${stderr_lines[1]}" = "litracer: ltjson failed (exit 2); the output is incomplete" ]
	run -2 --separate-stderr litracer -q --no-lanefix -o /dev/full big.log
	[ "${stderr_lines[1]}" = "litracer: ltjson failed (exit 2); the output is incomplete" ]
	mkfifo fifo
	printf '{"traceEvents":[{"ph":"X"' >bad.json
	cat fifo >/dev/null 3>&- &
	run -1 --separate-stderr litracer -q -o fifo bad.json
	exec 5<>fifo	# cat ends even if no stage opened the FIFO
	exec 5>&-
	wait
	[ "${stderr_lines[${#stderr_lines[@]} - 1]}" = "litracer: ltparse failed (exit 1); the output is incomplete" ]
	nolitter
}

@test "a full output filesystem: the reason and the output named; nothing left there" {
	need_fullfs
	genlog -n 50000 >big.log
	for o in t.json:'ltjson failed (exit 2)' t.json.gz:'gzip failed (exit 1)' \
	    t.pftrace:'ltproto failed (exit 2)'; do
		why=${o#*:}
		o=${o%%:*}
		run -0 --separate-stderr fullfs 256k no sh -c \
		    'litracer -q -o "$1/$2" "$3"; echo "$?"; ls -A "$1"' sh "$T/fs" "$o" big.log
		# exit 2, and nothing left in the directory
		[ "$output" = 2 ]
		[[ "${stderr_lines[0]}" == *": $T/fs/$o: No space left on device" ]]
		[ "${stderr_lines[1]}" = "litracer: $why; $T/fs/$o was not written" ]
		[ "${#stderr_lines[@]}" -eq 2 ]
	done
	nolitter
}

@test "TMPDIR missing or full: the reason and the path, before any work" {
	need_fullfs
	run -2 --separate-stderr env TMPDIR="$T/nosuch" litracer -q -o t.json "$SAMPLE"
	[ "$stderr" = "litracer: $T/nosuch: No such file or directory (TMPDIR)" ]
	run -0 --separate-stderr fullfs 64k yes sh -c \
	    'TMPDIR=$1 litracer -q -o t.json "$2"; echo "$?"; ls -A "$1"' sh "$T/fs" "$SAMPLE"
	[ "$stderr" = "litracer: $T/fs: No space left on device (TMPDIR)" ]
	[ "$output" = "$(printf '2\nfill')" ]
	[ ! -e t.json ]
	nolitter
}

@test "TMPDIR filled by the parts of -w: the reason, and the stage" {
	need_fullfs
	genlog -n 50000 >big.log
	run -0 --separate-stderr fullfs 1m no sh -c \
	    'TMPDIR=$1 litracer -q -w 2 -o t.json "$2"; echo "$?"; ls -A "$1"' sh "$T/fs" big.log
	[ "$output" = 2 ]
	[[ "$stderr" == *"litracer: $T/fs: No space left on device (TMPDIR)"* ]]
	[ "${stderr_lines[${#stderr_lines[@]} - 1]}" = "litracer: ltparse failed (exit 2); t.json was not written" ]
	[ ! -e t.json ]
	nolitter
}

@test "a failing stage is named, and the previous trace stays" {
	echo previous >t.json
	printf '{"traceEvents":[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1},{"ph":' >bad.json
	run -1 --separate-stderr litracer -q -o t.json bad.json
	[[ "$stderr" == *"litracer: ltparse failed (exit 1); t.json was not written"* ]]
	[ "$(cat t.json)" = previous ]
	[ -z "$(ls -A "$TMPDIR")" ]
	[ -z "$(ls -A . | grep '^\.litracer')" ]
}

@test "an output directory that does not exist: exit 2" {
	run -2 --separate-stderr litracer -o nodir/t.json "$SAMPLE"
	[ "$stderr" = "litracer: nodir: No such directory" ]
}

# midrun: litracer -o k.json in the background on an input that stays
# open (a pipe that gets 200 KB and is never closed), so that the run is
# surely in the middle; returns once its whole chain runs (the two
# ltchain processes), with the driver's pid in $pid and its stderr in
# drv.err.
midrun() {
	local n=0
	mkfifo feed
	{ head -c 200000 "$SAMPLE"; exec sleep 600; } >feed 3>&- &
	writer=$!
	LT_TEST_TAG=$tag litracer -q -o k.json - <feed 2>drv.err 3>&- &
	pid=$!
	until [ "$(tagged_names | grep -cx ltchain)" -eq 2 ]; do
		n=$((n + 1))
		[ "$n" -le 600 ] || {
			echo "the chain never started; running:" $(tagged_names)
			return 1
		}
		sleep 0.1
	done
}

@test "killed mid-run: the stages go with it, nothing is left" {
	echo previous >k.json
	midrun
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 143 ]
	# the driver reaped its stages before it ended
	[ -z "$(tagged_stages)" ]
	gone
	[ "$(cat k.json)" = previous ]
	nolitter
}

@test "killed with SIGKILL: the watchdog stops the stages and removes the temporaries" {
	echo previous >k.json
	midrun
	[ -n "$(ls -A . | grep '^\.litracer')" ]
	kill -KILL "$pid"
	wait "$pid" || true
	# their input is still open: only the watchdog can stop them
	gone
	[ "$(cat k.json)" = previous ]
	nolitter
}

@test "a later run removes the temporaries of dead runs, and only those" {
	midrun
	# the driver, its watchdog and the stages at once: nothing cleans up
	kill -KILL $(tagged)
	wait "$pid" || true
	gone
	left=$(ls -A . | grep '^\.litracer\.')
	[ "$(ls -A "$TMPDIR" | wc -l)" -eq 1 ]
	# .litracer.PID.HOST.XXXXXX: the run that made it, and where
	host=${left#.litracer.*.}
	host=${host%.*}
	[ -n "$host" ]
	[ ".litracer.$pid.$host.${left##*.}" = "$left" ]
	# a live run's temporaries (this shell's pid) and another host's stay
	touch ".litracer.$$.$host.aaaaaa" ".litracer.$pid.other-host.bbbbbb"
	mkdir "$TMPDIR/litracer.$$.$host.cccccc"
	run -0 litracer -q -o k.json "$SAMPLE"
	[ "$(ls -A . | grep '^\.litracer\.' | sort | tr '\n' ' ')" = \
	    ".litracer.$$.$host.aaaaaa .litracer.$pid.other-host.bbbbbb " ]
	[ "$(ls -A "$TMPDIR")" = "litracer.$$.$host.cccccc" ]
}

@test "killed at any moment of its start: nothing left behind, nothing left waiting" {
	# an input that never ends: a pipe this shell holds open
	mkfifo never
	exec 5<>never
	echo previous >k.json
	# from sh, not from bats' bash: bash, with an EXIT trap set, catches
	# a TERM in its child between fork and exec, and it is lost there
	# (the driver never sees it, and runs on); sh's child dies of it
	# shellcheck disable=SC2016 # the script's own variables
	LT_TEST_TAG=$tag sh -c '
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		litracer -q -o k.json - <never 2>/dev/null 3>&- 5>&- &
		pid=$!
		sleep "0.00$((i % 10))"
		if [ $((i % 2)) -eq 0 ]; then
			kill -TERM "$pid" 2>/dev/null
		else
			kill -KILL "$pid" 2>/dev/null
		fi
		wait "$pid"
	done
	exit 0'
	gone
	exec 5>&-
	[ "$(cat k.json)" = previous ]
	# what a SIGKILL before the watchdog left, the next run removes
	run -0 litracer -q -o k2.json "$SAMPLE"
	nolitter
}

@test "--sink is accepted and ignored, and says so" {
	run -0 --separate-stderr litracer -q -s 4 -o s.json "$SAMPLE"
	[ "${stderr_lines[0]}" = "litracer: --sink is deprecated and ignored" ]
}

# progress_out FILE: the lines of FILE (a terminal's output), without
# the erasing of the rest of a line.
progress_out() {
	tr '\r' '\n' <"$1" | sed 's/\x1b\[K//g' | grep -a .
}

@test "on a terminal: the summary, then what ltlanefix did in one line; --lane-report lists it" {
	need script
	script -qec "TERM=xterm litracer -o tty.json '$SAMPLE'" /dev/null >tty.out 2>&1
	progress_out tty.out >lines.out
	grep -q "^lines=$(truth lines) events=" lines.out
	# the counts of ltlanefix, which ltjson keeps in the metadata
	lf=$(grep -o '"ltlanefix":{[^}]*}' tty.json)
	lanes=$(grep -o '"lanes":[0-9]*' <<<"$lf" | cut -d: -f2)
	moved=$(grep -o '"moved":[0-9]*' <<<"$lf" | cut -d: -f2)
	slices=$(ltparse tty.json | awk -F '\t' '$2 == "X"' | wc -l)
	[ "$moved" -gt 0 ]
	[ "$(tail -n 1 lines.out)" = "wrote tty.json: $slices slices, $lanes new lanes ($moved spans moved, 0 snapped)" ]
	# the summary and that line, no list of slices
	run ! grep -aq '^moved slices' lines.out
	script -qec "TERM=xterm litracer --lane-report -o tty2.json '$SAMPLE'" /dev/null >tty2.out 2>&1
	grep -aq '^moved slices ([0-9]*):' tty2.out
	cmp tty.json tty2.json
	# not on a terminal: --lane-report on stderr too
	run -0 --separate-stderr litracer -q --lane-report -o r.json "$SAMPLE"
	[[ "$stderr" == *"moved slices ("* ]]
}


@test "on a terminal, ltparse draws the progress line: the share read, the speed, the time left; erased before the summary" {
	need script
	genlog -n 40000 >big.log
	script -qec "TERM=xterm LT_PROGRESS_MS=0 litracer -o p.json big.log" /dev/null >tty.out 2>&1
	progress_out tty.out >lines.out
	grep -aq '^reading big.log: [0-9]*%, [0-9]* MB/s, [0-9]*s left$' lines.out
	# the line is erased, then the summary
	[[ "$(grep -a -A1 '^reading big.log: ' lines.out | tail -n 1)" == lines=* ]]
	grep -aq $'\r\033\\[K' tty.out
	# from a pipe the size is unknown: megabytes
	script -qec "TERM=xterm LT_PROGRESS_MS=0 litracer -o q.json - <big.log" /dev/null >tty.out 2>&1
	progress_out tty.out | grep -aq '^reading standard input: [0-9]* MB, [0-9]* MB/s$'
	cmp p.json q.json
}

@test "the progress line fits the terminal's width, and is erased when the run is interrupted" {
	need script
	need stty
	genlog -n 40000 >"a file with a long name, to be cut at the terminal's width.log"
	script -qec "stty cols 40; TERM=xterm LT_PROGRESS_MS=0 litracer -o p.json 'a file with a long name, to be cut at the terminal'\''s width.log'" /dev/null >tty.out 2>&1
	progress_out tty.out | grep -a '^reading' >lines.out
	[ -s lines.out ]
	awk 'length($0) > 39 { print "too wide: " $0; bad = 1 } END { exit bad }' lines.out
	# interrupted while it reads (an input that stays open): erased, then
	# gone (TERM: a job in the background, as here, ignores SIGINT, and
	# the driver's trap is the same for both)
	mkfifo feed
	{ head -c 200000 "$SAMPLE"; exec sleep 600; } >feed 3>&- &
	writer=$!
	script -qec "TERM=xterm LT_PROGRESS_MS=0 LT_TEST_TAG='$tag' litracer -o k.json - <feed" /dev/null >int.out 2>&1 3>&- &
	sp=$!
	seen 'reading standard input' int.out
	# the driver: the parent of its first stage
	read -r _ _ _ drv _ <"/proc/$(stage ltchain)/stat"
	kill -TERM "$drv"
	wait "$sp" || true
	# the last progress line is erased (then the shell may say
	# "Terminated")
	[[ "$(tr '\r' '\n' <int.out | grep -a -A1 '^reading' | tail -n 1)" == $'\033[K'* ]]
	gone
	[ ! -e k.json ]
}

@test "ltparse and ltlanefix --progress-fd: the steps a user waits for, on the descriptor given" {
	genlog -n 20000 -l sample >s.log
	LT_PROGRESS_MS=0 ltparse --progress-fd 3 s.log 3>p.out >s.lt1
	progress_out p.out >lines.out
	grep -aq '^reading s.log: 100%, ' lines.out
	# the line is erased at the end
	[[ "$(tail -c 4 p.out)" == $'\r\033[K' ]]
	# ltlanefix draws one only for what it does after the input's end:
	# nothing on ltpair's stream, placed as it goes; the sort of -k
	ltpair <s.lt1 >p.lt1
	LT_PROGRESS_MS=0 ltlanefix -q --progress-fd 3 <p.lt1 3>l.out >/dev/null
	[ ! -s l.out ]
	LT_PROGRESS_MS=0 ltlanefix -q -k --progress-fd 3 <p.lt1 3>l.out >/dev/null
	progress_out l.out >lines.out
	[ "$(grep -ac '^placing lanes' lines.out)" = 0 ]
	grep -aq '^writing: [0-9]*%, [0-9]*s left$' lines.out
	# and on a stream held whole (no directives), the placing too
	grep -v '^#open	\|^#close	' p.lt1 >w.lt1
	LT_PROGRESS_MS=0 ltlanefix -q -k --progress-fd 3 <w.lt1 3>l.out >/dev/null
	progress_out l.out >lines.out
	grep -aq '^placing lanes: [0-9]*%, [0-9]*s left$' lines.out
	grep -aq '^writing: [0-9]*%, [0-9]*s left$' lines.out
	run -2 --separate-stderr ltparse --progress-fd x s.log
	[ "$stderr" = "ltparse: --progress-fd x: invalid (0 to 1023)" ]
}

@test "a Kineto trace with crossing slices is repaired, every event kept" {
	need node
	gentrace -n 20000 -x 50 >k.json
	run -1 ltcheck -q k.json
	run -0 --separate-stderr litracer -q --validate -o fixed.json k.json
	run -0 ltcheck fixed.json
	[[ "$output" == *"nothing to report"* ]]
	n() {
		node -e 'const t = JSON.parse(require("fs").readFileSync(process.argv[1]));
		    console.log(t.traceEvents.filter(e => e.ph !== "M").length)' "$1"
	}
	[ "$(n k.json)" -gt 19000 ]
	[ "$(n k.json)" = "$(n fixed.json)" ]
}

@test "the summary rounds exact decimal microseconds to ms, half up" {
	# 1500.5 us: a double makes it 1.50049999..., which would print 1.5
	printf '%s\n' \
	    'ts:1795940303000000.000;PID:7; TID:70; name: a;ph: B;cat: read;' \
	    'ts:1795940303001500.500;PID:7; TID:70; name: a;ph: E;cat: read;' \
	    'ts:1795940303001000.000;PID:7; TID:70; name: z;ph: i;cat: mark;' >r.log
	run -0 --separate-stderr litracer -q r.log
	[ "$(sumval "$stderr" duration_ms)" = 1.501 ]
	[ "$(sumval "$stderr" read)" = 1.501ms ]
}

# outlier OUT: the bundled sample with one download 47 days before it
# (a damaged line, or logs put together out of order).
outlier() {
	{
		sed -n 1,400p "$SAMPLE"
		echo "ts:1770095635562254.250;PID:1059625; TID:139714073724736; name: download;ph: B;cat: download;chunk: 99;"
		echo "ts:1770095635562259.750;PID:1059625; TID:139714073724736; name: download;ph: E;cat: download;chunk: 99;"
		sed -n '401,$p' "$SAMPLE"
	} >"$1"
}

@test "an event weeks before the rest: converted again with an offset that keeps it, Perfetto imports it whole" {
	tp_need
	outlier o.log
	# (no insight: its counters would add times of the outlier)
	x=$(sumval "$(litracer -q --no-insight -o s.json "$SAMPLE" 2>&1)" X)
	for lf in '' --no-lanefix; do
		run -0 --separate-stderr litracer -q --no-insight $lf -o o.json o.log
		[ "${stderr_lines[0]}" = "litracer: 2 times lie before the offset chosen from the first event; converting again with --ts-offset-us 1770000000000000" ]
		[ "$(sumval "${stderr_lines[1]}" X)" = $((x + 1)) ]
		# the offset is the step just below the earliest event, so
		# every time stays exact: none rounded, none clamped
		[ -z "$(sumval "${stderr_lines[1]}" rounded_ts)" ]
		[ -z "$(sumval "${stderr_lines[1]}" clamped_ts)" ]
		nomatch '"ts":-' o.json
		grep -q '"ts_offset_us":1770000000000000,' o.json
		# (--no-lanefix leaves the sample's crossings to Perfetto)
		if [ -z "$lf" ]; then
			tp_clean o.json
		else
			[ -z "$(tp_query o.json "select name from stats where value > 0 and name like '%negative%'")" ]
		fi
		[ "$(tp_query o.json "select count(*) from slice where name = 'download' and ts = 95635562254250 and dur = 5500")" = 1 ]
		nolitter
	done
}

@test "an event weeks before the rest, from a pipe: never negative, the trace stands, the warning says how to keep it" {
	tp_need
	outlier o.log
	run -0 --separate-stderr sh -c 'litracer -q --no-insight -o o.json - < o.log'
	[ "$(sumval "${stderr_lines[0]}" clamped_ts)" = 2 ]
	[ "${stderr_lines[1]}" = "litracer: 2 times lay before the offset chosen from the first event and were written as the trace's start; convert from a file, or give --ts-offset-us 1770000000000000, to keep them" ]
	nomatch '"ts":-' o.json
	tp_clean o.json
	run -0 --separate-stderr sh -c 'litracer -q --no-insight --ts-offset-us 1770000000000000 -o o2.json - < o.log'
	[ -z "$(sumval "${stderr_lines[0]}" clamped_ts)" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	tp_clean o2.json
	run -2 --separate-stderr litracer -q --ts-offset-us 1.5 o.log
	[ "$stderr" = "litracer: --ts-offset-us 1.5: invalid" ]
}

@test "a log spanning months: late times whole us, counted in the summary; Perfetto sees no crossing" {
	tp_need
	# the sample again, 200 days later, appended (an upgrade, a new run)
	{
		cat "$SAMPLE"
		awk -F ';' -v OFS=';' '/^ts:/ {
			split(substr($1, 4), t, ".")
			$1 = sprintf("ts:%.0f.%s", t[1] + 17280000000000, t[2])
		} { print }' "$SAMPLE"
	} >long.log
	# (no insight: the copy's spans of the same pids pair across the
	# two, so its waits are not twice the sample's)
	run -0 --separate-stderr litracer -q --no-insight -o long.json long.log
	[ "$(sumval "$stderr" rounded_ts)" -gt 0 ]
	tp_clean long.json
	x=$(sumval "$(litracer -q --no-insight -o s.json "$SAMPLE" 2>&1)" X)
	[ "$(sumval "$stderr" X)" -eq $((2 * x)) ]
	[ "$(tp_query long.json 'select count(*) from slice')" -ge $((2 * x)) ]
}

@test "a bad --from or --to names the option and the reason once" {
	run -2 --separate-stderr litracer -q --from 5x "$SAMPLE"
	[ "$stderr" = "litracer: --from 5x: not a time" ]
	run -2 --separate-stderr litracer -q --to 9300000000s "$SAMPLE"
	[ "$stderr" = "litracer: --to 9300000000s: out of range (about 292 years at most)" ]
}

@test "--validate asks Perfetto's own importer too, where there is one" {
	tp_need
	# a stand-in that reports a stat Perfetto's prediction does not have
	cat >fake_tp <<X
#!/bin/sh
case "\$*" in
*stats*) printf '"name","severity","source","sum(value)"\n"misplaced_end_event","data_loss","trace",3\n' ;;
*) exec "$TP" "\$@" ;;
esac
X
	chmod +x fake_tp
	run -0 env TRACE_PROCESSOR="$TP" litracer -q --validate -o v.json "$SAMPLE"
	run -1 --separate-stderr env TRACE_PROCESSOR="$T/fake_tp" litracer -q --validate -o v.json "$SAMPLE"
	[[ $stderr == *"misplaced_end_event"* ]]
	[ -s v.json ]
}

@test "-o F.pftrace: Perfetto's own format by the same chain, the same summary and slices as the JSON" {
	tp_need
	run -0 --separate-stderr litracer -q -o t.json "$SAMPLE"
	js=$stderr
	run -0 --separate-stderr litracer -q -o t.pftrace "$SAMPLE"
	[ "$stderr" = "$js" ]
	# a protobuf Trace (field 1, length-delimited), not JSON
	[ "$(od -An -tx1 -N1 t.pftrace | tr -d ' ')" = 0a ]
	tp_clean t.pftrace
	off=$(sed -n 's/.*"ts_offset_us":\([0-9]*\).*/\1/p' t.json)
	q="select s.name, s.category, s.ts + X, s.dur, t.tid, t.name
	    from slice s join thread_track k on s.track_id = k.id
	    join thread t using (utid) order by 3, 1, 4"
	tp_query t.json "${q/X/${off}000}" >json.rows
	tp_query t.pftrace "${q/X/0}" >proto.rows
	[ "$(wc -l <json.rows)" -gt 900 ]
	diff json.rows proto.rows
	q="select name from process where name is not null order by 1"
	[ "$(tp_query t.pftrace "$q")" = "$(tp_query t.json "$q")" ]
	nolitter
}

@test "-o F.pftrace.gz compresses it; --validate and the filters work as with JSON" {
	tp_need
	run -0 litracer -q -o t.pftrace "$SAMPLE"
	run -0 litracer -q --validate -o t.pftrace.gz "$SAMPLE"
	[ "$(od -An -tx1 -N2 t.pftrace.gz | tr -d ' ')" = 1f8b ]
	gzip -dc t.pftrace.gz | cmp - t.pftrace
	run -0 --separate-stderr litracer -q --cat read --rank 1 -o r.pftrace "$SAMPLE"
	[[ "$stderr" == *" filter_kept="[1-9]* ]]
	kept=$(printf '%s\n' "$stderr" | sed -n 's/.* X=\([0-9]*\) .*/\1/p')
	[ "$kept" -gt 0 ]
	[ "$(tp_query r.pftrace "select count(*) from slice where category = 'read'")" = "$kept" ]
	[ "$(tp_query r.pftrace "select count(*) from slice where category != 'read'")" = 0 ]
	nolitter
}

@test "-o F.pftrace: --ts-offset-us refused (absolute ns, no offset), nothing written" {
	run -2 --separate-stderr litracer -q --ts-offset-us 5 -o t.pftrace "$SAMPLE"
	[ "$stderr" = "litracer: --ts-offset-us: a .pftrace trace keeps absolute times in nanoseconds, with no offset" ]
	[ ! -e t.pftrace ]
	nolitter
}

@test "-o F.pftrace: a ts before 0 is left out, said, and the trace stands" {
	tp_need
	printf '{"traceEvents":[{"ph":"X","ts":-5,"dur":1,"pid":1,"tid":1,"name":"a"},{"ph":"X","ts":10,"dur":1,"pid":1,"tid":1,"name":"b"}]}' >k.json
	run -0 --separate-stderr litracer -q -o k.pftrace k.json
	[[ "$stderr" == *"ltproto: 1 events before time 0"* ]]
	[ "$(tp_query k.pftrace 'select name from slice')" = '"b"' ]
	tp_clean k.pftrace
}

@test "--report-json FILE: ltstat's JSON report beside the trace; --max-wait-share: exit 3 above it with every output written, 0 at or below; a bad one exits 2" {
	need node
	# The sample's job waits 98.97% of its step time; the restarted
	# rank 1, with one batch left open, 100%.
	run -3 --separate-stderr litracer -q --report --report-json r.json --max-wait-share 98.9 -o t.json "$SAMPLE"
	json_ok t.json
	[ "$(jget r.json '[o.schema_version, o.verdict, o.wait_share, o.straggler, o.ranks.length]')" = '[1,"high",0.9897,null,4]' ]
	[ "$(jget r.json 'o.ranks.filter(r => r.batches > 0).every(r => Object.values(r.wait_by_cause_us).reduce((a, b) => a + b, 0) === r.wait_us)')" = true ]
	[[ $output == "ltstat: LitData 0.2.68 or later;"* ]]
	[ "$(sumval "$stderr" events)" -gt 0 ]
	# The JSON is ltstat -j's, of the trace's chain.
	ltparse "$SAMPLE" | ltpair | ltlanefix -q | ltstat -t -j -o r2.json > /dev/null
	cmp r.json r2.json
	run -3 litracer -q --max-wait-share 99 -o t2.json "$SAMPLE"
	run -0 litracer -q --max-wait-share 100 -o t2.json "$SAMPLE"
	[ -s t2.json ]
	run -0 litracer -q --max-wait-share=100 --no-insight -o t3.json "$SAMPLE"
	# With --validate: the check's status first, then the threshold's.
	run -3 litracer -q --validate --max-wait-share 50 -o t4.json "$SAMPLE"
	# A PyTorch profiler trace: the DataLoader's share, 33.37%.
	run -3 litracer -q --report-json k.json --max-wait-share 33 -o k.pftrace "$DATA/kineto/worker0.1623143089861.pt.trace.json.gz"
	[ "$(jget k.json '[o.kind, o.wait_share, o.steps.length]')" = '["kineto",0.3337,6]' ]
	run -0 litracer -q --max-wait-share 34 -o k2.json "$DATA/kineto/worker0.1623143089861.pt.trace.json.gz"
	for bad in x 101 -1 ''; do
		run -2 --separate-stderr litracer -q --max-wait-share "$bad" -o b.json "$SAMPLE"
		[ "$stderr" = "litracer: --max-wait-share $bad: not a percentage from 0 to 100" ]
		[ ! -e b.json ]
	done
	run -2 --separate-stderr litracer -q --report-json "$BATS_TEST_TMPDIR/no/such/r.json" -o b.json "$SAMPLE"
	[[ $stderr == *"no/such/r.json"* ]]
}
