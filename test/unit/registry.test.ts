import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as registry from '../../src/select/registry';
import * as comm from '../../src/mpi/comm';
import * as status from '../../src/mpi/status';
import { repoRoot } from '../helpers/mpirun';
// @ts-expect-error plain ESM script
import { generatedFiles, HEADER_PATH, renderRegistryHeader, renderSentinelsHeader, SENTINELS_PATH } from '../../scripts/gen-native-registry.mjs';
// @ts-expect-error plain ESM script
import { README_PATH, renderReadme } from '../../scripts/gen-readme.mjs';

describe('registry', () => {
  it('the generated native header matches src/select/registry.ts (run `npm run gen`)', () => {
    expect(readFileSync(HEADER_PATH, 'utf8')).toBe(renderRegistryHeader(registry));
  });

  it("the addon's generated sentinels header matches src/mpi/comm.ts and src/mpi/status.ts (run `npm run gen`)", () => {
    expect(readFileSync(SENTINELS_PATH, 'utf8')).toBe(renderSentinelsHeader(comm, status));
  });

  it('every per-collective seam generated from the descriptors matches the registry (run `npm run gen`)', () => {
    const files: Array<[string, string]> = generatedFiles(registry, comm, status);
    // The engine, the four preload files, the addon and both schemas, besides the two headers above.
    expect(files.length).toBeGreaterThanOrEqual(11);
    for (const [file, text] of files) expect(readFileSync(file, 'utf8'), path.relative(repoRoot, file)).toBe(text);
  });

  it('the schemas list exactly the registry\'s collectives', () => {
    const names = registry.COLLECTIVES.map((c) => c.name);
    for (const schema of ['schemas/rules.schema.json', 'schemas/bench.schema.json']) {
      const text = readFileSync(path.join(repoRoot, schema), 'utf8');
      const enums = [...text.matchAll(/"collective": \{ "enum": (\[[^\]]*\])/g)].map((m) => JSON.parse(m[1]));
      expect(enums.length, schema).toBeGreaterThan(0);
      for (const e of enums) expect(e, schema).toEqual(names);
    }
  });

  it('the TypeScript reads shapes, not collective names: no per-collective size formula is left', () => {
    // The block-or-whole formula lives in totalBytes() and the engine's dispatch (by shape); a
    // copy by name would miss a collective the registry gains.
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, e.name);
        if (e.isDirectory()) walk(file);
        else if (/\.ts$/.test(e.name) && /'allgather' \|\||[!=]== '(bcast|barrier)'|Allgather \|\||Collective::Alltoall/.test(readFileSync(file, 'utf8'))) offenders.push(file);
      }
    };
    walk(path.join(repoRoot, 'src'));
    expect(offenders).toEqual([]);
  });

  it("the README's tables of algorithms, rules and variables match the registry (run `npm run gen`)", () => {
    const readme = readFileSync(README_PATH, 'utf8');
    expect(readme).toContain('<!-- gen:algorithms -->');
    expect(readme).toBe(renderReadme(readme, registry));
  });

  it('every default rule names a registered algorithm, and every collective ends with a catch-all rule', () => {
    for (const c of registry.COLLECTIVES) {
      const rules = registry.DEFAULT_RULES.filter((r) => r.collective === c.name);
      for (const r of rules) expect([registry.NATIVE, ...registry.algorithmNames(c.name)]).toContain(r.algorithm);
      const last = rules[rules.length - 1];
      expect(last.minBytes ?? last.maxBytes ?? last.minRanks ?? last.maxRanks ?? last.powerOfTwo).toBeUndefined();
    }
  });
});
