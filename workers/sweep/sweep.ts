/**
 * The periodic sweep (docs/design.md, "Webhooks and the sweep"): GitHub does not redeliver failed webhooks
 * and runs can crash, so on a Cron Trigger it first runs the upgrade pass when one is wired (workers/upgrade/, until 0.4.0),
 * then (1) resolves intents older than the lease TTL, (2) re-drives
 * dead-letter destroys, within a budget, setting aside those it never will (./redrive-dead-letters.ts), and (3) reports closed scopes that still own entries, re-sending the destroys of
 * an unconfirmed close, or of a confirmed one past its grace period (./closed-scopes.ts). A thin orchestrator: the engine
 * supplies (1) and the "owns entries" listing for (3); each part runs even when another fails.
 */
import type { Env } from "../../shared/env";
import type { OrphanList } from "../../shared/schemas/orphans";
import type { ForwardReport } from "../audit/audit-forward";
import { configFromEnv } from "../config/config";
import type { UpgradeReport } from "../upgrade/upgrade-report";
import { type ClosedScopeWithEntries, closedScopesWithEntries, type ScopeRef } from "./closed-scopes";
import type { NearCapacityReport } from "./near-capacity";
import { type RedriveReport, redriveDeadLetters } from "./redrive-dead-letters";

export interface SweepParts {
  /**
   * Upgrading only (docs/upgrading.md; deleted in 0.4.0): one upgrade pass, run before every other
   * part, so the intents it drains into receipts are recovered by this same sweep. The Worker's
   * wiring plugs it in; tests about the other parts leave it out.
   */
  upgrade?(env: Env): Promise<UpgradeReport>;
  /** Resolve (remove or adopt) intents recorded before `olderThan` (epoch ms). */
  resolveStaleIntents(
    env: Env,
    args: { olderThan: number; now: number },
  ): Promise<{ resolved: number; detail?: string }>;
  /** Every (repository id, environment, scope) whose ledger still owns at least one entry. */
  scopesOwningEntries(env: Env): Promise<ScopeRef[]>;
  /** Entries on owned objects that no scope owns and that are not foreign (reported, not removed). */
  orphans(env: Env): Promise<OrphanList>;
}

type Part<T> = { ok: true; value: T } | { ok: false; error: string };

export interface SweepReport {
  at: number;
  /** The upgrade pass (SweepParts.upgrade), absent where none is wired. */
  upgrade?: Part<UpgradeReport>;
  intents: Part<{ resolved: number; detail?: string }>;
  deadLetters: Part<RedriveReport>;
  closedWithEntries: Part<ClosedScopeWithEntries[]>;
  orphans: Part<OrphanList>;
  /**
   * Lists above 80 % of their cap (./near-capacity.ts); run after the others by sweepAndReport. A
   * lock that could not be asked is named in it and fails nothing: the part fails only when the
   * owned-object index cannot be listed.
   */
  nearCapacity?: Part<NearCapacityReport>;
  /** Audit records forwarded as `audit` notifications (workers/audit/audit-forward.ts); run last. */
  audit?: Part<ForwardReport>;
}

export async function runSweep(env: Env, parts: SweepParts, now: number): Promise<SweepReport> {
  const upgrade = parts.upgrade ? { upgrade: await settle(parts.upgrade(env)) } : {};
  const [intents, deadLetters, closedWithEntries, orphans] = await Promise.all([
    // An invalid LEASE_TTL_SECONDS fails this part, naming the var; the other parts still run.
    settle(
      Promise.resolve().then(() => {
        const ttlMs = configFromEnv(env).leaseTtlSeconds * 1000;
        return parts.resolveStaleIntents(env, { olderThan: now - ttlMs, now });
      }),
    ),
    settle(redriveDeadLetters(env, now)),
    settle(parts.scopesOwningEntries(env).then((owning) => closedScopesWithEntries(env, owning, now))),
    settle(parts.orphans(env)),
  ]);
  return { at: now, ...upgrade, intents, deadLetters, closedWithEntries, orphans };
}

export function sweepFailed(report: SweepReport): boolean {
  const parts = [report.intents, report.deadLetters, report.closedWithEntries, report.orphans];
  // A parked letter left for the next sweep (its send failed) fails the invocation as before.
  const lettersLeft = report.deadLetters.ok && report.deadLetters.value.failed.length > 0;
  return (
    parts.some((part) => !part.ok) ||
    lettersLeft ||
    report.upgrade?.ok === false ||
    report.nearCapacity?.ok === false ||
    report.audit?.ok === false
  );
}

export async function settle<T>(work: Promise<T>): Promise<Part<T>> {
  try {
    return { ok: true, value: await work };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
