/**
 * Journey (issue 33): pr-9100 is applied, its signed `closed` webhook is answered 200 with its
 * destroys confirmed on the queue, and then the messages are lost (a consumer that acked without
 * finishing, a retention expiry, the local runtime's in-memory queue). The sweep re-sends the
 * destroys once the close is older than SPONSON_CLOSE_GRACE_SECONDS, at most once per grace period,
 * records it in the audit trail, and the entries are gone; within the grace period (a destroy that
 * is merely slow) it sends nothing. After SPONSON_CLOSE_MAX_RESENDS re-sends it stops and notifies.
 * The clock is the sweep's scheduled time (injected), never a sleep.
 */
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import type { Env } from "../../shared/env";
import { listAudit } from "../../workers/audit/audit-trail";
import { DESTROY_QUEUE_NAME, type QueuedDestroy } from "../../workers/queue/queued-destroy";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { DEFAULT_CLOSE_GRACE_SECONDS } from "../../workers/sweep/close-grace";
import { sweepAndReport } from "../../workers/sweep/sweep-handler";
import { engineDestroyRunner, engineSweepParts } from "../../workers/wiring/background";
import { apply, testApp } from "../helpers/app";
import { testEnv } from "../helpers/connections";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { pullRequestPayload, signedRequest } from "../webhooks/github-delivery";
import { batchOf, consume } from "./queue-batches";

/** A queue that confirms every send and delivers nothing: the lost message, made certain. */
function losingQueue() {
  const sent: QueuedDestroy[] = [];
  const queue = {
    send: async (body: QueuedDestroy) => {
      sent.push(body);
    },
    sendBatch: async (messages: Iterable<{ body: QueuedDestroy }>) => {
      sent.push(...[...messages].map((m) => m.body));
    },
  } as unknown as Queue<QueuedDestroy>;
  return { sent, queue };
}

const domain = freshAuth0Domain("lost");
// Registered before any env is built: the consumer's engine reads the connection from its env.
const plan = previewPlan(domain);
const app = testApp();
const store = () => new R2ReceiptStore(env.RECEIPTS);

/** The real sweep parts, limited to this journey's scope (nothing else is swept here). */
function sweepParts(scope: string) {
  const { upgrade: _noUpgradePass, ...real } = engineSweepParts(emulatorTransport);
  return {
    ...real,
    resolveStaleIntents: async () => ({ resolved: 0 }),
    orphans: async () => ({ orphans: [], problems: [] }),
    scopesOwningEntries: async (e: Env) =>
      (await real.scopesOwningEntries(e)).filter((s) => s.scope === scope),
  };
}

async function applyAndLoseTheClose(number: number, sweepEnv: Env) {
  const scope = `pr-${number}`;
  const applied = await apply(app, "preview", scope, plan);
  expect(applied.run.status).toBe("succeeded");
  const payload = pullRequestPayload("closed", number, new Date().toISOString());
  const response = await app.fetch(await signedRequest({ body: JSON.stringify(payload) }), sweepEnv);
  expect(response.status).toBe(200);
  // Confirmed: the sweep's old rule (re-send only unconfirmed closes) never sends these again.
  expect(await response.json()).toMatchObject({
    scope,
    applied: true,
    status: "closed",
    destroysEnqueued: 2,
  });
  const state = await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).read();
  expect(state.status).toBe("closed");
  return { scope, closedAt: state.changedAt as number };
}

const at = (time: number) => createScheduledController({ scheduledTime: time });

beforeAll(async () => {
  await seedTenant(domain);
});

describe("a closed scope whose destroy message was lost after a confirmed send", () => {
  it("is left alone within the grace period, then its destroys are re-sent once and its entries go", async () => {
    const lost = losingQueue();
    const sweepEnv = testEnv({ ...env, DESTROY_QUEUE: lost.queue } as Env);
    const { scope, closedAt } = await applyAndLoseTheClose(9100, sweepEnv);
    const parts = sweepParts(scope);
    const sentByWebhook = lost.sent.length;

    // Control: a destroy that is merely slow (its retries run for minutes) is not sent twice.
    const early = await sweepAndReport(at(closedAt + 60_000), sweepEnv, parts);
    expect(early.closedWithEntries).toMatchObject({ ok: true, value: [{ scope, environment: "preview" }] });
    expect(lost.sent.length).toBe(sentByWebhook);

    // Past the grace period: one destroy per environment, for the close in force.
    const late = closedAt + DEFAULT_CLOSE_GRACE_SECONDS * 1000 + 1_000;
    const report = await sweepAndReport(at(late), sweepEnv, parts);
    expect(report.closedWithEntries).toMatchObject({
      ok: true,
      value: [{ scope, environment: "preview", destroysResent: true, resends: 1 }],
    });
    const resent = lost.sent.slice(sentByWebhook);
    expect(resent.map((m) => m.environment).sort()).toEqual(["preview", "staging"]);
    expect(resent.every((m) => m.scope === scope)).toBe(true);

    // At most once per sweep and per grace period: a second sweep at the same time sends nothing.
    await sweepAndReport(at(late), sweepEnv, parts);
    expect(lost.sent.length).toBe(sentByWebhook + resent.length);

    // Recorded in the audit trail.
    const audit = await listAudit(env);
    expect(audit).toContainEqual(
      expect.objectContaining({
        kind: "destroy-resend",
        scope,
        attempt: 1,
        environments: ["preview", "staging"],
      }),
    );

    // The re-sent messages, delivered this time, destroy the scope.
    const { handled } = await consume(
      batchOf(DESTROY_QUEUE_NAME, resent),
      { runDestroy: engineDestroyRunner(emulatorTransport) },
      sweepEnv,
    );
    expect(handled).toMatchObject({ queue: "destroys", reports: [{ status: "done" }, { status: "done" }] });
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
    expect(
      (await store().read({ repository: DEFAULT_REPOSITORY, environment: "preview", scope })).etag,
    ).toBeNull();
    const after = await sweepAndReport(at(late + 600_000), sweepEnv, parts);
    expect(after.closedWithEntries).toEqual({ ok: true, value: [] });
  });
});

describe("re-sends that never empty the scope", () => {
  it("stop after SPONSON_CLOSE_MAX_RESENDS, and the operators are told once; a day after the close, once more", async () => {
    const number = 200_000 + Math.floor(Math.random() * 1_000_000);
    const scope = `pr-${number}`;
    const deliveryId = crypto.randomUUID();
    const state = scopeStateClient(env, DEFAULT_REPOSITORY.id, scope);
    await state.applyEvent({ status: "closed", revision: 4242, deliveryId });
    await state.markEnqueued(deliveryId);
    const closedAt = (await state.read()).changedAt as number;
    const lost = losingQueue();
    const told: Array<{ kind: string; id: string }> = [];
    const notifications = {
      send: async (body: { kind: string; id: string }) => {
        told.push(body);
      },
    } as unknown as Queue;
    const sweepEnv = {
      ...env,
      DESTROY_QUEUE: lost.queue,
      NOTIFY_QUEUE: notifications,
      SPONSON_CLOSE_GRACE_SECONDS: "600",
      SPONSON_CLOSE_MAX_RESENDS: "2",
    } as Env;
    const parts = {
      resolveStaleIntents: async () => ({ resolved: 0 }),
      orphans: async () => ({ orphans: [], problems: [] }),
      scopesOwningEntries: async () => [
        { repositoryId: DEFAULT_REPOSITORY.id, environment: "preview", scope },
      ],
    };
    const resendsAt = async (time: number) => {
      const report = await sweepAndReport(at(time), sweepEnv, parts);
      return report.closedWithEntries.ok ? report.closedWithEntries.value[0]?.resends : "failed";
    };
    expect(await resendsAt(closedAt + 601_000)).toBe(1);
    expect(await resendsAt(closedAt + 900_000)).toBeUndefined(); // within the new grace period
    expect(await resendsAt(closedAt + 1_202_000)).toBe(2);
    expect(await resendsAt(closedAt + 1_803_000)).toBeUndefined();
    expect(await resendsAt(closedAt + 2_404_000)).toBeUndefined();
    expect(lost.sent.length).toBe(2 * 2); // two re-sends, two environments each
    expect(told.map((n) => n.kind)).toEqual(["destroy-resends-exhausted"]);
    expect(told[0]?.id).toBe(`destroy-resends-exhausted:${DEFAULT_REPOSITORY.id}/${scope}/4242`);

    await resendsAt(closedAt + 24 * 3600_000 + 1);
    await resendsAt(closedAt + 25 * 3600_000);
    expect(told.map((n) => n.kind)).toEqual(["destroy-resends-exhausted", "scope-lingering"]);
    expect(lost.sent.length).toBe(4);
  });
});

describe("a bad grace setting (issue 33)", () => {
  it("skips only the re-sends: every scope is still checked, an unconfirmed close still gets its destroys", async () => {
    const base = 2_000_000 + Math.floor(Math.random() * 1_000_000);
    const confirmed = `pr-${base}`;
    const unconfirmed = `pr-${base + 1}`;
    const first = scopeStateClient(env, DEFAULT_REPOSITORY.id, confirmed);
    const firstDelivery = crypto.randomUUID();
    await first.applyEvent({ status: "closed", revision: 4343, deliveryId: firstDelivery });
    await first.markEnqueued(firstDelivery);
    const closedAt = (await first.read()).changedAt as number;
    // Never confirmed enqueued: the old path sends its destroys at once.
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, unconfirmed).applyEvent({
      status: "closed",
      revision: 4344,
      deliveryId: crypto.randomUUID(),
    });
    const lost = losingQueue();
    const sweepEnv = { ...env, DESTROY_QUEUE: lost.queue, SPONSON_CLOSE_GRACE_SECONDS: "soon" } as Env;
    const parts = {
      resolveStaleIntents: async () => ({ resolved: 0 }),
      orphans: async () => ({ orphans: [], problems: [] }),
      scopesOwningEntries: async () => [
        { repositoryId: DEFAULT_REPOSITORY.id, environment: "preview", scope: confirmed },
        { repositoryId: DEFAULT_REPOSITORY.id, environment: "preview", scope: unconfirmed },
      ],
    };
    const report = await sweepAndReport(at(closedAt + 7200_000), sweepEnv, parts);
    expect(report.closedWithEntries).toMatchObject({
      ok: true,
      value: [{ scope: confirmed }, { scope: unconfirmed, destroysResent: true }],
    });
    expect(lost.sent.every((m) => m.scope === unconfirmed)).toBe(true);
    expect(lost.sent.map((m) => m.environment).sort()).toEqual(["preview", "staging"]);
  });
});

describe("a re-send or notice that fails to send (issue 33)", () => {
  it("uses up no re-send and is not remembered as told: the next sweep sends it", async () => {
    const scope = `pr-${3_000_000 + Math.floor(Math.random() * 1_000_000)}`;
    const deliveryId = crypto.randomUUID();
    const state = scopeStateClient(env, DEFAULT_REPOSITORY.id, scope);
    await state.applyEvent({ status: "closed", revision: 4545, deliveryId });
    await state.markEnqueued(deliveryId);
    const closedAt = (await state.read()).changedAt as number;
    const lost = losingQueue();
    let failing = true;
    const destroys = {
      sendBatch: async (messages: Iterable<{ body: QueuedDestroy }>) => {
        if (failing) throw new Error("queue unavailable");
        await lost.queue.sendBatch([...messages]);
      },
    } as unknown as Queue<QueuedDestroy>;
    const told: Array<{ kind: string }> = [];
    const notifications = {
      send: async (body: { kind: string }) => {
        if (failing) throw new Error("queue unavailable");
        told.push(body);
      },
    } as unknown as Queue;
    const sweepEnv = {
      ...env,
      DESTROY_QUEUE: destroys,
      NOTIFY_QUEUE: notifications,
      SPONSON_CLOSE_GRACE_SECONDS: "600",
      SPONSON_CLOSE_MAX_RESENDS: "1",
    } as Env;
    const parts = {
      resolveStaleIntents: async () => ({ resolved: 0 }),
      orphans: async () => ({ orphans: [], problems: [] }),
      scopesOwningEntries: async () => [
        { repositoryId: DEFAULT_REPOSITORY.id, environment: "preview", scope },
      ],
    };
    // A day after the close: the lingering notice and the first re-send both fail to queue.
    const day = closedAt + 24 * 3600_000 + 1;
    await expect(sweepAndReport(at(day), sweepEnv, parts)).rejects.toThrow(/a part failed/);
    expect(lost.sent).toEqual([]);
    expect(told).toEqual([]);
    expect((await listAudit(env)).filter((r) => r.kind === "destroy-resend" && r.scope === scope)).toEqual(
      [],
    );
    failing = false;
    const report = await sweepAndReport(at(day + 601_000), sweepEnv, parts);
    // The failed attempt did not count: this is re-send 1 of 1, and it went out.
    expect(report.closedWithEntries).toMatchObject({ ok: true, value: [{ scope, resends: 1 }] });
    expect(lost.sent.map((m) => m.environment).sort()).toEqual(["preview", "staging"]);
    expect(told.map((n) => n.kind)).toEqual(["scope-lingering"]);
    await sweepAndReport(at(day + 1_202_000), sweepEnv, parts);
    expect(told.map((n) => n.kind)).toEqual(["scope-lingering", "destroy-resends-exhausted"]);
  });
});
