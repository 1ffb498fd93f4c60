// The generators render any collective a descriptor declares, not only the registry's own: the
// four reductions of issue 18 (allreduce, reduce, reduce_scatter_block, reduce_scatter) are
// fixtures here, rendered beside the registry's collectives, checked against the text the engine
// and the MPI standard fix, and compiled against each built MPI's own mpi.h (stand-ins for the
// hand-written pieces the generated code calls: their real forms are compiled by the build).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COLLECTIVES, type CollectiveInfo, type CParameter } from '../../src/select/registry';
import { repoRoot } from '../helpers/mpirun';
// @ts-expect-error plain ESM script
import { renderRegistryHeader } from '../../scripts/gen-native-registry.mjs';
import {
  checkDescriptor,
  renderAddonCalls,
  renderEngineDeclarations,
  renderEngineEntryPoints,
  renderFortran,
  renderInterpose,
  renderSchemaEnums,
  // @ts-expect-error plain ESM script
} from '../../scripts/gen-collectives.mjs';
// @ts-expect-error plain ESM helper shared with the project's scripts
import { builtMpis } from '../../scripts/mpi.mjs';

const ALL_FORMS = ['blocking', 'nonblocking', 'large_count', 'fortran'] as const;
const sendbuf: CParameter = { name: 'sendbuf', type: 'const void*', role: 'sendbuf' };
const recvbuf: CParameter = { name: 'recvbuf', type: 'void*', role: 'recvbuf' };
const datatype: CParameter = { name: 'datatype', type: 'MPI_Datatype', role: 'datatype' };
const op: CParameter = { name: 'op', type: 'MPI_Op', role: 'op' };
const comm: CParameter = { name: 'comm', type: 'MPI_Comm', role: 'comm' };

// As MPI-3.1 §5.9-5.10 declares them; no algorithms yet (only native).
function reduction(name: string, shape: CollectiveInfo['shape'], rooted: boolean, blocks: CollectiveInfo['blocks'], params: CParameter[]): CollectiveInfo {
  return {
    name: name as CollectiveInfo['name'],
    env: `TOPOCOLL_${name.toUpperCase()}_ALGORITHM`,
    algorithms: [],
    shape,
    rooted,
    reducing: true,
    blocks,
    params,
    forms: ALL_FORMS,
  };
}

const REDUCTIONS: CollectiveInfo[] = [
  reduction('allreduce', 'vector', false, { send: 1, recv: 1 }, [sendbuf, recvbuf, { name: 'count', type: 'int', role: 'count' }, datatype, op, comm]),
  reduction('reduce', 'vector', true, { send: 1, recv: 1 }, [
    sendbuf,
    recvbuf,
    { name: 'count', type: 'int', role: 'count' },
    datatype,
    op,
    { name: 'root', type: 'int', role: 'root' },
    comm,
  ]),
  reduction('reduce_scatter_block', 'block', false, { send: 'p', recv: 1 }, [sendbuf, recvbuf, { name: 'recvcount', type: 'int', role: 'count' }, datatype, op, comm]),
  reduction('reduce_scatter', 'block', false, { send: 'p', recv: 1 }, [sendbuf, recvbuf, { name: 'recvcounts', type: 'const int*', role: 'counts' }, datatype, op, comm]),
];
// The registry's collectives and the reductions it does not hold (yet): what a build would render.
const ALL = [...COLLECTIVES, ...REDUCTIONS.filter((r) => !COLLECTIVES.some((c) => c.name === r.name))];

describe('collective descriptors', () => {
  it('every descriptor of the registry is renderable', () => {
    for (const c of COLLECTIVES) expect(() => checkDescriptor(c)).not.toThrow();
  });

  it('a descriptor that contradicts itself is refused, with what is wrong', () => {
    const [allreduce] = REDUCTIONS;
    const bad = (patch: Partial<CollectiveInfo>) => () => checkDescriptor({ ...allreduce, ...patch });
    expect(bad({ reducing: false })).toThrow(/allreduce: reducing is false but it has op parameter/);
    expect(bad({ rooted: true })).toThrow(/rooted is true but it has no root parameter/);
    expect(bad({ params: allreduce.params.filter((p) => p.role !== 'comm') })).toThrow(/exactly one comm/);
    expect(bad({ params: [...allreduce.params.slice(0, 2), { name: 'count', type: 'MPI_Count', role: 'count' }, ...allreduce.params.slice(3)] })).toThrow(
      /count \(count\) has C type MPI_Count, not int/,
    );
    expect(bad({ params: allreduce.params.map((p) => (p.role === 'count' ? { ...p, name: 'request' } : p)) })).toThrow(/name request is used by the generated code/);
    expect(bad({ forms: ['nonblocking'] })).toThrow(/every collective has the blocking form/);
    expect(bad({ blocks: { send: 2 as never, recv: 1 } })).toThrow(/blocks.send is 2/);
    expect(() => checkDescriptor({ ...COLLECTIVES.find((c) => c.name === 'barrier')!, forms: ALL_FORMS })).toThrow(/large-count form needs counts/);
  });

  it("renders the reductions' engine entry points as the engine declares them (issue 18)", () => {
    const text = renderEngineDeclarations([...COLLECTIVES.filter((c) => !REDUCTIONS.some((r) => r.name === c.name)), ...REDUCTIONS]);
    for (const line of [
      'int allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, RequestOut request = nullptr);',
      'int reduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, RequestOut request = nullptr);',
      'int reduceScatterBlock(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, RequestOut request = nullptr);',
      'int reduceScatter(const void* sendbuf, void* recvbuf, CountList recvcounts, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, RequestOut request = nullptr);',
      // The registry's own, unchanged.
      'int allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, RequestOut request = nullptr);',
      'int barrier(MPI_Comm comm, RequestOut request = nullptr);',
    ]) {
      expect(text).toContain(line);
    }
  });

  it('hands a call to the MPI with exactly its arguments, and remembers what decides its selection', () => {
    const text = renderEngineEntryPoints(REDUCTIONS);
    expect(text).toContain(
      [
        'int nativeReduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request* r) {',
        '  return r ? PMPI_Ireduce(sendbuf, recvbuf, int(count), datatype, op, root, comm, r)',
        '           : PMPI_Reduce(sendbuf, recvbuf, int(count), datatype, op, root, comm);',
      ].join('\n'),
    );
    expect(text).toContain('PMPI_Reduce_scatter(sendbuf, recvbuf, intCounts(recvcounts), datatype, op, comm);');
    // Six words, the most NativeRepeat holds: the in-place flag, count, datatype, op and root.
    expect(text).toContain(
      'if (repeatsNative(Collective::Reduce, request, handleBits(comm), sendbuf == MPI_IN_PLACE, count, handleBits(datatype), handleBits(op), root))',
    );
    // A counts array is no word (its contents change under one pointer): no repeat check at all.
    const reduceScatter = text.slice(text.indexOf('int reduceScatter('));
    expect(reduceScatter.slice(0, reduceScatter.indexOf('\n}'))).not.toContain('repeatsNative');
    expect(text).toContain('return runThroughEngine(Collective::ReduceScatterBlock, request, native, ran_native, sendbuf, recvbuf, recvcount, datatype, op, comm);');
  });

  it('renders every preload form of the reductions', () => {
    expect(renderInterpose(REDUCTIONS, 'blocking')).toContain(
      [
        'int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {',
        '  if (bypass()) return TOPOCOLL_PASS(MPI_Allreduce)(sendbuf, recvbuf, count, datatype, op, comm);',
        '  return runBlocking(comm, [&](engine::RequestOut r) { return engine::allreduce(sendbuf, recvbuf, count, datatype, op, comm, r); });',
        '}',
      ].join('\n'),
    );
    expect(renderInterpose(REDUCTIONS, 'nonblocking')).toContain(
      'int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {',
    );
    const large = renderInterpose(ALL, 'large_count') + renderInterpose(REDUCTIONS, 'large_count');
    expect(large).toContain('int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {');
    expect(large).toContain('  if (bypass() || !fitsInt(count)) return TOPOCOLL_PASS(MPI_Reduce_c)(sendbuf, recvbuf, count, datatype, op, root, comm);');
    expect(large).toContain(
      '  if (bypass() || !countsFitInt(recvcounts, comm)) return TOPOCOLL_PASS(MPI_Ireduce_scatter_c)(sendbuf, recvbuf, recvcounts, datatype, op, comm, request);',
    );
    // A send count is not checked in place (MPI ignores it there).
    expect(large).toContain('if (bypass() || (sendbuf != MPI_IN_PLACE && !fitsInt(sendcount)) || !fitsInt(recvcount))');
    // No large-count barrier: it has no count.
    expect(large).not.toContain('MPI_Barrier_c');
    const fortran = renderFortran(REDUCTIONS);
    expect(fortran).toContain(
      '  *ierr = MPI_Allreduce(sendBuffer(sendbuf), dataBuffer(recvbuf), *count, PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm));',
    );
    expect(fortran).toContain('  *ierr = MPI_Ireduce_scatter(sendBuffer(sendbuf), dataBuffer(recvbuf), recvcounts, PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm), &r);');
    expect(fortran).toContain('TOPOCOLL_FORTRAN(reduce, REDUCE, (const void*, void*, F*, F*, F*, F*, F*, F*));');
    expect(fortran).toContain('TOPOCOLL_FORTRAN(ireduce, IREDUCE, (const void*, void*, F*, F*, F*, F*, F*, F*, F*));');
  });

  it("renders the addon's calls, the registry header and the schemas' enums with the reductions", () => {
    expect(renderAddonCalls(REDUCTIONS)).toContain(
      'case generated::Collective::ReduceScatter: return engine::reduceScatter(a.sendbuf, a.recvbuf, a.counts, a.type, a.op, a.comm, request);',
    );
    const header = renderRegistryHeader({ COLLECTIVES: REDUCTIONS, DEFAULT_RULES: [], PARAMETERS: [], TOOL_VARIABLES: [] });
    // A collective without algorithms has no per-algorithm arrays (C++ has none empty): null.
    expect(header).not.toContain('kAllreduceAlgorithms');
    expect(header).toContain('{"reduce", "TOPOCOLL_REDUCE_ALGORITHM", nullptr, 0, nullptr, nullptr, Shape::Vector, true, true, Blocks::One, Blocks::One},');
    const schema = readFileSync(path.join(repoRoot, 'schemas/rules.schema.json'), 'utf8');
    expect(renderSchemaEnums(schema, ALL)).toContain(`"collective": { "enum": [${ALL.map((c) => `"${c.name}"`).join(', ')}] }`);
    expect(ALL.map((c) => c.name)).toEqual(expect.arrayContaining(['allgather', 'bcast', 'barrier', 'alltoall', 'allreduce', 'reduce', 'reduce_scatter_block', 'reduce_scatter']));
  });

  describe('the rendered code compiles against each built MPI', () => {
    const work = mkdtempSync(path.join(tmpdir(), 'topocoll-descriptors-'));
    afterAll(() => rmSync(work, { recursive: true, force: true }));
    const mpis: Array<{ flavour: string; title: string; includeDirs: string[] }> = builtMpis();

    it('is built for at least one MPI (npm run build:native)', () => {
      expect(mpis.length).toBeGreaterThan(0);
    });

    for (const mpi of mpis) {
      it(`${mpi.title}: every form of the registry's collectives and of the reductions`, () => {
        const dir = path.join(work, mpi.flavour);
        const gen = path.join(dir, 'generated');
        mkdirSync(gen, { recursive: true });
        const files: Record<string, string> = {
          'registry.h': renderRegistryHeader({ COLLECTIVES: ALL, DEFAULT_RULES: [], PARAMETERS: [], TOOL_VARIABLES: [] }),
          'entry_points.h': renderEngineDeclarations(ALL),
          'entry_points.inc': renderEngineEntryPoints(ALL),
          'blocking.inc': renderInterpose(ALL, 'blocking'),
          'nonblocking.inc': renderInterpose(ALL, 'nonblocking'),
          'large_count.inc': renderInterpose(ALL, 'large_count'),
          'fortran.inc': renderFortran(ALL),
          'collective_calls.h': renderAddonCalls(ALL),
          // collective_calls.h's includes: the real argument struct, and the engine (the stand-ins below).
          'engine.h': '#pragma once\n',
        };
        for (const [name, text] of Object.entries(files)) writeFileSync(path.join(gen, name), text);
        writeFileSync(path.join(dir, 'collective_args.h'), readFileSync(path.join(repoRoot, 'native/addon/collective_args.h')));
        writeFileSync(path.join(dir, 'all.cc'), STAND_INS);
        const r = spawnSync(
          'c++',
          ['-std=c++17', '-fsyntax-only', '-Wall', '-Wextra', '-Werror', '-Wno-unused-parameter', '-Wno-unused-function', '-DOMPI_SKIP_MPICXX=1', '-DMPICH_SKIP_MPICXX=1',
            ...mpi.includeDirs.map((d) => `-I${d}`), `-I${gen}`, 'all.cc'],
          { cwd: dir, encoding: 'utf8' },
        );
        expect(r.error).toBeUndefined();
        expect(r.stderr).toBe('');
        expect(r.status).toBe(0);
      }, 60_000);
    }
  });
});

// The hand-written pieces the generated code calls, with the signatures of their real forms
// (engine.h/.cc, interpose.h, large_count.cc, fortran.cc); CountList and intCounts as the engine
// is to define them for reduce_scatter. The extern "C" MPI_* definitions must match mpi.h's.
const STAND_INS = String.raw`
#include <mpi.h>

#include <climits>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace topocoll {
inline bool fitsInt(int64_t n) { return n >= 0 && n <= INT_MAX; }
struct CollectiveRequest {};
namespace engine {
class RequestOut {
 public:
  RequestOut(std::nullptr_t = nullptr) {}
  RequestOut(std::unique_ptr<CollectiveRequest>*) {}
};
struct CountList {
  CountList(const int* counts) : ints_(counts) {}
  CountList(const MPI_Count* counts) : counts_(counts) {}
  const int* ints() const { return ints_; }
  const MPI_Count* counts() const { return counts_; }
  const int* ints_ = nullptr;
  const MPI_Count* counts_ = nullptr;
};
inline const int* intCounts(CountList counts) { return counts.ints(); }
}  // namespace engine
}  // namespace topocoll

#include "registry.h"

namespace topocoll {
using generated::Collective;
}

#include "entry_points.h"

namespace topocoll::engine {
namespace {
template <typename... Words>
bool repeatsNative(Collective, RequestOut, Words...) { return false; }
template <typename Run, typename... Words>
int runRemembered(Collective, RequestOut, Run run, Words...) {
  bool ran_native = false;
  return run(&ran_native);
}
template <typename Native, typename... Args>
int runThroughEngine(Collective, RequestOut, Native& native, bool*, Args...) { return native(nullptr); }
int handedToMpi(int rc) { return rc; }
template <typename Handle>
uintptr_t handleBits(Handle h) {
  if constexpr (std::is_pointer_v<Handle>) return reinterpret_cast<uintptr_t>(h);
  else return static_cast<uintptr_t>(h);
}
}  // namespace
}  // namespace topocoll::engine

#include "entry_points.inc"

namespace topocoll::interpose {
inline bool bypass() { return false; }
template <typename Start>
int runBlocking(MPI_Comm, Start start) { return start(nullptr); }
template <typename Start>
int runNonblocking(MPI_Comm, MPI_Request*, Start start) { return start(nullptr); }
}  // namespace topocoll::interpose
#define TOPOCOLL_PASS(fn) (&P##fn)

using namespace topocoll;
using interpose::bypass;
using interpose::runBlocking;
using interpose::runNonblocking;

static bool countsFitInt(const MPI_Count*, MPI_Comm) { return true; }

extern "C" {
#include "blocking.inc"
#include "nonblocking.inc"
#if MPI_VERSION >= 4
#include "large_count.inc"
#endif
}

using F = MPI_Fint;
static const void* sendBuffer(const void* buf) { return buf; }
static void* dataBuffer(void* buf) { return buf; }
#define TOPOCOLL_FORTRAN(lower, UPPER, params) void mpi_##lower##_ params __attribute__((alias("topocoll_f_" #lower)))
extern "C" {
#include "fortran.inc"
}

#include "collective_calls.h"
`;
