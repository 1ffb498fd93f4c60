// Seed 002's Tables 5-6: alltoall times measured on BXJ (IMB, 512-8192 processes, 4 KB and
// 16 KB blocks, 8 and 12 processes per node) next to the paper's "old model" (eq. 2) and
// "new model" (eq. 4). compareSeed002() recomputes both from a machine profile and calibrates
// the contention load ρ on the 512- and 1024-process rows only; docs/models.md shows the result.
import {
  alltoallContentionTime,
  alltoallLongTime,
  fitRhoLaw,
  rhoAt,
  rhoFromAlltoallTime,
  type AlltoallCase,
  type RhoLaw,
} from './contention';
import type { Machine } from './machine';

export interface Seed002Row {
  readonly table: 5 | 6;
  readonly blockBytes: number;
  readonly ppn: number;
  readonly p: number;
  /** 实测值, microseconds */
  readonly measuredUs: number;
  /** 原模型 (eq. 2), microseconds */
  readonly oldModelUs: number;
  /** 新模型 (eq. 4), microseconds */
  readonly newModelUs: number;
}

const SIZES = [512, 1024, 2048, 4096, 8192];

function table(tableNo: 5 | 6, blockBytes: number, columns: Record<number, [number[], number[], number[]]>): Seed002Row[] {
  return Object.entries(columns).flatMap(([ppn, [measured, oldModel, newModel]]) =>
    SIZES.map((p, i) => ({ table: tableNo, blockBytes, ppn: Number(ppn), p, measuredUs: measured[i], oldModelUs: oldModel[i], newModelUs: newModel[i] })),
  );
}

/** The paper's Tables 5 (4 KB) and 6 (16 KB), transcribed: [measured, old model, new model] per ppn. */
export const SEED002_TABLES: readonly Seed002Row[] = [
  ...table(5, 4096, {
    8: [
      [17411, 45186, 3230697, 330610, 983752],
      [11941, 23905, 47834, 95693, 191410],
      [17435, 43393, 117007, 346391, 908548],
    ],
    12: [
      [24610, 62408, 160906, 435567, 2512881],
      [17911, 35858, 71752, 143540, 287115],
      [23406, 65090, 158666, 429731, 2117705],
    ],
  }),
  ...table(6, 16384, {
    8: [
      [62157, 152595, 401802, 1150017, 3387261],
      [19925, 39890, 79819, 159677, 319394],
      [57600, 137446, 419392, 1162755, 3187948],
    ],
    12: [
      [87675, 226292, 520184, 1479123, 9891631],
      [29888, 59835, 119729, 239516, 479091],
      [86400, 206170, 534762, 1384282, 7801452],
    ],
  }),
];

/** The rows ρ is calibrated on; the others are predictions. */
const CALIBRATION_SIZES: readonly number[] = [512, 1024];

/** The paper's own words (§4.2): 2048 processes, 4 KB, 8 per node was a burst of network congestion. */
export function isCongestionBurst(row: Seed002Row): boolean {
  return row.p === 2048 && row.blockBytes === 4096 && row.ppn === 8;
}

export interface Seed002Result extends Seed002Row {
  /** Our eq. (2) with the profile, microseconds, and its relative error against the paper's. */
  readonly oldUs: number;
  readonly oldError: number;
  /** The ρ at which eq. (4) gives the paper's new-model value: what the paper used. */
  readonly paperRho: number;
  /** The ρ at which eq. (4) gives the measurement. */
  readonly measuredRho: number;
  readonly calibration: boolean;
  /** ρ from the law calibrated on this series' 512/1024 rows, eq. (4) with it, and its error against the measurement. */
  readonly rho: number;
  readonly predictedUs: number;
  readonly error: number;
}

export interface Seed002Series {
  readonly blockBytes: number;
  readonly ppn: number;
  readonly law: RhoLaw;
}

/**
 * How the calibration rows are pooled into ρ laws: `all`, one law ρ(p) through the eight
 * 512/1024 rows of both tables (the default: the load is taken to depend on the machine size
 * only); `series`, one law per (block size, processes per node) through its two rows.
 */
export type RhoPooling = 'all' | 'series';

export interface Seed002Comparison {
  readonly rows: readonly Seed002Result[];
  readonly pooling: RhoPooling;
  /** The laws fitted: one (blockBytes and ppn 0) when pooling all, four per series. */
  readonly series: readonly Seed002Series[];
}

const US = 1e-6;

export function compareSeed002(machine: Machine, pooling: RhoPooling = 'all'): Seed002Comparison {
  const caseOf = (row: Seed002Row): AlltoallCase => ({ p: row.p, blockBytes: row.blockBytes, ppn: row.ppn });
  const seriesKey = (row: Seed002Row) => (pooling === 'all' ? 'all' : `${row.blockBytes}/${row.ppn}`);

  // ρ of every calibration row from its measured time (eq. 4 solved for ρ), then a least-squares
  // law of ln(1 - ρ) on ln p per pool.
  const laws = new Map<string, Seed002Series>();
  for (const row of SEED002_TABLES) {
    const key = seriesKey(row);
    if (laws.has(key)) continue;
    const points = SEED002_TABLES.filter((r) => seriesKey(r) === key && CALIBRATION_SIZES.includes(r.p)).map((r) => ({
      p: r.p,
      rho: rhoFromAlltoallTime(machine, caseOf(r), r.measuredUs * US),
    }));
    const pooled = pooling === 'all';
    laws.set(key, { blockBytes: pooled ? 0 : row.blockBytes, ppn: pooled ? 0 : row.ppn, law: fitRhoLaw(points) });
  }

  const rows = SEED002_TABLES.map((row): Seed002Result => {
    const c = caseOf(row);
    const oldUs = alltoallLongTime(machine, c) / US;
    const rho = rhoAt(laws.get(seriesKey(row))!.law, row.p);
    const predictedUs = alltoallContentionTime(machine, c, rho) / US;
    return {
      ...row,
      oldUs,
      oldError: oldUs / row.oldModelUs - 1,
      paperRho: rhoFromAlltoallTime(machine, c, row.newModelUs * US),
      measuredRho: rhoFromAlltoallTime(machine, c, row.measuredUs * US),
      calibration: CALIBRATION_SIZES.includes(row.p),
      rho,
      predictedUs,
      error: predictedUs / row.measuredUs - 1,
    };
  });
  return { rows, pooling, series: [...laws.values()] };
}
