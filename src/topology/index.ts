// Topology files and their resolution for a job (seed 004's machine tree). See docs/topology.md.
import { isJsonFile } from '../config/document';
import { envValue } from '../config/env';
import { normalizeTopology, parseTopology, readTopologyText } from './file';

export * from './file';
export * from './resolve';
export * from './describe';

/** The variable naming the topology file. */
const TOPOLOGY_ENV = 'TOPOCOLL_TOPOLOGY';

/**
 * Node path: reads TOPOCOLL_TOPOLOGY here and hands it to the native engine, which would
 * otherwise read the file itself at init. A .json file goes over as it is (isJsonFile); others
 * are read here as YAML (errors with file:line) and handed over normalized. Called before MPI_Init, so a bad file stops
 * nothing half-started.
 */
export function installTopologyFromEnvironment(
  native: { installTopology(json: string, source: string, lines: { levels: number[]; groups?: number; virtual_nodes?: number }): void },
  env: NodeJS.ProcessEnv = process.env,
): void {
  const file = envValue(TOPOLOGY_ENV, env);
  if (!file) return;
  const text = readTopologyText(file);
  if (isJsonFile(file)) {
    native.installTopology(text, file, { levels: [] });
    return;
  }
  const t = parseTopology(text, file);
  // The engine still checks the topology against the job at init: its errors name these lines.
  const lines = { levels: t.levels.map((l) => l.line), groups: t.lines.groups, virtual_nodes: t.lines.virtual_nodes };
  native.installTopology(JSON.stringify(normalizeTopology(t)), file, lines);
}
