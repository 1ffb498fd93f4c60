// The closest valid name to a misspelled one, for "did you mean ...?". The same rule as the
// engine's TOPOCOLL_* check (native/engine/config.cc, editDistance and unknownVariables): the
// CLI cannot call that one without loading an MPI library, and must work without one.

/** Optimal string alignment distance: edits, with a swap of two neighbours counting as one. */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidate nearest to `word` when it is close enough to be a slip of the fingers (at most
 * max(2, a third of its length) edits, as the engine's rule, and fewer than its length), else
 * undefined; the first on ties.
 * `maxDistance` narrows it where a near miss may well be meant (a launcher's own option).
 */
export function closest(word: string, candidates: Iterable<string>, maxDistance = Math.max(2, Math.floor(word.length / 3))): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  // Short words: rewriting all of it is no slip ("np" is not "mpi").
  return bestDistance <= maxDistance && bestDistance < word.length ? best : undefined;
}

/** "; did you mean X?" for a near miss, else "; valid choices: A, B, C" (`what` names them). */
export function suggestion(word: string, candidates: readonly string[], what = 'valid choices'): string {
  const near = closest(word, candidates);
  return near === undefined ? `; ${what}: ${candidates.join(', ')}` : `; did you mean ${near}?`;
}
