import type { Env } from "../../shared/env";
import { type QueuedDestroy, queuedDestroySchema } from "../../shared/schemas/queued-destroy";
import {
  isPlatformApplyBody,
  type QueuedPlatformApply,
  queuedPlatformApplySchema,
} from "../../shared/schemas/queued-platform-apply";
import { configFromEnv } from "../config/config";
import { legacyRepository } from "../repositories/configured";

/** The default queue names; a deployment may name its own (workers/queue/queue-names.ts). */
export { DEAD_LETTER_QUEUE_NAME, DESTROY_QUEUE_NAME } from "./queue-names";

export { type QueuedDestroy, queuedDestroySchema };

/**
 * A queued body as a job. Jobs enqueued before scopes carried a repository have no
 * `repositoryId`: they belong to the one configured repository, and with several configured they
 * are refused (malformed) rather than guessed.
 */
export function parseQueuedDestroy(env: Env, body: unknown) {
  const parsed = queuedDestroySchema.safeParse(body);
  if (parsed.success || typeof body !== "object" || body === null || "repositoryId" in body) return parsed;
  const only = legacyRepository(configFromEnv(env).repositories);
  if (only === undefined) return parsed;
  return queuedDestroySchema.safeParse({ ...body, repositoryId: only.id, repositoryName: only.name });
}

export type DestroyOutcome = "destroyed" | "skipped-reopened" | "skipped-stale";

export interface DestroyResult {
  outcome: DestroyOutcome;
  detail?: string;
}

/**
 * Runs one queued destroy. It must re-check the scope state under the scope lease (use
 * `destroyDecision`) and be idempotent: a message can be delivered more than once. Throwing asks
 * the queue to retry; after max_retries the message goes to the dead-letter queue.
 */
export type DestroyRunner = (env: Env, job: QueuedDestroy) => Promise<DestroyResult>;

/** A message of the destroy queue: a destroy, or a platform apply (docs/design.md, "The platform door"). */
export type QueuedJob = QueuedDestroy | QueuedPlatformApply;

/** A queued body as either kind of job; what it is not is said as zod says it. */
export function parseQueuedJob(env: Env, body: unknown) {
  if (isPlatformApplyBody(body)) return queuedPlatformApplySchema.safeParse(body);
  return parseQueuedDestroy(env, body);
}
