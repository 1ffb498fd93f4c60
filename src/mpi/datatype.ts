// MPI datatypes: the element types and the derived types built from them (contiguous, vector,
// indexed, struct, subarray). A derived type describes a layout inside a buffer; it travels as a
// buffer spec, [buffer, count, datatype], which point-to-point and the block collectives take
// wherever they take a buffer. The addon checks that every byte the spec reaches lies inside the
// buffer before MPI sees it.
import type { BufferLike } from './comm';
import { init } from './lifecycle';
import { addon } from './native';

// The element types, in the order of the addon's table (native/addon/mpi_datatype.cc): handle = index.
const ELEMENT_TYPES = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'float32', 'float64', 'byte'] as const;

/** A datatype's layout in bytes (MPI_Type_size, MPI_Type_get_extent, MPI_Type_get_true_extent). */
export interface TypeLayout {
  /** Bytes of data one item carries (its type signature). */
  size: number;
  /** Where an item starts relative to the buffer position, and its span: item i begins at lb + i × extent. */
  lb: number;
  extent: number;
  /** The bytes an item actually touches: [trueLb, trueLb + trueExtent). */
  trueLb: number;
  trueExtent: number;
}

export class Datatype {
  /** @internal index into the addon's datatype table (never reused) */
  readonly handle: number;
  /** The element type's name ('float64', …), or the constructor that made a derived type ('vector', …). */
  readonly kind: string;

  private constructor(handle: number, kind: string) {
    this.handle = handle;
    this.kind = kind;
  }

  static readonly INT8 = new Datatype(0, ELEMENT_TYPES[0]);
  static readonly UINT8 = new Datatype(1, ELEMENT_TYPES[1]);
  static readonly INT16 = new Datatype(2, ELEMENT_TYPES[2]);
  static readonly UINT16 = new Datatype(3, ELEMENT_TYPES[3]);
  static readonly INT32 = new Datatype(4, ELEMENT_TYPES[4]);
  static readonly UINT32 = new Datatype(5, ELEMENT_TYPES[5]);
  static readonly INT64 = new Datatype(6, ELEMENT_TYPES[6]);
  static readonly UINT64 = new Datatype(7, ELEMENT_TYPES[7]);
  static readonly FLOAT32 = new Datatype(8, ELEMENT_TYPES[8]);
  static readonly FLOAT64 = new Datatype(9, ELEMENT_TYPES[9]);
  /** Untyped bytes (MPI_BYTE), what DataViews and ArrayBuffers carry. */
  static readonly BYTE = new Datatype(10, ELEMENT_TYPES[10]);

  /** `count` items of `oldtype` back to back (MPI_Type_contiguous). */
  static contiguous(count: number, oldtype: Datatype): Datatype {
    init();
    return new Datatype(addon().typeContiguous(count, oldtype), 'contiguous');
  }

  /**
   * `count` blocks of `blocklength` items of `oldtype`, each block `stride` items after the
   * previous one's start (MPI_Type_vector): a column of a row-major matrix is
   * `vector(rows, 1, columns, FLOAT64)`.
   */
  static vector(count: number, blocklength: number, stride: number, oldtype: Datatype): Datatype {
    init();
    return new Datatype(addon().typeVector(count, blocklength, stride, oldtype), 'vector');
  }

  /** Block i: `blocklengths[i]` items of `oldtype` at `displacements[i]` items (MPI_Type_indexed). */
  static indexed(blocklengths: ArrayLike<number>, displacements: ArrayLike<number>, oldtype: Datatype): Datatype {
    init();
    return new Datatype(addon().typeIndexed(blocklengths, displacements, oldtype), 'indexed');
  }

  /**
   * Block i: `blocklengths[i]` items of `types[i]` at byte `displacements[i]`
   * (MPI_Type_create_struct). The extent is MPI's: the span of the blocks, aligned as the MPI
   * aligns the largest element type.
   */
  static struct(blocklengths: ArrayLike<number>, displacements: ArrayLike<number>, types: readonly Datatype[]): Datatype {
    init();
    return new Datatype(addon().typeStruct(blocklengths, displacements, types), 'struct');
  }

  /**
   * The block of `subsizes` at `starts` in an array of `sizes` items of `oldtype`, row-major
   * ('C', the last dimension varies fastest) or column-major ('F') (MPI_Type_create_subarray).
   * Its extent is the whole array's.
   */
  static subarray(sizes: ArrayLike<number>, subsizes: ArrayLike<number>, starts: ArrayLike<number>, oldtype: Datatype, order: 'C' | 'F' = 'C'): Datatype {
    init();
    return new Datatype(addon().typeSubarray(sizes, subsizes, starts, order, oldtype), 'subarray');
  }

  /** MPI_Type_commit: a type must be committed before a buffer spec uses it (element types are). Returns this. */
  commit(): this {
    addon().typeCommit(this);
    return this;
  }

  /**
   * MPI_Type_free. Operations already started with it complete as usual; any later use throws
   * (`datatype is a freed datatype`). The element types cannot be freed.
   */
  free(): void {
    addon().typeFree(this);
  }

  /** Bytes of data one item carries (MPI_Type_size). */
  get size(): number {
    return this.layout().size;
  }

  /** Bytes from one item's start to the next one's (MPI_Type_get_extent). */
  get extent(): number {
    return this.layout().extent;
  }

  /** size, lb, extent, trueLb, trueExtent in bytes. */
  layout(): TypeLayout {
    init();
    const { size, lb, extent, trueLb, trueExtent } = addon().typeInfo(this);
    return { size, lb, extent, trueLb, trueExtent };
  }

  /** Whether commit() has been called (always true for the element types). */
  get committed(): boolean {
    init();
    return addon().typeInfo(this).committed;
  }
}

/**
 * A buffer described by a datatype (mpi4py's `[buf, count, datatype]`): `count` items of
 * `datatype` from the start of `buffer`. In a collective whose buffer holds one block per rank
 * (or per neighbour), `count` counts all of them, as a plain buffer's length does.
 */
export type BufferSpec = readonly [buffer: BufferLike, count: number, datatype: Datatype];

/** What point-to-point and the block collectives take as a buffer. */
export type DataBuffer = BufferLike | BufferSpec;
