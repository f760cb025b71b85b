/**
 * The destroy queue's consumer: the destroys a close enqueued, consumed with the default or an
 * injected runner; acked on an outcome, retried with backoff on a failure.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  DESTROY_QUEUE_NAME,
  type DestroyRunner,
  type QueuedDestroy,
} from "../../workers/queue/queued-destroy";
import { RETRY_BASE_SECONDS } from "../../workers/queue/retry-backoff";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { freshPullRequest, pullRequestPayload, webhookReceiver } from "../webhooks/github-delivery";
import { batchOf, consume } from "./queue-batches";

const CLOSED_AT = "2026-04-01T09:00:00Z";
const REOPENED_AT = "2026-04-01T09:02:00Z";

/** Delivers a signed close and returns the destroy messages it enqueued. */
async function closePullRequest(pr: number): Promise<QueuedDestroy[]> {
  const receiver = webhookReceiver();
  await receiver.deliver({ body: JSON.stringify(pullRequestPayload("closed", pr, CLOSED_AT)) });
  return receiver.sent;
}

describe("destroy consumer", () => {
  it("the destroys a close enqueued reach the runner, one per environment, and are acked", async () => {
    const jobs = await closePullRequest(freshPullRequest());
    const seen: QueuedDestroy[] = [];
    const runDestroy: DestroyRunner = async (_env, job) => {
      seen.push(job);
      return { outcome: "destroyed" };
    };
    const batch = batchOf(DESTROY_QUEUE_NAME, jobs);
    const { handled, result } = await consume(batch, { runDestroy });
    expect(seen.map((j) => j.environment).sort()).toEqual(["preview", "staging"]);
    expect(result.explicitAcks.sort()).toEqual(batch.messages.map((m) => m.id).sort());
    expect(result.retryMessages).toEqual([]);
    expect(handled).toMatchObject({ queue: "destroys" });
  });

  it("the default runner lets a destroy proceed while the scope is still closed at its revision", async () => {
    const jobs = await closePullRequest(freshPullRequest());
    const { handled } = await consume(batchOf(DESTROY_QUEUE_NAME, jobs));
    expect(
      handled.queue === "destroys" && handled.reports.map((r) => r.status === "done" && r.outcome),
    ).toEqual(["destroyed", "destroyed"]);
  });

  it("reopen between enqueue and consume: the destroy is skipped, recorded and acked", async () => {
    const pr = freshPullRequest();
    const jobs = await closePullRequest(pr);
    const receiver = webhookReceiver();
    await receiver.deliver({ body: JSON.stringify(pullRequestPayload("reopened", pr, REOPENED_AT)) });

    const batch = batchOf(DESTROY_QUEUE_NAME, jobs);
    const { handled, result } = await consume(batch);
    expect(handled.queue === "destroys" && handled.reports).toEqual(
      jobs.map((job) =>
        expect.objectContaining({
          status: "done",
          job,
          outcome: "skipped-reopened",
          detail: expect.any(String),
        }),
      ),
    );
    expect(result.explicitAcks).toHaveLength(2);
    expect((await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read()).status).toBe("open");
  });

  it("a destroy asked at a revision newer than the stored close is skipped as stale", async () => {
    const pr = freshPullRequest();
    const [job] = await closePullRequest(pr);
    const fromTheFuture = { ...(job as QueuedDestroy), revision: Date.parse(CLOSED_AT) + 1 };
    const { handled } = await consume(batchOf(DESTROY_QUEUE_NAME, [fromTheFuture]));
    expect(handled.queue === "destroys" && handled.reports[0]).toMatchObject({ outcome: "skipped-stale" });
  });

  it("a failing destroy is retried with a delay that grows with the attempt, and not acked", async () => {
    const jobs = await closePullRequest(freshPullRequest());
    const failing: DestroyRunner = async () => {
      throw new Error("provider said 503");
    };
    const first = batchOf(DESTROY_QUEUE_NAME, jobs.slice(0, 1), 1);
    const third = batchOf(DESTROY_QUEUE_NAME, jobs.slice(0, 1), 3);
    const firstRun = await consume(first, { runDestroy: failing });
    const thirdRun = await consume(third, { runDestroy: failing });
    expect(firstRun.result.explicitAcks).toEqual([]);
    expect(firstRun.result.retryMessages).toEqual([{ msgId: first.messages[0]?.id }]);
    expect(thirdRun.result.retryMessages).toEqual([{ msgId: third.messages[0]?.id }]);
    // The plugin's getQueueResult does not keep retry options; the report carries the delay passed.
    expect(firstRun.handled.queue === "destroys" && firstRun.handled.reports[0]).toMatchObject({
      status: "retry",
      delaySeconds: RETRY_BASE_SECONDS,
      error: "provider said 503",
    });
    expect(thirdRun.handled.queue === "destroys" && thirdRun.handled.reports[0]).toMatchObject({
      delaySeconds: RETRY_BASE_SECONDS * 4,
    });
  });

  it("one environment failing does not hold back the other: preview acked, staging retried", async () => {
    const jobs = await closePullRequest(freshPullRequest());
    const runDestroy: DestroyRunner = async (_env, job) => {
      if (job.environment === "staging") throw new Error("staging provider down");
      return { outcome: "destroyed" };
    };
    const batch = batchOf(DESTROY_QUEUE_NAME, jobs);
    const { result } = await consume(batch, { runDestroy });
    const idOf = (environment: string) =>
      batch.messages.find((m) => (m.body as QueuedDestroy).environment === environment)?.id;
    expect(result.explicitAcks).toEqual([idOf("preview")]);
    expect(result.retryMessages.map((r) => r.msgId)).toEqual([idOf("staging")]);
  });

  it("a message no runner could use is dropped (acked) and reported, never retried forever", async () => {
    let calls = 0;
    const runDestroy: DestroyRunner = async () => {
      calls += 1;
      return { outcome: "destroyed" };
    };
    const batch = batchOf(DESTROY_QUEUE_NAME, [
      { environment: "preview", scope: "not a scope", revision: -1 },
    ]);
    const { handled, result } = await consume(batch, { runDestroy });
    expect(calls).toBe(0);
    expect(result.explicitAcks).toHaveLength(1);
    expect(handled.queue === "destroys" && handled.reports[0]).toMatchObject({ status: "malformed" });
  });

  it("a batch from a queue the Worker has no consumer for fails as a whole, so nothing is lost", async () => {
    await expect(consume(batchOf("some-other-queue", [{}]))).rejects.toThrow(/no consumer/);
  });
});
