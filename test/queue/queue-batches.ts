/** Test helpers: message batches for the destroy queue and the dead-letter queue. */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { Env } from "../../shared/env";
import { handleQueueBatch, type QueueHandlerDeps } from "../../workers/queue/queue-handler";
import { checkOnlyDestroyRunner } from "./check-only-destroy-runner";

export function batchOf(queue: string, bodies: unknown[], attempts = 1) {
  return createMessageBatch<unknown>(
    queue,
    bodies.map((body) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts, body })),
  );
}

/** Runs the Worker's queue handler on a batch; returns its reports and the ack/retry state. */
export async function consume(
  batch: MessageBatch<unknown>,
  deps: QueueHandlerDeps = { runDestroy: checkOnlyDestroyRunner },
  testEnv: Env = env,
) {
  const ctx = createExecutionContext();
  const handled = await handleQueueBatch(batch, testEnv, deps);
  const result = await getQueueResult(batch, ctx);
  return { handled, result };
}
