/**
 * How a capped list's fill level reads to people (the CLI's `sponson locks <key>`, the dashboard's
 * object page): its share of the cap and whether it is near or at its cap. Near is the sweep's own
 * test (`isNearCapacity`, above 80 %), so what is marked is what the sweep reports.
 */
import { isNearCapacity } from "./schemas/fill-level";

export type FillShare = "ok" | "near" | "full";

export function fillShare(fill: { cap: number; entries: number }): FillShare {
  if (fill.entries >= fill.cap) return "full";
  return isNearCapacity(fill) ? "near" : "ok";
}

/** Whole percent, floored: a list with room left never reads 100 % (255 of 256 is 99 %). */
export function fillPercent(fill: { cap: number; entries: number }): number {
  return Math.floor((fill.entries * 100) / fill.cap);
}

/** The words after the percentage: nothing, "near its cap" or "full". */
export function fillShareWords(share: FillShare): string {
  return share === "full" ? "full" : share === "near" ? "near its cap" : "";
}
