// The files topocoll is given (topology, rules), YAML or JSON, read the one way both readers
// share: in time linear in the file's size (the yaml package's own duplicate-key check scans
// every earlier key of a mapping, quadratic in a topology's groups), NUL bytes and duplicate
// keys reported with their lines, and the line of any key path for messages.
import { readFileSync } from 'node:fs';
import { isMap, isPair, isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';

export type KeyPath = readonly (string | number)[];

/** Reports an error of the file at `line` (undefined: the whole file); each reader throws its own class. */
export type Fail = (line: number | undefined, detail: string) => never;

/** Reads a file (`what`: "topology file", "rules file"); messages as the engine's json::readFile. */
export function readTextFile(file: string, what: string, fail: Fail): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // As in the engine: a directory is not "unreadable", it is the wrong path.
    if (code === 'EISDIR') fail(undefined, `is a directory, not a ${what}`);
    fail(undefined, `cannot read the ${what} (${code ?? (err as Error).message})`);
  }
}

/**
 * Whether the Node side hands a file to the engine's own JSON reader as it is (by its name, as
 * users see it): the same checks and messages as the TypeScript readers, and linear with a small
 * constant, where the yaml package takes about 25 s over a topology of a million hosts.
 */
export function isJsonFile(file: string): boolean {
  return file.toLowerCase().endsWith('.json');
}

export interface ParsedFile {
  /** The document as plain JS values; undefined when the file holds none (empty, comments only). */
  readonly value: unknown;
  /** The line of the node at `path`; for a key of a mapping, the line of the key itself. */
  readonly lineOf: (path: KeyPath) => number | undefined;
}

/** Parses a file's text as YAML (JSON is YAML); syntax errors, NUL bytes and duplicate keys go to `fail`. */
export function parseYamlFile(text: string, fail: Fail): ParsedFile {
  const counter = new LineCounter();
  const nul = text.indexOf('\0');
  if (nul >= 0) {
    // Named where it is: the parser would report what it breaks ("looks like YAML", a bad token).
    const lineStart = text.lastIndexOf('\n', nul) + 1;
    const line = text.slice(0, nul).split('\n').length;
    fail(line, `not valid YAML or JSON: NUL byte (0x00) at column ${nul - lineStart + 1}: a text file has none; is it binary or damaged?`);
  }
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: false });
  if (doc.errors.length > 0) {
    const err = doc.errors[0];
    fail(counter.linePos(err.pos[0]).line, `not valid YAML or JSON: ${err.message.split('\n')[0]}`);
  }
  checkUniqueKeys(doc, (offset, detail) => fail(counter.linePos(offset).line, `not valid YAML or JSON: ${detail}`));
  return { value: doc.contents === null ? undefined : doc.toJS(), lineOf: lineFinder(doc, counter) };
}

/** Duplicate scalar keys of every mapping, hashed: one pass over the document. */
function checkUniqueKeys(doc: Document, fail: (offset: number, detail: string) => never): void {
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        if (seen.has(pair.key.value)) fail(pair.key.range?.[0] ?? 0, `duplicate key ${JSON.stringify(pair.key.value)}`);
        seen.add(pair.key.value);
      }
    },
  });
}

function lineFinder(doc: Document, counter: LineCounter): (path: KeyPath) => number | undefined {
  return (path) => {
    for (let n = path.length; n >= 0; n--) {
      const parent = n === 0 ? undefined : doc.getIn(path.slice(0, n - 1), true);
      if (n > 0 && isMap(parent)) {
        const pair = parent.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === path[n - 1]);
        const range = pair && isScalar(pair.key) ? pair.key.range : undefined;
        if (range) return counter.linePos(range[0]).line;
        continue;
      }
      const node = (n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true)) as { range?: [number, number, number] } | null;
      if (node?.range) return counter.linePos(node.range[0]).line;
    }
    return undefined;
  };
}
