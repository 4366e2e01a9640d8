#!/usr/bin/env bats
# examples: every command the man pages show to be typed runs as written
# and does what its caption says; every page's SEE ALSO names the others.
#
# A command is what follows a "$ " prompt (or "node$ ", "head$ ") in a
# page as mandoc renders it 80 columns wide, with the lines below it that
# are indented further; a rendered line that wraps fails.  The commands
# of one page run in order in one bash, as a reader following the page
# types them (with pipefail: no stage of a pipeline may fail), in a
# directory of their own holding the inputs the pages name:
#
#   litdata_debug.log litdata.log big.log node0.log node1.log
#                          the bundled sample, tests/data/sample.log
#   litdata_debug.log.gz   the sample, compressed
#   rank1.log rank0.log    the sample's lines of rank 1, and all the others
#   trace.json kineto.json a Kineto trace whose slices cross (gentrace -x)
#   kineto_trace.json.gz   the same, compressed
#   rank0.json             a Kineto trace whose slices do not cross
#   profile.json           a trace whose clock starts at 0
#   in.lt1                 a stream of the chain, ltparse | ltpair | ltlanefix
#   ~/bin/trace_processor, trace_processor_shell on PATH
#                          Perfetto's trace processor (the second test)
#
# HOME and TMPDIR are that directory; SLURM_NODEID is unset.  CHECKS
# below gives, for each command, its page, its exit status and the check
# of its caption's promise; a command missing from CHECKS fails, and so
# does an entry of CHECKS that no page shows.

bats_require_minimum_version 1.5.0

setup() {
	load helper
	T=$BATS_TEST_TMPDIR
}

PAGES="litracer-stream.5 litracer.1 litracer.7 ltchain.1 ltcheck.1 ltfilter.1
ltjson.1 ltlanefix.1 ltpair.1 ltparse.1 ltproto.1 ltstat.1"

# CHECKS: entries "@ PAGE STATUS COMMAND", "@tp" for one that needs the
# trace processor; COMMAND with its continuation lines joined by one
# space.  The indented lines below an entry are its check: bash, run with
# set -e in the page's directory after the command, with $out and $err
# naming the files that hold the command's standard output and error.
CHECKS=$(cat <<'EOF'
@ litracer-stream.5 0 grep -v '^#valid$' in.lt1 | ltjson > t.json
	has in.lt1 '^#valid$'
	clean t.json
	[ "$(events t.json)" -gt 1000 ]
@ litracer-stream.5 0 ltparse litdata_debug.log | awk -F '\t' '$7 == "read"'
	[ "$(wc -l <"$out")" -eq "$(grep -c 'name: read;' litdata_debug.log)" ]
	awk -F '\t' '$7 != "read" { exit 1 }' "$out"
@ litracer-stream.5 0 ltparse litdata_debug.log | grep -c "$(printf '\tB\t')"
	[ "$(cat "$out")" = "$(truth B)" ]

@ litracer.1 0 litracer litdata_debug.log
	clean litdata_trace.json
	has "$err" '^lines=2000 '
@ litracer.1 0 litracer -q --validate -o trace.json.gz rank*.log
	gzip -t trace.json.gz
	clean trace.json.gz
	# the two logs hold what the sample holds
	diff <(ltcheck -q -s trace.json.gz | grep -v '^process') \
	    <(ltcheck -q -s litdata_trace.json | grep -v '^process')
@ litracer.1 0 litracer -q --report -o run.json tests/data/sample.log
	clean run.json
	has "$out" '^verdict: input-bound, high: the job lost '
@ litracer.1 0 litracer -q --validate litdata_debug.log
	clean litdata_trace.json
	[ "$(wc -l <"$err")" -eq 1 ]
	has "$err" '^lines=2000 '
@ litracer.1 0 litracer --cat download,read,delete -o io.json.gz litdata_debug.log
	gzip -t io.json.gz
	only_cats io.json.gz download read delete
@ litracer.1 0 litracer -w 2 litdata_debug.log
	clean litdata_trace.json
	diff <(ltcheck -q -s litdata_trace.json) \
	    <(litracer -q -o - litdata_debug.log 2>/dev/null | ltcheck -q -s)
@ litracer.1 0 litracer --rank 1 --to 60s -o r1.json litdata_debug.log
	clean r1.json
	t0=$(ltparse litdata_debug.log | sed -n 's/^#t0\t//p')
	ltparse r1.json >r1.lt1
	# some events, all of rank 1, all in the first minute of the log
	has r1.lt1 '"dist_global_rank":1[,}]'
	nomatch '"dist_global_rank":[02-9]' r1.lt1
	awk -F '\t' -v t0="$t0" '!/^#/ && $1 != "-" && $1 >= t0 + 60e6' r1.lt1 >late
	[ ! -s late ]
@ litracer.1 0 litracer -o fixed.json kineto_trace.json.gz
	notclean kineto_trace.json.gz
	clean fixed.json
	[ "$(phase fixed.json X)" -eq "$(phase kineto_trace.json.gz X)" ]
@ litracer.1 0 litracer -o day.pftrace litdata_debug.log
	pftrace day.pftrace

@ litracer.7 0 litracer litdata_debug.log
	clean litdata_trace.json
@ litracer.7 0 litracer -q --validate -o run.json.gz litdata_debug.log
	gzip -t run.json.gz
	clean run.json.gz
@ litracer.7 0 ltparse -v litdata_debug.log > s.lt1 # -v: each skipped line
	[ "$(wc -l <"$err")" -eq "$(truth noise_text)" ]
	nomatch -v '^ltparse: litdata_debug.log:[0-9]*: skipped ' "$err"
	has s.lt1 '^#lt1$'
@ litracer.7 0 tail -n 1 s.lt1 # ltparse's counters
	has "$out" '^#stat	ltparse	lines=2000	'
@ litracer.7 0 ltpair s.lt1 | grep '"unmatched_B"' | cut -f 1,3,7 # left open
	[ "$(wc -l <"$out")" -eq "$(truth unmatched_B)" ]
	nomatch -v '^[0-9.]*	[0-9]*	[a-z]*$' "$out"
@ litracer.7 0 ltpair s.lt1 | ltfilter -c read -r 0 | sort -t "$(printf '\t')" -k1,1n # reads of rank 0 by time
	grep -v '^#' "$out" | awk -F '\t' '$2 != "M"' >recs
	[ -s recs ]
	awk -F '\t' '$6 != "read" || $8 !~ /"dist_global_rank":0[,}]/' recs >bad
	[ ! -s bad ]
	sort -c -t "$(printf '\t')" -k1,1n recs
@ litracer.7 0 ltpair s.lt1 | ltlanefix > /dev/null # the lane report only
	[ ! -s "$out" ]
	has "$err" '^processing [0-9]* track(s)$'
	has "$err" '^moved slices ([1-9][0-9]*):$'
@ litracer.7 0 litracer -o s.json s.lt1 # its trace, from ltpair on
	litracer -q -o l.json litdata_debug.log 2>/dev/null
	cmp l.json s.json
@ litracer.7 0 sed -i '/^#valid$/d' s.lt1
	nomatch '^#valid$' s.lt1
	ltjson s.lt1 >/dev/null
@ litracer.7 0 ltparse litdata_debug.log | ltpair | ltfilter --cat download,read,delete --rank 0 | ltlanefix | ltjson > io.json
	clean io.json
	only_cats io.json download read delete
	ltparse io.json >io.lt1
	nomatch '"dist_global_rank":[1-9]' io.lt1
@ litracer.7 0 ltparse -n 3 litdata_debug.log | gzip > node3.lt1.gz
	gzip -dc node3.lt1.gz >node3.lt1
	has node3.lt1 '(node 3, pid [0-9]*)'
@ litracer.7 0 gzip -dc node*.lt1.gz | ltpair | ltlanefix | ltjson > all.json
	clean all.json
	has all.json '"rank 0 (node 3, pid [0-9]*)"'
@ litracer.7 0 ltparse big.log | ltpair > all.lt1
	has all.lt1 '^#stat	ltpair	'
@ litracer.7 0 for m in 0 1 2 3; do ltfilter -T "$((m * 60))s,$((m * 60 + 60))s" all.lt1 | ltlanefix | ltjson > "part$m.json" done
	kept=0
	for m in 0 1 2 3; do
		clean "part$m.json"
		kept=$((kept + $(meta "part$m.json" kept)))
	done
	# the four minutes hold every event of the sample's two
	[ "$kept" -eq "$(awk -F '\t' '!/^#/ && $2 != "M"' all.lt1 | wc -l)" ]
	[ "$(meta part0.json ts_offset_us)" = "$(meta part2.json ts_offset_us)" ]
@ litracer.7 1 ltcheck trace.json # how many slices Perfetto would spill
	has "$out" '^  IE  *slice_spill_overlapping_complete_event  *[1-9]'
@ litracer.7 0 litracer -o fixed.json trace.json
	clean fixed.json
@ litracer.7 0 ltcheck fixed.json
	has "$out" '^Perfetto v57+: Trace Errors 0, Import Errors 0, Data Losses 0,'
@ litracer.7 1 ltcheck -t trace.json # one line per predicted counter
	nomatch -v '^[A-Za-z_-]*	[0-9]*	[A-Za-z]*$' "$out"
	has "$out" '^slice_spill_overlapping_complete_event	[1-9][0-9]*	IE$'
@ litracer.7 1 ltcheck -V 56 trace.json # as Perfetto v51 to v56 imports it
	has "$out" '^Perfetto v51-56: '
	has "$out" ' slice_drop_overlapping_complete_event '
@ litracer.7 1 ltcheck -s trace.json # durations per category
	has "$out" '^category	kernel	count=[1-9][0-9]*	.*	total_us=[1-9]'

@ ltcheck.1 0 ltparse litdata_debug.log | ltpair | ltlanefix | ltjson > t.json
	clean t.json
@ ltcheck.1 0 ltcheck t.json
	has "$out" '^nothing to report$'
@ ltcheck.1 1 ltcheck -t -V 56 kineto.json
	has "$out" '^slice_drop_overlapping_complete_event	[1-9][0-9]*	IE$'
@tp ltcheck.1 0 TRACE_PROCESSOR=~/bin/trace_processor ltcheck -P t.json
	has "$out" "^trace processor $HOME/bin/trace_processor: its counters are those predicted$"
@ ltcheck.1 0 ltparse litdata_debug.log | ltpair | ltlanefix -q | ltcheck -q && echo clean
	[ "$(cat "$out")" = clean ]
@ ltcheck.1 0 ltcheck -q -s t.json | awk -F '\t' '$1 == "category"'
	[ "$(wc -l <"$out")" -ge 5 ]
	nomatch -v '^category	' "$out"

@ ltfilter.1 0 ltparse litdata_debug.log | ltfilter --cat read | ltjson > t.json
	clean t.json
	only_cats t.json read
	[ "$(phase t.json M)" -gt 0 ]
@ ltfilter.1 0 ltparse litdata_debug.log | ltpair | ltfilter -c download,read,decompress -d 10ms -r 0 | ltlanefix | ltjson > slow.json
	clean slow.json
	only_cats slow.json download read decompress
	ltparse slow.json | awk -F '\t' '$2 == "X"' >x
	[ -s x ]
	awk -F '\t' '$5 < 10000 || $8 !~ /"dist_global_rank":0[,}]/' x >bad
	[ ! -s bad ]
@ ltfilter.1 0 ltparse litdata_debug.log | ltpair | ltfilter -v -c lock,sample
	grep -v '^#' "$out" | awk -F '\t' '$2 != "M"' | cut -f 6 | sort -u >c
	[ "$(wc -l <c)" -gt 3 ]
	nomatch -x -e lock -e sample c
@ ltfilter.1 0 ltparse big.log | ltpair > all.lt1
	has all.lt1 '^#stat	ltpair	'
@ ltfilter.1 0 ltfilter -T 0s,60s all.lt1 | ltlanefix | ltjson > m0.json
	clean m0.json
	[ "$(events m0.json)" -gt 0 ]
@ ltfilter.1 0 ltfilter -T 60s,120s all.lt1 | ltlanefix | ltjson > m1.json
	clean m1.json
	# the two minutes hold what the first two minutes hold
	ltfilter -T 0s,120s all.lt1 >both.lt1
	[ $(($(meta m0.json kept) + $(meta m1.json kept))) -eq "$(stat_of ltfilter kept both.lt1)" ]

@ ltjson.1 0 ltparse litdata_debug.log | ltpair | ltlanefix | ltjson > trace.json
	clean trace.json
@ ltjson.1 0 ltparse node0.log | ltpair | ltlanefix -q | ltjson > n0.json
	clean n0.json
@ ltjson.1 0 o=$(grep -o '"ts_offset_us":[0-9-]*' n0.json | cut -d : -f 2)
	[ -n "$o" ]
	[ "$o" = "$(meta n0.json ts_offset_us)" ]
@ ltjson.1 0 ltparse node1.log | ltpair | ltlanefix -q | ltjson -O "$o" > n1.json
	clean n1.json
	[ "$(meta n1.json ts_offset_us)" = "$o" ]
@ ltjson.1 0 ltparse litdata_debug.log | ltpair | ltlanefix -q | ltjson -S stats.txt > t.json; cat stats.txt
	clean t.json
	for t in ltparse ltpair ltlanefix ltjson; do has "$out" "^#stat	$t	"; done

@ ltlanefix.1 0 ltparse trace.json | ltlanefix | ltjson > fixed.json
	notclean trace.json
	clean fixed.json
	has "$err" '^processing [0-9]* track(s)$'
@ ltlanefix.1 0 ltparse trace.json | ltlanefix -t 1 | ltjson > fixed.json
	clean fixed.json
	[ "$(meta fixed.json threshold_ns)" -eq 1000 ]
@ ltlanefix.1 0 ltparse litdata.log | ltpair | ltlanefix -q | ltjson > t.json
	[ ! -s "$err" ]
	clean t.json
@ ltlanefix.1 0 ltparse trace.json | ltlanefix -q | grep '^#stat.ltlanefix'
	[ "$(wc -l <"$out")" -eq 1 ]
	has "$out" '	moved=[1-9][0-9]*	'

@ ltpair.1 0 ltparse litdata_debug.log | ltpair | ltlanefix | ltjson > t.json
	clean t.json
@ ltpair.1 0 ltparse litdata_debug.log | ltpair | grep '"unmatched_B"' | cut -f 3,7
	[ "$(wc -l <"$out")" -eq "$(truth unmatched_B)" ]
	nomatch -v '^[0-9]*	[a-z]*$' "$out"
@ ltpair.1 0 ltparse litdata_debug.log | ltpair | tail -n 1
	has "$out" "^#stat	ltpair	.*	pairs=$(truth pairs)	"
@ ltpair.1 0 ltparse litdata_debug.log | ltpair -k > be.lt1
	[ "$(awk -F '\t' '$2 == "B"' be.lt1 | wc -l)" -eq "$(awk -F '\t' '$2 == "E"' be.lt1 | wc -l)" ]
	[ "$(grep -c '"unmatched_B"' be.lt1)" -eq "$(truth unmatched_B)" ]
	nomatch '	X	' be.lt1
@ ltpair.1 0 ltparse litdata_debug.log | ltpair | ltlanefix -k | ltjson > be.json
	clean be.json
	[ "$(phase be.json X)" -eq 0 ]
	[ "$(phase be.json B)" -gt 0 ]

@ ltparse.1 0 ltparse litdata_debug.log | ltpair | ltlanefix | ltjson > t.json
	clean t.json
@ ltparse.1 0 ltparse litdata_debug.log.gz | ltfilter --cat read | ltjson > reads.json
	clean reads.json
	only_cats reads.json read
	[ "$(events reads.json)" -gt 0 ]
@ ltparse.1 0 ltparse -v litdata_debug.log > /dev/null
	[ "$(wc -l <"$err")" -eq "$(truth noise_text)" ]
	nomatch -v '^ltparse: litdata_debug.log:[0-9]*: skipped text line$' "$err"
@ ltparse.1 0 d=$(mktemp -d)
	[ -d "$d" ]
@ ltparse.1 0 ltparse -P 1/2 -S $d big.log > p1 &
	[ -n "$!" ]
@ ltparse.1 0 ltparse -P 2/2 -S $d big.log > p2
	[ -s p2 ]
@ ltparse.1 0 wait; cat p1 p2 | ltpair | ltlanefix | ltjson > t.json; rm -r "$d"
	ltparse big.log | cmp - <(cat p1 p2)
	clean t.json
	[ ! -e "$d" ]
@ ltparse.1 0 n=${SLURM_NODEID:-0}
	[ "$n" = 0 ]
@ ltparse.1 0 ltparse -n "$n" litdata_debug.log > node$n.lt1
	has node0.lt1 '(node 0, pid [0-9]*)'
@ ltparse.1 0 cat node*.lt1 | ltpair | ltlanefix | ltjson > job.json
	clean job.json
@ ltparse.1 0 ltparse rank0.json | ltjson | ltcheck
	has "$out" '^ltjson counts: match$'
	has "$out" '^nothing to report$'

@ ltproto.1 0 ltparse litdata_debug.log | ltpair | ltlanefix | ltproto -o t.pftrace
	pftrace t.pftrace
@ ltproto.1 0 ltparse trace.json | ltpair | ltlanefix | ltproto > t.pftrace
	pftrace t.pftrace
@ ltproto.1 0 echo 'select name, count(*) from slice group by name' > q.sql
	[ -s q.sql ]
@tp ltproto.1 0 trace_processor_shell -q q.sql t.pftrace
	has "$out" '^"name","count(\*)"$'
	has "$out" '^"[^"]*",[1-9][0-9]*$'

@ ltstat.1 0 ltparse litdata_debug.log | ltpair | ltstat
	has "$out" '^rank 0 (pid [0-9]*): [0-9]* batches, compute [0-9.]* ms, data wait [0-9.]* ms'
@ ltstat.1 0 ltparse litdata_debug.log | ltpair | ltfilter -r 0 | ltstat -j
	[ "$(wc -l <"$out")" -eq 1 ]
	has "$out" '"ranks":\[{"rank":0,'
	nomatch '"rank":[1-9]' "$out"
@ ltstat.1 0 ltparse litdata_debug.log | ltpair | ltlanefix | ltstat -t -o report.txt | ltjson > t.json
	has report.txt '^rank 0 (pid [0-9]*): '
	clean t.json
	[ "$(phase t.json C)" -gt 0 ]
	[ "$(phase t.json flows)" -gt 0 ]
	cats t.json >c
	grep -qx wait c
@ ltstat.1 0 ltparse litdata_debug.log | ltpair | ltlanefix | ltstat -t -x counters,share | ltjson > t.json
	clean t.json
	[ "$(phase t.json C)" -eq 0 ]
	[ "$(phase t.json flows)" -gt 0 ]
@ litracer.7 0 litracer -o log.json litdata_debug.log
	clean log.json
@ litracer.7 0 litracer -o prof.json profile.json
	clean prof.json
@ litracer.7 0 jq -c \ '.metadata.litracer.ts_offset_us = 1774156435000000' \ profile.json > aligned.json
	has aligned.json '"ts_offset_us":1774156435000000'
@ litracer.7 0 litracer -o both.json litdata_debug.log aligned.json
	clean both.json
	# on one clock now: no word of days apart, nor of a trace litracer wrote
	nomatch 'days apart' "$err"
	nomatch 'litracer wrote' "$err"
@ ltstat.1 0 litracer -q --report -o run.json tests/data/sample.log
	clean run.json
	has "$out" '^verdict: input-bound, high: '
@ ltstat.1 3 ltparse litdata_debug.log | ltpair | ltstat -j -m 20 -o now.json
	# the sample waits far more than 20%: exit 3, the report written
	has now.json '"verdict":"high"'
@ ltstat.1 0 ltstat -c good.json now.json
	has "$out" 'wait share'
@ ltchain.1 0 ltchain ltparse -- litdata_debug.log '|' ltpair '|' \ ltlanefix -q '|' ltstat -t -o report.txt '|' ltjson > t.json
	has report.txt '^rank 0 (pid [0-9]*): '
	clean t.json
	[ "$(phase t.json flows)" -gt 0 ]
@ ltchain.1 0 ltparse -- litdata_debug.log | ltpair | ltlanefix -q | ltstat -t -o report2.txt | ltjson > t2.json
	clean t2.json
@ ltchain.1 0 cmp t.json t2.json && cmp report.txt report2.txt
	[ ! -s "$out" ]
@ ltchain.1 0 ltchain ltparse -- litdata_debug.log '|' ltpair '||' \ ltlanefix -q '|' ltstat -t -o report.txt '|' ltjson > t.json
	# two processes, the same bytes
	cmp t.json t2.json
	cmp report.txt report2.txt
@ ltchain.1 0 gzip -dc litdata_debug.log.gz | ltchain ltparse - '|' ltpair '|' \ ltfilter --cat read '|' ltlanefix -q '|' ltproto -o reads.pftrace
	pftrace reads.pftrace
@ ltchain.1 0 mkdir st
	[ -d st ]
@ ltchain.1 0 ltchain -d st ltparse litdata.log '|' ltpair '|' ltjson > s.json
	[ "$(events s.json)" -gt 1000 ]
	[ ! -s "$err" ]
	[ "$(cat st/ltparse.err st/ltpair.err st/ltjson.err)" = "" ]
@ ltchain.1 0 cat st/ltparse.status st/ltpair.status st/ltjson.status
	[ "$(cat "$out")" = "$(printf '0\n0\n0')" ]
EOF
)

# Helpers for the checks; each says what is wrong when it fails.

# truth KEY: KEY of tests/data/sample.truth (what the sample holds).
truth() {
	sed -n "s/^$1=//p" "$DATA/sample.truth"
}

# has FILE PATTERN: a line of FILE matches the basic regex PATTERN.
has() {
	grep -q -e "$2" "$1" || { echo "$1: no line matches $2"; return 1; }
}

# clean FILE: ltcheck predicts no Trace Error, Import Error or Data Loss;
# notclean FILE: it predicts one.
clean() {
	ltcheck -q "$1" || { echo "$1: not clean"; return 1; }
}
notclean() {
	if ltcheck -q "$1" 2>/dev/null; then
		echo "$1: clean"
		return 1
	fi
}

# report FILE: ltcheck's report on the trace FILE, findings or not.
report() {
	ltcheck "$1" || [ $? -eq 1 ]
}

# events FILE, phase FILE PH, cats FILE: from ltcheck's report on the
# trace FILE: its events, those of phase PH (B E X I M C flows), its
# categories one a line.
events() {
	report "$1" | sed -n '1s/.* \([0-9]*\) events$/\1/p'
}
phase() {
	report "$1" | sed -n "s/^phases:.* $2 \\([0-9]*\\).*/\\1/p"
}
cats() {
	report "$1" | sed -n 's/^categories: //p' | tr ' ' '\n' | sed -n 'p;n'
}

# pftrace FILE: FILE is a Perfetto protobuf trace with track events.
pftrace() {
	ltcheck "$1" >"$1.report"
	has "$1.report" "^$1: Perfetto protobuf trace, [0-9]* bytes, [0-9]* packets: [1-9][0-9]* track events"
}

# only_cats FILE CAT...: FILE has events, of the categories CAT only.
only_cats() {
	local f=$1 c
	shift
	c=$(cats "$f")
	[ -n "$c" ] || { echo "$f: no category"; return 1; }
	for c in $c; do
		[[ " $* " == *" $c "* ]] || { echo "$f: category $c"; return 1; }
	done
}

# meta FILE KEY: the first number named KEY in the JSON trace FILE (in
# its metadata: ts_offset_us, ltfilter's kept ...).
meta() {
	grep -o "\"$2\":-\\?[0-9]*" "$1" | head -n 1 | cut -d : -f 2
}

# commands PAGE: the commands of man/PAGE, one a line: SECTION TAB
# COMMAND, with \x1f for the newlines of a command that continues on the
# lines below; WRAPPED TAB LINE for a command that wraps at 80 columns.
commands() {
	mandoc -Tascii -Owidth=80 "$TOP/man/$1" | sed -e 's/.\x08//g' | awk '
	/^[A-Z][A-Z ]*[A-Z]$/ { flush(); sec = $0; next }
	{
		match($0, /^ */)
		ind = RLENGTH
		rest = substr($0, ind + 1)
	}
	rest ~ /^[a-z]*\$ / {
		flush()
		sub(/^[a-z]*\$ /, "", rest)
		cmd = rest
		cind = ind
		first = 1
		next
	}
	cmd != "" && rest != "" && ind > cind { cmd = cmd "\037" $0; next }
	cmd != "" && rest != "" && ind == cind && first {
		print "WRAPPED\t" cmd " / " rest
	}
	{ flush() }
	function flush() {
		if (cmd != "")
			print sec "\t" cmd
		cmd = ""
		first = 0
	}
	END { flush() }'
}

# key PAGE COMMAND: KEY set to the command as CHECKS names it (no
# subshell: it runs for every entry and every command).
key() {
	KEY="$1 $2"
	KEY=${KEY//$'\037'/ }
	while [[ $KEY == *"  "* ]]; do
		KEY=${KEY//  / }
	done
}

# table: CHECKS into the arrays WANT (exit status), CHECK (the check) and
# TPNEED, keyed by "PAGE COMMAND".
table() {
	local line k=''
	declare -gA WANT=() CHECK=() TPNEED=()
	while IFS= read -r line; do
		case $line in
		@*)
			read -r at page st cmd <<<"$line"
			key "$page" "$cmd"
			k=$KEY
			WANT[$k]=$st
			CHECK[$k]=''
			[ "$at" = @tp ] && TPNEED[$k]=1
			;;
		'') ;;
		*) CHECK[$k]+="$line"$'\n' ;;
		esac
	done <<<"$CHECKS"
}

# inputs DIR: the inputs the pages name, made once, in DIR.
inputs() {
	local d=$1 n
	mkdir "$d"
	for n in litdata_debug.log litdata.log big.log node0.log node1.log; do
		cp "$DATA/sample.log" "$d/$n"
	done
	gzip -c "$DATA/sample.log" >"$d/litdata_debug.log.gz"
	grep 'dist_global_rank: 1;' "$DATA/sample.log" >"$d/rank1.log"
	grep -v 'dist_global_rank: 1;' "$DATA/sample.log" >"$d/rank0.log"
	gentrace -n 3000 -x 20 >"$d/trace.json"
	cp "$d/trace.json" "$d/kineto.json"
	gzip -c "$d/trace.json" >"$d/kineto_trace.json.gz"
	gentrace -n 3000 >"$d/rank0.json"
	# a profile whose clock starts at 0
	printf '%s\n' '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":5,"dur":2}]}' >"$d/profile.json"
	ltparse "$DATA/sample.log" | ltpair | ltlanefix -q >"$d/in.lt1"
	# as in a clone
	mkdir -p "$d/tests/data"
	cp "$DATA/sample.log" "$d/tests/data/sample.log"
	# the JSON report of a run before (ltstat -c)
	ltparse "$DATA/sample.log" | ltpair | ltstat -j >"$d/good.json"
}

# run_page PAGE MODE: run the commands of PAGE in order, in a copy of
# the inputs, and check each.  MODE notp leaves out the commands that
# need the trace processor; MODE tp runs them too, with $TP as
# ~/bin/trace_processor and trace_processor_shell on PATH.  Appends what
# went wrong to $T/failed, a line per command run to $T/ran, one per
# command left out to $T/left; for the commands that need the trace
# processor, to $T/failed.tp and $T/ran.tp instead.  Runs in a subshell,
# without bats' traps and set -e: each command's status is looked at, as
# a reader would.
run_page() (
	trap - DEBUG ERR
	set +eE
	local page=$1 mode=$2 dir="$T/run/$1" sec cmd k st cst i=0 out err
	local failed ran
	mkdir -p "$T/run"
	cp -R "$T/inputs" "$dir"
	cd "$dir" || exit 1
	export HOME=$dir TMPDIR=$dir
	unset SLURM_NODEID
	if [ "$mode" = tp ]; then
		mkdir bin
		ln -s "$TP" bin/trace_processor
		ln -s "$TP" bin/trace_processor_shell
		PATH=$dir/bin:$PATH
	fi
	set -o pipefail
	commands "$page" >"$T/cmds.$page"
	while IFS=$'\t' read -r sec cmd <&4; do
		i=$((i + 1))
		if [ "$sec" = WRAPPED ]; then
			echo "$page: wraps at 80 columns: $cmd" >>"$T/failed"
			continue
		fi
		key "$page" "$cmd"
		k=$KEY
		if [ -z "${WANT[$k]+set}" ]; then
			echo "$page ($sec): no entry in CHECKS for: $k" >>"$T/failed"
			continue
		fi
		echo "$k" >>"$T/shown"
		if [ "$mode" = notp ] && [ -n "${TPNEED[$k]:-}" ]; then
			echo "$k" >>"$T/left"
			continue
		fi
		out=$dir/.out$i err=$dir/.err$i failed=$T/failed ran=$T/ran
		if [ -n "${TPNEED[$k]:-}" ]; then
			failed=$T/failed.tp ran=$T/ran.tp
		fi
		{ eval "${cmd//$'\037'/$'\n'}"; } </dev/null >"$out" 2>"$err"
		st=$?
		echo "$k" >>"$ran"
		if [ "$st" != "${WANT[$k]}" ]; then
			{
				echo "$k: exit $st, not ${WANT[$k]}"
				sed 's/^/  stderr: /' "$err" | head -n 20
			} >>"$failed"
			continue
		fi
		( set -e; eval "${CHECK[$k]}" ) >"$dir/.check" 2>&1
		cst=$?
		if [ "$cst" -ne 0 ]; then
			{
				echo "$k: its check failed:"
				printf '%s' "${CHECK[$k]}" | sed 's/^/  check: /'
				sed 's/^/  said: /' "$dir/.check" | head -n 20
				sed 's/^/  stderr: /' "$err" | head -n 10
			} >>"$failed"
		fi
	done 4<"$T/cmds.$page"
	[ "$i" -gt 0 ] || echo "$page: no command found" >>"$T/failed"
	wait
	exit 0
)

# examples MODE PAGE...: run_page for each PAGE, then fail, saying why,
# if anything went wrong but a command that needs the trace processor
# ($T/failed.tp tells those).
examples() {
	local mode=$1 p
	shift
	built ltparse ltpair ltfilter ltlanefix ltjson ltcheck ltstat ltproto \
	    ltchain litracer gentrace
	need mandoc
	need gzip
	need jq
	table
	inputs "$T/inputs"
	: >"$T/failed"
	: >"$T/ran"
	: >"$T/left"
	: >"$T/shown"
	: >"$T/failed.tp"
	: >"$T/ran.tp"
	for p; do
		run_page "$p" "$mode"
	done
	if [ -s "$T/failed" ]; then
		cat "$T/failed"
		return 1
	fi
}

# The first test runs the examples that use the trace processor too
# when there is one; it keeps what they did in $BATS_FILE_TMPDIR for the
# second, which runs them itself when run alone.
@test "every command of every man page runs as written and does what its caption says" {
	local k n mode=notp
	if tp_find 2>/dev/null; then
		mode=tp
	fi
	# shellcheck disable=SC2086
	examples "$mode" $PAGES
	# every entry of CHECKS is a command a page shows
	for k in "${!WANT[@]}"; do
		grep -qxF -e "$k" "$T/shown" ||
		    { echo "CHECKS: no page shows: $k"; return 1; }
	done
	n=$(wc -l <"$T/ran")
	[ "$n" -gt 60 ]
	if [ "$mode" = tp ]; then
		cp "$T/ran.tp" "$T/failed.tp" "$BATS_FILE_TMPDIR/"
		echo "# ran $n examples of $(echo $PAGES | wc -w) man pages," \
		    "and the $(wc -l <"$T/ran.tp") that need Perfetto's trace" \
		    "processor (the next test judges those)" >&3
	else
		echo "# ran $n examples of $(echo $PAGES | wc -w) man pages;" \
		    "$(wc -l <"$T/left") more need Perfetto's trace processor" \
		    "(the next test)" >&3
	fi
}

@test "the examples that use Perfetto's trace processor" {
	local k pages=''
	tp_need
	table
	if [ ! -e "$BATS_FILE_TMPDIR/ran.tp" ]; then
		# run alone: the pages that show one, each run whole (the
		# examples before it make its input)
		for k in "${!TPNEED[@]}"; do
			[[ " $pages " == *" ${k%% *} "* ]] || pages="$pages ${k%% *}"
		done
		# shellcheck disable=SC2086
		examples tp $pages
		cp "$T/ran.tp" "$T/failed.tp" "$BATS_FILE_TMPDIR/"
	fi
	if [ -s "$BATS_FILE_TMPDIR/failed.tp" ]; then
		cat "$BATS_FILE_TMPDIR/failed.tp"
		return 1
	fi
	[ "$(wc -l <"$BATS_FILE_TMPDIR/ran.tp")" -eq "${#TPNEED[@]}" ]
	echo "# ran the ${#TPNEED[@]} examples that use the trace processor" >&3
}

@test "every page's SEE ALSO names every other page" {
	# one awk reads every page: the .Xr lines of its SEE ALSO
	(cd "$TOP/man" && awk -v pages="$PAGES" '
		BEGIN { n = split(pages, p, /[ \n]+/) }
		FNR == 1 { s = 0 }
		/^\.Sh SEE ALSO/ { s = 1; next }
		/^\.Sh / { s = 0 }
		s && /^\.Xr / { sub(/ ,$/, ""); seen[FILENAME, $2 "." $3] = 1 }
		END {
			for (i = 1; i <= n; i++)
				for (j = 1; j <= n; j++)
					if (i != j && !((p[i], p[j]) in seen)) {
						q = p[j]
						sub(/\./, "(", q)
						print p[i] ": SEE ALSO lacks " q ")"
						bad = 1
					}
			exit bad
		}' $PAGES)
	# and PAGES is every page
	[ "$(cd "$TOP/man" && echo *)" = "$(echo $PAGES | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')" ]
}
