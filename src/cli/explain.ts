// `topocoll explain`: which algorithm a call would get, why, and what each candidate's schedule
// costs. Needs no MPI launch: selection and schedules are data.
import { addon } from '../mpi/native';
import { collectiveInfo, COLLECTIVES, type CollectiveName } from '../select/registry';
import type { Schedule } from '../select/schedule';
import { summarize, type ScheduleSummary } from '../select/summary';
import type { Command } from './main';
import { parseBytes, parseOptions, UsageError } from './args';

export interface Explanation {
  collective: CollectiveName;
  np: number;
  bytes: number;
  chosen: { algorithm: string; reason: string };
  candidates: Array<{ algorithm: string; summary: ScheduleSummary }>;
}

/** Builds every rank's schedule of `algorithm` (p schedules; fine up to a few thousand ranks). */
export function* allRankSchedules(coll: CollectiveName, algorithm: string, np: number, count: number, root = 0): Generator<Schedule> {
  for (let r = 0; r < np; r++) yield addon().buildSchedule(coll, algorithm, np, r, { count, root });
}

export function explainCall(coll: CollectiveName, np: number, bytes: number, only?: string): Explanation {
  const native = addon();
  native.loadConfig();
  const total = coll === 'allgather' || coll === 'alltoall' ? bytes * np : bytes;
  const chosen = native.selectAlgorithm(coll, np, bytes, total);
  const registered: string[] = native.registeredAlgorithms()[coll];
  const names = only ? [only] : registered;
  // Blocks are bytes here: one rank's block for allgather/alltoall, one element of a byte vector for bcast.
  const [count, blockBytes] = coll === 'bcast' ? [bytes, 1] : [1, bytes];
  const candidates = names.map((algorithm) => ({
    algorithm,
    summary: summarize(allRankSchedules(coll, algorithm, np, count), blockBytes),
  }));
  return { collective: coll, np, bytes, chosen, candidates };
}

function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1 && n % 1024 === 0) {
    n /= 1024;
    i++;
  }
  return `${n} ${units[i]}`;
}

export const explain: Command = {
  summary: 'show the algorithm chosen for a call, why, and what each candidate schedule costs',
  usage: 'topocoll explain --coll <collective> --np <ranks> [--bytes <size>] [--algorithm <name>] [--json]',
  async run(args) {
    const { options } = parseOptions(args, {
      coll: { type: 'string', choices: COLLECTIVES.map((c) => c.name) },
      np: { type: 'int', min: 1 },
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
      if (!valid.includes(only)) throw new UsageError(`--algorithm=${only} is not a ${coll} algorithm; valid choices: ${valid.join(', ')}`);
    }
    const e = explainCall(coll, Number(options.np), bytes, only);
    if (options.json) {
      console.log(JSON.stringify(e, null, 2));
      return 0;
    }
    const what = coll === 'allgather' || coll === 'alltoall' ? 'per rank block' : coll === 'bcast' ? 'message' : '';
    console.log(`${coll} on ${e.np} ranks${what ? `, ${formatBytes(bytes)} ${what}` : ''}`);
    console.log(`chosen: ${e.chosen.algorithm} (${e.chosen.reason})\n`);
    const header = ['algorithm', 'rounds', 'msgs/rank', 'max bytes/rank', 'max distance', 'ALCD'];
    const rows = e.candidates.map(({ algorithm, summary: s }) => [
      algorithm + (algorithm === e.chosen.algorithm ? ' *' : ''),
      String(s.rounds),
      String(s.maxMessages),
      formatBytes(s.maxBytesSent),
      String(s.maxDistance),
      s.alcd.toFixed(3),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const r of [header, ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
    for (const c of e.candidates) for (const n of c.summary.notes) console.log(`note (${c.algorithm}): ${n}`);
    return 0;
  },
};
