// `topocoll --version` (and `topocoll CMD --version`): the package's name and version, and the
// MPIs it is built for, from the build manifests (scripts/mpi.mjs's builtMpis). Loads no MPI.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../mpi/native';

interface Manifest {
  flavour: string;
  title: string;
  launcher?: string | null;
}

export async function versionText(): Promise<string> {
  const pkg = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { name: string; version: string };
  const lines = [`${pkg.name} ${pkg.version}`];
  let built: Manifest[];
  try {
    // ESM: tsc's CommonJS cannot `import()` it, so go around (as mpirun.ts does for launcher.mjs).
    const dynamicImport = new Function('url', 'return import(url)') as (url: string) => Promise<{ builtMpis(root: string): Manifest[] }>;
    const mpi = await dynamicImport(pathToFileURL(path.join(packageRoot, 'scripts', 'mpi.mjs')).href);
    built = mpi.builtMpis(path.join(packageRoot, 'lib', 'native'));
  } catch (e) {
    lines.push(`built for: unknown (${(e as Error).message})`);
    return lines.join('\n');
  }
  if (built.length === 0) lines.push('built for no MPI yet: run `npm run build:native`');
  else {
    lines.push('built for:');
    const width = Math.max(...built.map((m) => m.flavour.length));
    for (const m of built) lines.push(`  ${m.flavour.padEnd(width)}  ${m.title}${m.launcher ? `, launcher ${m.launcher}` : ''}`);
  }
  return lines.join('\n');
}
