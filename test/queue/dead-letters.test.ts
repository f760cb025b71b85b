/**
 * After max_retries a destroy lands on the dead-letter queue (wrangler.toml); its consumer parks
 * it in R2, where the sweep finds it and puts it back on the destroy queue.
 */
import { createScheduledController, type ScheduledControllerOptions } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deadLetterKey } from "../../workers/queue/dead-letters";
import { DEAD_LETTER_QUEUE_NAME, type QueuedDestroy } from "../../workers/queue/queued-destroy";
import { sweepAndReport } from "../../workers/sweep/sweep-handler";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { envWith, freshPullRequest, recordingQueue, workerEntry } from "../webhooks/github-delivery";
import { idleSweepParts } from "./idle-sweep-parts";
import { batchOf, consume } from "./queue-batches";

function deadDestroy(redrives?: number): QueuedDestroy {
  return {
    repositoryId: DEFAULT_REPOSITORY.id,
    environment: "preview",
    scope: `pr-${freshPullRequest()}`,
    revision: Date.parse("2026-04-01T09:00:00Z"),
    deliveryId: crypto.randomUUID(),
    ...(redrives === undefined ? {} : { redrives }),
  };
}

describe("dead letters", () => {
  it("the dead-letter consumer parks each message in R2 under dead-letters/<id>.json and acks it", async () => {
    const job = deadDestroy();
    const batch = batchOf(DEAD_LETTER_QUEUE_NAME, [job], 6);
    const { handled, result } = await consume(batch);
    const id = batch.messages[0]?.id as string;
    expect(handled).toEqual({ queue: "dead-letters", stored: [deadLetterKey(id)] });
    expect(result.explicitAcks).toEqual([id]);
    const parked = await env.RECEIPTS.get(deadLetterKey(id));
    expect(await parked?.json()).toMatchObject({ messageId: id, body: job, attempts: 6 });
  });

  it("the sweep re-drives a parked destroy onto the destroy queue and removes it from R2", async () => {
    const job = deadDestroy();
    const batch = batchOf(DEAD_LETTER_QUEUE_NAME, [job], 6);
    await consume(batch);
    const key = deadLetterKey(batch.messages[0]?.id as string);

    const queue = recordingQueue();
    const report = await sweepAndReport(
      createScheduledController({ cron: "*/10 * * * *" }),
      envWith(queue.queue),
      idleSweepParts,
    );
    expect(report.deadLetters).toMatchObject({
      ok: true,
      value: { redriven: expect.arrayContaining([key]) },
    });
    expect(queue.sent).toContainEqual({ ...job, redrives: 1 });
    expect(await env.RECEIPTS.head(key)).toBeNull();
  });

  it("a destroy re-driven three times is set aside in the audit trail, not looped again", async () => {
    const job = deadDestroy(3);
    const batch = batchOf(DEAD_LETTER_QUEUE_NAME, [job], 6);
    await consume(batch);
    const key = deadLetterKey(batch.messages[0]?.id as string);

    const queue = recordingQueue();
    const report = await sweepAndReport(createScheduledController(), envWith(queue.queue), idleSweepParts);
    expect(report.deadLetters).toMatchObject({
      ok: true,
      value: {
        setAside: expect.arrayContaining([expect.objectContaining({ key, reason: "redrives-exhausted" })]),
      },
    });
    expect(queue.sent.filter((m) => m.deliveryId === job.deliveryId)).toEqual([]);
    expect(await env.RECEIPTS.head(key)).toBeNull();
    const moved = report.deadLetters.ok
      ? report.deadLetters.value.setAside.find((s) => s.key === key)
      : undefined;
    expect(await (await env.RECEIPTS.get(moved?.to ?? ""))?.json()).toMatchObject({
      key,
      reason: "redrives-exhausted",
      letter: { body: job },
    });
  });

  it("the Worker's own cron entry re-drives a parked destroy", async () => {
    const batch = batchOf(DEAD_LETTER_QUEUE_NAME, [deadDestroy()], 6);
    await consume(batch);
    const key = deadLetterKey(batch.messages[0]?.id as string);
    // The loopback Fetcher of the main module runs its scheduled() with the real bindings.
    const entry = workerEntry() as unknown as {
      scheduled(options: ScheduledControllerOptions): Promise<unknown>;
    };
    await entry.scheduled({ cron: "*/10 * * * *", scheduledTime: new Date() });
    expect(await env.RECEIPTS.head(key)).toBeNull();
  });
});
