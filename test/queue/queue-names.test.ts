/**
 * Queue names are configuration, so staging and production can share one account: the consumer
 * tells its two queues apart by SPONSON_DESTROY_QUEUE and SPONSON_DEAD_LETTER_QUEUE (defaults
 * sponson-destroys and sponson-destroys-dlq), and still refuses a queue it has no consumer for.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deadLetterKey } from "../../workers/queue/dead-letters";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { freshPullRequest } from "../webhooks/github-delivery";
import { batchOf, consume } from "./queue-batches";

const staging = {
  ...env,
  SPONSON_DESTROY_QUEUE: "staging-sponson-destroys",
  SPONSON_DEAD_LETTER_QUEUE: "staging-sponson-destroys-dlq",
};
const job = () => ({
  repositoryId: DEFAULT_REPOSITORY.id,
  environment: "preview",
  scope: `pr-${freshPullRequest()}`,
  revision: Date.parse("2026-04-01T09:00:00Z"),
  deliveryId: crypto.randomUUID(),
});

describe("configured queue names", () => {
  it("a deployment's own dead-letter queue is consumed as dead letters", async () => {
    const batch = batchOf("staging-sponson-destroys-dlq", [job()], 6);
    const { handled } = await consume(batch, undefined, staging);
    expect(handled).toEqual({
      queue: "dead-letters",
      stored: [deadLetterKey(batch.messages[0]?.id as string)],
    });
  });

  it("a deployment's own destroy queue is consumed as destroys", async () => {
    const { handled } = await consume(batchOf("staging-sponson-destroys", [job()]), undefined, staging);
    expect(handled.queue).toBe("destroys");
  });

  it("another deployment's queue name is not consumed by this one", async () => {
    await expect(consume(batchOf("sponson-destroys", [job()]), undefined, staging)).rejects.toThrow(
      /no consumer for queue sponson-destroys/,
    );
  });
});
