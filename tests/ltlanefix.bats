#!/usr/bin/env bats
# ltlanefix: no crossing left on any track, trace-lanefix's placement and
# report where trace-lanefix is right, and its bugs fixed.
bats_require_minimum_version 1.5.0
load helper

D="$DATA/ltlanefix"

# crossings FILE [keys]: how many X slices of FILE cross a slice of their
# own track, found by a stack sweep in start order (longer first), the way
# a viewer nests them; 0 exactly when no pair a, b has a.start < b.start <
# a.end < b.end.  With keys, the "pid|tid" of each such track instead.
# Times are split into whole us and ns, so epoch microseconds are
# compared exactly.  A missing tid is the pid.
crossings() {
	awk -F '\t' '
	function us(s,   neg, i, f) {
		neg = substr(s, 1, 1) == "-"
		if (neg)
			s = substr(s, 2)
		i = index(s, ".")
		if (i) {
			f = substr(s, i + 1) "000"
			US = substr(s, 1, i - 1) + 0
			NS = substr(f, 1, 3) + 0
		} else {
			US = s + 0
			NS = 0
		}
		if (neg) {
			US = -US
			NS = -NS
			if (NS < 0) {
				NS += 1000
				US--
			}
		}
	}
	!/^#/ && $2 == "X" && $1 != "-" && $5 != "-" {
		us($1); su = US; sn = NS
		us($5); eu = su + US; en = sn + NS
		if (en >= 1000) { en -= 1000; eu++ }
		printf "%s|%s\t%.0f\t%d\t%.0f\t%d\n", $3, ($4 == "-" ? $3 : $4),
		    su, sn, eu, en
	}' "$1" | sort -t "$(printf '\t')" -k1,1 -k2,2n -k3,3n -k4,4nr -k5,5nr |
	awk -F '\t' -v keys="${2:-}" '
	$1 != key { key = $1; n = 0 }
	{
		while (n > 0 && (eu[n] < $2 || (eu[n] == $2 && en[n] <= $3)))
			n--
		if (n > 0 && ($4 > eu[n] || ($4 == eu[n] && $5 > en[n]))) {
			if (keys && !seen[key]++)
				print key
			bad++
			next
		}
		n++
		eu[n] = $4
		en[n] = $5
	}
	END { if (!keys) print bad + 0 }'
}

# fixcase NAME [OPTION...]: ltlanefix OPTION... NAME.lt must exit 0 and
# write NAME.out and report NAME.err (UPDATE=1 rewrites both); its output
# has no crossing and every input record plus the lane names.
fixcase() {
	local name=$1 out="$BATS_TEST_TMPDIR/$1.out" err="$BATS_TEST_TMPDIR/$1.err"
	shift
	ltlanefix "$@" "$D/$name.lt" >"$out" 2>"$err"
	if [ -n "${UPDATE:-}" ]; then
		cp "$out" "$D/$name.out"
		cp "$err" "$D/$name.err"
	fi
	diff -u "$D/$name.out" "$out"
	diff -u "$D/$name.err" "$err"
	[ "$(crossings "$out")" = 0 ]
	[ "$(stat_of ltlanefix crossings_after "$out")" = 0 ]
	[ "$(records "$out" | wc -l)" -eq $(($(records "$D/$name.lt" | wc -l) +
	    $(stat_of ltlanefix meta_added "$out"))) ]
}

# field FILE NAME COL: column COL of the record named NAME (column 7).
field() {
	awk -F '\t' -v n="$2" -v c="$3" '!/^#/ && $7 == n { print $c }' "$1"
}

@test "the checker finds the crossings it must" {
	printf '#lt1\n0\tX\t1\t1\t10\tc\ta\t{}\t{}\n5\tX\t1\t1\t10\tc\tb\t{}\t{}\n' \
	    >"$BATS_TEST_TMPDIR/x.lt"
	[ "$(crossings "$BATS_TEST_TMPDIR/x.lt")" = 1 ]
	printf '#lt1\n1692108548132154.001\tX\t1\t1\t1\tc\ta\t{}\t{}\n1692108548132155.001\tX\t1\t1\t0.001\tc\tb\t{}\t{}\n1692108548132155\tX\t1\t1\t0.002\tc\tc\t{}\t{}\n' \
	    >"$BATS_TEST_TMPDIR/y.lt"
	[ "$(crossings "$BATS_TEST_TMPDIR/y.lt")" = 1 ]
}

# trace-lanefix's own tests (tests/test_fix_overlaps.py).

@test "upstream: a start snap rechecks the outer parent (Q11: 2 snapped)" {
	fixcase up_outer_parent
	[ "$(field "$BATS_TEST_TMPDIR/up_outer_parent.out" layer0_forward 1)" = 3.405 ]
	[ "$(field "$BATS_TEST_TMPDIR/up_outer_parent.out" layer0_forward 5)" = 7.717 ]
}

@test "upstream: a flow endpoint follows a start snap" {
	fixcase up_flow_start_snap
	run -0 grep -c '^150	f	0	7	' "$BATS_TEST_TMPDIR/up_flow_start_snap.out"
	[ "$output" = 1 ]
}

@test "upstream: a small threshold makes a lane; the flow follows it" {
	fixcase up_threshold_lane -t 0.1
	[ "$(field "$BATS_TEST_TMPDIR/up_threshold_lane.out" kernel_b 4)" = 7001 ]
	[ "$(field "$BATS_TEST_TMPDIR/up_threshold_lane.out" kernel_b 1)" = 149.7 ]
	grep -q '^149.7	f	0	7001	' "$BATS_TEST_TMPDIR/up_threshold_lane.out"
}

@test "upstream: a child before a start-snapped parent is rechecked" {
	fixcase up_child_before_parent
	[ "$(field "$BATS_TEST_TMPDIR/up_child_before_parent.out" child 1)" = 10 ]
	[ "$(field "$BATS_TEST_TMPDIR/up_child_before_parent.out" child 5)" = 0.95 ]
}

@test "upstream: a lane tid avoids a real thread (Q5: still an integer)" {
	fixcase up_tid_collision
	[ "$(field "$BATS_TEST_TMPDIR/up_tid_collision.out" real 4)" = 1001 ]
	[ "$(field "$BATS_TEST_TMPDIR/up_tid_collision.out" b 4)" = 4000000001 ]
	grep -q '	4000000001	-		thread_name	{"name":"tid 1 lane 1"}' \
	    "$BATS_TEST_TMPDIR/up_tid_collision.out"
}

@test "upstream: a string tid moves to a string lane" {
	fixcase up_string_tid
	[ "$(field "$BATS_TEST_TMPDIR/up_string_tid.out" b 4)" = '"worker lane 1"' ]
}

@test "upstream: a trace with nothing to fix passes unchanged (Q8)" {
	fixcase up_passthrough
	diff "$D/up_passthrough.lt" <(grep -v '^#stat' "$BATS_TEST_TMPDIR/up_passthrough.out")
}

@test "upstream: kernels are summed by name, most shifted first" {
	fixcase up_kernel_summary
	nomatch 'moved slices\|snapped slices' "$D/up_kernel_summary.err"
}

# The edge cases of lanefix.md section 13, by label.

@test "Q0: a failed snap leaves no crossing behind" {
	fixcase q0_residual
	[ "$(field "$BATS_TEST_TMPDIR/q0_residual.out" d 4)" = 1001 ]
	[ "$(field "$BATS_TEST_TMPDIR/q0_residual.out" a 4)" = 1 ]
}

@test "Q1: a slice snapped, then moved, keeps its own times" {
	fixcase q1_snapped_then_moved
	grep -q '^17	X	1	1001	23	cpu_op	S	' "$BATS_TEST_TMPDIR/q1_snapped_then_moved.out"
	nomatch 'snapped slices' "$D/q1_snapped_then_moved.err"
}

@test "Q2: the snaps of one slice add up to less than the threshold" {
	fixcase q2_ancestor_popped
	# S would have been delayed 1 + 3.5 + 3.5 us: it moves instead, and F
	# stays nested in the ancestors S did not pop.
	grep -q '^22	X	1	1001	38	cpu_op	S	' "$BATS_TEST_TMPDIR/q2_ancestor_popped.out"
	grep -q '^24	X	1	1	1	cpu_op	F	' "$BATS_TEST_TMPDIR/q2_ancestor_popped.out"
}

@test "Q3: a slice before a snapped start becomes zero-length there" {
	fixcase q3_end_extended
	grep -q 'child pid=1 tid=1: start delayed by 80ns, end extended by 40ns' \
	    "$D/q3_end_extended.err"
	grep -q 'mark pid=1 tid=1: shifted later by 50ns' "$D/q3_end_extended.err"
}

@test "Q4: a flow follows the slice it belongs to, not its start" {
	fixcase q4_flows
	# At R's start S is the innermost: its s and f bp=e stay; the f that
	# binds to the next slice, and the t inside R, go to R's lane.
	grep -q '^5	s	1	1	-	ac2g	ac2g	{}	{"id":1}$' "$BATS_TEST_TMPDIR/q4_flows.out"
	grep -q '^5	f	1	1001	-	ac2g	ac2g	{}	{"id":2}$' "$BATS_TEST_TMPDIR/q4_flows.out"
	grep -q '^5	f	1	1	-	ac2g	ac2g	{}	{"id":3,"bp":"e"}$' "$BATS_TEST_TMPDIR/q4_flows.out"
	grep -q '^11	t	1	1001	-	ac2g	ac2g	{}	{"id":4}$' "$BATS_TEST_TMPDIR/q4_flows.out"
	grep -q '^5	f	1	1001	-	ac2g	ac2g	{}	{"id":5}$' "$BATS_TEST_TMPDIR/q4_flows.out"
}

@test "Q5: lane tids stay in 1..2^32-1, unique in their process" {
	fixcase q5_tids
	awk -F '\t' '!/^#/ && $4 != "-" && ($4 < 0 || $4 > 4294967295) &&
	    $7 !~ /^a/ { bad = 1; print } END { exit bad }' \
	    "$BATS_TEST_TMPDIR/q5_tids.out"
}

@test "Q6: tids 8 and 8.0, 1 and true, are one track" {
	fixcase q6_float_bool
	# The tid set in the column leaves extra.
	grep -q '^5	X	1	8001	10	cpu_op	float8	{}	{}$' "$BATS_TEST_TMPDIR/q6_float_bool.out"
}

@test "Q7: -t nan never snaps, -t inf always does" {
	run -0 --separate-stderr ltlanefix -t nan "$D/up_outer_parent.lt"
	[ "${stderr_lines[1]}" = '  pid=1 tid=1: 2 lane(s), 1 slice(s) moved, 0 snapped' ]
	[ "${stderr_lines[2]}" = 'snapped 0 sub-nanus crossing(s)' ]
	run -0 --separate-stderr ltlanefix -t inf "$D/q0_residual.lt"
	[ "$(printf '%s\n' "$output" | stat_of ltlanefix lanes /dev/stdin)" = 0 ]
	[ "${stderr_lines[2]}" = 'snapped 3 sub-infus crossing(s)' ]
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/inf.out"
	[ "$(crossings "$BATS_TEST_TMPDIR/inf.out")" = 0 ]
}

@test "Q8: records and directives pass in order, untouched" {
	fixcase q8_nothing
	diff "$D/q8_nothing.lt" <(grep -v '^#stat	ltlanefix' "$BATS_TEST_TMPDIR/q8_nothing.out")
	[ "$(stat_of ltlanefix unplaced "$BATS_TEST_TMPDIR/q8_nothing.out")" = 2 ]
}

@test "Q9: B/E pass and are counted; an X without tid is on the pid's thread" {
	fixcase q9_be_notid
	[ "$(stat_of ltlanefix be "$BATS_TEST_TMPDIR/q9_be_notid.out")" = 4 ]
	[ "$(field "$BATS_TEST_TMPDIR/q9_be_notid.out" tid5 4)" = 5001 ]
}

@test "Q10: lanes are named after their thread and sort right under it" {
	fixcase q10_names
	grep -q '^-	M	1	10001	-		thread_name	{"name":"main lane 1"}	{}$' \
	    "$BATS_TEST_TMPDIR/q10_names.out"
	grep -q '^-	M	1	10001	-		thread_sort_index	{"sort_index":3}	{}$' \
	    "$BATS_TEST_TMPDIR/q10_names.out"
	# A thread without a sort index gets its tid, and its lanes too.
	grep -q '^-	M	1	12	-		thread_sort_index	{"sort_index":12}	{}$' \
	    "$BATS_TEST_TMPDIR/q10_names.out"
	grep -q '^-	M	1	12001	-		thread_name	{"name":"tid 12 lane 1"}	{}$' \
	    "$BATS_TEST_TMPDIR/q10_names.out"
}

@test "threads that share a name or a sort index name their lanes each after its own last one" {
	t=$BATS_TEST_TMPDIR/names.lt1
	# two threads named loader, the first renamed reader; both sort at 7;
	# a slice crossing another on each makes a lane
	{
		printf '#lt1\n'
		printf -- '-\tM\t%s\t1\t-\t\tthread_name\t{"name":"%s"}\t{}\n' \
		    1 loader 2 loader 1 reader
		printf -- '-\tM\t%s\t1\t-\t\tthread_sort_index\t{"sort_index":7}\t{}\n' 2 1
		printf '%s\tX\t%s\t1\t10\tc\tn\t{}\t{}\n' 10 1 15 1 10 2 15 2
	} > "$t"
	ltlanefix -q "$t" | awk -F '\t' '$2 == "M" && $4 == 1001' > "$t.lanes"
	cat > "$t.want" <<-'EOF'
	-	M	1	1001	-		thread_name	{"name":"reader lane 1"}	{}
	-	M	1	1001	-		thread_sort_index	{"sort_index":7}	{}
	-	M	2	1001	-		thread_name	{"name":"loader lane 1"}	{}
	-	M	2	1001	-		thread_sort_index	{"sort_index":7}	{}
	EOF
	cmp "$t.want" "$t.lanes"
}

@test "the report is trace-lanefix's, line for line" {
	run -0 --separate-stderr ltlanefix "$D/q10_names.lt"
	[ "${#stderr_lines[@]}" -eq 16 ]
	[ "${stderr_lines[0]}" = 'processing 4 track(s)' ]
	[ "${stderr_lines[4]}" = '  pid=1 tid=gpu: 2 lane(s), 1 slice(s) moved, 0 snapped' ]
	[ "${stderr_lines[6]}" = 'updated 5 slice(s): total |start shift|=4.000us, total |end shift|=0.000us, total |boundary shift|=4.000us' ]
	[ "${stderr_lines[15]}" = 'rewrote 0 flow endpoint(s) onto rewritten slice starts/lanes' ]
	run -0 --separate-stderr ltlanefix -q "$D/q10_names.lt"
	[ "$stderr" = "" ]
}

@test "-t is read as Python reads a float and shown as Python prints it" {
	for t in 5:5.0 2.5:2.5 10:10.0 1e-5:1e-05 .5:0.5 5.:5.0 0:0.0 \
	    ' 2.5 ':2.5 1E3:1000.0 1e16:1e+16 0.0001:0.0001 0.00001:1e-05 \
	    123456789012345678:1.2345678901234568e+17 +3:3.0 Infinity:inf \
	    NAN:nan 4.99999999:4.99999999; do
		run -0 --separate-stderr ltlanefix -t "${t%%:*}" "$D/q8_nothing.lt"
		[ "${stderr_lines[1]}" = "snapped 0 sub-${t#*:}us crossing(s)" ]
	done
	run -0 --separate-stderr ltlanefix --snap-threshold-us=2.5 "$D/q8_nothing.lt"
	[ "${stderr_lines[1]}" = 'snapped 0 sub-2.5us crossing(s)' ]
}

@test "-t compares in whole ns: a shift of exactly the threshold stays" {
	# kernel_b crosses kernel_a by 300 ns.
	run -0 ltlanefix -q -t 0.3 "$D/up_flow_start_snap.lt"
	[ "$(printf '%s\n' "$output" | stat_of ltlanefix moved /dev/stdin)" = 1 ]
	run -0 ltlanefix -q -t 0.3001 "$D/up_flow_start_snap.lt"
	[ "$(printf '%s\n' "$output" | stat_of ltlanefix snapped /dev/stdin)" = 1 ]
	run -0 ltlanefix -q -t 0 "$D/up_outer_parent.lt"
	[ "$(printf '%s\n' "$output" | stat_of ltlanefix snapped /dev/stdin)" = 0 ]
}

@test "randomised: thousands of dense tracks, no crossing, every slice kept" {
	gentrace -l -f dense -n 40000 -s 20261129 >"$BATS_TEST_TMPDIR/in.lt"
	ltlanefix -q "$BATS_TEST_TMPDIR/in.lt" >"$BATS_TEST_TMPDIR/out.lt"
	[ "$(stat_of ltlanefix tracks "$BATS_TEST_TMPDIR/out.lt")" -gt 2000 ]
	[ "$(stat_of ltlanefix crossings_before "$BATS_TEST_TMPDIR/out.lt")" -gt 10000 ]
	[ "$(crossings "$BATS_TEST_TMPDIR/in.lt")" -gt 5000 ]
	[ "$(crossings "$BATS_TEST_TMPDIR/out.lt")" = 0 ]
	# Each slice once; then slice by slice: unchanged, or moved with its
	# own times, or snapped on its own thread by less than 5 us in all;
	# and no slice changed on a track without crossings.
	[ "$(records "$BATS_TEST_TMPDIR/out.lt" | grep -c '	X	')" -eq 40000 ]
	[ "$(grep -o '{"i":[0-9]*}' "$BATS_TEST_TMPDIR/out.lt" | sort -u | wc -l)" -eq 40000 ]
	crossings "$BATS_TEST_TMPDIR/in.lt" keys >"$BATS_TEST_TMPDIR/crossing"
	awk -F '\t' '
	function ns(s,   i, f) {
		i = index(s, ".")
		if (!i)
			return s * 1000
		f = substr(s, i + 1) "000"
		return substr(s, 1, i - 1) * 1000 + substr(f, 1, 3)
	}
	FILENAME ~ /crossing$/ { crossing[$1] = 1; next }
	FILENAME ~ /in.lt$/ && $2 == "X" {
		ts[$8] = ns($1); end[$8] = ns($1) + ns($5); tid[$8] = $4
		trk[$8] = $3 "|" $4
		tracks[$3 "|" $4] = 1
		next
	}
	FILENAME ~ /out.lt$/ && $2 == "X" {
		s = ns($1); e = s + ns($5); i = $8
		if (s == ts[i] && e == end[i] && $4 == tid[i])
			next
		if (!crossing[trk[i]]) { print "clean track changed: " $0; bad = 1 }
		if ($4 != tid[i]) {
			moved++
			if (s != ts[i] || e != end[i]) { print "moved, shifted: " $0; bad = 1 }
			next
		}
		snapped++
		late = s - ts[i]; early = end[i] > e ? end[i] - e : 0
		if (late < 0 || late + early >= 5000) { print "snap too big: " $0; bad = 1 }
	}
	END {
		for (t in tracks)
			clean += !crossing[t]
		if (moved < 1000 || snapped < 1000 || clean < 300) {
			print "too few: " moved, snapped, clean
			bad = 1
		}
		exit bad
	}' "$BATS_TEST_TMPDIR/crossing" "$BATS_TEST_TMPDIR/in.lt" "$BATS_TEST_TMPDIR/out.lt"
}

@test "a Kineto-shaped trace: crossings counted exactly, flows follow kernels" {
	gentrace -l -n 30000 -x 300 -s 3 >"$BATS_TEST_TMPDIR/k.lt"
	ltlanefix -q "$BATS_TEST_TMPDIR/k.lt" >"$BATS_TEST_TMPDIR/k.out"
	[ "$(stat_of ltlanefix crossings_before "$BATS_TEST_TMPDIR/k.out")" = 300 ]
	[ "$(stat_of ltlanefix moved "$BATS_TEST_TMPDIR/k.out")" -gt 20 ]
	[ "$(stat_of ltlanefix snapped "$BATS_TEST_TMPDIR/k.out")" -gt 100 ]
	[ "$(crossings "$BATS_TEST_TMPDIR/k.lt")" -gt 250 ]
	[ "$(crossings "$BATS_TEST_TMPDIR/k.out")" = 0 ]
	# Each kernel and the f flow of its launch share tid and ts.
	awk -F '\t' '
	$6 == "kernel" { match($8, /"correlation":[0-9]+/); k[substr($8, RSTART + 14, RLENGTH - 14)] = $4 " " $1 }
	$2 == "f" { match($9, /"id":[0-9]+/); f[substr($9, RSTART + 5, RLENGTH - 5)] = $4 " " $1 }
	END {
		for (c in k) { n++; if (k[c] != f[c]) { bad++; print c, k[c], f[c] } }
		if (n < 1000) bad++
		exit bad > 0
	}' "$BATS_TEST_TMPDIR/k.out"
	grep -q '^-	M	0	7001	-		thread_name	{"name":"stream 7 lane 1"}	{}$' \
	    "$BATS_TEST_TMPDIR/k.out"
	grep -q '^-	M	0	7001	-		thread_sort_index	{"sort_index":7}	{}$' \
	    "$BATS_TEST_TMPDIR/k.out"
}

@test "ltcheck predicts no Perfetto import error after ltlanefix" {
	gentrace -l -n 20000 -x 200 -s 5 >"$BATS_TEST_TMPDIR/k.lt"
	ltjson "$BATS_TEST_TMPDIR/k.lt" >"$BATS_TEST_TMPDIR/before.json"
	run -1 ltcheck -t "$BATS_TEST_TMPDIR/before.json"
	[[ "$output" == *slice_spill_overlapping_complete_event* ]] || false
	ltlanefix -q "$BATS_TEST_TMPDIR/k.lt" | ltjson >"$BATS_TEST_TMPDIR/after.json"
	run -0 ltcheck -t "$BATS_TEST_TMPDIR/after.json"
	[ "$output" = "" ]
}

@test "4,000 mutually crossing slices: every pair counted, one lane each" {
	gentrace -l -f stair -n 4000 >"$BATS_TEST_TMPDIR/s.lt"
	ltlanefix -q "$BATS_TEST_TMPDIR/s.lt" >"$BATS_TEST_TMPDIR/s.out"
	[ "$(stat_of ltlanefix crossings_before "$BATS_TEST_TMPDIR/s.out")" = 7998000 ]
	[ "$(stat_of ltlanefix lanes "$BATS_TEST_TMPDIR/s.out")" = 3995 ]
	[ "$(stat_of ltlanefix snapped "$BATS_TEST_TMPDIR/s.out")" = 4 ]
	[ "$(crossings "$BATS_TEST_TMPDIR/s.out")" = 0 ]
	[ "$(records "$BATS_TEST_TMPDIR/s.out" | awk -F '\t' '$2 == "X" { print $4 }' |
	    sort -u | wc -l)" -eq 3996 ]
}

@test "concatenated streams and standard input" {
	run -0 --separate-stderr sh -c 'cat "$1" | ltlanefix -q - "$2"' sh \
	    "$D/up_string_tid.lt" "$D/q0_residual.lt"
	[ "$(printf '%s\n' "$output" | stat_of ltlanefix tracks /dev/stdin)" = 2 ]
	[ "${lines[0]}" = '#lt1' ]
}

@test "-h and --help print the usage on stdout" {
	run -0 --separate-stderr ltlanefix -h
	[ "${lines[0]}" = 'usage: ltlanefix [-kq] [-t us] [--progress-fd fd] [file ...]' ]
	[ "$stderr" = "" ]
	run -0 ltlanefix --help
	[ "${lines[0]}" = 'usage: ltlanefix [-kq] [-t us] [--progress-fd fd] [file ...]' ]
	# The man page's synopsis is the same.
	need mandoc
	[ "$(synopsis ltlanefix)" = 'ltlanefix [-kq] [-t us] [--progress-fd fd] [file ...]' ]
}

@test "bad options: usage, exit 2, nothing on stdout" {
	run -2 --separate-stderr ltlanefix -x
	[ "$output" = "" ]
	[ "${stderr_lines[0]}" = 'ltlanefix: invalid option -- '"'"'x'"'" ]
	[ "${stderr_lines[1]}" = 'usage: ltlanefix [-kq] [-t us] [--progress-fd fd] [file ...]' ]
	run -2 --separate-stderr ltlanefix -t
	[ "$output" = "" ]
	[ "${stderr_lines[1]}" = 'usage: ltlanefix [-kq] [-t us] [--progress-fd fd] [file ...]' ]
	run -2 --separate-stderr ltlanefix --bogus
	[ "${stderr_lines[1]}" = 'usage: ltlanefix [-kq] [-t us] [--progress-fd fd] [file ...]' ]
}

@test "bad thresholds: exit 2 with the reason" {
	for t in abc '' 1e 1e+ . - -1 -0.5 -inf 1.2.3 '5 us' 0x10 e5 _1 1_ 1__0 1._5 in_f; do
		run -2 --separate-stderr ltlanefix -t "$t" "$D/q8_nothing.lt"
		[ "$output" = "" ]
		case $t in
		-1|-0.5|-inf)
			[ "$stderr" = "ltlanefix: -t $t: must be non-negative" ] ;;
		*)
			[ "$stderr" = "ltlanefix: -t $t: invalid" ] ;;
		esac
	done
	# -0 is zero, as for Python.
	run -0 --separate-stderr ltlanefix -t -0 "$D/q8_nothing.lt"
	[ "${stderr_lines[1]}" = 'snapped 0 sub--0.0us crossing(s)' ]
	# and '_' between digits is allowed, as for Python
	run -0 --separate-stderr ltlanefix -t 1_0.5 "$D/q8_nothing.lt"
	[ "${stderr_lines[1]}" = 'snapped 0 sub-10.5us crossing(s)' ]
	run -0 --separate-stderr ltlanefix -t 1e-1_0 "$D/q8_nothing.lt"
	[ "${stderr_lines[1]}" = 'snapped 0 sub-1e-10us crossing(s)' ]
}

@test "a file that cannot be read: exit 2" {
	run -2 --separate-stderr ltlanefix "$BATS_TEST_TMPDIR/none.lt"
	[ "$output" = "" ]
	[ "$stderr" = "ltlanefix: $BATS_TEST_TMPDIR/none.lt: No such file or directory" ]
	run -2 --separate-stderr ltlanefix "$BATS_TEST_TMPDIR"
	[ "$output" = "" ]
	[ "$stderr" = "ltlanefix: read error: $BATS_TEST_TMPDIR: Is a directory" ]
}

@test "a write error: exit 2" {
	[ -w /dev/full ] || skip "/dev/full is missing (Linux has it; as root: mknod -m 666 /dev/full c 1 7)"
	run -2 --separate-stderr sh -c 'ltlanefix -q "$1" >/dev/full' sh "$D/q4_flows.lt"
	[ "$stderr" = "ltlanefix: write error: <stdout>: No space left on device" ]
}

# badrec NAME LINE MESSAGE: the stream in $BATS_TEST_TMPDIR/NAME.lt is
# refused with exit 1, the message at its line, and no output at all.
badrec() {
	run -1 --separate-stderr ltlanefix "$BATS_TEST_TMPDIR/$1.lt"
	[ "$output" = "" ]
	[ "$stderr" = "ltlanefix: $BATS_TEST_TMPDIR/$1.lt:$2: $3" ]
}

@test "bad streams: exit 1 with file and line, no output" {
	: >"$BATS_TEST_TMPDIR/empty.lt"
	badrec empty 1 'empty input, not an lt1 stream'
	printf 'hello\n' >"$BATS_TEST_TMPDIR/nohead.lt"
	badrec nohead 1 'not an lt1 stream: missing #lt1 header (a log or a trace is read by ltparse, or converted by litracer)'
	printf '#lt2\n' >"$BATS_TEST_TMPDIR/v2.lt"
	badrec v2 1 'unsupported stream version "#lt2"'
	printf '#lt1\n0\tX\t1\t1\t1\tc\ta\t{}\t{}\n0\tX\t1\t1\t1\tc\ta\t{}\n' >"$BATS_TEST_TMPDIR/cols.lt"
	badrec cols 3 'expected 9 columns, found 8'
	printf '#lt1\n0\tX\t1\t1\t1\tc\ta\t{}\t{}\t\n' >"$BATS_TEST_TMPDIR/more.lt"
	badrec more 2 'expected 9 columns, found more'
	printf '#lt1\n1e3\tX\t1\t1\t1\tc\ta\t{}\t{}\n' >"$BATS_TEST_TMPDIR/ts.lt"
	badrec ts 2 'column ts: not microseconds (-?D+ with at most 3 decimals) or -'
	printf '#lt1\n#x\n0\tX\t1\t1\t0.0001\tc\ta\t{}\t{}\n' >"$BATS_TEST_TMPDIR/dur.lt"
	badrec dur 3 'column dur: not microseconds (-?D+ with at most 3 decimals) or -'
	printf '#lt1\n0\ts\t1.5\t1\t-\tc\ta\t{}\t{}\n' >"$BATS_TEST_TMPDIR/pid.lt"
	badrec pid 2 'column pid: not an integer, a JSON string or -'
	printf '#lt1\n0\tX\t1\tmain\t1\tc\ta\t{}\t{}\n' >"$BATS_TEST_TMPDIR/tid.lt"
	badrec tid 2 'column tid: not an integer, a JSON string or -'
	printf '#lt1\n0\tX\t1\t"a\\q"\t1\tc\ta\t{}\t{}\n' >"$BATS_TEST_TMPDIR/tidesc.lt"
	badrec tidesc 2 'column tid: not an integer, a JSON string or -'
	printf '#lt1\n0\tXX\t1\t1\t1\tc\ta\t{}\t{}\n' >"$BATS_TEST_TMPDIR/ph.lt"
	badrec ph 2 'column ph: not a one-character phase'
	printf '#lt1\n4611686018427388\tX\t1\t1\t1\tc\ta\t{}\t{}\n' >"$BATS_TEST_TMPDIR/far.lt"
	badrec far 2 'X slice beyond the time range of ltlanefix (+-4611686018427387 us)'
	printf '#lt1\n4611686018427387\tX\t1\t1\t1\tc\ta\t{}\t{}\n' >"$BATS_TEST_TMPDIR/end.lt"
	badrec end 2 'X slice beyond the time range of ltlanefix (+-4611686018427387 us)'
	# Far instants are no slices: they pass.
	printf '#lt1\n9000000000000000\ti\t1\t1\t-\tc\ta\t{}\t{}\n' >"$BATS_TEST_TMPDIR/inst.lt"
	run -0 ltlanefix -q "$BATS_TEST_TMPDIR/inst.lt"
}

@test "every prefix of a stream gives exit 0 or 1, never a crash" {
	prefixes 1 "$D/q4_flows.lt" ltlanefix -q
}

@test "-k: slices as B and E, ends inner first, begins outer first, then the rest" {
	run -0 --separate-stderr ltlanefix -k -q "$D/split.lt"
	if [ -n "${UPDATE:-}" ]; then printf '%s\n' "$output" >"$D/split.out"; fi
	diff -u "$D/split.out" <(printf '%s\n' "$output")
	# two records per slice, every other record once, no X left
	[ "$(stat_of ltlanefix split <(printf '%s\n' "$output"))" = 7 ]
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/s.lt"
	[ "$(records "$BATS_TEST_TMPDIR/s.lt" | awk -F '\t' '$2 == "X"' | wc -l)" -eq 0 ]
	[ "$(records "$BATS_TEST_TMPDIR/s.lt" | wc -l)" -eq $((9 + 7 + 3)) ]
	# Perfetto nests every B/E pair as placed
	ltjson "$BATS_TEST_TMPDIR/s.lt" >"$BATS_TEST_TMPDIR/s.json"
	run -0 ltcheck -t "$BATS_TEST_TMPDIR/s.json"
	[ "$output" = "$(printf 'PF-PID-STRING\t2\tsilent')" ]
}

@test "-k: on generated traces, the spans Perfetto sees are those of the X output" {
	for f in kineto dense stair; do
		gentrace -l -f "$f" -n 20000 -s 11 >"$BATS_TEST_TMPDIR/in.lt"
		ltlanefix -q "$BATS_TEST_TMPDIR/in.lt" |
		    awk -F '\t' '$2 == "X" { print $1, $3, $4, $5, $7 }' | sort >"$BATS_TEST_TMPDIR/x"
		ltlanefix -k -q "$BATS_TEST_TMPDIR/in.lt" >"$BATS_TEST_TMPDIR/k.lt"
		ltpair "$BATS_TEST_TMPDIR/k.lt" |
		    awk -F '\t' '$2 == "X" { print $1, $3, $4, $5, $7 }' | sort >"$BATS_TEST_TMPDIR/k"
		[ -s "$BATS_TEST_TMPDIR/x" ]
		cmp "$BATS_TEST_TMPDIR/x" "$BATS_TEST_TMPDIR/k" || { echo "$f differs"; false; }
		ltjson <"$BATS_TEST_TMPDIR/k.lt" >"$BATS_TEST_TMPDIR/k.json"
		run ltcheck -t "$BATS_TEST_TMPDIR/k.json"
		[ "$status" -eq 0 ] || { echo "$f: $output"; false; }
	done
}

# -------- a stream placed as it goes (ltpair's #open and #close) --------

# samelanes WHOLE LIVE [WHOLE_ERR LIVE_ERR]: the records of WHOLE and
# LIVE are the same, in any order, once the tid of each lane is replaced
# by its name ("main lane 1": what a slice's lane is, whatever tid it
# got); ltpair's directives are left out.  With the reports, those are
# the same too, line by line, but for the tids lanes got.  What differs
# is printed.  One awk, which reads each file twice.
samelanes() {
	awk -v a="$1" -v b="$2" -v ae="${3:-}" -v be="${4:-}" '
	function names(f,   line, r) {
		split("", name)
		while ((getline line <f) > 0) {
			split(line, r, "\t")
			if (r[2] == "M" && r[7] == "thread_name" &&
			    match(r[8], / lane [0-9]+"}$/))
				name[r[3] "\t" r[4]] = "lane:" substr(r[8], 10, length(r[8]) - 11)
		}
		close(f)
	}
	function count(f, d,   line, n, r, i) {
		names(f)
		while ((getline line <f) > 0) {
			if (line ~ /^#(open|close)\t/)
				continue
			if (line !~ /^#/) {
				n = split(line, r, "\t")
				if ((r[3] "\t" r[4]) in name) {
					r[4] = name[r[3] "\t" r[4]]
					line = r[1]
					for (i = 2; i <= n; i++)
						line = line "\t" r[i]
				}
			}
			seen[line] += d
		}
		close(f)
	}
	function report(f, out,   line, n) {
		while ((getline line <f) > 0) {
			gsub(/ -> [^)]*\)/, " -> LANE)", line)
			out[++n] = line
		}
		close(f)
		return n
	}
	BEGIN {
		count(a, 1)
		count(b, -1)
		for (k in seen)
			if (seen[k] != 0 && shown++ < 20) {
				print (seen[k] > 0 ? "only in " a ": " : "only in " b ": ") k
				bad = 1
			}
		if (ae != "") {
			n = report(ae, x)
			m = report(be, y)
			for (i = 1; i <= (n > m ? n : m); i++)
				if (x[i] != y[i]) {
					print ae " line " i ": " x[i]
					print be " line " i ": " y[i]
					bad = 1
					break
				}
		}
		exit bad
	}'
}

# told FILE: FILE with an #open directive after each record of a thread
# whose pid and tid are columns (for threads that hide theirs in extra
# nothing is told), saying truly when the next X slice or flow of that
# thread begins: so ltlanefix places as it goes and must place as if it
# held the whole stream.
told() {
	awk -F '\t' '
	function key(s,   i, f, n) {
		n = substr(s, 1, 1) == "-"
		if (n) s = substr(s, 2)
		i = index(s, ".")
		f = i ? substr(substr(s, i + 1) "000", 1, 3) : "000"
		s = i ? substr(s, 1, i - 1) : s
		return (n ? -1 : 1) * (s * 1000 + f)
	}
	NR == FNR {
		if (/^#/) next
		if ($3 == "-" || $4 == "-") hide[$3] = 1
		if ($1 != "-" && (($2 == "X" && $5 != "-") || $2 ~ /^[stf]$/)) {
			t = $3 "\t" $4
			n[t]++; at[t, n[t]] = FNR; ts[t, n[t]] = $1
		}
		next
	}
	FNR == 1 {
		for (t in n) {
			best = ""
			for (i = n[t]; i > 0; i--) {
				if (best == "" || key(ts[t, i]) < key(best))
					best = ts[t, i]
				nxt[t, at[t, i] - 1] = best
			}
		}
	}
	{ print }
	!/^#/ && !($3 in hide) {
		t = $3 "\t" $4
		if (t in n) {
			for (i = FNR; !((t, i) in nxt) && i < FNR + 100000; i++)
				;
			print "#open\t" t "\t" ((t, i) in nxt ? nxt[t, i] : "9000000000000000")
		}
	}' "$1" "$1"
}

@test "streamed: every fixture told what may come is placed as if held whole" {
	local f name o n=0
	for f in "$D"/*.lt; do
		name=${f##*/}
		name=${name%.lt}
		told "$f" >"$BATS_TEST_TMPDIR/told.lt"
		grep -q '^#open' "$BATS_TEST_TMPDIR/told.lt" || continue
		for o in "" "-t 0" "-t inf"; do
			# shellcheck disable=SC2086
			ltlanefix $o "$f" >"$BATS_TEST_TMPDIR/whole" 2>"$BATS_TEST_TMPDIR/whole.err"
			# shellcheck disable=SC2086
			ltlanefix $o "$BATS_TEST_TMPDIR/told.lt" >"$BATS_TEST_TMPDIR/live" 2>"$BATS_TEST_TMPDIR/live.err"
			# the report too, but for the tids lanes got
			samelanes "$BATS_TEST_TMPDIR/whole" "$BATS_TEST_TMPDIR/live" \
			    "$BATS_TEST_TMPDIR/whole.err" "$BATS_TEST_TMPDIR/live.err" ||
			    { echo "$name $o"; return 1; }
			n=$((n + 1))
		done
	done
	[ "$n" -ge 30 ]
}

# chain FILE OUT [FILTER...]: ltpair, [ltfilter FILTER], ltlanefix on the
# log FILE, into OUT (the report in OUT.err); and into OUT.whole the same
# with ltpair's directives taken out, so ltlanefix holds it all.
chain() {
	local log=$1 out=$2
	shift 2
	ltparse "$log" | ltpair >"$out.paired"
	if [ $# -gt 0 ]; then
		ltfilter "$@" <"$out.paired" >"$out.f"
		mv "$out.f" "$out.paired"
	fi
	ltlanefix "$out.paired" >"$out" 2>"$out.err"
	grep -v '^#open	\|^#close	' "$out.paired" |
	    ltlanefix >"$out.whole" 2>"$out.whole.err"
}

@test "streamed: LitData logs of every format, as ltpair tells, as if held whole, in order" {
	local f o="$BATS_TEST_TMPDIR/o" moved=0
	for f in new old v1 mixed; do
		genlog -f "$f" -n 20000 -c -b -s 3 >"$BATS_TEST_TMPDIR/$f.log"
		chain "$BATS_TEST_TMPDIR/$f.log" "$o"
		[ "$(grep -c '^#open	' "$o.paired")" -gt 10 ]
		[ "$(grep -c '^#close	' "$o.paired")" -gt 10 ]
		samelanes "$o.whole" "$o" || { echo "$f"; false; }
		diff -u "$o.whole.err" "$o.err" || { echo "$f"; false; }
		moved=$((moved + $(stat_of ltlanefix moved "$o")))
		[ "$(crossings "$o")" = 0 ]
		# Written in the order it came, too: byte for byte.
		cmp "$o.whole" "$o" || { echo "$f"; false; }
		grep -q '^#open\|^#close' "$o" && { echo "$f: directives left"; false; }
	done
	[ "$moved" -gt 100 ]
}

@test "streamed: with ltfilter between, as if held whole" {
	local o="$BATS_TEST_TMPDIR/o" flt
	genlog -n 20000 -c -s 4 >"$BATS_TEST_TMPDIR/in.log"
	for flt in "--cat read" "--cat sample,read,epoch" "-v -n sample" "-d 1ms"; do
		# shellcheck disable=SC2086
		chain "$BATS_TEST_TMPDIR/in.log" "$o" $flt
		samelanes "$o.whole" "$o" || { echo "$flt"; false; }
		diff -u "$o.whole.err" "$o.err" || { echo "$flt"; false; }
	done
}

# A long job: workers by the thousand that come and go.  Their threads
# fall quiet and let go of what placed their slices, every 16384 lines;
# nothing to come can cross what they placed, so it is as if held whole.
@test "streamed: a long job's threads, come and gone, are placed as if held whole" {
	local o="$BATS_TEST_TMPDIR/o" t
	genlog -n 150000 -e 30 -w 4 -r 2 -a async -s 9 >"$BATS_TEST_TMPDIR/in.log"
	ltparse "$BATS_TEST_TMPDIR/in.log" | ltpair >"$o.paired"
	[ "$(records "$o.paired" | wc -l)" -gt 65536 ]
	grep -v '^#open	\|^#close	' "$o.paired" >"$o.held"
	for t in "" "-t 0"; do
		# shellcheck disable=SC2086
		ltlanefix $t "$o.paired" >"$o" 2>"$o.err"
		# shellcheck disable=SC2086
		ltlanefix $t "$o.held" >"$o.whole" 2>"$o.whole.err"
		cmp "$o.whole" "$o" || { echo "$t"; false; }
		cmp "$o.whole.err" "$o.err" || { echo "$t"; false; }
		[ "$(stat_of ltlanefix tracks "$o")" -gt 400 ]
		[ "$(stat_of ltlanefix moved "$o")" -gt 100 ]
		[ "$(stat_of ltlanefix crossings_before "$o")" -gt 100 ]
		[ "$(crossings "$o")" = 0 ]
	done
}

# thread 1 places [0, 10] and is told it is at 100; then two rounds of
# 16384 lines of thread 2 pass, and thread 1, quiet, let go of its lanes.
# A slice at 5 ltpair said could not come: it is late, on a lane of its
# own, and nothing crosses.
@test "streamed: a slice below what a thread gone quiet placed is late" {
	awk 'BEGIN { print "#lt1"; print "#open\t1\t1\t0"
		print "0\tX\t1\t1\t10\tc\ta\t{}\t{}"
		print "#open\t1\t1\t100"
		for (i = 0; i < 20000; i++) {
			printf "%d\tX\t1\t2\t1\tc\tb\t{}\t{}\n", 1000 + 2 * i
			printf "#open\t1\t2\t%d\n", 1002 + 2 * i }
		print "5\tX\t1\t1\t1\tc\tc\t{}\t{}"
		print "20\tX\t1\t1\t1\tc\td\t{}\t{}"
		print "#open\t1\t1\t200" }' >"$BATS_TEST_TMPDIR/in.lt"
	ltlanefix "$BATS_TEST_TMPDIR/in.lt" >"$BATS_TEST_TMPDIR/out.lt" 2>"$BATS_TEST_TMPDIR/err"
	[ "$(stat_of ltlanefix late "$BATS_TEST_TMPDIR/out.lt")" = 1 ]
	[ "$(stat_of ltlanefix slices "$BATS_TEST_TMPDIR/out.lt")" = 20003 ]
	grep -q '^came too late to be placed in order: 1 slice(s), on lanes of their own, 0 flow(s)' "$BATS_TEST_TMPDIR/err"
	grep -q '^5	X	1	1001	1	c	c	{}	{}$' "$BATS_TEST_TMPDIR/out.lt"
	grep -q '^20	X	1	1	1	c	d	{}	{}$' "$BATS_TEST_TMPDIR/out.lt"
	[ "$(crossings "$BATS_TEST_TMPDIR/out.lt")" = 0 ]
}

# ltstat -t before ltlanefix: a read's flow to the delete of its chunk
# comes when the delete has come, after the read went to a lane.
@test "streamed: flows that come after their slices were placed stay, and -q still says how many" {
	local o="$BATS_TEST_TMPDIR/o"
	ltparse "$DATA/sample.log" | ltpair >"$o.pp"
	ltstat -t <"$o.pp" >"$o.st"
	ltlanefix "$o.st" >"$o" 2>"$o.err"
	n=$(sed -n 's/^came too late to be placed in order: 0 slice(s), on lanes of their own, \([0-9]*\) flow(s), left as they were$/\1/p' "$o.err")
	[ "$n" -gt 0 ]
	[ "$(stat_of ltlanefix late "$o")" = "$n" ]
	# one of them is at the start of a read that went to a lane
	awk -F '\t' '$2 == "X" && $4 >= 1000 { moved[$1 FS $3] = 1 }
	    $2 == "s" && $4 < 1000 && (($1 FS $3) in moved) { found = 1 }
	    END { exit !found }' "$o"
	run -0 --separate-stderr ltlanefix -q "$o.st"
	[ "$stderr" = "ltlanefix: $n flow(s) came after their slices were placed and stay on their threads as they came: Perfetto may bind them to other slices (ltstat -t before ltlanefix adds its flows so late: put it after)" ]
	# in the chain's order, none comes late, and -q says nothing
	run -0 --separate-stderr ltlanefix -q "$o.pp"
	[ -z "$stderr" ]
}

@test "streamed: a long job whose threads fall quiet, under valgrind: no error, no leak" {
	genlog -n 80000 -e 20 -w 4 -r 2 -a async -s 10 | ltparse | ltpair >"$BATS_TEST_TMPDIR/in.lt"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/in.lt")" -gt 40000 ]
	vg ltlanefix "$BATS_TEST_TMPDIR/in.lt" >"$BATS_TEST_TMPDIR/out.lt" 2>"$BATS_TEST_TMPDIR/err"
	grep -v '^#open	\|^#close	' "$BATS_TEST_TMPDIR/in.lt" | ltlanefix 2>/dev/null |
	    cmp - "$BATS_TEST_TMPDIR/out.lt"
}

@test "streamed: a stream sorted after ltpair is placed as if held whole" {
	local o="$BATS_TEST_TMPDIR/o"
	genlog -n 20000 -s 5 >"$BATS_TEST_TMPDIR/in.log"
	chain "$BATS_TEST_TMPDIR/in.log" "$o"
	# sort keeps the directives first, where they tell nothing true
	sort -t "$(printf '\t')" -s -k1,1n "$o.paired" >"$o.sorted.lt"
	ltlanefix "$o.sorted.lt" >"$o.sorted" 2>"$o.sorted.err"
	grep -v '^#open	\|^#close	' "$o.sorted.lt" | ltlanefix >"$o.held" 2>"$o.held.err"
	samelanes "$o.held" "$o.sorted"
	diff -u "$o.held.err" "$o.sorted.err"
	[ "$(stat_of ltlanefix moved "$o.sorted")" -gt 10 ]
}

@test "streamed: a span weeks before its time goes to a lane of its own, counted" {
	local o="$BATS_TEST_TMPDIR/o"
	genlog -n 20000 -s 6 >"$BATS_TEST_TMPDIR/in.log"
	ltparse "$BATS_TEST_TMPDIR/in.log" >"$BATS_TEST_TMPDIR/in.lt"
	# The 9000th B (of about 9900), weeks early (a damaged line)
	[ "$(records "$BATS_TEST_TMPDIR/in.lt" | head -1 | cut -c1-3)" = 178 ]
	awk -F '\t' -v OFS='\t' '!/^#/ && $2 == "B" && ++n == 9000 {
		$1 = "1776000000000000"
	} { print }' "$BATS_TEST_TMPDIR/in.lt" | ltpair >"$o.paired"
	ltlanefix "$o.paired" >"$o" 2>"$o.err"
	[ "$(stat_of ltlanefix late "$o")" -ge 1 ]
	[ "$(stat_of ltlanefix renamed "$o")" = 0 ]
	grep -q '^came too late to be placed in order: [1-9][0-9]* slice(s), on lanes of their own, 0 flow(s)' "$o.err"
	[ "$(crossings "$o")" = 0 ]
	# every slice once
	[ "$(records "$o" | grep -c '	X	')" -eq "$(records "$o.paired" | grep -c '	X	')" ]
	[ "$(stat_of ltlanefix slices "$o")" -eq "$(records "$o.paired" | grep -c '	X	')" ]
}

@test "streamed: a thread that comes with the tid a lane took is renamed, counted" {
	awk 'BEGIN { print "#lt1"; t = 0
		for (i = 0; i < 3000; i++) { t += 100
			printf "%d\tB\t1\t1\t-\tc\ta\t{}\t{}\n", t
			printf "%d\tB\t1\t1\t-\tc\tb\t{}\t{}\n", t + 20
			printf "%d\tE\t1\t1\t-\tc\ta\t{}\t{}\n", t + 50
			printf "%d\tE\t1\t1\t-\tc\tb\t{}\t{}\n", t + 70 }
		for (i = 0; i < 3000; i++) { t += 100
			printf "%d\tB\t1\t1001\t-\tc\ta\t{}\t{}\n", t
			printf "%d\tB\t1\t1001\t-\tc\tb\t{}\t{}\n", t + 20
			printf "%d\tE\t1\t1001\t-\tc\ta\t{}\t{}\n", t + 50
			printf "%d\tE\t1\t1001\t-\tc\tb\t{}\t{}\n", t + 70 }
		print "-\tM\t1\t1001\t-\t\tthread_name\t{\"name\":\"real\"}\t{}" }' |
	    ltpair >"$BATS_TEST_TMPDIR/in.lt"
	ltlanefix "$BATS_TEST_TMPDIR/in.lt" >"$BATS_TEST_TMPDIR/out.lt" 2>"$BATS_TEST_TMPDIR/err"
	[ "$(stat_of ltlanefix renamed "$BATS_TEST_TMPDIR/out.lt")" = 1 ]
	grep -q '^renamed 1 thread(s) whose tid a lane took before they came$' "$BATS_TEST_TMPDIR/err"
	# lane 1 of tid 1 is 1001; the real 1001 is 4000000001, its lane 4000000002
	[ "$(records "$BATS_TEST_TMPDIR/out.lt" | awk -F '\t' '$2 == "X" { n[$4 ""]++ }
	    END { print n["1"], n["1001"], n["4000000001"], n["4000000002"] }')" = "3000 3000 3000 3000" ]
	grep -q '^-	M	1	4000000001	-		thread_name	{"name":"real"}	{}$' "$BATS_TEST_TMPDIR/out.lt"
	grep -q '^-	M	1	4000000002	-		thread_name	{"name":"real lane 1"}	{}$' "$BATS_TEST_TMPDIR/out.lt"
	[ "$(crossings "$BATS_TEST_TMPDIR/out.lt")" = 0 ]
}

# A long job has processes by the thousand, each with its process_name
# and process_sort_index on tid 0: they make no thread.  A thread 0 that
# has a name, or slices, is one all the same, placed and named as any.
@test "a process's M records on tid 0 make no thread; a thread 0 is placed and named as any other" {
	local o="$BATS_TEST_TMPDIR/o"
	awk 'BEGIN { print "#lt1"
		print "-\tM\t7\t0\t-\t\tthread_name\t{\"name\":\"main\"}\t{}"
		print "-\tM\t7\t0\t-\t\tprocess_name\t{\"name\":\"p7\"}\t{}"
		print "-\tM\t8\t0\t-\t\tprocess_name\t{\"name\":\"p8\"}\t{}"
		print "-\tM\t8\t0\t-\t\tprocess_sort_index\t{\"sort_index\":8}\t{}"
		for (p = 7; p <= 8; p++) { tid = p == 7 ? 0 : 1
			printf "100\tB\t%d\t%d\t-\tc\ta\t{}\t{}\n", p, tid
			printf "120\tB\t%d\t%d\t-\tc\tb\t{}\t{}\n", p, tid
			printf "150\tE\t%d\t%d\t-\tc\ta\t{}\t{}\n", p, tid
			printf "170\tE\t%d\t%d\t-\tc\tb\t{}\t{}\n", p, tid }
		print "-\tM\t9\t0\t-\t\tprocess_name\t{\"name\":\"p9\"}\t{}" }' |
	    ltpair >"$o.paired"
	grep -v '^#open	\|^#close	' "$o.paired" >"$o.held"
	ltlanefix -q "$o.paired" >"$o"
	ltlanefix -q "$o.held" >"$o.whole"
	cmp "$o.whole" "$o"
	# The process records pass as they came, in their place, and the
	# lanes are named after the last of them.
	[ "$(records "$o" | grep -n '	process_' | cut -d '	' -f 1,3,7 | tr '\n\t' ' :')" = \
	    "2:-:7:process_name 3:-:8:process_name 4:-:8:process_sort_index 9:-:9:process_name " ]
	[ "$(records "$o" | sed -n 10p | cut -f 3,4,7)" = "$(printf '7\t0\tthread_sort_index')" ]
	# Thread 0 of 7 keeps its name for its lane, which takes no tid 0*1000+k.
	grep -q '^-	M	7	4000000001	-		thread_name	{"name":"main lane 1"}	{}$' "$o"
	grep -q '^-	M	8	1001	-		thread_name	{"name":"tid 1 lane 1"}	{}$' "$o"
	[ "$(records "$o" | awk -F '\t' '$2 == "X" { n[$3 "/" $4]++ }
	    END { print n["7/0"], n["7/4000000001"], n["8/1"], n["8/1001"] }')" = "1 1 1 1" ]
	[ "$(stat_of ltlanefix tracks "$o")" = 2 ]
	[ "$(crossings "$o")" = 0 ]
}

@test "streamed: -k places as it goes and writes what the whole stream gives; ltpair's directives are not passed on" {
	genlog -n 20000 -s 7 | ltparse | ltpair >"$BATS_TEST_TMPDIR/in.lt"
	grep -q '^#open	' "$BATS_TEST_TMPDIR/in.lt"
	ltlanefix -k -q "$BATS_TEST_TMPDIR/in.lt" >"$BATS_TEST_TMPDIR/k"
	grep -v '^#open	\|^#close	' "$BATS_TEST_TMPDIR/in.lt" | ltlanefix -k -q >"$BATS_TEST_TMPDIR/k.whole"
	cmp "$BATS_TEST_TMPDIR/k.whole" "$BATS_TEST_TMPDIR/k"
	[ "$(stat_of ltlanefix split "$BATS_TEST_TMPDIR/k")" -gt 1000 ]
	[ "$(grep -c '^#open	\|^#close	' "$BATS_TEST_TMPDIR/k")" = 0 ]
}

@test "-k: sorted in runs through a temporary file, merged in passes, the same output; without a file, in memory, said" {
	cd "$BATS_TEST_TMPDIR"
	genlog -n 20000 -s 3 | ltparse | ltpair >in.lt
	# a record longer than what a run is read back by (8 KiB)
	long=$(head -c 20000 /dev/zero | tr '\0' a)
	printf '1\tX\t1\t1\t5\tc\t%s\t{}\t{}\n' "$long" >>in.lt
	ltlanefix -k in.lt >mem.lt 2>mem.err
	grep -v '^#open	\|^#close	' in.lt | ltlanefix -k >whole.lt 2>whole.err
	cmp mem.lt whole.lt
	cmp mem.err whole.err
	grep -q "	$long	" mem.lt
	# 1000 bytes a run: thousands of runs, merged 256 at a time into
	# fewer, then those; 1 byte: every record a run
	for m in 1000 1; do
		mkdir "t$m"
		LT_SORT_MEM=$m TMPDIR="$PWD/t$m" ltlanefix -k in.lt >"$m.lt" 2>"$m.err"
		cmp mem.lt "$m.lt"
		cmp mem.err "$m.err"
		# the file is gone as soon as made
		[ -z "$(ls "t$m")" ]
	done
	LT_SORT_MEM=1000 TMPDIR="$PWD/none" run -0 --separate-stderr ltlanefix -k -q in.lt
	[ "$stderr" = "ltlanefix: cannot make a temporary file in $PWD/none (TMPDIR): No such file or directory; the stream is held in memory to be sorted" ]
	cmp mem.lt <(printf '%s\n' "$output")
	# a file that cannot grow (a full disk): said, exit 2
	mkdir full
	run -2 --separate-stderr sh -c 'ulimit -f 200; trap "" XFSZ; LT_SORT_MEM=1000 TMPDIR="$PWD/full" exec ltlanefix -k -q in.lt >/dev/null'
	[ "$stderr" = "ltlanefix: write error: a temporary file in $PWD/full (TMPDIR): File too large" ]
	for v in x 0 -5 2000000000000; do
		LT_SORT_MEM=$v run -2 --separate-stderr ltlanefix -k -q in.lt
		[[ $stderr == "ltlanefix: LT_SORT_MEM=$v: "*" (1 to 2^40 bytes)" ]]
	done
	# without -k, nothing is sorted and the variable is not read
	LT_SORT_MEM=x run -0 ltlanefix -q in.lt
}

@test "streamed: a slice that comes before an open span placed early takes it back" {
	# The span open since 10 goes to lane 0 at once, lane 0 being empty;
	# then comes [5, 20], which ltpair did not tell of: it is first, and
	# the span, which crosses it, has to move.
	printf '#lt1\n#open\t1\t1\t100\t10\n5\tX\t1\t1\t15\tc\tx\t{}\t{}\n#close\t1\t1\t10\n10\tX\t1\t1\t200\tc\tP\t{}\t{}\n' \
	    >"$BATS_TEST_TMPDIR/in.lt"
	run -0 --separate-stderr ltlanefix -q "$BATS_TEST_TMPDIR/in.lt"
	[ "${lines[1]}" = '5	X	1	1	15	c	x	{}	{}' ]
	[ "${lines[2]}" = '10	X	1	1001	200	c	P	{}	{}' ]
	grep -v '^#open\|^#close' "$BATS_TEST_TMPDIR/in.lt" | ltlanefix -q >"$BATS_TEST_TMPDIR/whole"
	diff -u "$BATS_TEST_TMPDIR/whole" <(printf '%s\n' "$output")
}

@test "streamed: directives that are not ltpair's pass, malformed ones too" {
	printf '#lt1\n#open\t1\n#open\t1\t1\tnow\n#close\t1\t1\n#opened\t1\n#x\n0\tX\t1\t1\t5\tc\ta\t{}\t{}\n#open\t1\t1\t9\n' \
	    >"$BATS_TEST_TMPDIR/in.lt"
	run -0 --separate-stderr ltlanefix -q "$BATS_TEST_TMPDIR/in.lt"
	[ "${lines[1]}" = '#open	1' ]
	[ "${lines[2]}" = '#open	1	1	now' ]
	[ "${lines[3]}" = '#close	1	1' ]
	[ "${lines[4]}" = '#opened	1' ]
	[ "${lines[5]}" = '#x' ]
	[ "${lines[6]}" = '0	X	1	1	5	c	a	{}	{}' ]
	[ "${#lines[@]}" -eq 8 ]
}

@test "ltlanefix, -k: a stream with no record (an empty log, a filter that keeps nothing) is a stream with no record" {
	printf '#lt1\n' >"$BATS_TEST_TMPDIR/empty"
	for k in '' -k; do
		run -0 --separate-stderr ltlanefix -q $k "$BATS_TEST_TMPDIR/empty"
		[ "${lines[0]}" = "#lt1" ]
		[ "${#lines[@]}" -eq 2 ]
		[ "$(stat_of ltlanefix events <(echo "$output"))" = 0 ]
	done
}

@test "-k after ltstat -t (#lateflows): placed as it goes, the flows that came after their slices follow them as in the whole stream" {
	cd "$BATS_TEST_TMPDIR"
	ltparse "$DATA/sample.log" | ltpair | ltstat -t >s.lt
	[ "$(sed -n 2p s.lt)" = '#lateflows' ]
	ltlanefix -k -q s.lt >k.lt 2>k.err
	[ ! -s k.err ]
	# as a stream with no directive of ltpair, held and placed whole
	grep -v '^#open	\|^#close	' s.lt | ltlanefix -k -q >whole.lt
	cmp whole.lt k.lt
	# the slices kept for them sorted through the temporary file too
	mkdir t
	LT_SORT_MEM=200 TMPDIR="$PWD/t" ltlanefix -k -q s.lt >k200.lt
	cmp whole.lt k200.lt
	[ -z "$(ls t)" ]
	# a long job, new workers every epoch, two ranks: hundreds of flows
	genlog -n 30000 -s 3 -e 8 -w 3 -r 2 | ltparse | ltpair | ltstat -t >g.lt
	[ "$(grep -c '	flow	' g.lt)" -gt 400 ]
	ltlanefix -k -q g.lt >gk.lt
	grep -v '^#open	\|^#close	' g.lt | ltlanefix -k -q | cmp - gk.lt
	# flows moved onto the lanes of their slices
	[ "$(stat_of ltlanefix flows_rewritten k.lt)" = 19 ]
	# without the directive, placed as it goes: the flows come too late
	grep -v '^#lateflows$' s.lt | ltlanefix -k -q >live.lt 2>live.err
	grep -q '^ltlanefix: 11 flow(s) came after their slices were placed' live.err
	[ "$(stat_of ltlanefix late live.lt)" = 11 ]
	# ltstat -t -x flows adds none, and says nothing of them
	ltparse "$DATA/sample.log" | ltpair | ltstat -t -x flows >x.lt
	[ "$(grep -c '^#lateflows$' x.lt)" = 0 ]
	[ "$(stat_of ltstat flows x.lt)" = 0 ]
}

@test "-k, #lateflows: a flow that comes after its slices binds as in the whole stream: at a start, in a slice, to the next slice" {
	cd "$BATS_TEST_TMPDIR"
	# E [5, 30] on lane 0; A [10, 100] crosses it, to a lane; B [10, 20]
	# nests in E.  Then, told that all before 300 came, F is placed, and
	# the flows come, too late to wait for their slices.
	printf '#lt1\n#lateflows\n#open\t1\t1\t0\n5\tX\t1\t1\t25\tc\tE\t{}\t{}\n10\tX\t1\t1\t90\tc\tA\t{}\t{}\n10\tX\t1\t1\t10\tc\tB\t{}\t{}\n200\tX\t1\t1\t10\tc\tF\t{}\t{}\n#open\t1\t1\t300\n10\ts\t1\t1\t-\tflow\tx\t{}\t{"id":1}\n10\tf\t1\t1\t-\tflow\tx\t{}\t{"id":2}\n50\ts\t1\t1\t-\tflow\tx\t{}\t{"id":3}\n7\tf\t1\t1\t-\tflow\tx\t{}\t{"id":4}\n' >in.lt
	ltlanefix -k -q in.lt >k.lt
	# at 10, s binds the innermost slice starting there (B, which stays),
	# f the outermost (A, on lane 1001); s at 50 binds A, around it; f at
	# 7 binds the next slice, A, and goes to its start
	[ "$(grep -c '	flow	' k.lt)" = 4 ]
	grep -q '^10	s	1	1	-	flow	x	{}	{"id":1}$' k.lt
	grep -q '^10	f	1	1001	-	flow	x	{}	{"id":2}$' k.lt
	grep -q '^50	s	1	1001	-	flow	x	{}	{"id":3}$' k.lt
	grep -q '^10	f	1	1001	-	flow	x	{}	{"id":4}$' k.lt
	[ "$(stat_of ltlanefix flows_rewritten k.lt)" = 3 ]
	grep -v '^#open	' in.lt | ltlanefix -k -q >whole.lt
	cmp whole.lt k.lt
	# without the directive they stay as they came, said
	grep -v '^#lateflows$' in.lt | ltlanefix -k -q >late.lt 2>late.err
	[ "$(stat_of ltlanefix late late.lt)" = 4 ]
	[ "$(grep -c '	flow	x	{}	{"id":[0-9]}$' late.lt)" = 4 ]
	[ "$(grep '	flow	' late.lt | cut -f 4 | sort -u)" = 1 ]
	grep -q '^ltlanefix: 4 flow(s) came after their slices were placed' late.err
}
