/**
 * The budget object itself (durable-objects/budget-bucket.ts): it answers at once from its stored
 * bucket, refuses a malformed request naming fields only, and says what it has promised.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { BudgetBucket } from "../../durable-objects/budget-bucket";
import { type BudgetRate, budgetObjectName } from "../../shared/rpc/budget-bucket";
import { rpcStub } from "../../shared/rpc/stub";

const FREE: BudgetRate = { burst: 2, perSecond: 2 };

function object() {
  if (!env.BUDGET_BUCKET) throw new Error("BUDGET_BUCKET is not bound");
  const name = budgetObjectName("auth0", `${crypto.randomUUID()}.us.auth0.com`);
  return { namespace: env.BUDGET_BUCKET, name, stub: rpcStub(env.BUDGET_BUCKET, name) };
}

describe("the budget object", () => {
  it("keeps its bucket in storage: the calls it promised are there for the next caller", async () => {
    const { namespace, name, stub } = object();
    const ask = { rate: FREE, nowMs: 10_000, cost: 2, notAfterMs: 20_000 };
    expect(await stub.take(ask)).toEqual({ kind: "granted", atMs: 10_000 });
    expect(await stub.take(ask)).toEqual({ kind: "granted", atMs: 11_000 });
    expect(await stub.status(FREE, 10_000)).toEqual({ tokens: -2, busyUntilMs: 11_000 });
    const stored = await runInDurableObject(
      namespace.get(namespace.idFromName(name)) as unknown as DurableObjectStub<BudgetBucket>,
      (_instance, state) => state.storage.kv.get("bucket"),
    );
    expect(stored).toEqual({ tokens: -2, atMs: 10_000 });
  });

  it("a malformed request is answered naming its fields, never their values, and changes nothing", async () => {
    const { stub } = object();
    expect(
      await stub.take({ rate: { burst: 0, perSecond: 2 }, nowMs: 0, cost: 1, notAfterMs: Number.NaN }),
    ).toEqual({ kind: "invalid", fields: ["rate.burst", "notAfterMs"] });
    expect(await stub.drain({ rate: FREE, nowMs: Number.POSITIVE_INFINITY, untilMs: 0 })).toBe(false);
    expect(await stub.status(FREE, 0)).toEqual({ tokens: 2, busyUntilMs: 0 });
  });
});
