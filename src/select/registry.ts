// The one registry of collectives, algorithms and default rules. Everything that names an
// algorithm reads it: env parsing, `explain`, docs, tests, benchmarks, and the native build.
// Each collective is a descriptor (its shape, whether it is rooted or reduces, its C signature):
// scripts/gen-native-registry.mjs generates every per-collective seam from it (the engine's
// entry points and native thunks, the preload's MPI_* / MPI_I* / _c / Fortran wrappers, the
// addon's calls, the schemas' enums), as MPICH generates its dispatch from coll_algorithms.txt.

export type CollectiveName = 'allgather' | 'bcast' | 'barrier' | 'alltoall' | 'allreduce' | 'reduce' | 'reduce_scatter_block' | 'reduce_scatter';

export interface AlgorithmInfo {
  /** Canonical name, as users type it in TOPOCOLL_<COLL>_ALGORITHM. */
  readonly name: string;
  readonly summary: string;
  /** Source of the algorithm, for docs and `explain`. */
  readonly origin: string;
  /** Uses the node's shared memory: off under TOPOCOLL_SHM=0 (the default rules skip it, a forced choice falls back). */
  readonly shm?: boolean;
  /** Runs under a rank mapping pi computed from the ranks' nodes (seed 004): its schedule depends on the placement. */
  readonly remapped?: boolean;
  /**
   * Reductions: combines the operands in rank order (r0 op r1 op ... op r(p-1), each once), so it
   * runs ops that are not commutative; the others run commutative ops only (a forced one falls back).
   */
  readonly rankOrdered?: boolean;
}

/**
 * What a call's size is. `block`: one rank's block of a p-block vector (allgather, alltoall,
 * reduce_scatter_block: users state the block, the call covers p of them). `vector`: the whole
 * message (bcast, allreduce, reduce). `none`: no payload (barrier).
 */
export type CollectiveShape = 'block' | 'vector' | 'none';

/**
 * What a parameter of the C signature is, whatever its name: the generators translate, check
 * and forward each by its role (a Fortran datatype through MPI_Type_f2c, an op through
 * MPI_Op_f2c, a count widened to MPI_Count in the large-count form, ...).
 *   sendbuf   the input (may be MPI_IN_PLACE)       recvbuf  the output
 *   buffer    both (bcast's)                        count    elements
 *   counts    elements per rank (an array of p)     datatype an MPI_Datatype
 *   op        an MPI_Op (reductions)                root     a rank
 *   comm      the communicator
 * The nonblocking forms add the MPI_Request* `request` last.
 */
export type ParameterRole = 'sendbuf' | 'recvbuf' | 'buffer' | 'count' | 'counts' | 'datatype' | 'op' | 'root' | 'comm';

export interface CParameter {
  readonly name: string;
  /** Its C type in the MPI-3 blocking form (the large-count form widens `int` counts to MPI_Count). */
  readonly type: string;
  readonly role: ParameterRole;
  /** A count or datatype of the send side: ignored (and unchecked) when sendbuf is MPI_IN_PLACE. */
  readonly side?: 'send';
}

/**
 * The C entry points a collective has: `blocking` MPI_<Coll>, `nonblocking` MPI_I<coll>,
 * `large_count` MPI_<Coll>_c and MPI_I<coll>_c (MPI-4: compiled where MPI_VERSION >= 4),
 * `fortran` mpi_<coll>_ and its aliases (Open MPI only: MPICH's Fortran layer calls our C symbols).
 */
export type CollectiveForm = 'blocking' | 'nonblocking' | 'large_count' | 'fortran';

/** Blocks a buffer holds, in units of the shape: none, one (the rank's block, or the vector), or p. */
export type BlockCount = 0 | 1 | 'p';

export interface CollectiveInfo {
  readonly name: CollectiveName;
  readonly env: string;
  readonly algorithms: readonly AlgorithmInfo[];
  readonly shape: CollectiveShape;
  /** Data flows from or to one root rank (a `root` parameter). */
  readonly rooted: boolean;
  /** Combines the ranks' data with an MPI_Op (an `op` parameter). */
  readonly reducing: boolean;
  /**
   * What each rank's buffers hold, in units of the shape (allgather sends 1 block and receives
   * p; alltoall sends p; bcast's one buffer is the vector, the root's the input). The replay,
   * the bench's checks and the Node binding's length checks read it.
   */
  readonly blocks: { readonly send: BlockCount; readonly recv: BlockCount };
  /** The C signature of the blocking MPI-3 form; the other forms derive from it. */
  readonly params: readonly CParameter[];
  readonly forms: readonly CollectiveForm[];
}

/** `auto` and `native` are valid for every collective and are not algorithms of ours. */
export const AUTO = 'auto';
export const NATIVE = 'native';

const ALL_FORMS: readonly CollectiveForm[] = ['blocking', 'nonblocking', 'large_count', 'fortran'];

/** MPI_Allgather's and MPI_Alltoall's signature (MPI-3.1). */
const BLOCK_EXCHANGE_PARAMS: readonly CParameter[] = [
  { name: 'sendbuf', type: 'const void*', role: 'sendbuf' },
  { name: 'sendcount', type: 'int', role: 'count', side: 'send' },
  { name: 'sendtype', type: 'MPI_Datatype', role: 'datatype', side: 'send' },
  { name: 'recvbuf', type: 'void*', role: 'recvbuf' },
  { name: 'recvcount', type: 'int', role: 'count' },
  { name: 'recvtype', type: 'MPI_Datatype', role: 'datatype' },
  { name: 'comm', type: 'MPI_Comm', role: 'comm' },
];

/** The reductions' signatures (MPI-3.1 §5.9-5.10): buffers, count(s), datatype, op[, root], comm. */
function reductionParams(count: CParameter, root = false): readonly CParameter[] {
  return [
    { name: 'sendbuf', type: 'const void*', role: 'sendbuf' },
    { name: 'recvbuf', type: 'void*', role: 'recvbuf' },
    count,
    { name: 'datatype', type: 'MPI_Datatype', role: 'datatype' },
    { name: 'op', type: 'MPI_Op', role: 'op' },
    ...(root ? [{ name: 'root', type: 'int', role: 'root' } as const] : []),
    { name: 'comm', type: 'MPI_Comm', role: 'comm' },
  ];
}
const COUNT: CParameter = { name: 'count', type: 'int', role: 'count' };

/** reduce_scatter_block and reduce_scatter run the same builders (native/engine/reduce_scatter/parts.h). */
const REDUCE_SCATTER_ALGORITHMS: readonly AlgorithmInfo[] = [
  { name: 'recursive_halving', summary: 'log p exchanges with r xor 2^k, farthest first, halving the parts held; non-power-of-two via fold-in; commutative ops only (partners are not runs of ranks)', origin: 'MPICH' },
  { name: 'pairwise', summary: 'p-1 exchanges, at step i send part r+i to r+i and combine the operand of r-i; operands of lower and higher ranks kept apart, so in rank order', origin: 'MPICH', rankOrdered: true },
  { name: 'ring', summary: 'p-1 steps to the right neighbour, each combining its operand into the partial result of a part passing by; commutative ops only', origin: 'Open MPI reduce_scatter ring' },
];

export const COLLECTIVES: readonly CollectiveInfo[] = [
  {
    name: 'allgather',
    env: 'TOPOCOLL_ALLGATHER_ALGORITHM',
    shape: 'block',
    rooted: false,
    reducing: false,
    blocks: { send: 1, recv: 'p' },
    params: BLOCK_EXCHANGE_PARAMS,
    forms: ALL_FORMS,
    algorithms: [
      { name: 'ring', summary: 'p-1 steps, each rank forwards the block it received last', origin: 'seed 000; MPICH' },
      { name: 'recursive_doubling', summary: 'log p steps for power-of-two p, exchange of doubling halves; non-power-of-two via fold-in', origin: 'seed 000; MPICH' },
      { name: 'bruck', summary: 'ceil(log p) steps, send 2^k blocks to rank-2^k, final rotation', origin: 'seed 000; Bruck et al. 1997' },
      { name: 'neighbor_exchange', summary: 'p/2 steps of exchanges with alternating neighbours; odd p in (p+3)/2 steps', origin: 'seed 000' },
      { name: 'bruck_exch', summary: 'Bruck under a rank mapping pi that keeps its heavy edges inside nodes; each rank swaps its block to the rank running its number, inside the first step of Bruck', origin: 'seed 004 (Kurnosov)', remapped: true },
      { name: 'bruck_reorder', summary: 'Bruck under a rank mapping pi that keeps its heavy edges inside nodes, then a local permutation of the result', origin: 'seed 004 (Kurnosov)', remapped: true },
      { name: 'recursive_doubling_exch', summary: 'recursive doubling under a rank mapping pi with a block swap (inside the first step on 2^k ranks); other p through its fold-in variant', origin: 'seed 004 (Kurnosov)', remapped: true },
      { name: 'recursive_doubling_reorder', summary: 'recursive doubling under a rank mapping pi, then a local permutation of the result; other p through its fold-in variant', origin: 'seed 004 (Kurnosov)', remapped: true },
      { name: 'hierarchical', summary: 'blocks gathered in node shared memory, an allgather among node leaders (recursive doubling, Bruck or ring from the registry; a ring of rank runs for uneven nodes), result read from shared memory', origin: 'seed 001', shm: true },
    ],
  },
  {
    name: 'bcast',
    env: 'TOPOCOLL_BCAST_ALGORITHM',
    shape: 'vector',
    rooted: true,
    reducing: false,
    blocks: { send: 0, recv: 1 },
    params: [
      { name: 'buffer', type: 'void*', role: 'buffer' },
      { name: 'count', type: 'int', role: 'count' },
      { name: 'datatype', type: 'MPI_Datatype', role: 'datatype' },
      { name: 'root', type: 'int', role: 'root' },
      { name: 'comm', type: 'MPI_Comm', role: 'comm' },
    ],
    forms: ALL_FORMS,
    algorithms: [
      { name: 'binomial', summary: 'binomial tree from the root, log p steps', origin: 'MPICH' },
      { name: 'scatter_allgather', summary: 'binomial scatter of p segments, then ring allgather (van de Geijn)', origin: 'MPICH; seed 001 (inter-node part)' },
      { name: 'shm_numa', summary: 'leaders scatter_allgather; in a node the leader copies into NUMA-placed shm segments, read by groups of k ranks in turn, pipelined; small messages binomial', origin: 'seed 001', shm: true },
      { name: 'hierarchical', summary: 'binomial or scatter_allgather among node leaders, then one shared-memory copy read by the whole node, pipelined', origin: 'seed 001; MPICH/Open MPI han', shm: true },
    ],
  },
  {
    name: 'barrier',
    env: 'TOPOCOLL_BARRIER_ALGORITHM',
    shape: 'none',
    rooted: false,
    reducing: false,
    blocks: { send: 0, recv: 0 },
    params: [{ name: 'comm', type: 'MPI_Comm', role: 'comm' }],
    forms: ['blocking', 'nonblocking', 'fortran'],
    algorithms: [
      { name: 'dissemination', summary: 'ceil(log p) rounds, rank r signals r+2^k', origin: 'Hensgen et al.; MPICH' },
      { name: 'recursive_doubling', summary: 'pairwise exchanges with r xor 2^k; non-power-of-two via fold-in', origin: 'MPICH' },
      { name: 'shm_hierarchical', summary: 'ranks -> socket master -> node leader over one shm queue (a cache line per entry), dissemination among leaders, and back', origin: 'seed 001', shm: true },
    ],
  },
  {
    name: 'alltoall',
    env: 'TOPOCOLL_ALLTOALL_ALGORITHM',
    shape: 'block',
    rooted: false,
    reducing: false,
    blocks: { send: 'p', recv: 'p' },
    params: BLOCK_EXCHANGE_PARAMS,
    forms: ALL_FORMS,
    algorithms: [
      { name: 'bruck', summary: 'ceil(log p) steps moving half the blocks each step, for short blocks', origin: 'seed 002; MPICH' },
      { name: 'isend_irecv', summary: 'all exchanges posted at once in staggered order, bounded requests in flight', origin: 'seed 002; MPICH' },
      { name: 'pairwise', summary: 'p-1 exchanges with r xor i (power-of-two p) or r+i / r-i', origin: 'seed 002; MPICH' },
      { name: 'ring', summary: 'shift: at step i send to r+i and receive from r-i', origin: 'seed 002; MPICH' },
      { name: 'tiled', summary: 'pairwise exchange with every block cut into tiles sized to the shared cache', origin: 'seed 001' },
    ],
  },
  {
    name: 'allreduce',
    env: 'TOPOCOLL_ALLREDUCE_ALGORITHM',
    shape: 'vector',
    rooted: false,
    reducing: true,
    blocks: { send: 1, recv: 1 },
    params: reductionParams(COUNT),
    forms: ALL_FORMS,
    algorithms: [
      { name: 'recursive_doubling', summary: 'log p exchanges of the whole vector with r xor 2^k, lower ranks\' operand on the left; non-power-of-two via fold-in', origin: 'MPICH', rankOrdered: true },
      { name: 'reduce_scatter_allgather', summary: 'reduce-scatter by recursive halving, then allgather by recursive doubling (Rabenseifner); non-power-of-two via fold-in', origin: 'Rabenseifner 2004; MPICH', rankOrdered: true },
      { name: 'ring', summary: 'ring reduce-scatter then ring allgather, in 32 KiB segments (under the TCP eager limit) with up to 4 rounds posted ahead: each rank sends 2(p-1)/p of the vector', origin: 'Patarasuk & Yuan 2009; Open MPI ring_segmented' },
      { name: 'hierarchical', summary: 'operands in node shared memory, each rank combining its slice of the vector from all of them (a socket level where ranks are bound to several sockets), an allreduce among node leaders (recursive doubling, Rabenseifner or ring from the registry), result read from shared memory; pipelined through the data area', origin: 'seed 001; Open MPI xhc/han, MPICH release_gather', shm: true, rankOrdered: true },
      { name: 'multi_leader', summary: 'by messages only, on nodes of one size K: reduce-scatter in the node, the ring among the j-th ranks of all nodes on part j, allgather in the node; 32 KiB segments with rounds posted ahead, each link carrying 2(h-1)/h of the vector; nodes of different sizes run the ring', origin: 'MPICH 4.1 multi-leader allreduce; Open MPI han' },
    ],
  },
  {
    name: 'reduce',
    env: 'TOPOCOLL_REDUCE_ALGORITHM',
    shape: 'vector',
    rooted: true,
    reducing: true,
    blocks: { send: 1, recv: 1 },
    params: reductionParams(COUNT, true),
    forms: ALL_FORMS,
    algorithms: [
      { name: 'binomial', summary: 'binomial tree, log p steps of the whole vector; ops that are not commutative on the tree rooted at rank 0 (subtrees are runs of ranks), then to the root', origin: 'MPICH', rankOrdered: true },
      { name: 'reduce_scatter_gather', summary: 'reduce-scatter by recursive halving (nearest partner first, lower ranks\' operand on the left), then binomial gather of the blocks to the root (Rabenseifner); non-power-of-two via fold-in', origin: 'Rabenseifner 2004; MPICH', rankOrdered: true },
      { name: 'hierarchical', summary: 'operands in node shared memory, each rank combining its slice of the vector from all of them (a socket level where ranks are bound to several sockets), the node leaders (the root leading its node) reduce to the root with a reduce from the registry; pipelined through the data area', origin: 'seed 001; Open MPI xhc/han, MPICH release_gather', shm: true, rankOrdered: true },
    ],
  },
  {
    name: 'reduce_scatter_block',
    env: 'TOPOCOLL_REDUCE_SCATTER_BLOCK_ALGORITHM',
    shape: 'block',
    rooted: false,
    reducing: true,
    blocks: { send: 'p', recv: 1 },
    params: reductionParams({ name: 'recvcount', type: 'int', role: 'count' }),
    forms: ALL_FORMS,
    algorithms: REDUCE_SCATTER_ALGORITHMS,
  },
  {
    name: 'reduce_scatter',
    env: 'TOPOCOLL_REDUCE_SCATTER_ALGORITHM',
    shape: 'block',
    rooted: false,
    reducing: true,
    blocks: { send: 'p', recv: 1 },
    params: reductionParams({ name: 'recvcounts', type: 'const int*', role: 'counts' }),
    forms: ALL_FORMS,
    algorithms: REDUCE_SCATTER_ALGORITHMS,
  },
];

/**
 * Size basis of a rule: `block` is the bytes of one rank's block (allgather/alltoall), `total`
 * is the bytes a rank receives in all (allgather: p x block; bcast, allreduce: the message). MPICH states
 * allgather thresholds in total bytes and alltoall thresholds in block bytes: rules say which.
 */
export type SizeBasis = 'block' | 'total';

/** The MPIs topocoll builds for, in the order it prefers them. */
export const MPI_FLAVOURS = ['openmpi', 'mpich'] as const;
export type MpiFlavour = (typeof MPI_FLAVOURS)[number];
export const MPI_FLAVOUR_TITLES: Record<MpiFlavour, string> = { openmpi: 'Open MPI', mpich: 'MPICH' };

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
  /**
   * true: only where placement matters, i.e. the communicator spans several nodes (shared-memory
   * or virtual) and some node holds several of its ranks; false: only elsewhere.
   */
  readonly multiNode?: boolean;
  /** Only for nonblocking calls (MPI_I…, `comm.i…`: true) or blocking ones (false). */
  readonly nonblocking?: boolean;
  /** Only under this MPI (the library the engine was built against). */
  readonly mpi?: MpiFlavour;
  readonly why: string;
}

// On 2 ranks every algorithm is one exchange, and the system MPI's own path is the shorter one.
const ONE_EXCHANGE = "measured (topocoll bench, 2 ranks, both MPIs): one exchange, where the system MPI's own path is shorter than the engine's (by 0.05-0.3 us)";
// On 2 ranks of one node, one copy into shared memory and one out beat the system MPI's messages
// from a few hundred bytes (bcast 512 B: Open MPI 0.54 vs 1.7 us; 16 KiB: 2.7 vs 7-9 us on both MPIs).
const TWO_RANKS_SHARED_COPY = 'measured (topocoll bench, 2 ranks, both MPIs): one shared copy, 1.1-4.8x faster than the system MPI from 512 B (bcast) and 256 B blocks (allgather) under Open MPI, from 16 KiB under MPICH';
// MPICH's own shared-memory path is eager: a loop of calls pipelines, where our shared copy waits for its readers.
const MPICH_EAGER = 'measured (topocoll bench, 2 ranks, MPICH 4.0, 2026-11-25): below 16 KiB MPICH\'s eager shared-memory path beats one shared copy (bcast 4 KiB 0.38-0.42 vs 0.65-0.69 us)';

// The reductions on 2 ranks, until measured.
const NOT_MEASURED = "not measured yet: on 2 ranks every algorithm is one exchange, where the system MPI's own path is the shorter one for the other collectives";

/**
 * Built-in defaults, first match wins (`native`: the system MPI's own). Thresholds follow MPICH 4.0 (src/mpi/coll/*, CVARs
 * MPIR_CVAR_ALLGATHER_SHORT/LONG_MSG_SIZE, MPIR_CVAR_BCAST_*, MPIR_CVAR_ALLTOALL_*): they are a
 * well-tested starting point, and `topocoll tune` replaces them with measured rules.
 */
export const DEFAULT_RULES: readonly Rule[] = [
  { collective: 'allgather', algorithm: 'bruck_reorder', basis: 'block', minBytes: 8192, multiNode: true, why: 'seed 004: ranks over several nodes, blocks >= 8 KiB: Bruck under a rank mapping keeps its heavy steps inside nodes (emulated cluster: 1.3-2.3x over bruck and Open MPI)' },
  // Seed 001's shared-memory algorithms where they beat the system MPI and the point-to-point defaults in
  // every launch on the 2-core development machine (topocoll bench and bench/shm.mjs; docs/shm.md): on 2 ranks
  // from a few hundred bytes on (since copies into the segment stream past the caches: shm/stream_copy.h),
  // on 4 ranks (oversubscribed) allgather hierarchical at 1-64 KiB blocks (0.35-0.44x) and bcast hierarchical
  // at 16 KiB (0.28-0.89x). Alltoall tiled did not win consistently and stays out, and so does barrier shm_hierarchical
  // on 2 ranks (below).
  { collective: 'allgather', algorithm: 'native', basis: 'block', maxBytes: 256, maxRanks: 2, why: ONE_EXCHANGE },
  { collective: 'allgather', algorithm: 'native', basis: 'block', maxBytes: 16384, maxRanks: 2, mpi: 'mpich', why: MPICH_EAGER },
  { collective: 'allgather', algorithm: 'hierarchical', basis: 'block', maxBytes: 524289, maxRanks: 2, why: TWO_RANKS_SHARED_COPY },
  { collective: 'allgather', algorithm: 'native', basis: 'block', minBytes: 524289, maxRanks: 2, why: 'measured (topocoll bench, 2 ranks, both MPIs): blocks > 512 KiB no longer fit one shared copy; the system MPI\'s single copy is 1.3-2x faster than ours' },
  { collective: 'allgather', algorithm: 'hierarchical', basis: 'block', minBytes: 1024, maxBytes: 65537, why: 'measured (bench/shm.mjs): shared memory beats messages for 1-64 KiB blocks' },
  { collective: 'allgather', algorithm: 'recursive_doubling', basis: 'total', maxBytes: 524288, powerOfTwo: true, why: 'MPICH: total < 512 KiB on power-of-two sizes' },
  { collective: 'allgather', algorithm: 'bruck', basis: 'total', maxBytes: 81920, why: 'MPICH: total < 80 KiB on other sizes' },
  { collective: 'allgather', algorithm: 'ring', why: 'MPICH: long messages' },
  { collective: 'bcast', algorithm: 'native', basis: 'total', maxBytes: 512, maxRanks: 2, why: ONE_EXCHANGE },
  { collective: 'bcast', algorithm: 'native', basis: 'total', maxBytes: 16384, maxRanks: 2, mpi: 'mpich', why: MPICH_EAGER },
  { collective: 'bcast', algorithm: 'hierarchical', basis: 'total', maxBytes: 524288, maxRanks: 2, why: TWO_RANKS_SHARED_COPY },
  { collective: 'bcast', algorithm: 'shm_numa', basis: 'total', minBytes: 524288, maxRanks: 2, why: 'measured (topocoll bench, 2 ranks, both MPIs): pipelined shared segments, 1.2-1.7x faster than the system MPI from 512 KiB to 4 MiB' },
  { collective: 'bcast', algorithm: 'binomial', basis: 'total', maxBytes: 12288, why: 'MPICH: message < 12 KiB' },
  { collective: 'bcast', algorithm: 'hierarchical', basis: 'total', maxBytes: 65536, why: 'measured (bench/shm.mjs): one shared copy beats messages for 12-64 KiB' },
  { collective: 'bcast', algorithm: 'binomial', maxRanks: 7, why: 'MPICH: fewer than 8 ranks' },
  { collective: 'bcast', algorithm: 'scatter_allgather', why: 'MPICH: medium and long messages on 8 or more ranks' },
  // Not shm_hierarchical: topocoll bench measured it 1.36-1.46x faster (2026-11-25) under its launch of then, whose
  // mpi_yield_when_idle=1 slows Open MPI's own barrier 1.4x and not ours; an OSU user's launch has no such setting.
  { collective: 'barrier', algorithm: 'native', maxRanks: 2, mpi: 'openmpi', why: "measured as osu_barrier times it (npm run bench:barrier, 2 ranks, Open MPI 4.1): shm_hierarchical under the preload 0.23-0.25 us against Open MPI's own 0.17 us on the development VM (best of 9 alternated launches), and 0.87-1.28x Open MPI's time on a quiet 16-core host (medians of 7): no consistent win" },
  { collective: 'barrier', algorithm: 'dissemination', maxRanks: 2, mpi: 'mpich', why: 'measured (topocoll bench, 2 ranks, MPICH 4.0, 2026-11-25, 3 launches): one exchange of empty messages, 1.67-1.72x faster than MPICH\'s barrier' },
  { collective: 'barrier', algorithm: 'native', maxRanks: 2, why: ONE_EXCHANGE },
  { collective: 'barrier', algorithm: 'dissemination', why: 'MPICH default' },
  { collective: 'alltoall', algorithm: 'pairwise', basis: 'block', maxBytes: 65536, maxRanks: 2, mpi: 'mpich', why: 'measured (topocoll bench, 2 ranks, MPICH 4.0, 2026-11-25, 3 launches): one send-receive, 1.06-1.97x faster than MPICH\'s alltoall below 64 KiB blocks' },
  { collective: 'alltoall', algorithm: 'native', maxRanks: 2, why: ONE_EXCHANGE },
  { collective: 'alltoall', algorithm: 'bruck', basis: 'block', maxBytes: 257, minRanks: 8, why: 'MPICH: blocks <= 256 B on 8 or more ranks' },
  { collective: 'alltoall', algorithm: 'isend_irecv', basis: 'block', maxBytes: 32769, why: 'MPICH: blocks <= 32 KiB' },
  { collective: 'alltoall', algorithm: 'pairwise', why: 'MPICH: long blocks (xor pairing on power-of-two sizes, shift otherwise)' },
  // Two ranks of one node (topocoll bench, 2026-11-26, load 1.3-1.6, two quiet launches per MPI; docs/benchmarks.md):
  // one copy into shared memory each and one whole combination beat the MPIs' message exchanges.
  { collective: 'allreduce', algorithm: 'native', basis: 'total', maxBytes: 64, maxRanks: 2, mpi: 'openmpi', nonblocking: false, why: 'measured (topocoll bench, 2 ranks, Open MPI 4.1, 2026-11-26, 2 launches): below 64 B Open MPI\'s exchange (0.37-0.40 us) beats one flag handoff through shared memory (0.41-0.46 us); not its nonblocking call, which libnbc runs (bench:binding, 8 B, 2 launches: iallreduce + wait() 2.2-2.3 us, awaited 3.2-3.6, against hierarchical\'s 1.3-1.4 and 2.1)' },
  { collective: 'allreduce', algorithm: 'hierarchical', maxRanks: 2, why: 'measured (topocoll bench, 2 ranks, 2026-11-26, 2 launches per MPI): operands in shared memory, combined whole by each rank, 1.04-2.2x faster than Open MPI\'s allreduce from 64 B to 4 MiB and 1.0-2.6x than MPICH\'s from 8 B' },
  // Several nodes: the emulated cluster, 4 hosts x 2 ranks over 1 Gbit/s links, --map-by slot (docs/benchmarks.md).
  { collective: 'allreduce', algorithm: 'hierarchical', basis: 'total', minBytes: 65536, maxBytes: 1048576, multiNode: true, why: 'measured (emulated cluster, 4 hosts x 2 ranks, 1 Gbit/s, Open MPI 4.1, 2026-11-26, 2 launches): one leader per node, each node combined in shared memory: 256 KiB in 3.3-3.4 ms against Open MPI\'s 3.7-6.9 and the ring\'s 3.8; all within 1 % at 64 KiB' },
  { collective: 'allreduce', algorithm: 'multi_leader', basis: 'total', minBytes: 1048576, maxBytes: 2097152, multiNode: true, why: 'measured (emulated cluster, 4 hosts x 2 ranks, 1 Gbit/s, Open MPI 4.1, 2026-11-26 18:21-18:40 UTC, 10 launches, load 11-13): a node reduce-scatter, lane rings of 2(h-1)/h of the vector per link and a node allgather, interleaved block by block: 1 MiB in 14.7-20.4 ms against the ring\'s 16.1-21.8 in 8 launches (faster in 7, equal in 1), 1.54-1.90x faster than Open MPI; in 2 more 22.1 and 27.3 against 23.6 and 24.9 ms (spreads of 13-20 ms); tied with the ring at 4 and 16 MiB' },
  { collective: 'allreduce', algorithm: 'ring', basis: 'total', minBytes: 2097152, multiNode: true, why: 'measured (emulated cluster, 4 hosts x 2 ranks, 1 Gbit/s, Open MPI 4.1, 2026-11-26): the segmented ring over all ranks, 1.3-1.6x faster than Open MPI at 1 MiB (15.7 ms: 1.25x the link bound) and 1.4-1.5x at 4-16 MiB (258-261 ms at 16 MiB: 1.3x), 2-7 % ahead of hierarchical (the emulated hosts share two cores); with its segments overlapped, 1.15-1.87x (median 1.71x) at 1 MiB in 12 launches on a loaded machine where the lockstep ring gave 0.65-1.66x (0.81x), 0.91-1.51x at 16 MiB' },
  { collective: 'allreduce', algorithm: 'recursive_doubling', basis: 'total', maxBytes: 2049, why: 'MPICH: MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE = 2048, recursive doubling up to 2 KiB' },
  // MPICH also keeps recursive doubling for fewer elements than pof2 (huge elements), which a
  // rule cannot say; Rabenseifner runs such calls correctly, its empty blocks skipped.
  { collective: 'allreduce', algorithm: 'reduce_scatter_allgather', why: 'MPICH: Rabenseifner (reduce-scatter + allgather) above 2 KiB' },
  { collective: 'reduce', algorithm: 'native', basis: 'total', maxBytes: 512, maxRanks: 2, mpi: 'openmpi', why: 'measured (topocoll bench, 2 ranks, Open MPI 4.1, 2026-11-26, 2 launches): below 512 B Open MPI\'s reduce (0.09-0.19 us: the root does not wait for the data) beats one flag handoff (0.21-0.26 us)' },
  { collective: 'reduce', algorithm: 'hierarchical', maxRanks: 2, why: 'measured (topocoll bench, 2 ranks, 2026-11-26, 2 launches per MPI): one copy into shared memory, combined by the root, 1.7-2.8x faster than Open MPI\'s reduce from 512 B to 4 MiB and 1.2-3.4x than MPICH\'s from 8 B' },
  { collective: 'reduce', algorithm: 'reduce_scatter_gather', basis: 'total', minBytes: 2049, mpi: 'mpich', why: 'MPICH 4.0\'s own reduce above 2 KiB crashes with MPI_IN_PLACE at a root other than 0 (pmodels/mpich#6540, fixed after 4.1.1); ours, as MPICH\'s choice there, does not' },
  { collective: 'reduce', algorithm: 'binomial', basis: 'total', maxBytes: 2049, why: 'MPICH: MPIR_CVAR_REDUCE_SHORT_MSG_SIZE = 2048, binomial up to 2 KiB' },
  // MPICH also keeps binomial for user-defined ops and for fewer elements than pof2, which a rule
  // cannot say; reduce_scatter_gather runs both correctly (in rank order, empty blocks skipped).
  { collective: 'reduce', algorithm: 'reduce_scatter_gather', why: 'MPICH: Rabenseifner (reduce-scatter + gather) above 2 KiB' },
  { collective: 'reduce_scatter_block', algorithm: 'native', maxRanks: 2, why: NOT_MEASURED },
  { collective: 'reduce_scatter_block', algorithm: 'recursive_halving', basis: 'total', maxBytes: 524288, why: 'MPICH: MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE = 512 KiB, recursive halving below (commutative ops)' },
  { collective: 'reduce_scatter_block', algorithm: 'pairwise', why: 'MPICH: pairwise exchange from 512 KiB (ours also runs ops that are not commutative)' },
  { collective: 'reduce_scatter', algorithm: 'native', maxRanks: 2, why: NOT_MEASURED },
  { collective: 'reduce_scatter', algorithm: 'recursive_halving', basis: 'total', maxBytes: 524288, why: 'MPICH: MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE = 512 KiB, recursive halving below (commutative ops)' },
  { collective: 'reduce_scatter', algorithm: 'pairwise', why: 'MPICH: pairwise exchange from 512 KiB (ours also runs ops that are not commutative)' },
];

/** Reductions combine the ranks' operands with an MPI_Op; a block of their schedules is one element. */
export function isReduction(coll: CollectiveName): boolean {
  return coll === 'allreduce' || coll === 'reduce' || coll === 'reduce_scatter_block' || coll === 'reduce_scatter';
}

/** Whether a schedule's block is one element of the vector (bcast, reductions) rather than one rank's block. */
export function blockIsElement(coll: CollectiveName): boolean {
  const c = collectiveInfo(coll);
  return c !== undefined && (c.shape === 'vector' || c.reducing);
}

export function collectiveInfo(name: string): CollectiveInfo | undefined {
  return COLLECTIVES.find((c) => c.name === name);
}

export function algorithmNames(coll: CollectiveName): string[] {
  return collectiveInfo(coll)!.algorithms.map((a) => a.name);
}

/** The collective's shape; `none` for a name that is no collective (the addon then names the valid ones). */
export function shapeOf(coll: string): CollectiveShape {
  return collectiveInfo(coll)?.shape ?? 'none';
}

/** What the bytes stated for a call (bench, simulate, explain) count: one rank's block, the message, or nothing. */
export type SizeBasisName = 'block' | 'message' | 'none';
const BASIS_OF_SHAPE: Record<CollectiveShape, SizeBasisName> = { block: 'block', vector: 'message', none: 'none' };

export function sizeBasisOf(coll: string): SizeBasisName {
  return BASIS_OF_SHAPE[shapeOf(coll)];
}

/**
 * The rules' `total` from the bytes users state for a call (`block`: one rank's block, or the
 * message): a block collective covers p blocks, any other its message. The one place this is written.
 */
export function totalBytes(coll: string, p: number, bytes: number): number {
  return shapeOf(coll) === 'block' ? bytes * p : bytes;
}

export type ParameterKind = 'bool' | 'int' | 'choice' | 'string';

/** A tuning or behaviour variable; its value is validated at init like the algorithm choices. */
export interface ParameterInfo {
  readonly env: string;
  readonly kind: ParameterKind;
  readonly default: string;
  readonly min?: number;
  readonly max?: number;
  readonly choices?: readonly string[];
  /** For 'string' parameters: the accepted forms, as the error message lists them. */
  readonly syntax?: string;
  readonly summary: string;
}

export const PARAMETERS: readonly ParameterInfo[] = [
  { env: 'TOPOCOLL_VERBOSE', kind: 'int', default: '0', min: 0, max: 2, summary: '1: print the algorithm chosen once per (communicator, collective, size class) and why; 2: also time every call' },
  { env: 'TOPOCOLL_FALLBACK', kind: 'choice', default: 'warn', choices: ['error', 'warn', 'silent'], summary: 'what happens when a forced algorithm cannot run a call: fail, warn once and use native, or use native silently' },
  { env: 'TOPOCOLL_STATS', kind: 'int', default: '0', min: 0, max: 2, summary: '1: at finalize, rank 0 prints one table for the job: per collective and algorithm, the calls, bytes and time in the calls (min, mean, max over the ranks); 2: also one line per rank' },
  { env: 'TOPOCOLL_PASSTHROUGH', kind: 'bool', default: '0', summary: 'preload library only: hand every intercepted call straight to PMPI_* (to stack under a profiler or compare)' },
  { env: 'TOPOCOLL_ALLTOALL_MAX_OUTSTANDING', kind: 'int', default: '32', min: 1, max: 65536, summary: 'isend_irecv alltoall: bound on requests in flight' },
  { env: 'TOPOCOLL_SHM', kind: 'bool', default: '1', summary: 'use the node shared memory; 0 turns every shm algorithm off (default rules skip them, a forced one falls back per TOPOCOLL_FALLBACK)' },
  { env: 'TOPOCOLL_NUMA', kind: 'bool', default: '1', summary: 'place shared-memory segments on the NUMA nodes of the ranks (libnuma); 0 leaves placement to the kernel' },
  { env: 'TOPOCOLL_SHM_BYTES', kind: 'int', default: '1048576', min: 65536, max: 1073741824, summary: 'bytes of the shared data area per in-flight collective and communicator on a node (4 in flight); larger messages are pipelined through it' },
  { env: 'TOPOCOLL_BCAST_CONCURRENCY', kind: 'int', default: '0', min: 0, max: 4096, summary: 'shm_numa bcast: ranks reading one shared segment at a time; 0 = from the machine (the ranks of a NUMA node, at most 4)' },
  { env: 'TOPOCOLL_ALLTOALL_TILE_BYTES', kind: 'int', default: '0', min: 0, max: 1073741824, summary: 'tiled alltoall: tile size in bytes; 0 = from the shared cache (its size / (4 x ranks sharing it))' },
  { env: 'TOPOCOLL_VIRTUAL_NODES', kind: 'string', default: '', syntax: 'block:K, cyclic:N or a list of node numbers, one per rank (0,0,1,1)', summary: 'treat groups of ranks of one host as separate nodes (to run and test the multi-node paths on one host): block:K = K consecutive ranks per node, cyclic:N = round-robin over N nodes, or an explicit list' },
  { env: 'TOPOCOLL_TOPOLOGY', kind: 'string', default: '', syntax: 'the path of a topology file (YAML or JSON; a preloaded C/Fortran program reads JSON only)', summary: 'the machine as a tree of levels with their latency and bandwidth, host groups and virtual nodes (seed 004); read at init, see docs/topology.md' },
  { env: 'TOPOCOLL_SELECT', kind: 'choice', default: 'rules', choices: ['rules', 'model'], summary: 'how `auto` picks an algorithm: rules (the rules file, then the built-in defaults) or model (the smallest time predicted by the per-level Hockney model for the communicator and its placement; see docs/models.md)' },
  { env: 'TOPOCOLL_RULES', kind: 'string', default: '', syntax: 'the path of a rules file (YAML or JSON, version 1, see schemas/rules.schema.json; a preloaded C/Fortran program reads JSON only)', summary: 'tuning rules written by `topocoll tune`: per collective and size range, the algorithm to use; between a forced TOPOCOLL_<COLL>_ALGORITHM and the built-in defaults; see docs/benchmarks.md' },
];

/**
 * TOPOCOLL_* variables read outside the engine (the build, the addon loader, the tools). With
 * the collectives' and PARAMETERS they are every name topocoll knows: any other TOPOCOLL_*
 * variable is reported at init as a likely misspelling.
 */
export const TOOL_VARIABLES: readonly { readonly env: string; readonly summary: string }[] = [
  { env: 'TOPOCOLL_MPI', summary: 'which MPI to build for and load: openmpi or mpich (default: the launcher\'s, else the first built)' },
  { env: 'TOPOCOLL_MPICC', summary: 'the build: the MPI compiler wrapper to build against (before MPICC, MPI_HOME, mpicc on PATH, pkg-config, Debian\'s mpicc.openmpi/mpicc.mpich)' },
  { env: 'TOPOCOLL_BENCH_TTY', summary: 'set by `topocoll bench` for its ranks: 1 when progress lines may redraw the terminal' },
  { env: 'TOPOCOLL_BENCH_REPORT', summary: 'set by `topocoll bench` and `tune` for the launches they make themselves: rank 0 writes the sweep (JSON) to this file instead of printing it' },
  { env: 'TOPOCOLL_SYSFS_ROOT', summary: 'a directory read in place of /sys for CPU, cache and cgroup CPU-limit facts (tests: a machine without cache entries, a container limited to fewer CPUs)' },
];

