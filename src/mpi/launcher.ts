// scripts/launcher.mjs seen from TypeScript: the one implementation of launching MPI jobs, used
// by `topocoll mpirun` and by the bench's self-launch. Here, below the CLI, so that the bench
// reaches it without importing a command.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot, type Flavour } from './native';

export type Launcher = 'mpirun' | 'mpiexec' | 'srun';

export interface Setting {
  what: string;
  why: string;
}

export interface MpirunPlan {
  flavour: Flavour;
  launcher: Launcher;
  command: string;
  args: string[];
  /** Added to the launcher's own environment (never LD_PRELOAD: the launcher must not load us). */
  env: Record<string, string>;
  /** Each setting added, with why: printed by --dry-run and under TOPOCOLL_VERBOSE. */
  settings: Setting[];
}

export interface LauncherModule {
  LAUNCHERS: Launcher[];
  detectLauncher(env: NodeJS.ProcessEnv): { launcher: Launcher; why: string | null };
  planLaunch(opts: {
    /** Default: TOPOCOLL_MPI, else Open MPI. */
    flavour?: Flavour;
    launcher: Launcher;
    args: string[];
    program: string[];
    forward: string[];
    preload?: string;
    testMachine: boolean;
    /** The job times collectives against the MPI's own (bench, tune): no forced yield unless oversubscribed. */
    measuring?: boolean;
    env: NodeJS.ProcessEnv;
  }): Omit<MpirunPlan, 'flavour' | 'launcher'> & { flavour: Flavour; launcher: Launcher };
  describeSettings(settings: Setting[], prefix: string): string[];
  runLauncher(command: string, args: string[], env: Record<string, string>, opts: { name: string }): Promise<number>;
}

/** scripts/launcher.mjs, the one implementation of launching (ESM: tsc's CommonJS cannot `import()` it, so go around). */
export async function launcherModule(): Promise<LauncherModule> {
  const dynamicImport = new Function('url', 'return import(url)') as (url: string) => Promise<LauncherModule>;
  return dynamicImport(pathToFileURL(path.join(packageRoot, 'scripts', 'launcher.mjs')).href);
}
