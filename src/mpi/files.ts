// Topology and rules files as the Node side reads them. Each format has one reader, the engine's
// (native/engine/rules.cc, native/engine/topology/topology.cc): a preloaded C/Fortran program has
// no Node, so C++ owns the reading. Here a file's YAML (or JSON) becomes JSON with a line map
// (config/document.ts yamlToJson) and goes to that reader through the addon, which checks and
// converts it, its messages naming the file's own lines. Schemas: schemas/{rules,topology}.schema.json.
import { isJsonFile, readTextFile, yamlToJson, type EngineJson, type Fail } from '../config/document';
import { envValue } from '../config/env';
import { RulesError, type LoadedRules, type RulesFile } from '../select/rules';
import { TopologyError, type Topology } from '../topology/file';
import type { ResolvedTopology } from '../topology/resolve';
import type { NativeAddon } from './addon';
import { addon } from './native';

const RULES_ENV = 'TOPOCOLL_RULES';
const TOPOLOGY_ENV = 'TOPOCOLL_TOPOLOGY';

type FileError = new (file: string, line: number | undefined, key: string, detail: string) => Error;

/** A format as this module reads it: its error class, its name in messages, what an empty file lacks. */
interface Format {
  readonly Error: FileError;
  readonly what: string;
  readonly needs: string;
}
const RULES: Format = { Error: RulesError, what: 'rules file', needs: 'a rules file needs at least `version: 1` and `rules`' };
const TOPOLOGY: Format = { Error: TopologyError, what: 'topology file', needs: 'a topology needs at least `levels`' };

const failWith = (format: Format, file: string): Fail => (line, detail) => {
  throw new format.Error(file, line, '', detail);
};

/** Runs an engine reader; its "file[:line]: message" becomes the format's error (argument errors pass as they are). */
function reading<T>(format: Format, file: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    const message = (err as Error).message;
    if (!(err instanceof Error) || err instanceof TypeError || err instanceof RangeError || !message.startsWith(`${file}:`)) throw err;
    const at = /^:(\d+): /.exec(message.slice(file.length));
    const detail = message.slice(file.length + (at ? at[0].length : 2));
    throw new format.Error(file, at ? Number(at[1]) : undefined, '', detail);
  }
}

/** A file's text; errors as the engine's (a directory, an unreadable file). */
function readText(format: Format, file: string): string {
  return readTextFile(file, format.what, failWith(format, file));
}

/** A file's text (YAML or JSON) as the engine's JSON with its line map. */
function engineJson(format: Format, text: string, file: string): EngineJson {
  const doc = yamlToJson(text, failWith(format, file));
  if (!doc) throw new format.Error(file, undefined, '', `is empty; ${format.needs}`);
  return doc;
}

/** What the Node side installs for the variable's file: a .json file as it is (isJsonFile), others with their line map. */
function installable(format: Format, file: string): { json: string; lines: readonly number[] | null } {
  const text = readText(format, file);
  return isJsonFile(file) ? { json: text, lines: null } : engineJson(format, text, file);
}

/** An object (a fixture, a file about to be written) as JSON; its errors name no line. */
const objectJson = (obj: unknown): EngineJson => ({ json: JSON.stringify(obj) ?? 'null', lines: [] });

// --- rules files (TOPOCOLL_RULES) ---

function checkRules(doc: EngineJson, file: string): LoadedRules {
  const lines = reading(RULES, file, () => addon().parseRulesText(doc.json, file, doc.lines));
  return { source: file, file: JSON.parse(doc.json) as RulesFile, lines };
}

/** Parses a rules file's text (YAML or JSON); `file` names it in errors. */
export const parseRules = (text: string, file: string): LoadedRules => checkRules(engineJson(RULES, text, file), file);
/** Checks an object (a rules file about to be written, a test fixture). */
export const rulesFromObject = (obj: unknown, source = '<object>'): LoadedRules => checkRules(objectJson(obj), source);
export const loadRules = (file: string): LoadedRules => parseRules(readText(RULES, file), file);

/**
 * TOPOCOLL_RULES, installed in the engine before loadConfig(), so that the engine keeps these
 * rules (with the file's own lines) instead of reading the file as JSON.
 */
export function installRulesFromEnvironment(native: Pick<NativeAddon, 'installRules'>, env: NodeJS.ProcessEnv = process.env): void {
  const file = envValue(RULES_ENV, env);
  if (!file) return;
  try {
    const doc = installable(RULES, file);
    native.installRules(doc.json, file, doc.lines);
  } catch (e) {
    if (e instanceof RulesError) throw new Error(`topocoll: ${RULES_ENV}: ${e.message}`);
    throw e;
  }
}

// --- topology files (TOPOCOLL_TOPOLOGY) ---

/** What each topology was read from, for resolveTopology to hand the engine again. */
const topologyDocuments = new WeakMap<Topology, EngineJson>();

function readTopologyJson(doc: EngineJson, file: string): Topology {
  const t = reading(TOPOLOGY, file, () => addon().parseTopologyText(doc.json, file, doc.lines));
  topologyDocuments.set(t, doc);
  return t;
}

/** Parses a topology file's text (YAML or JSON); `file` names it in errors. */
export const parseTopology = (text: string, file: string): Topology => readTopologyJson(engineJson(TOPOLOGY, text, file), file);
/** A topology from an already parsed object (a test fixture, JSON.parse output). */
export const topologyFromObject = (obj: unknown, source = '<object>'): Topology => readTopologyJson(objectJson(obj), source);
export const loadTopology = (file: string): Topology => parseTopology(readText(TOPOLOGY, file), file);

/** Resolves the tree for a job whose rank r runs on hosts[r] (the engine's resolveTopology). */
export function resolveTopology(topology: Topology, hosts: readonly string[]): ResolvedTopology {
  if (hosts.length === 0) throw new TypeError('resolveTopology: hosts must name the host of at least one rank');
  hosts.forEach((h, r) => {
    if (typeof h !== 'string' || h === '') throw new TypeError(`resolveTopology: hosts[${r}] must be a non-empty hostname`);
  });
  const doc = topologyDocuments.get(topology);
  if (!doc) throw new TypeError(`resolveTopology: the topology of ${topology.source} was not read by parseTopology, loadTopology or topologyFromObject`);
  const resolved = reading(TOPOLOGY, topology.source, () => addon().resolveTopologyText(doc.json, topology.source, doc.lines, hosts));
  const levels = resolved.levels.map((l, i) => ({ level: topology.levels[i], moduleOf: l.moduleOf, labels: l.labels, parent: l.parent }));
  return { topology, hosts: [...hosts], size: hosts.length, levels };
}

/**
 * Node path: reads TOPOCOLL_TOPOLOGY here and hands it to the engine, which would otherwise read
 * the file itself at init: a .json file as it is (isJsonFile), others as JSON with their line
 * map, so that the engine's errors (now, and when the topology meets the job at init) name the
 * file's lines. Called before MPI_Init, so a bad file stops nothing half-started.
 */
export function installTopologyFromEnvironment(native: Pick<NativeAddon, 'installTopology'>, env: NodeJS.ProcessEnv = process.env): void {
  const file = envValue(TOPOLOGY_ENV, env);
  if (!file) return;
  const doc = installable(TOPOLOGY, file);
  native.installTopology(doc.json, file, doc.lines);
}
