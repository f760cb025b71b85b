/**
 * Issue 33: two sweeps at the same instant each ask the scope-state object whether to tell the
 * operators about a lingering or exhausted close. The notice is claimed in the same synchronous
 * step as the decision, so only one of them sends it; a send that fails gives the claim back, so the
 * next sweep tells (docs/operations.md, "Notifications").
 */
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../shared/env";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { sweepAndReport } from "../../workers/sweep/sweep-handler";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";

const DAY_MS = 24 * 3600_000;
const ask = (deliveryId: string, now: number) => ({
  deliveryId,
  now,
  graceMs: 600_000,
  maxResends: 0,
  lingerMs: DAY_MS,
});

async function confirmedClose(revision: number) {
  const scope = `pr-${5_000_000 + Math.floor(Math.random() * 1_000_000)}`;
  const deliveryId = crypto.randomUUID();
  const state = scopeStateClient(env, DEFAULT_REPOSITORY.id, scope);
  await state.applyEvent({ status: "closed", revision, deliveryId });
  await state.markEnqueued(deliveryId);
  const closedAt = (await state.read()).changedAt as number;
  return { scope, deliveryId, state, closedAt };
}

describe("two sweeps at the same instant", () => {
  it("only the first claim tells: the second, before either confirmed, is told nothing to send", async () => {
    const { deliveryId, state, closedAt } = await confirmedClose(7070);
    const now = closedAt + DAY_MS + 1;
    const first = await state.claimResend(ask(deliveryId, now));
    const second = await state.claimResend(ask(deliveryId, now));
    expect(first).toEqual({ kind: "exhausted", resends: 0, lingering: true, notify: true });
    expect(second).toEqual({ kind: "exhausted", resends: 0, lingering: false, notify: false });
  });

  it("a claim whose send failed is given back: the next sweep tells", async () => {
    const { deliveryId, state, closedAt } = await confirmedClose(7171);
    const now = closedAt + DAY_MS + 1;
    expect(await state.claimResend(ask(deliveryId, now))).toMatchObject({ lingering: true, notify: true });
    await state.confirmResend({ deliveryId, released: ["lingering", "exhausted"] });
    expect(await state.claimResend(ask(deliveryId, now + 1))).toMatchObject({
      lingering: true,
      notify: true,
    });
  });

  it("run side by side, they queue each notice once", async () => {
    const { scope, closedAt } = await confirmedClose(7272);
    const told: Array<{ kind: string; id: string }> = [];
    const notifications = {
      send: async (body: { kind: string; id: string }) => {
        told.push(body);
      },
    } as unknown as Queue;
    const sweepEnv = {
      ...env,
      NOTIFY_QUEUE: notifications,
      SPONSON_CLOSE_GRACE_SECONDS: "600",
      SPONSON_CLOSE_MAX_RESENDS: "0",
    } as Env;
    const parts = {
      resolveStaleIntents: async () => ({ resolved: 0 }),
      orphans: async () => ({ orphans: [], problems: [] }),
      scopesOwningEntries: async () => [
        { repositoryId: DEFAULT_REPOSITORY.id, environment: "preview", scope },
      ],
    };
    const controller = createScheduledController({ scheduledTime: closedAt + DAY_MS + 1 });
    await Promise.all([
      sweepAndReport(controller, sweepEnv, parts),
      sweepAndReport(controller, sweepEnv, parts),
    ]);
    expect(told.map((n) => n.kind).sort()).toEqual(["destroy-resends-exhausted", "scope-lingering"]);
  });
});
