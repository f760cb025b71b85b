/**
 * The message a closed pull request puts on the destroy queue, one per environment (docs/design.md,
 * "Webhooks and the sweep"). What runs it: workers/queue/queued-destroy.ts.
 */
import { z } from "zod";
import { isValidEnvironment, isValidScope } from "../lock-keys";
import { repositoryIdSchema } from "./repository";

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
