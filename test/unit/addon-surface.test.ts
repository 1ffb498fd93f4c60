// The addon's declaration (NativeAddon, src/mpi/addon.ts) and the built addon name the same
// exports, both ways: an export without a declaration, or a declaration the addon no longer
// exports, fails here. Read with the TypeScript compiler API; each built flavour's addon is loaded
// in a child process of its own (the two MPIs do not share one).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/mpirun';

type Kind = 'function' | 'value';

/** NativeAddon's members: 'function' when callable or constructible, else 'value'. */
function declaredSurface(): Record<string, Kind> {
  const file = path.join(repoRoot, 'src/mpi/addon.ts');
  const program = ts.createProgram([file], { strict: true, noEmit: true, types: ['node'], target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const declaration = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'NativeAddon');
  if (!declaration) throw new Error('src/mpi/addon.ts declares no interface NativeAddon');
  const surface: Record<string, Kind> = {};
  for (const member of checker.getTypeAtLocation(declaration).getProperties()) {
    const type = checker.getTypeOfSymbol(member);
    surface[member.name] = type.getCallSignatures().length + type.getConstructSignatures().length > 0 ? 'function' : 'value';
  }
  return surface;
}

/** The exports of a built addon, loaded in a child process. */
function builtSurface(addonPath: string): Record<string, Kind> {
  const script = `const m = require(${JSON.stringify(addonPath)});
process.stdout.write(JSON.stringify(Object.fromEntries(Object.keys(m).map((k) => [k, typeof m[k] === 'function' ? 'function' : 'value']))));`;
  // UCX_MEM_MMAP_HOOK_MODE=none as src/mpi/native.ts sets it: UCX (under MPICH) patching libc's
  // mmap while V8's threads run crashed this child now and then (SIGSEGV inside node).
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, UCX_MEM_MMAP_HOOK_MODE: 'none' } });
  if (r.status !== 0) throw new Error(`loading ${addonPath}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const built = ['openmpi', 'mpich']
  .map((flavour) => ({ flavour, file: path.join(repoRoot, 'lib/native', flavour, 'topocoll_native.node') }))
  .filter((b) => existsSync(b.file));

describe('the native addon surface', () => {
  const declared = declaredSurface();

  it('declares the exports the C++ glue sets (native/addon/*.cc)', () => {
    expect(built.length, 'no addon built under lib/native/<flavour>/ (npm run build:native)').toBeGreaterThan(0);
    expect(Object.keys(declared).length).toBeGreaterThan(50);
  });

  for (const { flavour, file } of built) {
    it(`${flavour}: every export is declared in NativeAddon, and every declaration exported`, () => {
      const actual = builtSurface(file);
      const mismatches = {
        /** Exported by the addon, not declared in NativeAddon (src/mpi/addon.ts). */
        undeclared: Object.keys(actual).filter((k) => !(k in declared)).sort(),
        /** Declared in NativeAddon, not exported by the addon. */
        stale: Object.keys(declared).filter((k) => !(k in actual)).sort(),
        /** A function declared as a value, or the other way round. */
        wrongKind: Object.keys(actual)
          .filter((k) => k in declared && actual[k] !== declared[k])
          .map((k) => `${k}: exported a ${actual[k]}, declared a ${declared[k]}`),
      };
      expect(mismatches).toEqual({ undeclared: [], stale: [], wrongKind: [] });
    }, 60_000);
  }
});
