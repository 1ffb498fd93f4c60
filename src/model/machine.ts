// Machine descriptions for the models: the hierarchy levels a message can cross (each with
// Hockney α/β and LogGP o/g), how many processes share a node's network port, the switch
// parameters of seed 002's contention model, and the local work: copies and the combining of
// reductions (γ, seconds per byte). Profiles are YAML (or JSON) files with units
// written out ("2.37 us", "6343 MiB/s"); a bad file stops with its name, line and key.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { parseQuantity, type Dimension } from '../config/quantity';

/** Where two processes meet: same socket, same node, or only through the network. */
export type Scope = 'socket' | 'node' | 'system';
const SCOPES: readonly Scope[] = ['socket', 'node', 'system'];

export interface Level {
  readonly name: string;
  /** The widest scope this level serves; a message uses the first level that covers its scope. */
  readonly scope: Scope;
  /** Hockney latency α, seconds. */
  readonly alpha: number;
  /** Hockney inverse bandwidth β, seconds per byte. */
  readonly beta: number;
  /** LogGP overhead o, seconds (0 when not measured). */
  readonly overhead: number;
  /** LogGP gap g between consecutive sends of one process, seconds (0 when not measured). */
  readonly gap: number;
  /** Messages at this level pass through the node's network port, which its processes share. */
  readonly usesNic: boolean;
  /** Seconds for a shared-memory flag set by one rank to be seen by another of this level (a cache line's trip); α unless the profile says. */
  readonly signalAlpha: number;
  /** β of a message to a rank that sends to the sender in the same round (both directions of one pair at once); β unless the profile says. */
  readonly exchangeBeta: number;
}

export interface NodeParams {
  readonly sockets: number;
  readonly coresPerSocket: number;
  /** Network ports per node; ppn / nics processes share each (seed 002 §4.2). */
  readonly nics: number;
}

/** The switch fabric, for seed 002's contention model. */
export interface NetworkParams {
  /** k of the k x k crossbar switches. */
  readonly switchRadix: number;
  /** Switches a message between two nodes crosses (the maximum, unless nodesPerSwitch is known). */
  readonly hops: number;
  /** Nodes under one leaf switch: messages between them cross 1 switch. Unknown: every message crosses `hops`. */
  readonly nodesPerSwitch?: number;
  readonly clockHz: number;
  /** Bytes of the network's transfer unit (k_p). */
  readonly packetBytes: number;
}

export interface Machine {
  readonly name: string;
  readonly description: string;
  /** The file it was read from, for messages. */
  readonly source: string;
  readonly node: NodeParams;
  /** Innermost first; the last one has scope `system`. */
  readonly levels: readonly Level[];
  readonly network?: NetworkParams;
  /** Seconds per byte of a local copy; 0 when the profile does not say. */
  readonly copyBeta: number;
  /**
   * γ: seconds per byte combined by a reduce op of a schedule (both operands read, the result
   * written: the whole op, not on top of a copy); DEFAULT_GAMMA when the profile does not say.
   */
  readonly gamma: number;
  /** Seconds a rank's executor spends entering one round of a schedule (software); 0 when the profile does not say. */
  readonly roundOverhead: number;
}

type KeyPath = readonly (string | number)[];

export class MachineError extends Error {
  constructor(
    readonly file: string,
    readonly key: string,
    readonly line: number | undefined,
    detail: string,
  ) {
    super(`${file}${line === undefined ? '' : `:${line}`}: ${key ? `${key}: ` : ''}${detail}`);
    this.name = 'MachineError';
  }
}

/** Reads values out of a parsed document, reporting errors with file, line and key path. */
class ProfileReader {
  constructor(
    private readonly file: string,
    private readonly root: unknown,
    private readonly lineOf: (path: KeyPath) => number | undefined,
  ) {}

  fail(keyPath: KeyPath, detail: string): never {
    const key = keyPath.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
    throw new MachineError(this.file, key, this.lineOf(keyPath), detail);
  }

  get(keyPath: KeyPath): unknown {
    let v: unknown = this.root;
    for (const k of keyPath) {
      if (v === null || typeof v !== 'object') return undefined;
      v = (v as Record<string | number, unknown>)[k];
    }
    return v;
  }

  has(keyPath: KeyPath): boolean {
    return this.get(keyPath) !== undefined && this.get(keyPath) !== null;
  }

  map(keyPath: KeyPath, allowed: readonly string[]): void {
    const v = this.get(keyPath);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail(keyPath, 'must be a mapping');
    for (const key of Object.keys(v as object)) {
      if (!allowed.includes(key)) this.fail([...keyPath, key], `unknown key (valid: ${allowed.join(', ')})`);
    }
  }

  string(keyPath: KeyPath, fallback?: string): string {
    const v = this.get(keyPath);
    if (v === undefined || v === null) {
      if (fallback !== undefined) return fallback;
      this.fail(keyPath, 'is required');
    }
    if (typeof v !== 'string' || v.trim() === '') this.fail(keyPath, 'must be a non-empty string');
    return v;
  }

  integer(keyPath: KeyPath, min: number, fallback?: number): number {
    const v = this.get(keyPath);
    if (v === undefined || v === null) {
      if (fallback !== undefined) return fallback;
      this.fail(keyPath, 'is required');
    }
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) this.fail(keyPath, `must be an integer >= ${min}, got ${JSON.stringify(v)}`);
    return v;
  }

  boolean(keyPath: KeyPath, fallback: boolean): boolean {
    const v = this.get(keyPath);
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'boolean') this.fail(keyPath, `must be true or false, got ${JSON.stringify(v)}`);
    return v;
  }

  quantity(keyPath: KeyPath, dim: Dimension, fallback?: number): number {
    const v = this.get(keyPath);
    if (v === undefined || v === null) {
      if (fallback !== undefined) return fallback;
      this.fail(keyPath, 'is required');
    }
    if (typeof v !== 'string') this.fail(keyPath, `${JSON.stringify(v)} needs a unit, e.g. ${dim === 'time' ? '"2.37 us"' : dim === 'bandwidth' ? '"6343 MiB/s"' : dim === 'frequency' ? '"312.5 MHz"' : '"256 bit"'}`);
    let value: number;
    try {
      value = parseQuantity(v, dim);
    } catch (err) {
      this.fail(keyPath, (err as Error).message);
    }
    if (!(value >= 0) || !Number.isFinite(value)) this.fail(keyPath, `must be a finite non-negative ${dim}`);
    return value;
  }
}

const TOP_KEYS = ['name', 'description', 'node', 'levels', 'network', 'copy_bandwidth', 'reduce_bandwidth', 'round_overhead', 'notes'];

/**
 * γ where a profile gives no reduce_bandwidth: 0.2 ns per byte (5 GB/s), the engine's float SUM
 * kernel on 64 KiB-4 MiB from rotated buffers on the development VM (docs/models.md). The
 * engine's model uses the same figure (kDefaultGamma, native/engine/model/hockney.h).
 */
export const DEFAULT_GAMMA = 0.2e-9;
const NODE_KEYS = ['sockets', 'cores_per_socket', 'nics'];
const LEVEL_KEYS = ['name', 'scope', 'latency', 'bandwidth', 'overhead', 'gap', 'nic', 'signal_latency', 'exchange_bandwidth'];
const NETWORK_KEYS = ['switch_radix', 'hops', 'nodes_per_switch', 'clock', 'packet'];

function readMachine(reader: ProfileReader, file: string): Machine {
  reader.map([], TOP_KEYS);
  reader.map(['node'], NODE_KEYS);
  const node: NodeParams = {
    sockets: reader.integer(['node', 'sockets'], 1),
    coresPerSocket: reader.integer(['node', 'cores_per_socket'], 1),
    nics: reader.integer(['node', 'nics'], 1, 1),
  };

  const rawLevels = reader.get(['levels']);
  if (!Array.isArray(rawLevels) || rawLevels.length === 0) reader.fail(['levels'], 'must be a non-empty list, innermost level first');
  const levels: Level[] = rawLevels.map((_, i) => {
    reader.map(['levels', i], LEVEL_KEYS);
    const scope = reader.string(['levels', i, 'scope']);
    if (!SCOPES.includes(scope as Scope)) reader.fail(['levels', i, 'scope'], `"${scope}" is not one of ${SCOPES.join(', ')}`);
    const bandwidth = reader.quantity(['levels', i, 'bandwidth'], 'bandwidth');
    if (bandwidth === 0) reader.fail(['levels', i, 'bandwidth'], 'must be positive');
    const exchange = reader.quantity(['levels', i, 'exchange_bandwidth'], 'bandwidth', bandwidth);
    if (exchange === 0) reader.fail(['levels', i, 'exchange_bandwidth'], 'must be positive');
    const alpha = reader.quantity(['levels', i, 'latency'], 'time');
    const level: Level = {
      name: reader.string(['levels', i, 'name']),
      scope: scope as Scope,
      alpha,
      signalAlpha: reader.quantity(['levels', i, 'signal_latency'], 'time', alpha),
      exchangeBeta: 1 / exchange,
      beta: 1 / bandwidth,
      overhead: reader.quantity(['levels', i, 'overhead'], 'time', 0),
      gap: reader.quantity(['levels', i, 'gap'], 'time', 0),
      usesNic: reader.boolean(['levels', i, 'nic'], scope === 'system'),
    };
    if (2 * level.overhead > level.alpha) reader.fail(['levels', i, 'overhead'], 'LogGP needs latency >= 2 x overhead');
    return level;
  });
  for (let i = 1; i < levels.length; i++) {
    if (SCOPES.indexOf(levels[i].scope) <= SCOPES.indexOf(levels[i - 1].scope)) {
      reader.fail(['levels', i, 'scope'], 'levels must go from the innermost scope outwards (socket, node, system), one level per scope');
    }
  }
  if (levels[levels.length - 1].scope !== 'system') reader.fail(['levels'], 'the last level must have scope system (messages between nodes)');

  let network: NetworkParams | undefined;
  if (reader.has(['network'])) {
    reader.map(['network'], NETWORK_KEYS);
    const clockHz = reader.quantity(['network', 'clock'], 'frequency');
    const packetBytes = reader.quantity(['network', 'packet'], 'size');
    if (clockHz === 0) reader.fail(['network', 'clock'], 'must be positive');
    if (packetBytes === 0) reader.fail(['network', 'packet'], 'must be positive');
    network = {
      switchRadix: reader.integer(['network', 'switch_radix'], 2),
      hops: reader.integer(['network', 'hops'], 1),
      nodesPerSwitch: reader.has(['network', 'nodes_per_switch']) ? reader.integer(['network', 'nodes_per_switch'], 1) : undefined,
      clockHz,
      packetBytes,
    };
  }

  const copyBandwidth = reader.quantity(['copy_bandwidth'], 'bandwidth', Infinity);
  const reduceBandwidth = reader.quantity(['reduce_bandwidth'], 'bandwidth', 0);
  if (reader.has(['reduce_bandwidth']) && reduceBandwidth === 0) reader.fail(['reduce_bandwidth'], 'must be positive (bytes combined per second)');
  return {
    name: reader.string(['name']),
    description: reader.string(['description'], ''),
    source: file,
    node,
    levels,
    network,
    copyBeta: copyBandwidth === Infinity || copyBandwidth === 0 ? 0 : 1 / copyBandwidth,
    gamma: reduceBandwidth > 0 ? 1 / reduceBandwidth : DEFAULT_GAMMA,
    roundOverhead: reader.quantity(['round_overhead'], 'time', 0),
  };
}

/** Parses a profile's text (YAML or JSON); `file` names it in errors. */
export function parseMachine(text: string, file: string): Machine {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  if (doc.errors.length > 0) {
    const err = doc.errors[0];
    const detail = err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    throw new MachineError(file, '', err.linePos?.[0].line, `not valid YAML: ${detail}`);
  }
  const lineOf = (keyPath: KeyPath): number | undefined => {
    // The deepest node that exists on the path: a missing key is reported at its parent.
    for (let n = keyPath.length; n >= 0; n--) {
      const node = doc.getIn(keyPath.slice(0, n), true) as { range?: [number, number, number] } | undefined;
      if (node?.range) return lineCounter.linePos(node.range[0]).line;
    }
    return undefined;
  };
  return readMachine(new ProfileReader(file, doc.toJS(), lineOf), file);
}

/** A machine from an already parsed object (JSON.parse output, a test fixture). */
export function machineFromObject(obj: unknown, source = '<object>'): Machine {
  return readMachine(new ProfileReader(source, obj, () => undefined), source);
}

export function loadMachine(file: string): Machine {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new MachineError(file, '', undefined, `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseMachine(text, file);
}

/** The profiles shipped with the package (profiles/<name>.yaml). */
const PROFILES_DIR = path.resolve(__dirname, '..', '..', 'profiles');

/** The file of shipped profile `name`. */
export function profilePath(name: string): string {
  return path.join(PROFILES_DIR, `${name}.yaml`);
}

/** The names of the shipped profiles. */
export function profileNames(): string[] {
  return readdirSync(PROFILES_DIR).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -'.yaml'.length)).sort();
}

/** Whether loadProfile takes `nameOrPath` as a file (else as a shipped profile's name). */
export function isProfilePath(nameOrPath: string): boolean {
  return nameOrPath.includes('/') || nameOrPath.includes(path.sep) || /\.(ya?ml|json)$/.test(nameOrPath);
}

/** A shipped profile by name ("bxj"), or a profile file by path. */
export function loadProfile(nameOrPath: string): Machine {
  return loadMachine(isProfilePath(nameOrPath) ? nameOrPath : profilePath(nameOrPath));
}

/** The level a message from a process to another uses when they meet at `scope`. */
export function levelForScope(machine: Machine, scope: Scope): number {
  const want = SCOPES.indexOf(scope);
  return machine.levels.findIndex((l) => SCOPES.indexOf(l.scope) >= want);
}

/** The outermost level: between nodes. The closed-form models use it for every message. */
export function networkLevel(machine: Machine): Level {
  return machine.levels[machine.levels.length - 1];
}
