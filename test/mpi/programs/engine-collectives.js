// Every classic algorithm of allgather, bcast, barrier and alltoall, forced in turn through the
// engine's run-time override (setAlgorithm), over sizes, in place and not, blocking and
// nonblocking; every received byte is checked. Barriers are checked for what they promise: each
// rank writes a marker file before the barrier and, after it, finds every rank's marker.
// Usage: engine-collectives.js <marker directory>. Prints one JSON line per rank:
// {rank, cases, bad: [first failures]}.
const fs = require('node:fs');
const path = require('node:path');
const tc = require('../../../dist/index.js');
const { addon } = require('../../../dist/mpi/native.js');

const { world, IN_PLACE } = tc;
const native = addon();
const p = world.size;
const me = world.rank;
const markerDir = process.argv[2];
if (!markerDir) throw new Error('usage: engine-collectives.js <marker directory>');

const ALGORITHMS = {
  allgather: ['ring', 'recursive_doubling', 'bruck', 'neighbor_exchange'],
  bcast: ['binomial', 'scatter_allgather'],
  barrier: ['dissemination', 'recursive_doubling'],
  alltoall: ['bruck', 'isend_irecv', 'pairwise', 'ring'],
};
// Bytes per block (allgather, alltoall) or per message (bcast); and one case of 8-byte elements.
const BYTE_COUNTS = [0, 1, 7, 1024, 65539, 1 << 20];
const TYPED = [...BYTE_COUNTS.map((n) => [Uint8Array, n]), [Float64Array, 13]];

let cases = 0;
const bad = [];
function fail(what) {
  if (bad.length < 10) bad.push(what);
}

// A byte that says who wrote it for whom, where, in which case.
const byte = (a, b, i, salt) => (a * 131 + b * 17 + i * 7 + salt) & 255;

function fillBlock(view, at, n, a, b, salt) {
  for (let i = 0; i < n; i++) view[at + i] = byte(a, b, i, salt);
}

function checkBlock(view, at, n, a, b, salt, what) {
  for (let i = 0; i < n; i++) {
    if (view[at + i] !== byte(a, b, i, salt)) {
      fail(`${what}: byte ${at + i} (block of ${a} for ${b}, offset ${i}) is ${view[at + i]}, expected ${byte(a, b, i, salt)}`);
      return;
    }
  }
}

const bytesOf = (arr) => new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);

function run(coll, algorithm, op) {
  cases++;
  op();
  const why = native.takeFallback(coll);
  if (why) fail(`${coll} ${algorithm}: fell back to native (${why})`);
}

/** The blocking form of a collective, or its nonblocking form waited on. */
const call = (blocking, blockingForm, nonblockingForm) => (blocking ? blockingForm() : nonblockingForm());

let salt = 1;
for (const [coll, names] of Object.entries(ALGORITHMS)) {
  for (const algorithm of names) {
    native.setAlgorithm(coll, algorithm);
    for (const blocking of [true, false]) {
      const mode = blocking ? 'blocking' : 'nonblocking';
      if (coll === 'barrier') {
        for (let k = 0; k < 3; k++) {
          const tag = `${algorithm}-${mode}-${k}`;
          fs.writeFileSync(path.join(markerDir, `${tag}-${me}`), '');
          run(coll, algorithm, () => (blocking ? world.barrier() : world.ibarrier().wait()));
          for (let r = 0; r < p; r++) {
            if (!fs.existsSync(path.join(markerDir, `${tag}-${r}`))) fail(`barrier ${algorithm} ${mode}: left before rank ${r} arrived`);
          }
        }
        continue;
      }
      for (const [Type, n] of TYPED) {
        const elementBytes = Type.BYTES_PER_ELEMENT;
        const nb = n * elementBytes;
        for (const inPlace of coll === 'bcast' ? [false] : [false, true]) {
          salt = (salt + 1) & 255;
          const what = `${coll} ${algorithm} ${mode} ${Type.name}[${n}]${inPlace ? ' in place' : ''}`;
          if (coll === 'allgather') {
            const send = new Type(n);
            fillBlock(bytesOf(send), 0, nb, me, 0, salt);
            const recv = new Type(n * p);
            bytesOf(recv).fill(0xee);
            if (inPlace) bytesOf(recv).set(bytesOf(send), me * nb);
            const sendArg = inPlace ? IN_PLACE : send;
            run(coll, algorithm, () => call(blocking, () => world.allgather(sendArg, recv), () => world.iallgather(sendArg, recv).wait()));
            for (let r = 0; r < p; r++) checkBlock(bytesOf(recv), r * nb, nb, r, 0, salt, what);
          } else if (coll === 'alltoall') {
            const send = new Type(n * p);
            for (let j = 0; j < p; j++) fillBlock(bytesOf(send), j * nb, nb, me, j, salt);
            const recv = inPlace ? send : new Type(n * p);
            if (!inPlace) bytesOf(recv).fill(0xee);
            const sendArg = inPlace ? IN_PLACE : send;
            run(coll, algorithm, () => call(blocking, () => world.alltoall(sendArg, recv), () => world.ialltoall(sendArg, recv).wait()));
            for (let r = 0; r < p; r++) checkBlock(bytesOf(recv), r * nb, nb, r, me, salt, what);
          } else {
            for (const root of [...new Set([0, p - 1])]) {
              const buf = new Type(n);
              if (me === root) fillBlock(bytesOf(buf), 0, nb, root, 0, salt);
              else bytesOf(buf).fill(0xee);
              run(coll, algorithm, () => call(blocking, () => world.bcast(buf, root), () => world.ibcast(buf, root).wait()));
              checkBlock(bytesOf(buf), 0, nb, root, 0, salt, `${what} root ${root}`);
            }
          }
        }
      }
    }
    native.setAlgorithm(coll, null);
  }
}
console.log(JSON.stringify({ rank: me, cases, bad }));
