// A progress bar on stderr for long sweeps: rank 0 only, and only on a terminal (a log file or
// a pipe gets no carriage-return noise); --quiet turns it off.
import { envValue } from '../config/env';

export interface Progress {
  step(label: string): void;
  done(): void;
}

function progressBar(total: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  const started = Date.now();
  let count = 0;
  let lastDraw = 0;
  const width = 30;
  const draw = (label: string) => {
    const fraction = total > 0 ? Math.min(1, count / total) : 1;
    const filled = Math.round(fraction * width);
    const elapsed = (Date.now() - started) / 1000;
    const eta = count > 0 ? (elapsed / count) * (total - count) : 0;
    const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(fraction * 100)).padStart(3)}% ${count}/${total} ETA ${Math.ceil(eta)}s ${label}`;
    const columns = stream.columns || 100;
    stream.write(`\r${line.slice(0, columns - 1).padEnd(Math.min(columns - 1, line.length + 10))}`);
  };
  return {
    step(label) {
      count++;
      const now = Date.now();
      if (now - lastDraw > 100 || count === total) {
        lastDraw = now;
        draw(label);
      }
    },
    done() {
      if (lastDraw > 0) stream.write(`\r${' '.repeat(Math.min(stream.columns || 100, 120) - 1)}\r`);
    },
  };
}

/** The bar when this rank should show one, else undefined. */
export function maybeProgress(rank: number, quiet: boolean, total: number): Progress | undefined {
  // Under mpirun, stderr is a pipe to the launcher: `--np` self-launch tells whether its own is a terminal.
  const flag = envValue('TOPOCOLL_BENCH_TTY');
  const tty = flag !== undefined ? flag === '1' : process.stderr.isTTY;
  if (rank !== 0 || quiet || !tty) return undefined;
  return progressBar(total);
}
