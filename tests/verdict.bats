#!/usr/bin/env bats
# ltstat's answer: the verdict, a cause for every wait, the steps of all
# ranks paired, the rank that held the job back, a threshold for CI and
# the comparison of two runs.  On hand-made streams of one known cause
# each, split exactly; on the real LitData runs of tests/data/real/
# against what their truth.json says (the driving script's own clocks
# and counters); the job's data delay against an awk of the stream.

bats_require_minimum_version 1.5.0
load helper

R=$DATA/real

# real RUN OUT: the stream of a real run (ltparse | ltpair) in OUT.
real() {
	ltparse "$R/$1/litdata_debug.log.gz" | ltpair > "$2"
}

# cause STREAM: the causes of the waits of its one rank, as ltstat's JSON
# has them, then the args of its wait slices (-t), one line each.
cause() {
	ltstat -j "$1" > "$1.json"
	jget "$1.json" 'o.ranks[0].wait_by_cause_us'
	ltstat -t "$1" | awk -F '\t' '$2 == "X" && $7 == "data wait" { print $8 }'
}

# A rank (pid 10) with an epoch [0, 20000) and batches 0 [0, 1000) and
# 1 [5000, 6000): one wait, [1000, 5000).  Worker pid 11 (rank 0).
one_wait() {
	lt "$1" <<'EOF'
0|X|10|1|1000|batch|batch|{"batch":0,"epoch":1,"dist_global_rank":0}|{}
5000|X|10|1|1000|batch|batch|{"batch":1,"epoch":1,"dist_global_rank":0}|{}
0|X|10|1|20000|epoch|dataloader|{"epoch":1,"dist_global_rank":0}|{}
EOF
}

@test "verdict: one cause each, split exactly (download, read, read waiting for its download, idle, unknown)" {
	need node
	f=$BATS_TEST_TMPDIR/w.lt1
	# A download in flight, nothing read: download.
	one_wait "$f"
	printf '500\tX\t11\t2\t5500\tdownload\tdownload\t{"chunk":3,"dist_global_rank":0,"worker_rank":0}\t{}\n' >> "$f"
	[ "$(cause "$f")" = '{"startup":0,"download":4000,"read":0,"idle":0,"unknown":0}
{"batch":1,"epoch":1,"cause":"download","download_us":4000}' ]
	# A read of a chunk downloaded before: read.
	one_wait "$f"
	printf '500\tX\t11\t1\t5500\tread\tread\t{"chunk":3,"dist_global_rank":0,"worker_rank":0}\t{}\n' >> "$f"
	[ "$(cause "$f")" = '{"startup":0,"download":0,"read":4000,"idle":0,"unknown":0}
{"batch":1,"epoch":1,"cause":"read","read_us":4000}' ]
	# A read of chunk 3 in [800, 6000) while chunk 3 downloads in
	# [500, 3000): the read waits for its download until 3000.
	one_wait "$f"
	printf '500\tX\t11\t2\t2500\tdownload\tdownload\t{"chunk":3,"dist_global_rank":0,"worker_rank":0}\t{}\n800\tX\t11\t1\t5200\tread\tread\t{"chunk":3,"dist_global_rank":0,"worker_rank":0}\t{}\n' >> "$f"
	[ "$(cause "$f")" = '{"startup":0,"download":2000,"read":2000,"idle":0,"unknown":0}
{"batch":1,"epoch":1,"cause":"download","download_us":2000,"read_us":2000}' ]
	# The worker did all its work before: idle.
	one_wait "$f"
	printf '100\tX\t11\t1\t800\tread\tread\t{"chunk":3,"dist_global_rank":0,"worker_rank":0}\t{}\n' >> "$f"
	[ "$(cause "$f")" = '{"startup":0,"download":0,"read":0,"idle":4000,"unknown":0}
{"batch":1,"epoch":1,"cause":"idle","idle_us":4000}' ]
	# No worker event at all: unknown, and the hint says why.
	one_wait "$f"
	[ "$(cause "$f")" = '{"startup":0,"download":0,"read":0,"idle":0,"unknown":4000}
{"batch":1,"epoch":1,"cause":"unknown","unknown_us":4000}' ]
	ltstat -j "$f" > "$f.json"
	[ "$(jget "$f.json" 'o.why.filter(w => w.includes("never called enable_tracer()")).length')" = 1 ]
}

@test "verdict: start-up, and a sample waiting for an async gather (sample level), split exactly" {
	need node
	f=$BATS_TEST_TMPDIR/w.lt1
	# The epoch begins at 0, the new worker's first span at 5000, batch
	# 0 at 5000: the whole first wait is start-up.
	lt "$f" <<'EOF'
5000|X|11|1|500|read|read|{"chunk":3,"dist_global_rank":0,"worker_rank":0}|{}
5000|X|10|1|1000|batch|batch|{"batch":0,"epoch":1,"dist_global_rank":0}|{}
0|X|10|1|20000|epoch|dataloader|{"epoch":1,"dist_global_rank":0}|{}
EOF
	[ "$(cause "$f")" = '{"startup":5000,"download":0,"read":0,"idle":0,"unknown":0}
{"batch":0,"epoch":1,"cause":"startup","startup_us":5000}' ]
	# An async gather of 2 chunks [500, 4800) without download spans; a
	# sample of chunk 0 [800, 4500) ends before the gather's span does
	# (so comes first): it waited for the gather until 4500.  Then the
	# gather alone until 4800: download 3800; then nothing: idle 200.
	one_wait "$f"
	printf '800\tX\t11\t1\t3700\tsample\tsample\t{"chunk":0,"index":0,"dist_global_rank":0,"worker_rank":0}\t{}\n500\tX\t11\t2\t4300\tdownload\tprefetch\t{"chunks":2,"dist_global_rank":0,"worker_rank":0}\t{}\n' >> "$f"
	[ "$(cause "$f")" = '{"startup":0,"download":3800,"read":0,"idle":200,"unknown":0}
{"batch":1,"epoch":1,"cause":"download","download_us":3800,"idle_us":200}' ]
	# The 2 chunks count as downloaded, in a gather.
	[ "$(jget "$f.json" '[o.workers[0].downloaded, o.workers[0].gathered, o.categories.prefetch.count, o.categories.download]')" = "[2,2,1,null]" ]
}

@test "verdict: the hand-made stream: its first wait split by hand, the parts add up to every wait" {
	need node
	# ltstat.bats describes the stream.  Epoch 1's first wait [1000,
	# 3000): the worker's first span (the read of 7) at 1200: start-up
	# 200; the read of 7 [1200, 5200) waits for its download [1500,
	# 2500): download 1000, read 300 + 500.  Epoch 2: no new worker, no
	# span in flight: idle.
	ltstat -j "$DATA/ltstat/hand.lt1" > "$BATS_TEST_TMPDIR/r.json"
	r=$BATS_TEST_TMPDIR/r.json
	[ "$(jget "$r" 'o.ranks[0].longest_waits[0].wait_by_cause_us')" = '{"startup":200,"download":1000,"read":800,"idle":0,"unknown":0}' ]
	[ "$(jget "$r" 'o.ranks[0].epochs.map(e => e.wait_by_cause_us)')" = '[{"startup":200,"download":1000,"read":2800,"idle":0,"unknown":0},{"startup":0,"download":0,"read":0,"idle":600,"unknown":0}]' ]
	[ "$(jget "$r" 'o.ranks[0].epochs.map(e => e.cause)')" = '["read","idle"]' ]
	[ "$(jget "$r" '[o.verdict, o.wait_share, o.ranks[0].verdict, o.ranks[0].wait_us, o.job.delay_us, o.job.time_us]')" = '["high",0.4792,"high",4600,4600,9600]' ]
}

# sums JSON: every split (rank, epoch, longest waits) adds up to its wait.
sums() {
	[ "$(jget "$1" 'o.ranks.filter(r => r.batches > 0).every(r => Object.values(r.wait_by_cause_us).reduce((a, b) => a + b, 0) === r.wait_us &&
	    r.epochs.every(e => e.batches === 0 || Object.values(e.wait_by_cause_us).reduce((a, b) => a + b, 0) === e.wait_us) &&
	    r.longest_waits.every(w => Object.values(w.wait_by_cause_us).reduce((a, b) => a + b, 0) === w.dur_us))')" = true ]
}

@test "verdict: real runs: the parts of every wait add up to it; downloads, gathers and deletes as the truth counts them" {
	need node
	for run in a b d e f67 h; do
		real "$run" "$BATS_TEST_TMPDIR/$run.lt1"
		ltstat -j "$BATS_TEST_TMPDIR/$run.lt1" > "$BATS_TEST_TMPDIR/$run.json"
		r=$BATS_TEST_TMPDIR/$run.json
		sums "$r" || { echo "run $run"; false; }
		# Chunk copies per worker process of the truth: the finished
		# download spans, the chunks of async gathers (no span of
		# their own) and, in run e, the copy that failed (left open).
		want=$(jget "$R/$run/truth.json" 'Object.entries(o.downloads.chunk_copies_by_process).map(([k, v]) => k.replace(/.*pid (\d+).*/, "$1") + ":" + v).sort().join()')
		got=$(jget "$r" 'o.workers.filter(w => w.downloaded + w.unfinished > 0).map(w => w.pid + ":" + (w.downloaded + w.unfinished)).sort().join()')
		[ "$got" = "$want" ] || { echo "run $run: copies $got, truth $want"; false; }
		want=$(jget "$R/$run/truth.json" 'Object.entries(o.deletes.by_process).map(([k, v]) => k.replace(/.*pid (\d+).*/, "$1") + ":" + v).sort().join()')
		got=$(jget "$r" 'o.workers.filter(w => w.deleted > 0).map(w => w.pid + ":" + w.deleted).sort().join()')
		[ "$got" = "$want" ] || { echo "run $run: deletes $got, truth $want"; false; }
	done
	# The gathers: a prefetch's chunks, less the download spans of its
	# process inside it (awk, over the stream of run b): 4 per worker of
	# epoch 1 (pids 3067, 3080, 3099, 3119), none in epoch 2.
	want=$(awk -F '\t' '$2 == "X" && ($7 == "prefetch" || $7 == "download") {
		split($1, t, "."); ts = t[1]; e = ts + $5
		if ($7 == "download") { d[$3, ++nd[$3]] = ts; next }
		n = $8; sub(/.*"chunks":/, "", n); sub(/[,}].*/, "", n)
		g[$3] += n; ps[$3, ++np[$3]] = ts; pe[$3, np[$3]] = e }
		END { for (k in g) { x = g[k]
			for (i = 1; i <= np[k]; i++)
				for (j = 1; j <= nd[k]; j++) if (d[k, j] >= ps[k, i] && d[k, j] <= pe[k, i]) x--
			if (x > 0) print k ":" x } }' "$BATS_TEST_TMPDIR/b.lt1" | sort | paste -sd, -)
	[ "$want" = "3067:4,3080:4,3099:4,3119:4" ]
	[ "$(jget "$BATS_TEST_TMPDIR/b.json" 'o.workers.filter(w => w.gathered > 0).map(w => w.pid + ":" + w.gathered).sort().join()')" = "$want" ]
}

# truth_epochs JSON TRUTH: per rank and epoch, ltstat's batches and the
# truth's; the wait and the compute are within 2 ms a batch and 50 ms of
# the script's clocks (LitData's batch span begins up to about 2 ms
# before the script sees its batch, and its dataloader span up to 30 ms
# after the script asks), their sum within 50 ms.
truth_epochs() {
	node -e '
	const fs = require("fs");
	const o = JSON.parse(fs.readFileSync(process.argv[1]));
	const t = JSON.parse(fs.readFileSync(process.argv[2]));
	let bad = 0;
	for (const tr of t.ranks) {
		const r = o.ranks.find(x => x.pid === tr.pid);
		for (const te of tr.epochs) {
			const e = r.epochs.find(x => x.epoch === te.epoch);
			const w = e.wait_us / 1e6, c = e.compute_us / 1e6;
			const slack = 0.002 * te.batches + 0.05;
			if (e.batches !== te.batches || Math.abs(w - te.wait_s_measured) > slack ||
			    Math.abs(c - te.step_s_measured) > slack ||
			    Math.abs(w + c - te.wait_s_measured - te.step_s_measured) > 0.05) {
				console.log("rank", tr.rank, "epoch", te.epoch, e.batches, te.batches, w, te.wait_s_measured, c, te.step_s_measured);
				bad = 1;
			}
		}
	}
	process.exit(bad);' "$1" "$2"
}

@test "verdict: run b: high; epoch 1 waits for downloads, epoch 2 does not; epochs as the truth has them" {
	need node
	real b "$BATS_TEST_TMPDIR/b.lt1"
	ltstat -j "$BATS_TEST_TMPDIR/b.lt1" > "$BATS_TEST_TMPDIR/b.json"
	r=$BATS_TEST_TMPDIR/b.json
	truth_epochs "$r" "$R/b/truth.json"
	[ "$(jget "$r" '[o.verdict, o.ranks[0].verdict, o.straggler]')" = '["high","high",null]' ]
	# 200 ms before every chunk copy of epoch 1 (truth download_delay_s);
	# epoch 2 finds the chunks cached: not a µs of download.
	[ "$(jget "$r" 'o.ranks[0].epochs.map(e => e.cause)')" = '["download","idle"]' ]
	[ "$(jget "$r" 'o.ranks[0].epochs[0].wait_by_cause_us.download > o.ranks[0].epochs[0].wait_us / 2')" = true ]
	[ "$(jget "$r" 'o.ranks[0].epochs[1].wait_by_cause_us.download')" = 0 ]
	# The advice on downloads quotes the log's own setting.
	[ "$(jget "$r" 'o.next[0]')" = 'download (38.1% of the wait): a larger max_pre_download (chunks fetched ahead) or max_cache_size, or a faster store; the log says: "max_cache_size is unset; using 27.4 GB (75% of free disk, leaving ≥50GB when possible) on /srv/reallitdata/run/b/cache/40a789ca1c6f0cb0bbaedcebd1f44db5/1796180742.8588953." and "Async chunk prefetch: raising max_pre_download 2 → 4 so asyncio.gather can overlap remote chunk downloads. Set LITDATA_ASYNC_MIN_PRE_DOWNLOAD=0 to keep the original value."' ]
	ltstat "$BATS_TEST_TMPDIR/b.lt1" > "$BATS_TEST_TMPDIR/b.txt"
	grep -q '^verdict: input-bound, high: data waits are 63.4% of the step time' "$BATS_TEST_TMPDIR/b.txt"
	grep -q '^  why: epoch 1 waited mostly for downloads (61.6% of 5866.812 ms),$' "$BATS_TEST_TMPDIR/b.txt"
	# The prefetch spans are a row of their own, not in download.
	[ "$(jget "$r" '[o.categories.download.count, o.categories.prefetch.count]')" = "[96,204]" ]
}

@test "verdict: run d: both ranks paired step by step; the job's delay is the sum of each step's largest wait (awk)" {
	need node
	real d "$BATS_TEST_TMPDIR/d.lt1"
	ltstat -j "$BATS_TEST_TMPDIR/d.lt1" > "$BATS_TEST_TMPDIR/d.json"
	r=$BATS_TEST_TMPDIR/d.json
	truth_epochs "$r" "$R/d/truth.json"
	# 2 epochs of 62 batches, each reported by both ranks.
	[ "$(jget "$r" '[o.job.steps, o.job.paired, o.ranks.length, o.ranks.map(x => x.batches).join()]')" = '[124,124,2,"124,124"]' ]
	[ "$(jget "$r" 'o.ranks.reduce((a, x) => a + x.slowest_steps, 0) <= 124')" = true ]
	[ "$(jget "$r" '[o.verdict, o.straggler]')" = '["high",null]' ]
	[ "$(job_delay "$BATS_TEST_TMPDIR/d.lt1")" = "$(jget "$r" 'Math.round(o.job.delay_us * 1000)')" ]
	[ "$(jget "$r" 'Math.abs(o.wait_share - o.job.delay_us / o.job.time_us) < 0.00006')" = true ]
}

# job_delay STREAM: the sum over (attempt-less) steps (epoch, batch) of
# the largest wait of a rank before its batch, in ns: batch 0 from its
# epoch's dataloader span, batch i from the end of batch i-1.  Times are
# cut into whole µs (less the first) and ns, so awk stays exact.
job_delay() {
	awk -F '\t' '
	function ns(s, b,   t) { split(s, t, ".")
		return (t[1] - b) * 1000 + substr(t[2] "000", 1, 3) }
	function arg(k,   v) { v = $8; if (index(v, "\"" k "\":") == 0) return -1
		sub(".*\"" k "\":", "", v); sub(/[,}].*/, "", v); return v + 0 }
	$2 != "X" || ($7 != "batch" && $7 != "dataloader") { next }
	base == "" { split($1, f, "."); base = f[1] }
	$7 == "dataloader" { dl[$3, arg("epoch")] = ns($1, base); next }
	{ b = ns($1, base); d = ns($5, 0); e = arg("epoch"); i = arg("batch")
	  s[$3, e, i] = b; end[$3, e, i] = b + d; key[e, i] = 1; pid[$3] = 1 }
	END { for (k in key) { split(k, q, SUBSEP); m = 0
		for (p in pid) { if (!((p, q[1], q[2]) in s)) continue
			if (q[2] == 0) w = ((p, q[1]) in dl) ? s[p, q[1], 0] - dl[p, q[1]] : 0
			else w = ((p, q[1], q[2] - 1) in end) ? s[p, q[1], q[2]] - end[p, q[1], q[2] - 1] : 0
			if (w > m) m = w }
		sum += m }
	printf "%.0f\n", sum }' "$1"
}

@test "verdict: the job's data delay of a 4-rank genlog log is the sum of each step's largest wait (awk)" {
	need node
	built genlog
	genlog -n 40000 -r 4 -l batch > "$BATS_TEST_TMPDIR/g.log"
	ltparse "$BATS_TEST_TMPDIR/g.log" | ltpair > "$BATS_TEST_TMPDIR/g.lt1"
	ltstat -j "$BATS_TEST_TMPDIR/g.lt1" > "$BATS_TEST_TMPDIR/g.json"
	r=$BATS_TEST_TMPDIR/g.json
	[ "$(jget "$r" 'o.ranks.length')" = 4 ]
	[ "$(jget "$r" 'o.job.steps > 100 && o.job.steps === o.job.paired')" = true ]
	[ "$(job_delay "$BATS_TEST_TMPDIR/g.lt1")" = "$(jget "$r" 'Math.round(o.job.delay_us * 1000)')" ]
	# Each rank's share is at most the job's: the job waits for the slowest.
	[ "$(jget "$r" 'o.ranks.every(x => x.wait_share <= o.wait_share)')" = true ]
}

# ranks STREAM W0 W1 W2 W3: four ranks (pids 100-103) in lockstep for 20
# steps of 12 ms: rank r waits W_r µs before each batch, and its batch
# ends with the step.
ranks() {
	awk -v w="$2 $3 $4 $5" 'BEGIN { split(w, W, " "); OFS = "\t"; print "#lt1"
		for (r = 0; r < 4; r++) {
			for (k = 0; k < 20; k++)
				print k * 12000 + W[r + 1], "X", 100 + r, 1, 12000 - W[r + 1], "batch", "batch", "{\"batch\":" k ",\"epoch\":1,\"dist_global_rank\":" r "}", "{}"
			print 0, "X", 100 + r, 1, 240000, "epoch", "dataloader", "{\"epoch\":1,\"dist_global_rank\":" r "}", "{}" } }' > "$1"
}

@test "verdict: the input straggler: one rank's waits 10x the others' names it; equal waits name none" {
	need node
	f=$BATS_TEST_TMPDIR/s.lt1
	ranks "$f" 1000 1000 10000 1000
	ltstat -j "$f" > "$f.json"
	# Each step loses rank 2's 10 ms of its 12: the job 83.3%, while
	# the other ranks wait 8.3% each.
	[ "$(jget "$f.json" '[o.straggler, o.verdict, o.wait_share, o.job.steps, o.job.delay_us, o.job.time_us, o.job.ideal_us]')" = '[2,"high",0.8333,20,200000,240000,40000]' ]
	[ "$(jget "$f.json" 'o.ranks.map(r => r.rank + ":" + r.wait_share + ":" + r.slowest_steps).join()')" = "0:0.0833:0,1:0.0833:0,2:0.8333:20,3:0.0833:0" ]
	[ "$(jget "$f.json" 'o.why.filter(w => w.startsWith("input straggler: rank 2 held the job back: its waits were the longest of their step for 100.0% of the delay; it waited 200.000 ms, the other ranks 20.000 ms (median)")).length')" = 1 ]
	ltstat "$f" | grep -q '^  why: input straggler: rank 2 held the job back'
	[ "$(jget "$f.json" 'o.job.headroom_us')" = 200000 ]
	ranks "$f" 1000 1000 1000 1000
	ltstat -j "$f" > "$f.json"
	[ "$(jget "$f.json" '[o.straggler, o.wait_share]')" = '[null,0.0833]' ]
	# Twice the others' median is not ten times: 1.9 times names none.
	ranks "$f" 1000 1000 1900 1000
	ltstat -j "$f" > "$f.json"
	[ "$(jget "$f.json" 'o.straggler')" = null ]
}

@test "verdict: run e: the unfinished download is marked, not counted as downloaded; the crash is quoted" {
	need node
	real e "$BATS_TEST_TMPDIR/e.lt1"
	ltstat -j "$BATS_TEST_TMPDIR/e.lt1" > "$BATS_TEST_TMPDIR/e.json"
	r=$BATS_TEST_TMPDIR/e.json
	truth_epochs "$r" "$R/e/truth.json"
	# The truth: chunk-0-20.bin missing, pid 5867, 1.921483 s after its
	# t0 (seconds of the Unix epoch): the download of chunk 20 there.
	[ "$(jget "$r" 'o.slowest_chunks.filter(c => c.unfinished).map(c => c.pid + ":" + c.chunk)')" = '["5867:20"]' ]
	t=$(jget "$R/e/truth.json" 'o.t0_unix * 1e6 + o.downloads.errors[0].t_rel_s * 1e6')
	[ "$(jget "$r" "Math.abs(o.slowest_chunks.find(c => c.unfinished).ts_us - $t) < 1000")" = true ]
	[ "$(jget "$r" 'o.workers.map(w => w.pid + ":" + w.downloaded + ":" + w.unfinished).join()')" = "5867:20:1,5873:23:0" ]
	[ "$(jget "$R/e/truth.json" 'o.downloads.errors.length')" = 1 ]
	[ "$(jget "$r" 'o.why.some(w => w.includes("crashed at +1.937 s: FileNotFoundError: The provided remote_path"))')" = true ]
	[ "$(jget "$r" '[o.verdict, o.ranks[0].epochs[0].open]')" = '["high",true]' ]
	ltstat "$BATS_TEST_TMPDIR/e.lt1" | grep -q '^  chunk 20 of rank 0 worker 0 (pid 5867): download 16.190 ms at +1.921 s, unfinished (left open)$'
}

@test "verdict: run h: a rank with batches and no worker event: unknown, and the hint why" {
	need node
	real h "$BATS_TEST_TMPDIR/h.lt1"
	ltstat -j "$BATS_TEST_TMPDIR/h.lt1" > "$BATS_TEST_TMPDIR/h.json"
	r=$BATS_TEST_TMPDIR/h.json
	truth_epochs "$r" "$R/h/truth.json"
	# The truth: optimize() switched the start method to spawn, and the
	# script saw its 2 worker processes; the log has none.
	[ "$(jget "$R/h/truth.json" '[o.optimize_in_process.start_method_after_optimize, o.worker_processes.length]')" = '["spawn",2]' ]
	[ "$(jget "$r" '[o.workers.length, o.ranks[0].wait_by_cause_us.unknown === o.ranks[0].wait_us, o.ranks[0].cause]')" = '[0,true,"unknown"]' ]
	[ "$(jget "$r" 'o.why.filter(w => w.includes("they were spawned after the process changed its start method")).length')" = 1 ]
	[ "$(jget "$r" 'o.next[0].startsWith("unknown (100.0% of the wait): trace the workers: enable_tracer() in worker_init_fn")')" = true ]
}

@test "verdict: runs a and f67: chunk level; f67 has no batch spans: the verdict is null, never a fake 0" {
	need node
	real a "$BATS_TEST_TMPDIR/a.lt1"
	ltstat -j "$BATS_TEST_TMPDIR/a.lt1" > "$BATS_TEST_TMPDIR/a.json"
	r=$BATS_TEST_TMPDIR/a.json
	truth_epochs "$r" "$R/a/truth.json"
	[ "$(jget "$r" '[o.verdict, o.ranks[0].cause, o.ranks[0].epochs.map(e => e.cause).join()]')" = '["high","read","read,read"]' ]
	# The settings the log wrote are quoted, once per text.
	[ "$(jget "$r" 'o.config.map(c => c.lines).join()')" = "1,4,4" ]
	[ "$(jget "$r" 'o.config[2].text')" = "max_cache_size=20000 (~5 chunks) with 2 workers: capping max_pre_download 4 → 2 to limit peak disk" ]
	real f67 "$BATS_TEST_TMPDIR/f.lt1"
	ltstat -j "$BATS_TEST_TMPDIR/f.lt1" > "$BATS_TEST_TMPDIR/f.json"
	r=$BATS_TEST_TMPDIR/f.json
	[ "$(jget "$r" '[o.verdict, o.wait_share, o.job, o.straggler, o.ranks[0].verdict, o.ranks[0].wait_share, o.ranks[0].wait_us, o.ranks[0].wait_by_cause_us, o.ranks[0].compute_us]')" = '[null,null,null,null,null,null,null,null,null]' ]
	[ "$(jget "$r" 'o.why[0]')" = "no batch spans (LitData writes them from 0.2.68 on, at tracer level batch or above): no step time to measure" ]
	ltstat "$BATS_TEST_TMPDIR/f.lt1" | grep -q '^verdict: unknown$'
}

@test "verdict: -m: exit 3 above the threshold with every output written, 0 at or below it; a bad one exits 2" {
	need node
	f=$BATS_TEST_TMPDIR/s.lt1
	ranks "$f" 1000 1000 10000 1000
	# The job's share is 83.33%: above 83, not above 84.
	run -3 ltstat -m 83 -t -j -o "$f.json" "$f"
	[ "${lines[0]}" = "#lt1" ]
	[[ ${lines[-1]} == "#stat"$'\t'"ltstat"$'\t'* ]]
	[ "$(jget "$f.json" 'o.wait_share')" = 0.8333 ]
	run -0 ltstat --max-wait-share=84 "$f"
	[[ $output == *$'\n'"verdict: input-bound, high:"* ]]
	run -3 ltstat -m 83.3 -j "$f"
	[[ $output == "{\"schema_version\":1,"* ]]
	run -0 ltstat -m 100 "$f"
	# A rank's share counts as the job's does: rank 2's 83.33% alone
	# is above 10%, in a stream of its own.
	grep -P '\t102\t' "$f" | sed '1i #lt1' > "$f.2"
	run -3 ltstat -m 10 "$f.2"
	grep -P '\t100\t' "$f" | sed '1i #lt1' > "$f.0"
	run -0 ltstat -m 10 "$f.0"
	for bad in x -1 100.5 '' 1e9 20%; do
		run -2 --separate-stderr ltstat -m "$bad" "$f"
		[ "$stderr" = "ltstat: -m $bad: not a percentage from 0 to 100" ]
		[ -z "$output" ]
	done
}

@test "verdict: --compare: what changed per rank, cause and category; exit 3 when B is above -m" {
	need node
	real b "$BATS_TEST_TMPDIR/b.lt1"
	real a "$BATS_TEST_TMPDIR/a.lt1"
	ltstat -j -o "$BATS_TEST_TMPDIR/b.json" "$BATS_TEST_TMPDIR/b.lt1"
	ltstat -j -o "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/a.lt1"
	run -0 ltstat --compare "$BATS_TEST_TMPDIR/b.json" "$BATS_TEST_TMPDIR/a.json"
	[ "${lines[1]}" = "verdict: high -> high; wait share 63.4% -> 89.0% (+25.6 points)" ]
	[ "${lines[3]}" = "rank 0: wait share 63.4% -> 89.0% (+25.6 points), wait 9480.689 ms -> 7321.516 ms (-2159.173 ms)" ]
	[ "${lines[5]}" = "  download     3612.673 ms -> 337.397 ms (-3275.277 ms)" ]
	[[ $output == *$'\n'"category download: count 96 -> 104, p50 201.920 ms -> 0.645 ms (-201.276 ms), p95 210.648 ms -> 10.784 ms (-199.865 ms)"$'\n'* ]]
	[[ $output == *$'\n'"category sample: count 4000 -> -, "* ]]
	run -3 ltstat -c -m 80 "$BATS_TEST_TMPDIR/b.json" "$BATS_TEST_TMPDIR/a.json"
	run -0 ltstat -c -m 90 "$BATS_TEST_TMPDIR/b.json" "$BATS_TEST_TMPDIR/a.json"
	run -2 ltstat -c "$BATS_TEST_TMPDIR/b.json"
	echo '{"x":1}' > "$BATS_TEST_TMPDIR/old.json"
	run -1 --separate-stderr ltstat -c "$BATS_TEST_TMPDIR/old.json" "$BATS_TEST_TMPDIR/a.json"
	[ "$stderr" = "ltstat: $BATS_TEST_TMPDIR/old.json: no schema_version: a report of ltstat -j, 2027 or later, is needed" ]
}

@test "verdict: every real run converts and imports with 0 error and 0 data loss; its waits carry their split" {
	tp_need
	for run in a b d e f67 h; do
		litracer -q -o "$BATS_TEST_TMPDIR/$run.json" "$R/$run/litdata_debug.log.gz"
		tp_clean "$BATS_TEST_TMPDIR/$run.json"
	done
	got=$(tp_query "$BATS_TEST_TMPDIR/b.json" "select count(*), sum(extract_arg(arg_set_id, 'args.cause') is not null), sum(abs(ifnull(extract_arg(arg_set_id, 'args.startup_us'), 0) + ifnull(extract_arg(arg_set_id, 'args.download_us'), 0) + ifnull(extract_arg(arg_set_id, 'args.read_us'), 0) + ifnull(extract_arg(arg_set_id, 'args.idle_us'), 0) + ifnull(extract_arg(arg_set_id, 'args.unknown_us'), 0) - dur / 1000.0) < 0.001) from slice where name = 'data wait';")
	[ "$got" = "250,250,250" ]
}

# shown FILE START STOP: the lines of FILE after the line START, up to
# the line STOP.
shown() {
	awk -v a="$2" -v b="$3" 'on && $0 == b { exit } on { print } $0 == a { on = 1 }' "$1"
}

@test "verdict: README, ltstat(1) and litracer(1) show the report of the sample log as it prints" {
	litracer -q --report -o "$BATS_TEST_TMPDIR/run.json" "$DATA/sample.log" > "$BATS_TEST_TMPDIR/report" 2>/dev/null
	r=$BATS_TEST_TMPDIR/report
	cmd='$ litracer -q --report -o run.json tests/data/sample.log'
	shown "$TOP/README.md" "$cmd" '...' > "$BATS_TEST_TMPDIR/readme"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/readme")" -gt 40 ]
	head -n "$(wc -l < "$BATS_TEST_TMPDIR/readme")" "$r" | diff "$BATS_TEST_TMPDIR/readme" -
	awk '/^prints it in a clone, opens/ { on = 1; next } on && $0 == "\\&..." { exit } on && $0 != ".Bd -literal" && $0 !~ /^\.Pq / { print }' "$TOP/man/litracer.1" > "$BATS_TEST_TMPDIR/litracer.1"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/litracer.1")" -gt 25 ]
	head -n "$(wc -l < "$BATS_TEST_TMPDIR/litracer.1")" "$r" | diff "$BATS_TEST_TMPDIR/litracer.1" -
	awk '/^prints it \(then come/ { on = 1; next } on && $0 == ".Ed" { exit } on && $0 != ".Bd -literal" { print }' "$TOP/man/ltstat.1" > "$BATS_TEST_TMPDIR/ltstat.1"
	head -n "$(wc -l < "$BATS_TEST_TMPDIR/ltstat.1")" "$r" | diff "$BATS_TEST_TMPDIR/ltstat.1" -
}
