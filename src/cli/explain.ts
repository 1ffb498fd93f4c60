// `topocoll explain`: which algorithm a call would get, why, and what each candidate's schedule
// costs. Needs no MPI launch: selection and schedules are data.
import { formatBytes } from '../bench/stats';
import type { EnginePrediction } from '../mpi/addon';
import { addon } from '../mpi/native';
import { blockIsElement, collectiveInfo, COLLECTIVES, shapeOf, totalBytes, type CollectiveName } from '../select/registry';
import { evenCounts, type Schedule, type ScheduleParams } from '../select/schedule';
import { summarize, type ScheduleSummary } from '../select/summary';
import { enginePredictions } from '../model/native';
import type { Command } from './main';
import { parseBytes, parseOptions, UsageError } from './args';
import { installRulesFromEnvironment } from '../select/rules';

export interface Explanation {
  collective: CollectiveName;
  np: number;
  bytes: number;
  chosen: { algorithm: string; reason: string };
  candidates: Array<{ algorithm: string; summary: ScheduleSummary; predicted_us?: number }>;
  /** The engine's per-level Hockney predictions (what TOPOCOLL_SELECT=model decides by). */
  model: { ppn: number; choice: { algorithm: string; reason: string } | null; predictions: EnginePrediction[] };
}

/**
 * Builds every rank's schedule of `algorithm` (p schedules; fine up to a few thousand ranks); a
 * shared-memory algorithm sees the nodes and the data area the engine's model gives it.
 */
function* allRankSchedules(coll: CollectiveName, algorithm: string, np: number, count: number, shm: ScheduleParams): Generator<Schedule> {
  const recvCounts = coll === 'reduce_scatter' ? evenCounts(count, np) : undefined;
  const uses = collectiveInfo(coll)!.algorithms.find((a) => a.name === algorithm)?.shm;
  for (let r = 0; r < np; r++) yield addon().buildSchedule(coll, algorithm, np, r, { count, recvCounts, ...(uses ? shm : {}) });
}

/** Bytes of the node's shared data area the engine assumes before a segment exists (TOPOCOLL_SHM_BYTES' default). */
const SHM_BYTES = 1 << 20;

/** ppn: ranks per node, in rank order (default: all on one node). */
export function explainCall(coll: CollectiveName, np: number, bytes: number, only?: string, ppn = np): Explanation {
  const native = addon();
  installRulesFromEnvironment(native);
  native.loadConfig();
  const total = totalBytes(coll, np, bytes);
  const chosen = native.selectAlgorithm(coll, np, bytes, total, Math.ceil(np / ppn));
  const registered: string[] = native.registeredAlgorithms()[coll];
  const names = only ? [only] : registered;
  // Blocks are bytes here: one rank's block of a block exchange, one element of a byte vector
  // (bcast and the reductions).
  const [count, blockBytes] = blockIsElement(coll) ? [bytes, 1] : [1, bytes];
  const elementBytes = Math.max(1, blockBytes);
  const shm = {
    elementBytes,
    shmElements: Math.floor(SHM_BYTES / elementBytes),
    nodes: ppn < np ? Array.from({ length: np }, (_, r) => Math.floor(r / ppn)) : undefined,
  };
  const candidates = names.map((algorithm) => ({
    algorithm,
    summary: summarize(allRankSchedules(coll, algorithm, np, count, shm), blockBytes),
  }));
  // The engine's model, for this size and placement (ppn ranks per node).
  const model = enginePredictions(coll, np, {
    count,
    blockBytes,
    recvCounts: coll === 'reduce_scatter' ? evenCounts(count, np) : undefined,
    ...shm,
  });
  const predicted = new Map(model.predictions.map((m) => [m.algorithm, m.predicted_us]));
  const modelled = native.parameter('TOPOCOLL_SELECT') === 'model' && model.choice && !chosen.reason.startsWith('forced') ? model.choice : chosen;
  return {
    collective: coll,
    np,
    bytes,
    chosen: modelled,
    candidates: candidates.map((c) => ({ ...c, predicted_us: predicted.get(c.algorithm) })),
    model: { ppn, ...model },
  };
}

export const explain: Command = {
  summary: 'show the algorithm chosen for a call, why, and what each candidate schedule costs',
  usage: 'topocoll explain --coll <collective> --np <ranks> [--ppn <ranks per node>] [--bytes <size>] [--algorithm <name>] [--json]',
  async run(args) {
    const { options } = parseOptions(args, {
      coll: { type: 'string', choices: COLLECTIVES.map((c) => c.name) },
      np: { type: 'int', min: 1 },
      ppn: { type: 'int', min: 1 },
      bytes: { type: 'string' },
      algorithm: { type: 'string' },
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
    const e = explainCall(coll, Number(options.np), bytes, only, (options.ppn as number | undefined) ?? Number(options.np));
    if (options.json) {
      console.log(JSON.stringify(e, null, 2));
      return 0;
    }
    const what = { block: 'per rank block', vector: 'message', none: '' }[shapeOf(coll)];
    console.log(`${coll} on ${e.np} ranks${what ? `, ${formatBytes(bytes)} ${what}` : ''}`);
    console.log(`chosen: ${e.chosen.algorithm} (${e.chosen.reason})\n`);
    const header = ['algorithm', 'predicted', 'rounds', 'msgs/rank', 'max bytes/rank', 'max distance', 'ALCD'];
    const rows = e.candidates.map(({ algorithm, summary: s, predicted_us }) => [
      algorithm + (algorithm === e.chosen.algorithm ? ' *' : ''),
      predicted_us === undefined ? '-' : `${predicted_us.toFixed(2)} us`,
      String(s.rounds),
      String(s.maxMessages),
      formatBytes(s.maxBytesSent),
      String(s.maxDistance),
      s.alcd.toFixed(3),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const r of [header, ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
    for (const c of e.candidates) for (const n of c.summary.notes) console.log(`note (${c.algorithm}): ${n}`);
    const nodes = Math.ceil(e.np / e.model.ppn);
    console.log(
      `\npredicted: the engine's per-level Hockney model (TOPOCOLL_SELECT=model), ${e.model.ppn} ranks per node on ${nodes} node${nodes > 1 ? 's' : ''}, ` +
        `default levels (docs/models.md)${e.model.choice ? `; model picks ${e.model.choice.algorithm}` : ''}`,
    );
    for (const m of e.model.predictions) if (m.skipped) console.log(`not predicted (${m.algorithm}): ${m.skipped}`);
    return 0;
  },
};
