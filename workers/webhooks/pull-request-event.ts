/**
 * The few fields of a `pull_request` webhook the receiver acts on; everything else in GitHub's
 * payload passes through unread. `closed` and `reopened` are the only actions that move a scope.
 */
import { z } from "zod";
import type { ScopeEvent } from "../scope-state/scope-state-client";

export const pullRequestEventSchema = z.looseObject({
  action: z.string(),
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

const STATUS_BY_ACTION: Record<string, ScopeEvent["status"] | undefined> = {
  closed: "closed",
  reopened: "open",
};

/** The scope event a pull_request action stands for, or null for actions that move no scope. */
export function scopeEventOf(
  event: PullRequestEvent,
  deliveryId: string,
): { scope: string; event: ScopeEvent } | null {
  const status = STATUS_BY_ACTION[event.action];
  if (status === undefined) return null;
  return {
    scope: `pr-${event.number}`,
    event: { status, revision: Date.parse(event.pull_request.updated_at), deliveryId },
  };
}
