/** The scope-state object itself: one per scope name, shared by environments, atomic dedupe + guard. */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ScopeState } from "../../durable-objects/scope-state";
import { SponsonError } from "../../shared/errors";
import { scopeStateClient, scopeStateObjectName } from "../../workers/scope-state/scope-state-client";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";

let counter = 0;
function freshScope(): string {
  counter += 1;
  return `pr-${900_000_000 + counter * 1000 + Math.floor(Math.random() * 1000)}`;
}

describe("scope state object", () => {
  it("is one object per repository and scope: scope-state:<repository id>/<scope>", async () => {
    expect(scopeStateObjectName(186853002, "pr-5")).toBe("scope-state:186853002/pr-5");
    expect(() => scopeStateObjectName(0, "pr-5")).toThrow();
    const scope = freshScope();
    const other = DEFAULT_REPOSITORY.id + 1;
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent({
      status: "closed",
      revision: 1_700_000_000_000,
      deliveryId: crypto.randomUUID(),
    });
    // The same pull request number in another repository is another scope, still open.
    expect(await scopeStateClient(env, other, scope).read()).toMatchObject({ status: "open", revision: 0 });
    expect(await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).read()).toMatchObject({
      status: "closed",
    });
  });

  it("a scope no event has touched reads open at revision 0 and stores nothing, not even its schema", async () => {
    const scope = freshScope();
    expect(await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).read()).toEqual({
      scope,
      status: "open",
      revision: 0,
      deliveryId: null,
      changedAt: null,
    });
    const stub = env.SCOPE_STATE.get(
      env.SCOPE_STATE.idFromName(scopeStateObjectName(DEFAULT_REPOSITORY.id, scope)),
    );
    // Not even its schema: reads of a scope no event touched (every new pull request's first runs,
    // twice each) write nothing, so the object costs no SQLite commit and no stored bytes.
    const tables = await runInDurableObject(stub, (_instance: ScopeState, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'").toArray(),
    );
    expect(tables.map((t) => t.name).filter((n) => !String(n).startsWith("_cf"))).toEqual([]);
    // The first event creates the schema and is stored as before.
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent({
      status: "closed",
      revision: 1_000,
      deliveryId: "d-first",
    });
    expect(await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).read()).toMatchObject({
      status: "closed",
      revision: 1_000,
    });
  });

  it("applies a close and remembers the delivery that made it", async () => {
    const client = scopeStateClient(env, DEFAULT_REPOSITORY.id, freshScope());
    const outcome = await client.applyEvent({ status: "closed", revision: 1_000, deliveryId: "d-1" });
    expect(outcome).toMatchObject({ kind: "applied", previous: { status: "open", revision: 0 } });
    expect(await client.read()).toMatchObject({ status: "closed", revision: 1_000, deliveryId: "d-1" });
  });

  it("two clients for the same scope name see one state: environments share it", async () => {
    const scope = freshScope();
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent({
      status: "closed",
      revision: 5,
      deliveryId: "d-a",
    });
    expect((await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).read()).status).toBe("closed");
    expect((await scopeStateClient(env, DEFAULT_REPOSITORY.id, freshScope()).read()).status).toBe("open");
  });

  it("a delivery id is applied once: the second call is a duplicate even with another payload", async () => {
    const client = scopeStateClient(env, DEFAULT_REPOSITORY.id, freshScope());
    await client.applyEvent({ status: "closed", revision: 10, deliveryId: "same" });
    const again = await client.applyEvent({ status: "open", revision: 20, deliveryId: "same" });
    expect(again).toMatchObject({ kind: "duplicate", state: { status: "closed", revision: 10 } });
  });

  it("a close stays 'enqueue pending' until the receiver confirms its destroys were queued", async () => {
    const client = scopeStateClient(env, DEFAULT_REPOSITORY.id, freshScope());
    await client.applyEvent({ status: "closed", revision: 10, deliveryId: "close-1" });
    expect(await client.applyEvent({ status: "closed", revision: 10, deliveryId: "close-1" })).toMatchObject({
      kind: "duplicate",
      enqueuePending: true,
    });
    await client.markEnqueued("close-1");
    expect(await client.applyEvent({ status: "closed", revision: 10, deliveryId: "close-1" })).toMatchObject({
      kind: "duplicate",
      enqueuePending: false,
    });
  });

  it("a close and a newer reopen sent at the same moment end open, whichever the object takes first", async () => {
    for (const reversed of [false, true]) {
      const client = scopeStateClient(env, DEFAULT_REPOSITORY.id, freshScope());
      const close = () => client.applyEvent({ status: "closed", revision: 100, deliveryId: `c-${reversed}` });
      const reopen = () => client.applyEvent({ status: "open", revision: 200, deliveryId: `o-${reversed}` });
      await Promise.all(reversed ? [reopen(), close()] : [close(), reopen()]);
      expect(await client.read()).toMatchObject({ status: "open", revision: 200 });
    }
  });

  it("a close that lands between two reads shows in the second: status and revision differ", async () => {
    const client = scopeStateClient(env, DEFAULT_REPOSITORY.id, freshScope());
    const beforeLease = await client.read();
    expect(await client.read()).toMatchObject({ status: beforeLease.status, revision: beforeLease.revision });
    await client.applyEvent({ status: "closed", revision: 50, deliveryId: "mid-flight" });
    expect(await client.read()).toMatchObject({ status: "closed", revision: 50 });
    expect(beforeLease).toMatchObject({ status: "open", revision: 0 });
  });

  it("refuses a scope name that is not pr-<n>, branch-<name> or main", () => {
    expect(() => scopeStateClient(env, DEFAULT_REPOSITORY.id, "a1b2c3")).toThrow(SponsonError);
  });

  it("refuses to store an event whose revision it could not compare", async () => {
    const client = scopeStateClient(env, DEFAULT_REPOSITORY.id, freshScope());
    await expect(
      client.applyEvent({ status: "closed", revision: Number.NaN, deliveryId: "nan" }),
    ).rejects.toThrow(/revision/);
    expect((await client.read()).revision).toBe(0);
  });
});
