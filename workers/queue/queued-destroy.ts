/**
 * The message a closed pull request puts on the destroy queue, one per environment (docs/design.md, "Webhooks
 * and the sweep"), and the contract of whatever runs it. The engine supplies the real runner; the consumer
 * only acks, retries and records.
 */
import { z } from "zod";
import type { Env } from "../../shared/env";
import { isValidEnvironment, isValidScope } from "../../shared/lock-keys";
import { repositoryIdSchema } from "../../shared/schemas/repository";
import { configFromEnv } from "../config/config";
import { legacyRepository } from "../repositories/configured";

/** Must match wrangler.toml: the consumer dispatches on the batch's queue name. */
export const DESTROY_QUEUE_NAME = "sponson-destroys";
export const DEAD_LETTER_QUEUE_NAME = "sponson-destroys-dlq";

export const queuedDestroySchema = z.object({
  /** The repository whose scope is destroyed: only that repository's receipt, lock and state. */
  repositoryId: repositoryIdSchema,
  /** Its name when the close was received (for receipts and logs; the id decides). */
  repositoryName: z.string().min(1).max(201).optional(),
  environment: z.string().refine(isValidEnvironment, "not a valid environment name"),
  scope: z.string().refine(isValidScope, "not a valid scope name"),
  /** The revision of the close that asked for this destroy (pull_request.updated_at, epoch ms). */
  revision: z.number().int().positive(),
  deliveryId: z.string().min(1).max(100),
  /** How many times the sweep has re-driven this job out of the dead-letter queue. */
  redrives: z.number().int().nonnegative().optional(),
});
export type QueuedDestroy = z.infer<typeof queuedDestroySchema>;

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
