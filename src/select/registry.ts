// The one registry of collectives, algorithms and default rules. Everything that names an
// algorithm reads it: env parsing, `explain`, docs, tests, benchmarks, and the native build
// (scripts/gen-native-registry.mjs writes native/engine/generated/registry.h from it).

export type CollectiveName = 'allgather' | 'bcast' | 'barrier' | 'alltoall';

export interface AlgorithmInfo {
  /** Canonical name, as users type it in TOPOCOLL_<COLL>_ALGORITHM. */
  readonly name: string;
  readonly summary: string;
  /** Source of the algorithm, for docs and `explain`. */
  readonly origin: string;
}

export interface CollectiveInfo {
  readonly name: CollectiveName;
  readonly env: string;
  readonly algorithms: readonly AlgorithmInfo[];
}

/** `auto` and `native` are valid for every collective and are not algorithms of ours. */
export const AUTO = 'auto';
export const NATIVE = 'native';

export const COLLECTIVES: readonly CollectiveInfo[] = [
  {
    name: 'allgather',
    env: 'TOPOCOLL_ALLGATHER_ALGORITHM',
    algorithms: [
      { name: 'ring', summary: 'p-1 steps, each rank forwards the block it received last', origin: 'seed 000; MPICH' },
      { name: 'recursive_doubling', summary: 'log p steps for power-of-two p, exchange of doubling halves; non-power-of-two via fold-in', origin: 'seed 000; MPICH' },
      { name: 'bruck', summary: 'ceil(log p) steps, send 2^k blocks to rank-2^k, final rotation', origin: 'seed 000; Bruck et al. 1997' },
      { name: 'neighbor_exchange', summary: 'p/2 steps of exchanges with alternating neighbours; odd p in (p+3)/2 steps', origin: 'seed 000' },
    ],
  },
  {
    name: 'bcast',
    env: 'TOPOCOLL_BCAST_ALGORITHM',
    algorithms: [
      { name: 'binomial', summary: 'binomial tree from the root, log p steps', origin: 'MPICH' },
      { name: 'scatter_allgather', summary: 'binomial scatter of p segments, then ring allgather (van de Geijn)', origin: 'MPICH; seed 001 (inter-node part)' },
    ],
  },
  {
    name: 'barrier',
    env: 'TOPOCOLL_BARRIER_ALGORITHM',
    algorithms: [
      { name: 'dissemination', summary: 'ceil(log p) rounds, rank r signals r+2^k', origin: 'Hensgen et al.; MPICH' },
      { name: 'recursive_doubling', summary: 'pairwise exchanges with r xor 2^k; non-power-of-two via fold-in', origin: 'MPICH' },
    ],
  },
  {
    name: 'alltoall',
    env: 'TOPOCOLL_ALLTOALL_ALGORITHM',
    algorithms: [
      { name: 'bruck', summary: 'ceil(log p) steps moving half the blocks each step, for short blocks', origin: 'seed 002; MPICH' },
      { name: 'isend_irecv', summary: 'all exchanges posted at once in staggered order, bounded requests in flight', origin: 'seed 002; MPICH' },
      { name: 'pairwise', summary: 'p-1 exchanges with r xor i (power-of-two p) or r+i / r-i', origin: 'seed 002; MPICH' },
      { name: 'ring', summary: 'shift: at step i send to r+i and receive from r-i', origin: 'seed 002; MPICH' },
    ],
  },
];

/**
 * Size basis of a rule: `block` is the bytes of one rank's block (allgather/alltoall), `total`
 * is the bytes a rank receives in all (allgather: p x block; bcast: the message). MPICH states
 * allgather thresholds in total bytes and alltoall thresholds in block bytes: rules say which.
 */
export type SizeBasis = 'block' | 'total';

export interface Rule {
  readonly collective: CollectiveName;
  readonly algorithm: string;
  readonly basis?: SizeBasis;
  /** Inclusive lower and exclusive upper bound, in bytes of `basis`. */
  readonly minBytes?: number;
  readonly maxBytes?: number;
  /** Inclusive bounds on the communicator size. */
  readonly minRanks?: number;
  readonly maxRanks?: number;
  /** Only for (non-)power-of-two communicator sizes. */
  readonly powerOfTwo?: boolean;
  readonly why: string;
}

/**
 * Built-in defaults, first match wins. Thresholds follow MPICH 4.0 (src/mpi/coll/*, CVARs
 * MPIR_CVAR_ALLGATHER_SHORT/LONG_MSG_SIZE, MPIR_CVAR_BCAST_*, MPIR_CVAR_ALLTOALL_*): they are a
 * well-tested starting point, and `topocoll tune` replaces them with measured rules.
 */
export const DEFAULT_RULES: readonly Rule[] = [
  { collective: 'allgather', algorithm: 'recursive_doubling', basis: 'total', maxBytes: 524288, powerOfTwo: true, why: 'MPICH: total < 512 KiB on power-of-two sizes' },
  { collective: 'allgather', algorithm: 'bruck', basis: 'total', maxBytes: 81920, why: 'MPICH: total < 80 KiB on other sizes' },
  { collective: 'allgather', algorithm: 'ring', why: 'MPICH: long messages' },
  { collective: 'bcast', algorithm: 'binomial', basis: 'total', maxBytes: 12288, why: 'MPICH: message < 12 KiB' },
  { collective: 'bcast', algorithm: 'binomial', maxRanks: 7, why: 'MPICH: fewer than 8 ranks' },
  { collective: 'bcast', algorithm: 'scatter_allgather', why: 'MPICH: medium and long messages on 8 or more ranks' },
  { collective: 'barrier', algorithm: 'dissemination', why: 'MPICH default' },
  { collective: 'alltoall', algorithm: 'bruck', basis: 'block', maxBytes: 257, minRanks: 8, why: 'MPICH: blocks <= 256 B on 8 or more ranks' },
  { collective: 'alltoall', algorithm: 'isend_irecv', basis: 'block', maxBytes: 32769, why: 'MPICH: blocks <= 32 KiB' },
  { collective: 'alltoall', algorithm: 'pairwise', why: 'MPICH: long blocks (xor pairing on power-of-two sizes, shift otherwise)' },
];

export function collectiveInfo(name: string): CollectiveInfo | undefined {
  return COLLECTIVES.find((c) => c.name === name);
}

export function algorithmNames(coll: CollectiveName): string[] {
  return collectiveInfo(coll)!.algorithms.map((a) => a.name);
}

/** Every value TOPOCOLL_<COLL>_ALGORITHM accepts. */
export function validChoices(coll: CollectiveName): string[] {
  return [AUTO, NATIVE, ...algorithmNames(coll)];
}

export type ParameterKind = 'bool' | 'int' | 'choice';

/** A tuning or behaviour variable; its value is validated at init like the algorithm choices. */
export interface ParameterInfo {
  readonly env: string;
  readonly kind: ParameterKind;
  readonly default: string;
  readonly min?: number;
  readonly max?: number;
  readonly choices?: readonly string[];
  readonly summary: string;
}

export const PARAMETERS: readonly ParameterInfo[] = [
  { env: 'TOPOCOLL_VERBOSE', kind: 'int', default: '0', min: 0, max: 2, summary: '1: print the algorithm chosen once per (communicator, collective, size class) and why; 2: also time every call' },
  { env: 'TOPOCOLL_FALLBACK', kind: 'choice', default: 'warn', choices: ['error', 'warn', 'silent'], summary: 'what happens when a forced algorithm cannot run a call: fail, warn once and use native, or use native silently' },
  { env: 'TOPOCOLL_STATS', kind: 'bool', default: '0', summary: 'print per-algorithm call counts and bytes at finalize' },
  { env: 'TOPOCOLL_PASSTHROUGH', kind: 'bool', default: '0', summary: 'preload library only: hand every intercepted call straight to PMPI_* (to stack under a profiler or compare)' },
  { env: 'TOPOCOLL_ALLTOALL_MAX_OUTSTANDING', kind: 'int', default: '32', min: 1, max: 65536, summary: 'isend_irecv alltoall: bound on requests in flight' },
];
