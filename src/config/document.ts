// The files topocoll is given (topology, rules, machine profiles), YAML or JSON, parsed the one
// way: in time linear in the file's size (the yaml package's own duplicate-key check scans every
// earlier key of a mapping, quadratic in a topology's groups), NUL bytes and duplicate keys
// reported with their lines. Topology and rules files are then converted to JSON with a line map
// (yamlToJson) for the engine's readers, which check them (native/engine/rules.cc, topology/).
import { readFileSync } from 'node:fs';
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node } from 'yaml';

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
 * Whether the Node side hands a file to the engine's reader as it is, not through yamlToJson (by
 * its name, as users see it): the engine's JSON reader is linear with a small constant, where the
 * yaml package takes about 25 s over a topology of a million hosts.
 */
export function isJsonFile(file: string): boolean {
  return file.toLowerCase().endsWith('.json');
}

/** Parses a file's text as YAML (JSON is YAML): the document as plain JS values, undefined when it holds none. */
export function parseYamlFile(text: string, fail: Fail): unknown {
  const { doc } = parseChecked(text, fail);
  return doc.contents === null ? undefined : doc.toJS();
}

/**
 * A file as the engine's readers take it: JSON text with one key or value per line, and the
 * line map (json::LineMap in native/engine/topology/json.h): `lines[i]` is the file's line of the
 * JSON's line i + 1 (0: none), so that the engine's messages name the file's own lines.
 */
export interface EngineJson {
  readonly json: string;
  readonly lines: readonly number[];
}

/** A file's text (YAML or JSON) as JSON for the engine's readers; undefined when it holds no document. */
export function yamlToJson(text: string, fail: Fail): EngineJson | undefined {
  const { doc, counter } = parseChecked(text, fail);
  if (doc.contents === null) return undefined;
  const out: string[] = [];
  const lines: number[] = [];
  const lineOf = (node: { range?: [number, number, number] | null } | null | undefined) => (node?.range ? counter.linePos(node.range[0]).line : 0);
  // `head` opens the value's first line ('"key": ' or ''); `line`: where the value starts in the file.
  const emit = (node: unknown, head: string, line: number, depth: number): void => {
    const n = isAlias(node) ? node.resolve(doc) : node;
    // An alias can name its own ancestor; the engine nests at most 64 deep anyway.
    if (depth > 64) fail(line, 'not valid YAML or JSON: nested more than 64 deep');
    if (isMap(n) || isSeq(n)) {
      const [open, close] = isMap(n) ? ['{', '}'] : ['[', ']'];
      out.push(head + open);
      lines.push(line);
      n.items.forEach((item, i) => {
        if (isPair(item)) {
          const key = isScalar(item.key) ? item.key.value : (item.key as Node | null)?.toJSON();
          const keyLine = lineOf(item.key as Node | null) || line;
          emit(item.value, `${JSON.stringify(String(key))}: `, keyLine, depth + 1);
        } else {
          emit(item, '', lineOf(item as Node) || line, depth + 1);
        }
        if (i + 1 < n.items.length) out[out.length - 1] += ',';
      });
      out.push(close);
      lines.push(0);
      return;
    }
    // A scalar (null for an empty value); numbers JSON cannot write (.inf, .nan) become null.
    const value = isScalar(n) ? n.value : null;
    out.push(head + (JSON.stringify(typeof value === 'bigint' ? Number(value) : value) ?? 'null'));
    lines.push(line);
  };
  emit(doc.contents, '', lineOf(doc.contents as Node), 0);
  return { json: `${out.join('\n')}\n`, lines };
}

function parseChecked(text: string, fail: Fail): { doc: Document; counter: LineCounter } {
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
  return { doc, counter };
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
