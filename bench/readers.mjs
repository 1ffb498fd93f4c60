#!/usr/bin/env node
// Load times of the files topocoll reads at init, at the sizes of a large machine:
// `npm run bench:readers [-- options]` (after `npm run build`).
//
//   topology  a JSON file with --hosts hosts in groups of 32: the engine's reader (what the preload
//             runs at MPI_Init, through the Node path's install of a .json file), the addon's
//             parseTopologyFile (the same, and a JS object of every host), the resolution of a
//             --ranks rank job on the file's last hosts; and the TypeScript reader (YAML) on
//             --yaml-hosts hosts (the yaml package costs ~25 us a key).
//   rules     a JSON file of --rules rules (the engine's reader) and --yaml-rules of them
//             through the TypeScript reader.
//
// Every reader is linear: these are times, not ratios; the tests (test/unit/readers-scale.test.ts)
// hold the same sizes to a watchdog. Each figure is the median of --reps runs.
//
// Options: --hosts 1000000 --ranks 256 --yaml-hosts 100000 --rules 400000 --yaml-rules 20000 --reps 3
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { addon } = require(path.join(root, 'dist/mpi/native.js'));
const { loadTopology, installTopologyFromEnvironment } = require(path.join(root, 'dist/topology/index.js'));
const { loadRules } = require(path.join(root, 'dist/select/rules.js'));
const { topologyText, rulesText, hostName } = await import(path.join(root, 'test/fixtures/large-files.mjs'));

const { values: o } = parseArgs({
  options: {
    hosts: { type: 'string', default: '1000000' },
    ranks: { type: 'string', default: '256' },
    'yaml-hosts': { type: 'string', default: '100000' },
    rules: { type: 'string', default: '400000' },
    'yaml-rules': { type: 'string', default: '20000' },
    reps: { type: 'string', default: '3' },
  },
});
const reps = Number(o.reps);
const native = addon();
const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-readers-'));

/** Median seconds of `reps` runs of f. */
function time(f) {
  const t = [];
  for (let i = 0; i < reps; i++) {
    const s = process.hrtime.bigint();
    f();
    t.push(Number(process.hrtime.bigint() - s) / 1e9);
  }
  return t.sort((a, b) => a - b)[Math.floor(t.length / 2)];
}

const rows = [];
const row = (what, size, file, seconds) => rows.push([what, size.toLocaleString('en'), `${(file / 1048576).toFixed(1)} MiB`, `${seconds.toFixed(3)} s`]);

const hosts = Number(o.hosts);
const topo = path.join(tmp, 'topology.json');
const topoText = topologyText(hosts);
writeFileSync(topo, topoText);
row('topology: engine reader (Node init of a .json)', hosts, topoText.length, time(() => installTopologyFromEnvironment(native, { TOPOCOLL_TOPOLOGY: topo })));
row('topology: addon parseTopologyFile (+ JS object)', hosts, topoText.length, time(() => native.parseTopologyFile(topo)));
const job = Array.from({ length: Number(o.ranks) }, (_, r) => hostName(hosts - 1 - (r % hosts)));
row(`topology: engine read + resolve, ${job.length} ranks`, hosts, topoText.length, time(() => native.resolveTopologyFile(topo, job)));

const yamlHosts = Number(o['yaml-hosts']);
const small = path.join(tmp, 'topology-small.json');
const smallText = topologyText(yamlHosts);
writeFileSync(small, smallText);
row('topology: TypeScript reader (YAML path)', yamlHosts, smallText.length, time(() => loadTopology(small)));

const nRules = Number(o.rules);
const rulesFile = path.join(tmp, 'rules.json');
const rText = rulesText(nRules);
writeFileSync(rulesFile, rText);
row('rules: engine reader (installRules)', nRules, rText.length, time(() => native.installRules(rText, rulesFile, [])));

const yamlRules = Number(o['yaml-rules']);
const smallRules = path.join(tmp, 'rules-small.json');
const srText = rulesText(yamlRules);
writeFileSync(smallRules, srText);
row('rules: TypeScript reader (YAML path)', yamlRules, srText.length, time(() => loadRules(smallRules)));

rmSync(tmp, { recursive: true, force: true });
const header = ['reader', 'entries', 'file', `median of ${reps}`];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
for (const r of [header, ...rows]) console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
