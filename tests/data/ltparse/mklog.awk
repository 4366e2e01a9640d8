# mklog.awk: a deterministic LitData enable_tracer() log for the ltparse
# tests and benchmark (the real generator is tests/bench/genlog).
#
#	awk -v fmt=new|old|v1|mixed -v n=LINES [-v seed=S] [-v noise=0] \
#	    -f mklog.awk
#
# Ranks with forked workers (the worker's main thread has the parent's
# thread id; sibling prefetch threads share one), B/E spans of every
# kind of the format, the logger lines of spec section 9, and for v1 and
# old multi-line tracebacks.  Timestamps grow by a few microseconds per
# line, as the format writes them.
function env(r, w) {
	return "dist_world_size: 2;dist_global_rank: " r \
	    ";dist_num_nodes: 1;worker_world_size: 4;worker_rank: " w ";"
}
function stamp(   s, us) {
	t += 3 + int(rand() * 40)
	if (f == "new") {
		return sprintf("%.0f.%s", base + t, substr("000250500750",
		    (t % 4) * 3 + 1, 3))
	}
	s = sprintf("%.0f.%07d", 1795940303 + int(t / 10000000), t % 10000000)
	sub(/0+$/, "", s)
	return s
}
function prefix(p, th, lg) {
	if (f == "v1")
		return "ts:" stamp() "; logger_name:litdata.streaming." lg \
		    "; level:DEBUG; PID:" p "; TID:" th "; "
	return "ts:" stamp() ";PID:" p "; TID:" th "; "
}
function ev(p, th, lg, name, ph, rest, r, w) {
	print prefix(p, th, lg) "name: " name ";ph: " ph ";" rest env(r, w)
	out++
}
function newspan(p, th, r, w, c,   k, ph) {
	k = int(rand() * 9)
	ph = rand() < 0.5 ? "B" : "E"
	if (k == 0)
		ev(p, th, "", "read", ph, "cat: read;cname: good;chunk: " c \
		    ";size: 512;", r, w)
	else if (k == 1)
		ev(p, th, "", "sample", ph, "cat: sample;cname: generic_work;" \
		    "chunk: " c ";index: " (c * 512 + out % 512) ";", r, w)
	else if (k == 2)
		ev(p, pt, "", "download", ph, "cat: download;cname: " \
		    "rail_load;chunk: " c ";", r, w)
	else if (k == 3)
		ev(p, pt, "", "prefetch", ph, "cat: download;cname: " \
		    "rail_load;chunks: " (c % 3) ";", r, w)
	else if (k == 4)
		ev(p, pt, "", "lock", ph, "cat: lock;cname: " \
		    "thread_state_sleeping;op: increment;chunk: " c \
		    ";count: 1;", r, w)
	else if (k == 5)
		ev(p, pt, "", "decompress", ph, "cat: decompress;" \
		    "cname: cq_build_attempt_running;", r, w)
	else if (k == 6)
		ev(p, pt, "", "delete", ph, "cat: delete;cname: " \
		    "rail_animate;chunk: " (c - 2) ";", r, w)
	else if (k == 7)
		ev(p, th, "", "batch", ph, "cat: batch;cname: " \
		    "thread_state_runnable;batch: " out % 97 ";epoch: 1;", r, w)
	else
		ev(p, th, "", "dataloader", ph, "cat: epoch;cname: " \
		    "memory_dump;epoch: 1;", r, w)
}
function oldspan(p, th, r, w, c,   k, ph) {
	k = int(rand() * 8)
	ph = rand() < 0.5 ? "B" : "E"
	if (k == 0)
		ev(p, th, "", "read_chunk_" c "_size_512", ph, "", r, w)
	else if (k == 1)
		ev(p, pt, "", "download_chunk_" c, ph, "", r, w)
	else if (k == 2)
		ev(p, pt, "", "prefetch_download_chunk_" c, ph,
		    "cname: rail_load;", r, w)
	else if (k == 3)
		ev(p, pt, "", "increment_lock_chunk_" c "_to_1", ph, "",
		    r, w)
	else if (k == 4)
		ev(p, th, "", "decrement_lock_" c "_to_0", ph, "", r, w)
	else if (k == 5)
		ev(p, pt, "", "decompress", ph,
		    "cname: cq_build_attempt_running;", r, w)
	else if (k == 6)
		ev(p, pt, "", "delete_chunk_" (c - 2), ph,
		    "cname: rail_animate;", r, w)
	else
		ev(p, th, "", "iterating_dataloader", ph, "", r, w)
}
function v1span(p, th, r, w, c,   k, ph, i) {
	k = int(rand() * 9)
	ph = rand() < 0.5 ? "B" : "E"
	i = c * 512 + out % 512
	if (k == 0)
		ev(p, th, "dataset", "getitem_dataset_for_chunk_index_" c \
		    "_and_index_" i, ph, "", r, 0)
	else if (k == 1)
		ev(p, th, "reader", "reader_reading_chunk_index_" c \
		    "_and_index_" i, ph, "", r, 0)
	else if (k == 2)
		ev(p, th, "config", "get_item_for_chunk_index_" c \
		    "_and_index_" ((rand() < 0.1) ? -1 : i), ph,
		    "cname: cq_build_passed;", r, 0)
	else if (k == 3)
		ev(p, th, "item_loader", "load_item_from_chunk_for_chunk_index_" \
		    c "_and_index_" i, ph, "", r, 0)
	else if (k == 4)
		ev(p, th, "reader", "decrement_local_lock_for_ /root/.lightning/" \
		    "chunks/ab/cd/chunk-0-" c ".bin", ph, "", r, 0)
	else if (k == 5)
		ev(p, pt, "downloader", "download_chunk_from_index_" c,
		    ph, "", r, 0)
	else if (k == 6)
		ev(p, pt, "compression", "Decompress" \
		    (ph == "B" ? "ing" : "ed") " data", ph,
		    "cname: cq_build_attempt_running;", r, 0)
	else if (k == 7)
		ev(p, pt, "item_loader", "delete_chunk_for_chunk_index_" \
		    (c - 2), ph, "cname: rail_animate;", r, 0)
	else
		ev(p, th, "dataloader", "iterating_dataloader", ph, "", r, 0)
}
function junk(p, th, r, w, c,   k) {
	k = int(rand() * 6)
	if (k == 0 || f == "new") {
		print prefix(p, th, "reader") "_apply_delete(" c \
		    ", skip_lock=False) called"
	} else if (k == 1) {
		print prefix(p, th, "reader") "Async chunk prefetch: raising " \
		    "max_pre_download 2 \342\206\222 4 so prefetch keeps up"
	} else if (k == 2) {
		print ""
	} else {
		print prefix(p, th, "raw") "prefetch failed; will retry on demand"
		print "Traceback (most recent call last):"
		print "  File \"/usr/lib/python3.11/site-packages/litdata/" \
		    "raw/dataset.py\", line 88, in _prefetch"
		print "    data = self._fetch(index)"
		print "TimeoutError: read timed out"
		out += 4
	}
	out++
}
function gen(fm, lines,   p, th, r, w, c) {
	f = fm
	while (out < lines) {
		r = int(rand() * 2)
		w = int(rand() * 4)
		p = 13966 + r * 100 + w + 1 + gbase[f]
		th = sprintf("%.0f", 139640468265856 + r * 65536)
		pt = sprintf("%.0f", 139640468265856 + r * 65536 + 4096)
		c = 3 + int(out / 50) % 4000
		if (noisy && rand() < 0.02)
			junk(p, th, r, w, c)
		else if (f == "new")
			newspan(p, th, r, w, c)
		else if (f == "old")
			oldspan(p, th, r, w, c)
		else
			v1span(p, th, r, w, c)
	}
}
BEGIN {
	if (seed == "")
		seed = 1
	srand(seed)
	noisy = noise == "" ? 1 : noise + 0
	base = 1795940303867556
	gbase["new"] = 0
	gbase["old"] = 1000
	gbase["v1"] = 2000
	if (fmt == "mixed") {
		gen("v1", n / 3)
		gen("old", 2 * n / 3)
		gen("new", n)
	} else
		gen(fmt == "" ? "new" : fmt, n)
}
