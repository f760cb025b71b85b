/**
 * Destroys (and platform applies, which share their queue) that exhausted their retries land on
 * the dead-letter queue; its consumer parks each one in R2 under `dead-letters/<message id>.json` so the sweep can re-drive it (GitHub will not
 * redeliver the webhook, so nothing else would).
 */
import { z } from "zod";
import type { Env } from "../../shared/env";
import { notify } from "../notify/notify";
import { parseQueuedJob } from "./queued-destroy";

export const DEAD_LETTER_PREFIX = "dead-letters/";

export const deadLetterSchema = z.object({
  messageId: z.string(),
  /** The original message body, unvalidated: the sweep validates before re-driving. */
  body: z.unknown(),
  attempts: z.number(),
  deadAt: z.number(),
});
export type DeadLetter = z.infer<typeof deadLetterSchema>;

export function deadLetterKey(messageId: string): string {
  return `${DEAD_LETTER_PREFIX}${encodeURIComponent(messageId)}.json`;
}

export async function storeDeadLetters(
  batch: MessageBatch<unknown>,
  env: Env,
  now: number,
): Promise<string[]> {
  const stored: string[] = [];
  await Promise.all(
    batch.messages.map(async (message) => {
      const letter: DeadLetter = {
        messageId: message.id,
        body: message.body,
        attempts: message.attempts,
        deadAt: now,
      };
      const key = deadLetterKey(message.id);
      try {
        // Same id, same content: a redelivered dead letter overwrites itself harmlessly.
        await env.RECEIPTS.put(key, JSON.stringify(letter), {
          httpMetadata: { contentType: "application/json" },
        });
        message.ack();
        stored.push(key);
        console.warn(JSON.stringify({ event: "destroy-dead-letter", key, body: message.body }));
        await notifyDeadLetter(env, letter);
      } catch (err) {
        message.retry();
        console.error(JSON.stringify({ event: "dead-letter-store-failed", key, error: String(err) }));
      }
    }),
  );
  return stored;
}

/** Operators are told (docs/operations.md, "Notifications"); the sweep re-drives it meanwhile. */
async function notifyDeadLetter(env: Env, letter: DeadLetter): Promise<void> {
  const job = parseQueuedJob(env, letter.body);
  const subject: Record<string, string | number> = job.success
    ? {
        repositoryId: job.data.repositoryId,
        environment: job.data.environment,
        scope: job.data.scope,
        ...("kind" in job.data
          ? { platform: job.data.platform, deployment: job.data.deployment.id }
          : { revision: job.data.revision }),
        attempts: letter.attempts,
        redrives: job.data.redrives ?? 0,
      }
    : { messageId: letter.messageId, attempts: letter.attempts };
  const what = job.success ? `${job.data.environment}/${job.data.scope}` : `message ${letter.messageId}`;
  const action =
    job.success && "kind" in job.data
      ? `the platform apply of ${job.data.platform} deployment ${job.data.deployment.id} to`
      : "the destroy of";
  await notify(env, {
    id: `destroy-dead-lettered:${letter.messageId}`,
    kind: "destroy-dead-lettered",
    at: letter.deadAt,
    summary: `${action} ${what} failed every retry and was parked for the sweep to re-drive`,
    subject,
  });
}
