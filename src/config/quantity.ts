// Quantities with their units written out ("2.37 us", "6343 MiB/s", "312.5 MHz"), as machine
// profiles and topology files give them: one reader for both, below the model and the topology.

const TIME_UNITS: Record<string, number> = { s: 1, ms: 1e-3, us: 1e-6, 'µs': 1e-6, 'μs': 1e-6, ns: 1e-9 };
// MB is 10^6 bytes; IMB and many papers mean 2^20 by "MB/s": write MiB/s for those.
const BYTE_UNITS: Record<string, number> = {
  B: 1,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  bit: 1 / 8,
  Kbit: 1e3 / 8,
  Mbit: 1e6 / 8,
  Gbit: 1e9 / 8,
};
const FREQUENCY_UNITS: Record<string, number> = { Hz: 1, kHz: 1e3, MHz: 1e6, GHz: 1e9 };

export type Dimension = 'time' | 'bandwidth' | 'frequency' | 'size';

function unitsOf(dim: Dimension): Record<string, number> {
  switch (dim) {
    case 'time':
      return TIME_UNITS;
    case 'frequency':
      return FREQUENCY_UNITS;
    case 'size':
      return BYTE_UNITS;
    case 'bandwidth':
      return Object.fromEntries(Object.entries(BYTE_UNITS).map(([u, f]) => [`${u}/s`, f]));
  }
}

/** Parses "2.37 us", "6343 MiB/s", "312.5 MHz", "256 bit" into seconds, bytes/s, Hz or bytes. */
export function parseQuantity(text: string, dim: Dimension): number {
  const m = /^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(\S+)\s*$/.exec(text);
  const units = unitsOf(dim);
  const factor = m ? units[m[2]] : undefined;
  if (!m || factor === undefined) {
    throw new Error(`"${text}" is not a ${dim} with a unit (${Object.keys(units).join(', ')})`);
  }
  return Number(m[1]) * factor;
}
