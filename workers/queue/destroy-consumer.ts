/**
 * Consumer of the destroy queue: one runner call per message, each acked or retried on its own,
 * so one failing environment does not hold back the others. Skips are recorded (logged and
 * returned) because the caller — the engine, through its receipts — reports them.
 */
import type { Env } from "../../shared/env";
import {
  type DestroyResult,
  type DestroyRunner,
  parseQueuedDestroy,
  type QueuedDestroy,
} from "./queued-destroy";
import { retryDelaySeconds } from "./retry-backoff";

export type DestroyReport =
  | ({ messageId: string; status: "done"; job: QueuedDestroy } & DestroyResult)
  | { messageId: string; status: "retry"; job: QueuedDestroy; delaySeconds: number; error: string }
  | { messageId: string; status: "malformed"; error: string };

export async function consumeDestroys(
  batch: MessageBatch<unknown>,
  env: Env,
  runDestroy: DestroyRunner,
): Promise<DestroyReport[]> {
  return Promise.all(batch.messages.map((message) => consumeOne(message, env, runDestroy)));
}

async function consumeOne(
  message: Message<unknown>,
  env: Env,
  runDestroy: DestroyRunner,
): Promise<DestroyReport> {
  const parsed = parseQueuedDestroy(env, message.body);
  if (!parsed.success) {
    // A body no runner can use will not improve with retries; drop it loudly.
    const error = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    console.error(JSON.stringify({ event: "destroy-malformed", messageId: message.id, error }));
    message.ack();
    return { messageId: message.id, status: "malformed", error };
  }
  const job = parsed.data;
  try {
    const result = await runDestroy(env, job);
    message.ack();
    const report = { messageId: message.id, status: "done" as const, job, ...result };
    const log = result.outcome === "destroyed" ? console.log : console.warn;
    log(JSON.stringify({ event: "destroy", ...report }));
    return report;
  } catch (err) {
    const delaySeconds = retryDelaySeconds(message.attempts);
    message.retry({ delaySeconds });
    // Only the message: an error from a provider must not carry a secret into the log.
    const error = err instanceof Error ? err.message : String(err);
    console.warn(JSON.stringify({ event: "destroy-retry", messageId: message.id, job, delaySeconds, error }));
    return { messageId: message.id, status: "retry", job, delaySeconds, error };
  }
}
