// MPICH's collective selection file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE), as MPICH 4.0
// reads it (src/mpi/coll/src/csel.c): nested objects whose keys are conditions tried in order,
// "collective=allgather", "comm_type=intra", "comm_size<=N", "total_msg_size<N",
// "avg_msg_size<N", "<what>=any", down to a leaf {"algorithm=MPIR_Allgather_intra_ring": {}}.
// The file replaces MPICH's whole built-in tree: a collective it leaves out fails an assertion at
// its first call. So every collective not tuned keeps MPICH's own subtree, and so does every
// range where the rules leave the choice to MPICH, taken from the built-in tree of the MPICH
// installed (the JSON text compiled into libmpich), or from a file given in its place.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { nativeRoot } from '../mpi/native';
import { mpichContainer } from '../select/native-algorithms';
import type { CollectiveName } from '../select/registry';
import type { ExportTable, MessagePiece, Metric } from './export';

type Tree = { [key: string]: Tree };

/** MPICH compares with C ints: a threshold above this cannot be written. */
const INT_MAX = 2 ** 31 - 1;

/** The libraries the MPICH build links (lib/native/mpich/mpi.json), most likely first. */
function mpichLibraries(): string[] {
  let manifest: { libDirs?: string[]; libs?: string[] };
  try {
    manifest = JSON.parse(readFileSync(path.join(nativeRoot, 'mpich', 'mpi.json'), 'utf8'));
  } catch {
    return []; // not built for MPICH
  }
  const out: string[] = [];
  for (const dir of manifest.libDirs ?? []) {
    for (const lib of manifest.libs ?? []) {
      let names: string[] = [];
      try {
        names = readdirSync(dir).filter((f) => f === `lib${lib}.so` || f.startsWith(`lib${lib}.so.`));
      } catch {
        continue;
      }
      out.push(...names.sort((a, b) => b.length - a.length).map((f) => path.join(dir, f)));
    }
  }
  return out;
}

/** The built-in MPIR-level selection tree compiled into an MPICH library, or null. */
export function builtinTreeOf(library: Buffer): Tree | null {
  const marker = Buffer.from('{"collective=');
  for (let at = library.indexOf(marker); at >= 0; at = library.indexOf(marker, at + 1)) {
    const end = library.indexOf(0, at);
    const text = library.subarray(at, end < 0 ? undefined : end).toString('latin1');
    // The ch4 device's tree holds compositions; the MPIR level's, algorithms.
    if (!text.includes('"algorithm=MPIR_')) continue;
    try {
      return JSON.parse(text) as Tree;
    } catch {
      /* a fragment: look further */
    }
  }
  return null;
}

/** MPICH's own selection tree: from `file` (a coll_selection.json), else from the installed libmpich. */
export function mpichDefaults(file?: string): { tree: Tree; source: string } {
  if (file) {
    let tree: unknown;
    try {
      tree = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new Error(`--mpich-defaults ${file}: ${(e as Error).message}`);
    }
    if (!tree || typeof tree !== 'object' || !Object.keys(tree).some((k) => k.startsWith('collective='))) {
      throw new Error(`--mpich-defaults ${file}: not an MPICH selection tree (no "collective=..." keys at the top)`);
    }
    return { tree: tree as Tree, source: file };
  }
  const tried: string[] = [];
  for (const lib of mpichLibraries()) {
    tried.push(lib);
    const tree = builtinTreeOf(readFileSync(lib));
    if (tree) return { tree, source: `the built-in tree of ${lib}` };
  }
  throw new Error(
    `cannot find MPICH's built-in selection tree (looked in ${tried.join(', ') || 'no library: is topocoll built for MPICH?'}): ` +
      "give MPICH's src/mpi/coll/coll_selection.json with --mpich-defaults FILE",
  );
}

const leaf = (container: string): Tree => ({ [`algorithm=${container}`]: {} });

/** MPICH's own choice for intracommunicators of a collective: its subtree under comm_type=intra. */
function ownIntra(defaults: Tree, coll: CollectiveName): Tree {
  const tree = defaults[`collective=${coll}`];
  if (!tree) throw new Error(`MPICH's selection tree has no "collective=${coll}"`);
  return tree['comm_type=intra'] ?? tree;
}

function messageChain(coll: CollectiveName, metric: Metric, pieces: readonly MessagePiece[], own: Tree, clipped: Set<string>): Tree {
  const node = (m: MessagePiece) => (m.algorithm ? leaf(mpichContainer(coll, m.algorithm.name)) : own);
  if (metric === 'none' || pieces.length === 1) return node(pieces[0]);
  const key = metric === 'total' ? 'total_msg_size' : 'avg_msg_size';
  const chain: Tree = {};
  pieces.forEach((m, i) => {
    const next = pieces[i + 1]?.from;
    if (next !== undefined && next > INT_MAX) clipped.add(coll);
    // The last range, or one whose end MPICH cannot compare: every larger message.
    if (next === undefined || next > INT_MAX) chain[`${key}=any`] ??= node(m);
    else chain[`${key}<${next}`] = node(m);
  });
  return chain;
}

/** The selection file's tree: MPICH's own everywhere the table does not decide. */
export function mpichTree(table: ExportTable, defaults: Tree): { tree: Tree; notes: string[] } {
  const tree: Tree = {};
  const clipped = new Set<string>();
  const tuned = new Map(table.collectives.map((c) => [c.collective, c]));
  for (const [key, subtree] of Object.entries(defaults)) {
    const coll = key.slice('collective='.length) as CollectiveName;
    const t = tuned.get(coll);
    if (!key.startsWith('collective=') || !t) {
      tree[key] = subtree;
      continue;
    }
    const own = ownIntra(defaults, coll);
    // The last range runs on to every larger communicator (its toRanks is null).
    let sizes: Tree = {};
    for (const r of t.ranks) sizes[r.toRanks === null ? 'comm_size=any' : `comm_size<=${r.toRanks}`] = messageChain(coll, t.metric, r.messages, own, clipped);
    // MPICH's in-place alltoall is its own algorithm (pairwise_sendrecv_replace): the others refuse
    // MPI_IN_PLACE. (MPICH 4.0 takes "=any" on comparisons only: a yes/no pair here.)
    if (coll === 'alltoall') sizes = { 'is_sendbuf_inplace=yes': own, 'is_sendbuf_inplace=no': sizes };
    tree[key] = subtree['comm_type=intra'] ? { ...subtree, 'comm_type=intra': sizes } : { 'comm_type=intra': sizes, 'comm_type=inter': subtree };
    tuned.delete(coll);
  }
  for (const coll of tuned.keys()) throw new Error(`MPICH's selection tree has no "collective=${coll}"`);
  const notes = [...clipped].map((c) => `${c}: thresholds above ${INT_MAX} B (MPICH compares with C ints) left out: the range below them runs on`);
  return { tree, notes };
}

/** The variables that make MPICH read `file`: the file, and the MPIR-level selection for each collective it tunes. */
export function mpichSettings(table: ExportTable, file: string): Array<[string, string]> {
  return [
    ['MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE', file],
    // The ch4 device's own collectives (its shared-memory bcast and barrier on a node) would pass the file by.
    ...table.collectives.map((c): [string, string] => [`MPIR_CVAR_${c.collective.toUpperCase()}_DEVICE_COLLECTIVE`, '0']),
  ];
}

/** The file's text (JSON has no comments: what it is and where it came from go to the output instead). */
export function mpichTuningText(tree: Tree): string {
  return `${JSON.stringify(tree, null, 1)}\n`;
}
