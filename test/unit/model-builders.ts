// Reference schedule builders, in TypeScript, for the replayer and simulator tests only. The
// real builders are C++ (native/engine/<coll>/<algorithm>.cc); these follow the same papers
// (seed 000, MPICH) so the tests exercise realistic schedules without the addon.
import type { CollectiveName } from '../../src/select/registry';
import type { BlockSpan, BufferName, Schedule, ScheduleOp, ScheduleRound, ShmUse } from '../../src/select/schedule';

export const span = (buf: BufferName, first: number, count: number): BlockSpan => ({ buf, first, count });
export const send = (peer: number, src: BlockSpan): ScheduleOp => ({ kind: 'send', peer, src });
export const recv = (peer: number, dst: BlockSpan): ScheduleOp => ({ kind: 'recv', peer, dst });
export const copy = (src: BlockSpan, dst: BlockSpan): ScheduleOp => ({ kind: 'copy', src, dst });
const mod = (a: number, p: number) => ((a % p) + p) % p;

export const signal = (owner: number, slot: number, stage: number): ScheduleOp => ({ kind: 'flag_signal', peer: owner, slot, stage });
export const wait = (owner: number, slot: number, stage: number): ScheduleOp => ({ kind: 'flag_wait', peer: owner, slot, stage });

export interface Extra {
  count?: number;
  root?: number;
  inPlace?: boolean;
  tmpBlocks?: number;
  unitsPerBlock?: number;
  shm?: ShmUse;
}

export function schedule(collective: CollectiveName, algorithm: string, p: number, rank: number, rounds: ScheduleRound[], extra: Extra = {}): Schedule {
  return {
    collective,
    algorithm,
    p,
    rank,
    count: extra.count ?? 1,
    root: extra.root ?? 0,
    inPlace: extra.inPlace ?? false,
    tmpBlocks: extra.tmpBlocks ?? 0,
    note: '',
    unitsPerBlock: extra.unitsPerBlock ?? 1,
    shm: extra.shm ?? 'none',
    rounds,
  };
}

/** My own block: the send buffer's only block, or recv[rank] in place. */
const ownBlock = (rank: number, inPlace: boolean) => (inPlace ? span('recv', rank, 1) : span('send', 0, 1));

/** Ring (seed 000 §2.1), as native/engine/allgather/ring.cc builds it. */
export function ringAllgather(p: number, rank: number, inPlace = false): Schedule {
  const rounds: ScheduleRound[] = [];
  if (!inPlace) rounds.push([copy(span('send', 0, 1), span('recv', rank, 1))]);
  const right = mod(rank + 1, p);
  const left = mod(rank - 1, p);
  for (let step = 0; step < p - 1; step++) {
    rounds.push([send(right, span('recv', mod(rank - step, p), 1)), recv(left, span('recv', mod(rank - step - 1, p), 1))]);
  }
  return schedule('allgather', 'ring', p, rank, rounds, { inPlace });
}

/**
 * Bruck (seed 000 §2.3): tmp holds my block followed by the blocks of rank+1, rank+2, ...; at
 * step k send the first 2^k blocks to rank-2^k and receive the next ones from rank+2^k (the last
 * step only p-2^s blocks); finally rotate tmp into place. `rotate: false` gives a broken variant.
 */
export function bruckAllgather(p: number, rank: number, inPlace = false, rotate = true): Schedule {
  const own = ownBlock(rank, inPlace);
  const rounds: ScheduleRound[] = [];
  for (let pof2 = 1; pof2 < p; pof2 *= 2) {
    const n = Math.min(pof2, p - pof2);
    const first = pof2 === 1;
    const round: ScheduleRound = [send(mod(rank - pof2, p), first ? own : span('tmp', 0, n)), recv(mod(rank + pof2, p), span('tmp', pof2, n))];
    if (first) round.push(copy(own, span('tmp', 0, 1)));
    rounds.push(round);
  }
  if (p === 1) rounds.push([copy(own, span('tmp', 0, 1))]);
  const last = rounds[rounds.length - 1];
  if (rotate) {
    last.push(copy(span('tmp', 0, p - rank), span('recv', rank, p - rank)));
    if (rank > 0) last.push(copy(span('tmp', p - rank, rank), span('recv', 0, rank)));
  } else {
    last.push(copy(span('tmp', 0, p), span('recv', 0, p)));
  }
  return schedule('allgather', 'bruck', p, rank, rounds, { inPlace, tmpBlocks: p });
}

/** Recursive doubling (seed 000 §2.2), power-of-two p: exchange doubling aligned groups with rank ^ 2^k. */
export function recursiveDoublingAllgather(p: number, rank: number): Schedule {
  if (p & (p - 1)) throw new Error('recursive doubling reference needs a power of two');
  const rounds: ScheduleRound[] = [];
  for (let k = 0, pof2 = 1; pof2 < p; k++, pof2 *= 2) {
    const partner = rank ^ pof2;
    const mine = pof2 === 1 ? span('send', 0, 1) : span('recv', (rank >> k) << k, pof2);
    const round: ScheduleRound = [send(partner, mine), recv(partner, span('recv', (partner >> k) << k, pof2))];
    if (pof2 === 1) round.push(copy(span('send', 0, 1), span('recv', rank, 1)));
    rounds.push(round);
  }
  if (p === 1) rounds.push([copy(span('send', 0, 1), span('recv', 0, 1))]);
  return schedule('allgather', 'recursive_doubling', p, rank, rounds);
}

/**
 * Neighbor exchange (seed 000 §3), even p: step 0 even ranks swap blocks with the right
 * neighbour, odd ranks with the left; then ranks alternate neighbours and pass on the pair of
 * blocks they received last. p/2 steps. Pairs start at even block indices, so never wrap.
 */
export function neighborExchangeAllgather(p: number, rank: number): Schedule {
  if (p % 2) throw new Error('neighbor exchange reference needs an even p');
  const even = rank % 2 === 0;
  const base = even ? rank : rank - 1; // my pair after step 0
  const first = even ? mod(rank + 1, p) : mod(rank - 1, p);
  const rounds: ScheduleRound[] = [[send(first, span('send', 0, 1)), recv(first, span('recv', first, 1)), copy(span('send', 0, 1), span('recv', rank, 1))]];
  let last = base;
  for (let s = 1; s < p / 2; s++) {
    const toLeft = even ? s % 2 === 1 : s % 2 === 0;
    const peer = toLeft ? mod(rank - 1, p) : mod(rank + 1, p);
    const incoming = even ? (s % 2 ? base - (s + 1) : base + s) : s % 2 ? base + s + 1 : base - s;
    rounds.push([send(peer, span('recv', last, 2)), recv(peer, span('recv', mod(incoming, p), 2))]);
    last = mod(incoming, p);
  }
  return schedule('allgather', 'neighbor_exchange', p, rank, rounds);
}

/** Pairwise exchange (seed 002 §2 (3)/(4)): rank ^ i for power-of-two p, else to rank+i from rank-i. */
export function pairwiseAlltoall(p: number, rank: number): Schedule {
  const rounds: ScheduleRound[] = [[copy(span('send', rank, 1), span('recv', rank, 1))]];
  const pow2 = (p & (p - 1)) === 0;
  for (let i = 1; i < p; i++) {
    const to = pow2 ? rank ^ i : (rank + i) % p;
    const from = pow2 ? rank ^ i : mod(rank - i, p);
    rounds.push([send(to, span('send', to, 1)), recv(from, span('recv', from, 1))]);
  }
  return schedule('alltoall', 'pairwise', p, rank, rounds);
}

/**
 * Bruck alltoall (seed 002 §2 (1), MPICH): rotate so tmp[i] is the block for rank+i; at step k
 * pack the blocks whose index has bit k into a contiguous area, send it to rank+2^k, receive the
 * same positions from rank-2^k; a final rotation puts the block from rank-i at recv[rank-i].
 * Packing is done with copies, which run at the end of the round before the send.
 */
export function bruckAlltoall(p: number, rank: number): Schedule {
  const pack = p; // tmp[p .. 2p): packed outgoing blocks
  const unpack = 2 * p; // tmp[2p .. 3p): packed incoming blocks
  const runs = (pof2: number) => {
    const out: Array<[number, number]> = [];
    for (let start = pof2; start < p; start += 2 * pof2) out.push([start, Math.min(pof2, p - start)]);
    return out;
  };
  const packCopies = (pof2: number): ScheduleOp[] => {
    const ops: ScheduleOp[] = [];
    let at = 0;
    for (const [start, n] of runs(pof2)) {
      ops.push(copy(span('tmp', start, n), span('tmp', pack + at, n)));
      at += n;
    }
    return ops;
  };
  const unpackCopies = (pof2: number): ScheduleOp[] => {
    const ops: ScheduleOp[] = [];
    let at = 0;
    for (const [start, n] of runs(pof2)) {
      ops.push(copy(span('tmp', unpack + at, n), span('tmp', start, n)));
      at += n;
    }
    return ops;
  };
  const packed = (pof2: number) => runs(pof2).reduce((sum, [, n]) => sum + n, 0);

  const rounds: ScheduleRound[] = [];
  const first: ScheduleRound = [copy(span('send', rank, p - rank), span('tmp', 0, p - rank))];
  if (rank > 0) first.push(copy(span('send', 0, rank), span('tmp', p - rank, rank)));
  if (p > 1) first.push(...packCopies(1));
  rounds.push(first);
  for (let pof2 = 1; pof2 < p; pof2 *= 2) {
    const n = packed(pof2);
    const round: ScheduleRound = [send(mod(rank + pof2, p), span('tmp', pack, n)), recv(mod(rank - pof2, p), span('tmp', unpack, n)), ...unpackCopies(pof2)];
    if (pof2 * 2 < p) round.push(...packCopies(pof2 * 2));
    rounds.push(round);
  }
  // recv[rank - i] = tmp[i]
  const last = rounds[rounds.length - 1];
  for (let i = 0; i < p; i++) last.push(copy(span('tmp', i, 1), span('recv', mod(rank - i, p), 1)));
  return schedule('alltoall', 'bruck', p, rank, rounds, { tmpBlocks: 3 * p });
}

/** Binomial tree from `root` over relative ranks: at step k, relative ranks below 2^k send to +2^k. */
export function binomialBcast(p: number, rank: number, root: number, count: number): Schedule {
  const vr = mod(rank - root, p);
  const rounds: ScheduleRound[] = [];
  for (let pof2 = 1; pof2 < p; pof2 *= 2) {
    const round: ScheduleRound = [];
    if (vr < pof2 && vr + pof2 < p) round.push(send(mod(vr + pof2 + root, p), span('recv', 0, count)));
    if (vr >= pof2 && vr < 2 * pof2) round.push(recv(mod(vr - pof2 + root, p), span('recv', 0, count)));
    rounds.push(round);
  }
  return schedule('bcast', 'binomial', p, rank, rounds, { count, root });
}

/** Dissemination (Hensgen et al.): round k signals rank+2^k and waits for rank-2^k. */
export function disseminationBarrier(p: number, rank: number, dropLastRound = false): Schedule {
  const rounds: ScheduleRound[] = [];
  const none = span('recv', 0, 0);
  for (let pof2 = 1; pof2 < p; pof2 *= 2) rounds.push([send(mod(rank + pof2, p), none), recv(mod(rank - pof2, p), none)]);
  if (dropLastRound) rounds.pop();
  return schedule('barrier', 'dissemination', p, rank, rounds);
}

/** A ring whose ranks all wait to receive before they send: every rank blocks in round 0. */
export function deadlockingRingAllgather(p: number, rank: number): Schedule {
  const s = ringAllgather(p, rank);
  const [copyRound, ...steps] = s.rounds;
  const rounds: ScheduleRound[] = [copyRound];
  for (const [sendOp, recvOp] of steps) rounds.push([recvOp], [sendOp]);
  return { ...s, rounds };
}

/** Runs of consecutive ranks as spans of `buf`. */
function runs(ranks: readonly number[], buf: BufferName): BlockSpan[] {
  const out: BlockSpan[] = [];
  for (const r of ranks) {
    const last = out[out.length - 1];
    if (last && last.first + last.count === r) last.count++;
    else out.push(span(buf, r, 1));
  }
  return out;
}

/**
 * Hierarchical allgather through the node's shared area when it holds all p blocks (as
 * native/engine/allgather/hierarchical.cc): every rank puts its block at its place and flags
 * it; the node's ranks read each other's blocks; the leaders (lowest rank of each node) run a
 * ring and put each node's blocks into the area as they arrive, flagging each step.
 * `skipLocalWait` drops the readers' wait for their node mates' flags: a race.
 */
export function hierarchicalAllgather(p: number, rank: number, nodes: readonly number[], skipLocalWait = false): Schedule {
  const nodeIds = [...new Set(nodes)].sort((a, b) => a - b);
  const members = (n: number) => nodes.flatMap((x, r) => (x === n ? [r] : []));
  const node = nodes[rank];
  const mates = members(node);
  const leader = mates[0];
  const peers = mates.filter((r) => r !== rank);
  const put: ScheduleRound = [copy(span('send', 0, 1), span('shm', rank, 1)), copy(span('send', 0, 1), span('recv', rank, 1)), signal(rank, 1, 1)];
  const local: ScheduleRound = [];
  if (!skipLocalWait) for (const r of peers) local.push(wait(r, 1, 1));
  for (const b of runs(peers, 'shm')) local.push(copy(b, span('recv', b.first, b.count)));
  const rounds: ScheduleRound[] = [put, local];
  const n = nodeIds.length;
  const i = nodeIds.indexOf(node);
  const leaders = nodeIds.map((x) => members(x)[0]);
  for (let t = 0; t < n - 1; t++) {
    const out = nodeIds[mod(i - t, n)];
    const incoming = members(nodeIds[mod(i - t - 1, n)]);
    const round: ScheduleRound = [];
    if (rank === leader) {
      for (const b of runs(members(out), 'recv')) round.push(send(leaders[mod(i + 1, n)], b));
      for (const b of runs(incoming, 'recv')) round.push(recv(leaders[mod(i - 1, n)], b), copy(b, span('shm', b.first, b.count)));
      round.push(signal(leader, 1, 2 + t));
    } else {
      round.push(wait(leader, 1, 2 + t));
      for (const b of runs(incoming, 'shm')) round.push(copy(b, span('recv', b.first, b.count)));
    }
    rounds.push(round);
  }
  return schedule('allgather', 'hierarchical', p, rank, rounds, { shm: 'data' });
}

/**
 * Bcast on one node through a one-element shared area: the root puts element e, flags stage
 * e + 1, and the readers copy it out and acknowledge on their own flag. Without the root's
 * wait for the acknowledgements (`waitForReaders` false) it overwrites the area too early.
 */
export function shmRelayBcast(p: number, rank: number, count: number, waitForReaders = true): Schedule {
  const rounds: ScheduleRound[] = [];
  for (let e = 0; e < count; e++) {
    if (rank === 0) {
      const round: ScheduleRound = [];
      if (e > 0 && waitForReaders) for (let r = 1; r < p; r++) round.push(wait(r, 2, e));
      round.push(copy(span('recv', e, 1), span('shm', 0, 1)), signal(0, 1, e + 1));
      rounds.push(round);
    } else {
      rounds.push([wait(0, 1, e + 1), copy(span('shm', 0, 1), span('recv', e, 1)), signal(rank, 2, e + 1)]);
    }
  }
  return schedule('bcast', 'shm_relay', p, rank, rounds, { count, shm: 'data' });
}
