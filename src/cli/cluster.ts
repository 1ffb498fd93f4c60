// `topocoll cluster up|down|status|run`: an emulated multi-node cluster on this machine, for
// tests and benchmarks of topology-aware collectives (seed 004). Each host is a network
// namespace with its own hostname, /etc/hosts and address in a private /24 that exists only
// inside the cluster; a bridge in a namespace of its own joins them through veth links that
// tc shapes in both directions. Jobs run with Open MPI: mpirun starts inside the first host and
// reaches the others through an rsh agent that enters their namespaces, so ranks on one
// emulated host use shared memory and ranks on different hosts TCP over the shaped links.
// The work is done by scripts/cluster/*.sh (root); docs/cluster.md explains what is measured.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { launcherFor } from '../mpi/native';
import type { Command } from './main';
import { suggestion } from '../config/closest';
import { HelpRequest, parseOptions, UsageError } from '../config/args';
import { MPI_FLAVOURS } from '../select/registry';

const SCRIPTS = path.resolve(__dirname, '..', '..', 'scripts', 'cluster');
const STATE_ROOT = '/run/topocoll-cluster';

const DEFAULT_CLUSTER = 'cluster';
export type MapBy = 'slot' | 'node';
export type ClusterMpi = 'openmpi' | 'mpich';

export interface ClusterOptions {
  /** Lowercase letters and digits, at most 8: namespaces are NAME-h0.., NAME-sw. */
  name?: string;
  /** Number of emulated hosts (default 4). */
  hosts?: number;
  /** tc rate of every host link, each direction (default 1gbit). */
  rate?: string;
  /** Ranks per host in the hostfile (default 2). */
  slots?: number;
  /** First three octets of the cluster's private /24 (default 10.77.0). */
  subnet?: string;
}

export interface ClusterState {
  name: string;
  hosts: string[];
  rate: string;
  subnet: string;
  slots: number;
  hostfile: string;
}

function checkName(name: string): string {
  if (!/^[a-z0-9]{1,8}$/.test(name)) throw new UsageError(`--name=${name} is not valid: use 1 to 8 lowercase letters and digits`);
  return name;
}

// Not root, or no cluster: the command line is fine but the machine is not (exit 1, not 2).
function requireRoot(): void {
  if (process.getuid?.() !== 0) throw new Error('the emulated cluster needs root (network namespaces, tc)');
}

function script(name: string, args: string[], quiet = false): number {
  const r = spawnSync(path.join(SCRIPTS, name), args, { stdio: ['ignore', quiet ? 'ignore' : 'inherit', 'inherit'] });
  return r.status ?? 1;
}

/** Creates the cluster; throws when it is already up or anything fails (then nothing is left). */
export function clusterUp(opts: ClusterOptions = {}, quiet = false): ClusterState {
  requireRoot();
  const name = checkName(opts.name ?? DEFAULT_CLUSTER);
  const hosts = opts.hosts ?? 4;
  const slots = opts.slots ?? 2;
  const rate = opts.rate ?? '1gbit';
  const subnet = opts.subnet ?? '10.77.0';
  if (!Number.isInteger(hosts) || hosts < 1 || hosts > 250) throw new UsageError(`--hosts=${hosts} must be an integer in [1, 250]`);
  if (!Number.isInteger(slots) || slots < 1) throw new UsageError(`--slots=${slots} must be an integer >= 1`);
  if (!/^\d+(\.\d+)?(bit|kbit|mbit|gbit|tbit|bps|kbps|mbps|gbps)$/i.test(rate)) {
    throw new UsageError(`--rate=${rate} is not a tc rate; examples: 100mbit, 1gbit, 10gbit`);
  }
  const octets = subnet.split('.');
  if (octets.length !== 3 || !octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255) || !isPrivate(octets.map(Number))) {
    throw new UsageError(`--subnet=${subnet} must be the first three octets of a private /24 (10.x.y, 172.16-31.y or 192.168.y), e.g. 10.77.0`);
  }
  if (script('up.sh', [name, String(hosts), rate, subnet, String(slots)], quiet) !== 0) {
    throw new Error(`topocoll cluster: bringing up "${name}" failed (see above); nothing was left behind`);
  }
  return clusterState(name)!;
}

function isPrivate([a, b]: number[]): boolean {
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

/** Removes the cluster and everything it made; fine on a cluster that is half up or gone. */
export function clusterDown(name = DEFAULT_CLUSTER, quiet = false): void {
  requireRoot();
  if (script('down.sh', [checkName(name)], quiet) !== 0) throw new Error(`topocoll cluster: removing "${name}" failed (see above)`);
}

/** The cluster as `up` recorded it, or null when it is not up. */
export function clusterState(name = DEFAULT_CLUSTER): ClusterState | null {
  const dir = path.join(STATE_ROOT, checkName(name));
  const file = path.join(dir, 'cluster.env');
  if (!existsSync(file)) return null;
  const env = Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  const n = Number(env.HOSTS);
  return {
    name,
    hosts: Array.from({ length: n }, (_, i) => `${name}-h${i}`),
    rate: env.RATE,
    subnet: env.SUBNET,
    slots: Number(env.SLOTS),
    hostfile: path.join(dir, 'hostfile'),
  };
}

export interface LinkCounters {
  host: string;
  /** Bytes the host sent into its link (tbf on the host's eth0). */
  sentBytes: number;
  /** Bytes the link delivered to the host (tbf on the switch's port). */
  receivedBytes: number;
}

function tbfSentBytes(ns: string, dev: string): number {
  const r = spawnSync('ip', ['netns', 'exec', ns, 'tc', '-s', 'qdisc', 'show', 'dev', dev], { encoding: 'utf8' });
  const m = /Sent (\d+) bytes/.exec(r.stdout ?? '');
  if (r.status !== 0 || !m) throw new Error(`topocoll cluster: cannot read the tc counters of ${dev} in ${ns}: ${r.stderr}`);
  return Number(m[1]);
}

/** The tc byte counters of every host link: the bytes that crossed between hosts (plus headers). */
export function clusterLinkCounters(state: ClusterState): LinkCounters[] {
  return state.hosts.map((host, i) => ({
    host,
    sentBytes: tbfSentBytes(host, 'eth0'),
    receivedBytes: tbfSentBytes(`${state.name}-sw`, `h${i}`),
  }));
}

export interface ClusterRunOptions {
  np?: number;
  mapBy?: MapBy;
  mpi?: ClusterMpi;
  /** Extra mpirun arguments, before the program. */
  mpirunArgs?: string[];
  /** Stop the job after this many seconds (every process in the cluster's namespaces), exit 124. */
  timeoutSeconds?: number;
}

/**
 * The command that runs `program` across the cluster: [cmd, args, env]. The program starts as
 * given; a .js/.mjs/.cjs file is run with this Node.
 */
export function clusterCommand(state: ClusterState, program: string[], opts: ClusterRunOptions = {}): [string, string[], Record<string, string>] {
  if (program.length === 0) throw new UsageError('give the program to run');
  const np = opts.np ?? state.hosts.length * state.slots;
  const mapBy = opts.mapBy ?? 'slot';
  const prog = /\.(c|m)?js$/.test(program[0]) ? [process.execPath, ...program] : program;
  const agent = path.join(SCRIPTS, 'rsh-agent.sh');
  const subnet = `${state.subnet}.0/24`;
  const first = state.hosts[0];
  const exec = path.join(SCRIPTS, 'host-exec.sh');
  if ((opts.mpi ?? 'openmpi') === 'openmpi') {
    const args = [
      first, launcherFor('openmpi'),
      '--hostfile', state.hostfile, '-np', String(np), '--map-by', mapBy, '--oversubscribe',
      // Every emulated host would bind its ranks to the same cores.
      '--bind-to', 'none',
      '--mca', 'plm_rsh_agent', agent, '--mca', 'plm_rsh_no_tree_spawn', '1',
      '--mca', 'pml', 'ob1', '--mca', 'btl', 'self,vader,tcp',
      '--mca', 'btl_tcp_if_include', subnet, '--mca', 'oob_tcp_if_include', subnet,
      ...(opts.mpirunArgs ?? []),
      ...prog,
    ];
    return [exec, args, {
      OMPI_ALLOW_RUN_AS_ROOT: '1',
      OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1',
      // Each host believes it has every core to itself: ranks must yield or they starve each other.
      OMPI_MCA_mpi_yield_when_idle: '1',
      OMPI_MCA_op: process.env.OMPI_MCA_op ?? '^avx',
    }];
  }
  // MPICH (hydra): same agent as its ssh launcher; fills hosts by slots, or one rank per host in turn.
  const hosts = state.hosts.map((h) => `${h}:${mapBy === 'slot' ? state.slots : 1}`).join(',');
  const args = [
    first, launcherFor('mpich'),
    '-launcher', 'ssh', '-launcher-exec', agent, '-hosts', hosts, '-iface', 'eth0', '-n', String(np),
    ...(opts.mpirunArgs ?? []),
    ...prog,
  ];
  return [exec, args, { UCX_NET_DEVICES: 'eth0', UCX_TLS: 'tcp,self' }];
}

/** The processes running in the cluster's namespaces now: a job's mpirun, daemons and ranks. */
export function clusterPids(state: ClusterState): number[] {
  return [...state.hosts, `${state.name}-sw`].flatMap((ns) => {
    const r = spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' });
    return (r.stdout ?? '').split('\n').filter((l) => /^\d+$/.test(l)).map(Number);
  });
}

/** Kills every process in the cluster's namespaces (a job that overran or hung). */
function clusterKillJobs(state: ClusterState): void {
  for (const pid of clusterPids(state)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

/**
 * Kills every process in the cluster's namespaces, again and again until none is left or
 * `deadlineMs` has passed: a launch in progress forks new processes (an agent entering a host, a
 * daemon starting its rank) between one listing and the next, so one sweep can leave some.
 * Resolves to the processes still there (none, normally).
 */
export async function clusterStopJobs(state: ClusterState, deadlineMs = 30_000): Promise<number[]> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    clusterKillJobs(state);
    // SIGKILLed processes take a moment to leave their namespaces (and to be reaped).
    await new Promise((r) => setTimeout(r, 100));
    const left = clusterPids(state);
    if (left.length === 0 || Date.now() >= until) return left;
  }
}

/**
 * Runs `program` across the cluster; resolves to mpirun's exit status, or 124 when it ran past
 * `timeoutSeconds`: then only once every process in the cluster's namespaces is gone.
 */
export function clusterRun(state: ClusterState, program: string[], opts: ClusterRunOptions = {}): Promise<number> {
  const [cmd, args, env] = clusterCommand(state, [...program], opts);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['inherit', 'inherit', 'pipe'], env: { ...process.env, ...env } });
    let stopped: Promise<number[]> | undefined;
    const timer = opts.timeoutSeconds
      ? setTimeout(() => {
          process.stderr.write(`topocoll cluster: the job ran past --timeout ${opts.timeoutSeconds} s; stopping every process in the cluster's namespaces\n`);
          stopped = clusterStopJobs(state);
        }, opts.timeoutSeconds * 1000)
      : undefined;
    // Open MPI's rsh launcher warns when our agent has exec'd before it could setpgid it: harmless.
    let pending = '';
    child.stderr.on('data', (d: Buffer) => {
      const lines = (pending + d.toString()).split('\n');
      pending = lines.pop()!;
      for (const l of lines) if (!/plm:rsh: Warning: setpgid/.test(l)) process.stderr.write(`${l}\n`);
    });
    child.on('close', async (code, signal) => {
      clearTimeout(timer);
      if (pending && !/plm:rsh: Warning: setpgid/.test(pending)) process.stderr.write(pending);
      if (!stopped) return resolve(code ?? (signal ? 128 : 1));
      // mpirun is gone; what it had started may still be starting: sweep once more after it.
      await stopped;
      const left = await clusterStopJobs(state);
      if (left.length > 0) process.stderr.write(`topocoll cluster: processes ${left.join(', ')} survived SIGKILL in the cluster's namespaces\n`);
      resolve(124);
    });
  });
}

function requireState(name: string): ClusterState {
  const s = clusterState(name);
  if (!s) throw new Error(`cluster "${name}" is not up; start it with \`topocoll cluster up${name === DEFAULT_CLUSTER ? '' : ` --name ${name}`}\``);
  return s;
}

const SUBCOMMANDS = ['up', 'down', 'status', 'run'];

export const cluster: Command = {
  summary: 'an emulated multi-node cluster on this machine (root): network namespaces, shaped links, MPI jobs across them',
  usage: [
    'topocoll cluster up [--name NAME] [--hosts 4] [--slots 2] [--rate 1gbit] [--subnet 10.77.0]',
    '       topocoll cluster down [--name NAME]',
    '       topocoll cluster status [--name NAME] [--json]',
    '       topocoll cluster run [--name NAME] [--np N] [--map-by slot|node] [--mpi openmpi|mpich] [--mpirun-args "ARGS"] [--timeout SECONDS] [--] PROGRAM [ARGS...]',
  ].join('\n'),
  async run(args) {
    const [sub, ...rest] = args;
    if (sub === '--help' || sub === '-h' || sub === '--version') throw new HelpRequest(sub === '--version' ? 'version' : 'help');
    if (!SUBCOMMANDS.includes(sub)) {
      throw new UsageError(sub === undefined ? `a subcommand is needed: ${SUBCOMMANDS.join(', ')}` : `unknown subcommand "${sub}"${suggestion(sub, SUBCOMMANDS, 'subcommands')}`);
    }
    const name = { type: 'string' } as const;
    if (sub === 'up') {
      const { options } = parseOptions(rest, { name, hosts: { type: 'int', min: 1 }, slots: { type: 'int', min: 1 }, rate: { type: 'string' }, subnet: { type: 'string' } });
      clusterUp({ name: options.name as string | undefined, hosts: options.hosts as number | undefined, slots: options.slots as number | undefined, rate: options.rate as string | undefined, subnet: options.subnet as string | undefined });
      return 0;
    }
    if (sub === 'down') {
      const { options } = parseOptions(rest, { name });
      clusterDown((options.name as string | undefined) ?? DEFAULT_CLUSTER);
      return 0;
    }
    if (sub === 'status') {
      const { options } = parseOptions(rest, { name, json: { type: 'flag' } });
      const n = (options.name as string | undefined) ?? DEFAULT_CLUSTER;
      const s = clusterState(n);
      if (!s) {
        // Exit 1 in either form: a script can test `cluster status` as it tests `cluster run`.
        if (options.json) console.log(JSON.stringify({ name: n, up: false }));
        else console.log(`cluster "${n}" is not up`);
        return 1;
      }
      const links = clusterLinkCounters(s);
      if (options.json) {
        console.log(JSON.stringify({ ...s, up: true, links }, null, 2));
        return 0;
      }
      console.log(`cluster "${s.name}": ${s.hosts.length} hosts, ${s.slots} slots each, links ${s.rate} each way, ${s.subnet}.0/24`);
      s.hosts.forEach((h, i) => console.log(`  ${h}  ${s.subnet}.${i + 1}  sent ${links[i].sentBytes} B  received ${links[i].receivedBytes} B`));
      return 0;
    }
    // run: options up to the program (or `--`), the program's own arguments untouched.
    const { options, rest: after } = parseOptions(rest, {
      name,
      np: { type: 'int', min: 1 },
      'map-by': { type: 'string', choices: ['slot', 'node'] },
      mpi: { type: 'string', choices: MPI_FLAVOURS },
      'mpirun-args': { type: 'string' },
      timeout: { type: 'int', min: 1 },
    }, { stopAt: 'positional' });
    const program = after[0] === '--' ? after.slice(1) : after;
    if (program.length === 0) throw new UsageError(`give the program to run\nusage: ${this.usage}`);
    requireRoot();
    const state = requireState((options.name as string | undefined) ?? DEFAULT_CLUSTER);
    const mpirunArgs = options['mpirun-args'] === undefined ? undefined : String(options['mpirun-args']).split(/\s+/).filter(Boolean);
    return clusterRun(state, program, {
      np: options.np as number | undefined,
      mapBy: options['map-by'] as MapBy | undefined,
      mpi: options.mpi as ClusterMpi | undefined,
      mpirunArgs,
      timeoutSeconds: options.timeout as number | undefined,
    });
  },
};
