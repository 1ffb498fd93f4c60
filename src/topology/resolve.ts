// A topology met by a job (resolved by the engine: resolveTopology in src/mpi/files.ts): which
// module each rank belongs to at every level, and seed 004's z(p, q), the level at which two
// ranks meet; and the resolved tree as text.
import type { Topology, TopologyLevel } from './file';

export interface ResolvedLevel {
  readonly level: TopologyLevel;
  /** The module of each rank at this level, numbered from 0 in order of first appearance. */
  readonly moduleOf: Int32Array;
  /** One label per module: the group or host name, "host/vnode" for a virtual node. */
  readonly labels: readonly string[];
  /** The module at the previous (wider) level that contains each module; -1 at level 0. */
  readonly parent: Int32Array;
}

export interface ResolvedTopology {
  readonly topology: Topology;
  /** The host of each rank, as given. */
  readonly hosts: readonly string[];
  readonly size: number;
  /** Widest first, as in the file. */
  readonly levels: readonly ResolvedLevel[];
}

/** z(p, q): the index (0 = widest) of the narrowest level whose module holds both ranks. */
export function meetLevel(resolved: ResolvedTopology, p: number, q: number): number {
  for (const r of [p, q]) {
    if (!Number.isInteger(r) || r < 0 || r >= resolved.size) throw new RangeError(`rank ${r} is out of range [0, ${resolved.size - 1}]`);
  }
  for (let l = resolved.levels.length - 1; l > 0; l--) {
    const m = resolved.levels[l].moduleOf;
    if (m[p] === m[q]) return l;
  }
  return 0;
}

/** The z matrix of a job: z[p][q] for every pair of ranks. */
export function meetMatrix(resolved: ResolvedTopology): number[][] {
  return Array.from({ length: resolved.size }, (_, p) => Array.from({ length: resolved.size }, (__, q) => meetLevel(resolved, p, q)));
}

/** The narrowest module of each rank: the nodes a rank mapping places ranks on, with their sizes. */
export function leafModules(resolved: ResolvedTopology): { nodeOf: Int32Array; sizes: number[] } {
  const leaf = resolved.levels[resolved.levels.length - 1];
  const sizes = new Array<number>(leaf.labels.length).fill(0);
  for (const m of leaf.moduleOf) sizes[m]++;
  return { nodeOf: leaf.moduleOf, sizes };
}

/** Compact rank lists: "0-3,8,10-11". */
function rankRanges(ranks: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < ranks.length; ) {
    let j = i;
    while (j + 1 < ranks.length && ranks[j + 1] === ranks[j] + 1) j++;
    out.push(i === j ? `${ranks[i]}` : `${ranks[i]}-${ranks[j]}`);
    i = j + 1;
  }
  return out.join(',');
}

export function formatSeconds(s: number): string {
  if (s === 0) return '0 s';
  for (const [unit, f] of [['s', 1], ['ms', 1e-3], ['us', 1e-6]] as const) if (s >= f) return `${+(s / f).toPrecision(4)} ${unit}`;
  return `${+(s / 1e-9).toPrecision(4)} ns`;
}

export function formatBandwidth(b: number): string {
  for (const [unit, f] of [['GB/s', 1e9], ['MB/s', 1e6], ['KB/s', 1e3]] as const) if (b >= f) return `${+(b / f).toPrecision(4)} ${unit}`;
  return `${+b.toPrecision(4)} B/s`;
}

/** " (exchange X)" for a level with an exchange bandwidth, else "". */
export function exchangeSuffix(level: TopologyLevel): string {
  return level.exchangeBandwidth !== undefined ? ` (exchange ${formatBandwidth(level.exchangeBandwidth)})` : '';
}

/** The resolved tree, one line per module, indented by level, leaves listing their ranks. */
export function formatTree(resolved: ResolvedTopology): string[] {
  const lines: string[] = [];
  const walk = (l: number, module: number, indent: string) => {
    const level = resolved.levels[l];
    const ranks: number[] = [];
    level.moduleOf.forEach((m, r) => m === module && ranks.push(r));
    const what = l === 0 && level.level.scope === 'system' ? '' : ` ${level.labels[module]}`;
    lines.push(`${indent}${level.level.name}${what}: ranks ${rankRanges(ranks)}` +
      `  [${level.level.scope}, ${formatSeconds(level.level.latency)}, ${formatBandwidth(level.level.bandwidth)}]`);
    if (l + 1 < resolved.levels.length) {
      const next = resolved.levels[l + 1];
      next.parent.forEach((p, child) => p === module && walk(l + 1, child, `${indent}  `));
    }
  };
  walk(0, 0, '');
  return lines;
}
