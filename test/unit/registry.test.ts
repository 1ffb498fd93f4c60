import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as registry from '../../src/select/registry';
import * as comm from '../../src/mpi/comm';
// @ts-expect-error plain ESM script
import { HEADER_PATH, renderRegistryHeader, renderSentinelsHeader, SENTINELS_PATH } from '../../scripts/gen-native-registry.mjs';
// @ts-expect-error plain ESM script
import { README_PATH, renderReadme } from '../../scripts/gen-readme.mjs';

describe('registry', () => {
  it('the generated native header matches src/select/registry.ts (run `npm run gen`)', () => {
    expect(readFileSync(HEADER_PATH, 'utf8')).toBe(renderRegistryHeader(registry));
  });

  it("the addon's generated sentinels header matches src/mpi/comm.ts (run `npm run gen`)", () => {
    expect(readFileSync(SENTINELS_PATH, 'utf8')).toBe(renderSentinelsHeader(comm));
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
