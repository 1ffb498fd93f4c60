// The topology section of `topocoll info`: the topology file as the engine resolved it for the
// job at MPI_Init (its levels, the tree of modules with their ranks, and seed 004's z(p, q)).
// Shown from the engine's own resolution, not a second one here, so that what is printed is
// what the rank mapping of the remapped algorithms uses.
import type { InfoSection } from '../cli/info';
import type { EngineWorldTopology, HierarchyInfo } from '../mpi/addon';
import type { Topology } from './file';
import { exchangeSuffix, formatBandwidth, formatSeconds, formatTree, meetMatrix, type ResolvedLevel, type ResolvedTopology } from './resolve';

/** Above this many ranks z(p, q) is summarized (pairs per level) instead of printed whole. */
const Z_MATRIX_MAX_RANKS = 32;

/** The engine's resolution in the form src/topology/resolve.ts uses; `hosts` names each rank's host. */
export function resolvedFromEngine(engine: EngineWorldTopology, hosts: readonly string[]): ResolvedTopology {
  const t = engine.topology;
  const topology: Topology = {
    source: t.source,
    name: t.name,
    description: t.description,
    levels: t.levels.map((l) => ({ name: l.name, scope: l.scope, latency: l.latency, bandwidth: l.bandwidth, line: l.line })),
    groups: t.groups,
    virtualNodes: t.virtualNodes,
    lines: {},
  };
  const levels: ResolvedLevel[] = engine.resolved.levels.map((l, i) => ({
    level: topology.levels[i],
    moduleOf: Int32Array.from(l.moduleOf),
    labels: [...l.labels],
    parent: Int32Array.from(l.parent),
  }));
  if (levels.length !== topology.levels.length) throw new Error(`engine topology: ${levels.length} resolved levels for ${topology.levels.length} levels`);
  if (levels.some((l) => l.moduleOf.length !== hosts.length)) throw new Error(`engine topology: resolved for a job of another size than ${hosts.length} ranks`);
  return { topology, hosts: [...hosts], size: hosts.length, levels };
}

/**
 * The lines `topocoll info` prints for a resolved topology: the file and its levels, the tree
 * (one line per module, its ranks), and z(p, q) as a matrix of level indices (for at most
 * `maxMatrixRanks` ranks) and always as the number of rank pairs meeting at each level.
 */
export function describeTopology(resolved: ResolvedTopology, maxMatrixRanks = Z_MATRIX_MAX_RANKS): string[] {
  const t = resolved.topology;
  const out: string[] = [];
  out.push(`${t.source}${t.name ? `: "${t.name}"` : ''}${t.description ? ` (${t.description})` : ''}`);
  out.push('levels, widest first:');
  const nameWidth = Math.max(...t.levels.map((l) => l.name.length));
  t.levels.forEach((l, i) => {
    const modules = resolved.levels[i].labels.length;
    out.push(`  ${i}  ${l.name.padEnd(nameWidth)}  ${l.scope.padEnd(12)}  latency ${formatSeconds(l.latency).padEnd(9)}  bandwidth ${formatBandwidth(l.bandwidth).padEnd(11)}${exchangeSuffix(l)}  ${modules} module${modules === 1 ? '' : 's'}`);
  });
  out.push(`tree (${resolved.size} rank${resolved.size === 1 ? '' : 's'}):`);
  out.push(...formatTree(resolved).map((l) => `  ${l}`));

  const z = meetMatrix(resolved);
  const pairs = new Array<number>(t.levels.length).fill(0);
  for (let p = 0; p < resolved.size; p++) for (let q = p + 1; q < resolved.size; q++) pairs[z[p][q]]++;
  const legend = t.levels.map((l, i) => `${i} = ${l.name}`).join(', ');
  out.push(`z(p, q), the level where ranks p and q meet (${legend}):`);
  if (resolved.size <= maxMatrixRanks) {
    const w = Math.max(String(resolved.size - 1).length, String(t.levels.length - 1).length);
    const label = Math.max(3, w);
    out.push(`  ${'p\\q'.padStart(label)} ${z.map((_, q) => String(q).padStart(w)).join(' ')}`);
    z.forEach((row, p) => out.push(`  ${String(p).padStart(label)} ${row.map((v) => String(v).padStart(w)).join(' ')}`));
  } else {
    out.push(`  (${resolved.size} ranks: matrix omitted above ${maxMatrixRanks}; \`topocoll topology FILE --hosts ... --json\` prints it)`);
  }
  out.push(`  rank pairs per level: ${t.levels.map((l, i) => `${l.name} ${pairs[i]}`).join(', ')}`);
  return out;
}

/**
 * The section `topocoll info` shows when TOPOCOLL_TOPOLOGY is set: what the engine resolved at
 * init, with each rank's host from the hierarchy detection. Nothing without a topology file.
 */
export const topologyInfoSection: InfoSection = {
  title: 'topology (TOPOCOLL_TOPOLOGY)',
  lines(world, hierarchy: HierarchyInfo) {
    const { addon } = require('../mpi/native') as typeof import('../mpi/native');
    const engine = addon().worldTopology();
    if (!engine) return undefined;
    const hosts = [...hierarchy.ranks].sort((a, b) => a.rank - b.rank).map((r) => r.host);
    if (hosts.length !== world.size) throw new Error(`topocoll info: the hierarchy lists ${hosts.length} ranks, the job has ${world.size}`);
    return describeTopology(resolvedFromEngine(engine, hosts));
  },
};
