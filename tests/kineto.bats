#!/usr/bin/env bats
# PyTorch profiler (Kineto) traces: ltcheck's findings on what such
# traces lose silently, and what the chain repairs.

bats_require_minimum_version 1.5.0
load helper

K=$DATA/kineto
SAMPLE=$K/worker0.1623143089861.pt.trace.json.gz

# trace FILE: a JSON trace of the events on stdin, one per line.
trace() {
	{ echo '{"traceEvents":['; sed '$!s/$/,/'; echo ']}'; } > "$1"
}

# step NAME TS DUR: a ProfilerStep event on the CPU thread.
step() {
	printf '{"ph":"X","cat":"cpu_op","name":"ProfilerStep#%s","ts":%s,"dur":%s,"pid":1,"tid":1,"args":{}}\n' "$1" "$2" "$3"
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
	grep -q '^Perfetto v57+: .* silent losses 5$' "$c"
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
