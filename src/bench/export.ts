// `topocoll tune --export`: the choices of a rules file that the system MPI can make itself, as
// the table its own tuning files hold per collective: communicator-size ranges, and in each,
// message-size ranges with one of the MPI's algorithms or its own choice. A choice of ours maps
// onto the MPI's algorithm that runs the same exchanges on that communicator size
// (src/select/native-algorithms.ts); one that has none is skipped there, as the engine skips a
// rule whose algorithm cannot run: the next matching rule decides, else the MPI's own choice.
// The MPIs key their tables on communicator and message size only: the placement conditions of
// a rule are judged for communicators spread over `nodes` nodes (min(nodes, ranks) of them).
import { COLLECTIVES, MPI_FLAVOUR_TITLES, NATIVE, shapeOf, totalBytes, type CollectiveName, type MpiFlavour } from '../select/registry';
import { nativeAlgorithm, nativeAlgorithms, sameAsOurs, type NativeAlgorithm } from '../select/native-algorithms';
import { matchesCall, NATIVE_PREFIX, type FileRule, type RuleCall } from '../select/rules';
import { formatBytes } from './stats';

/**
 * What the MPI measures a call by: `total` = all a rank receives (allgather, alltoall: ranks x
 * block; bcast: the message), as Open MPI's rules and MPICH's total_msg_size; `block` = one
 * rank's block (bcast: the message), as MPICH's avg_msg_size; `none` for barrier.
 */
export type Metric = 'total' | 'block' | 'none';

function metricOf(mpi: MpiFlavour, coll: CollectiveName): Metric {
  if (shapeOf(coll) === 'none') return 'none';
  if (mpi === 'openmpi' || coll === 'allgather') return 'total';
  return 'block';
}

/** A message-size range: from `from` bytes of the MPI's metric on. */
export interface MessagePiece {
  from: number;
  /** The MPI's algorithm, or null: its own choice. */
  algorithm: NativeAlgorithm | null;
}

/** Communicator sizes [fromRanks, toRanks] (toRanks null: and above) and their message ranges. */
export interface RankPiece {
  fromRanks: number;
  toRanks: number | null;
  messages: MessagePiece[];
}

export interface ExportTable {
  mpi: MpiFlavour;
  nodes: number;
  collectives: Array<{ collective: CollectiveName; metric: Metric; ranks: RankPiece[] }>;
  /** What could not be exported as it is, one line each. */
  notes: string[];
}

/** Communicator sizes taken one by one up to this; above, ranges between the rules' breakpoints. */
const ENUMERATED_RANKS = 4096;

const spansRanks = (coll: CollectiveName) => shapeOf(coll) === 'block';

/** The call of `p` ranks with one rank's block of `block` bytes (the message, for bcast). */
function callOf(coll: CollectiveName, p: number, block: number, nodes: number, mpi: MpiFlavour): RuleCall {
  const bytes = shapeOf(coll) === 'none' ? 0 : block;
  return { collective: coll, ranks: p, blockBytes: bytes, totalBytes: totalBytes(coll, p, bytes), nodes: Math.min(nodes, p), mpi };
}

/** The metric threshold equivalent, for calls of p ranks, to a rule's byte bound. */
function metricBound(metric: Metric, rule: FileRule, bound: number, p: number): number {
  if (!spansRanks(rule.collective)) return bound;
  if (metric === 'total') return rule.basis === 'block' ? bound * p : bound;
  return rule.basis === 'block' ? bound : Math.ceil(bound / p);
}

/** The smallest block whose call measures at least `m`. */
function blockAt(metric: Metric, coll: CollectiveName, m: number, p: number): number {
  return metric === 'total' && spansRanks(coll) ? Math.ceil(m / p) : m;
}

/**
 * The MPI's algorithm for a call by the rules (the first match whose choice the MPI can make),
 * or null for its own choice; `skipped` collects the rules passed over, by index.
 */
function choose(rules: readonly FileRule[], call: RuleCall, mpi: MpiFlavour, skipped: Map<number, string>): NativeAlgorithm | null {
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    if (!matchesCall(r, call)) continue;
    if (r.algorithm === NATIVE) return null;
    const a = r.algorithm.startsWith(NATIVE_PREFIX) ? nativeAlgorithm(mpi, r.collective, r.algorithm.slice(NATIVE_PREFIX.length)) : sameAsOurs(mpi, r.collective, r.algorithm, call.ranks);
    if (a && (a.onlyRanks === undefined || a.onlyRanks === call.ranks)) return a;
    if (a) skipped.set(i, `${MPI_FLAVOUR_TITLES[mpi]}'s ${a.name} runs on ${a.onlyRanks} ranks only`);
    else {
      const somewhere = nativeAlgorithms(mpi, r.collective).some((n) => n.same?.some((s) => s.ours === r.algorithm));
      skipped.set(i, `${MPI_FLAVOUR_TITLES[mpi]} has no ${r.collective} algorithm that runs the exchanges of ${r.algorithm}${somewhere ? ' on every communicator size the rule covers' : ''}`);
    }
  }
  return null;
}

/** The message ranges of communicators of `p` ranks, neighbours with one choice joined. */
function messagePieces(rules: readonly FileRule[], coll: CollectiveName, metric: Metric, p: number, nodes: number, mpi: MpiFlavour, skipped: Map<number, string>): MessagePiece[] {
  const starts = new Set<number>([0]);
  if (metric !== 'none') {
    for (const r of rules.filter((x) => x.collective === coll)) {
      if (r.minBytes !== undefined) starts.add(metricBound(metric, r, r.minBytes, p));
      if (r.maxBytes !== undefined) starts.add(metricBound(metric, r, r.maxBytes, p));
    }
  }
  const pieces: MessagePiece[] = [];
  for (const from of [...starts].sort((a, b) => a - b)) {
    const algorithm = choose(rules, callOf(coll, p, blockAt(metric, coll, from, p), nodes, mpi), mpi, skipped);
    if (pieces.length && pieces[pieces.length - 1].algorithm === algorithm) continue;
    pieces.push({ from, algorithm });
  }
  return pieces;
}

function samePieces(a: readonly MessagePiece[], b: readonly MessagePiece[]): boolean {
  return a.length === b.length && a.every((x, i) => x.from === b[i].from && x.algorithm === b[i].algorithm);
}

/** Whether the MPI's algorithm for our `algorithm` depends on the communicator size being a power of two. */
function mapsByPowerOfTwo(mpi: MpiFlavour, r: FileRule): boolean {
  return nativeAlgorithms(mpi, r.collective).some((a) => a.same?.some((s) => s.ours === r.algorithm && (s.when === 'powerOfTwo' || s.when === 'notPowerOfTwo')));
}

/** The first communicator sizes of new ranges: where some rule's condition on the communicator, or its mapping, changes. */
function rankBreakpoints(rules: readonly FileRule[], nodes: number, mpi: MpiFlavour): number[] {
  const points = new Set<number>([1]);
  const add = (p: number) => {
    if (p >= 1) points.add(p);
  };
  for (const r of rules) {
    if (r.minRanks !== undefined) add(r.minRanks);
    if (r.maxRanks !== undefined) add(r.maxRanks + 1);
    // Ranks per node, ceil(p / nodes), passes k between (k - 1) * nodes and k * nodes.
    if (r.minRanksPerNode !== undefined) add((r.minRanksPerNode - 1) * nodes + 1);
    if (r.maxRanksPerNode !== undefined) add(r.maxRanksPerNode * nodes + 1);
    // min(nodes, p) nodes: node conditions change where p passes them below `nodes`, multiNode at nodes + 1.
    if (r.minNodes !== undefined) add(r.minNodes);
    if (r.maxNodes !== undefined) add(r.maxNodes + 1);
    if (r.minNodes !== undefined || r.maxNodes !== undefined || r.multiNode !== undefined) add(nodes + 1);
    // Open MPI's two_proc: its size alone.
    const only = r.algorithm.startsWith(NATIVE_PREFIX) ? nativeAlgorithm(mpi, r.collective, r.algorithm.slice(NATIVE_PREFIX.length))?.onlyRanks : undefined;
    if (only !== undefined) {
      add(only);
      add(only + 1);
    }
    if (r.powerOfTwo !== undefined || mapsByPowerOfTwo(mpi, r)) {
      for (let k = 0; k <= 30; k++) {
        add(2 ** k);
        add(2 ** k + 1);
      }
    }
  }
  return [...points].sort((a, b) => a - b);
}

/** Checks that every native:<name> rule for `mpi` names one of its algorithms; throws naming the rule. */
function checkNativeNames(rules: readonly FileRule[], mpi: MpiFlavour): void {
  rules.forEach((r, i) => {
    if (!r.algorithm.startsWith(NATIVE_PREFIX) || r.mpi !== mpi) return;
    if (nativeAlgorithm(mpi, r.collective, r.algorithm.slice(NATIVE_PREFIX.length))) return;
    const valid = nativeAlgorithms(mpi, r.collective).map((a) => `${NATIVE_PREFIX}${a.name}`);
    throw new Error(`rules[${i}]: ${r.algorithm} is not a ${r.collective} algorithm of ${MPI_FLAVOUR_TITLES[mpi]}; valid choices: ${valid.join(', ') || 'none'}`);
  });
}

/** The rules as `mpi`'s table, for communicators spread over `nodes` nodes. */
export function exportTable(rules: readonly FileRule[], mpi: MpiFlavour, nodes: number): ExportTable {
  checkNativeNames(rules, mpi);
  const skipped = new Map<number, string>();
  const collectives: ExportTable['collectives'] = [];
  const notes: string[] = [];
  for (const coll of COLLECTIVES.map((c) => c.name)) {
    const own = rules.filter((r) => r.collective === coll);
    if (own.length === 0 || nativeAlgorithms(mpi, coll).length === 0) continue;
    const metric = metricOf(mpi, coll);
    const points = rankBreakpoints(own, nodes, mpi);
    const last = Math.min(points[points.length - 1], ENUMERATED_RANKS);
    // One by one up to the last breakpoint (byte thresholds may scale with the size), then ranges.
    const sizes = [...Array.from({ length: last }, (_, i) => i + 1), ...points.filter((p) => p > last)];
    const pieces = (p: number) => messagePieces(rules, coll, metric, p, nodes, mpi, skipped);
    const ranks: RankPiece[] = [];
    sizes.forEach((p, i) => {
      const messages = pieces(p);
      const to = i + 1 < sizes.length ? sizes[i + 1] - 1 : null;
      const prev = ranks[ranks.length - 1];
      if (prev && samePieces(prev.messages, messages)) prev.toRanks = to;
      else ranks.push({ fromRanks: p, toRanks: to, messages });
    });
    // A range taken as a whole holds its first size's table: say where other sizes of it (odd,
    // even, larger) would differ.
    const inexact = ranks.find((r) => {
      if (r.toRanks !== null && r.toRanks <= ENUMERATED_RANKS) return false;
      const probes = [r.fromRanks + 1, r.fromRanks + 2, 2 * r.fromRanks, 2 * r.fromRanks + 1].filter((p) => p <= (r.toRanks ?? Infinity));
      return probes.some((p) => !samePieces(r.messages, pieces(p)));
    });
    if (inexact) {
      notes.push(`${coll}: from ${inexact.fromRanks} ranks on, each communicator-size range holds the table of its first size, though the rules differ within (byte thresholds that scale with the size, or odd and even sizes)`);
    }
    // Nothing the MPI can make: its own choice everywhere, no table.
    if (ranks.every((r) => r.messages.every((m) => m.algorithm === null))) continue;
    collectives.push({ collective: coll, metric, ranks });
  }
  for (const [i, why] of [...skipped].sort((a, b) => a[0] - b[0])) {
    notes.push(`skipped rules[${i}] (${describeRule(rules[i])}): ${why}; there the next matching rule or ${MPI_FLAVOUR_TITLES[mpi]}'s own choice decides`);
  }
  const others = rules.filter((r) => r.mpi !== undefined && r.mpi !== mpi).length;
  if (others) notes.push(`left out ${others} rule${others === 1 ? '' : 's'} for ${MPI_FLAVOUR_TITLES[mpi === 'openmpi' ? 'mpich' : 'openmpi']}`);
  return { mpi, nodes, collectives, notes };
}

/** "allgather ring, 1 KiB..<64 KiB blocks, 2..3 ranks". */
function describeRule(r: FileRule): string {
  const parts = [`${r.collective} ${r.algorithm}`];
  if (r.minBytes !== undefined || r.maxBytes !== undefined) {
    parts.push(`${formatBytes(r.minBytes ?? 0)}..${r.maxBytes !== undefined ? `<${formatBytes(r.maxBytes)}` : ''} ${r.basis === 'block' ? 'blocks' : 'in all'}`);
  }
  if (r.minRanks !== undefined || r.maxRanks !== undefined) parts.push(`${r.minRanks ?? 1}..${r.maxRanks ?? ''} ranks`);
  return parts.join(', ');
}

/** "1 KiB..<64 KiB" of a piece, for comments. */
export function pieceBytes(pieces: readonly MessagePiece[], i: number): string {
  const next = pieces[i + 1];
  return `${formatBytes(pieces[i].from)}${next ? `..<${formatBytes(next.from)}` : ' and up'}`;
}
