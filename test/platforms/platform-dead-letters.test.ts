/**
 * A platform apply shares the destroy queue, so it shares its dead letters (docs/design.md, "The
 * platform door"): one that failed every retry is parked, then re-driven by the sweep like a destroy
 * (under its scope lease it re-checks the scope and its deployment's order), and set aside by the
 * same rules.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { QueuedPlatformApply } from "../../shared/schemas/queued-platform-apply";
import { parseQueuedJob } from "../../workers/queue/queued-destroy";
import { letterFate } from "../../workers/sweep/dead-letter-fate";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";

const job: QueuedPlatformApply = {
  kind: "platform-apply",
  platform: "vercel",
  connection: "web-vercel",
  target: "prj_abc",
  repositoryId: DEFAULT_REPOSITORY.id,
  repositoryName: DEFAULT_REPOSITORY.name,
  environment: "preview",
  scope: "pr-5",
  eventId: "vercel:evt_1",
  deployment: {
    id: "dpl_1",
    createdAt: 1_800_000_000_000,
    url: "https://web-1-acme.vercel.app",
    pullRequest: 5,
    branch: "feature-5",
    sha: null,
  },
  receivedAt: 1_800_000_000_100,
};

const configured = { repositoryIds: new Set([DEFAULT_REPOSITORY.id]), environments: new Set(["preview"]) };
const letter = (body: unknown, redrives = 0) => ({
  messageId: "m1",
  body: { ...(body as object), redrives },
  attempts: 6,
  deadAt: 1_800_000_000_000,
});

describe("a dead-lettered platform apply", () => {
  it("reads as a platform apply, not as a malformed destroy", () => {
    const parsed = parseQueuedJob(env, job);
    expect(parsed.success).toBe(true);
    expect(parsed.data).toMatchObject({ kind: "platform-apply", scope: "pr-5" });
  });

  it("is re-driven like a destroy, and set aside after as many re-drives", () => {
    const read = (redrives: number) => ({ letter: letter(job, redrives), job: { ...job, redrives } });
    expect(letterFate(read(0), configured, 1_800_000_100_000)).toMatchObject({ kind: "redrive" });
    expect(letterFate(read(3), configured, 1_800_000_100_000)).toMatchObject({
      kind: "set-aside",
      reason: "redrives-exhausted",
    });
  });
});
