/**
 * The scope-state object's platform events (docs/design.md, "The platform door"): an event id seen
 * once, and per connection the newest deployment; both decided in one step with the write.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { decidePlatformEvent } from "../../durable-objects/platform-head-rules";
import { SponsonError } from "../../shared/errors";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";

function freshScope(): string {
  return `pr-${800_000_000 + Math.floor(Math.random() * 99_000_000)}`;
}

const event = (deploymentId: string, createdAt: number) => ({
  eventId: `vercel:evt_${crypto.randomUUID().replaceAll("-", "")}`,
  connection: "vercel-web",
  deploymentId,
  createdAt,
});

describe("the deployment order (pure)", () => {
  const head = { deploymentId: "dpl_b", createdAt: 2_000 };
  it("accepts the first deployment, a newer one and the same one again", () => {
    expect(decidePlatformEvent("open", null, head)).toMatchObject({ kind: "accepted", reason: "first" });
    expect(decidePlatformEvent("open", head, { deploymentId: "dpl_c", createdAt: 3_000 })).toMatchObject({
      kind: "accepted",
      reason: "newer",
    });
    expect(decidePlatformEvent("open", head, { deploymentId: "dpl_b", createdAt: 2_000 })).toMatchObject({
      kind: "accepted",
      reason: "same-deployment",
    });
  });

  it("ignores an older deployment, another one created the same millisecond, and any on a closed scope", () => {
    expect(decidePlatformEvent("open", head, { deploymentId: "dpl_a", createdAt: 1_000 })).toMatchObject({
      kind: "ignored",
      reason: "older",
    });
    expect(decidePlatformEvent("open", head, { deploymentId: "dpl_x", createdAt: 2_000 })).toMatchObject({
      kind: "ignored",
      reason: "tie",
    });
    expect(decidePlatformEvent("closed", null, head)).toMatchObject({ kind: "ignored", reason: "closed" });
  });
});

describe("platform events in the scope-state object", () => {
  it("an event seen before is a duplicate, its apply still pending until confirmed queued", async () => {
    const client = scopeStateClient(env, DEFAULT_REPOSITORY.id, freshScope());
    const first = event("dpl_a", 1_700_000_000_000);
    expect(await client.applyPlatformEvent(first)).toMatchObject({ kind: "accepted", reason: "first" });
    expect(await client.applyPlatformEvent(first)).toMatchObject({ kind: "duplicate", enqueuePending: true });
    await client.markPlatformEnqueued(first.eventId);
    expect(await client.applyPlatformEvent(first)).toMatchObject({
      kind: "duplicate",
      enqueuePending: false,
    });
  });

  it("an older deployment's event arriving after a newer one's leaves the newer one the head", async () => {
    const client = scopeStateClient(env, DEFAULT_REPOSITORY.id, freshScope());
    await client.applyPlatformEvent(event("dpl_new", 1_700_000_002_000));
    expect(await client.applyPlatformEvent(event("dpl_old", 1_700_000_001_000))).toMatchObject({
      kind: "ignored",
      reason: "older",
    });
    expect((await client.read()).platformHeads).toEqual({
      "vercel-web": { deploymentId: "dpl_new", createdAt: 1_700_000_002_000 },
    });
  });

  it("a platform event changes neither the scope's status nor its revision (applies are not refused)", async () => {
    const client = scopeStateClient(env, DEFAULT_REPOSITORY.id, freshScope());
    const before = await client.read();
    await client.applyPlatformEvent(event("dpl_a", 1_700_000_000_000));
    const after = await client.read();
    expect({ status: after.status, revision: after.revision }).toEqual({
      status: before.status,
      revision: before.revision,
    });
  });

  it("a closed scope accepts no deployment", async () => {
    const client = scopeStateClient(env, DEFAULT_REPOSITORY.id, freshScope());
    await client.applyEvent({
      status: "closed",
      revision: 1_700_000_000_000,
      deliveryId: crypto.randomUUID(),
    });
    expect(await client.applyPlatformEvent(event("dpl_a", 1_700_000_000_500))).toMatchObject({
      kind: "ignored",
      reason: "closed",
    });
    expect((await client.read()).platformHeads).toBeUndefined();
  });

  it("refuses what it cannot compare: a malformed event id or creation time", async () => {
    const client = scopeStateClient(env, DEFAULT_REPOSITORY.id, freshScope());
    await expect(client.applyPlatformEvent({ ...event("dpl_a", 1), eventId: "evt 1" })).rejects.toThrow(
      SponsonError,
    );
    await expect(client.applyPlatformEvent(event("dpl_a", -5))).rejects.toThrow(/createdAt/);
  });
});
