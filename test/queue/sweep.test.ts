/**
 * The sweep (docs/design.md, "Webhooks and the sweep") as the Cron Trigger runs it: the engine's parts are
 * injected and each is called with what it needs; a failing part neither stops the others nor goes unnoticed.
 */
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { QueuedDestroy } from "../../workers/queue/queued-destroy";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { createSweepHandler, sweepAndReport } from "../../workers/sweep/sweep-handler";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { envWith, freshPullRequest } from "../webhooks/github-delivery";
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
    const deliveryId = crypto.randomUUID();
    const state = scopeStateClient(env, DEFAULT_REPOSITORY.id, closed);
    await state.applyEvent({ status: "closed", revision: 42, deliveryId });
    // Its destroys were enqueued (confirmed): the sweep only reports it.
    await state.markEnqueued(deliveryId);
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

  it("a close whose destroy enqueue was never confirmed is re-sent by the sweep, once, then confirmed", async () => {
    const scope = `pr-${freshPullRequest()}`;
    const deliveryId = crypto.randomUUID();
    // The receiver stored the close, then died (or the queue refused the batch) before it could
    // confirm the enqueue; GitHub does not redeliver, so only the sweep can send the destroys.
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent({
      status: "closed",
      revision: 77,
      deliveryId,
    });
    const sent: QueuedDestroy[] = [];
    const recording = {
      send: async (body: QueuedDestroy) => {
        sent.push(body);
      },
      sendBatch: async (messages: Iterable<{ body: QueuedDestroy }>) => {
        sent.push(...[...messages].map((m) => m.body));
      },
    } as unknown as Queue<QueuedDestroy>;
    const sweepEnv = envWith(recording);
    const parts = {
      ...idleSweepParts,
      scopesOwningEntries: async () => [
        { repositoryId: DEFAULT_REPOSITORY.id, environment: "preview", scope },
      ],
    };
    const report = await sweepAndReport(createScheduledController(), sweepEnv, parts);
    expect(report.closedWithEntries).toEqual({
      ok: true,
      value: [
        {
          repositoryId: DEFAULT_REPOSITORY.id,
          environment: "preview",
          scope,
          revision: 77,
          destroysResent: true,
        },
      ],
    });
    // One destroy per configured environment, for the close that was never confirmed.
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((m) => m.scope === scope && m.revision === 77 && m.deliveryId === deliveryId)).toBe(
      true,
    );
    // Confirmed now: the next sweep reports the scope again (its destroy may still be on the
    // queue) but sends nothing more.
    const count = sent.length;
    const again = await sweepAndReport(createScheduledController(), sweepEnv, parts);
    expect(again.closedWithEntries).toEqual({
      ok: true,
      value: [{ repositoryId: DEFAULT_REPOSITORY.id, environment: "preview", scope, revision: 77 }],
    });
    expect(sent.length).toBe(count);
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

describe("sweep notifications", () => {
  it("an orphan found is told once, not at every sweep; found again after it was gone, it is told again", async () => {
    const told: Array<{ kind: string }> = [];
    const notifications = {
      send: async (body: { kind: string }) => void told.push(body),
    } as unknown as Queue;
    const sweepEnv = Object.assign(Object.create(env as object), { NOTIFY_QUEUE: notifications });
    const orphan = {
      parent: "auth0:orphans.us.auth0.com:client:preview-app",
      op: "auth0.callbackUrl",
      key: "https://pr-1.preview.example.com/callback",
      connection: "auth0-orphans",
      environments: ["preview"],
    };
    const found = { ...idleSweepParts, orphans: async () => ({ orphans: [orphan], problems: [] }) };
    await sweepAndReport(createScheduledController(), sweepEnv, found);
    await sweepAndReport(createScheduledController(), sweepEnv, found);
    expect(told).toEqual([
      expect.objectContaining({
        kind: "orphan-found",
        subject: expect.objectContaining({ key: orphan.key }),
      }),
    ]);
    await sweepAndReport(createScheduledController(), sweepEnv, idleSweepParts);
    await sweepAndReport(createScheduledController(), sweepEnv, found);
    expect(told).toHaveLength(2);
  });
});
