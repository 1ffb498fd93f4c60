// Open MPI's coll/tuned dynamic rules file (coll_tuned_dynamic_rules_filename), the classic
// format Open MPI 4.1 reads (ompi/mca/coll/tuned/coll_tuned_dynamic_file.c): numbers separated
// by white space, `#` to the end of a line a comment.
//   <collectives>
//   per collective: <id> <communicator-size ranges>
//     per range: <first size> <message-size ranges>   (a range holds up to the next one's first size)
//       per range: <first size> <algorithm> <fan in/out> <segment size>
// A message size is what a rank receives in all (allgather, alltoall: ranks x block; bcast: the
// message); the first message range starts at 0; algorithm 0 leaves the call to Open MPI's own
// fixed decision. The ids are those of Open MPI's COLLTYPE_T (coll_base_functions.h).
import { shapeOf, type CollectiveName } from '../select/registry';
import { pieceBytes, type ExportTable } from './export';

const COLLECTIVE_IDS: Partial<Record<CollectiveName, number>> = { allgather: 0, alltoall: 3, barrier: 6, bcast: 7 };

// As the forced algorithms run by default (coll_tuned_<coll>_algorithm_tree_fanout and
// _chain_fanout 4, _segmentsize 0): what `bench` measured as native:<name>.
const FANINOUT = 4;
const SEGSIZE = 0;

/** The variables that make Open MPI read `file` (as --mca options or OMPI_MCA_ variables). */
export function openmpiSettings(file: string): Array<[string, string]> {
  return [
    ['coll_tuned_use_dynamic_rules', '1'],
    ['coll_tuned_dynamic_rules_filename', file],
  ];
}

/** The file's text; `source` says where the rules came from, `file` where it will be read. */
export function openmpiRulesText(table: ExportTable, source: string, file: string): string {
  const mca = openmpiSettings(file).map(([k, v]) => `--mca ${k} ${v}`).join(' ');
  const lines = [
    '# Open MPI coll/tuned dynamic rules, written by `topocoll tune --export openmpi`',
    `# from ${source}; placement judged for communicators over ${table.nodes} node${table.nodes === 1 ? '' : 's'}`,
    `# use: mpirun ${mca} ...`,
    '# (numbers only outside comments: a count of collectives; per collective its id and a count of',
    '# communicator-size ranges; per range its first size and a count of message-size ranges; per',
    '# message range its first size in bytes a rank receives in all, the algorithm (0: Open MPI\'s own',
    '# choice), fan in/out and segment size)',
    ...table.notes.map((n) => `# note: ${n}`),
    `${table.collectives.length}  # collectives`,
  ];
  for (const { collective, ranks } of table.collectives) {
    lines.push(`${COLLECTIVE_IDS[collective]}  # ${collective}`, `${ranks.length}  # communicator-size ranges`);
    for (const r of ranks) {
      const ranksText =
        r.toRanks === null ? `${r.fromRanks} ranks and more` : r.toRanks === r.fromRanks ? `${r.fromRanks} rank${r.fromRanks === 1 ? '' : 's'}` : `${r.fromRanks}..${r.toRanks} ranks`;
      lines.push(`${r.fromRanks}  # ${ranksText}`);
      lines.push(`${r.messages.length}  # message-size ranges`);
      r.messages.forEach((m, i) => {
        const what = m.algorithm ? m.algorithm.name : "Open MPI's own choice";
        lines.push(`${m.from} ${m.algorithm?.id ?? 0} ${m.algorithm ? FANINOUT : 0} ${m.algorithm ? SEGSIZE : 0}  # ${shapeOf(collective) === 'none' ? '' : `${pieceBytes(r.messages, i)}: `}${what}`);
      });
    }
  }
  return `${lines.join('\n')}\n`;
}
