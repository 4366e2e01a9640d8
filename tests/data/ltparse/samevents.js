// samevents.js A B: trace B holds the events of trace A, in order, with
// the same values after JSON normalisation (node's JSON.parse, so for a
// repeated key the last one counts; a ts or dur string that is a JSON
// number is that number).  ts and dur are compared in integer
// nanoseconds after adding each trace's metadata.litracer.ts_offset_us;
// events without a one-character ph (no lt1 form), and X events of
// negative dur (Perfetto drops them), are not expected in B.
//
// pid and tid: an integer Perfetto takes (0..2^32-1; a tid other than 0,
// or with pid 0) is the same in B; any other id, and a string that
// spells an integer, stands for one integer in 1..2^32-1 of B, the same
// wherever it is (a tid: within its process), never the pid, distinct
// from every other thread of the process.  After the events, B may hold
// M records that name the processes and threads whose ids changed.
// The other top-level members, and metadata less its "litracer", match;
// displayTimeUnit is left out by ltjson (ltjson(1)).
'use strict';
const fs = require('fs');

function load(f) {
	const t = JSON.parse(fs.readFileSync(f, 'utf8'));
	const events = Array.isArray(t) ? t : t.traceEvents;
	const lit = !Array.isArray(t) && t.metadata && t.metadata.litracer;
	return { t, events, off: BigInt(Math.round((lit ? lit.ts_offset_us : 0) * 1000)) };
}

function canon(v) {
	if (Array.isArray(v))
		return '[' + v.map(canon).join(',') + ']';
	if (v !== null && typeof v === 'object')
		return '{' + Object.keys(v).sort().map((k) =>
		    JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
	return JSON.stringify(v);
}

function norm(e, off) {
	const o = Object.assign({}, e);
	delete o.pid;
	delete o.tid;
	for (const k of ['ts', 'dur']) {
		// A string that is a JSON number is that number (ltparse(1)).
		if (typeof o[k] === 'string' &&
		    /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(o[k]))
			o[k] = Number(o[k]);
		if (typeof o[k] === 'number')
			o[k] = (BigInt(Math.round(o[k] * 1000)) +
			    (k === 'ts' ? off : 0n)).toString() + 'ns';
	}
	return canon(o);
}

const valid = (v) => Number.isInteger(v) && v >= 0 && v <= 4294967295;

// The key of an id as written: a string spelling an integer is it.
function idkey(v) {
	if (typeof v === 'string' && /^-?[0-9]+$/.test(v) &&
	    Number.isSafeInteger(Number(v)))
		return 'n' + Number(v);
	return (typeof v === 'number' ? 'n' : 's') + String(v);
}

const fail = (msg) => { console.error(msg); process.exit(1); };
const pids = new Map(), tids = new Map(), used = new Map();

// The id of B for the id of A: kept when valid, else the same each time.
function same(map, key, a, b, what, keepit) {
	if (a === undefined)
		return b === undefined || fail(`${what}: ${b} for none`);
	if (keepit)
		return b === a || fail(`${what} ${a} became ${b}`);
	if (!valid(b) || b === 0)
		fail(`${what} ${JSON.stringify(a)}: ${b} is not a valid id`);
	if (map.has(key) && map.get(key) !== b)
		fail(`${what} ${JSON.stringify(a)}: ${b}, before ${map.get(key)}`);
	map.set(key, b);
	return true;
}

function ids(ea, eb) {
	const pa = ea.pid, ta = ea.tid;
	same(pids, idkey(pa), pa, eb.pid, 'pid', valid(pa));
	const pkey = idkey(pa);
	// A process's M event keeps its tid 0.
	const proc0 = ea.ph === 'M' && typeof ea.name === 'string' &&
	    ea.name.startsWith('process_') && ta === 0;
	same(tids, pkey + ' ' + idkey(ta), ta, eb.tid, 'tid',
	    proc0 || (valid(ta) && (ta !== 0 || eb.pid === 0)));
	if (ta === undefined || proc0)
		return;
	if (eb.tid === eb.pid && ta !== pa && !(valid(ta) && ta === eb.pid))
		fail(`tid ${JSON.stringify(ta)} became the pid ${eb.pid}`);
	const u = pkey + ' ' + eb.tid;
	if (used.has(u) && used.get(u) !== idkey(ta))
		fail(`tid ${eb.tid} of pid ${eb.pid} stands for two threads`);
	used.set(u, idkey(ta));
}

const a = load(process.argv[2]), b = load(process.argv[3]);
const keep = a.events.filter((e) => e !== null && typeof e === 'object' &&
    !Array.isArray(e) && typeof e.ph === 'string' &&
    /^[!#-[\]-~]$/.test(e.ph) &&
    !(e.ph === 'X' && typeof e.dur === 'number' && e.dur < 0));
if (b.events.length < keep.length)
	fail(`events: ${keep.length} expected, ${b.events.length} found`);
// A name the trace gives a process or thread whose id changed gets
// " (pid P)" or " (tid T)" after it: without it, it is A's.
function unsuffixed(ea, eb) {
	if (eb.ph !== 'M' || !eb.args || typeof eb.args.name !== 'string' ||
	    !ea.args || typeof ea.args.name !== 'string' ||
	    !eb.args.name.startsWith(ea.args.name + ' (') ||
	    !eb.args.name.endsWith(')'))
		return eb;
	return Object.assign({}, eb, { args: Object.assign({}, eb.args,
	    { name: ea.args.name }) });
}

keep.forEach((e, i) => {
	const x = norm(e, a.off), y = norm(unsuffixed(e, b.events[i]), b.off);
	if (x !== y)
		fail(`event ${i}:\n  ${x}\n  ${y}`);
	ids(e, b.events[i]);
});
const names = b.events.slice(keep.length);
for (const e of names)
	if (e.ph !== 'M' || (e.name !== 'process_name' && e.name !== 'thread_name'))
		fail(`not a name after the events: ${canon(e)}`);
if (!Array.isArray(a.t))
	for (const k of Object.keys(a.t)) {
		if (k === 'traceEvents' || k === 'displayTimeUnit')
			continue;
		let x = a.t[k], y = b.t[k];
		if (k === 'metadata') {
			x = Object.assign({}, x);
			y = Object.assign({}, y);
			delete x.litracer;
			delete y.litracer;
		}
		if (canon(x) !== canon(y))
			fail(`top-level ${k} differs`);
	}
console.log(`${keep.length} events match, ${names.length} names added`);
