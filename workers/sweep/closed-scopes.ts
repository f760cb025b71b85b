/**
 * Scopes whose pull request is closed but whose ledger still owns entries: a destroy that never
 * ran or failed (docs/design.md, "Webhooks and the sweep"). A close whose destroys were never
 * confirmed enqueued has them sent here at once, since GitHub does not redeliver. A confirmed close
 * whose messages were lost anyway (a consumer that acked without finishing, a retention expiry, a
 * purged dead letter) has them re-sent once the close is older than the grace period
 * (./close-grace.ts), once per grace period, at most SPONSON_CLOSE_MAX_RESENDS times; then the sweep
 * notifies instead. A scope still owning entries a day after its close is notified once.
 */
import type { Env } from "../../shared/env";
import { repositoryRefById } from "../../shared/schemas/repository";
import { recordDestroyResend } from "../audit/audit-trail";
import { configFromEnv } from "../config/config";
import { notify } from "../notify/notify";
import {
  type ResendDecision,
  type ScopeStateClient,
  scopeStateClient,
} from "../scope-state/scope-state-client";
import { enqueueDestroys } from "../webhooks/enqueue-destroys";
import { type CloseGrace, closeGraceFromEnv } from "./close-grace";

export interface ScopeRef {
  repositoryId: number;
  environment: string;
  scope: string;
}

export interface ClosedScopeWithEntries extends ScopeRef {
  revision: number;
  /** This sweep sent its close's destroys (never confirmed enqueued, or lost after the grace period). */
  destroysResent?: true;
  /** How many times sweeps re-sent a confirmed close's destroys, this one included. */
  resends?: number;
}

interface ScopeCheck {
  status: string;
  revision: number;
  resent: boolean;
  resends?: number;
}

export async function closedScopesWithEntries(
  env: Env,
  owning: ScopeRef[],
  now: number,
): Promise<ClosedScopeWithEntries[]> {
  const grace = graceOrSkip(env);
  const checks = new Map<string, Promise<ScopeCheck>>();
  const found: ClosedScopeWithEntries[] = [];
  const failures: unknown[] = [];
  for (const ref of owning) {
    // One check per repository's scope: its state object is shared by every environment, and one
    // re-send queues the destroy of every environment (so at most one per sweep and scope).
    const name = `${ref.repositoryId}/${ref.scope}`;
    let check = checks.get(name);
    if (check === undefined) {
      check = checkScope(env, scopeStateClient(env, ref.repositoryId, ref.scope), ref, now, grace);
      checks.set(name, check);
    }
    // Each scope settles on its own: one failing check must not leave the others unchecked.
    const settled = await check.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    if ("error" in settled) {
      if (!failures.includes(settled.error)) failures.push(settled.error);
      continue;
    }
    const { status, revision, resent, resends } = settled.value;
    if (status !== "closed") continue;
    found.push({
      ...ref,
      revision,
      ...(resent ? { destroysResent: true as const } : {}),
      ...(resends !== undefined ? { resends } : {}),
    });
  }
  if (failures.length > 0) {
    // Every scope was checked; the part still reports the failure (docs/design.md, "Lost destroys").
    throw new Error(`${failures.length} closed scope check(s) failed: ${String(failures[0])}`);
  }
  return found;
}

/**
 * Read once per sweep: a bad value skips only the re-sends (the config check reports it), never
 * the destroys of closes that were never confirmed enqueued (docs/design.md, "Lost destroys").
 */
function graceOrSkip(env: Env): CloseGrace | null {
  try {
    return closeGraceFromEnv(env);
  } catch (error) {
    console.error(`sweep: re-sends skipped: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
}

async function checkScope(
  env: Env,
  client: ScopeStateClient,
  ref: ScopeRef,
  now: number,
  grace: CloseGrace | null,
): Promise<ScopeCheck> {
  const { status, revision, deliveryId } = await client.read();
  if (status !== "closed" || deliveryId === null) return { status, revision, resent: false };
  const repository = repositoryRefById(client.repositoryId, configFromEnv(env).repositories);
  const close = await client.unconfirmedClose();
  if (close !== null) {
    // The same messages the receiver sends, confirmed the same way; a destroy is idempotent, so a
    // crash between the send and the confirmation only sends it once more.
    await enqueueDestroys(env, repository, client, close);
    return { status, revision, resent: true };
  }
  if (grace === null) return { status, revision, resent: false };
  const decision = await client.claimResend({ deliveryId, now, ...grace });
  const told = await tellOperators(env, ref, revision, decision, now);
  if (told.lingeringAt !== undefined || told.exhaustedAt !== undefined || told.released.length > 0) {
    await client.confirmResend({ deliveryId, ...told });
  }
  if (decision.kind !== "resend") return { status, revision, resent: false };
  // The claim blocks other sweeps before the send; the count is confirmed only after it, so a send
  // that fails (or a crash in between) uses up no re-send and the next grace period tries again.
  const environments = configFromEnv(env).environments;
  await enqueueDestroys(env, repository, client, { status: "closed", revision, deliveryId });
  await client.confirmResend({ deliveryId, resends: decision.resends });
  await recordDestroyResend(env, {
    repositoryId: client.repositoryId,
    scope: client.scope,
    revision,
    deliveryId,
    attempt: decision.resends,
    environments,
    actor: "sweep",
    reason: "closed scope still owns entries after the grace period (destroy message lost)",
    at: now,
  });
  return { status, revision, resent: true, resends: decision.resends };
}

/** What the sweep confirms of its notices: sent ones by time, failed ones' claims given back. */
type Told = { lingeringAt?: number; exhaustedAt?: number; released: Array<"lingering" | "exhausted"> };

/** The decision claimed each notice it says to send, so a concurrent sweep sends none of them. */
async function tellOperators(
  env: Env,
  ref: ScopeRef,
  revision: number,
  decision: ResendDecision,
  now: number,
): Promise<Told> {
  const told: Told = { released: [] };
  if (decision.kind === "none") return told;
  const subject = { repositoryId: ref.repositoryId, scope: ref.scope, revision };
  const id = `${ref.repositoryId}/${ref.scope}/${revision}`;
  // Told only once queued (or the kind is off): a failed send gives its claim back and is tried
  // again by the next sweep.
  const sent = (outcome: string) => outcome === "queued" || outcome === "off";
  if (decision.lingering) {
    const outcome = await notify(env, {
      id: `scope-lingering:${id}`,
      kind: "scope-lingering",
      at: now,
      summary: `${ref.scope} still owns entries a day after its pull request closed`,
      subject,
    });
    if (sent(outcome)) told.lingeringAt = now;
    else told.released.push("lingering");
  }
  if (decision.kind === "exhausted" && decision.notify) {
    const outcome = await notify(env, {
      id: `destroy-resends-exhausted:${id}`,
      kind: "destroy-resends-exhausted",
      at: now,
      summary: `${ref.scope} still owns entries after ${decision.resends} re-sent destroys; the sweep stopped re-sending`,
      subject: { ...subject, resends: decision.resends },
    });
    if (sent(outcome)) told.exhaustedAt = now;
    else told.released.push("exhausted");
  }
  return told;
}
