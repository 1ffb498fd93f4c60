// Runs a command without blocking the test worker's event loop: vitest's worker must answer its
// runner within 60 s, which a long spawnSync (a build under load) does not.
import { spawn, type SpawnOptions } from 'node:child_process';

export interface SpawnResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function spawnAsync(cmd: string, args: string[], opts: SpawnOptions = {}): Promise<SpawnResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
