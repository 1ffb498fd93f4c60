#!/usr/bin/env node
// Lists the exports of src/**/*.ts that no other file uses: `node scripts/dead-exports.mjs`
// (exit status 1 when there are any). test/unit/dead-exports.test.ts runs it too. Such an export
// is either dead code or wants its `export` dropped.
//
// Read with the TypeScript compiler API, offline, from the sources (no build needed):
// - the TypeScript files of src/ and test/ form one program; an export is used when an identifier
//   in another file resolves to it (imports, re-exports, `ns.name`, `typeof import('…').name`);
//   a type (interface, type alias) also when its own file uses it: it then names the shape of
//   what that file's functions take or return;
// - `require('…')` and `import('…')` calls, in TypeScript and in the JavaScript of bin/, esm/,
//   scripts/, bench/, examples/ and test/ (which load dist/…js, the build of src/…ts, often
//   through path.join(root, 'dist', …)): the names taken from the result (`require(x).name`,
//   `const { a, b } = require(x)`, `m.name` of `const m = require(x)`), or every export of the
//   module when the result is used whole.
// The public API is what src/index.ts exports (and esm/index.mjs re-exports); the allow-list
// below names the few other exports that are used where this check cannot see.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Modules whose every export is public or used from outside this repository's code. */
export const PUBLIC_MODULES = [
  // The package's entry (package.json "main"/"types"; esm/index.mjs re-exports it).
  'src/index.ts',
];

/** "file:name" of exports used where this check cannot see; each says where. */
export const ALLOWED = new Set([
  // (none at present)
]);

const JS_DIRS = ['bin', 'esm', 'scripts', 'bench', 'examples', 'test'];
const JS_EXT = /\.(mjs|cjs|js)$/;
const TS_EXT = /\.(ts|mts|cts)$/;

function walk(dir, keep, out = []) {
  let entries;
  try {
    entries = readdirSync(path.join(root, dir), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== 'fixtures' && !e.name.startsWith('.')) walk(rel, keep, out);
    } else if (keep(e.name)) {
      out.push(rel);
    }
  }
  return out;
}

const rel = (file) => path.relative(root, file).split(path.sep).join('/');

/** The src/…ts file a specifier names: relative to a TypeScript file, or any path through dist/. */
function targetOf(spec, fromFile) {
  const candidates = [];
  const dist = /(?:^|\/)dist\/(.+?)(?:\.js)?$/.exec(spec);
  if (dist) candidates.push(`src/${dist[1]}`);
  else if (spec.startsWith('.')) candidates.push(path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), spec)));
  for (const c of candidates) {
    for (const f of [`${c}.ts`, `${c}/index.ts`, c.replace(/\.js$/, '.ts')]) {
      if (srcFiles.has(f)) return f;
    }
  }
  return undefined;
}

/** The specifier of a require()/import() argument: a string, or the strings of path.join(…) and the like, joined. */
function specifierOf(arg) {
  if (ts.isStringLiteralLike(arg)) return arg.text;
  const parts = [];
  const visit = (n) => {
    if (ts.isStringLiteralLike(n)) parts.push(n.text);
    else ts.forEachChild(n, visit);
  };
  visit(arg);
  return parts.length ? parts.join('/') : undefined;
}

const isRequireLike = (call) =>
  call.expression.kind === ts.SyntaxKind.ImportKeyword ||
  (ts.isIdentifier(call.expression) && call.expression.text === 'require') ||
  // createRequire(import.meta.url)(…)
  (ts.isCallExpression(call.expression) && ts.isIdentifier(call.expression.expression) && call.expression.expression.text === 'createRequire');

/** The expression a value flows into, past `await`, `as`, `!` and parentheses. */
function outer(node) {
  let n = node;
  while (
    n.parent &&
    (ts.isAwaitExpression(n.parent) || ts.isAsExpression(n.parent) || ts.isParenthesizedExpression(n.parent) ||
      ts.isNonNullExpression(n.parent) || ts.isSatisfiesExpression(n.parent))
  ) {
    n = n.parent;
  }
  return n;
}

/** Names taken from a loaded module's value at `node`; '*' for all. */
function namesTaken(node, sourceFile) {
  const use = outer(node);
  const parent = use.parent;
  if (parent && ts.isPropertyAccessExpression(parent) && parent.expression === use) return [parent.name.text];
  if (parent && ts.isVariableDeclaration(parent) && parent.initializer === use) {
    if (ts.isObjectBindingPattern(parent.name)) {
      if (parent.name.elements.some((e) => e.dotDotDotToken)) return ['*'];
      return parent.name.elements.map((e) => (e.propertyName ?? e.name).getText(sourceFile));
    }
    if (ts.isIdentifier(parent.name)) return namesThrough(parent.name.text, parent, sourceFile);
  }
  return ['*'];
}

/** `m.name` for every use of the variable `m` in its file; '*' when it is used otherwise. */
function namesThrough(variable, declaration, sourceFile) {
  const names = [];
  const visit = (n) => {
    if (ts.isIdentifier(n) && n.text === variable && n !== declaration.name) {
      const p = n.parent;
      if (ts.isPropertyAccessExpression(p) && p.expression === n) names.push(p.name.text);
      else if (!(ts.isPropertyAccessExpression(p) && p.name === n) && !(ts.isPropertyAssignment(p) && p.name === n)) names.push('*');
    }
    ts.forEachChild(n, visit);
  };
  visit(sourceFile);
  return names;
}

let srcFiles;

const isDeclarationName = (n) => n.parent && ts.isDeclaration(n.parent) && n.parent.name === n;

export function deadExports() {
  srcFiles = new Set(walk('src', (n) => n.endsWith('.ts') && !n.endsWith('.d.ts')));
  const tsFiles = [...srcFiles, ...walk('test', (n) => TS_EXT.test(n))];
  const config = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile).config;
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const program = ts.createProgram(
    tsFiles.map((f) => path.join(root, f)),
    { ...options, noEmit: true, rootDir: root, allowImportingTsExtensions: true },
  );
  const checker = program.getTypeChecker();
  const resolve = (s) => (s && s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);

  // Every export of src/, by the symbol it resolves to.
  const exports = new Map(); // "file:name" -> { file, name, symbol }
  const bySymbol = new Map(); // symbol -> ["file:name"]
  for (const file of srcFiles) {
    const sf = program.getSourceFile(path.join(root, file));
    const moduleSymbol = sf && checker.getSymbolAtLocation(sf);
    if (!moduleSymbol) continue;
    for (const e of checker.getExportsOfModule(moduleSymbol)) {
      const key = `${file}:${e.name}`;
      const symbol = resolve(e);
      exports.set(key, { file, name: e.name, symbol });
      if (!bySymbol.has(symbol)) bySymbol.set(symbol, []);
      bySymbol.get(symbol).push(key);
    }
  }

  const used = new Set();
  const useName = (file, name) => {
    if (name === '*') for (const [key, e] of exports) e.file === file && used.add(key);
    else used.add(`${file}:${name}`);
  };

  // Identifiers of one file that resolve to an export of another.
  for (const file of tsFiles) {
    const sf = program.getSourceFile(path.join(root, file));
    if (!sf) continue;
    const visit = (n) => {
      if (ts.isIdentifier(n)) {
        let symbol;
        try {
          symbol = checker.getSymbolAtLocation(n);
        } catch {
          symbol = undefined;
        }
        for (const s of [symbol, resolve(symbol)]) {
          for (const key of (s && bySymbol.get(s)) ?? []) {
            const e = exports.get(key);
            // A type used in its own file names the shape of that file's exports: it stays exported.
            const ownType = e.file === file && !(e.symbol.flags & ts.SymbolFlags.Value) && !isDeclarationName(n);
            if (e.file !== file || ownType) used.add(key);
          }
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }

  // require()/import() of src/ modules (or of their dist/ build), in TypeScript and JavaScript.
  const jsFiles = JS_DIRS.flatMap((d) => walk(d, (n) => JS_EXT.test(n)));
  for (const file of [...tsFiles, ...jsFiles]) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, JS_EXT.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS);
    const visit = (n) => {
      if (ts.isCallExpression(n) && n.arguments.length > 0 && isRequireLike(n)) {
        const spec = specifierOf(n.arguments[0]);
        const target = spec && targetOf(spec, file);
        if (target && target !== file) for (const name of namesTaken(n, sf)) useName(target, name);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }

  const stale = [...ALLOWED].filter((key) => !exports.has(key)).map((key) => `${key} (allowed, but not an export)`);
  const dead = [...exports.keys()].filter(
    (key) => !used.has(key) && !ALLOWED.has(key) && !PUBLIC_MODULES.includes(exports.get(key).file),
  );
  return [...dead, ...stale];
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dead = deadExports();
  for (const key of dead) console.log(key);
  if (dead.length) {
    console.error(`${dead.length} export${dead.length === 1 ? '' : 's'} of src/ that no other file uses: delete them, drop their \`export\`, or allow them in scripts/dead-exports.mjs`);
    process.exit(1);
  }
}
