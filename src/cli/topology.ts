// `topocoll topology FILE`: validates a topology file (YAML or JSON) and prints it; `--json`
// prints the normalized JSON the native engine reads (the preload library reads JSON only);
// `--hosts` resolves it for a job and prints the tree and z(p, q).
import { loadTopology, resolveTopology } from '../mpi/files';
import { exchangeSuffix, formatBandwidth, formatSeconds, formatTree, meetMatrix, normalizeTopology, TopologyError } from '../topology';
import type { Command } from './main';
import { parseOptions, UsageError } from '../config/args';

/** "a,a,b" or "a:2,b:1" (a hostfile's slots): the host of each rank. */
export function parseHostList(text: string): string[] {
  const hosts: string[] = [];
  for (const item of text.split(',')) {
    const m = /^([^\s:,]+)(?::(\d+))?$/.exec(item);
    if (!m || (m[2] !== undefined && Number(m[2]) < 1)) {
      throw new UsageError(`--hosts: "${item}" is not valid; give the host of each rank (a,a,b,b) or hosts with rank counts (a:2,b:2)`);
    }
    for (let i = 0; i < Number(m[2] ?? 1); i++) hosts.push(m[1]);
  }
  return hosts;
}

export const topology: Command = {
  summary: 'validate a topology file (TOPOCOLL_TOPOLOGY) and print it, normalized as JSON, or resolved for a job',
  usage: 'topocoll topology FILE [--json] [--hosts HOST[:RANKS],...]',
  async run(args) {
    const { options, rest } = parseOptions(args, { json: { type: 'flag' }, hosts: { type: 'string' } }, { positionals: 1 });
    if (rest.length !== 1) throw new UsageError(`give exactly one topology file\nusage: ${this.usage}`);
    const hosts = options.hosts === undefined ? undefined : parseHostList(String(options.hosts));
    try {
      const t = loadTopology(rest[0]);
      const resolved = hosts ? resolveTopology(t, hosts) : undefined;
      if (options.json) {
        const out: Record<string, unknown> = normalizeTopology(t);
        if (resolved) {
          out.resolved = {
            hosts: resolved.hosts,
            levels: resolved.levels.map((l) => ({ name: l.level.name, modules: l.labels, moduleOf: [...l.moduleOf] })),
            z: meetMatrix(resolved),
          };
        }
        // Lists of numbers on one line: z matrices stay readable.
        console.log(JSON.stringify(out, null, 2).replace(/\[[\d,\s]*\]/g, (list) => list.replace(/\s+/g, '')));
        return 0;
      }
      console.log(`${t.source}: valid topology${t.name ? ` "${t.name}"` : ''}, ${t.levels.length} level${t.levels.length > 1 ? 's' : ''} (widest first)`);
      t.levels.forEach((l, i) => console.log(`  ${i}  ${l.name.padEnd(12)} scope ${l.scope.padEnd(12)} latency ${formatSeconds(l.latency).padEnd(9)} bandwidth ${formatBandwidth(l.bandwidth)}${exchangeSuffix(l)}`));
      if (t.reduceBandwidth !== undefined) console.log(`  reduce ops combine ${formatBandwidth(t.reduceBandwidth)} per rank (the model's γ = 1 / reduce_bandwidth)`);
      if (resolved) {
        console.log(`\nresolved for ${resolved.size} ranks:`);
        for (const line of formatTree(resolved)) console.log(`  ${line}`);
        console.log('\nz(p, q) (level index, 0 = widest):');
        for (const row of meetMatrix(resolved)) console.log(`  ${row.join(' ')}`);
      }
      return 0;
    } catch (err) {
      if (!(err instanceof TopologyError)) throw err;
      console.error(`topocoll topology: ${err.message}`);
      return 1;
    }
  },
};
