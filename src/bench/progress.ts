// Progress of long runs on stderr (rank 0 only; --quiet turns it off): on a terminal a bar
// redrawn in place; elsewhere (a pipe to mpirun, a batch job's log) a plain line every few
// seconds, and one when the run ends, so that a log shows where a long job is without a
// carriage-return smear.
import { envValue } from '../config/env';

export interface Progress {
  step(label: string): void;
  done(): void;
}

/** Seconds between plain lines (a log a few lines a minute long). */
const PLAIN_INTERVAL_MS = 5000;
/** Milliseconds between redraws on a terminal. */
const TTY_INTERVAL_MS = 100;

/**
 * One status line: on a terminal redrawn in place, else written as a line of its own every
 * PLAIN_INTERVAL_MS. `update` is cheap to call often: it writes only when the interval has passed.
 */
export class StatusLine {
  private last = 0;
  private drawn = false;

  constructor(
    private readonly tty: boolean,
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly intervalMs = tty ? TTY_INTERVAL_MS : PLAIN_INTERVAL_MS,
  ) {}

  /** Whether `update` would write now. */
  due(): boolean {
    return Date.now() - this.last >= this.intervalMs;
  }

  /** `text` (a function: built only when written); `force` writes whatever the interval. */
  update(text: string | (() => string), force = false): void {
    if (!force && !this.due()) return;
    this.last = Date.now();
    const line = typeof text === 'string' ? text : text();
    if (!this.tty) {
      this.stream.write(`${line}\n`);
      return;
    }
    const columns = this.stream.columns || 100;
    this.stream.write(`\r${line.slice(0, columns - 1).padEnd(Math.min(columns - 1, line.length + 10))}`);
    this.drawn = true;
  }

  /** On a terminal clears the line; elsewhere writes `last` (the run's outcome), if given. */
  end(last?: string): void {
    if (this.tty) {
      if (this.drawn) this.stream.write(`\r${' '.repeat(Math.min(this.stream.columns || 100, 120) - 1)}\r`);
    } else if (last !== undefined) {
      this.stream.write(`${last}\n`);
    }
  }
}

/** Whole seconds, for people: "42 s", "3 min 05 s". */
export function formatSeconds(s: number): string {
  const t = Math.max(0, Math.round(s));
  return t < 60 ? `${t} s` : `${Math.floor(t / 60)} min ${String(t % 60).padStart(2, '0')} s`;
}

/** Steps of a known number: a bar on a terminal, "bench: 12/30 steps (40%) ..." lines elsewhere. */
function stepProgress(what: string, total: number, status: StatusLine, tty: boolean): Progress {
  const started = Date.now();
  let count = 0;
  const width = 30;
  const text = (label: string) => {
    const fraction = total > 0 ? Math.min(1, count / total) : 1;
    const elapsed = (Date.now() - started) / 1000;
    const eta = count > 0 ? (elapsed / count) * (total - count) : 0;
    const percent = String(Math.round(fraction * 100));
    if (!tty) return `${what}: ${count}/${total} steps (${percent}%), ${formatSeconds(elapsed)} elapsed, about ${formatSeconds(eta)} left: ${label}`;
    const filled = Math.round(fraction * width);
    return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent.padStart(3)}% ${count}/${total} ETA ${Math.ceil(eta)}s ${label}`;
  };
  return {
    step(label) {
      count++;
      // The first step, then every interval; on a terminal the last one too (the full bar).
      status.update(() => text(label), count === 1 || (tty && count === total));
    },
    done() {
      status.end(`${what}: ${count}/${total} steps done in ${formatSeconds((Date.now() - started) / 1000)}`);
    },
  };
}

/** Whether stderr is a terminal: under mpirun a pipe, so `--np` self-launch tells its ranks (TOPOCOLL_BENCH_TTY). */
function stderrIsTerminal(): boolean {
  const flag = envValue('TOPOCOLL_BENCH_TTY');
  return flag !== undefined ? flag === '1' : Boolean(process.stderr.isTTY);
}

/** The progress of a sweep of `total` steps when this rank should show one (rank 0, not --quiet), else undefined. */
export function maybeProgress(rank: number, quiet: boolean, total: number, what = 'bench'): Progress | undefined {
  if (rank !== 0 || quiet) return undefined;
  const tty = stderrIsTerminal();
  return stepProgress(what, total, new StatusLine(tty), tty);
}
