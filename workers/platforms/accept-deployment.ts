/**
 * The last step of both platform routes, once the event is verified and its scope known
 * (docs/design.md, "The platform door"): the scope-state object deduplicates the event and orders
 * the deployment in one step; an accepted one's apply goes on the queue (the route answers within
 * the platform's delivery timeout; the run happens in the consumer), and the object is told it is
 * there, so a redelivery of an event whose enqueue failed queues it then.
 */
import type { Env } from "../../shared/env";
import { SponsonError } from "../../shared/errors";
import type { PlatformDeployment, QueuedPlatformApply } from "../../shared/schemas/queued-platform-apply";
import type { RepositoryRef } from "../../shared/schemas/repository";
import { scopeStateClient } from "../scope-state/scope-state-client";
import type { PlatformConnection } from "./platform-schema";

export interface VerifiedEvent {
  connection: PlatformConnection;
  repository: RepositoryRef;
  /** `<platform>:<id>`. */
  eventId: string;
  scope: string;
  deployment: PlatformDeployment;
  receivedAt: number;
}

export type AcceptOutcome =
  | { kind: "accepted"; reason: string; queued: true }
  | { kind: "duplicate"; queued: boolean }
  | { kind: "ignored"; reason: string; queued: false };

export async function acceptDeployment(env: Env, event: VerifiedEvent): Promise<AcceptOutcome> {
  const { connection, repository, deployment } = event;
  const client = scopeStateClient(env, repository.id, event.scope);
  const outcome = await client.applyPlatformEvent({
    eventId: event.eventId,
    connection: connection.name,
    deploymentId: deployment.id,
    createdAt: deployment.createdAt,
  });
  if (outcome.kind === "ignored")
    return { kind: "ignored", reason: ignoredReason(outcome.reason), queued: false };
  if (outcome.kind === "duplicate" && !resendsPending(outcome, event.receivedAt))
    return { kind: "duplicate", queued: false };
  const job: QueuedPlatformApply = {
    kind: "platform-apply",
    platform: connection.platform,
    connection: connection.name,
    target: connection.platform === "vercel" ? connection.project : connection.site,
    repositoryId: repository.id,
    repositoryName: repository.name,
    environment: connection.environment,
    scope: event.scope,
    eventId: event.eventId,
    deployment,
    receivedAt: event.receivedAt,
  };
  try {
    await env.DESTROY_QUEUE.send(job, { contentType: "json" });
  } catch (err) {
    // Not queued: the platform's redelivery must be taken as new, not as a duplicate.
    await client.forgetPlatformEvent(event.eventId).catch(() => {});
    throw new SponsonError(
      "INTERNAL",
      "the event's apply could not be queued; deliver it again",
      {},
      { cause: err },
    );
  }
  await client.markPlatformEnqueued(event.eventId);
  return outcome.kind === "duplicate"
    ? { kind: "duplicate", queued: true }
    : { kind: "accepted", reason: outcome.reason, queued: true };
}

/**
 * How long a first delivery has to confirm its apply queued before a redelivery queues it instead:
 * far longer than a send takes, so duplicates delivered at the same moment (platforms do) queue
 * one apply, not one each; a first delivery that died after the scope-state step is made good by
 * the platform's next retry past it.
 */
export const ENQUEUE_GRACE_MS = 30_000;

/** Pure: does this redelivery queue the apply its first delivery never confirmed? */
export function resendsPending(seen: { enqueuePending: boolean; receivedAt: number }, now: number): boolean {
  return seen.enqueuePending && now - seen.receivedAt >= ENQUEUE_GRACE_MS;
}

function ignoredReason(reason: "older" | "tie" | "closed"): string {
  switch (reason) {
    case "older":
      return "a newer deployment of this scope was accepted already";
    case "tie":
      return "another deployment of this scope created the same millisecond was accepted already";
    case "closed":
      return "the pull request is closed";
  }
}
