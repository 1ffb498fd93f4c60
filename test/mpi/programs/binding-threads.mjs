// MPI from worker_threads, under mpirun: `node binding-threads.mjs single|multiple`.
//   both:     a worker started before MPI cannot start it (a clear error).
//   single:   the default entry (MPI_THREAD_SINGLE); a worker that imports topocoll gets a clear
//             error instead of calling MPI, and the main thread's MPI keeps working after the
//             worker has loaded the addon (requests, MpiError).
//   multiple: 'topocoll/manual' lets the program choose the level before MPI starts; each rank's
//             worker exchanges a message with the next rank's worker while the main threads wait.
// Every rank prints one JSON line: {rank, size, level, checks, failures}.
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { check, report } from './checks.mjs';

async function inWorker() {
  try {
    const t = await import('topocoll'); // the ESM entry starts MPI on import: here it joins it
    const { world, rank, size } = t;
    const joined = t.init();
    let finalizeError = null;
    try {
      t.finalize();
    } catch (e) {
      finalizeError = e.message;
    }
    const right = (rank + 1) % size;
    const left = (rank + size - 1) % size;
    const got = new Float64Array(3);
    const st = world.sendrecv(Float64Array.of(rank, 7, 70), right, got, left, 70, 70);
    const viaAwait = new Int32Array(2);
    await Promise.all([world.irecv(viaAwait, left, 71), world.isend(Int32Array.of(rank, 71), right, 71)]);
    parentPort.postMessage({ joined, isThreadMain: t.isThreadMain(), finalizeError, got: Array.from(got), source: st.source, viaAwait: Array.from(viaAwait) });
  } catch (e) {
    parentPort.postMessage({ error: `${e.constructor.name}: ${e.message}` });
  }
}

function runWorker() {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url));
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

async function main(level) {
  // Before MPI starts: a worker cannot start it (the main thread has not even loaded topocoll).
  const early = await runWorker();
  check(
    'a worker cannot start MPI',
    /^Error: topocoll: MPI is not initialized; a worker_thread cannot start it: call init\({ threadLevel: 'multiple' }\) on the main thread before starting workers that use MPI$/.test(early.error),
    early,
  );
  const t = level === 'multiple' ? await import('topocoll/manual') : await import('topocoll');
  if (level === 'multiple') check("importing 'topocoll/manual' starts nothing", t.initialized() === false && t.world === undefined && t.rank === undefined);
  const started = level === 'multiple' ? t.init({ threadLevel: 'multiple' }) : t.init();
  // 'topocoll/manual' sets its bindings in init(): read them after it.
  const { world, rank, size } = t;
  const right = (rank + 1) % size;
  const left = (rank + size - 1) % size;
  check('init on the main thread', started.initializedHere === true && started.provided === level && t.isThreadMain() === true, started);
  const worker = await runWorker();
  if (level === 'single') {
    check(
      'a worker under single gets a clear error',
      /^Error: topocoll: MPI is used from a thread other than the one that initialized it, and MPI provides thread level "single"; call init\({ threadLevel: 'multiple' }\) on the main thread before any worker_thread uses MPI$/.test(worker.error),
      worker,
    );
  } else {
    check('no error in the worker', worker.error === undefined, worker.error);
    check('the worker joined, not initialized', worker.joined?.initializedHere === false && worker.joined?.provided === 'multiple' && worker.isThreadMain === false, worker);
    check('finalize in a worker', worker.finalizeError === 'finalize: only the main thread finalizes MPI (at its exit, or by calling finalize())', worker.finalizeError);
    check('the workers exchanged by sendrecv', worker.source === left && worker.got?.join() === [left, 7, 70].join(), worker);
    check('the workers exchanged by isend/irecv', worker.viaAwait?.join() === [left, 71].join(), worker);
  }
  // The main thread's MPI after a worker loaded the addon: requests, MpiError, a collective.
  const got = new Uint16Array(4);
  await Promise.all([world.irecv(got, left, 80), world.isend(Uint16Array.of(rank, 8, 0, 80), right, 80)]);
  check('main thread isend/irecv after the worker', got.join() === [left, 8, 0, 80].join(), Array.from(got));
  const long = t.COMM_SELF.isend(new Uint8Array(8), 0, 81); // a truncated receive, on COMM_SELF
  try {
    t.COMM_SELF.recv(new Uint8Array(4), 0, 81);
    check('MpiError after the worker', false, 'no error');
  } catch (e) {
    check('MpiError after the worker', e instanceof t.MpiError && e.errorClassName === 'MPI_ERR_TRUNCATE', `${e}`);
  }
  await long;
  const sum = world.allreduce(Int32Array.of(rank), new Int32Array(1));
  check('allreduce after the worker', sum[0] === (size * (size - 1)) / 2, sum[0]);
  console.log(JSON.stringify({ rank, size, level, ...report }));
}

if (isMainThread) await main(process.argv[2]);
else await inWorker();
