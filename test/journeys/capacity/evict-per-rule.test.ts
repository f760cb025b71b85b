/**
 * Eviction under a per-rule cap (docs/design.md, "Evicting stale scopes", "Lists at their cap"):
 * each CORS rule of an R2 bucket is its own list, so room is made in the full rule only, from the
 * stale scope's entries in that rule; its entries in a rule with room stay, and its receipt notes
 * each evicted rule by name.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import { r2BucketWithCors } from "../../adapters/r2cors/r2-bucket";
import { call, testApp } from "../../helpers/app";
import { registerConnection } from "../../helpers/connections";
import { freshPr } from "../../helpers/engine";
import { applyRequest, EVICTING, receiptOf, setPullRequest } from "../../helpers/eviction";
import { testEngine } from "../../helpers/test-engine";

const TOKEN = "RULE_EVICT_R2_TOKEN";
const KEPT = "https://kept.example.com";
const app = testApp();
let n = 0;

type Rule = { id: string; allowed: { origins: string[] } };
const rule = (id: string, origins: string[]) => ({ id, allowed: { origins, methods: ["GET"] } });
const originIn = (id: "A" | "B", scope: string) => `https://${scope}.${id.toLowerCase()}.example.com`;

/** A bucket with rules A and B as given, each capped at 2, and plans adding to rule A, B or both. */
async function cappedRules(a: string[], b: string[]) {
  const bucket = await r2BucketWithCors([rule("A", a), rule("B", b)]);
  n += 1;
  const connection = registerConnection(`r2-rule-evict-${n}-${bucket.bucket}`, {
    type: "r2",
    config: { accountId: bucket.account },
    secrets: { apiToken: TOKEN },
    capacity: { "r2.corsOrigin": 2 },
  });
  const line = (id: "A" | "B") => ({
    id,
    op: "r2.corsOrigin",
    connection,
    params: { bucket: bucket.bucket, rule: id, origin: `https://{scope}.${id.toLowerCase()}.example.com` },
  });
  const plan = (...ids: Array<"A" | "B">): Plan => ({ version: 2, lines: ids.map(line) });
  const origins = async () =>
    Object.fromEntries(
      (((await bucket.stored())?.rules ?? []) as Rule[]).map((r) => [r.id, r.allowed.origins]),
    );
  const bindings = { [TOKEN]: bucket.token };
  return { plan, origins, bindings };
}

type Setup = Awaited<ReturnType<typeof cappedRules>>;

/** The run applied, in an environment that evicts stale scopes or (`evict: false`) one that does not. */
async function applied(c: Setup, plan: Plan, scope: string, o: { evict: boolean; requests?: string[] }) {
  const bindings = o.evict ? { ...c.bindings, SPONSON_ENVIRONMENTS: EVICTING } : c.bindings;
  const engine = testEngine({ bindings, ...(o.requests ? { requests: o.requests } : {}) });
  return engine.apply(applyRequest(plan, scope));
}

const writes = (requests: string[]) =>
  requests.filter((r) => r.startsWith("PUT ") || r.startsWith("DELETE "));

describe("eviction under a per-rule cap on r2.corsOrigin", () => {
  it("rule B full, rule A with room: the stale scope's rule-B origin is evicted, its rule-A origin stays", async () => {
    const c = await cappedRules([], [KEPT]);
    const [stale, next] = [freshPr(), freshPr()];
    expect((await applied(c, c.plan("A", "B"), stale, { evict: true })).run.status).toBe("succeeded");
    await setPullRequest(stale, "closed");
    expect(await c.origins()).toEqual({ A: [originIn("A", stale)], B: [KEPT, originIn("B", stale)] });

    const result = await applied(c, c.plan("B"), next, { evict: true });
    expect(result.run.error?.code).toBeUndefined();
    expect(result.run.status).toBe("succeeded");
    expect(await c.origins()).toEqual({ A: [originIn("A", stale)], B: [KEPT, originIn("B", next)] });

    const receipt = await receiptOf(stale);
    expect(receipt.ledger.map((e) => e.key)).toEqual([originIn("A", stale)]);
    expect(receipt.evictions).toEqual([
      expect.objectContaining({
        runId: result.run.id,
        op: "r2.corsOrigin",
        list: "rule B",
        keys: [originIn("B", stale)],
        reason: "closed",
      }),
    ]);
  });

  it("both rules full, the run adds to each: the stale scope's origin in each is evicted, in one write", async () => {
    const c = await cappedRules([], []);
    const [stale, live, next] = [freshPr(), freshPr(), freshPr()];
    for (const s of [stale, live])
      expect((await applied(c, c.plan("A", "B"), s, { evict: true })).run.status).toBe("succeeded");
    await setPullRequest(stale, "closed");

    const requests: string[] = [];
    const result = await applied(c, c.plan("A", "B"), next, { evict: true, requests });
    expect(result.run.error?.code).toBeUndefined();
    expect(result.run.status).toBe("succeeded");
    expect(writes(requests)).toHaveLength(1);
    expect(await c.origins()).toEqual({
      A: [originIn("A", live), originIn("A", next)],
      B: [originIn("B", live), originIn("B", next)],
    });

    const receipt = await receiptOf(stale);
    expect(receipt.ledger).toEqual([]);
    const notes = [...(receipt.evictions ?? [])].sort((x, y) => String(x.list).localeCompare(String(y.list)));
    expect(notes).toEqual([
      expect.objectContaining({ op: "r2.corsOrigin", list: "rule A", keys: [originIn("A", stale)] }),
      expect.objectContaining({ op: "r2.corsOrigin", list: "rule B", keys: [originIn("B", stale)] }),
    ]);

    // The audit trail: one record per rule, as the receipt.
    const res = await call(app, "GET", "/v1/audit");
    expect(res.status).toBe(200);
    const entries = ((await res.json()) as { entries: Array<Record<string, unknown>> }).entries;
    const audits = entries
      .filter((e) => e.kind === "eviction" && e.runId === result.run.id)
      .map((e) => [e.scope, e.list, e.keys, e.receiptUpdated])
      .sort();
    expect(audits).toEqual([
      [stale, "rule A", [originIn("A", stale)], true],
      [stale, "rule B", [originIn("B", stale)], true],
    ]);
  });

  it("control: without evictStale the same run is refused LIST_FULL naming rule B, and nothing is removed", async () => {
    const c = await cappedRules([], [KEPT]);
    const [stale, next] = [freshPr(), freshPr()];
    expect((await applied(c, c.plan("A", "B"), stale, { evict: false })).run.status).toBe("succeeded");
    await setPullRequest(stale, "closed");
    const before = await c.origins();

    const requests: string[] = [];
    const result = await applied(c, c.plan("B"), next, { evict: false, requests });
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({
      list: { op: "r2.corsOrigin", name: "rule B" },
      cap: 2,
      entries: 2,
      after: 3,
    });
    expect(writes(requests)).toEqual([]);
    expect(await c.origins()).toEqual(before);
    expect((await receiptOf(stale)).evictions).toBeUndefined();
    expect((await receiptOf(stale)).ledger.map((e) => e.key).sort()).toEqual(
      [originIn("A", stale), originIn("B", stale)].sort(),
    );
  });
});
