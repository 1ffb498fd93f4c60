// A Status as the addon hands it over without making an object: its fields as numbers in a
// Float64Array, in this order. scripts/gen-native-registry.mjs writes the order into
// native/addon/generated/sentinels.h (`npm run gen`), where statusFields fills them.
import type { Status } from './comm';

/** The fields of a Status, in the order the addon writes them (cancelled as 0/1). */
export const STATUS_FIELDS = ['source', 'tag', 'count', 'bytes', 'cancelled', 'error'] as const;

const FIELDS = STATUS_FIELDS.length;

/** Room for the Statuses of `n` requests. */
export function statusArray(n: number): Float64Array {
  return new Float64Array(n * FIELDS);
}

/** The Status at index `i` of `fields` (statusArray). */
export function statusAt(fields: Float64Array, i: number): Status {
  const o = i * FIELDS;
  return { source: fields[o], tag: fields[o + 1], count: fields[o + 2], bytes: fields[o + 3], cancelled: fields[o + 4] !== 0, error: fields[o + 5] };
}
