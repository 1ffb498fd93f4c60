// The binding's pure-JS parts, without MPI: ops, MpiError, the Open MPI AVX guard, and Request's
// progress through the event loop (driven by a scripted native request).
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { NativeRequest } from '../../src/mpi/addon';
import { MpiError } from '../../src/mpi/errors';
import { avoidOpenMpiAvxOp } from '../../src/mpi/lifecycle';
import { objectOpFunction, OPS, opIndex } from '../../src/mpi/ops';
import { newRequest, testAll, testAny, testSome, waitAll, waitAllSync, waitAny, waitSome } from '../../src/mpi/request';

describe('ops', () => {
  it('index every op in the order of the addon table', () => {
    expect(OPS).toEqual(['SUM', 'PROD', 'MIN', 'MAX', 'LAND', 'LOR', 'LXOR', 'BAND', 'BOR', 'BXOR']);
    OPS.forEach((op, i) => expect(opIndex(op, 'allreduce')).toBe(i));
  });

  it('reject an unknown op naming the call and the valid choices', () => {
    expect(() => opIndex('sum' as never, 'allreduce')).toThrow(TypeError);
    expect(() => opIndex('AVG' as never, 'reduce')).toThrow(
      /^reduce: op "AVG" is not valid; valid choices: SUM, PROD, MIN, MAX, LAND, LOR, LXOR, BAND, BOR, BXOR, MINLOC, MAXLOC, or a function \(invec, inoutvec\) => void$/,
    );
  });

  it('fold [value, index] pairs as MINLOC and MAXLOC: the smaller index on a tie', () => {
    const pairs = [[3, 0], [1, 1], [1, 2], [3, 3]];
    expect(pairs.reduce((a, b) => objectOpFunction<number[]>('MINLOC', 't')(a, b))).toEqual([1, 1]);
    expect(pairs.reduce((a, b) => objectOpFunction<number[]>('MAXLOC', 't')(a, b))).toEqual([3, 0]);
  });

  it('fold JS values as MPI folds numbers', () => {
    const fold = (op: (typeof OPS)[number], xs: unknown[]) => xs.reduce((a, b) => objectOpFunction<unknown>(op, 't')(a, b));
    expect(fold('SUM', [1, 2, 3])).toBe(6);
    expect(fold('SUM', [1n, 2n])).toBe(3n);
    expect(fold('PROD', [2, 3, 4])).toBe(24);
    expect(fold('MIN', [5, -1, 3])).toBe(-1);
    expect(fold('MAX', ['a', 'c', 'b'])).toBe('c');
    expect(fold('LAND', [1, 1, 0])).toBe(false);
    expect(fold('LOR', [0, 0, 2])).toBe(true);
    expect(fold('LXOR', [1, 1, 1])).toBe(true);
    expect(fold('BAND', [0b1100, 0b1010])).toBe(0b1000);
    expect(fold('BOR', [0b1100, 0b1010])).toBe(0b1110);
    expect(fold('BXOR', [0b1100, 0b1010])).toBe(0b0110);
    const concat = (a: number[], b: number[]) => a.concat(b);
    expect(objectOpFunction(concat, 't')).toBe(concat);
    expect(() => objectOpFunction('MEAN' as never, 'allreduceObject')).toThrow(/allreduceObject: op "MEAN" is not valid/);
  });
});

describe('MpiError', () => {
  it('carries the MPI error class, its name and MPI text', () => {
    const e = new MpiError('MPI_Recv: MPI_ERR_TRUNCATE: message truncated', 15, 'MPI_ERR_TRUNCATE: message truncated', 'MPI_ERR_TRUNCATE');
    expect(e).toBeInstanceOf(Error);
    expect(e).toBeInstanceOf(MpiError);
    expect(e.name).toBe('MpiError');
    expect([e.errorClass, e.errorClassName, e.errorString]).toEqual([15, 'MPI_ERR_TRUNCATE', 'MPI_ERR_TRUNCATE: message truncated']);
    expect([e.mpiErrorClass, e.mpiErrorString]).toEqual([15, 'MPI_ERR_TRUNCATE: message truncated']);
    expect(String(e)).toBe('MpiError: MPI_Recv: MPI_ERR_TRUNCATE: message truncated');
  });
});

describe('Open MPI AVX op guard', () => {
  it('excludes the avx op component for Open MPI unless the user chose op components', () => {
    const env: NodeJS.ProcessEnv = {};
    avoidOpenMpiAvxOp(env, 'openmpi');
    expect(env.OMPI_MCA_op).toBe('^avx');
    const chosen: NodeJS.ProcessEnv = { OMPI_MCA_op: 'avx' };
    avoidOpenMpiAvxOp(chosen, 'openmpi');
    expect(chosen.OMPI_MCA_op).toBe('avx');
    const mpich: NodeJS.ProcessEnv = {};
    avoidOpenMpiAvxOp(mpich, 'mpich');
    expect(mpich.OMPI_MCA_op).toBeUndefined();
  });
});

// A native request that completes after `polls` calls of test() (or at once on wait()).
function scripted(polls: number, fail?: Error): NativeRequest & { tests: number; waits: number } {
  return {
    tests: 0,
    waits: 0,
    test() {
      this.tests++;
      if (fail && this.tests >= polls) throw fail;
      return this.tests >= polls;
    },
    wait() {
      this.waits++;
      if (fail) throw fail;
    },
  };
}

describe('Request', () => {
  it('resolves when the native request completes, letting timers run meanwhile', async () => {
    // Completes only once a timer has fired three times: if polling starved the timers, the
    // request would never complete and the test would time out.
    let ticks = 0;
    const native = scripted(Infinity);
    native.test = () => {
      native.tests++;
      return ticks >= 3;
    };
    const buffer = new Uint8Array(4);
    const request = newRequest(native, () => buffer, [buffer]);
    const timer = setInterval(() => ticks++, 1);
    const value = await request;
    clearInterval(timer);
    expect(value).toBe(buffer);
    expect(ticks).toBeGreaterThanOrEqual(3);
    const polls = native.tests;
    expect(polls).toBeGreaterThan(1);
    expect(request.done).toBe(true);
    expect(request.test()).toBe(true);
    expect(native.tests).toBe(polls); // a completed request is not progressed again
  });

  it('computes its value once, at completion', () => {
    let computed = 0;
    const request = newRequest(scripted(1), () => ++computed, []);
    expect(request.wait()).toBe(1);
    expect(request.wait()).toBe(1);
    expect(computed).toBe(1);
  });

  it('wait() blocks in the native request and test() polls once', () => {
    const native = scripted(3);
    const request = newRequest(native, () => 'v', []);
    expect(request.test()).toBe(false);
    expect(request.wait()).toBe('v');
    expect(native.waits).toBe(1);
  });

  it('rejects with the error the native request throws', async () => {
    const err = new Error('MPI_Test: boom');
    await expect(newRequest(scripted(3, err), () => 0, [])).rejects.toBe(err);
    expect(() => newRequest(scripted(1, err), () => 0, []).wait()).toThrow('boom');
  });

  it('waitAll, waitAllSync and waitAny', async () => {
    const make = (polls: number, v: string) => newRequest(scripted(polls), () => v, []);
    expect(await waitAll([make(5, 'a'), make(1, 'b'), make(9, 'c')])).toEqual(['a', 'b', 'c']);
    expect(waitAllSync([make(5, 'x'), make(2, 'y')])).toEqual(['x', 'y']);
    expect(await waitAny([make(50, 'slow'), make(2, 'fast')])).toEqual({ index: 1, value: 'fast' });
  });

  it('behaves as a Promise: catch, finally, Promise.all/race/allSettled, toStringTag, Promise<T> by type', async () => {
    const make = (polls: number, v: string) => newRequest(scripted(polls), () => v, []);
    const typed: Promise<string> = make(1, 'typed');
    expect(await typed).toBe('typed');
    expect(Object.prototype.toString.call(make(1, 'x'))).toBe('[object Promise]');
    expect(await Promise.all([make(3, 'a'), make(1, 'b')])).toEqual(['a', 'b']);
    expect(await Promise.race([make(40, 'slow'), make(2, 'fast')])).toBe('fast');
    expect(await Promise.resolve(make(2, 'adopted'))).toBe('adopted');
    const err = new Error('MPI_Test: boom');
    const failing = newRequest(scripted(2, err), () => 'never', []);
    let finallyRan = 0;
    expect(await failing.catch((e) => e).finally(() => finallyRan++)).toBe(err);
    expect(await make(1, 'ok').finally(() => finallyRan++)).toBe('ok');
    await expect(newRequest(scripted(2, err), () => 0, []).finally(() => finallyRan++)).rejects.toBe(err);
    expect(finallyRan).toBe(3);
    const settled = await Promise.allSettled([make(1, 'v'), newRequest(scripted(1, err), () => '', [])]);
    expect(settled).toEqual([
      { status: 'fulfilled', value: 'v' },
      { status: 'rejected', reason: err },
    ]);
    // Nothing is polled until something awaits: wait()/test() alone cost no event-loop polls.
    const idle = scripted(2);
    newRequest(idle, () => 0, []);
    await new Promise((r) => setTimeout(r, 5));
    expect(idle.tests).toBe(0);
    // Reading it as a Promise (its constructor, as await and the combinators do) starts the polls.
    const read = scripted(2);
    const readRequest = newRequest(read, () => 'read', []);
    expect(readRequest.constructor).toBe(Promise);
    await new Promise((r) => setTimeout(r, 5));
    expect([read.tests, readRequest.done]).toEqual([2, true]);
    expect(await readRequest).toBe('read');
    // Every way a Promise is taken reads it first: returned from an async function, Promise.any,
    // then() on its own, Promise.resolve (which gives the request itself).
    const returned = async () => make(3, 'returned');
    expect(await returned()).toBe('returned');
    expect(await Promise.any([make(2, 'any')])).toBe('any');
    expect(await new Promise((resolve) => void make(2, 'then').then(resolve))).toBe('then');
    const itself = make(2, 'itself');
    expect(Promise.resolve(itself)).toBe(itself);
    expect(await itself).toBe('itself');
  });

  it('inspects as a named Promise in each state', async () => {
    const pending = newRequest(scripted(2), () => ({ tag: 5 }), []);
    expect(inspect(pending)).toBe('Request [Promise] { <pending> }');
    pending.wait();
    expect(inspect(pending)).toBe('Request [Promise] { { tag: 5 } }');
    const failed = newRequest(scripted(1, new Error('boom')), () => 0, []);
    expect(() => failed.wait()).toThrow('boom');
    expect(inspect(failed)).toMatch(/^Request \[Promise\] \{ <rejected> Error: boom/);
    const freed = newRequest(scripted(2), () => 0, [], 'p2p');
    freed.free();
    expect(inspect(freed)).toBe('Request [Promise] { <freed> }');
  });

  it('waitSome, testSome, testAny and testAll report the requests that complete during the call', async () => {
    const make = (polls: number, v: string) => newRequest(scripted(polls), () => v, []);
    const reqs = [make(30, 'a'), make(2, 'b'), make(2, 'c'), make(60, 'd')];
    expect(testAll(reqs)).toBe(false);
    const first = await waitSome(reqs);
    expect(first).toEqual({ indices: [1, 2], values: ['b', 'c'] });
    // Completed requests are inactive (MPI's null requests): each is reported once.
    const seen = [...first.indices];
    for (let r = await waitSome(reqs); r.indices.length > 0; r = await waitSome(reqs)) seen.push(...r.indices);
    expect(seen).toEqual([1, 2, 0, 3]);
    expect(await waitSome(reqs)).toEqual({ indices: [], values: [] });
    expect(testAll(reqs)).toBe(true);
    expect(testSome(reqs)).toEqual({ indices: [], values: [] });
    expect(testAny(reqs)).toBeNull();

    const two = [make(3, 'x'), make(2, 'y')];
    expect(testAny(two)).toBeNull(); // each progressed once: none done yet
    expect(testAny(two)).toEqual({ index: 1, value: 'y' });
    expect(testAny(two)).toEqual({ index: 0, value: 'x' });
    expect(testAny(two)).toBeNull();
    const three = [make(1, 'p'), make(9, 'q'), make(1, 'r')];
    expect(testSome(three)).toEqual({ indices: [0, 2], values: ['p', 'r'] });
    expect(waitAllSync(three)).toEqual(['p', 'q', 'r']);
    expect(testAll([])).toBe(true);
  });

  it('waitAny skips completed requests and rejects when none is active', async () => {
    const make = (polls: number, v: string) => newRequest(scripted(polls), () => v, []);
    const done = make(1, 'done');
    done.wait();
    expect(await waitAny([done, make(3, 'later')])).toEqual({ index: 1, value: 'later' });
    await expect(waitAny([done])).rejects.toThrow(/^waitAny: no request is active \(all 1 have completed or been freed\)$/);
    await expect(waitAny([])).rejects.toThrow(TypeError);
    // A request another waiter completes meanwhile counts as completing during the call.
    const shared = make(4, 's');
    const [a, b] = await Promise.all([shared, waitAny([make(1000, 'never'), shared])]);
    expect([a, b]).toEqual(['s', { index: 1, value: 's' }]);
  });

  it('free() lets go of a point-to-point request, which completes unobserved; a collective refuses', async () => {
    const native = scripted(3);
    const p2p = newRequest(native, () => 'v', [new Uint8Array(1)], 'p2p');
    p2p.free();
    expect(() => p2p.test()).toThrow(/^test: the request has been freed$/);
    expect(() => p2p.wait()).toThrow(/^wait: the request has been freed$/);
    await expect(p2p).rejects.toThrow(/^await: the request has been freed$/);
    expect(p2p.done).toBe(false);
    p2p.free(); // again: nothing to do
    // It is still progressed (by the next requests made or tested) until MPI completes it.
    for (let i = 0; i < 3; i++) newRequest(scripted(1), () => 0, []).test();
    expect(native.tests).toBe(3);
    newRequest(scripted(1), () => 0, []).test();
    expect(native.tests).toBe(3); // complete: let go
    // Freed requests are inactive: skipped by the -any/-some calls, complete for testAll.
    const other = newRequest(scripted(2), () => 'w', [], 'p2p');
    const gone = newRequest(scripted(100), () => 'x', [], 'p2p');
    gone.free();
    expect(await waitSome([gone, other])).toEqual({ indices: [1], values: ['w'] });
    expect(testAll([gone, other])).toBe(true);
    // A completed request is left as it is; an awaited one cannot be freed.
    const finished = newRequest(scripted(1), () => 'f', [], 'p2p');
    finished.wait();
    finished.free();
    expect(finished.wait()).toBe('f');
    const failed = newRequest(scripted(1, new Error('MPI_Wait: boom')), () => 'x', [], 'p2p');
    expect(() => failed.wait()).toThrow('boom');
    failed.free(); // nothing in flight: nothing to do
    const awaited = newRequest(scripted(5), () => 'a', [], 'p2p');
    const result = awaited.then((v) => v);
    expect(() => awaited.free()).toThrow(/^free: the request is being awaited/);
    expect(await result).toBe('a');
    const collective = newRequest(scripted(2), () => 'c', []);
    expect(() => collective.free()).toThrow(/^free: a nonblocking collective cannot be freed \(MPI forbids MPI_Request_free on its request\)/);
    expect(await collective).toBe('c');
  });

  it('cancel() asks the native request to cancel; the request still completes, and says whether it was cancelled', async () => {
    const cancellable = (cancelled: boolean) => {
      const native = Object.assign(scripted(3), { cancels: 0, cancel() { native.cancels++; }, status: () => ({ cancelled }) });
      return native;
    };
    const native = cancellable(true);
    const recv = newRequest(native, () => native.status(), [], 'p2p');
    recv.cancel();
    expect(native.cancels).toBe(1);
    expect(recv.cancelled).toBe(false); // not complete yet
    expect(await recv).toEqual({ cancelled: true });
    expect(recv.cancelled).toBe(true);
    recv.cancel(); // complete: nothing to do
    expect(native.cancels).toBe(1);
    const missed = cancellable(false);
    const send = newRequest(missed, () => undefined, [], 'persistent');
    send.cancel();
    send.wait();
    expect(send.cancelled).toBe(false);
    expect(() => newRequest(scripted(1), () => 0, []).cancel()).toThrow(/^cancel: a nonblocking collective cannot be cancelled \(MPI forbids MPI_Cancel on its request\)$/);
    expect(() => newRequest(scripted(1), () => 0, [], 'object').cancel()).toThrow(/^cancel: isendObject\/irecvObject requests cannot be cancelled/);
    const freed = newRequest(scripted(9), () => 0, [], 'p2p');
    freed.free();
    expect(() => freed.cancel()).toThrow(/^cancel: the request has been freed$/);
    expect(() => newRequest(scripted(2), () => 0, [], 'persistent').free()).toThrow(/^free: this operation was started by a PersistentRequest/);
  });

  it('then() runs its callbacks as a Promise would: in order, after the call that completes the request, their results settling what it returned', async () => {
    const native = scripted(3);
    const request = newRequest(native, () => 7, []);
    const order: string[] = [];
    const doubled = request.then((v) => (order.push('first'), 2 * v));
    const thrown = request.then(() => {
      order.push('second');
      throw new Error('from the callback');
    });
    const passed = request.catch(() => 'not called');
    expect(request.wait()).toBe(7);
    expect(order).toEqual([]); // never inside wait()
    expect(await doubled).toBe(14);
    await expect(thrown).rejects.toThrow('from the callback');
    expect(await passed).toBe(7);
    expect(order).toEqual(['first', 'second']);
    // A completed request settles what awaits it without another native call.
    const [tests, waits] = [native.tests, native.waits];
    expect(await request).toBe(7);
    expect(await request.then((v) => v + 1)).toBe(8);
    expect([native.tests, native.waits]).toEqual([tests, waits]);
    // A failed one rejects every later await with its error, without a native call.
    const err = new Error('MPI_Test: boom');
    const failing = scripted(2, err);
    const failed = newRequest(failing, () => 0, []);
    await expect(failed).rejects.toBe(err);
    const polls = failing.tests;
    await expect(failed).rejects.toBe(err);
    expect(() => failed.test()).toThrow('boom');
    expect(failing.tests).toBe(polls);
    // An error computing the value (a JS op's, at completion) fails the request alike.
    const opError = new Error('the op threw');
    const throwing = newRequest(scripted(2), () => {
      throw opError;
    }, []);
    await expect(throwing).rejects.toBe(opError);
    expect(() => throwing.wait()).toThrow('the op threw');
  });

  it('an awaited request that completes within the first spin costs no event-loop turn', async () => {
    // Completes on the 2nd test, a microsecond into the spin that follows the await (which lasts
    // 100 µs), so the setImmediate callback queued before it has not run when the await resumes
    // (polling from the event loop would run it first).
    const native = scripted(2);
    let timerRan = false;
    setImmediate(() => (timerRan = true));
    expect(await newRequest(native, () => 'spun', [])).toBe('spun');
    expect(timerRan).toBe(false);
    expect(native.tests).toBe(2);
    // Promise.all hands every request over before the spin starts: all complete in it.
    const many = [scripted(2), scripted(3), scripted(2)];
    expect(await Promise.all(many.map((n, i) => newRequest(n, () => i, [])))).toEqual([0, 1, 2]);
    expect(timerRan).toBe(false);
  });
});
