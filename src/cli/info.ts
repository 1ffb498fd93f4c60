// `topocoll info`: what topocoll sees of the job and the machine. Run under mpirun
// (`mpirun -np 8 npx topocoll info`) it prints, from rank 0, the rank -> node/socket/NUMA/core
// table of MPI_COMM_WORLD, the caches of rank 0's CPU and the node's shared memory; run alone it
// describes this one process. Every rank takes part: detection is collective.
import { formatBytes } from '../bench/stats';
import type { HierarchyInfo, RegisteredAlgorithms } from '../mpi/addon';
import { COLLECTIVES } from '../select/registry';
import type { Command } from './main';
import { topologyInfoSection } from './topology-info';
import { parseOptions } from '../config/args';

export interface InfoReport {
  mpi: string;
  size: number;
  hierarchy: HierarchyInfo;
  /** The built algorithms of each collective (and `problems`: what is wrong with the registry, '' when nothing). */
  algorithms: RegisteredAlgorithms;
  /** Extra sections (name -> lines), e.g. the topology file resolved for this job. */
  sections: Array<{ title: string; lines: string[] }>;
}

/**
 * A section of `info` beyond the hierarchy and the algorithms: called on every rank after the
 * hierarchy is known (it may be collective), its lines printed by rank 0 under `title`.
 */
export interface InfoSection {
  readonly title: string;
  lines(world: { handle: number; rank: number; size: number }, hierarchy: HierarchyInfo): string[] | undefined;
}

// TOPOCOLL_TOPOLOGY resolved for the job: levels, tree of modules, z(p, q).
const SECTIONS: readonly InfoSection[] = [topologyInfoSection];

function table(header: string[], rows: Array<Array<string | number>>): string[] {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd());
}

/** Collective over MPI_COMM_WORLD: every rank must call it. */
function collectInfo(withShm = true): InfoReport {
  // Loaded here so that `topocoll --help` never loads MPI.
  const tc = require('../index') as typeof import('../index');
  const { addon, loadedFlavour, FLAVOUR_TITLES } = require('../mpi/native') as typeof import('../mpi/native');
  const world = tc.world;
  const shmOff = addon().parameter('TOPOCOLL_SHM') === 0;
  const hierarchy = addon().hierarchy(world.handle, { shm: withShm && !shmOff });
  if (shmOff) hierarchy.shm = { available: false, why: 'off (TOPOCOLL_SHM=0)', channels: 0, parts: 0, partBytes: 0, namePrefix: '' };
  const registered = addon().registeredAlgorithms();
  const sections: InfoReport['sections'] = [];
  for (const s of SECTIONS) {
    const lines = s.lines({ handle: world.handle, rank: world.rank, size: world.size }, hierarchy);
    if (lines) sections.push({ title: s.title, lines });
  }
  return { mpi: FLAVOUR_TITLES[loadedFlavour()], size: world.size, hierarchy, algorithms: registered, sections };
}

function formatInfo(r: InfoReport): string {
  const h = r.hierarchy;
  const out: string[] = [];
  out.push(`topocoll on ${r.mpi}, ${r.size} rank${r.size === 1 ? '' : 's'} on ${h.nodeCount} node${h.nodeCount === 1 ? '' : 's'}` +
    (h.virtualNodes ? ' (virtual nodes: TOPOCOLL_VIRTUAL_NODES or the topology file)' : ''));
  out.push('');
  out.push('ranks:');
  out.push(...table(['rank', 'host', 'node', 'socket', 'numa', 'core', 'cpu', 'bound'].concat(h.virtualNodes ? ['vnode'] : []),
    h.ranks.map((p) => [p.rank, p.host, p.node, p.socket, p.numa, p.core, p.cpu, p.binding].concat(h.virtualNodes ? [p.virtualNode] : []))).map((l) => `  ${l}`));
  const unbound = h.ranks.filter((p) => p.binding === 'none').length;
  if (unbound > 0) {
    out.push(`  (${unbound === h.ranks.length ? 'no rank is' : `${unbound} ranks are not`} bound to a core: cpu/core/socket/numa are where the rank ran at detection; ` +
      'the kernel may move it. Bind ranks (mpirun --bind-to core) for stable placement.)');
  }
  const sockets = new Set(h.ranks.map((p) => `${p.node}/${p.socket}`)).size;
  const numas = new Set(h.ranks.map((p) => `${p.node}/${p.numa}`)).size;
  if (!h.numaMachine) out.push('  (one NUMA node, or no libnuma: every rank is on NUMA node 0; shared memory is not NUMA-placed)');
  if (sockets === h.nodeCount) out.push('  (one socket per node: the barrier has no socket-master level)');
  out.push(`  ${sockets} socket${sockets === 1 ? '' : 's'} and ${numas} NUMA node${numas === 1 ? '' : 's'} in use`);
  out.push('');
  out.push("caches of rank 0's CPU:");
  if (h.caches.length === 0) out.push('  (none found in /sys/devices/system/cpu/cpuN/cache: the tiled alltoall uses 256 KiB tiles)');
  else {
    out.push(...table(['level', 'type', 'size', 'line', 'shared by CPUs'],
      h.caches.map((c) => [`L${c.level}`, c.type, formatBytes(c.bytes), `${c.lineBytes} B`, compactCpus(c.sharedCpus)])).map((l) => `  ${l}`));
    out.push(`  last-level cache ${formatBytes(h.sharedCacheBytes)}, shared by ${h.sharedCacheRanks} rank${h.sharedCacheRanks === 1 ? '' : 's'} of the node`);
  }
  const k = h.kernel;
  out.push('', "waiting (rank 0's kernel):");
  out.push(`  ${k.ranks} rank${k.ranks === 1 ? '' : 's'} on ${k.cpus} CPU${k.cpus === 1 ? '' : 's'}` +
    (k.cpuLimit > 0 ? ` (the cgroup's limit: ${k.cpuLimit})` : '') +
    (k.yields ? ': oversubscribed, a waiting rank yields its core' : ': a waiting rank spins on its core'));
  if (h.shm) {
    out.push('');
    out.push('shared memory:');
    if (h.shm.available) {
      out.push(`  ${h.shm.channels} channels of ${h.shm.parts} part${h.shm.parts === 1 ? '' : 's'} x ${formatBytes(h.shm.partBytes)} per node` +
        ` (TOPOCOLL_SHM_BYTES), segments /dev/shm${h.shm.namePrefix}* unlinked once attached`);
    } else {
      out.push(`  unavailable: ${h.shm.why}`);
    }
  }
  for (const s of r.sections) {
    out.push('', `${s.title}:`, ...s.lines.map((l) => `  ${l}`));
  }
  out.push('', 'algorithms built:');
  const width = Math.max(...COLLECTIVES.map((c) => c.name.length));
  for (const c of COLLECTIVES) {
    const built = r.algorithms[c.name] ?? [];
    out.push(`  ${c.name.padEnd(width)} ${built.length ? built.join(', ') : '(none: the system MPI\'s own)'}`);
  }
  return out.join('\n');
}

/** "0-3,8,10-11" from [0,1,2,3,8,10,11]. */
function compactCpus(cpus: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < cpus.length; ) {
    let j = i;
    while (j + 1 < cpus.length && cpus[j + 1] === cpus[j] + 1) j++;
    parts.push(j > i ? `${cpus[i]}-${cpus[j]}` : `${cpus[i]}`);
    i = j + 1;
  }
  return parts.join(',') || '-';
}

export const info: Command = {
  summary: 'show the ranks of the job (node, socket, NUMA node, core), the caches and the shared memory',
  usage: 'mpirun -np N topocoll info [--json] [--no-shm]',
  async run(args) {
    const { options } = parseOptions(args, { json: { type: 'flag' }, 'no-shm': { type: 'flag' } });
    const report = collectInfo(!options['no-shm']);
    const { world } = require('../index') as typeof import('../index');
    if (world.rank === 0) console.log(options.json ? JSON.stringify(report, null, 2) : formatInfo(report));
    return 0;
  },
};
