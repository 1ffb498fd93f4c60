// The system MPIs' own algorithms per collective, as each MPI names them: what `bench` sweeps as
// `native:<name>` (one launch per algorithm: the MPI reads its choice at MPI_Init) and what
// `tune --export` writes into the MPI's own tuning file. Where one runs the same exchanges as one
// of ours, `same` says so (and on which communicator sizes): the export maps our choice onto it.
//
// Open MPI 4.1: coll/tuned's coll_tuned_<coll>_algorithm values (`ompi_info --param coll tuned
// --level 9`), the numbers its dynamic rules file takes. MPICH 4.0: the values of
// MPIR_CVAR_<COLL>_INTRA_ALGORITHM (`mpivars`) and the containers of its selection JSON
// (src/mpi/coll/src/csel_container.c: MPIR_<Coll>_intra_<name>, MPIR_<Coll>_allcomm_nb).
import type { CollectiveName, MpiFlavour } from './registry';
import { isPowerOfTwo } from './rules';

/** On which communicator sizes two algorithms run the same exchanges. */
export type SameWhen = 'always' | 'powerOfTwo' | 'notPowerOfTwo' | 'even';

export interface NativeAlgorithm {
  /** The MPI's own name: Open MPI's coll_tuned_<coll>_algorithm value, MPICH's CVAR value. */
  readonly name: string;
  /** Open MPI: its number (coll_tuned_<coll>_algorithm, the dynamic rules file). */
  readonly id?: number;
  /** Ours that run the same exchanges, and where. */
  readonly same?: readonly { readonly ours: string; readonly when: SameWhen; readonly note?: string }[];
  /** Runs only on communicators of this size (Open MPI's two_proc). */
  readonly onlyRanks?: number;
  /** Runs only on in-place calls (MPICH's pairwise_sendrecv_replace): `bench` never measures it. */
  readonly inPlaceOnly?: boolean;
}

const OPEN_MPI: Partial<Record<CollectiveName, readonly NativeAlgorithm[]>> = {
  allgather: [
    { name: 'linear', id: 1 },
    { name: 'bruck', id: 2, same: [{ ours: 'bruck', when: 'always' }] },
    // Open MPI's runs Bruck on other sizes; ours folds the extra ranks in.
    { name: 'recursive_doubling', id: 3, same: [{ ours: 'recursive_doubling', when: 'powerOfTwo' }] },
    { name: 'ring', id: 4, same: [{ ours: 'ring', when: 'always' }] },
    // Open MPI's runs the ring on odd sizes; ours has an odd variant.
    { name: 'neighbor', id: 5, same: [{ ours: 'neighbor_exchange', when: 'even' }] },
    { name: 'two_proc', id: 6, onlyRanks: 2 },
  ],
  bcast: [
    { name: 'basic_linear', id: 1 },
    { name: 'chain', id: 2 },
    { name: 'pipeline', id: 3 },
    { name: 'split_binary_tree', id: 4 },
    { name: 'binary_tree', id: 5 },
    { name: 'binomial', id: 6, same: [{ ours: 'binomial', when: 'always', note: 'unsegmented (segment size 0)' }] },
    { name: 'knomial', id: 7 },
    // Open MPI's scatter_allgather gathers by recursive doubling; its _ring variant is van de Geijn's, ours.
    { name: 'scatter_allgather', id: 8 },
    { name: 'scatter_allgather_ring', id: 9, same: [{ ours: 'scatter_allgather', when: 'always' }] },
  ],
  barrier: [
    { name: 'linear', id: 1 },
    { name: 'double_ring', id: 2 },
    { name: 'recursive_doubling', id: 3, same: [{ ours: 'recursive_doubling', when: 'always' }] },
    // Open MPI's "bruck" barrier is the dissemination barrier: rank r signals r + 2^k.
    { name: 'bruck', id: 4, same: [{ ours: 'dissemination', when: 'always' }] },
    { name: 'two_proc', id: 5, onlyRanks: 2 },
    { name: 'tree', id: 6 },
  ],
  alltoall: [
    { name: 'linear', id: 1 },
    // Open MPI's pairwise shifts (send to r+i, receive from r-i): our ring, and our pairwise where it shifts too.
    { name: 'pairwise', id: 2, same: [{ ours: 'ring', when: 'always' }, { ours: 'pairwise', when: 'notPowerOfTwo' }] },
    { name: 'modified_bruck', id: 3, same: [{ ours: 'bruck', when: 'always' }] },
    // Bounded requests in flight, as our isend_irecv.
    { name: 'linear_sync', id: 4, same: [{ ours: 'isend_irecv', when: 'always' }] },
    { name: 'two_proc', id: 5, onlyRanks: 2 },
  ],
};

const MPICH: Partial<Record<CollectiveName, readonly NativeAlgorithm[]>> = {
  allgather: [
    { name: 'brucks', same: [{ ours: 'bruck', when: 'always' }] },
    // MPICH's handles other sizes with extra steps of its own; ours folds the extra ranks in.
    { name: 'recursive_doubling', same: [{ ours: 'recursive_doubling', when: 'powerOfTwo' }] },
    { name: 'ring', same: [{ ours: 'ring', when: 'always' }] },
    { name: 'nb' },
  ],
  bcast: [
    { name: 'binomial', same: [{ ours: 'binomial', when: 'always' }] },
    { name: 'scatter_recursive_doubling_allgather' },
    { name: 'scatter_ring_allgather', same: [{ ours: 'scatter_allgather', when: 'always' }] },
    { name: 'smp' },
    { name: 'nb' },
  ],
  barrier: [
    { name: 'dissemination', same: [{ ours: 'dissemination', when: 'always' }] },
    { name: 'smp' },
    { name: 'nb' },
  ],
  alltoall: [
    { name: 'brucks', same: [{ ours: 'bruck', when: 'always' }] },
    // MPICH's pairs by xor on powers of two and shifts elsewhere, as ours.
    { name: 'pairwise', same: [{ ours: 'pairwise', when: 'always' }, { ours: 'ring', when: 'notPowerOfTwo' }] },
    { name: 'pairwise_sendrecv_replace', inPlaceOnly: true },
    // Requests posted in blocks, as our isend_irecv.
    { name: 'scattered', same: [{ ours: 'isend_irecv', when: 'always' }] },
    { name: 'nb' },
  ],
};

const NATIVE_ALGORITHMS: Record<MpiFlavour, Partial<Record<CollectiveName, readonly NativeAlgorithm[]>>> = { openmpi: OPEN_MPI, mpich: MPICH };

/** The MPI's own algorithms of a collective (none for one it has no forcing variable for). */
export function nativeAlgorithms(mpi: MpiFlavour, coll: CollectiveName): readonly NativeAlgorithm[] {
  return NATIVE_ALGORITHMS[mpi][coll] ?? [];
}

export function nativeAlgorithm(mpi: MpiFlavour, coll: CollectiveName, name: string): NativeAlgorithm | undefined {
  return nativeAlgorithms(mpi, coll).find((a) => a.name === name);
}

function holds(when: SameWhen, p: number): boolean {
  switch (when) {
    case 'always':
      return true;
    case 'powerOfTwo':
      return isPowerOfTwo(p);
    case 'notPowerOfTwo':
      return !isPowerOfTwo(p);
    case 'even':
      return p % 2 === 0;
  }
}

/** The MPI's algorithm that runs the same exchanges as our `ours` on `p` ranks, if any. */
export function sameAsOurs(mpi: MpiFlavour, coll: CollectiveName, ours: string, p: number): NativeAlgorithm | undefined {
  return nativeAlgorithms(mpi, coll).find((a) => a.same?.some((s) => s.ours === ours && holds(s.when, p)));
}

/** MPICH's spelling of a collective in its function names: Allgather, Bcast... */
function mpichCollectiveName(coll: CollectiveName): string {
  return coll[0].toUpperCase() + coll.slice(1);
}

/** MPICH's container of one of its algorithms in the selection JSON. */
export function mpichContainer(coll: CollectiveName, name: string): string {
  return name === 'nb' ? `MPIR_${mpichCollectiveName(coll)}_allcomm_nb` : `MPIR_${mpichCollectiveName(coll)}_intra_${name}`;
}

/**
 * The environment that makes the MPI run `name` for every call of `coll` (read at MPI_Init):
 * Open MPI's forced algorithm (with dynamic rules on), MPICH's CVAR at the MPIR level (the ch4
 * device's own collectives off for it, so that the call reaches the CVAR's selection, and an
 * unusable choice an error, not a silent fallback to another algorithm).
 */
export function forcingEnvironment(mpi: MpiFlavour, coll: CollectiveName, name: string): Record<string, string> {
  const a = nativeAlgorithm(mpi, coll, name);
  if (!a) throw new Error(`${mpi} has no ${coll} algorithm "${name}"`);
  if (mpi === 'openmpi') return { OMPI_MCA_coll_tuned_use_dynamic_rules: '1', [`OMPI_MCA_coll_tuned_${coll}_algorithm`]: String(a.id) };
  const upper = coll.toUpperCase();
  return { [`MPIR_CVAR_${upper}_DEVICE_COLLECTIVE`]: '0', [`MPIR_CVAR_${upper}_INTRA_ALGORITHM`]: name, MPIR_CVAR_COLLECTIVE_FALLBACK: 'error' };
}
