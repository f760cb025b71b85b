/**
 * What the sweep does with one parked destroy (docs/design.md, "Webhooks and the sweep";
 * docs/storage.md, "Dead letters"): re-drive it, or set it aside because no later sweep would
 * either. Pure: the letter as read, what is configured and `now` are passed in.
 */
import type { SetAsideReason } from "../audit/set-aside-letters";
import type { DeadLetter } from "../queue/dead-letters";
import type { QueuedJob } from "../queue/queued-destroy";

/** A destroy re-driven this many times stays out: it needs a human, not another loop. */
export const MAX_REDRIVES = 3;

/**
 * A letter parked this long was never re-driven (every send failed, sweep after sweep): past it,
 * it is set aside for an operator rather than tried for ever. Longer than any queue outage the
 * sweep should ride out; the close's own re-sends (SPONSON_CLOSE_GRACE_SECONDS) still run.
 */
export const DEAD_LETTER_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * A parked letter as read: its destroy (or platform apply, re-driven the same way: it re-checks its
 * scope and its deployment's order under the lease), or why it is none.
 */
export type ReadLetter = { letter: DeadLetter; job: QueuedJob } | { unparseable: string };

/** What this deployment configures now. An empty repository set checks no repository. */
export interface Configured {
  repositoryIds: ReadonlySet<number>;
  environments: ReadonlySet<string>;
}

export type Fate =
  | { kind: "redrive"; job: QueuedJob }
  | { kind: "set-aside"; reason: SetAsideReason; detail: string; job?: QueuedJob };

export function letterFate(read: ReadLetter, configured: Configured, now: number): Fate {
  if ("unparseable" in read) return { kind: "set-aside", reason: "unparseable", detail: read.unparseable };
  const { letter, job } = read;
  const aside = (reason: SetAsideReason, detail: string): Fate => ({
    kind: "set-aside",
    reason,
    detail,
    job,
  });
  // No repository configured at all is a deployment being set up, not one that dropped this one.
  if (configured.repositoryIds.size > 0 && !configured.repositoryIds.has(job.repositoryId))
    return aside(
      "repository-not-configured",
      `repository ${job.repositoryId} is not in SPONSON_REPOSITORIES`,
    );
  if (!configured.environments.has(job.environment))
    return aside(
      "environment-not-configured",
      `environment ${job.environment} is not in SPONSON_ENVIRONMENTS`,
    );
  const redrives = job.redrives ?? 0;
  if (redrives >= MAX_REDRIVES)
    return aside("redrives-exhausted", `re-driven ${redrives} times, failed every time`);
  if (now - letter.deadAt > DEAD_LETTER_MAX_AGE_MS)
    return aside("too-old", `parked at ${new Date(letter.deadAt).toISOString()}, never re-driven since`);
  return { kind: "redrive", job };
}
