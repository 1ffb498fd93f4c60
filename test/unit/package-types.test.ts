// The package's types reach TypeScript consumers of both module systems under a strict
// `module: nodenext` configuration: an ESM file (resolved through exports["."].import, typed by
// exports["."].types) and a CommonJS file (require). Checked with the project's own tsc against
// the built dist/ of this checkout, linked in as node_modules/topocoll.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/mpirun';

describe('TypeScript consumers', () => {
  it('a strict nodenext project types `import ... from "topocoll"` (ESM), `from "topocoll/manual"` and `require("topocoll")` (CJS)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'topocoll-consumer-'));
    try {
      mkdirSync(path.join(dir, 'node_modules'));
      symlinkSync(repoRoot, path.join(dir, 'node_modules/topocoll'));
      symlinkSync(path.join(repoRoot, 'node_modules/@types'), path.join(dir, 'node_modules/@types'));
      writeFileSync(
        path.join(dir, 'esm.mts'),
        [
          "import { world, Comm, IN_PLACE, MpiError, OPS, type Op, Request, version, wtick, queryThread, isThreadMain, isFinalized, type ThreadLevel, type SomeCompleted, type Status, waitSome, testAny, testAll } from 'topocoll';",
          'const all: Float64Array = new Float64Array(4 * world.size);',
          'world.allgather(new Float64Array(4), all);',
          // Datatypes, groups, topologies: a [buffer, count, datatype] literal is typed as a BufferSpec.
          "import { Datatype, Group, dimsCreate, type BufferSpec, type Shift } from 'topocoll';",
          'const column: Datatype = Datatype.vector(4, 1, world.size, Datatype.FLOAT64).commit();',
          'export const got: Float64Array = world.allgather([all, 1, column], new Float64Array(4 * world.size));',
          'export const spec: BufferSpec | null = world.gather([all, 1, column], [all, world.size, column]);',
          'export const shifted: Shift = world.createCart(dimsCreate(world.size, 1))!.shift(0);',
          'export const members: Group = world.group.incl([0]);',
          'export const heard: Promise<Int32Array> = world.ineighborAllgather(new Int32Array(1), new Int32Array(2));',
          '// @ts-expect-error a spec takes a Datatype',
          "world.send([all, 1, 'float64'], 0);",
          '// @ts-expect-error the constructor is private',
          'export const madeType = new Datatype(0);',
          '// @ts-expect-error the handle is internal',
          'export const typeHandle: number = Datatype.FLOAT64.handle;',
          "world.allreduce(IN_PLACE, all, 'MAX');",
          'export const failure: boolean = new Error() instanceof MpiError;',
          // scatter returns the receive buffer on every rank; IN_PLACE at the root: a view of its block.
          'export const mine: Float64Array = world.scatter(all, IN_PLACE);',
          'export const theirs: Int32Array = world.scatter(null, new Int32Array(4));',
          'export const bytes: Uint8Array = world.scatter(new ArrayBuffer(8), IN_PLACE);',
          'export const pending: Request<Float64Array> = world.iscatterv({ buffer: all, counts: [4] }, IN_PLACE);',
          'export const ops: readonly Op[] = OPS;',
          'export const promised: Promise<Float64Array> = world.iallreduce(IN_PLACE, all).promise();',
          // A Request is a Promise by type; the -some/-any calls are typed by its value.
          'export const request: Promise<Float64Array> = world.iallreduce(IN_PLACE, all);',
          'export const some: Promise<SomeCompleted<Status>> = waitSome([world.irecv(all)]);',
          'export const any: { index: number; value: Status } | null = testAny([world.irecv(all)]);',
          'export const flags: [boolean, boolean, number] = [testAll([world.isend(all, 0)]), world.probe().cancelled, world.probe().error];',
          'export const env: [number, number, string, ThreadLevel, boolean, boolean] = [version().major, wtick(), version().libraryVersion, queryThread(), isThreadMain(), isFinalized()];',
          // A Comm comes from topocoll only: no public constructor, no handle.
          '// @ts-expect-error the constructor is private',
          'export const made = new Comm(0);',
          '// @ts-expect-error the handle is internal',
          'export const handle: number = world.handle;',
          // Point-to-point objects: Message, PersistentRequest, the attached buffer; cancel().
          "import { Message, PersistentRequest, startAll, attachBuffer, detachBuffer, BSEND_OVERHEAD } from 'topocoll';",
          'const matched: Message | null = world.improbe();',
          'export const received: Status | undefined = matched?.recv(all);',
          'const persistent: PersistentRequest<Status> = world.recvInit(all, 0, 1);',
          'export const started: Promise<Status[]> = Promise.all(startAll([persistent]));',
          'attachBuffer(new Uint8Array(64 + BSEND_OVERHEAD));',
          'world.bsend(all, 0); world.rsend(all, 0);',
          'export const replaced: Status = world.sendrecvReplace(all, 0);',
          'export const detached: ArrayBufferView | ArrayBuffer | null = detachBuffer();',
          'const cancelling = world.irecv(all); cancelling.cancel();',
          'export const wasCancelled: boolean = cancelling.cancelled;',
          '// @ts-expect-error a Message comes from mprobe/improbe only',
          'export const forged = new Message();',
          '// @ts-expect-error a PersistentRequest comes from sendInit/recvInit only',
          'export const forgedPersistent = new PersistentRequest();',
          '// @ts-expect-error a Request comes from the nonblocking calls only: its constructor is private',
          "export const forgedRequest = new Request({ test: () => true, wait: () => {} }, () => undefined, null, 'p2p');",
        ].join('\n'),
      );
      // 'topocoll/manual': init() with options first; world, rank, size set by it.
      writeFileSync(
        path.join(dir, 'manual.mts'),
        [
          "import { init, world, rank, size, type InitResult } from 'topocoll/manual';",
          "export const started: InitResult = init({ threadLevel: 'multiple' });",
          'export const where: [number, number, number] = [world.rank, rank, size];',
        ].join('\n'),
      );
      writeFileSync(path.join(dir, 'cjs.cts'), "import topocoll = require('topocoll');\nexport const size: number = topocoll.world.size;\n");
      const compilerOptions = { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, types: ['node'] };
      writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['esm.mts', 'cjs.cts', 'manual.mts'] }));
      const r = spawnSync(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
      expect(r.stdout + r.stderr).toBe('');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
