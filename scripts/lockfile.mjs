#!/usr/bin/env node
// What `npm ci` needs of package-lock.json, checked offline (no registry):
//   lockProblems(root)        why `npm ci` would refuse the lock: a dependency range of package.json
//                             that the lock's root entry does not record, or a package the lock
//                             needs and has no entry for (npm 11 wants every optional platform
//                             package, e.g. rolldown's @rolldown/binding-*, even those this machine
//                             never installs: "Missing: ... from lock file").
//   installedMatchesLock(root) node_modules holds the tree the lock describes (npm's own record of
//                             it, node_modules/.package-lock.json, has the lock's entries), so
//                             `npm ci` would only reinstall the same files.
// Used by scripts/setup.sh and test/unit/lockfile.test.ts. From the shell:
//   node scripts/lockfile.mjs check       prints the problems; exit status 1 when there are any
//   node scripts/lockfile.mjs installed   exit status 0 when node_modules matches the lock
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

function sameJson(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

/** The lock entry a package at `from` ("" for the root) gets `name` from, by Node's lookup upwards. */
export function resolveInLock(packages, from, name) {
  let dir = from;
  for (;;) {
    const key = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (packages[key]) return key;
    if (!dir) return null;
    const i = dir.lastIndexOf('/node_modules/');
    dir = i < 0 ? '' : dir.slice(0, i);
  }
}

/** The root entry's dependency ranges differ from package.json's: `npm ci` refuses such a lock. */
export function rootProblems(pkg, lock) {
  const rootEntry = lock.packages?.[''];
  if (!rootEntry) return ['package-lock.json has no root entry (packages[""]): not a lockfileVersion 2/3 lock'];
  const problems = [];
  for (const field of DEPENDENCY_FIELDS) {
    const want = pkg[field] ?? {};
    const have = rootEntry[field] ?? {};
    for (const name of new Set([...Object.keys(want), ...Object.keys(have)])) {
      if (want[name] !== have[name]) {
        problems.push(`${field}.${name}: package.json has ${want[name] ?? '(none)'}, package-lock.json has ${have[name] ?? '(none)'}`);
      }
    }
  }
  return problems;
}

/** Every package an entry of the lock depends on (optional and platform packages included) has an entry. */
export function missingEntries(lock) {
  const packages = lock.packages ?? {};
  const problems = [];
  for (const [key, entry] of Object.entries(packages)) {
    if (entry.link) continue;
    const optionalPeers = entry.peerDependenciesMeta ?? {};
    for (const field of DEPENDENCY_FIELDS) {
      for (const name of Object.keys(entry[field] ?? {})) {
        if (field === 'peerDependencies' && optionalPeers[name]?.optional) continue;
        if (!resolveInLock(packages, key, name)) problems.push(`${key || '(root)'} ${field}: ${name} has no entry in package-lock.json`);
      }
    }
  }
  return problems;
}

export function lockProblems(root) {
  const lockFile = path.join(root, 'package-lock.json');
  if (!existsSync(lockFile)) return ['no package-lock.json'];
  const lock = readJson(lockFile);
  return [...rootProblems(readJson(path.join(root, 'package.json')), lock), ...missingEntries(lock)];
}

/**
 * node_modules was installed from this lock: every entry of npm's record node_modules/.package-lock.json
 * is the lock's entry, and every entry of the lock it lacks is optional (another platform's binary).
 */
export function installedMatchesLock(root) {
  const hiddenFile = path.join(root, 'node_modules/.package-lock.json');
  const lockFile = path.join(root, 'package-lock.json');
  if (!existsSync(hiddenFile) || !existsSync(lockFile)) return false;
  const lock = readJson(lockFile);
  if (rootProblems(readJson(path.join(root, 'package.json')), lock).length) return false;
  const installed = readJson(hiddenFile).packages ?? {};
  for (const [key, entry] of Object.entries(installed)) {
    if (!sameJson(entry, lock.packages[key])) return false;
  }
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key && !installed[key] && !entry.optional) return false;
  }
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const command = process.argv[2];
  if (command === 'installed') {
    process.exit(installedMatchesLock(root) ? 0 : 1);
  } else if (command === 'check') {
    const problems = lockProblems(root);
    for (const p of problems) console.error(`package-lock.json: ${p}`);
    if (!problems.length) console.log('package-lock.json: consistent with package.json, every needed entry present');
    process.exit(problems.length ? 1 : 0);
  } else {
    console.error('usage: node scripts/lockfile.mjs check|installed');
    process.exit(2);
  }
}
