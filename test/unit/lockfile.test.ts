// package-lock.json stays one that `npm ci` accepts on a clean clone (scripts/setup.sh and CI use
// `npm ci`): it records package.json's dependency ranges, and it has an entry for every package
// any entry needs, the optional platform packages of native tools such as rolldown included (a lock
// without rollup's @rollup/rollup-* entries once made `npm ci` fail under npm 11). Offline: reads
// package.json, package-lock.json and node_modules only.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/mpirun';
// @ts-expect-error plain ESM helper shared with scripts/setup.sh
import { lockProblems, missingEntries, resolveInLock } from '../../scripts/lockfile.mjs';

interface LockEntry {
  version?: string;
  optional?: boolean;
  link?: boolean;
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}

const readJson = (file: string): Record<string, unknown> => JSON.parse(readFileSync(path.join(repoRoot, file), 'utf8'));
const lockPackages = readJson('package-lock.json').packages as Record<string, LockEntry>;

describe('package-lock.json', () => {
  it('records every dependency range of package.json and has an entry for every package it needs', () => {
    expect(lockProblems(repoRoot)).toEqual([]);
  });

  it("has the optional platform packages that each installed package's own package.json declares", () => {
    // The packages of node_modules with optionalDependencies (rolldown's @rolldown/binding-*,
    // lightningcss-*, ...): the lock's entry lists the same ones, and each has an entry.
    const checked: string[] = [];
    for (const [key, entry] of Object.entries(lockPackages)) {
      const manifest = path.join(repoRoot, key, 'package.json');
      if (!key || entry.link || !existsSync(manifest)) continue;
      const declared = (JSON.parse(readFileSync(manifest, 'utf8')).optionalDependencies ?? {}) as Record<string, string>;
      if (!Object.keys(declared).length) continue;
      checked.push(key);
      expect(entry.optionalDependencies ?? {}, key).toEqual(declared);
      for (const name of Object.keys(declared)) expect(resolveInLock(lockPackages, key, name), `${key} -> ${name}`).not.toBeNull();
    }
    // Not vacuous: the bundler under vitest ships its native code as optional platform packages.
    expect(checked.some((k) => /node_modules\/(rolldown|rollup|esbuild)$/.test(k)), checked.join(', ')).toBe(true);
  });

  it('an entry-less optional platform package is reported (the lock that broke `npm ci`)', () => {
    const packages: Record<string, LockEntry> = {
      '': { devDependencies: { tool: '^1.0.0' } },
      'node_modules/tool': { version: '1.0.0', optionalDependencies: { 'tool-linux-x64': '1.0.0', 'tool-darwin-arm64': '1.0.0' } },
      'node_modules/tool-linux-x64': { version: '1.0.0', optional: true },
    };
    expect(missingEntries({ packages })).toEqual(['node_modules/tool optionalDependencies: tool-darwin-arm64 has no entry in package-lock.json']);
  });
});
