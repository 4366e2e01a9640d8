#!/usr/bin/env bats
# PyTorch profiler (Kineto) traces: ltstat's step-time breakdown, by the
# rules of TensorBoard's profiler plugin, against the plugin's own
# numbers for its sample trace and on hand-made traces of each priority
# overlap; ltcheck's findings on what such traces lose silently, and
# what the chain repairs.

bats_require_minimum_version 1.5.0
load helper

K=$DATA/kineto
SAMPLE=$K/worker0.1623143089861.pt.trace.json.gz

# trace FILE: a JSON trace of the events on stdin, one per line.
trace() {
	{ echo '{"traceEvents":['; sed '$!s/$/,/'; echo ']}'; } > "$1"
}

# breakdown JSON: ltstat -j of a trace's default chain.
breakdown() {
	ltparse "$1" | ltpair | ltstat -j > "$1.report"
}

@test "kineto: the plugin's sample: every step's breakdown to the µs, the average's shares to 0.01, input-bound at 33.4%" {
	need node
	ltparse "$SAMPLE" | ltpair | ltstat -j > "$BATS_TEST_TMPDIR/r.json"
	r=$BATS_TEST_TMPDIR/r.json
	# Steps 5 to 10, each column as TensorBoard's plugin computed it.
	node -e '
	const fs = require("fs");
	const o = JSON.parse(fs.readFileSync(process.argv[1]));
	const x = JSON.parse(fs.readFileSync(process.argv[2]));
	const cols = ["total", "kernel", "memcpy", "memset", "runtime", "dataloader", "cpu_exec", "other"];
	if (o.steps.length !== x.steps.length) throw new Error("steps " + o.steps.length);
	x.steps.forEach((e, i) => {
		const g = o.steps[i];
		if (String(g.step) !== e.step) throw new Error("step " + g.step);
		for (const c of cols)
			if (g[c + "_us"] !== e[c]) throw new Error("step " + e.step + " " + c + ": " + g[c + "_us"] + ", plugin " + e[c]);
		if (g.communication_us !== 0) throw new Error("communication");
	});
	// The average step: its value rounded half to even, its percentages.
	const names = {Kernel: "kernel", Memcpy: "memcpy", Memset: "memset", Runtime: "runtime", DataLoader: "dataloader", "CPU Exec": "cpu_exec", Other: "other"};
	const p = x.performance[0], a = o.ranks[0].average, pc = o.ranks[0].percent;
	const even = v => { const f = Math.floor(v), d = v - f; return d > 0.5 || (d === 0.5 && f % 2) ? f + 1 : f; };
	if (even(a.total_us) !== p.value) throw new Error("average " + a.total_us);
	for (const c of p.children) {
		const k = names[c.name];
		if (even(a[k + "_us"]) !== c.value) throw new Error(c.name + " " + a[k + "_us"]);
		if (Math.abs(pc[k] - c.extra) > 0.005) throw new Error(c.name + " " + pc[k] + "%, plugin " + c.extra + "%");
	}' "$r" "$K/expected-overview.json"
	[ "$(jget "$r" '[o.kind, o.verdict, o.wait_share, o.ranks[0].verdict, o.job.steps]')" = '["kineto","high",0.3337,"high",6]' ]
	# The plugin's advice says 33.4% (its ratio, to one decimal); so do we.
	jget "$K/expected-overview.json" 'o.dataloader_recommendation' | grep -q ' 33.4% of the step time is in DataLoader'
	ltparse "$SAMPLE" | ltpair | ltstat > "$BATS_TEST_TMPDIR/r.txt"
	grep -q '^verdict: input-bound, high: 33.4% of the step time is in the DataLoader$' "$BATS_TEST_TMPDIR/r.txt"
	grep -q '^  %             100.00       55.51        1.08        0.05        1.64       33.37        7.70        0.65$' "$BATS_TEST_TMPDIR/r.txt"
	grep -q '^  5             187948       98598        1941          90        2796       69317       14091        1115$' "$BATS_TEST_TMPDIR/r.txt"
	# The same through the driver's chain (lanes, the trace's additions).
	litracer -q --report -o "$BATS_TEST_TMPDIR/t.json" "$SAMPLE" > "$BATS_TEST_TMPDIR/d.txt" 2>/dev/null
	diff <(sed -n '/^6 steps/,/^  %/p' "$BATS_TEST_TMPDIR/r.txt") <(sed -n '/^6 steps/,/^  %/p' "$BATS_TEST_TMPDIR/d.txt")
}

@test "kineto: the worked example of one step: 60 kernel, 10 memcpy, 18 runtime, 12 DataLoader, 20 CPU exec, 6 other" {
	need node
	cp "$K/example.json" "$BATS_TEST_TMPDIR/e.json"
	breakdown "$BATS_TEST_TMPDIR/e.json"
	r=$BATS_TEST_TMPDIR/e.json.report
	# The early kernel (launched before the step, ends at 104) moves the
	# step's start; the conv kernel, to 230, its end: 104-230, 126 µs.
	[ "$(jget "$r" 'o.steps')" = '[{"step":1,"total_us":126,"kernel_us":60,"memcpy_us":10,"memset_us":0,"communication_us":0,"runtime_us":18,"dataloader_us":12,"cpu_exec_us":20,"other_us":6}]' ]
	[ "$(jget "$r" 'o.ranks[0].percent')" = '{"kernel":47.62,"memcpy":7.94,"memset":0,"communication":0,"runtime":14.29,"dataloader":9.52,"cpu_exec":15.87,"other":4.76}' ]
	[ "$(jget "$r" '[o.verdict, o.wait_share]')" = '["moderate",0.0952]' ]
}

# step NAME TS DUR: a ProfilerStep event on the CPU thread.
step() {
	printf '{"ph":"X","cat":"cpu_op","name":"ProfilerStep#%s","ts":%s,"dur":%s,"pid":1,"tid":1,"args":{}}\n' "$1" "$2" "$3"
}

@test "kineto: each priority overlap, split by hand: DataLoader under a kernel, memcpy under a runtime, nothing at all, Q5" {
	need node
	f=$BATS_TEST_TMPDIR/p.json
	# A step [0, 100); its launch [5, 8) of a kernel [20, 40) under the
	# DataLoader's [10, 50): kernel 20, runtime 3, DataLoader 10 + 10,
	# other 47.
	{ step 1 0 100
	  echo '{"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__","ts":10,"dur":40,"pid":1,"tid":1,"args":{}}'
	  echo '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","ts":5,"dur":3,"pid":1,"tid":1,"args":{"correlation":1}}'
	  echo '{"ph":"X","cat":"kernel","name":"k","ts":20,"dur":20,"pid":0,"tid":7,"args":{"correlation":1}}'
	} | trace "$f"
	breakdown "$f"
	[ "$(jget "$f.report" 'o.steps[0]')" = '{"step":1,"total_us":100,"kernel_us":20,"memcpy_us":0,"memset_us":0,"communication_us":0,"runtime_us":3,"dataloader_us":20,"cpu_exec_us":0,"other_us":57}' ]
	# A memcpy [15, 25) under its runtime call [10, 30): memcpy 10,
	# runtime 10, other 80.
	{ step 1 0 100
	  echo '{"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","ts":10,"dur":20,"pid":1,"tid":1,"args":{"correlation":2}}'
	  echo '{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","ts":15,"dur":10,"pid":0,"tid":7,"args":{"correlation":2}}'
	} | trace "$f"
	breakdown "$f"
	[ "$(jget "$f.report" 'o.steps[0]')" = '{"step":1,"total_us":100,"kernel_us":0,"memcpy_us":10,"memset_us":0,"communication_us":0,"runtime_us":10,"dataloader_us":0,"cpu_exec_us":0,"other_us":80}' ]
	# A step and nothing in it: other; no DataLoader: not input-bound.
	step 7 0 100 | trace "$f"
	breakdown "$f"
	[ "$(jget "$f.report" '[o.steps[0].total_us, o.steps[0].other_us, o.verdict, o.wait_share]')" = '[100,100,"not",0]' ]
	# Q5: a kernel over the whole step and a memcpy inside it: the
	# memcpy is counted again, the columns add up to more than the step.
	{ step 1 0 100
	  echo '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","ts":0,"dur":1,"pid":1,"tid":1,"args":{"correlation":1}}'
	  echo '{"ph":"X","cat":"kernel","name":"k","ts":0,"dur":100,"pid":0,"tid":7,"args":{"correlation":1}}'
	  echo '{"ph":"X","cat":"gpu_memcpy","name":"m","ts":30,"dur":30,"pid":0,"tid":8,"args":{"correlation":5}}'
	} | trace "$f"
	breakdown "$f"
	[ "$(jget "$f.report" '[o.steps[0].total_us, o.steps[0].kernel_us, o.steps[0].memcpy_us]')" = '[100,100,30]' ]
}

@test "kineto: a trace with no ProfilerStep says so, and breaks its extent down as one step" {
	need node
	f=$BATS_TEST_TMPDIR/n.json
	{ echo '{"ph":"X","cat":"cpu_op","name":"aten::mm","ts":100,"dur":50,"pid":1,"tid":1,"args":{}}'
	  echo '{"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","ts":150,"dur":50,"pid":1,"tid":1,"args":{}}'
	  echo '{"ph":"X","cat":"cpu_op","name":"aten::add","ts":200,"dur":10,"pid":1,"tid":1,"args":{}}'
	} | trace "$f"
	breakdown "$f"
	# The op events span [100, 210): DataLoader 50 of it (the annotation
	# does not count for the extent, spec Q9).
	[ "$(jget "$f.report" 'o.steps')" = '[{"step":0,"total_us":110,"kernel_us":0,"memcpy_us":0,"memset_us":0,"communication_us":0,"runtime_us":0,"dataloader_us":50,"cpu_exec_us":60,"other_us":0}]' ]
	[ "$(jget "$f.report" '[o.ranks[0].profiler_steps, o.verdict]')" = '[false,"high"]' ]
	[ "$(jget "$f.report" 'o.why[0]')" = "no ProfilerStep in the trace: its whole extent is one step, 0, as TensorBoard's plugin made it" ]
	ltparse "$f" | ltpair | ltstat | grep -q '^ltstat: a PyTorch profiler (Kineto) trace; 1 trace, 0 profiler steps,'
}

@test "kineto: -d names a DataLoader the plugin does not know; a LitData log's report has no breakdown" {
	need node
	f=$BATS_TEST_TMPDIR/d.json
	{ step 1 0 100
	  echo '{"ph":"X","cat":"user_annotation","name":"MyLoader.next_batch","ts":0,"dur":40,"pid":1,"tid":1,"args":{}}'
	} | trace "$f"
	ltparse "$f" | ltpair > "$f.lt1"
	ltstat -j "$f.lt1" > "$f.r"
	[ "$(jget "$f.r" '[o.steps[0].dataloader_us, o.steps[0].cpu_exec_us]')" = '[0,40]' ]
	ltstat -j -d MyLoader "$f.lt1" > "$f.r"
	[ "$(jget "$f.r" '[o.steps[0].dataloader_us, o.steps[0].cpu_exec_us, o.verdict]')" = '[40,0,"high"]' ]
	run -2 --separate-stderr ltstat -d '' "$f.lt1"
	[ "$stderr" = "ltstat: -d: an empty name" ]
	# A LitData log: kind litdata, no steps, no profiler in the text.
	ltstat -j "$DATA/ltstat/hand.lt1" > "$f.r"
	[ "$(jget "$f.r" '[o.kind, o.steps]')" = '["litdata",null]' ]
	ltstat "$DATA/ltstat/hand.lt1" | grep -q -i 'profiler\|kineto' && false
	golden "$DATA/ltstat/hand.txt" ltstat "$DATA/ltstat/hand.lt1"
}

@test "kineto: two ranks' traces given together: per rank, and each step's longest rank for the job" {
	need node
	# Rank 0 loads for 10 µs of each 100 µs step, rank 1 for 60 of 120.
	for r in 0 1; do
		l=$((r == 0 ? 10 : 60)) d=$((r == 0 ? 100 : 120))
		{ echo '{"traceEvents":['
		  for s in 1 2; do
			printf '{"ph":"X","cat":"cpu_op","name":"ProfilerStep#%s","ts":%s,"dur":%s,"pid":1,"tid":1,"args":{}},\n' "$s" $((s * 1000)) "$d"
			printf '{"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","ts":%s,"dur":%s,"pid":1,"tid":1,"args":{}},\n' $((s * 1000)) "$l"
		  done
		  echo '{"ph":"i","name":"end","ts":5000,"pid":1,"tid":1,"s":"t"}'
		  printf '],"distributedInfo":{"backend":"nccl","rank":%s,"world_size":2}}\n' "$r"
		} > "$BATS_TEST_TMPDIR/r$r.json"
	done
	ltparse "$BATS_TEST_TMPDIR/r0.json" "$BATS_TEST_TMPDIR/r1.json" | ltpair | ltstat -j > "$BATS_TEST_TMPDIR/j.json"
	r=$BATS_TEST_TMPDIR/j.json
	[ "$(jget "$r" 'o.ranks.map(x => x.rank + ":" + x.verdict + ":" + x.wait_share + ":" + x.wait_us).join()')" = "0:moderate:0.1:20,1:high:0.5:120" ]
	# The job's step is its longest rank's: rank 1's, 60 of 120.
	[ "$(jget "$r" '[o.steps.map(s => s.step + ":" + s.total_us + ":" + s.dataloader_us).join(), o.wait_share, o.verdict]')" = '["1:120:60,2:120:60",0.5,"high"]' ]
}

# finding REPORT RULE: "COUNT LINES" of a finding in ltcheck's report.
finding() {
	awk -v rule="$2" '$NF == rule { n = $(NF - 1); getline; getline; sub(/^ +lines? /, ""); print n, $0; exit }' "$1"
}

@test "kineto: ltcheck reports what Perfetto imports without a word: zero ts and dur, overlapping steps, launches without kernels, string ts, flow ids >= 2^53" {
	f=$BATS_TEST_TMPDIR/l.json
	{ step 1 100 100
	  echo '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","ts":110,"dur":5,"pid":1,"tid":1,"args":{"correlation":1}}'
	  step 2 180 100
	  echo '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","ts":200,"dur":5,"pid":1,"tid":1,"args":{"correlation":2}}'
	  echo '{"ph":"X","cat":"kernel","name":"k","ts":210,"dur":20,"pid":0,"tid":7,"args":{"correlation":2}}'
	  echo '{"ph":"X","cat":"cpu_op","name":"aten::add","ts":0,"dur":0,"pid":1,"tid":3,"args":{}}'
	  echo '{"ph":"X","cat":"cpu_op","name":"aten::mul","ts":0,"dur":0,"pid":1,"tid":3,"args":{}}'
	  echo '{"ph":"X","cat":"cpu_op","name":"aten::x","ts":"300.5","dur":1,"pid":1,"tid":1,"args":{}}'
	  echo '{"ph":"X","cat":"cpu_op","name":"aten::sum","ts":0,"dur":0,"pid":1,"tid":3,"args":{}}'
	  echo '{"ph":"s","cat":"c","name":"f","id":9007199254740993,"ts":112,"pid":1,"tid":1}'
	  echo '{"ph":"f","bp":"e","cat":"c","name":"f","id":9007199254740993,"ts":211,"pid":0,"tid":7}'
	} | trace "$f"
	# (Exit 1: the overlapping steps cross on their thread, an import error.)
	run -1 ltcheck "$f"
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/c.txt"
	c=$BATS_TEST_TMPDIR/c.txt
	# Lines count from the file's first, '{"traceEvents":['.
	[ "$(finding "$c" LT-ZERO-TS-RUN)" = "3 7 8 10" ]
	grep -q 'all at time 0: 3 events in 2 runs$' "$c"
	[ "$(finding "$c" LT-STEP-OVERLAP)" = "1 4" ]
	[ "$(finding "$c" LT-STEP-NO-GPU-WORK)" = "1 2" ]
	grep -q ': 1 launches in 1 steps, none with a kernel, memcpy or memset$' "$c"
	[ "$(finding "$c" LT-TS-STRING)" = "1 9" ]
	[ "$(finding "$c" LT-FLOW-ID-DOUBLE)" = "2 11 12" ]
	grep -q '^Perfetto v57+: .* silent losses 8 events in 5 rules$' "$c"
	# The plugin's sample has none of them.
	ltcheck "$SAMPLE" | grep -q ' LT-' && false
	# An absolute µs ts beyond 2^53 ns: how much a double moved it.
	echo '{"ph":"X","cat":"cpu_op","name":"a","ts":1796180777367788.123,"dur":1,"pid":1,"tid":1,"args":{}}' | trace "$f"
	ltcheck "$f" | grep -q 'double rounding moves it: a double moved them by up to 123 ns$'
}

@test "kineto: the chain repairs string ts and flow ids >= 2^53, counts them, and the trace imports clean" {
	need node
	tp_need
	f=$BATS_TEST_TMPDIR/l.json
	{ step 1 100 100
	  echo '{"ph":"X","cat":"cpu_op","name":"aten::x","ts":"150.5","dur":"10","pid":1,"tid":1,"args":{}}'
	  echo '{"ph":"s","cat":"c","name":"f","id":9007199254740993,"ts":112,"pid":1,"tid":1}'
	  echo '{"ph":"f","bp":"e","cat":"c","name":"f","id":9007199254740993,"ts":151,"pid":1,"tid":1}'
	  echo '{"ph":"s","cat":"c","name":"f","id":9007199254740992,"ts":113,"pid":1,"tid":1}'
	  echo '{"ph":"f","bp":"e","cat":"c","name":"f","id":9007199254740992,"ts":152,"pid":1,"tid":1}'
	} | trace "$f"
	ltparse "$f" > "$BATS_TEST_TMPDIR/p.lt1"
	# The string is the number; the two ids, which a double takes for
	# one, are two ids below 2^53, the same for both ends of each flow.
	grep -q $'^150.5\tX\t1\t1\t10\tcpu_op\taten::x\t' "$BATS_TEST_TMPDIR/p.lt1"
	[ "$(grep -o '"id":[0-9]*' "$BATS_TEST_TMPDIR/p.lt1" | tr '\n' ' ')" = '"id":9007199254740991 "id":9007199254740991 "id":9007199254740990 "id":9007199254740990 ' ]
	[ "$(stat_of ltparse repaired "$BATS_TEST_TMPDIR/p.lt1")" = 5 ]
	litracer -q -o "$BATS_TEST_TMPDIR/t.json" "$f"
	tp_clean "$BATS_TEST_TMPDIR/t.json"
	[ "$(tp_query "$BATS_TEST_TMPDIR/t.json" 'select count(*) from flow;')" = 2 ]
	run -0 ltcheck "$BATS_TEST_TMPDIR/t.json"
	[[ $output != *LT-TS-STRING* && $output != *LT-FLOW-ID-DOUBLE* ]]
}

@test "kineto: README shows the report of the plugin's sample as it prints" {
	litracer -q --report -o "$BATS_TEST_TMPDIR/r.json" "$SAMPLE" 2>/dev/null |
	    readme_shows 'litracer -q --report -o resnet.json tests/data/kineto/worker0.1623143089861.pt.trace.json.gz'
}
