// The layers of the sources, read from the sources themselves (issue 21, "Layers that leak"):
// the TypeScript import graph of src/ folded onto its folders, and the #include graph of
// native/engine folded onto its units (a header with its .cc; an algorithm's folder as one unit).
// Dependencies point one way: a folder imports only folders below it, and no two units include
// each other, directly or around a loop.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(__dirname, '..', '..');

/**
 * src/ folders, top to bottom ('.' is src/index.ts, the package's API). A folder may import the
 * folders of the layers below its own; folders of one layer are siblings and import neither
 * other. mpi sits above select and topology because the addon speaks their vocabulary
 * (collective and algorithm names, schedules, rules and topology files installed at init).
 */
const TS_LAYERS: readonly (readonly string[])[] = [
  ['cli'],
  ['.', 'bench', 'model'],
  ['mpi'],
  ['select', 'topology'],
  ['config'],
];

/** The algorithms' folders of native/engine: each folder is one unit (its builders register themselves). */
const ALGORITHM_FOLDERS = new Set(['allgather', 'allreduce', 'alltoall', 'barrier', 'bcast', 'reduce', 'reduce_scatter', 'reduce_scatter_block']);

type Graph = Map<string, Set<string>>;
/** Source files by path relative to their root, with their text. */
type Sources = Map<string, string>;

function readSources(root: string, extension: RegExp): Sources {
  const out: Sources = new Map();
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (extension.test(e.name)) out.set(path.relative(root, p).split(path.sep).join('/'), fs.readFileSync(p, 'utf8'));
    }
  };
  walk(root);
  return out;
}

function addEdge(graph: Graph, from: string, to: string): void {
  if (!graph.has(from)) graph.set(from, new Set());
  if (!graph.has(to)) graph.set(to, new Set());
  if (from !== to) graph.get(from)!.add(to);
}

/** The strongly connected components of more than one node (Tarjan), each sorted, in name order. */
function cycles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}

// `import ... from './x'`, `export ... from './x'`, `import('./x')`, `require('./x')`, `import './x'`:
// relative specifiers only (packages are not layers).
const TS_IMPORT = /\bfrom\s*['"](\.[^'"]*)['"]|\b(?:import|require)\(\s*['"](\.[^'"]*)['"]\s*\)|^\s*import\s*['"](\.[^'"]*)['"]/gm;

/** The file an import names (x.ts, or x/index.ts for a folder), or undefined outside the sources. */
function resolveTs(sources: Sources, from: string, specifier: string): string | undefined {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  return [`${base}.ts`, `${base}/index.ts`].find((f) => sources.has(f));
}

function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 1 ? parts[0] : '.';
}

/** src/'s folders, an edge wherever a file of one imports a file of another; `via` names one file per edge. */
function folderGraph(sources: Sources): { graph: Graph; via: Map<string, string> } {
  const graph: Graph = new Map();
  const via = new Map<string, string>();
  for (const [file, text] of sources) {
    addEdge(graph, folderOf(file), folderOf(file));
    for (const m of text.matchAll(TS_IMPORT)) {
      const target = resolveTs(sources, file, m[1] ?? m[2] ?? m[3]);
      if (target === undefined) continue;
      const [from, to] = [folderOf(file), folderOf(target)];
      addEdge(graph, from, to);
      if (from !== to && !via.has(`${from} -> ${to}`)) via.set(`${from} -> ${to}`, `${file} imports ${target}`);
    }
  }
  return { graph, via };
}

/** Each import between folders that does not go down TS_LAYERS, as "from -> to (file imports file)". */
function layerViolations(graph: Graph, via: Map<string, string>): string[] {
  const layerOf = new Map(TS_LAYERS.flatMap((folders, i) => folders.map((f) => [f, i] as const)));
  const out: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      if (layerOf.get(to)! <= layerOf.get(from)!) out.push(`${from} -> ${to} (${via.get(`${from} -> ${to}`)})`);
    }
  }
  return out.sort();
}

function engineUnitOf(file: string): string {
  const stem = file.replace(/\.(h|cc|inc)$/, '');
  const top = stem.split('/')[0];
  return ALGORITHM_FOLDERS.has(top) && stem.includes('/') ? `${top}/*` : stem;
}

/** The file an `#include "..."` names: beside the including file, else from native/engine (its include path). */
function resolveInclude(sources: Sources, from: string, name: string): string | undefined {
  const beside = path.posix.normalize(path.posix.join(path.posix.dirname(from), name));
  return [beside, path.posix.normalize(name)].find((f) => sources.has(f));
}

/** The units of native/engine, an edge wherever a file of one includes a header of another. */
function unitGraph(sources: Sources): Graph {
  const graph: Graph = new Map();
  for (const [file, text] of sources) {
    addEdge(graph, engineUnitOf(file), engineUnitOf(file));
    for (const m of text.matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)) {
      const target = resolveInclude(sources, file, m[1]);
      if (target !== undefined) addEdge(graph, engineUnitOf(file), engineUnitOf(target));
    }
  }
  return graph;
}

/** The headers (.h, .inc) of native/engine, an edge wherever one includes another (what the compiler follows). */
function headerGraph(sources: Sources): Graph {
  const graph: Graph = new Map();
  for (const [file, text] of sources) {
    if (file.endsWith('.cc')) continue;
    addEdge(graph, file, file);
    for (const m of text.matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)) {
      const target = resolveInclude(sources, file, m[1]);
      if (target !== undefined) addEdge(graph, file, target);
    }
  }
  return graph;
}

describe('TypeScript layers (src/)', () => {
  const sources = readSources(path.join(ROOT, 'src'), /\.ts$/);

  it('names every folder of src/ in exactly one layer', () => {
    const folders = [...new Set([...sources.keys()].map(folderOf))].sort();
    const layered = TS_LAYERS.flat();
    expect(new Set(layered).size).toBe(layered.length);
    expect([...layered].sort()).toEqual(folders);
  });

  it('imports only down the layers, so folders have no cycle', () => {
    const { graph, via } = folderGraph(sources);
    expect(layerViolations(graph, via)).toEqual([]);
    expect(cycles(graph)).toEqual([]);
  });

  it('catches a bench file importing the CLI, and the cycle it makes', () => {
    const leaking = new Map(sources).set('bench/leak.ts', "import { UsageError } from '../cli/main';\n");
    const { graph, via } = folderGraph(leaking);
    expect(layerViolations(graph, via)).toEqual(['bench -> cli (bench/leak.ts imports cli/main.ts)']);
    expect(cycles(graph)).toEqual([['bench', 'cli']]);
  });
});

describe('C++ include graph (native/engine)', () => {
  const sources = readSources(path.join(ROOT, 'native', 'engine'), /\.(h|cc|inc)$/);

  it('finds the file of every quoted #include (an include it cannot follow would hide a cycle)', () => {
    const unresolved: string[] = [];
    for (const [file, text] of sources) {
      for (const m of text.matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)) {
        if (resolveInclude(sources, file, m[1]) === undefined) unresolved.push(`${file}: ${m[1]}`);
      }
    }
    expect(unresolved).toEqual([]);
  });

  it('has no header that includes itself around a loop', () => {
    expect(cycles(headerGraph(sources))).toEqual([]);
  });

  it('has no units that include each other, directly or around a loop', () => {
    expect(cycles(unitGraph(sources))).toEqual([]);
  });

  it('catches two units that include each other', () => {
    const looped = new Map([
      ['low.h', '#pragma once\n'],
      ['low.cc', '#include "low.h"\n#include "high.h"\n'],
      ['high.h', '#pragma once\n#include "low.h"\n'],
      ['allreduce/ring.cc', '#include "../high.h"\n'],
    ]);
    expect(cycles(unitGraph(looped))).toEqual([['high', 'low']]);
    expect(cycles(headerGraph(looped))).toEqual([]);
  });
});
