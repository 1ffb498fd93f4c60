// The one option parser of the CLI, strict and the same for every command: unknown options and
// bad values are usage errors that name the option and suggest the nearest valid one; `--opt
// VALUE` and `--opt=VALUE` are the same, a flag takes no value, the last of a repeated option
// wins; `--` ends the options; `--help`/`-h` and `--version` win over any error.
import { closest } from './closest';

export interface OptionSpec {
  readonly type: 'string' | 'int' | 'flag';
  readonly choices?: readonly string[];
  readonly min?: number;
}

export type ParsedOptions = Record<string, string | number | boolean | undefined>;

/** The command line is wrong: the CLI exits with status 2 (runtime failures exit with 1). */
export class UsageError extends Error {}

/** `--help`/`-h` or `--version` among a command's options: main prints the command's help or the version. */
export class HelpRequest extends Error {
  constructor(readonly what: 'help' | 'version') {
    super(`--${what}`);
  }
}

export interface ParseConfig {
  /** How many positional arguments the command takes (default 0: any is an error). */
  readonly positionals?: number;
  /**
   * Where the command's own options end, the rest (`--` included) returned as it is: at the first
   * positional argument (a program to run, with its own options), or at the first argument that
   * is not one of ours (a launcher's options follow). Default: options may come anywhere.
   */
  readonly stopAt?: 'positional' | 'unknown';
}

const HELP = ['--help', '-h'];

export function parseOptions(args: string[], spec: Record<string, OptionSpec>, config: ParseConfig = {}): { options: ParsedOptions; rest: string[] } {
  const options: ParsedOptions = {};
  const rest: string[] = [];
  // The first error is thrown at the end, unless --help or --version comes after it.
  let error: UsageError | undefined;
  const fail = (message: string) => {
    error ??= new UsageError(message);
  };
  const names = Object.keys(spec).map((k) => `--${k}`);
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (HELP.includes(a)) throw new HelpRequest('help');
    if (a === '--version') throw new HelpRequest('version');
    if (a === '--') {
      // Kept for a caller that stops early: what follows is a program's (mpirun splits on it).
      if (!config.stopAt) i++;
      break;
    }
    // A negative number is a value, not an option.
    if (!a.startsWith('-') || a === '-' || /^-\d/.test(a)) {
      if (config.stopAt) break;
      rest.push(a);
      continue;
    }
    const [key, inline] = a.replace(/^--?/, '').split(/=(.*)/s, 2);
    const s = a.startsWith('--') ? spec[key] : undefined;
    if (!s) {
      // Not ours: a launcher's option, where ours end; one edit from one of ours is a slip (launchers have many options near ours).
      if (config.stopAt === 'unknown' && !(a.startsWith('--') && closest(key, Object.keys(spec), 1))) break;
      const near = closest(key, Object.keys(spec));
      fail(`unknown option ${a.split('=')[0]}${near ? `; did you mean --${near}?` : `; valid options: ${names.join(', ')}`}`);
      continue;
    }
    if (s.type === 'flag') {
      if (inline !== undefined) fail(`--${key} takes no value (got --${key}=${inline})`);
      else options[key] = true;
      continue;
    }
    // `--opt --other-of-ours`: the value is missing, not "--other-of-ours".
    const next = args[i + 1];
    const isOurs = next !== undefined && (HELP.includes(next) || next === '--version' || names.includes(next.split('=')[0]));
    const value = inline ?? (next === undefined || isOurs ? undefined : args[++i]);
    if (value === undefined) {
      fail(`--${key} needs a value`);
      continue;
    }
    if (s.choices && !s.choices.includes(value)) {
      fail(`--${key}=${value} is not valid; valid choices: ${s.choices.join(', ')}`);
      continue;
    }
    if (s.type === 'int') {
      const n = /^[+-]?\d+$/.test(value.trim()) ? Number(value) : NaN;
      if (!Number.isSafeInteger(n) || n < (s.min ?? 0)) fail(`--${key}=${value} must be an integer >= ${s.min ?? 0}`);
      else options[key] = n;
    } else {
      options[key] = value;
    }
  }
  if (error) throw error;
  const after = args.slice(i);
  if (config.stopAt) return { options, rest: after };
  rest.push(...after);
  const allowed = config.positionals ?? 0;
  if (rest.length > allowed) {
    const stray = rest[allowed];
    // A word that names one of our options lacks its dashes.
    const option = spec[stray] ? `; did you mean --${stray}?` : '';
    throw new UsageError(`unexpected argument "${stray}"${option}${allowed ? '' : ' (this command takes options only)'}`);
  }
  return { options, rest };
}

/** Parses sizes like 8, 8K, 64KiB, 1M, 4MiB (powers of 1024). */
export function parseBytes(text: string, what: string): number {
  const m = /^(\d+)\s*([kmg]?)(i?b)?$/i.exec(text.trim());
  if (!m) throw new UsageError(`${what}=${text} is not a size (examples: 8, 64K, 1MiB)`);
  return Number(m[1]) * 1024 ** ' kmg'.indexOf((m[2] || ' ').toLowerCase());
}
