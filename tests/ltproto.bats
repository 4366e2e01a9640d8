#!/usr/bin/env bats
# ltproto: lt1 to a Perfetto protobuf trace, judged by Perfetto's importer.

bats_require_minimum_version 1.5.0

setup() {
	load helper
	T=$BATS_TEST_TMPDIR
}

# lt1 FILE LINE...: write a stream with the header and the given lines.
lt1() {
	local f=$1
	shift
	printf '#lt1\n' >"$f"
	[ $# -eq 0 ] || printf '%s\n' "$@" >>"$f"
}

# errors TRACE: the error and data loss stats Perfetto counts.
errors() {
	tp_errors "$1" | cut -d, -f1,5
}

# view TRACE OFFSET_NS [nodepth]: tp_view (helper.bash).
view() {
	tp_view "$@"
}

# same STREAM [nodepth] [errors]: ltjson's trace and ltproto's of STREAM
# are the same to Perfetto (JSON times after ltjson's ts_offset_us), and
# the .pftrace loads with no error or data loss; with errors, with those
# of the JSON but the slices it had to move (which ltproto moves itself).
same() {
	ltjson "$1" >"$T/t.json" || return 1
	ltproto -o "$T/t.pftrace" "$1" 2>"$T/ltproto.err" || return 1
	tp_views "$T/t.json" "$T/t.pftrace" "${2:-}" "$T/v" || return 1
	[ -s "$T/v.pftrace" ] || { echo "nothing imported"; return 1; }
	diff -u "$T/v.json" "$T/v.pftrace" | head -40
	cmp -s "$T/v.json" "$T/v.pftrace" || return 1
	cut -d, -f1,5 "$T/v.p.2" >"$T/errors"
	if [ "${3:-}" = errors ]; then
		cut -d, -f1,5 "$T/v.j.2" | grep -v '^"slice_spill_' >"$T/json.errors"
		diff -u "$T/json.errors" "$T/errors"
	else
		[ ! -s "$T/errors" ] || { cat "$T/errors"; return 1; }
	fi
}

@test "ltproto -h prints the usage on stdout and exits 0" {
	run -0 --separate-stderr ltproto -h
	[ "${lines[0]}" = "usage: ltproto [-i strings] [-o file] [-S file] [-s file] [-w events] [file ...]" ]
	[ -z "$stderr" ]
	run -0 ltproto --help
	[ "${lines[0]}" = "usage: ltproto [-i strings] [-o file] [-S file] [-s file] [-w events] [file ...]" ]
}

@test "the usage line equals the man page synopsis" {
	need mandoc
	syn=$(synopsis ltproto)
	run -0 ltproto -h
	[ "${lines[0]}" = "usage: $syn" ]
}

@test "a bad option or number is a usage error: exit 2" {
	run -2 --separate-stderr ltproto -x
	[[ "$stderr" == *"usage: ltproto [-i strings] [-o file] [-S file] [-s file] [-w events] [file ...]"* ]]
	run -2 --separate-stderr ltproto -w 0 /dev/null
	[ "$stderr" = "ltproto: -w 0: too small" ]
	run -2 --separate-stderr ltproto -i x /dev/null
	[ "$stderr" = "ltproto: -i x: invalid" ]
}

@test "bad input: exit 1 with the file and line; a missing file: exit 2" {
	printf 'not a stream\n' >"$T/log"
	run -1 --separate-stderr ltproto -o "$T/t.pftrace" "$T/log"
	[ "$stderr" = "ltproto: $T/log:1: not an lt1 stream: missing #lt1 header (a log or a trace is read by ltparse, or converted by litracer)" ]
	lt1 "$T/bad" "1	X	1	1	2	c	n	{}	{}" "x	X	1	1	2	c	n	{}	{}"
	run -1 --separate-stderr ltproto -o "$T/t.pftrace" "$T/bad"
	[[ "$stderr" == "ltproto: $T/bad:3: column ts: "* ]]
	lt1 "$T/bad" "1	X	1	1	2	c	n	{\"a\":[1,}	{}"
	run -1 --separate-stderr ltproto -o "$T/t.pftrace" "$T/bad"
	[[ "$stderr" == "ltproto: $T/bad:2: column args: "* ]]
	run -2 --separate-stderr ltproto "$T/nosuch"
	[ "$stderr" = "ltproto: $T/nosuch: No such file or directory" ]
}

@test "output errors: exit 2, the output named" {
	lt1 "$T/s" "1	X	1	1	2	c	n	{}	{}"
	run -2 --separate-stderr ltproto -o "$T/nodir/t.pftrace" "$T/s"
	[ "$stderr" = "ltproto: $T/nodir/t.pftrace: No such file or directory" ]
	run -2 --separate-stderr ltproto -o /dev/full "$T/s"
	[ "$stderr" = "ltproto: write error: /dev/full: No space left on device" ]
	run -2 --separate-stderr sh -c 'ltproto "$1" >/dev/full' sh "$T/s"
	[ "$stderr" = "ltproto: write error: <stdout>: No space left on device" ]
}

@test "the first packet clears the incremental state of the sequence" {
	lt1 "$T/s" "1	X	1	1	2	c	n	{}	{}"
	ltproto -o "$T/t.pftrace" "$T/s"
	# Trace.packet (0a), length; trusted_packet_sequence_id (50 ..),
	# sequence_flags CLEARED|NEEDS_INCREMENTAL_STATE (68 03),
	# first_packet_on_sequence (b8 05 01).
	run -0 sh -c 'od -An -tx1 -N9 "$1" | tr -d " \n"' sh "$T/t.pftrace"
	[[ "$output" == 0a??50??6803b80501 ]]
}

@test "an empty stream is a valid trace with nothing in it" {
	tp_need
	lt1 "$T/s"
	run -0 ltproto -o "$T/t.pftrace" "$T/s"
	run -0 tp_query "$T/t.pftrace" "select count(*) from slice"
	[ "$output" = 0 ]
	run -0 errors "$T/t.pftrace"
	[ -z "$output" ]
}

@test "times are absolute integer nanoseconds, with no offset" {
	tp_need
	lt1 "$T/s" "1795940303867556.25	X	7	8	112.5	c	span	{}	{}" \
	    "1795940303867556.251	i	7	8	-	c	mark	{}	{}" \
	    "2	X	7	9	0.001	c	early	{}	{}"
	ltproto -o "$T/t.pftrace" "$T/s"
	run -0 tp_query "$T/t.pftrace" \
	    "select name || ' ' || ts || ' ' || dur from slice order by ts"
	[ "${lines[0]}" = '"early 2000 1"' ]
	[ "${lines[1]}" = '"span 1795940303867556250 112500"' ]
	[ "${lines[2]}" = '"mark 1795940303867556251 0"' ]
}

@test "times as deltas: ends that wait, times that go back, exact" {
	tp_need
	# On thread 8, 400 slices nested, in order of start: their ends
	# wait; on thread 9, slices from the last to the first, each earlier
	# than the one written before it; on thread 10, 5000 slices that
	# cross, each on a track of its own: more ends than a sequence keeps.
	{
		printf '#lt1\n'
		awk 'BEGIN {
			for (i = 1; i <= 400; i++)
				printf "%d.25\tX\t7\t8\t%d\tc\tn%d\t{}\t{}\n",
				    1000 + i, 2000 - 2 * i, i
			for (i = 300; i >= 1; i--)
				printf "%d.5\tX\t7\t9\t0.75\tc\tback\t{\"i\":%d}\t{}\n",
				    5000 + 3 * i, i
			printf "1\tX\t7\t9\t1\tc\tlate\t{}\t{}\n"
			for (i = 1; i <= 5000; i++)
				printf "%d\tX\t7\t10\t10000\tc\tx\t{}\t{}\n",
				    10000 + i
		}'
	} >"$T/s"
	same "$T/s" nodepth
	run -0 tp_query "$T/t.pftrace" "select count(*), max(depth) from slice
	    join thread_track t on slice.track_id = t.id
	    join thread using (utid) where tid = 8"
	[ "$output" = '400,399' ]
	run -0 tp_query "$T/t.pftrace" "select ts || ' ' || dur from slice
	    where name in ('back', 'late') order by ts limit 2"
	[ "${lines[0]}" = '"1000 1000"' ]
	[ "${lines[1]}" = '"5003500 750"' ]
	run -0 tp_query "$T/t.pftrace" "select count(*), min(dur), max(dur)
	    from slice where name = 'x'"
	[ "$output" = '5000,10000000,10000000' ]
}

@test "processes and threads: names and sort indexes, as in JSON" {
	tp_need
	lt1 "$T/s" \
	    "10	X	7	8	5	c	a	{}	{}" \
	    "11	X	7	9	5	c	b	{}	{}" \
	    "13	X	7	0	5	c	d	{}	{}" \
	    "20	X	-	-	5	c	e	{}	{\"pid\":7.9,\"tid\":true}" \
	    "30	X	-5	5	5	c	f	{}	{}" \
	    "-	M	7	0	-		process_name	{\"name\":\"seven\"}	{}" \
	    "-	M	7	0	-		process_sort_index	{\"sort_index\":3}	{}" \
	    "-	M	7	8	-		thread_name	{\"name\":\"first\"}	{}" \
	    "-	M	7	8	-		thread_name	{\"name\":\"eight\"}	{}" \
	    "-	M	7	8	-		thread_sort_index	{\"sort_index\":-2}	{}" \
	    "-	M	7	9	-		thread_name	{\"name\":\"read lane 1\"}	{}" \
	    "-	M	0	5	-		thread_name	{\"name\":\"zero\"}	{}"
	run -0 same "$T/s"
	grep -q '^"thread|8|eight|7|thread_sort_index_hint=-2"$' "$T/v.pftrace"
	grep -q '^"thread|9|read lane 1|7|"$' "$T/v.pftrace"
	grep -q '^"process|7|seven|process_sort_index_hint=3"$' "$T/v.pftrace"
	# tid 0 and tid true are the pid; pid 7.9 is 7; bad pids are 0
	grep -q '^"slice|13000|5000|d|c|0|thread_execution|7||7"$' "$T/v.pftrace"
	grep -q '^"slice|20000|5000|e|c|0|thread_execution|7||7"$' "$T/v.pftrace"
	grep -q '^"slice|30000|5000|f|c|0|thread_execution|5|zero|0"$' "$T/v.pftrace"
}

@test "a string pid or tid is a process or thread named by it" {
	tp_need
	lt1 "$T/s" "12	X	\"stream 7\"	\"s1\"	5	c	c	{}	{}" \
	    "13	X	7	\"s1\"	5	c	d	{}	{}" \
	    "-	M	\"stream 7\"	\"s1\"	-		thread_name	{\"name\":\"renamed\"}	{}"
	ltproto -o "$T/t.pftrace" "$T/s"
	view "$T/t.pftrace" 0 >"$T/v.pftrace"
	grep -q '^"slice|12000|5000|c|c|0|thread_execution|[0-9]*|s1|[0-9]*"$' \
	    "$T/v.pftrace"
	grep -q '^"process|[0-9]*|stream 7|"$' "$T/v.pftrace"
	# as in Perfetto's JSON importer, which ignores the M record
	run -1 grep renamed "$T/v.pftrace"
	[ "$(grep -c '^"thread|[0-9]*|s1|' "$T/v.pftrace")" -eq 2 ]
}

@test "a thread's first events on its process's sequence, then on its own" {
	tp_need
	# Thread 8's slices follow each other, each starting where the one
	# before ends: the end that waits when the thread takes a sequence
	# of its own goes before the next begin, at the same time.  Thread
	# 9 and 10, a slice each, stay on the process's sequence.
	{
		printf '#lt1\n'
		awk 'BEGIN {
			for (i = 0; i < 40; i++)
				printf "%d\tX\t7\t8\t10\tc\ts%d\t{\"i\":%d}\t{}\n",
				    100 + 10 * i, i, i
			printf "105\tX\t7\t9\t1\tc\tlone\t{}\t{}\n"
			printf "106\tX\t7\t10\t1\tc\tlone\t{}\t{}\n"
		}'
	} >"$T/s"
	same "$T/s"
	run -0 tp_query "$T/t.pftrace" "select count(*), max(depth), min(dur),
	    max(dur) from slice join thread_track t on slice.track_id = t.id
	    join thread using (utid) where tid = 8"
	[ "$output" = '40,0,10000,10000' ]
	# many lanes of a slice or two: a third of the JSON or less
	"$TOP/tests/gen/gentrace" -f stair -n 3000 | ltparse | ltpair |
	    ltlanefix -q >"$T/stair.lt"
	ltjson "$T/stair.lt" >"$T/stair.json"
	ltproto -o "$T/stair.pftrace" "$T/stair.lt"
	[ $(($(wc -c <"$T/stair.pftrace") * 3)) -le "$(wc -c <"$T/stair.json")" ]
}

@test "args of records that end alike: each record keeps its own" {
	tp_need
	# Records of one name and thread that end with the same members,
	# or with the last ones of the one before, strings and dots among
	# them; the same on another thread; a shorter one whose text is the
	# end of the one before.
	lt1 "$T/s" \
	    "1	X	7	8	1	c	n	{\"a\":1,\"s\":\"path,one\",\"w\":2,\"r\":0}	{}" \
	    "3	X	7	8	1	c	n	{\"a\":2,\"s\":\"path,one\",\"w\":2,\"r\":0}	{}" \
	    "5	X	7	8	1	c	n	{\"a\":3,\"b\":4,\"s\":\"path,one\",\"w\":2,\"r\":0}	{}" \
	    "7	X	7	8	1	c	n	{\"s\":\"path,one\",\"w\":2,\"r\":0}	{}" \
	    "9	X	7	8	1	c	n	{\"w\":2,\"r\":0}	{}" \
	    "11	X	7	8	1	c	n	{\"a\":5,\"w\":2,\"r\":1}	{}" \
	    "13	X	7	8	1	c	n	{\"a\":6,\"d.e\":7,\"r\":1}	{}" \
	    "15	X	7	8	1	c	n	{\"a\":8,\"d.e\":7,\"r\":1}	{}" \
	    "2	X	7	9	1	c	n	{\"a\":9,\"s\":\"path,one\",\"w\":2,\"r\":0}	{}" \
	    "4	X	7	9	1	c	m	{\"a\":10,\"s\":\"path,one\",\"w\":2,\"r\":0}	{}"
	same "$T/s"
	run -0 tp_query "$T/t.pftrace" "select s.ts || ' ' || group_concat(
	    a.key || '=' || a.display_value, ' ') as v
	    from slice s join args a using (arg_set_id)
	    where s.ts in (5000, 9000, 15000) group by s.id order by s.ts"
	[ "${lines[0]}" = '"5000 debug.a=3 debug.b=4 debug.s=path,one debug.w=2 debug.r=0"' ]
	[ "${lines[1]}" = '"9000 debug.w=2 debug.r=0"' ]
	[ "${lines[2]}" = '"15000 debug.a=8 debug.d.e=7 debug.r=1"' ]
}

@test "args keep their types: ints, doubles, bools, strings, dicts, arrays" {
	tp_need
	lt1 "$T/s" "10	X	7	8	5	c	a	{\"i\":-3,\"big\":9223372036854775807,\"d\":1.5,\"e\":1e3,\"t\":true,\"f\":false,\"s\":\"x\\\"y\\u00e9\",\"n\":null,\"o\":{\"k\":[1,\"two\",{\"z\":null,\"w\":2}],\"e\":{}},\"ea\":[],\"E.name\":\"dotted\",\"min\":-9223372036854775808}	{}" \
	    "20	i	7	8	-	c	b	{\"s\":\"path\"}	{}" \
	    "30	i	7	8	-	c	b	{\"s\":\"path\"}	{}" \
	    "40	i	7	8	-	c	p	{\"E.legacy_name\":\"plain\",\"k\":1}	{}"
	run -0 same "$T/s"
	grep -q '^"arg|10000|a|8|i|int|-3"$' "$T/v.pftrace"
	grep -q '^"arg|10000|a|8|d|real|1.5"$' "$T/v.pftrace"
	grep -q '^"arg|10000|a|8|t|bool|true"$' "$T/v.pftrace"
	grep -q '^"arg|10000|a|8|o.k\[2\].w|int|2"$' "$T/v.pftrace"
	grep -q '^"arg|10000|a|8|E.name|string|dotted"$' "$T/v.pftrace"
	grep -q '^"arg|30000|b|8|s|string|path"$' "$T/v.pftrace"
	grep -q '^"arg|40000|p|8|E.legacy_name|string|plain"$' "$T/v.pftrace"
	# null, {} and [] are no args to Perfetto's JSON importer either
	run -1 grep -E '\|(n|ea|o\.e)\|' "$T/v.pftrace"
}

@test "an integer above 2^63-1 is kept as a uint, where JSON wraps it" {
	tp_need
	lt1 "$T/s" "10	X	7	8	5	c	a	{\"u\":18446744073709551615}	{}"
	ltproto -o "$T/t.pftrace" "$T/s"
	run -0 view "$T/t.pftrace" 0
	[[ "$output" == *'"arg|10000|a|8|u|uint|18446744073709551615"'* ]]
}

@test "flows (s, t, f and bind_id) and counters are as in JSON" {
	tp_need
	lt1 "$T/s" \
	    "40	X	10	11	5	c	v2a	{}	{\"bind_id\":\"0x10\",\"flow_out\":true}" \
	    "50	X	10	12	5	c	v2b	{}	{\"bind_id\":16,\"flow_in\":true,\"flow_out\":true}" \
	    "60	B	10	11	-	c	v2c	{}	{\"bind_id\":16,\"flow_in\":true}" \
	    "65	E	10	11	-			{}	{}" \
	    "90	X	10	12	5	k	v1a	{}	{}" \
	    "91	s	10	12	-	k	fx	{}	{\"id\":\"0x20\"}" \
	    "100	X	10	11	5	c	v1b	{}	{}" \
	    "101	t	10	11	-	k	fx	{}	{\"id\":32}" \
	    "105	f	10	13	-	k	fx	{}	{\"id\":32}" \
	    "110	X	10	13	5	c	v1c	{}	{}" \
	    "120	X	10	12	5	c	v1d	{}	{}" \
	    "121	s	10	12	-	k	fy	{}	{\"id\":\"abc\"}" \
	    "130	X	10	11	5	c	v1e	{}	{}" \
	    "131	f	10	11	-	k	fy	{}	{\"id\":2748,\"bp\":\"e\"}" \
	    "140	C	10	11	-	c	ctr	{\"a\":1,\"b\":2.5,\"s\":\"7\",\"bad\":\"x\"}	{}" \
	    "150	C	10	11	-	c	ctr	{\"a\":3}	{}" \
	    "160	C	10	11	-	c	big	{\"i\":9007199254740993,\"n\":-12,\"z\":-0,\"e\":1e3}	{}" \
	    "155	C	10	11	-	c	big	{\"i\":-9223372036854775808,\"n\":\"-7\",\"z\":0,\"e\":0.5}	{}"
	run -0 same "$T/s"
	grep -q '^"flow|40000|v2a|50000|v2b"$' "$T/v.pftrace"
	grep -q '^"flow|50000|v2b|60000|v2c"$' "$T/v.pftrace"
	grep -q '^"flow|90000|v1a|100000|v1b"$' "$T/v.pftrace"
	grep -q '^"flow|100000|v1b|110000|v1c"$' "$T/v.pftrace"
	grep -q '^"flow|120000|v1d|130000|v1e"$' "$T/v.pftrace"
	grep -q '^"counter|150000|3.0|ctr a|10"$' "$T/v.pftrace"
	grep -q '^"counter|140000|7.0|ctr s|10"$' "$T/v.pftrace"
	grep -q 'counter values that are not numbers' "$T/ltproto.err"
	# 2^53 + 1 rounds to 2^53 as in JSON; -2^63 is kept
	grep -q '^"counter|160000|9007199254740992.0|big i|10"$' "$T/v.pftrace"
	grep -q '^"counter|155000|-9.2233720368547758e+18|big i|10"$' \
	    "$T/v.pftrace"
	grep -q '^"counter|155000|-7.0|big n|10"$' "$T/v.pftrace"
}

@test "instants: thread, process and global; async slices" {
	tp_need
	lt1 "$T/s" \
	    "10	i	10	11	-	c	it	{\"k\":1}	{}" \
	    "11	I	10	11	-	c	ip	{}	{\"s\":\"p\"}" \
	    "12	i	10	11	-	c	ig	{}	{\"s\":\"g\"}" \
	    "13	R	10	11	-	c	mark	{}	{}" \
	    "20	b	10	11	-	c	A	{\"k\":2}	{\"id\":1}" \
	    "22	n	10	11	-	c	N	{}	{\"id\":1}" \
	    "30	e	10	11	-	c	A	{}	{\"id\":1}" \
	    "21	b	10	12	-	c	L	{}	{\"id2\":{\"local\":\"0x3\"}}" \
	    "31	e	10	12	-	c	L	{}	{\"id2\":{\"local\":\"0x3\"}}"
	run -0 same "$T/s"
	grep -q '^"slice|20000|10000|A|c|0|legacy_async_global_slice|||"$' "$T/v.pftrace"
	grep -q '|ig|c|0|legacy_chrome_global_instants|' "$T/v.pftrace"
	grep -q '|ip|c|0|chrome_process_instant|' "$T/v.pftrace"
}

@test "slices of one time nest as in JSON, whatever their order" {
	tp_need
	# A parent that comes after its children, a slice that starts where
	# another ends, zero-length slices and an instant at the same time.
	lt1 "$T/s" \
	    "10	X	1	1	10	c	B	{}	{}" \
	    "10	i	1	1	-	c	I	{}	{}" \
	    "10	X	1	1	0	c	Z	{}	{}" \
	    "0	X	1	1	10	c	A	{}	{}" \
	    "30	X	1	1	0	c	Z2	{}	{}" \
	    "30	X	1	1	10	c	C	{}	{}" \
	    "25	X	1	1	5	c	D	{}	{}" \
	    "50	X	1	1	1	c	child	{}	{}" \
	    "50	X	1	1	5	c	parent	{}	{}" \
	    "50	X	1	1	9	c	grandparent	{}	{}"
	run -0 same "$T/s"
	grep -q '^"slice|10000|10000|B|c|0|' "$T/v.pftrace"
	grep -q '^"slice|50000|9000|grandparent|c|0|' "$T/v.pftrace"
	grep -q '^"slice|50000|1000|child|c|2|' "$T/v.pftrace"
}

@test "an epoch that starts with its first sample, thousands of events later" {
	tp_need
	awk 'BEGIN {
		printf "#lt1\n"
		for (i = 0; i < 3000; i++) {
			printf "%d\tX\t1\t1\t5\tsample\tsample\t{\"i\":%d}\t{}\n",
			    1000 + i * 10, i
			printf "%d\tX\t1\t2\t3\tread\tread\t{}\t{}\n", 1000 + i * 10
		}
		printf "1000\tX\t1\t1\t40000\tepoch\tepoch\t{}\t{}\n"
	}' >"$T/s"
	run -0 same "$T/s"
	grep -q '^"slice|1000000|40000000|epoch|epoch|0|' "$T/v.pftrace"
	grep -q '^"slice|1000000|5000|sample|sample|1|' "$T/v.pftrace"
	# A window of 2 events orders it too: the epoch waits with its sample.
	ltproto -w 2 -o "$T/w.pftrace" "$T/s"
	view "$T/w.pftrace" 0 >"$T/w.view"
	cmp "$T/v.pftrace" "$T/w.view"
}

@test "slices that cross go to a track of their own, with their times" {
	tp_need
	lt1 "$T/s" \
	    "0	X	1	1	10	c	A	{}	{}" \
	    "5	X	1	1	10	c	B	{}	{}" \
	    "12	X	1	1	10	c	C	{}	{}" \
	    "11	X	1	1	20	c	D	{}	{}"
	run -0 same "$T/s"
	grep -q '^"slice|5000|10000|B|c|0|moved|1||1"$' "$T/v.pftrace"
}

@test "slices that cross, in no order: each keeps its times" {
	tp_need
	# C crosses A, which came first and was given back to the window
	# when B, after it, came.
	lt1 "$T/s1" \
	    "487	X	1	1	242	c	C	{}	{}" \
	    "1	X	1	1	209	c	B	{}	{}" \
	    "2	X	1	1	1	c	L	{}	{}" \
	    "0	X	1	1	679	c	A	{}	{}"
	run -0 same "$T/s1" nodepth
	grep -q '^"slice|487000|242000|C|c||1||1"$' "$T/v.pftrace"
	# R crosses D, which P enclosed and let go.
	lt1 "$T/s2" \
	    "2	X	1	1	5	c	D	{}	{}" \
	    "1	X	1	1	18	c	P	{}	{}" \
	    "1	X	1	1	5	c	R	{}	{}"
	run -0 same "$T/s2" nodepth
	grep -q '^"slice|1000|5000|R|c||1||1"$' "$T/v.pftrace"
	# Q crosses D, and starts with T, which it encloses.
	lt1 "$T/s3" \
	    "1	X	1	1	5	c	D	{}	{}" \
	    "2	X	1	1	1	c	T	{}	{}" \
	    "2	X	1	1	5	c	Q	{}	{}"
	run -0 same "$T/s3" nodepth
	grep -q '^"slice|2000|5000|Q|c||1||1"$' "$T/v.pftrace"
	# L crosses S, which starts with E, a longer one.
	lt1 "$T/s4" \
	    "0	X	1	1	604	c	E	{}	{}" \
	    "0	X	1	1	5	c	S	{}	{}" \
	    "2	X	1	1	1	c	N	{}	{}" \
	    "2	X	1	1	5	c	L	{}	{}"
	run -0 same "$T/s4" nodepth
	grep -q '^"slice|2000|5000|L|c||1||1"$' "$T/v.pftrace"
}

@test "slices with no name are [No name], as Perfetto's JSON importer says" {
	tp_need
	lt1 "$T/s" \
	    "1	B	1	1	-	c		{}	{}" \
	    "3	E	1	1	-	c		{}	{}" \
	    "4	i	1	1	-	c		{}	{\"s\":\"t\"}" \
	    "5	i	1	1	-	c		{}	{\"s\":\"p\"}" \
	    "7	b	1	1	-	c		{}	{\"id\":1}" \
	    "9	e	1	1	-	c		{}	{\"id\":1}" \
	    "10	X	1	1	2	c		{}	{}" \
	    "11	n	1	1	-	c		{}	{\"id\":2}"
	run -0 same "$T/s"
	[ "$(grep -c '|\[No name\]|' "$T/v.pftrace")" -eq 4 ]
}

@test "M records: the first sort index stands, an empty name is ignored" {
	tp_need
	lt1 "$T/s" \
	    "1	X	1	1	5	c	x	{}	{}" \
	    "-	M	1	1	-		process_name	{\"name\":\"first\"}	{}" \
	    "-	M	1	1	-		process_name	{\"name\":\"last\"}	{}" \
	    "-	M	1	1	-		process_name	{\"name\":\"\"}	{}" \
	    "-	M	1	1	-		process_sort_index	{\"sort_index\":3}	{}" \
	    "-	M	1	1	-		process_sort_index	{\"sort_index\":5}	{}" \
	    "-	M	1	1	-		thread_name	{\"name\":\"t\"}	{}" \
	    "-	M	1	1	-		thread_sort_index	{\"sort_index\":-2}	{}" \
	    "-	M	1	1	-		thread_sort_index	{\"sort_index\":2}	{}"
	# Perfetto's JSON importer fails the empty name; the .pftrace has
	# no error.
	run -0 same "$T/s"
	errors "$T/t.json" | grep -q '^"json_parser_failure",1$'
	grep -q '^"process|1|last|process_sort_index_hint=3"$' "$T/v.pftrace"
	grep -q '^"thread|1|t|1|thread_sort_index_hint=-2"$' "$T/v.pftrace"
}

@test "interned strings start again past -i, and the trace is the same" {
	tp_need
	"$TOP/tests/gen/genlog" -n 2000 -s 4 | ltparse | ltpair | ltlanefix -q >"$T/s"
	ltproto -o "$T/a.pftrace" "$T/s"
	ltproto -i 3 -o "$T/b.pftrace" "$T/s"
	view "$T/a.pftrace" 0 nodepth >"$T/a.view"
	view "$T/b.pftrace" 0 nodepth >"$T/b.view"
	[ -s "$T/a.view" ]
	cmp "$T/a.view" "$T/b.view"
	run -0 errors "$T/b.pftrace"
	[ -z "$output" ]
	# Each start again is a packet that clears the state (68 03).
	[ "$(od -An -tx1 -v "$T/b.pftrace" | tr -d ' \n' | grep -o '50..6803' |
	    wc -l)" -gt 10 ]
}

@test "200 names on one thread: each defined once on its sequence, past the first 63 too, and each imports" {
	tp_need
	# Two passes over 200 names: the second only names their iids.
	awk 'BEGIN { print "#lt1"; for (k = 0; k < 2; k++)
		for (i = 0; i < 200; i++)
			printf "%d\tX\t1\t1\t5\tc\tname%03dx\t{}\t{}\n", (k * 200 + i) * 10, i
	}' >"$T/s"
	ltproto -o "$T/t.pftrace" "$T/s"
	# a thread's first 16 events are on its process's sequence (its
	# names defined there too), the others on its own
	for i in 000 015 016 063 064 127 128 199; do
		n=$(grep -ao "name${i}x" "$T/t.pftrace" | wc -l)
		[ "$n" -eq "$((10#$i < 16 ? 2 : 1))" ]
	done
	run -0 tp_query "$T/t.pftrace" "select count(distinct name), count(*), sum(name = 'name150x') from slice"
	[ "$output" = '200,400,2' ]
	# and again from the start past -i 100: each twice, once a start
	ltproto -i 100 -o "$T/i.pftrace" "$T/s"
	[ "$(grep -ao "name150x" "$T/i.pftrace" | wc -l)" -eq 2 ]
	view "$T/t.pftrace" 0 nodepth >"$T/t.view"
	view "$T/i.pftrace" 0 nodepth >"$T/i.view"
	cmp "$T/t.view" "$T/i.view"
}

@test "a name, category and arg key met again are defined on each sequence and after each start again" {
	# 100 threads, 20 records each, of one name, category and key: a
	# thread's first 16 are on its process's sequence, then on its own,
	# past sequence 63 too; each sequence defines each string once.
	awk 'BEGIN { print "#lt1"; for (k = 0; k < 20; k++)
		for (t = 1; t <= 100; t++)
			printf "%d\tX\t1\t%d\t5\tcatzz\tnamezz\t%s\t{}\n",
			    (k * 100 + t) * 10, t, "{\"keyzz\":" k ",\"w\":1}"
	}' >"$T/s"
	ltproto -o "$T/t.pftrace" "$T/s"
	for s in namezz catzz keyzz; do
		[ "$(grep -ao "$s" "$T/t.pftrace" | wc -l)" -eq 101 ]
	done
	# One thread, a new key in each record: past -i 3 every second
	# record starts again (name, category, key, then one key more), and
	# each of the 20 starts defines the name anew.
	awk 'BEGIN { print "#lt1"; for (k = 0; k < 40; k++)
		printf "%d\tX\t1\t1\t5\tcatzz\tnamezz\t{\"key%02d\":1}\t{}\n",
		    k * 10, k
	}' >"$T/s"
	ltproto -i 3 -o "$T/t.pftrace" "$T/s"
	[ "$(grep -ao namezz "$T/t.pftrace" | wc -l)" -eq 20 ]
	# A key learnt on every thread's sequence, then another in its
	# place: the new one is defined on each of them all the same.
	awk 'BEGIN { print "#lt1"; for (k = 0; k < 40; k++)
		for (t = 1; t <= 100; t++)
			printf "%d\tX\t1\t%d\t5\tc\tn\t{\"%s\":%d,%s}\t{}\n",
			    (k * 100 + t) * 10, t, k < 30 ? "keyaa" : "keybb", k,
			    "\"w\":1"
	}' >"$T/s"
	ltproto -o "$T/t.pftrace" "$T/s"
	[ "$(grep -ao keyaa "$T/t.pftrace" | wc -l)" -eq 101 ]
	[ "$(grep -ao keybb "$T/t.pftrace" | wc -l)" -eq 100 ]
}

@test "a ts before 0 is left out, said, and exit 1" {
	tp_need
	lt1 "$T/s" "-5	X	1	1	2	c	neg	{}	{}" "5	X	1	1	2	c	pos	{}	{}"
	run -1 --separate-stderr ltproto -o "$T/t.pftrace" "$T/s"
	[[ "$stderr" == "ltproto: 1 events before time 0"* ]]
	run -0 tp_query "$T/t.pftrace" "select name from slice"
	[ "$output" = '"pos"' ]
}

@test "a .pftrace is a third of the JSON or less, from a LitData log" {
	"$TOP/tests/gen/genlog" -n 20000 | ltparse | ltpair | ltlanefix -q >"$T/s"
	ltjson "$T/s" >"$T/t.json"
	ltproto -o "$T/t.pftrace" "$T/s"
	j=$(wc -c <"$T/t.json")
	p=$(wc -c <"$T/t.pftrace")
	[ $((p * 3)) -le "$j" ]
}

# The chain on generated logs of every format and level, with ltlanefix
# (the default chain) and without it, and on generated Kineto traces.
@test "generated logs of every format: the same in Perfetto as the JSON" {
	tp_need
	# the chain of litracer(1): with ltstat's waits, flows and counters
	for f in new old v1 mixed; do
		"$TOP/tests/gen/genlog" -n 4000 -f "$f" -s 9 | ltparse | ltpair |
		    ltlanefix -q | ltstat -t >"$T/$f.lt"
		grep -q '	C	' "$T/$f.lt"
		same "$T/$f.lt" || { echo "format $f"; return 1; }
	done
}

@test "generated logs of every tracer level: the same in Perfetto" {
	tp_need
	for l in batch chunk sample debug; do
		"$TOP/tests/gen/genlog" -n 3000 -l "$l" -s 5 | ltparse | ltpair |
		    ltlanefix -q >"$T/$l.lt"
		same "$T/$l.lt" || { echo "level $l"; return 1; }
	done
	# off: no event at all, an empty trace both ways
	"$TOP/tests/gen/genlog" -n 3000 -l off -s 5 | ltparse 2>/dev/null |
	    ltpair | ltlanefix -q >"$T/off.lt"
	ltproto -o "$T/off.pftrace" "$T/off.lt"
	[ "$(tp_query "$T/off.pftrace" 'select count(*) from slice')" -eq 0 ]
}

@test "without ltlanefix (crossing spans), and as B and E: same slices" {
	tp_need
	for f in new old v1 mixed; do
		"$TOP/tests/gen/genlog" -n 4000 -f "$f" -s 7 | ltparse | ltpair \
		    >"$T/$f.lt"
		same "$T/$f.lt" nodepth || { echo "no lanefix $f"; return 1; }
		"$TOP/tests/gen/genlog" -n 4000 -f "$f" -s 7 | ltparse |
		    ltpair -k >"$T/$f.be"
		# B and E that cross: Perfetto loses the same ends of both
		same "$T/$f.be" "" errors || { echo "B/E $f"; return 1; }
	done
}

@test "generated Kineto-like traces: the same in Perfetto as the JSON" {
	tp_need
	for f in kineto stair; do
		"$TOP/tests/gen/gentrace" -f "$f" -n 3000 | ltparse | ltpair |
		    ltlanefix -q >"$T/$f.lt"
		same "$T/$f.lt" || { echo "gentrace -f $f"; return 1; }
	done
	# Slices in no order: some go to tracks of their own, with their times.
	"$TOP/tests/gen/gentrace" -f dense -n 3000 | ltparse | ltpair |
	    ltlanefix -q >"$T/dense.lt"
	same "$T/dense.lt" nodepth
	# Crossings left in, Kineto's order: the same slices on each thread.
	"$TOP/tests/gen/gentrace" -n 3000 -x 40 | ltparse | ltpair >"$T/x.lt"
	same "$T/x.lt" nodepth
}

@test "ltcheck knows a .pftrace from JSON: packets counted, damage exit 1" {
	lt1 "$T/s" "1	X	1	1	2	c	n	{\"a\":1}	{}" \
	    "-	M	1	0	-		process_name	{\"name\":\"p\"}	{}"
	ltproto -o "$T/t.pftrace" "$T/s"
	run -0 ltcheck "$T/t.pftrace"
	[[ "${lines[0]}" == "$T/t.pftrace: Perfetto protobuf trace, "*" bytes, "*" packets: 2 track events, 2 track descriptors, 1 with interned data" ]]
	run -0 ltcheck -q "$T/t.pftrace"
	[ -z "$output" ]
	head -c 60 "$T/t.pftrace" >"$T/cut.pftrace"
	run -1 --separate-stderr ltcheck -q "$T/cut.pftrace"
	[[ "$stderr" == "ltcheck: $T/cut.pftrace: Perfetto protobuf trace, not well-formed after "* ]]
	# JSON that starts with a newline is still JSON
	printf '\n{"traceEvents":[]}\n' >"$T/nl.json"
	run -0 ltcheck "$T/nl.json"
	[[ "${lines[0]}" == "$T/nl.json: JSON object form"* ]]
}

@test "-S: the counters of ltjson -S, under ltproto, with what was left out" {
	"$TOP/tests/gen/genlog" -n 3000 | ltparse | ltpair | ltstat -t >"$T/s"
	printf '1\tQ\t1\t1\t-\tc\tn\t{}\t{}\n' >>"$T/s"
	ltjson -O 0 -S "$T/j.stats" "$T/s" >/dev/null
	ltproto -S "$T/p.stats" -o "$T/t.pftrace" "$T/s"
	# the stages' lines, the time and the span per category: the same
	diff <(grep -v '^#stat	ltjson' "$T/j.stats") \
	    <(grep -v '^#stat	ltproto' "$T/p.stats")
	grep -q '^#span	sample	' "$T/p.stats"
	j=$(grep '^#stat	ltjson' "$T/j.stats" | cut -f3-12)
	p=$(grep '^#stat	ltproto' "$T/p.stats" | cut -f3-12)
	[ "$p" = "$j" ]
	[[ "$p" == events=*"	other=1	processes="* ]]
	grep -q '^#stat	ltproto	.*	negative=0	negdur=0	nots=0	unsupported=1	' "$T/p.stats"
	# a ts before 0: left out, counted, exit 1, the file written still
	printf '#lt1\n-5\ti\t1\t1\t-\tc\tn\t{}\t{}\n' >"$T/n"
	run -1 ltproto -S "$T/n.stats" -o "$T/n.pftrace" "$T/n"
	grep -q '^#stat	ltproto	events=1	.*	negative=1	negdur=0	' "$T/n.stats"
	# a negative dur: left out as Perfetto drops it, not an error
	printf '#lt1\n5\tX\t1\t1\t-3\tc\tn\t{}\t{}\n' >"$T/d"
	run -0 --separate-stderr ltproto -S "$T/d.stats" -o "$T/d.pftrace" "$T/d"
	[ "$stderr" = "ltproto: 1 X events with a negative dur left out, as Perfetto drops them" ]
	grep -q '^#stat	ltproto	events=1	.*	negative=0	negdur=1	' "$T/d.stats"
}

@test "ltproto -o: bad input (exit 1) leaves the file as it was; a good one replaces it, its mode kept, through a symbolic link" {
	lt1 "$T/good" $'1\tX\t1\t1\t1\tc\tn\t{}\t{}'
	cp "$T/good" "$T/bad"
	printf '2\tX\t1\n' >>"$T/bad"
	echo "previous trace" >"$T/t.pftrace"
	chmod 640 "$T/t.pftrace"
	run -1 --separate-stderr ltproto -o "$T/t.pftrace" "$T/bad"
	[ "$stderr" = "ltproto: $T/bad:3: expected 9 columns, found 3" ]
	[ "$(cat "$T/t.pftrace")" = "previous trace" ]
	# nothing else is left beside it
	[ "$(ls -A "$T" | grep -c pftrace)" -eq 1 ]
	ln -s t.pftrace "$T/link.pftrace"
	ltproto -o "$T/link.pftrace" "$T/good"
	[ -L "$T/link.pftrace" ]
	ltproto "$T/good" | cmp - "$T/t.pftrace"
	[ "$(stat -c %a "$T/t.pftrace")" = 640 ]
	[ "$(ls -A "$T" | grep -c pftrace)" -eq 2 ]
	# what is not a regular file is written in place
	ltproto -o /dev/null "$T/good"
}

# A long job: workers come and go, each with its threads, whose tracks
# ltproto packs when they are left alone a while (roots.c) and unpacks
# when one has more to say; the packets they held come out at the end.
@test "a long job (threads that come and go): the same in Perfetto as the JSON" {
	tp_need
	"$TOP/tests/gen/genlog" -n 100000 -e 40 -w 4 -r 2 -a async -s 3 |
	    ltparse | ltpair | ltlanefix -q | ltstat -t >"$T/long.lt"
	same "$T/long.lt"
}

# cold FILE: 8000 threads of one slice each, then 27000 slices of one
# thread: the 8000 tracks are left alone long enough to be packed, more
# than 256 KiB of them.
cold() {
	awk 'BEGIN { print "#lt1"; ts = 1000
		for (t = 1; t <= 8000; t++) { ts += 1.5
			printf "%.2f\tX\t%d\t%d\t1\tread\tread\t{\"chunk\":%d}\t{}\n", ts, 100 + int(t / 4), t, t }
		for (i = 0; i < 27000; i++) { ts += 1.5
			printf "%.2f\tX\t7\t7\t1\tstep\tstep\t{}\t{}\n", ts }
	}' > "$1"
}

@test "ltproto: tracks left alone go to a temporary file, deleted at once; without one the trace is the same, said once" {
	cold "$T/cold.lt1"
	mkdir "$T/tmp"
	TMPDIR=$T/tmp ltproto -o "$T/disk.pftrace" "$T/cold.lt1" 2>"$T/err"
	[ ! -s "$T/err" ]
	[ -z "$(ls -A "$T/tmp")" ]
	# no file can be made: in memory, and said
	run -0 --separate-stderr env TMPDIR="$T/none" ltproto -o "$T/mem.pftrace" "$T/cold.lt1"
	[ "$stderr" = "ltproto: cannot make a temporary file in $T/none (TMPDIR): No such file or directory; the tracks it holds stay in memory" ]
	cmp "$T/disk.pftrace" "$T/mem.pftrace"
	# the file cannot grow past 16 KiB: some tracks on disk, the rest
	# in memory (SIGXFSZ ignored, so that the write fails)
	run -0 --separate-stderr bash -c '(trap "" XFSZ; ulimit -f 16; TMPDIR=$1 exec ltproto "$2") | cat > "$3"' sh "$T/tmp" "$T/cold.lt1" "$T/part.pftrace"
	[ "$stderr" = "ltproto: cannot write a temporary file in $T/tmp (TMPDIR): File too large; the tracks it holds stay in memory" ]
	cmp "$T/disk.pftrace" "$T/part.pftrace"
}
