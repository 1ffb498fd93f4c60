// Where a benchmark ran: the machine, the MPI library and the job's shape, recorded with every
// result so that numbers are never compared across machines by accident.
import os from 'node:os';
import { readFileSync } from 'node:fs';
import type { MpiFlavour } from '../select/registry';

export interface MachineInfo {
  hostname: string;
  cpuModel: string;
  cpus: number;
  memoryBytes: number;
  os: string;
  node: string;
  /** 1-minute load average when the sweep ended: a loaded machine's numbers are noisier. */
  loadAverage: number;
}

export interface MpiInfo {
  flavour: MpiFlavour;
  library: string;
}

export interface JobShape {
  ranks: number;
  nodes: number;
  ranksPerNode: number[];
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  let model = cpus[0]?.model ?? 'unknown';
  if (!model || model === 'unknown') {
    try {
      model = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
    } catch {
      /* keep unknown */
    }
  }
  return {
    hostname: os.hostname(),
    cpuModel: model.trim(),
    cpus: cpus.length,
    memoryBytes: os.totalmem(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    loadAverage: Number(os.loadavg()[0].toFixed(2)),
  };
}

/** The shape of a job from every rank's node (a name or number), in rank order. */
export function jobShape(nodes: readonly string[]): JobShape {
  const perNode = new Map<string, number>();
  for (const n of nodes) perNode.set(n, (perNode.get(n) ?? 0) + 1);
  return { ranks: nodes.length, nodes: perNode.size, ranksPerNode: [...perNode.values()] };
}

/** The last-level cache of this machine in bytes (0 if unknown; TOPOCOLL_SYSFS_ROOT as the engine reads it). */
export function lastLevelCacheBytes(): number {
  const sysfs = process.env.TOPOCOLL_SYSFS_ROOT || '/sys';
  for (const index of [3, 2]) {
    try {
      const text = readFileSync(`${sysfs}/devices/system/cpu/cpu0/cache/index${index}/size`, 'utf8').trim();
      const m = /^(\d+)([KMG]?)$/.exec(text);
      if (m) return Number(m[1]) * 1024 ** ' KMG'.indexOf(m[2] || ' ');
    } catch {
      /* try the next level */
    }
  }
  return 0;
}

/**
 * The warning `bench` and `tune` print when they start on a machine busier than its cores (the
 * 1-minute load average above os.availableParallelism()); null when it is not.
 */
export function loadWarning(command: string, load = os.loadavg()[0], cores = os.availableParallelism()): string | null {
  if (!(load > cores)) return null;
  const consequence = command === 'tune' ? 'differences within the noise keep the defaults' : 'differences within the spread are marked as ties';
  return `topocoll ${command}: warning: the 1-minute load average (${load.toFixed(2)}) exceeds the ${cores} core${cores === 1 ? '' : 's'}: other work competes for the CPUs, the numbers will be noisy (${consequence})`;
}

/** The load warning on stderr, when the machine is busier than its cores. */
export function warnIfLoaded(command: string): void {
  const warning = loadWarning(command);
  if (warning) console.error(warning);
}
