// tv.js PKG FILE: import FILE with catapult trace-viewer (npm package
// traceviewer@1.0.11, installed at PKG) and print its import warnings
// ("warning TAB type TAB message"), then "slices TAB N", or "error TAB
// message" and exit 1 when the import throws.  A second, different
// oracle for ltcheck's tests (see ltcheck.bats); not Perfetto.
'use strict';
const fs = require('fs');
const path = require('path');
const pkg = process.argv[2];
require(path.join(pkg, 'catapult_build', 'node_bootstrap.js'));
const tp = path.join(pkg, 'tracing');
const third = path.join(tp, 'third_party');
const dirs = [tp, third, path.join(third, 'gl-matrix', 'dist')];
for (const d of fs.readdirSync(third))
  dirs.push(path.join(third, d));
global.HTMLImportsLoader.addArrayToSourcePath(dirs);
global.HTMLImportsLoader.loadHTML('/tracing/importer/import.html');
global.HTMLImportsLoader.loadHTML('/tracing/model/model.html');
global.HTMLImportsLoader.loadHTML(
    '/tracing/extras/importer/trace_event_importer.html');
const text = fs.readFileSync(process.argv[3], 'utf8');
const m = new tr.Model();
const o = new tr.importer.ImportOptions();
o.showImportWarnings = false;
try {
  new tr.importer.Import(m, o).importTraces([text]);
} catch (e) {
  console.log('error\t' + (e.message !== undefined ? e.message : String(e)));
  process.exit(1);
}
let n = 0;
for (const p of Object.values(m.processes))
  for (const t of Object.values(p.threads))
    n += t.sliceGroup.slices.length;
for (const w of m.importWarnings)
  console.log('warning\t' + w.type + '\t' + w.message);
console.log('slices\t' + n);
