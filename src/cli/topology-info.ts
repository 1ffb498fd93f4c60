// The topology section of `topocoll info`: the topology file as the engine resolved it for the
// job at MPI_Init, printed by describeTopology. Shown from the engine's own resolution, not a
// second one here, so that what is printed is what the rank mapping of the remapped algorithms uses.
import type { EngineWorldTopology, HierarchyInfo } from '../mpi/addon';
import { describeTopology, type ResolvedLevel, type ResolvedTopology } from '../topology';
import type { InfoSection } from './info';

/** The engine's resolution in the form src/topology/resolve.ts uses; `hosts` names each rank's host. */
export function resolvedFromEngine(engine: EngineWorldTopology, hosts: readonly string[]): ResolvedTopology {
  const topology = engine.topology;
  const levels: ResolvedLevel[] = engine.resolved.levels.map((l, i) => ({ level: topology.levels[i], moduleOf: l.moduleOf, labels: l.labels, parent: l.parent }));
  if (levels.length !== topology.levels.length) throw new Error(`engine topology: ${levels.length} resolved levels for ${topology.levels.length} levels`);
  if (levels.some((l) => l.moduleOf.length !== hosts.length)) throw new Error(`engine topology: resolved for a job of another size than ${hosts.length} ranks`);
  return { topology, hosts: [...hosts], size: hosts.length, levels };
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
