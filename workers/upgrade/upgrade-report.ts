/**
 * What an upgrade pass did (`POST /v1/admin/upgrade`'s answer and the sweep's `upgrade` part):
 * each receipt key moved or left and why, each scope lock drained or left and why. Names keys and
 * error codes only, never a receipt's content. Deleted in 0.4.0 with the rest of workers/upgrade/.
 */
import { z } from "zod";
import { isSponsonError } from "../../shared/errors";

export const upgradeFailureSchema = z.object({ code: z.string(), error: z.string() });
export type UpgradeFailure = z.infer<typeof upgradeFailureSchema>;

export const receiptsReportSchema = z.object({
  /** Receipts moved from their key before 0.2.0 to their repository's. */
  moved: z.array(z.object({ from: z.string(), to: z.string() })),
  /**
   * Keys from before 0.2.0 left where they are: a receipt already exists at the repository-keyed
   * key, which is the scope's (docs/upgrading.md says how to compare and remove them).
   */
  shadowed: z.array(z.object({ key: z.string(), receipt: z.string() })),
  /** Keys whose scope lease a run held: moved by a later pass. */
  busy: z.array(z.string()),
  failed: z.array(z.object({ key: z.string() }).extend(upgradeFailureSchema.shape)),
  /**
   * Not exactly one repository configured: no receipt written before repositories is guessed at;
   * these keys wait for an operator (docs/upgrading.md, "Scopes per repository").
   */
  notMoved: z.array(z.string()),
  /** Keys this pass did not reach within its budget: a later pass takes them. */
  left: z.number().int().nonnegative(),
});
export type ReceiptsReport = z.infer<typeof receiptsReportSchema>;

export const intentsReportSchema = z.object({
  /** Locks that keep nothing any more: `merged` intents joined the receipt, `dropped` rows went. */
  drained: z.array(z.object({ lock: z.string(), merged: z.number().int(), dropped: z.number().int() })),
  /** Locks whose scope lease a run held: drained by a later pass. */
  busy: z.array(z.string()),
  /** Locks left for a reason an operator may have to act on. */
  waiting: z.array(z.object({ lock: z.string(), reason: z.string() })),
  failed: z.array(z.object({ lock: z.string() }).extend(upgradeFailureSchema.shape)),
  /** Locks this pass did not reach within its budget: a later pass takes them. */
  left: z.number().int().nonnegative(),
});
export type IntentsReport = z.infer<typeof intentsReportSchema>;

export const upgradeReportSchema = z.object({
  receipts: receiptsReportSchema,
  intents: intentsReportSchema,
  /**
   * Nothing is left in a retired layout: every key this pass found moved, every lock drained, none
   * left for later or for an operator (docs/upgrading.md, "The upgrade pass": how to know it is done).
   */
  done: z.boolean(),
});
export type UpgradeReport = z.infer<typeof upgradeReportSchema>;

/** Whether a pass left nothing behind: what it found it moved, and it found everything. */
export function nothingLeft(receipts: ReceiptsReport, intents: IntentsReport): boolean {
  const { shadowed, busy, failed, notMoved, left } = receipts;
  const open = [shadowed, busy, failed, notMoved, intents.busy, intents.waiting, intents.failed];
  return open.every((list) => list.length === 0) && left === 0 && intents.left === 0;
}

/** The holder of each scope lease the upgrade takes: named as the upgrade's on the dashboard. */
export function upgradeHolder(now: number): string {
  return `upgrade-${now.toString(36)}-${crypto.randomUUID().slice(0, 8)}`;
}

/**
 * A step's failure for the report: a SponsonError's code and message (they name keys, never
 * values); anything else is logged with its stack and reported as an internal error.
 */
export function failureOf(err: unknown): UpgradeFailure {
  if (isSponsonError(err)) return { code: err.code, error: err.message };
  const detail = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  console.error(JSON.stringify({ event: "upgrade-failed", error: detail }));
  return { code: "INTERNAL", error: "internal error (logged)" };
}
