export const SCOPE_STATE_READS: number;
export const QUEUED_DESTROY_USD_PER_MILLION: number;
export const PRICES: Record<string, number | string>;
export interface CostLine {
  what: string;
  perRun: number;
  unit: string;
  usdPerMillionRuns: number;
}
export function costPerMillion(run: {
  counts: { lockOps: number; storageReads: number; storageWrites: number; locks?: number };
  cpuMs: number;
  lockWaitMs?: number;
  perCallMs: number;
}): { lines: CostLine[]; totalUsdPerMillionRuns: number };
