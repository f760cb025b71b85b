/**
 * The few fields of a `pull_request` webhook the receiver acts on; everything else in GitHub's
 * payload passes through unread. `closed` and `reopened` are the only actions that move a scope.
 */
import { z } from "zod";
import type { ScopeEvent } from "../scope-state/scope-state-client";

/**
 * GitHub's action names are lowercase words joined by `_` (`closed`, `ready_for_review`): anything
 * else, `__proto__` included, is not GitHub's and is refused before it is looked up anywhere.
 */
export const PULL_REQUEST_ACTION = /^[a-z][a-z_]{0,63}$/;

export const pullRequestEventSchema = z.looseObject({
  action: z.string().regex(PULL_REQUEST_ACTION, "not a GitHub pull_request action"),
  number: z.number().int().positive().max(9_999_999_999),
  pull_request: z.looseObject({
    /** GitHub bumps it on every change of the pull request: the scope's revision. */
    updated_at: z.iso.datetime({ offset: true }),
  }),
  repository: z.looseObject({
    id: z.number().int().positive(),
    full_name: z.string().min(1),
  }),
});
export type PullRequestEvent = z.infer<typeof pullRequestEventSchema>;

// A Map, not an object literal: `constructor` or `toString` must find nothing, not a function.
const STATUS_BY_ACTION: ReadonlyMap<string, ScopeEvent["status"]> = new Map([
  ["closed", "closed"],
  ["reopened", "open"],
]);

/** The scope event a pull_request action stands for, or null for actions that move no scope. */
export function scopeEventOf(
  event: PullRequestEvent,
  deliveryId: string,
): { scope: string; event: ScopeEvent } | null {
  const status = STATUS_BY_ACTION.get(event.action);
  if (status === undefined) return null;
  return {
    scope: `pr-${event.number}`,
    event: { status, revision: Date.parse(event.pull_request.updated_at), deliveryId },
  };
}
