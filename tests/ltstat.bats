#!/usr/bin/env bats
# ltstat: the report (hand-made figures, every log generation, partial
# logs), the records of -t, and what Perfetto's own importer makes of a
# trace with them.

bats_require_minimum_version 1.5.0
load helper

D=$DATA/ltstat
HAND=$D/hand.lt1

# jcheck FILE: each line of standard input, but blank lines and
# comments (#), is EXPR ==> WANT: EXPR evaluated by node on the JSON
# object o of FILE, printed as jget prints it, must be WANT.  One node
# for them all; each line that differs is shown.
jcheck() {
	need node
	node -e 'const fs = require("fs");
		const o = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
		let bad = 0;
		for (const l of fs.readFileSync(0, "utf8").split("\n")) {
			if (/^\s*(#|$)/.test(l))
				continue;
			const i = l.indexOf(" ==> "), e = l.slice(0, i).trim();
			if (i < 0) {
				console.log("no \" ==> \" in: " + l);
				bad = 1;
				continue;
			}
			const want = l.slice(i + 5), v = eval(e);
			const got = typeof v === "object" ? JSON.stringify(v) : String(v);
			if (got !== want) {
				console.log(e + ": " + got + ", not " + want);
				bad = 1;
			}
		}
		process.exit(bad)' "$1"
}

# tpq TRACE SQL: tp_query without the quotes of strings.
tpq() {
	tp_query "$1" "$2" | tr -d '"'
}

# chain LOG OUT [ltstat -t options]: the default chain with ltstat -t,
# the report as JSON in OUT.report.
chain() {
	local log=$1 out=$2
	shift 2
	ltparse "$log" | ltpair | ltlanefix -q |
	    ltstat -t -j -o "$out.report" "$@" | ltjson > "$out"
}

@test "ltstat: -h prints the usage and options, and the man page agrees" {
	run -0 ltstat -h
	[ "${lines[0]}" = "usage: ltstat [-chjt] [-d name] [-J file] [-m pct] [-n count] [-o file] [-x parts] [file ...]" ]
	[[ $output == *"--json"* ]]
	[[ $output == *"--trace"* ]]
	[[ $output == *"--exclude"* ]]
	[[ $output == *"--compare"* ]]
	[[ $output == *"--max-wait-share"* ]]
	need mandoc
	[ "usage: $(synopsis ltstat)" = "${lines[0]}" ]
}

@test "ltstat: usage errors exit 2" {
	run -2 --separate-stderr ltstat -q
	[[ ${stderr_lines[-1]} == "usage: ltstat "* ]]
	run -2 --separate-stderr ltstat -n 101 "$HAND"
	[ "$stderr" = "ltstat: -n 101: too large" ]
	run -2 --separate-stderr ltstat -t -x waits,bogus "$HAND"
	[ "$stderr" = "ltstat: -x waits,bogus: not waits, share, flows or counters" ]
	run -2 --separate-stderr ltstat -o "$BATS_TEST_TMPDIR/no/such/dir" "$HAND"
	[[ $stderr == "ltstat: $BATS_TEST_TMPDIR/no/such/dir: No such file"* ]]
	[ -z "$output" ]
	run -2 --separate-stderr ltstat "$BATS_TEST_TMPDIR/missing.lt1"
	[[ $stderr == "ltstat: $BATS_TEST_TMPDIR/missing.lt1"* ]]
}

@test "ltstat: bad data exits 1 with file and line, and no report" {
	f=$BATS_TEST_TMPDIR/bad.lt1
	printf 'ts:1;PID:1; TID:1; name: x;ph: B;\n' > "$f"
	run -1 --separate-stderr ltstat "$f"
	[ "$stderr" = "ltstat: $f:1: not an lt1 stream: missing #lt1 header (a log or a trace is read by ltparse, or converted by litracer)" ]
	[ -z "$output" ]
	printf '#lt1\n1\tX\t1\t1\t2\tbatch\tbatch\t{}\t{}\n1.5e3\tX\t1\t1\t2\tbatch\tbatch\t{}\t{}\n' > "$f"
	run -1 --separate-stderr ltstat "$f"
	[ "$stderr" = "ltstat: $f:3: column ts: not microseconds (-?D+ with at most 3 decimals) or -" ]
	[ -z "$output" ]
	printf '#lt1\n1\tX\t1\t1\t2\tread\tread\t{"chunk":1,}\t{}\n' > "$f"
	run -1 --separate-stderr ltstat "$f"
	[[ $stderr == "ltstat: $f:2: column args: "* ]]
	printf '#lt1\n1\tX\t1\t1\tlong\tread\tread\t{}\t{}\n' > "$f"
	run -1 --separate-stderr ltstat "$f"
	[ "$stderr" = "ltstat: $f:2: column dur: not microseconds (-?D+ with at most 3 decimals) or -" ]
	printf '#lt1\n1\tX\t1.5\t1\t2\tread\tread\t{}\t{}\n' > "$f"
	run -1 --separate-stderr ltstat "$f"
	[ "$stderr" = "ltstat: $f:2: column pid: not an integer, a JSON string or -" ]
	printf '#lt1\n1\tX\t1\t1\t2\tre"ad\tread\t{}\t{}\n' > "$f"
	run -1 --separate-stderr ltstat "$f"
	[ "$stderr" = "ltstat: $f:2: column cat: not JSON string contents" ]
	printf '#lt2\n' > "$f"
	run -1 --separate-stderr ltstat -t "$f"
	[ "$stderr" = "ltstat: $f:1: unsupported stream version \"#lt2\"" ]
}

# The hand-made stream: one rank (pid 10), one worker (pid 11), two
# epochs; times in µs.  Epoch 1 [1000, 11000): batches 0 [3000, 4000),
# 1 [4500, 5500), 2 [5500, 7500), 3 [9000, 9500); epoch 2 [12000, 15000),
# left open: batches 0 [12500, 12800), 2 [13000, 13200) (batch 1 is not in
# the stream), 3 at 13300, left open.  Chunk 7: download [1500, 2500), read
# [1200, 5200), delete [6000, 6010); chunk 8: download [2600, 5600), read
# [5200, 9200), delete [9500, 9510).
@test "ltstat: the figures of a hand-made stream, computed by hand" {
	need node
	ltstat -j "$HAND" > "$BATS_TEST_TMPDIR/r.json"
	r=$BATS_TEST_TMPDIR/r.json
	jcheck "$r" <<-'EOF'
	o.ranks.length ==> 1
	[o.ranks[0].rank, o.ranks[0].pid] ==> [0,10]
	# Batches: 4 + 3, one left open; compute 1000+1000+2000+500+300+200+0.
	o.ranks[0].batches ==> 7
	o.ranks[0].open_batches ==> 1
	o.ranks[0].compute_us ==> 5000
	# Waits: 3000-1000, 4500-4000, 9000-7500; 12500-12000, 13300-13200;
	# none between batch 0 and 2 of epoch 2 (1 is missing).
	o.ranks[0].wait_us ==> 4600
	o.ranks[0].waits ==> 5
	o.ranks[0].wait_share ==> 0.4792
	o.ranks[0].epochs.map(e => [e.epoch, e.ts_us, e.dur_us, e.open, e.batches, e.compute_us, e.wait_us, e.first_wait_us]) ==> [[1,1000,10000,false,4,4500,4000,2000],[2,12000,3000,true,3,500,600,500]]
	# The longest first; ties in the order they were found.
	o.ranks[0].longest_waits.map(w => [w.epoch, w.batch, w.ts_us, w.at_us, w.dur_us]) ==> [[1,0,1000,0,2000],[1,3,7500,6500,1500],[1,1,4000,3000,500],[2,0,12000,11000,500],[2,3,13200,12200,100]]
	# In flight during [1000, 3000): both downloads and the read of 7;
	# during [7500, 9000): the read of 8 only.
	o.ranks[0].longest_waits[0].in_flight.map(i => i.kind + " " + i.chunk) ==> ["download 7","download 8","read 7"]
	o.ranks[0].longest_waits[1].in_flight.map(i => i.pid + " " + i.kind + " " + i.chunk) ==> ["11 read 8"]
	o.ranks[0].longest_waits[3].in_flight.length ==> 0
	# Categories: batch durations 0 200 300 500 1000 1000 2000 (nearest
	# rank: p50 is the 4th, p95 and p99 the 7th); waits 100 500 500 1500
	# 2000; the crash instant counts with no duration.
	Object.keys(o.categories).join() ==> batch,crash,delete,download,epoch,read,wait
	o.categories.batch ==> {"count":7,"total_us":5000,"p50_us":500,"p95_us":2000,"p99_us":2000,"max_us":2000,"exact":true}
	o.categories.wait ==> {"count":5,"total_us":4600,"p50_us":500,"p95_us":2000,"p99_us":2000,"max_us":2000,"exact":true}
	[o.categories.epoch.count, o.categories.epoch.total_us, o.categories.epoch.p50_us, o.categories.epoch.p95_us] ==> [2,13000,3000,10000]
	[o.categories.download.total_us, o.categories.read.total_us, o.categories.delete.total_us, o.categories.crash.count] ==> [4000,8000,20,1]
	# The worker: chunks 7 and 8 both held in [5600, 6010); one download
	# at a time.
	o.workers ==> [{"rank":0,"worker":0,"pid":11,"downloaded":2,"gathered":0,"unfinished":0,"read":2,"deleted":2,"download_mean_us":2000,"read_mean_us":4000,"held_max":2,"downloading_max":1}]
	o.slowest_chunks.map(c => [c.chunk, c.ts_us, c.download_us, c.read_us]) ==> [[8,2600,3000,4000],[7,1500,1000,4000]]
	[o.t0_us, o.spans, o.open, o.crashes] ==> [1000,15,2,1]
	EOF
}

@test "ltstat: golden: the text report of the hand-made stream" {
	golden "$D/hand.txt" ltstat "$HAND"
}

@test "ltstat: -t passes the stream on and adds waits, flows and counters, as computed by hand" {
	ltstat -t "$HAND" > "$BATS_TEST_TMPDIR/t.lt1"
	t=$BATS_TEST_TMPDIR/t.lt1
	# Every line of the input, in its order; the header once.
	[ "$(head -n 1 "$t")" = "#lt1" ]
	grep -v -F -x -f "$t" "$HAND" && false
	diff <(tail -n +2 "$HAND") <(grep -F -x -f "$HAND" "$t" | tail -n +2)
	# The waits, on tid 1000 * 1 + 999 of the rank's process, each with
	# its split by cause (verdict.bats tests the split): the first of an
	# epoch when the epoch's span ends, the others once a second of the
	# stream has passed them, or at its end.
	[ "$(awk -F '\t' '$7 == "data wait" && $2 == "X" { print $1, $3, $4, $5, $6, $8 }' "$t")" = \
	"1000 10 1999 2000 wait {\"batch\":0,\"epoch\":1,\"cause\":\"download\",\"startup_us\":200,\"download_us\":1000,\"read_us\":800}
12000 10 1999 500 wait {\"batch\":0,\"epoch\":2,\"cause\":\"idle\",\"idle_us\":500}
4000 10 1999 500 wait {\"batch\":1,\"epoch\":1,\"cause\":\"read\",\"read_us\":500}
7500 10 1999 1500 wait {\"batch\":3,\"epoch\":1,\"cause\":\"read\",\"read_us\":1500}
13200 10 1999 100 wait {\"batch\":3,\"epoch\":2,\"cause\":\"idle\",\"idle_us\":100}" ]
	# Flows: s at the start of the slice that starts first, f at the
	# other's: the read of chunk 7 began before its download.  The
	# chunk on the s alone (trace-viewer warns for an arg on both).
	[ "$(awk -F '\t' '$2 == "s" || $2 == "f" { print $2, $1, $3, $4, $8, $9 }' "$t")" = \
	"s 1200 11 1 {\"chunk\":7} {\"id\":1}
f 1500 11 2 {} {\"bp\":\"e\",\"id\":1}
s 1200 11 1 {\"chunk\":7} {\"id\":2}
f 6000 11 2 {} {\"bp\":\"e\",\"id\":2}
s 2600 11 2 {\"chunk\":8} {\"id\":3}
f 5200 11 1 {} {\"bp\":\"e\",\"id\":3}
s 5200 11 1 {\"chunk\":8} {\"id\":4}
f 9500 11 2 {} {\"bp\":\"e\",\"id\":4}" ]
	# Counters of the worker, in time order; the share per second of the
	# rank: 4000 / (4000 + 4500), then 600 / (600 + 500), and 0 after the
	# last closed batch of each epoch.
	[ "$(awk -F '\t' '$2 == "C" && $3 == 11 { print $1, $8 }' "$t" | tr '\n' ' ')" = \
	    '1500 {"downloading":1} 1500 {"in cache":0} 2500 {"downloading":0} 2500 {"in cache":1} 2600 {"downloading":1} 5600 {"downloading":0} 5600 {"in cache":2} 6010 {"in cache":1} 9510 {"in cache":0} ' ]
	[ "$(awk -F '\t' '$2 == "C" && $3 == 10 { print $1, $8 }' "$t" | tr '\n' ' ')" = \
	    '1000 {"share":0.471} 9500 {"share":0} 12000 {"share":0.545} 13200 {"share":0} ' ]
	# The wait track is named after the main thread and sorts with it.
	grep -qxF -e "$(printf -- '-\tM\t10\t1999\t-\t\tthread_name\t{"name":"main 1407 data wait"}\t{}')" "$t"
	grep -qxF -e "$(printf -- '-\tM\t10\t1999\t-\t\tthread_sort_index\t{"sort_index":1}\t{}')" "$t"
	[ "$(tail -n 1 "$t")" = "$(printf '#stat\tltstat\twaits=5\tflows=4\tcounters=13\tranks=1\tspans=15\topen=2')" ]
	# No report without -o.
	ltstat -t -o "$BATS_TEST_TMPDIR/r.txt" "$HAND" | cmp - "$t"
	ltstat "$HAND" | cmp - "$BATS_TEST_TMPDIR/r.txt"
	# -J: the JSON report too, whatever -o writes.
	ltstat -t -o "$BATS_TEST_TMPDIR/r2.txt" -J "$BATS_TEST_TMPDIR/r.json" "$HAND" | cmp - "$t"
	cmp "$BATS_TEST_TMPDIR/r.txt" "$BATS_TEST_TMPDIR/r2.txt"
	ltstat -j "$HAND" | cmp - "$BATS_TEST_TMPDIR/r.json"
	ltstat -J "$BATS_TEST_TMPDIR/r3.json" "$HAND" | cmp - "$BATS_TEST_TMPDIR/r.txt"
	cmp "$BATS_TEST_TMPDIR/r.json" "$BATS_TEST_TMPDIR/r3.json"
}

@test "ltstat -t: the wait track takes the last name and sort index its main thread was given, however many names the others were given" {
	t=$BATS_TEST_TMPDIR/named.lt1
	# hand.lt1, then the main thread renamed (longer, then shorter, and
	# shorter again) among 6000 names of 2000 other threads
	{
		cat "$HAND"
		awk 'BEGIN {
			n[1] = "the main thread of rank 0, named again"
			n[2] = "main, at last"
			n[3] = "m0"
			for (i = 1; i <= 6000; i++) {
				printf "-\tM\t12\t%d\t-\t\tthread_name\t{\"name\":\"worker %d %0" int(i / 100) + 1 "d\"}\t{}\n", i % 2000 + 1, i, i
				if (i % 2000 == 0)
					printf "-\tM\t10\t1\t-\t\tthread_name\t{\"name\":\"%s\"}\t{}\n", n[i / 2000]
			}
			printf "-\tM\t10\t1\t-\t\tthread_sort_index\t{\"sort_index\":-12345678901}\t{}\n"
		}'
	} > "$t"
	ltstat -t -o /dev/null "$t" > "$t.out"
	grep -qxF -e "$(printf -- '-\tM\t10\t1999\t-\t\tthread_name\t{"name":"m0 data wait"}\t{}')" "$t.out"
	grep -qxF -e "$(printf -- '-\tM\t10\t1999\t-\t\tthread_sort_index\t{"sort_index":-12345678901}\t{}')" "$t.out"
	# and what else it writes is what it writes without them
	ltstat -t -o /dev/null "$HAND" | grep -v 'data wait"}\|sort_index' > "$t.hand"
	grep -v '	M	12	\|data wait"}\|sort_index\|	M	10	1	' "$t.out" > "$t.rest"
	grep -v '	M	10	1	' "$t.hand" | cmp - "$t.rest"
}

@test "ltstat -t: a worker left alone while 140000 records of others go by writes its flows and counters as it would have" {
	t=$BATS_TEST_TMPDIR/quiet.lt1
	# hand.lt1, 140000 spans of another process (two sweeps of 65536)
	# between the worker's second download and the delete of its chunk:
	# it sleeps, its chunks and counter changes packed, and wakes
	awk -F '\t' '{ print }
	    /^2600\tX\t11\t2\t/ { for (i = 0; i < 140000; i++)
		printf "%d\tX\t99\t1\t1\tstep\tstep\t{}\t{}\n", 2700 + i % 1000 }' "$HAND" > "$t"
	[ "$(wc -l < "$t")" -eq $(($(wc -l < "$HAND") + 140000)) ]
	ltstat -t -o /dev/null "$HAND" | grep -v '^#stat' > "$t.hand"
	ltstat -t -o /dev/null "$t" | grep -v '^#stat' | awk -F '\t' '$3 != 99' > "$t.out"
	cmp "$t.hand" "$t.out"
	# what it wrote of the worker: its flows and counters (see above)
	[ "$(awk -F '\t' '$2 == "C" && $3 == 11' "$t.out" | wc -l)" -eq 9 ]
	[ "$(awk -F '\t' '($2 == "s" || $2 == "f") && $3 == 11' "$t.out" | wc -l)" -eq 8 ]
}

@test "ltstat -t: the threads of a worker asleep leave the table, are named where they are packed, and come back as they were" {
	need node
	local T=$BATS_TEST_TMPDIR
	# Three workers of rank 1 (pids 20, 21, 22, 23), and with sweep=N,
	# spans of process 99 so that sweeps (every 65536 records) fall:
	# - at 65536, before 20, 22 and 23 download again: nobody sleeps;
	# - at 131072, right after a name of 21's thread 2 (the last thread
	#   looked up) and before that thread reads a chunk its thread 4
	#   downloaded: 21 sleeps, its two threads packed, and wakes;
	# - at 196608: 20, 22 and 23 sleep.  Then 20's threads are named
	#   asleep (in the pack) and 20 becomes rank 1's main process: its
	#   wait track takes thread 3's name and sort index, and its tid is
	#   one of 20's, which a main process keeps to the end; 22 is asleep
	#   when a thread it never had is named; 23 sleeps to the end.
	cat > "$T/gen.awk" <<-'EOF'
	function fill(n) {
		while (sweep && rec < n) {
			printf "%d\tX\t99\t1\t1\tstep\tstep\t{}\t{}\n", 2700 + rec % 1000
			rec++
		}
	}
	function x(ts, pid, tid, dur, cat, args) {
		printf "%d\tX\t%d\t%d\t%d\t%s\t%s\t{%s}\t{}\n", ts, pid, tid, dur, cat, cat, args
		rec++
	}
	function m(pid, tid, name, args) {
		printf "-\tM\t%d\t%d\t-\t\t%s\t{%s}\t{}\n", pid, tid, name, args
		rec++
	}
	function io(ts, pid, tid, dur, cat, chunk) {
		x(ts, pid, tid, dur, cat, "\"chunk\":" chunk \
		    (cat == "read" ? ",\"size\":10" : "") \
		    ",\"dist_global_rank\":1,\"worker_rank\":" pid - 20)
	}
	BEGIN {
		printf "#lt1\n#t0\t1000\n"
		io(1000, 20, 2, 500, "download", 1)
		io(1200, 20, 3, 600, "read", 1)
		io(1300, 22, 2, 400, "download", 5)
		io(1310, 23, 2, 400, "download", 6)
		io(1100, 21, 2, 500, "download", 2)
		io(1150, 21, 4, 500, "download", 3)
		fill(sweep - 1)
		io(1400, 20, 2, 10, "download", 7)
		io(1400, 22, 2, 10, "download", 8)
		io(1400, 23, 2, 10, "download", 9)
		fill(2 * sweep - 2)
		m(21, 2, "thread_name", "\"name\":\"dl 21\"")
		io(2100, 21, 2, 300, "read", 3)
		fill(3 * sweep)
		m(20, 3, "thread_name", "\"name\":\"loader 3\"")
		m(20, 3, "thread_sort_index", "\"sort_index\":7")
		m(20, 2, "thread_name", "\"name\":\"dl 2\"")
		m(22, 6, "thread_name", "\"name\":\"new 6\"")
		m(22, 2, "thread_name", "\"name\":\"dl 22\"")
		b = "\"epoch\":1,\"dist_global_rank\":1"
		x(5000, 20, 3, 100, "batch", "\"batch\":0," b)
		x(5400, 20, 3, 100, "batch", "\"batch\":1," b)
		io(7000, 22, 6, 100, "read", 5)
		io(7100, 21, 4, 100, "read", 2)
		m(20, 3999, "thread_name", "\"name\":\"in the way\"")
	}
	EOF
	awk -f "$T/gen.awk" > "$T/a.lt1"
	awk -v sweep=65536 -f "$T/gen.awk" > "$T/b.lt1"
	[ "$(awk -F '\t' '$3 == 99' "$T/b.lt1" | wc -l)" -eq 196597 ]
	ltstat -t -J "$T/a.json" -o /dev/null "$T/a.lt1" > "$T/a.out"
	ltstat -t -J "$T/b.json" -o /dev/null "$T/b.lt1" |
	    awk -F '\t' '$3 != 99' > "$T/b.out"
	# what it writes of them is what it writes when nobody sleeps
	diff "$T/a.out" "$T/b.out" | grep '^[<>]' > "$T/d" || true
	[ "$(tr '\t\n' ' ;' < "$T/d")" = '< #stat ltstat waits=1 flows=4 counters=30 ranks=1 spans=14 open=0;> #stat ltstat waits=1 flows=4 counters=30 ranks=1 spans=196611 open=0;' ]
	grep -qxF -e "$(printf '1150\ts\t21\t4\t-\tflow\tchunk\t{"chunk":3}\t{"id":2}')" "$T/b.out"
	grep -qxF -e "$(printf '2100\tf\t21\t2\t-\tflow\tchunk\t{}\t{"bp":"e","id":2}')" "$T/b.out"
	grep -qxF -e "$(printf '1300\ts\t22\t2\t-\tflow\tchunk\t{"chunk":5}\t{"id":3}')" "$T/b.out"
	grep -qxF -e "$(printf '7000\tf\t22\t6\t-\tflow\tchunk\t{}\t{"bp":"e","id":3}')" "$T/b.out"
	# 23's counters, written from its pack at the end, on its thread 2
	[ "$(awk -F '\t' '$2 == "C" && $3 == 23 { print $4 }' "$T/b.out" | tr '\n' ' ')" = '2 2 2 2 2 2 2 ' ]
	grep -qxF -e "$(printf -- '-\tM\t20\t3999\t-\t\tthread_name\t{"name":"loader 3 data wait"}\t{}')" "$T/b.out"
	grep -qxF -e "$(printf -- '-\tM\t20\t3999\t-\t\tthread_sort_index\t{"sort_index":7}\t{}')" "$T/b.out"
	jcheck "$T/b.json" <<-'EOF'
	o.workers.map(w => w.pid + ":" + w.downloaded + "/" + w.read).join(" ") ==> 20:2/1 21:2/2 22:2/1 23:2/0
	o.ranks.map(r => r.pid + ":" + r.waits).join(" ") ==> 20:1
	o.notes.filter(n => /wait tracks share/.test(n)).join() ==> 1 wait tracks share their tid with a thread of the input
	EOF
	# the same when what is packed goes to a temporary file at once,
	# deleted as soon as made; when none can be made, or it cannot
	# grow, the same again, and said once
	mkdir "$T/tmp"
	LT_COLD_MEM=1 TMPDIR=$T/tmp ltstat -t -J "$T/c.json" -o /dev/null "$T/b.lt1" 2>"$T/c.err" |
	    awk -F '\t' '$3 != 99' > "$T/c.out"
	[ ! -s "$T/c.err" ]
	[ -z "$(ls -A "$T/tmp")" ]
	cmp "$T/b.out" "$T/c.out"
	cmp "$T/b.json" "$T/c.json"
	LT_COLD_MEM=1 TMPDIR=$T/none ltstat -t -J "$T/d.json" -o /dev/null "$T/b.lt1" 2>"$T/d.err" |
	    awk -F '\t' '$3 != 99' > "$T/d.out"
	[ "$(cat "$T/d.err")" = "ltstat: cannot make a temporary file in $T/none (TMPDIR): No such file or directory; the processes it holds stay in memory" ]
	cmp "$T/b.out" "$T/d.out"
	cmp "$T/b.json" "$T/d.json"
	# (no file can grow: SIGXFSZ ignored, so that the write fails; the
	# stream and the messages go through pipes)
	bash -c '{ (trap "" XFSZ; ulimit -f 0; LT_COLD_MEM=1 TMPDIR=$1 exec ltstat -t -o /dev/null "$3" 2>&3) | awk -F "\t" "\$3 != 99" > "$2.out"; } 3>&1 | cat > "$2.err"' sh "$T/tmp" "$T/e" "$T/b.lt1"
	[ "$(cat "$T/e.err")" = "ltstat: cannot write a temporary file in $T/tmp (TMPDIR): File too large; the processes it holds stay in memory" ]
	cmp "$T/b.out" "$T/e.out"
	run -2 env LT_COLD_MEM=0 ltstat "$T/b.lt1"
	[ "$output" = "ltstat: LT_COLD_MEM=0: too small (1 to 2^40 bytes)" ]
}

# A long job's log: hundreds of worker processes, which sleep when left
# alone; through the temporary file, the report and the stream are the
# same as in memory.
@test "ltstat -t: a long job's processes asleep, in memory or in the temporary file, give the same report and stream" {
	local T=$BATS_TEST_TMPDIR
	"$TOP/tests/gen/genlog" -n 600000 -e 30 -w 4 -r 2 -a async -s 5 |
	    ltparse | ltpair | ltlanefix -q > "$T/long.lt"
	ltstat -t -J "$T/a.json" -o "$T/a.txt" "$T/long.lt" > "$T/a.out"
	mkdir "$T/tmp"
	LT_COLD_MEM=1 TMPDIR=$T/tmp ltstat -t -J "$T/b.json" -o "$T/b.txt" "$T/long.lt" > "$T/b.out"
	cmp "$T/a.out" "$T/b.out"
	cmp "$T/a.json" "$T/b.json"
	cmp "$T/a.txt" "$T/b.txt"
	# hundreds of workers, each with its flows and counters
	[ "$(grep -c '^  rank [01] worker' "$T/a.txt")" -ge 200 ]
	[ "$(grep -c '	[sf]	' "$T/a.out")" -ge 1000 ]
}

@test "ltstat -t: a worker asleep keeps its last gather, the chunks it holds and its downloads since" {
	need node
	local T=$BATS_TEST_TMPDIR
	# worker 12 prefetches 3 chunks in an async gather (no download
	# span of its own) and downloads one; one download inside the gather
	# never finished (ltpair closed it: one chunk less gathered), a chunk
	# is deleted (one of the gather's), then a prefetch of the 2 chunks
	# it downloaded since the gather: no gather
	{
		printf '#lt1\n#t0\t1000\n'
		a='"dist_global_rank":0,"worker_rank":1'
		printf '1000\tX\t12\t2\t5000\tdownload\tprefetch\t{"chunks":3,%s}\t{}\n' "$a"
		printf '1500\tX\t12\t3\t200\tdownload\tdownload\t{"chunk":4,%s}\t{}\n' "$a"
		printf '2000\tX\t12\t3\t0\tdownload\tdownload\t{"chunk":5,%s,"ltpair":"unmatched_B"}\t{}\n' "$a"
		printf '7000\tX\t12\t1\t100\tdelete\tdelete\t{"chunk":9,%s}\t{}\n' "$a"
		printf '8000\tX\t12\t2\t50\tdownload\tprefetch\t{"chunks":2,%s}\t{}\n' "$a"
	} > "$T/g.lt1"
	# and again with 140000 spans of another process (two sweeps) after
	# its download: the worker sleeps, all of it packed, and wakes
	awk -F '\t' '{ print } /^1500\tX\t12\t/ { for (i = 0; i < 140000; i++)
		printf "%d\tX\t99\t1\t1\tstep\tstep\t{}\t{}\n", 2700 + i % 1000 }' "$T/g.lt1" > "$T/q.lt1"
	for k in g q; do
		ltstat -t -j -o "$T/$k.json" "$T/$k.lt1" |
		    awk -F '\t' '$2 == "C" && $3 == 12' > "$T/$k.ctr"
	done
	cmp "$T/g.ctr" "$T/q.ctr"
	[ "$(cut -f 1,8 "$T/q.ctr" | tr '\t\n' ' ;')" = '1000 {"downloading":2};1000 {"in cache":0};1500 {"downloading":3};1700 {"downloading":2};1700 {"in cache":1};6000 {"downloading":0};6000 {"in cache":3};7100 {"in cache":2};' ]
	jcheck "$T/q.json" <<-'EOF'
	o.workers.length ==> 1
	[o.workers[0].downloaded, o.workers[0].gathered, o.workers[0].unfinished] ==> [3,2,1]
	[o.workers[0].deleted, o.workers[0].held_max, o.workers[0].downloading_max] ==> [1,3,3]
	EOF
}

@test "ltstat: -x leaves out what -t would add, -n how many waits are listed" {
	need node
	ltstat -t -x flows,counters,share "$HAND" > "$BATS_TEST_TMPDIR/t.lt1"
	t=$BATS_TEST_TMPDIR/t.lt1
	[ "$(stat_of ltstat waits "$t")" = 5 ]
	[ "$(stat_of ltstat flows "$t")" = 0 ]
	[ "$(stat_of ltstat counters "$t")" = 0 ]
	[ "$(awk -F '\t' '$2 == "C" || $2 == "s" || $2 == "f"' "$t" | wc -l)" -eq 0 ]
	ltstat -t -x waits "$HAND" > "$t"
	[ "$(awk -F '\t' '$6 == "wait"' "$t" | grep -c '	X	' || true)" -eq 0 ]
	grep -q 'data wait"}' "$t" && false
	[ "$(stat_of ltstat flows "$t")" = 4 ]
	ltstat -j -n 2 "$HAND" > "$BATS_TEST_TMPDIR/r.json"
	[ "$(jget "$BATS_TEST_TMPDIR/r.json" '[o.ranks[0].longest_waits.length, o.slowest_chunks.length, o.ranks[0].waits]')" = "[2,2,5]" ]
	ltstat -j -n 0 "$HAND" > "$BATS_TEST_TMPDIR/r.json"
	[ "$(jget "$BATS_TEST_TMPDIR/r.json" '[o.ranks[0].longest_waits.length, o.slowest_chunks.length, o.ranks[0].wait_us]')" = "[0,0,4600]" ]
}

@test "ltstat: every prefix of the hand-made stream is handled (0 or 1, never a crash)" {
	prefixes 37 "$HAND" ltstat -j
	prefixes 37 "$HAND" ltstat -t
}

# genlog LOG TRUTH [ARGS]: a generated log and its truth file.
gen() {
	local log=$1 truth=$2
	shift 2
	genlog -n 4000 -t "$truth" "$@" > "$log"
}

# truthval KEY FILE
truthval() {
	sed -n "s/^$1=//p" "$2"
}

@test "ltstat: on genlog logs of every format, every span of the log is counted once" {
	need node
	local k=0 what=() T=$BATS_TEST_TMPDIR
	for f in new old v1 mixed; do
		for extra in "" "-c -b"; do
			k=$((k + 1))
			what+=("$f $extra")
			# shellcheck disable=SC2086
			gen "$T/g.log" "$T/truth.$k" -f $f $extra
			ltparse "$T/g.log" | ltpair | ltstat -j > "$T/r.$k.json"
		done
	done
	# Every B of the log is a span, closed or left open; then open,
	# crashes and the counts of batch, download, read and delete: a line
	# per report, from one node.
	node -e 'for (const f of process.argv.slice(1)) {
		const o = JSON.parse(require("fs").readFileSync(f, "utf8"));
		// a prefetch (category download) has a row of its own
		console.log([Object.entries(o.categories).filter(([k]) => k !== "wait" && k !== "crash").reduce((a, [, v]) => a + v.count, 0), o.open, o.crashes].concat(["batch", "download", "read", "delete"].map(c => (o.categories[c] || {count: 0}).count + (c === "download" && o.categories.prefetch ? o.categories.prefetch.count : 0))).map(String).join(" "))
	    }' $(for ((i = 1; i <= k; i++)); do echo "$T/r.$i.json"; done) > "$T/v"
	k=0
	while read -r spans open crashes got_batch got_download got_read got_delete; do
		tr=$T/truth.$((k + 1))
		f=${what[k]}
		k=$((k + 1))
		[ "$spans" = "$(truthval B "$tr")" ] || { echo "$f: $spans spans"; false; }
		[ "$open" = "$(truthval unmatched_B "$tr")" ]
		[ "$crashes" = "$(truthval crashes "$tr")" ]
		for c in batch download read delete; do
			pairs=$(truthval "pairs_$c" "$tr")
			got=got_$c
			got=${!got}
			[ "$got" -ge "$pairs" ] || { echo "$f $c: $got < $pairs"; false; }
		done
	done < "$T/v"
	[ "$k" -eq 8 ]
}

@test "ltstat: the generation of the log and what it cannot tell" {
	need node
	gen "$BATS_TEST_TMPDIR/new.log" "$BATS_TEST_TMPDIR/t1"
	ltparse "$BATS_TEST_TMPDIR/new.log" | ltpair | ltstat -j > "$BATS_TEST_TMPDIR/new.json"
	jcheck "$BATS_TEST_TMPDIR/new.json" <<-'EOF'
	[o.format.old, o.format.v1, o.format.new > 0] ==> [0,0,true]
	o.ranks.length ==> 2
	o.ranks.every(r => r.batches > 0 && r.waits > 0) ==> true
	o.workers.length ==> 4
	EOF

	gen "$BATS_TEST_TMPDIR/old.log" "$BATS_TEST_TMPDIR/t2" -f old
	ltparse "$BATS_TEST_TMPDIR/old.log" | ltpair | ltstat > "$BATS_TEST_TMPDIR/old.txt"
	grep -q '^ltstat: LitData 0.2.57 to 0.2.67;' "$BATS_TEST_TMPDIR/old.txt"
	grep -q 'no batch spans (LitData writes them from 0.2.68 on' "$BATS_TEST_TMPDIR/old.txt"
	grep -q 'never closes the last read of a worker epoch' "$BATS_TEST_TMPDIR/old.txt"
	grep -q ': no batch spans$' "$BATS_TEST_TMPDIR/old.txt"

	gen "$BATS_TEST_TMPDIR/v1.log" "$BATS_TEST_TMPDIR/t3" -f v1
	ltparse "$BATS_TEST_TMPDIR/v1.log" | ltpair | ltstat -j > "$BATS_TEST_TMPDIR/v1.json"
	jcheck "$BATS_TEST_TMPDIR/v1.json" <<-'EOF'
	o.format.v1 > 0 && o.format.new == 0 ==> true
	o.notes.some(n => n.startsWith("LitData before 0.2.57 reports worker 0")) ==> true
	o.notes.some(n => / read spans are of one item each/.test(n)) ==> true
	EOF

	gen "$BATS_TEST_TMPDIR/mixed.log" "$BATS_TEST_TMPDIR/t4" -f mixed
	ltparse "$BATS_TEST_TMPDIR/mixed.log" | ltpair | ltstat > "$BATS_TEST_TMPDIR/mixed.txt"
	grep -q '^ltstat: mixed LitData generations;' "$BATS_TEST_TMPDIR/mixed.txt"
}

@test "ltstat: partial logs: a crash, a break, a log cut anywhere" {
	need node
	genlog -c -b -r 2 -w 1 -l chunk > "$BATS_TEST_TMPDIR/g.log"
	ltparse "$BATS_TEST_TMPDIR/g.log" | ltpair | ltstat -j > "$BATS_TEST_TMPDIR/r.json"
	r=$BATS_TEST_TMPDIR/r.json
	jcheck "$r" <<-'EOF'
	o.open > 0 && o.ranks.some(x => x.open_batches > 0) ==> true
	o.notes.some(n => / spans were left open/.test(n)) ==> true
	# The restarted job's ranks are processes of their own.
	o.ranks.map(x => x.rank).join() ==> 0,0,1,1
	o.crashes ==> 1
	EOF
	for n in 1 100 700 1200; do
		head -n "$n" "$BATS_TEST_TMPDIR/g.log" > "$BATS_TEST_TMPDIR/cut.log"
		ltparse "$BATS_TEST_TMPDIR/cut.log" | ltpair | ltstat -j > "$r"
		json_ok "$r"
		ltparse "$BATS_TEST_TMPDIR/cut.log" | ltpair | ltstat -t > /dev/null
	done
}

@test "ltstat: percentiles beyond 2048 spans: from log buckets, within 0.2%, marked" {
	need node
	f=$BATS_TEST_TMPDIR/many.lt1
	# 3000 reads of 1, 2, ..., 3000 µs: p50 is 1500 µs, p95 2850, p99 2970.
	{ echo '#lt1'; seq 1 3000 | awk '{ printf "%d\tX\t1\t1\t%d\tread\tread\t{}\t{}\n", $1 * 10000, $1 }'; } > "$f"
	ltstat -j "$f" > "$BATS_TEST_TMPDIR/r.json"
	r=$BATS_TEST_TMPDIR/r.json
	jcheck "$r" <<-'EOF'
	[o.categories.read.count, o.categories.read.total_us, o.categories.read.max_us, o.categories.read.exact] ==> [3000,4501500,3000,false]
	[[o.categories.read.p50_us, 1500], [o.categories.read.p95_us, 2850], [o.categories.read.p99_us, 2970]].every(([g, e]) => g >= e && g <= e * 1.002) ==> true
	EOF
	ltstat "$f" | grep -q '^read .* ~ '
	# 2048 or fewer: exact.
	head -n 2049 "$f" > "$BATS_TEST_TMPDIR/few.lt1"
	ltstat -j "$BATS_TEST_TMPDIR/few.lt1" > "$r"
	[ "$(jget "$r" '[o.categories.read.p50_us, o.categories.read.p99_us, o.categories.read.exact]')" = "[1024,2028,true]" ]
}

@test "ltstat: bucket percentiles across powers of two no duration fell in" {
	need node
	f=$BATS_TEST_TMPDIR/gaps.lt1
	# 1000 reads each of 1 µs, 1 ms and 1 s, in turns: p50 is 1 ms,
	# p95 and p99 1 s; the buckets between them stay empty.
	{ echo '#lt1'; seq 1 3000 | awk '{
		d = $1 % 3 == 0 ? 1 : $1 % 3 == 1 ? 1000 : 1000000
		printf "%d\tX\t1\t1\t%d\tread\tread\t{}\t{}\n", $1 * 2000000, d
	}'; } > "$f"
	ltstat -j "$f" > "$BATS_TEST_TMPDIR/r.json"
	jcheck "$BATS_TEST_TMPDIR/r.json" <<-'EOF'
	[o.categories.read.count, o.categories.read.max_us, o.categories.read.exact] ==> [3000,1000000,false]
	[[o.categories.read.p50_us, 1000], [o.categories.read.p95_us, 1000000], [o.categories.read.p99_us, 1000000]].every(([g, e]) => g >= e && g <= e * 1.002) ==> true
	EOF
	ltstat "$f" | grep -q '^read .* ~ '
}

@test "ltstat: B and E records, records without times, other phases are counted, not paired" {
	need node
	f=$BATS_TEST_TMPDIR/be.lt1
	printf '#lt1\n1\tB\t1\t1\t-\tbatch\tbatch\t{}\t{}\n5\tE\t1\t1\t-\tbatch\tbatch\t{}\t{}\n-\tX\t1\t1\t3\tread\tread\t{}\t{}\n9\tX\t1\t1\t-\tread\tread\t{}\t{}\n9\tC\t1\t1\t-\tc\tc\t{"v":1}\t{}\n' > "$f"
	ltstat -j "$f" > "$BATS_TEST_TMPDIR/r.json"
	r=$BATS_TEST_TMPDIR/r.json
	jcheck "$r" <<-'EOF'
	[o.spans, o.ranks.length, Object.keys(o.categories).length] ==> [0,0,0]
	o.notes.join("|") ==> no batch spans (LitData writes them from 0.2.68 on, at tracer level batch or above): compute and data-wait time are unknown|2 B and E records are not paired: run ltpair before ltstat|2 X records without ts or dur and 0 with a negative dur are left out
	EOF
}

# -------- with Perfetto's own importer --------

# The figures of ltstat's report equal what Perfetto computes from the
# trace written with them: per rank the sum of its batch slices and of its
# wait slices, per category the count and total, to the µs (a prefetch,
# of category download, has a row of its own).
same_as_perfetto() {
	local t=$1 r=$1.report got want w
	need node
	# one node: the report is JSON, and its figures, a line each
	w=$(jget "$r" '[o.ranks.map(x => x.pid + "," + Math.round(x.compute_us * 1000) + "," + Math.round(x.wait_us * 1000) + "," + x.waits).sort().join(" "), Object.entries(o.categories).map(([k, v]) => k + "," + v.count + "," + Math.round(v.total_us * 1000)).sort().join(" ")].join("\n")')
	# one import: errors, ranks, categories
	tp_queries "$t" "$t.q" "$TP_ERRORS" "select p.pid || ',' || ifnull((select sum(s.dur) from slice s join thread_track tt on s.track_id = tt.id join thread th using (utid) where th.upid = p.upid and s.name = 'batch'), 0) || ',' || ifnull((select sum(s.dur) from slice s join thread_track tt on s.track_id = tt.id join thread th using (utid) where th.upid = p.upid and s.name = 'data wait'), 0) || ',' || (select count(*) from slice s join thread_track tt on s.track_id = tt.id join thread th using (utid) where th.upid = p.upid and s.name = 'data wait') from process p where exists (select 1 from slice s join thread_track tt on s.track_id = tt.id join thread th using (utid) where th.upid = p.upid and s.name in ('batch', 'dataloader'));" "select c || ',' || count(*) || ',' || sum(dur) from (select case when name = 'prefetch' and category = 'download' then 'prefetch' else ifnull(category, '') end as c, dur from slice) group by c;" || return 1
	tp_clean "$t" "$t.q.1" || return 1
	want=${w%%$'\n'*}
	got=$(tr -d '"' <"$t.q.2" | sort | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$want" ] || { echo "ranks: perfetto $got, ltstat $want"; return 1; }
	want=${w#*$'\n'}
	got=$(tr -d '"' <"$t.q.3" | sort | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$want" ] || { echo "categories: perfetto $got, ltstat $want"; return 1; }
}

# Every flow joins a download and its read, or a read and its delete, of
# one chunk in one process; each worker process has both chunk counters.
flows_and_counters() {
	local t=$1 r=$1.report got n
	n=$(jget "$r" 'o.workers.filter(w => w.downloaded - w.gathered + w.unfinished > 0).length')
	# one import for the three queries
	tp_queries "$t" "$t.q" "select count(*), sum(so.name || ' ' || si.name in ('download read', 'read download', 'read delete')), sum(extract_arg(so.arg_set_id, 'args.chunk') = extract_arg(si.arg_set_id, 'args.chunk')), sum(tso.upid = tsi.upid) from flow f join slice so on so.id = f.slice_out join slice si on si.id = f.slice_in join thread_track a on so.track_id = a.id join thread tso on tso.utid = a.utid join thread_track b on si.track_id = b.id join thread tsi on tsi.utid = b.utid;" \
	    "select count(*) from process p where exists (select 1 from slice s join thread_track tt on s.track_id = tt.id join thread th using (utid) where th.upid = p.upid and s.name = 'download') and exists (select 1 from process_counter_track c where c.upid = p.upid and c.name = 'chunks downloading') and exists (select 1 from process_counter_track c where c.upid = p.upid and c.name = 'chunks in cache');" \
	    "select count(*) = sum(c.value = (select count(*) from slice s join thread_track tt on s.track_id = tt.id join thread th using (utid) where th.upid = t.upid and s.name = 'download' and s.ts <= c.ts and c.ts < s.ts + s.dur)) from counter c join process_counter_track t on c.track_id = t.id where t.name = 'chunks downloading';" || return 1
	got=$(tr -d '"' <"$t.q.1")
	IFS=, read -r flows kinds chunks procs <<EOF
$got
EOF
	[ "$flows" -gt 0 ]
	[ "$flows" = "$kinds" ] && [ "$flows" = "$chunks" ] && [ "$flows" = "$procs" ] ||
	    { echo "flows, right kinds, same chunk, same process: $got"; return 1; }
	[ "$flows" = "$(sed -n 's/.*"ltstat":{"waits":[0-9]*,"flows":\([0-9]*\).*/\1/p' "$t")" ]
	got=$(tr -d '"' <"$t.q.2")
	[ "$got" = "$n" ] || { echo "workers with both counters: $got of $n"; return 1; }
	# Each value of chunks downloading is the number of download slices
	# of its process around it.
	got=$(tr -d '"' <"$t.q.3")
	[ "$got" = 1 ]
}

@test "ltstat -t: Perfetto computes ltstat's totals from the trace, to the µs (new format, lanes, crash, break, no workers, mixed)" {
	need node
	tp_need
	for args in "-l sample" "-l debug -a sync" "-c -b -l sample" "-p -e 3" "-w 0 -l sample" "-f mixed" "-f old"; do
		# shellcheck disable=SC2086
		genlog -n 6000 $args > "$BATS_TEST_TMPDIR/g.log"
		chain "$BATS_TEST_TMPDIR/g.log" "$BATS_TEST_TMPDIR/t.json"
		same_as_perfetto "$BATS_TEST_TMPDIR/t.json" || { echo "genlog $args"; false; }
	done
}

@test "ltstat -t: flows bind to their chunk's slices after ltlanefix, and every worker has its counters" {
	need node
	tp_need
	for args in "-l sample" "-l debug -a async" "-c -b -l sample" "-f old" "-f v1" "-w 0"; do
		# shellcheck disable=SC2086
		genlog -n 6000 $args > "$BATS_TEST_TMPDIR/g.log"
		chain "$BATS_TEST_TMPDIR/g.log" "$BATS_TEST_TMPDIR/t.json"
		flows_and_counters "$BATS_TEST_TMPDIR/t.json" || { echo "genlog $args"; false; }
	done
	# Slices moved to lanes are among those the flows join.
	genlog -n 6000 -l sample > "$BATS_TEST_TMPDIR/g.log"
	chain "$BATS_TEST_TMPDIR/g.log" "$BATS_TEST_TMPDIR/t.json"
	[ "$(sed -n 's/.*"ltlanefix":{[^}]*"moved":\([0-9]*\).*/\1/p' "$BATS_TEST_TMPDIR/t.json")" -gt 0 ]
	got=$(tpq "$BATS_TEST_TMPDIR/t.json" "select count(*) from flow f join slice s on s.id in (f.slice_in, f.slice_out) join thread_track tt on s.track_id = tt.id join thread th using (utid) where th.name like '% lane %';")
	[ "$got" -gt 0 ]
}

@test "ltstat -t: the sample log, and the same chain before ltlanefix -k (B and E)" {
	need node
	tp_need
	chain "$DATA/sample.log" "$BATS_TEST_TMPDIR/t.json"
	same_as_perfetto "$BATS_TEST_TMPDIR/t.json"
	flows_and_counters "$BATS_TEST_TMPDIR/t.json"
	# The waits sit on a thread of their own, named after the thread of
	# the batches, in every rank with waits.
	got=$(tpq "$BATS_TEST_TMPDIR/t.json" "select count(distinct th.upid), count(*), sum(th.tid != bt.tid and th.name = bt.name || ' data wait') from slice s join thread_track tt on s.track_id = tt.id join thread th using (utid), (select distinct b.upid, b.tid, b.name from slice x join thread_track y on x.track_id = y.id join thread b using (utid) where x.name = 'batch') bt where s.name = 'data wait' and bt.upid = th.upid;")
	IFS=, read -r ranks n right <<EOF
$got
EOF
	[ "$ranks" -ge 2 ] && [ "$n" -gt 0 ] && [ "$n" = "$right" ] || { echo "$got"; false; }
	genlog -n 6000 -l sample -c > "$BATS_TEST_TMPDIR/g.log"
	ltparse "$BATS_TEST_TMPDIR/g.log" | ltpair | ltstat -t -j -o "$BATS_TEST_TMPDIR/k.json.report" |
	    ltlanefix -q -k | ltjson > "$BATS_TEST_TMPDIR/k.json"
	flows_and_counters "$BATS_TEST_TMPDIR/k.json"
	tp_clean "$BATS_TEST_TMPDIR/k.json"
}

@test "ltstat -t: the data-wait share of each second is the waits' share of it" {
	tp_need
	genlog -n 6000 -l sample -c -b > "$BATS_TEST_TMPDIR/g.log"
	chain "$BATS_TEST_TMPDIR/g.log" "$BATS_TEST_TMPDIR/t.json"
	# Closed batches and waits of the process, clipped to the second of
	# each value; a value of 0 may also mark the end of the last batch.
	got=$(tpq "$BATS_TEST_TMPDIR/t.json" "with s as (select s.name, s.ts, s.ts + s.dur as e, th.upid from slice s join thread_track tt on s.track_id = tt.id join thread th using (utid) where s.name in ('batch', 'data wait') and extract_arg(s.arg_set_id, 'args.ltpair') is null), c as (select c.ts, c.value, t.upid, c.ts / 1000000000 * 1000000000 as k from counter c join process_counter_track t on c.track_id = t.id where t.name = 'data wait share'), y as (select c.*, ifnull((select sum(min(e, k + 1000000000) - max(ts, k)) from s where s.upid = c.upid and s.name = 'data wait' and s.ts < k + 1000000000 and s.e > k), 0) as w, ifnull((select sum(min(e, k + 1000000000) - max(ts, k)) from s where s.upid = c.upid and s.name = 'batch' and s.ts < k + 1000000000 and s.e > k), 0) as b from c) select count(*), sum(abs(value - round(1.0 * w / (w + b), 3)) < 0.0005 or (value = 0 and exists (select 1 from s where s.upid = y.upid and s.name = 'batch' and s.e = y.ts))), sum(value > 0) from y;")
	IFS=, read -r n right positive <<EOF
$got
EOF
	[ "$n" -gt 0 ] && [ "$positive" -gt 0 ]
	[ "$n" = "$right" ] || { echo "$got"; false; }
}

@test "ltstat -t: nothing of a category that a filter removed (--cat read: no waits, flows, counters)" {
	need node
	tp_need
	genlog -n 6000 -l sample > "$BATS_TEST_TMPDIR/g.log"
	ltparse "$BATS_TEST_TMPDIR/g.log" | ltpair | ltfilter -c read | ltlanefix -q |
	    ltstat -t -j -o "$BATS_TEST_TMPDIR/t.json.report" | ltjson > "$BATS_TEST_TMPDIR/t.json"
	t=$BATS_TEST_TMPDIR/t.json
	got=$(tpq "$t" "select (select count(*) from slice where category != 'read'), (select count(*) from flow), (select count(*) from counter_track);")
	[ "$got" = "0,0,0" ]
	same_as_perfetto "$t"
	# Downloads and reads kept: their flows, but no waits.
	ltparse "$BATS_TEST_TMPDIR/g.log" | ltpair | ltfilter -c download,read | ltlanefix -q |
	    ltstat -t -j -o "$t.report" | ltjson > "$t"
	got=$(tpq "$t" "select (select count(*) from slice where name = 'data wait'), (select count(*) > 0 from flow), (select count(*) from counter_track where name = 'data wait share');")
	[ "$got" = "0,1,0" ]
	flows_and_counters "$t"
}

@test "ltstat: a batch index of 2^63-1, then another batch" {
	printf '#lt1\n100\tX\t1\t1\t10\tbatch\tbatch\t{"batch":9223372036854775807,"epoch":1}\t{}\n200\tX\t1\t1\t10\tbatch\tbatch\t{"batch":5,"epoch":1}\t{}\n' >"$BATS_TEST_TMPDIR/max.lt1"
	run -0 --separate-stderr ltstat "$BATS_TEST_TMPDIR/max.lt1"
	[[ "$output" == *"(pid 1): 2 batches, compute 0.020 ms, data wait 0.000 ms (0.0%)"* ]]
}

@test "ltstat: a time that rounds to 0 is never -0.000 (an epoch that starts just before #t0)" {
	printf '#lt1\n#t0\t1000\n999.5\tX\t10\t1\t10000\tepoch\tdataloader\t{"epoch":1}\t{}\n3000\tX\t10\t1\t1000\tbatch\tbatch\t{"batch":0,"epoch":1}\t{}\n' >"$BATS_TEST_TMPDIR/neg.lt1"
	run -0 --separate-stderr ltstat "$BATS_TEST_TMPDIR/neg.lt1"
	[[ "$output" == *"  epoch 1 at +0.000 s, 10.000 ms: 1 batch"* ]]
	nomatch -e '-0\.000' <(echo "$output")
}

@test "ltstat -o: bad input (exit 1) leaves the report's file as it was" {
	T=$BATS_TEST_TMPDIR
	cp "$HAND" "$T/bad"
	printf '2\tX\t1\n' >>"$T/bad"
	echo "previous report" >"$T/r.txt"
	run -1 --separate-stderr ltstat -o "$T/r.txt" "$T/bad"
	[ "$(cat "$T/r.txt")" = "previous report" ]
	[ "$(ls -A "$T" | grep -c r.txt)" -eq 1 ]
	ltstat -o "$T/r.txt" "$HAND"
	ltstat "$HAND" | cmp - "$T/r.txt"
}

@test "ltstat -t: a deleted chunk links its download to a read written late, within the horizon only" {
	f=$BATS_TEST_TMPDIR/gone.lt1
	# Chunk 5's read comes just after its delete; chunk 6's comes after
	# the worker has moved 5 s on, past its counters' horizon (1 s):
	# its chunk is forgotten, as its counters count the read late.
	printf '#lt1\n%s\n' \
	    '1000	X	1	2	100	download	download	{"chunk":5}	{}' \
	    '1300	X	1	3	10	delete	delete	{"chunk":5}	{}' \
	    '1150	X	1	4	100	read	read	{"chunk":5}	{}' \
	    '2000	X	1	2	100	download	download	{"chunk":6}	{}' \
	    '2300	X	1	3	10	delete	delete	{"chunk":6}	{}' \
	    '5000000	X	1	2	100	download	download	{"chunk":7}	{}' \
	    '2150	X	1	4	100	read	read	{"chunk":6}	{}' > "$f"
	ltstat -t -o /dev/null "$f" > "$BATS_TEST_TMPDIR/t.lt1"
	[ "$(grep -c '	flow	chunk	' "$BATS_TEST_TMPDIR/t.lt1")" = 2 ]
	grep -q '^1000	s	1	2	-	flow	chunk	{"chunk":5}' "$BATS_TEST_TMPDIR/t.lt1"
	grep -q '^1150	f	1	4	-	flow	chunk	' "$BATS_TEST_TMPDIR/t.lt1"
	# A read after the delete, then the chunk again: its delete links
	# that read, as before.
	printf '#lt1\n%s\n' \
	    '1000	X	1	2	100	download	download	{"chunk":5}	{}' \
	    '1300	X	1	3	10	delete	delete	{"chunk":5}	{}' \
	    '1150	X	1	4	100	read	read	{"chunk":5}	{}' \
	    '9000000	X	1	2	100	download	download	{"chunk":5}	{}' \
	    '9000300	X	1	3	10	delete	delete	{"chunk":5}	{}' > "$f"
	ltstat -t -o /dev/null "$f" > "$BATS_TEST_TMPDIR/t.lt1"
	grep -q '^1150	s	1	4	-	flow	chunk	{"chunk":5}' "$BATS_TEST_TMPDIR/t.lt1"
	grep -q '^9000300	f	1	3	-	flow	chunk	' "$BATS_TEST_TMPDIR/t.lt1"
}

@test "ltstat -t: valgrind-clean on a small long-job log" {
	genlog -n 20000 -e 8 -w 4 -r 2 -a async > "$BATS_TEST_TMPDIR/g.log"
	ltparse "$BATS_TEST_TMPDIR/g.log" | ltpair | ltlanefix -q > "$BATS_TEST_TMPDIR/l.lt1"
	vg ltstat -t -o "$BATS_TEST_TMPDIR/r.txt" "$BATS_TEST_TMPDIR/l.lt1" > "$BATS_TEST_TMPDIR/t.lt1"
	ltstat -t -o "$BATS_TEST_TMPDIR/r2.txt" "$BATS_TEST_TMPDIR/l.lt1" |
	    cmp - "$BATS_TEST_TMPDIR/t.lt1"
	cmp "$BATS_TEST_TMPDIR/r.txt" "$BATS_TEST_TMPDIR/r2.txt"
}
