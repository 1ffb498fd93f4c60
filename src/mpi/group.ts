// Process groups (MPI_Group): ordered sets of processes, made from a communicator (comm.group),
// subsets and set operations of other groups; comm.create(group) and comm.createGroup(group)
// make communicators of them. A group is local: making one involves no communication.
import type { Comparison } from './comm';
import { addon } from './native';

const GROUP_COMPARISONS: Comparison[] = ['ident', 'congruent', 'similar', 'unequal'];

let groupOf: (handle: number) => Group;

/** @internal A Group of a handle the addon returned (comm.group): the constructor is private. */
export function groupOfHandle(handle: number): Group {
  return groupOf(handle);
}

export class Group {
  /** @internal index into the addon's group table (never reused, so a freed one stays invalid) */
  readonly handle: number;

  private constructor(handle: number) {
    this.handle = handle;
  }

  static {
    groupOf = (handle) => new Group(handle);
  }

  /** MPI_Group_size. */
  get size(): number {
    return addon().groupSize(this.handle);
  }

  /** This process's rank in the group, or UNDEFINED when it is not a member (MPI_Group_rank). */
  get rank(): number {
    return addon().groupRank(this.handle);
  }

  /** The members at `ranks`, in that order (MPI_Group_incl). Each rank at most once. */
  incl(ranks: ArrayLike<number>): Group {
    return new Group(addon().groupSubset(this.handle, ranks, false));
  }

  /** Every member but those at `ranks`, in the group's order (MPI_Group_excl). */
  excl(ranks: ArrayLike<number>): Group {
    return new Group(addon().groupSubset(this.handle, ranks, true));
  }

  /** The rank in `other` of each of this group's `ranks`; UNDEFINED where it is not in `other` (MPI_Group_translate_ranks). */
  translateRanks(ranks: ArrayLike<number>, other: Group): number[] {
    return addon().groupTranslateRanks(this.handle, ranks, other.handle);
  }

  /** This group's members, then `other`'s that are not in it (MPI_Group_union). */
  union(other: Group): Group {
    return new Group(addon().groupCombine(this.handle, other.handle, 0));
  }

  /** This group's members that are also in `other`, in this group's order (MPI_Group_intersection). */
  intersection(other: Group): Group {
    return new Group(addon().groupCombine(this.handle, other.handle, 1));
  }

  /** This group's members that are not in `other` (MPI_Group_difference). */
  difference(other: Group): Group {
    return new Group(addon().groupCombine(this.handle, other.handle, 2));
  }

  /** 'ident' (same members, same order), 'similar' (same members), or 'unequal' (MPI_Group_compare). */
  compare(other: Group): Comparison {
    return GROUP_COMPARISONS[addon().groupCompare(this.handle, other.handle)];
  }

  /** MPI_Group_free; any later use throws (`group is a freed group`). Communicators made from it are unaffected. */
  free(): void {
    addon().groupFree(this.handle);
  }
}
