// The messages a replay produced, as columns: a Bruck allgather on 1024 ranks has 10 k
// messages, a pairwise alltoall 1 M, so records are materialised only on request.

/** One point-to-point message: `blocks` blocks sent by `src` in its round `round` to `dst`. */
export interface MessageRecord {
  readonly round: number;
  readonly src: number;
  readonly dst: number;
  readonly blocks: number;
}

export class MessageLog implements Iterable<MessageRecord> {
  private roundCol = new Int32Array(256);
  private srcCol = new Int32Array(256);
  private dstCol = new Int32Array(256);
  private blocksCol = new Int32Array(256);
  private n = 0;

  get length(): number {
    return this.n;
  }

  push(round: number, src: number, dst: number, blocks: number): void {
    if (this.n === this.srcCol.length) this.grow();
    const i = this.n++;
    this.roundCol[i] = round;
    this.srcCol[i] = src;
    this.dstCol[i] = dst;
    this.blocksCol[i] = blocks;
  }

  get(i: number): MessageRecord {
    if (i < 0 || i >= this.n) throw new RangeError(`message ${i} of ${this.n}`);
    return { round: this.roundCol[i], src: this.srcCol[i], dst: this.dstCol[i], blocks: this.blocksCol[i] };
  }

  /** Column views (no copy) for code that sums over millions of messages. */
  columns(): { round: Int32Array; src: Int32Array; dst: Int32Array; blocks: Int32Array } {
    return {
      round: this.roundCol.subarray(0, this.n),
      src: this.srcCol.subarray(0, this.n),
      dst: this.dstCol.subarray(0, this.n),
      blocks: this.blocksCol.subarray(0, this.n),
    };
  }

  /** Total blocks moved; bytes = totalBlocks() x block bytes. */
  totalBlocks(): number {
    let sum = 0;
    for (let i = 0; i < this.n; i++) sum += this.blocksCol[i];
    return sum;
  }

  toArray(): MessageRecord[] {
    return Array.from(this);
  }

  *[Symbol.iterator](): Iterator<MessageRecord> {
    for (let i = 0; i < this.n; i++) yield this.get(i);
  }

  private grow(): void {
    const n = this.srcCol.length * 2;
    const grow = (a: Int32Array) => {
      const b = new Int32Array(n);
      b.set(a);
      return b;
    };
    this.roundCol = grow(this.roundCol);
    this.srcCol = grow(this.srcCol);
    this.dstCol = grow(this.dstCol);
    this.blocksCol = grow(this.blocksCol);
  }
}
