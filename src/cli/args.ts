// A small, strict option parser for the CLI: unknown options and bad values are errors that
// name the option and the valid choices.

export interface OptionSpec {
  readonly type: 'string' | 'int' | 'flag';
  readonly choices?: readonly string[];
  readonly min?: number;
}

export type ParsedOptions = Record<string, string | number | boolean | undefined>;

export class UsageError extends Error {}

export function parseOptions(args: string[], spec: Record<string, OptionSpec>): { options: ParsedOptions; rest: string[] } {
  const options: ParsedOptions = {};
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('--')) {
      rest.push(a);
      continue;
    }
    const [key, inline] = a.slice(2).split(/=(.*)/s, 2);
    const s = spec[key];
    if (!s) throw new UsageError(`unknown option --${key}; valid options: ${Object.keys(spec).map((k) => `--${k}`).join(', ')}`);
    if (s.type === 'flag') {
      options[key] = true;
      continue;
    }
    const value = inline ?? args[++i];
    if (value === undefined) throw new UsageError(`--${key} needs a value`);
    if (s.choices && !s.choices.includes(value)) throw new UsageError(`--${key}=${value} is not valid; valid choices: ${s.choices.join(', ')}`);
    if (s.type === 'int') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < (s.min ?? 0)) throw new UsageError(`--${key}=${value} must be an integer >= ${s.min ?? 0}`);
      options[key] = n;
    } else {
      options[key] = value;
    }
  }
  return { options, rest };
}

/** Parses sizes like 8, 8K, 64KiB, 1M, 4MiB (powers of 1024). */
export function parseBytes(text: string, what: string): number {
  const m = /^(\d+)\s*([kmg]?)(i?b)?$/i.exec(text.trim());
  if (!m) throw new UsageError(`${what}=${text} is not a size (examples: 8, 64K, 1MiB)`);
  return Number(m[1]) * 1024 ** ' kmg'.indexOf((m[2] || ' ').toLowerCase());
}
