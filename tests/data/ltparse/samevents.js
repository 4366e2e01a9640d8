// samevents.js A B: trace B holds the events of trace A, in order, with
// the same values after JSON normalisation (node's JSON.parse, so for a
// repeated key the last one counts).  ts and dur are compared in integer
// nanoseconds after adding each trace's metadata.litracer.ts_offset_us;
// events without a one-character ph (no lt1 form) are not expected in B.
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
	for (const k of ['ts', 'dur'])
		if (typeof o[k] === 'number')
			o[k] = (BigInt(Math.round(o[k] * 1000)) +
			    (k === 'ts' ? off : 0n)).toString() + 'ns';
	return canon(o);
}

const a = load(process.argv[2]), b = load(process.argv[3]);
const keep = a.events.filter((e) => e !== null && typeof e === 'object' &&
    !Array.isArray(e) && typeof e.ph === 'string' && /^[!#-[\]-~]$/.test(e.ph));
if (keep.length !== b.events.length) {
	console.error(`events: ${keep.length} expected, ${b.events.length} found`);
	process.exit(1);
}
keep.forEach((e, i) => {
	const x = norm(e, a.off), y = norm(b.events[i], b.off);
	if (x !== y) {
		console.error(`event ${i}:\n  ${x}\n  ${y}`);
		process.exit(1);
	}
});
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
		if (canon(x) !== canon(y)) {
			console.error(`top-level ${k} differs`);
			process.exit(1);
		}
	}
console.log(`${keep.length} events match`);
