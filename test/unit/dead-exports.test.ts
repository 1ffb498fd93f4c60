// Every export of src/ is used by another file, or is public (src/index.ts): no dead exports.
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script
import { deadExports } from '../../scripts/dead-exports.mjs';

describe('exports', () => {
  it('every export of src/ is used outside its file or is public (`node scripts/dead-exports.mjs` lists the rest)', () => {
    expect(deadExports()).toEqual([]);
  }, 120_000);
});
