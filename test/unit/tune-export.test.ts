// `topocoll tune --export`: rules written as Open MPI's dynamic rules file and MPICH's selection
// JSON, read back here as each MPI reads them (Open MPI 4.1's classic reader: the last
// communicator-size and message-size entries at or below the call; MPICH 4.0's csel: conditions
// tried in order) and checked to choose, for calls around every threshold, the MPI's algorithm
// that runs the exchanges the rule names, or the MPI's own choice. Runs without MPI: the
// MPI-side proof is test/mpi/tune-export.test.ts.
import { describe, expect, it } from 'vitest';
import { exportTable } from '../../src/bench/export';
import { builtinTreeOf, mpichSettings, mpichTree } from '../../src/bench/export-mpich';
import { openmpiRulesText } from '../../src/bench/export-openmpi';
import type { CollectiveName } from '../../src/select/registry';
import type { FileRule } from '../../src/select/rules';

/** Open MPI 4.1's reading of a classic rules file: numbers outside `#` comments. */
function openmpiLookup(text: string, collId: number, p: number, msgSize: number): number {
  const nums = text.split('\n').map((l) => l.replace(/#.*/, '')).join(' ').trim().split(/\s+/).map(Number);
  let i = 0;
  const next = () => nums[i++];
  const ncol = next();
  for (let c = 0; c < ncol; c++) {
    const id = next();
    const ncom = next();
    const coms: Array<{ size: number; msgs: Array<[number, number]> }> = [];
    for (let k = 0; k < ncom; k++) {
      const size = next();
      const nmsg = next();
      const msgs: Array<[number, number]> = [];
      for (let m = 0; m < nmsg; m++) {
        const [from, alg] = [next(), next()];
        next();
        next();
        msgs.push([from, alg]);
      }
      expect(msgs[0][0]).toBe(0); // Open MPI refuses a file whose first message size is not 0
      coms.push({ size, msgs });
    }
    if (id !== collId) continue;
    // ompi_coll_tuned_get_com_rule_ptr and _get_target_method_params: the last entry at or below, else the first.
    const com = coms.filter((x) => x.size <= p).at(-1) ?? coms[0];
    return (com.msgs.filter(([from]) => from <= msgSize).at(-1) ?? com.msgs[0])[1];
  }
  expect(i).toBe(nums.length);
  return 0; // no rules for the collective: Open MPI's own
}

type Tree = { [key: string]: Tree };
interface CselCall {
  coll: CollectiveName;
  p: number;
  total: number;
  avg: number;
  inPlace?: boolean;
}

/** MPICH 4.0's csel search over the operators these trees use; a leaf's algorithm name. */
function cselSearch(tree: Tree, call: CselCall): string {
  let node: Tree = tree;
  for (;;) {
    const keys = Object.keys(node);
    const leaf = keys.find((k) => k.startsWith('algorithm='));
    if (leaf) return leaf.slice('algorithm='.length);
    const key = keys.find((k) => holds(k, call));
    if (key === undefined) throw new Error(`no branch of ${JSON.stringify(keys)} holds`);
    node = node[key];
  }
}

function holds(key: string, c: CselCall): boolean {
  if (key.endsWith('=any')) return true;
  const m = /^(\w+)(<=|<|=)(.+)$/.exec(key);
  if (!m) throw new Error(`operator ${key}`);
  const [, what, op, v] = m;
  const num = (x: number) => (op === '<=' ? x <= Number(v) : x < Number(v));
  switch (what) {
    case 'collective':
      return v === c.coll;
    case 'comm_type':
      return v === 'intra';
    case 'comm_size':
      return v === 'pow2' ? (c.p & (c.p - 1)) === 0 : num(c.p);
    case 'total_msg_size':
      return num(c.total);
    case 'avg_msg_size':
      return num(c.avg);
    case 'is_sendbuf_inplace':
      return (v === 'yes') === (c.inPlace ?? false);
    case 'comm_hierarchy':
      return v !== 'parent';
    default:
      throw new Error(`operator ${key}`);
  }
}

/** A small stand-in for MPICH's built-in tree: one leaf per collective, and one we never tune. */
const DEFAULTS: Tree = {
  'collective=bcast': { 'comm_type=intra': { 'comm_size<8': { 'algorithm=MPIR_Bcast_intra_binomial': {} }, 'comm_size=any': { 'algorithm=MPIR_Bcast_intra_scatter_ring_allgather': {} } }, 'comm_type=inter': { 'algorithm=MPIR_Bcast_inter_remote_send_local_bcast': {} } },
  'collective=allreduce': { 'comm_type=intra': { 'algorithm=MPIR_Allreduce_intra_recursive_doubling': {} } },
  'collective=allgather': { 'comm_type=intra': { 'algorithm=MPIR_Allgather_intra_recursive_doubling': {} }, 'comm_type=inter': { 'algorithm=MPIR_Allgather_inter_local_gather_remote_bcast': {} } },
  'collective=barrier': { 'comm_type=intra': { 'comm_hierarchy=parent': { 'algorithm=MPIR_Barrier_intra_smp': {} }, 'comm_hierarchy=any': { 'algorithm=MPIR_Barrier_intra_dissemination': {} } } },
  'collective=alltoall': { 'comm_type=intra': { 'is_sendbuf_inplace=yes': { 'algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace': {} }, 'is_sendbuf_inplace=no': { 'algorithm=MPIR_Alltoall_intra_scattered': {} } } },
};

const RULES: FileRule[] = [
  // Ours with an equivalent: ring; without: hierarchical (skipped, the next rule decides); bruck.
  { collective: 'allgather', algorithm: 'ring', basis: 'block', maxBytes: 64, minRanks: 3, maxRanks: 5 },
  { collective: 'allgather', algorithm: 'hierarchical', basis: 'block', minBytes: 64, maxBytes: 1024, minRanks: 3, maxRanks: 5 },
  { collective: 'allgather', algorithm: 'bruck', basis: 'total', minBytes: 4096, minRanks: 3, maxRanks: 5 },
  // Recursive doubling is the MPIs' only on powers of two.
  { collective: 'allgather', algorithm: 'recursive_doubling', minRanks: 6, maxRanks: 8 },
  { collective: 'bcast', algorithm: 'binomial', basis: 'total', maxBytes: 100000, multiNode: false },
  { collective: 'bcast', algorithm: 'native:chain', mpi: 'openmpi', basis: 'total', minBytes: 100000 },
  { collective: 'bcast', algorithm: 'native:scatter_recursive_doubling_allgather', mpi: 'mpich', basis: 'total', minBytes: 100000 },
  { collective: 'barrier', algorithm: 'dissemination', maxRanks: 4 },
  // Ours pairs by xor on powers of two, Open MPI's pairwise shifts: the same only elsewhere.
  { collective: 'alltoall', algorithm: 'pairwise', basis: 'block', minBytes: 1024 },
  { collective: 'alltoall', algorithm: 'native', minRanks: 16 },
];

describe('tune --export openmpi', () => {
  const table = exportTable(RULES, 'openmpi', 1);
  const text = openmpiRulesText(table, 'the test', '/tmp/x.conf');
  const lookup = (id: number, p: number, size: number) => openmpiLookup(text, id, p, size);

  it('writes the numbers Open MPI 4.1 reads, choosing for every call what the rules do', () => {
    const [AG, A2A, BARRIER, BCAST] = [0, 3, 6, 7];
    // allgather: Open MPI measures all a rank receives, p x block.
    expect([lookup(AG, 3, 3 * 63), lookup(AG, 3, 3 * 64), lookup(AG, 3, 3 * 1023), lookup(AG, 3, 3 * 1024)]).toEqual([4, 0, 0, 0]);
    expect([lookup(AG, 4, 4095), lookup(AG, 4, 4096), lookup(AG, 5, 5 * 63), lookup(AG, 2, 2 * 8), lookup(AG, 9, 9 * 8)]).toEqual([0, 2, 4, 0, 0]);
    expect([lookup(AG, 6, 48), lookup(AG, 7, 56), lookup(AG, 8, 64)]).toEqual([0, 0, 3]);
    expect([lookup(BCAST, 4, 99999), lookup(BCAST, 4, 100000), lookup(BCAST, 64, 8)]).toEqual([6, 2, 6]);
    expect([lookup(BARRIER, 4, 0), lookup(BARRIER, 5, 0)]).toEqual([4, 0]);
    expect([lookup(A2A, 3, 3 * 1023), lookup(A2A, 3, 3 * 1024), lookup(A2A, 4, 4 * 1024), lookup(A2A, 15, 15 * 4096), lookup(A2A, 16, 16 * 4096)]).toEqual([0, 2, 0, 2, 0]);
    expect(text).toMatch(/^# use: mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename \/tmp\/x\.conf \.\.\.$/m);
  });

  it('says what it could not export, and leaves the other MPI\'s rules out', () => {
    expect(table.notes).toEqual([
      // Open MPI measures ranks x block: a block threshold (1 KiB) moves with the size, which its ranges cannot say.
      "alltoall: from 4097 ranks on, each communicator-size range holds the table of its first size, though the rules differ within (byte thresholds that scale with the size, or odd and even sizes)",
      expect.stringMatching(/^skipped rules\[1\] \(allgather hierarchical, 64 B\.\.<1 KiB blocks, 3\.\.5 ranks\): Open MPI has no allgather algorithm that runs the exchanges of hierarchical; there the next matching rule or Open MPI's own choice decides$/),
      expect.stringMatching(/^skipped rules\[3\] .*: Open MPI has no allgather algorithm that runs the exchanges of recursive_doubling on every communicator size the rule covers;/),
      expect.stringMatching(/^skipped rules\[8\] .*: Open MPI has no alltoall algorithm that runs the exchanges of pairwise on every communicator size/),
      'left out 1 rule for MPICH',
    ]);
    // Every line of the note is a comment: Open MPI skips it.
    for (const n of table.notes) expect(text).toContain(`# note: ${n}\n`);
  });

  it('judges placement for the nodes given', () => {
    const spread = openmpiRulesText(exportTable(RULES, 'openmpi', 2), 'the test', '/tmp/x.conf');
    // On 2 nodes a 4-rank bcast is multi-node: the binomial rule is off, Open MPI's own choice below 100000 B.
    expect([openmpiLookup(spread, 7, 4, 8), openmpiLookup(spread, 7, 2, 8)]).toEqual([0, 6]);
  });

  it('refuses a native:<name> the MPI does not have, naming the rule', () => {
    expect(() => exportTable([{ collective: 'bcast', algorithm: 'native:fastest', mpi: 'openmpi' }], 'openmpi', 1)).toThrow(
      'rules[0]: native:fastest is not a bcast algorithm of Open MPI; valid choices: native:basic_linear, native:chain, native:pipeline, native:split_binary_tree, native:binary_tree, native:binomial, native:knomial, native:scatter_allgather, native:scatter_allgather_ring',
    );
    // Open MPI's two_proc runs on two ranks only.
    const two = openmpiRulesText(exportTable([{ collective: 'barrier', algorithm: 'native:two_proc', mpi: 'openmpi' }], 'openmpi', 1), 't', '/f');
    expect([openmpiLookup(two, 6, 2, 0), openmpiLookup(two, 6, 3, 0)]).toEqual([5, 0]);
  });
});

describe('tune --export mpich', () => {
  const table = exportTable(RULES, 'mpich', 1);
  const { tree, notes } = mpichTree(table, DEFAULTS);
  const search = (coll: CollectiveName, p: number, block: number, inPlace = false) =>
    cselSearch(tree, { coll, p, total: block * p, avg: block, inPlace });

  it('keeps MPICH\'s own tree for what is not tuned, its order, and every collective', () => {
    expect(Object.keys(tree)).toEqual(Object.keys(DEFAULTS));
    expect(tree['collective=allreduce']).toBe(DEFAULTS['collective=allreduce']);
    expect(tree['collective=allgather']['comm_type=inter']).toEqual(DEFAULTS['collective=allgather']['comm_type=inter']);
    expect(notes).toEqual([]);
  });

  it('chooses for every call what the rules do, MPICH\'s own where they leave it', () => {
    expect([search('allgather', 3, 63), search('allgather', 3, 64), search('allgather', 3, 1365), search('allgather', 3, 1366), search('allgather', 2, 8)]).toEqual([
      'MPIR_Allgather_intra_ring', 'MPIR_Allgather_intra_recursive_doubling', 'MPIR_Allgather_intra_recursive_doubling', 'MPIR_Allgather_intra_brucks', 'MPIR_Allgather_intra_recursive_doubling',
    ]);
    // bcast: MPICH's avg_msg_size is the message.
    expect([search('bcast', 4, 99999), search('bcast', 4, 100000), search('bcast', 16, 8)]).toEqual(['MPIR_Bcast_intra_binomial', 'MPIR_Bcast_intra_scatter_recursive_doubling_allgather', 'MPIR_Bcast_intra_binomial']);
    expect([search('barrier', 4, 0), search('barrier', 5, 0)]).toEqual(['MPIR_Barrier_intra_dissemination', 'MPIR_Barrier_intra_dissemination']);
    // alltoall: pairwise is MPICH's too, on every size (first match: before the native rule from 16 ranks); in place stays MPICH's own.
    expect([search('alltoall', 4, 1023), search('alltoall', 4, 1024), search('alltoall', 4, 1024, true), search('alltoall', 16, 4096)]).toEqual([
      'MPIR_Alltoall_intra_scattered', 'MPIR_Alltoall_intra_pairwise', 'MPIR_Alltoall_intra_pairwise_sendrecv_replace', 'MPIR_Alltoall_intra_pairwise',
    ]);
    expect(mpichSettings(table, '/tmp/t.json')).toEqual([
      ['MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE', '/tmp/t.json'],
      ['MPIR_CVAR_ALLGATHER_DEVICE_COLLECTIVE', '0'],
      ['MPIR_CVAR_BCAST_DEVICE_COLLECTIVE', '0'],
      ['MPIR_CVAR_BARRIER_DEVICE_COLLECTIVE', '0'],
      ['MPIR_CVAR_ALLTOALL_DEVICE_COLLECTIVE', '0'],
    ]);
  });

  it('leaves out thresholds MPICH cannot compare (C ints)', () => {
    const huge = exportTable([{ collective: 'bcast', algorithm: 'binomial', basis: 'total', minBytes: 2 ** 32 }], 'mpich', 1);
    const r = mpichTree(huge, DEFAULTS);
    expect(r.notes).toEqual(['bcast: thresholds above 2147483647 B (MPICH compares with C ints) left out: the range below them runs on']);
    expect(JSON.stringify(r.tree['collective=bcast'])).not.toContain('4294967296');
  });

  it('finds the MPIR-level tree compiled into a library, not the device\'s', () => {
    const device = '{"collective=bcast":{"composition=MPIDI_Bcast_intra_composition_alpha":{}}}';
    const mpir = JSON.stringify(DEFAULTS);
    const lib = Buffer.concat([Buffer.from('\x7fELF junk {"collective=x'), Buffer.from([0]), Buffer.from(device), Buffer.from([0]), Buffer.from(mpir), Buffer.from([0, 1, 2])]);
    expect(builtinTreeOf(lib)).toEqual(DEFAULTS);
    expect(builtinTreeOf(Buffer.from(device))).toBeNull();
  });
});
