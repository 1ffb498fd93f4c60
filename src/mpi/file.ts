// MPI-IO: files that the ranks of a communicator open together (MPI_File_open is collective) and
// read or write at explicit offsets or through each rank's file pointer, independently or
// collectively (the …All methods, which let the MPI merge the ranks' requests). A view
// (setView) makes a rank see only its part of the file: the bytes its filetype covers, tiled from
// a displacement, with the datatypes of src/mpi/datatype.ts. Buffers are those of
// point-to-point: a TypedArray, Buffer, DataView or ArrayBuffer, or [buffer, count, datatype].
// MPI-IO returns its errors (its default error handler is MPI_ERRORS_RETURN): each becomes an
// MpiError naming the file and the error class (MPI_ERR_NO_SUCH_FILE, MPI_ERR_AMODE, …).
import { Comm, type Status } from './comm';
import { Datatype, type DataBuffer } from './datatype';
import { init } from './lifecycle';
import { addon } from './native';
import { newRequest, Request, statusOfRequest } from './request';

/**
 * One access-mode flag of File.open: 'r' (MPI_MODE_RDONLY), 'w' (WRONLY), 'rw' (RDWR), exactly
 * one of which is required; 'create', 'excl' (an error if the file exists), 'append' (the file
 * pointers start at its end), 'deleteOnClose', 'uniqueOpen' (no one else opens it meanwhile).
 */
export type FileModeName = 'r' | 'w' | 'rw' | 'create' | 'excl' | 'append' | 'deleteOnClose' | 'uniqueOpen';
/** File.open's mode: one flag or an array of them, e.g. `['w', 'create']`. */
export type FileMode = FileModeName | readonly FileModeName[];
/** How data is represented in the file: as in memory ('native'), or portable ('external32'). */
export type Datarep = 'native' | 'internal' | 'external32';
/** MPI_Info hints for the MPI-IO layer, e.g. `{ cb_buffer_size: '1048576' }` (unknown keys are ignored). */
export type FileHints = Readonly<Record<string, string>>;
/** Where seek() counts from: the start of the view, the file pointer, or the end of the file. */
export type Whence = 'set' | 'current' | 'end';

/** A rank's view of a file (setView): the part of it that this rank reads and writes. */
export interface FileView {
  /** Bytes from the start of the file to where the view begins. */
  disp: number;
  /** The unit of offsets and of the file pointer (MPI's elementary type). */
  etype: Datatype;
  /** Tiled from disp: the bytes it covers are this rank's, the holes others'. */
  filetype: Datatype;
  datarep: Datarep;
}

const ACCESS_MODES: readonly FileModeName[] = ['r', 'w', 'rw'];
const WHENCE: readonly Whence[] = ['set', 'current', 'end'];

// The MPI_MODE_* flags of `mode`, checked: exactly one access mode, and create or excl not with
// 'r' (MPI forbids it), named here rather than as MPI_ERR_AMODE.
function amodeOf(mode: FileMode): number {
  const flags = addon().FILE_MODES;
  const names: readonly unknown[] = typeof mode === 'string' ? [mode] : Array.isArray(mode) ? mode : [mode];
  const valid = Object.keys(flags)
    .map((m) => `'${m}'`)
    .join(', ');
  let amode = 0;
  for (const name of names) {
    if (typeof name !== 'string' || !Object.hasOwn(flags, name)) {
      throw new TypeError(`File.open: mode ${typeof name === 'string' ? `'${name}'` : String(name)} is not valid; valid: ${valid}, or an array of them`);
    }
    amode |= flags[name as FileModeName];
  }
  const access = names.filter((n) => ACCESS_MODES.includes(n as FileModeName));
  if (access.length !== 1) {
    throw new TypeError(`File.open: mode must include exactly one of 'r', 'w', 'rw' (got ${access.length === 0 ? 'none' : access.join(' and ')})`);
  }
  if (access[0] === 'r' && (names.includes('create') || names.includes('excl'))) {
    throw new TypeError("File.open: mode 'create' or 'excl' needs 'w' or 'rw', not 'r'");
  }
  return amode;
}

let newFile: (handle: number, comm: Comm, path: string) => File;

/**
 * An open file (MPI_File). The ranks of `comm` open it together and must close it together;
 * setSize, sync, setView and the …All methods are collective too. Offsets and the file pointer
 * count etypes of the current view (bytes by default). Methods of a closed file throw a TypeError.
 */
export class File {
  readonly #handle: number;
  /** The communicator the file was opened on. */
  readonly comm: Comm;
  /** The path the file was opened with. */
  readonly path: string;
  #view: FileView = { disp: 0, etype: Datatype.BYTE, filetype: Datatype.BYTE, datarep: 'native' };
  #closed = false;

  private constructor(handle: number, comm: Comm, path: string) {
    this.#handle = handle;
    this.comm = comm;
    this.path = path;
  }

  static {
    newFile = (handle, comm, path) => new File(handle, comm, path);
  }

  /**
   * MPI_File_open, collective over `comm`: every rank passes the same path and mode. `mode` is a
   * FileModeName or an array of them (default 'r'): `['w', 'create']` makes the file if it does
   * not exist (it does not truncate one that does: setSize(0) does). An MpiError names the path
   * and the class, e.g. MPI_ERR_NO_SUCH_FILE.
   */
  static open(comm: Comm, path: string, mode: FileMode = 'r', info?: FileHints): File {
    if (!(comm instanceof Comm)) throw new TypeError('File.open: comm must be a Comm (world, COMM_SELF, …)');
    init();
    return newFile(addon().fileOpen(comm.handle, path, amodeOf(mode), info), comm, path);
  }

  /** MPI_File_delete: an MpiError (MPI_ERR_NO_SUCH_FILE) when there is no such file. */
  static delete(path: string, info?: FileHints): void {
    init();
    addon().fileDelete(path, info);
  }

  /** MPI_File_close, collective. Later calls on this File throw a TypeError. */
  close(): void {
    addon().fileClose(this.#handle);
    this.#closed = true;
  }

  /** Whether close() has been called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The access mode the file was opened with (MPI_File_get_amode), as FileModeNames. */
  get mode(): FileModeName[] {
    const amode = addon().fileGetAmode(this.#handle);
    return Object.entries(addon().FILE_MODES)
      .filter(([, flag]) => (amode & flag) !== 0)
      .map(([name]) => name as FileModeName);
  }

  /** The file's size in bytes (MPI_File_get_size). */
  get size(): number {
    return addon().fileGetSize(this.#handle);
  }

  /** MPI_File_set_size, collective (every rank the same size): truncates or extends the file. */
  setSize(bytes: number): void {
    addon().fileSetSize(this.#handle, bytes);
  }

  /** MPI_File_sync, collective: this rank's writes reach the storage device, and other ranks' become visible after a barrier. */
  sync(): void {
    addon().fileSync(this.#handle);
  }

  /**
   * MPI_File_set_view, collective: from byte `disp` on, this rank sees the bytes `filetype`
   * covers, tiled; offsets count `etype`s. Both must be committed (element types are); the file
   * pointers return to 0. Each rank a vector filetype of its block in every stride interleaves
   * the ranks' blocks: `Datatype.vector(n, block, p * block, etype)` at `disp = rank * block * etype.size`.
   */
  setView(disp: number, etype: Datatype, filetype: Datatype = etype, datarep: Datarep = 'native'): void {
    addon().fileSetView(this.#handle, disp, etype, filetype, datarep);
    this.#view = { disp, etype, filetype, datarep };
  }

  /** The view setView set (bytes from 0, if none). */
  getView(): FileView {
    if (this.#closed) throw new TypeError(`getView: the file '${this.path}' is closed`);
    return { ...this.#view };
  }

  /** MPI_File_write_at: `buf` at `offset` (etypes of the view); the status counts the elements written. */
  writeAt(offset: number, buf: DataBuffer): Status {
    return addon().fileWriteAt(this.#handle, offset, buf, false);
  }

  /** MPI_File_read_at into `buf`; the status counts the elements read (fewer at the end of the file). */
  readAt(offset: number, buf: DataBuffer): Status {
    return addon().fileReadAt(this.#handle, offset, buf, false);
  }

  /** MPI_File_write_at_all: writeAt, collective (every rank calls it, with its own offset and buffer). */
  writeAtAll(offset: number, buf: DataBuffer): Status {
    return addon().fileWriteAt(this.#handle, offset, buf, true);
  }

  /** MPI_File_read_at_all: readAt, collective. */
  readAtAll(offset: number, buf: DataBuffer): Status {
    return addon().fileReadAt(this.#handle, offset, buf, true);
  }

  /** MPI_File_write at this rank's file pointer, which advances past what was written. */
  write(buf: DataBuffer): Status {
    return addon().fileWrite(this.#handle, buf, false);
  }

  /** MPI_File_read at this rank's file pointer, which advances past what was read. */
  read(buf: DataBuffer): Status {
    return addon().fileRead(this.#handle, buf, false);
  }

  /** MPI_File_write_all: write, collective. */
  writeAll(buf: DataBuffer): Status {
    return addon().fileWrite(this.#handle, buf, true);
  }

  /** MPI_File_read_all: read, collective. */
  readAll(buf: DataBuffer): Status {
    return addon().fileRead(this.#handle, buf, true);
  }

  /** MPI_File_iwrite_at: writeAt, nonblocking; the request's value is the status. Leave `buf` alone until it completes. */
  iwriteAt(offset: number, buf: DataBuffer): Request<Status> {
    return newRequest(addon().fileIwriteAt(this.#handle, offset, buf), statusOfRequest, [buf], 'p2p');
  }

  /** MPI_File_iread_at: readAt, nonblocking; the request's value is the status. */
  ireadAt(offset: number, buf: DataBuffer): Request<Status> {
    return newRequest(addon().fileIreadAt(this.#handle, offset, buf), statusOfRequest, [buf], 'p2p');
  }

  /** MPI_File_seek: moves this rank's file pointer to `offset` etypes from the start of the view ('set'), itself ('current') or the end of the file ('end'). */
  seek(offset: number, whence: Whence = 'set'): void {
    const at = WHENCE.indexOf(whence);
    if (at < 0) throw new TypeError(`seek: whence '${String(whence)}' is not valid; valid: 'set', 'current', 'end'`);
    addon().fileSeek(this.#handle, offset, at as 0 | 1 | 2);
  }

  /** This rank's file pointer, in etypes of the view (MPI_File_get_position). */
  get position(): number {
    return addon().fileGetPosition(this.#handle);
  }
}
