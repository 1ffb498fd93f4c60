// A resolved topology as lines of text (its levels, the tree of modules with their ranks, and
// seed 004's z(p, q)): what `topocoll info` prints for the job (src/cli/topology-info.ts).
import { exchangeSuffix, formatBandwidth, formatSeconds, formatTree, meetMatrix, type ResolvedTopology } from './resolve';

/** Above this many ranks z(p, q) is summarized (pairs per level) instead of printed whole. */
const Z_MATRIX_MAX_RANKS = 32;

/**
 * The lines `topocoll info` prints for a resolved topology: the file and its levels, the tree
 * (one line per module, its ranks), and z(p, q) as a matrix of level indices (for at most
 * `maxMatrixRanks` ranks) and always as the number of rank pairs meeting at each level.
 */
export function describeTopology(resolved: ResolvedTopology, maxMatrixRanks = Z_MATRIX_MAX_RANKS): string[] {
  const t = resolved.topology;
  const out: string[] = [];
  out.push(`${t.source}${t.name ? `: "${t.name}"` : ''}${t.description ? ` (${t.description})` : ''}`);
  out.push('levels, widest first:');
  const nameWidth = Math.max(...t.levels.map((l) => l.name.length));
  t.levels.forEach((l, i) => {
    const modules = resolved.levels[i].labels.length;
    out.push(`  ${i}  ${l.name.padEnd(nameWidth)}  ${l.scope.padEnd(12)}  latency ${formatSeconds(l.latency).padEnd(9)}  bandwidth ${formatBandwidth(l.bandwidth).padEnd(11)}${exchangeSuffix(l)}  ${modules} module${modules === 1 ? '' : 's'}`);
  });
  out.push(`tree (${resolved.size} rank${resolved.size === 1 ? '' : 's'}):`);
  out.push(...formatTree(resolved).map((l) => `  ${l}`));

  const z = meetMatrix(resolved);
  const pairs = new Array<number>(t.levels.length).fill(0);
  for (let p = 0; p < resolved.size; p++) for (let q = p + 1; q < resolved.size; q++) pairs[z[p][q]]++;
  const legend = t.levels.map((l, i) => `${i} = ${l.name}`).join(', ');
  out.push(`z(p, q), the level where ranks p and q meet (${legend}):`);
  if (resolved.size <= maxMatrixRanks) {
    const w = Math.max(String(resolved.size - 1).length, String(t.levels.length - 1).length);
    const label = Math.max(3, w);
    out.push(`  ${'p\\q'.padStart(label)} ${z.map((_, q) => String(q).padStart(w)).join(' ')}`);
    z.forEach((row, p) => out.push(`  ${String(p).padStart(label)} ${row.map((v) => String(v).padStart(w)).join(' ')}`));
  } else {
    out.push(`  (${resolved.size} ranks: matrix omitted above ${maxMatrixRanks}; \`topocoll topology FILE --hosts ... --json\` prints it)`);
  }
  out.push(`  rank pairs per level: ${t.levels.map((l, i) => `${l.name} ${pairs[i]}`).join(', ')}`);
  return out;
}
