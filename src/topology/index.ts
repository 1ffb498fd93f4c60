// Topology files and their resolution for a job (seed 004's machine tree). See docs/topology.md.
import { loadTopology, normalizeTopology } from './file';

export * from './file';
export * from './resolve';
export * from './describe';

/** The variable naming the topology file. */
export const TOPOLOGY_ENV = 'TOPOCOLL_TOPOLOGY';

/**
 * Node path: reads TOPOCOLL_TOPOLOGY here (YAML or JSON, errors with file:line) and hands the
 * normalized topology to the native engine, which would otherwise read the file itself at init
 * and accepts only JSON. Called before MPI_Init, so a bad file stops nothing half-started.
 */
export function installTopologyFromEnvironment(
  native: { installTopology(json: string, source: string, lines: { levels: number[]; groups?: number; virtual_nodes?: number }): void },
  env: NodeJS.ProcessEnv = process.env,
): void {
  const file = env[TOPOLOGY_ENV];
  if (!file) return;
  const t = loadTopology(file);
  // The engine still checks the topology against the job at init: its errors name these lines.
  const lines = { levels: t.levels.map((l) => l.line), groups: t.lines.groups, virtual_nodes: t.lines.virtual_nodes };
  native.installTopology(JSON.stringify(normalizeTopology(t)), file, lines);
}
