#!/usr/bin/env node
// Writes the README's tables of algorithms, default rules and TOPOCOLL_* parameters from the
// TypeScript registry (src/select/registry.ts, compiled to dist/), between marker comments, so the
// docs name exactly what the engine accepts. test/unit/registry.test.ts fails when they drift.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const README_PATH = path.join(root, 'README.md');

const cell = (s) => String(s).replace(/\|/g, '\\|');
const bytes = (n) => (n % 1024 === 0 ? `${n / 1024} KiB` : `${n} B`);

function ruleCondition(r, titles) {
  const parts = [];
  if (r.maxBytes !== undefined) parts.push(`${r.basis ?? 'total'} bytes < ${bytes(r.maxBytes)}`);
  if (r.minBytes !== undefined) parts.push(`${r.basis ?? 'total'} bytes ≥ ${bytes(r.minBytes)}`);
  if (r.minRanks !== undefined) parts.push(`p ≥ ${r.minRanks}`);
  if (r.maxRanks !== undefined) parts.push(`p ≤ ${r.maxRanks}`);
  if (r.powerOfTwo !== undefined) parts.push(r.powerOfTwo ? 'p a power of two' : 'p not a power of two');
  if (r.multiNode !== undefined) parts.push(r.multiNode ? 'ranks over several nodes, several on a node' : 'one node, or one rank per node');
  if (r.nonblocking !== undefined) parts.push(r.nonblocking ? 'nonblocking calls' : 'blocking calls');
  if (r.mpi !== undefined) parts.push(titles[r.mpi]);
  return parts.length ? parts.join(', ') : 'otherwise';
}

export function renderSections({ COLLECTIVES, DEFAULT_RULES, PARAMETERS, MPI_FLAVOUR_TITLES }) {
  const algorithms = ['| collective | algorithm | what it does | from |', '|---|---|---|---|'];
  for (const c of COLLECTIVES) {
    algorithms.push(`| ${c.name} | \`native\` | the system MPI's own collective | Open MPI / MPICH |`);
    for (const a of c.algorithms) {
      algorithms.push(`| ${c.name} | \`${a.name}\`${a.shm ? ' (shm)' : ''} | ${cell(a.summary)} | ${cell(a.origin)} |`);
    }
  }
  const rules = ['| collective | when | algorithm | why |', '|---|---|---|---|'];
  for (const r of DEFAULT_RULES) rules.push(`| ${r.collective} | ${ruleCondition(r, MPI_FLAVOUR_TITLES)} | \`${r.algorithm}\` | ${cell(r.why)} |`);
  const params = ['| variable | default | values | meaning |', '|---|---|---|---|'];
  for (const c of COLLECTIVES) {
    const choices = ['auto', 'native', ...c.algorithms.map((a) => a.name)].map((n) => `\`${n}\``).join(', ');
    params.push(`| \`${c.env}\` | \`auto\` | ${choices} | force the ${c.name} algorithm |`);
  }
  for (const p of PARAMETERS) {
    const values =
      p.kind === 'bool' ? '`0`, `1`'
      : p.kind === 'int' ? `${p.min} … ${p.max}`
      : p.kind === 'choice' ? p.choices.map((v) => `\`${v}\``).join(', ')
      : cell(p.syntax ?? 'text');
    params.push(`| \`${p.env}\` | ${p.default === '' ? '(unset)' : `\`${p.default}\``} | ${values} | ${cell(p.summary)} |`);
  }
  return { algorithms: algorithms.join('\n'), rules: rules.join('\n'), parameters: params.join('\n') };
}

/** The README with every `<!-- gen:NAME -->…<!-- /gen:NAME -->` section filled in. */
export function renderReadme(text, registry) {
  const sections = renderSections(registry);
  return text.replace(/<!-- gen:(\w+) -->[\s\S]*?<!-- \/gen:\1 -->/g, (whole, name) => {
    if (!(name in sections)) throw new Error(`README.md: unknown generated section "${name}" (valid: ${Object.keys(sections).join(', ')})`);
    return `<!-- gen:${name} -->\n${sections[name]}\n<!-- /gen:${name} -->`;
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const registry = await import(pathToFileURL(path.join(root, 'dist/select/registry.js')).href);
  writeFileSync(README_PATH, renderReadme(readFileSync(README_PATH, 'utf8'), registry));
  console.log(`wrote ${path.relative(root, README_PATH)}`);
}
