/**
 * The sweep (docs/design.md, "Webhooks and the sweep") as the Cron Trigger runs it: the engine's parts are
 * injected and each is called with what it needs; a failing part neither stops the others nor goes unnoticed.
 */
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { createSweepHandler, sweepAndReport } from "../../workers/sweep/sweep-handler";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { freshPullRequest } from "../webhooks/github-delivery";
import { idleSweepParts } from "./idle-sweep-parts";

const SCHEDULED_AT = Date.parse("2026-05-01T12:00:00Z");

describe("sweep", () => {
  it("asks the intent resolver for intents older than the lease TTL (30 s in wrangler.toml)", async () => {
    const asked: Array<{ olderThan: number; now: number }> = [];
    const report = await sweepAndReport(createScheduledController({ scheduledTime: SCHEDULED_AT }), env, {
      ...idleSweepParts,
      resolveStaleIntents: async (_env, args) => {
        asked.push(args);
        return { resolved: 2 };
      },
    });
    expect(asked).toEqual([{ olderThan: SCHEDULED_AT - 30_000, now: SCHEDULED_AT }]);
    expect(report.intents).toEqual({ ok: true, value: { resolved: 2 } });
  });

  it("reports the closed scopes that still own entries, in each environment, and not the open ones", async () => {
    const closed = `pr-${freshPullRequest()}`;
    const open = `pr-${freshPullRequest()}`;
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, closed).applyEvent({
      status: "closed",
      revision: 42,
      deliveryId: crypto.randomUUID(),
    });
    const report = await sweepAndReport(createScheduledController(), env, {
      ...idleSweepParts,
      scopesOwningEntries: async () => [
        { repositoryId: DEFAULT_REPOSITORY.id, environment: "preview", scope: closed },
        { repositoryId: DEFAULT_REPOSITORY.id, environment: "preview", scope: open },
        { repositoryId: DEFAULT_REPOSITORY.id, environment: "staging", scope: closed },
        { repositoryId: DEFAULT_REPOSITORY.id, environment: "preview", scope: "main" },
      ],
    });
    expect(report.closedWithEntries).toEqual({
      ok: true,
      value: [
        { repositoryId: DEFAULT_REPOSITORY.id, environment: "preview", scope: closed, revision: 42 },
        { repositoryId: DEFAULT_REPOSITORY.id, environment: "staging", scope: closed, revision: 42 },
      ],
    });
  });

  it("a failing part does not stop the others, and the cron invocation fails after the report", async () => {
    let listed = false;
    const scheduled = createSweepHandler({
      ...idleSweepParts,
      resolveStaleIntents: async () => {
        throw new Error("receipts unreachable");
      },
      scopesOwningEntries: async () => {
        listed = true;
        return [];
      },
    });
    await expect(scheduled(createScheduledController(), env)).rejects.toThrow(/a part failed/);
    expect(listed).toBe(true);
  });
});
