/**
 * A scope's revision is the pull request's `updated_at`, and a later revision always wins
 * (docs/webhooks.md, "Revisions"). A delivery dated far ahead of this Worker's clock would win
 * against every real event to come, keeping a scope closed (or open) for good; GitHub stamps
 * `updated_at` itself, so such a revision is a forgery or a broken clock. It is refused 400 and
 * recorded in R2 (`audit/webhooks/<ms>-<delivery>.json`, docs/storage.md), never applied.
 */
import type { Env } from "../../shared/env";
import { SponsonError } from "../../shared/errors";
import type { RepositoryRef } from "../../shared/schemas/repository";
import type { ScopeEvent } from "../scope-state/scope-state-client";

/** How far ahead of the receiver's clock a revision may be (GitHub's and ours drift by seconds). */
export const MAX_REVISION_AHEAD_MS = 5 * 60 * 1000;
export const WEBHOOK_AUDIT_PREFIX = "audit/webhooks/";

export interface ScopeDelivery {
  delivery: string;
  repository: RepositoryRef;
  scope: string;
  event: ScopeEvent;
}

/** Pure: is this revision too far ahead of `now`? */
export function revisionTooFarAhead(revision: number, now: number): boolean {
  return revision - now > MAX_REVISION_AHEAD_MS;
}

export async function refuseFutureRevision(
  env: Env,
  delivery: ScopeDelivery,
  now = Date.now(),
): Promise<void> {
  const { revision } = delivery.event;
  if (!revisionTooFarAhead(revision, now)) return;
  const record = {
    kind: "webhook-future-revision",
    delivery: delivery.delivery,
    repository: delivery.repository,
    scope: delivery.scope,
    status: delivery.event.status,
    revision,
    receivedAt: now,
  };
  await env.RECEIPTS.put(`${WEBHOOK_AUDIT_PREFIX}${now}-${delivery.delivery}.json`, JSON.stringify(record), {
    httpMetadata: { contentType: "application/json" },
  });
  console.warn(`webhook ${delivery.delivery}: revision ${revision} is ahead of the clock (${now}); refused`);
  throw new SponsonError(
    "VALIDATION",
    `the pull request's updated_at is more than ${MAX_REVISION_AHEAD_MS / 60_000} minutes ahead of this service's clock; refused and recorded`,
    { rule: "webhook.future-revision", revision, receivedAt: now },
  );
}
