// `topocoll explain`: which algorithm a call would get, why, and what each candidate's schedule
// costs with the ranks on their nodes. Needs no MPI launch: selection and schedules are data.
import { formatBytes } from '../bench/stats';
import { envValue } from '../config/env';
import type { EnginePrediction } from '../mpi/addon';
import { addon } from '../mpi/native';
import { blockIsElement, collectiveInfo, COLLECTIVES, shapeOf, totalBytes, type CollectiveName } from '../select/registry';
import { countsOf, placedParams, type Schedule, type ScheduleParams } from '../select/schedule';
import { summarize, type ScheduleSummary } from '../select/summary';
import { enginePredictions } from '../model/native';
import { levelForScope, machineFromTopology, networkLevel } from '../model/machine';
import type { Command } from './main';
import { parseBytes, parseOptions, UsageError } from '../config/args';
import { installRulesFromEnvironment, loadTopology } from '../mpi/files';

/** The levels the model prices messages with: the engine's defaults, or a topology file's. */
interface ModelLevels {
  /** The topology file, or 'default' (docs/models.md). */
  source: string;
  intra?: { alpha: number; beta: number };
  inter?: { alpha: number; beta: number };
  /** Levels of the file the two-level model leaves out. */
  leftOut: string[];
}

type Choice = { algorithm: string; reason: string };

export interface Explanation {
  collective: CollectiveName;
  np: number;
  ppn: number;
  nodes: number;
  bytes: number;
  /** What runs: the rule's choice, or the model's under TOPOCOLL_SELECT=model (a forced algorithm wins over both). */
  chosen: Choice;
  /** What the rules (built-in defaults, TOPOCOLL_RULES) choose. */
  rule: Choice;
  /** Who decides: TOPOCOLL_SELECT. */
  select: 'rules' | 'model';
  candidates: Array<{ algorithm: string; summary: ScheduleSummary; predicted_us?: number }>;
  /** The engine's per-level Hockney predictions (what TOPOCOLL_SELECT=model decides by). */
  model: { levels: ModelLevels; choice: Choice | null; predictions: EnginePrediction[] };
}

export interface ExplainOptions {
  /** Only this candidate (default: every algorithm the build has). */
  only?: string;
  /** Ranks per node, in rank order (default: all on one node). */
  ppn?: number;
  /** The nonblocking form of the call (MPI_I…), which rules may tell apart. */
  nonblocking?: boolean;
  /** A topology file for the model's levels: `--topology` (option) or TOPOCOLL_TOPOLOGY (env). */
  topology?: { file: string; from: 'option' | 'env' };
}

/** Every rank's schedule of `algorithm` (p schedules; fine up to a few thousand ranks). */
function* allRankSchedules(coll: CollectiveName, algorithm: string, np: number, params: ScheduleParams): Generator<Schedule> {
  for (let r = 0; r < np; r++) yield addon().buildSchedule(coll, algorithm, np, r, params);
}

/** Bytes of the node's shared data area the engine assumes before a segment exists (TOPOCOLL_SHM_BYTES' default). */
const SHM_BYTES = 1 << 20;

/** The topology of --topology or TOPOCOLL_TOPOLOGY, as the two levels the engine's model takes. */
function topologyLevels(topology: ExplainOptions['topology'], ppn: number): ModelLevels {
  if (!topology) return { source: 'default', leftOut: [] };
  let converted;
  try {
    converted = machineFromTopology(loadTopology(topology.file), ppn);
  } catch (err) {
    const named = topology.from === 'env' ? `TOPOCOLL_TOPOLOGY=${topology.file}` : `--topology=${topology.file}`;
    throw new Error(`${named}: ${(err as Error).message}`);
  }
  const { machine } = converted;
  // The engine's model without a job has two levels: within a node and between nodes.
  const intra = machine.levels[levelForScope(machine, 'node')];
  const inter = networkLevel(machine);
  const sockets = machine.levels.filter((l) => l.scope === 'socket');
  const leftOut = [...converted.leftOut, ...sockets.map((l) => `level ${l.name} (within a node): explain's model has one level within a node, ${intra.name}`)];
  return { source: topology.file, intra: { alpha: intra.alpha, beta: intra.beta }, inter: { alpha: inter.alpha, beta: inter.beta }, leftOut };
}

export function explainCall(coll: CollectiveName, np: number, bytes: number, o: ExplainOptions = {}): Explanation {
  const native = addon();
  installRulesFromEnvironment(native);
  native.loadConfig();
  const ppn = Math.min(o.ppn ?? np, np);
  const nodeCount = Math.ceil(np / ppn);
  const levels = topologyLevels(o.topology, ppn);
  const total = totalBytes(coll, np, bytes);
  const rule = native.selectAlgorithm(coll, np, bytes, total, nodeCount, o.nonblocking ?? false);
  const registered: string[] = native.registeredAlgorithms()[coll];
  const names = o.only ? [o.only] : registered;
  // Blocks are bytes here: one rank's block of a block exchange, one element of a byte vector
  // (bcast and the reductions).
  const [count, blockBytes] = blockIsElement(coll) ? [bytes, 1] : [1, bytes];
  const elementBytes = Math.max(1, blockBytes);
  const nodes = nodeCount > 1 ? Array.from({ length: np }, (_, r) => Math.floor(r / ppn)) : undefined;
  const shmElements = Math.floor(SHM_BYTES / elementBytes);
  // The schedules the engine would run with the ranks on these nodes (hierarchical, shared-memory
  // and remapped algorithms depend on them), as the model below builds them.
  const base: ScheduleParams = { ...countsOf(coll, count, np), root: 0, elementBytes };
  const candidates = names.map((algorithm) => ({
    algorithm,
    summary: summarize(allRankSchedules(coll, algorithm, np, placedParams(coll, algorithm, base, nodes, shmElements)), blockBytes, nodes),
  }));
  const model = enginePredictions(coll, np, { ...base, blockBytes, shmElements, nodes, intra: levels.intra, inter: levels.inter });
  const predicted = new Map(model.predictions.map((m) => [m.algorithm, m.predicted_us]));
  const select = native.parameter('TOPOCOLL_SELECT') === 'model' ? 'model' : 'rules';
  const chosen = select === 'model' && model.choice && !rule.reason.startsWith('forced') ? model.choice : rule;
  return {
    collective: coll,
    np,
    ppn,
    nodes: nodeCount,
    bytes,
    chosen,
    rule,
    select,
    candidates: candidates.map((c) => ({ ...c, predicted_us: predicted.get(c.algorithm) })),
    model: { levels, ...model },
  };
}

/** Above this many ranks the engine's model does not run (kMaxModelRanks, native/engine/model/select_model.h). */
const MODEL_MAX_RANKS = 1024;

/** The lines that say who chooses what, and which choice runs. */
function choiceLines(e: Explanation): string[] {
  const lines = [`rule:  ${e.rule.algorithm} (${e.rule.reason})`];
  const m = e.model.choice;
  if (!m) {
    lines.push(`model: none (it runs up to ${MODEL_MAX_RANKS} ranks; above, TOPOCOLL_SELECT=model leaves the choice to the rules)`);
  } else {
    lines.push(`model: ${m.algorithm} (${m.reason.replace(/^model: /, '')})`);
  }
  if (e.rule.reason.startsWith('forced')) {
    lines.push(`runs:  ${e.chosen.algorithm}: forced, whatever rules and model say`);
  } else if (!m || m.algorithm === e.rule.algorithm) {
    lines.push(`runs:  ${e.chosen.algorithm}${m ? ' (rule and model agree)' : ''}`);
  } else if (e.select === 'model') {
    lines.push(`runs:  ${e.chosen.algorithm}, the model's choice (TOPOCOLL_SELECT=model); under the rules (TOPOCOLL_SELECT=rules, the default) ${e.rule.algorithm} would run`);
  } else {
    lines.push(`runs:  ${e.chosen.algorithm}, the rule's choice (TOPOCOLL_SELECT=rules, the default); TOPOCOLL_SELECT=model would run ${m.algorithm}`);
  }
  return lines;
}

export const explain: Command = {
  summary: 'show the algorithm chosen for a call, why, and what each candidate schedule costs',
  usage:
    'topocoll explain --coll <collective> --np <ranks> [--ppn <ranks per node>] [--bytes <size>] [--nonblocking] [--algorithm <name>] [--topology <file>] [--json]\n' +
    '   (--topology: the levels the model prices messages with; default TOPOCOLL_TOPOLOGY, else the engine\'s defaults)',
  async run(args) {
    const { options } = parseOptions(args, {
      coll: { type: 'string', choices: COLLECTIVES.map((c) => c.name) },
      np: { type: 'int', min: 1 },
      ppn: { type: 'int', min: 1 },
      bytes: { type: 'string' },
      algorithm: { type: 'string' },
      topology: { type: 'string' },
      nonblocking: { type: 'flag' },
      json: { type: 'flag' },
    });
    if (!options.coll || !options.np) throw new UsageError(`--coll and --np are required\nusage: ${this.usage}`);
    const coll = options.coll as CollectiveName;
    const bytes = options.bytes === undefined ? 8 : parseBytes(String(options.bytes), '--bytes');
    const only = options.algorithm as string | undefined;
    if (only !== undefined) {
      const valid = collectiveInfo(coll)!.algorithms.map((a) => a.name);
      if (!valid.includes(only)) throw new UsageError(`--algorithm=${only} names no ${coll} algorithm; valid choices: ${valid.join(', ')}`);
    }
    const fromEnv = envValue('TOPOCOLL_TOPOLOGY');
    const topology = options.topology !== undefined ? { file: String(options.topology), from: 'option' as const } : fromEnv ? { file: fromEnv, from: 'env' as const } : undefined;
    const e = explainCall(coll, Number(options.np), bytes, { only, ppn: options.ppn as number | undefined, nonblocking: Boolean(options.nonblocking), topology });
    if (options.json) {
      console.log(JSON.stringify(e, null, 2));
      return 0;
    }
    const what = { block: 'per rank block', vector: 'message', none: '' }[shapeOf(coll)];
    const placement = e.nodes > 1 ? `${e.ppn} per node on ${e.nodes} nodes` : 'one node';
    console.log(`${options.nonblocking ? 'nonblocking ' : ''}${coll} on ${e.np} ranks, ${placement}${what ? `, ${formatBytes(bytes)} ${what}` : ''}`);
    console.log(`${choiceLines(e).join('\n')}\n`);
    const header = ['algorithm', 'predicted', 'rounds', 'msgs/rank', 'max bytes/rank', ...(e.nodes > 1 ? ['max bytes out/node', 'msgs between nodes'] : []), 'max distance', 'ALCD'];
    const rows = e.candidates.map(({ algorithm, summary: s, predicted_us }) => [
      algorithm + (algorithm === e.chosen.algorithm ? ' *' : ''),
      predicted_us === undefined ? '-' : `${predicted_us.toFixed(2)} us`,
      String(s.rounds),
      String(s.maxMessages),
      formatBytes(s.maxBytesSent),
      ...(e.nodes > 1 ? [formatBytes(s.maxNodeBytesOut), String(s.offNodeMessages)] : []),
      String(s.maxDistance),
      s.alcd.toFixed(3),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const r of [header, ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd());
    for (const c of e.candidates) for (const n of c.summary.notes) console.log(`note (${c.algorithm}): ${n}`);
    const levels = e.model.levels.source === 'default' ? 'default levels and γ (docs/models.md)' : `levels of ${e.model.levels.source}`;
    console.log(`\npredicted: the engine's per-level Hockney model (TOPOCOLL_SELECT=model), ${placement}, ${levels}`);
    for (const l of e.model.levels.leftOut) console.log(`not modelled: ${l}`);
    for (const m of e.model.predictions) if (m.skipped) console.log(`not predicted (${m.algorithm}): ${m.skipped}`);
    return 0;
  },
};
