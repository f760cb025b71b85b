/**
 * One op, several lists on one object (docs/design.md, "Lists at their cap", "Fill levels"): each
 * CORS rule of an R2 bucket is a list of origins, so an operator's `capacity` on `r2.corsOrigin`
 * caps every rule's list on its own. A group adding to rules A and B is checked rule by rule (B
 * full: refused, though A has room and comes first), and the write records one fill per rule, each
 * naming its rule.
 */
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../shared/env";
import { parentLockKey } from "../../../shared/lock-keys";
import type { Plan } from "../../../shared/schemas/plan";
import { SecretRegistry } from "../../../shared/secrets";
import { sweepAndReport } from "../../../workers/sweep/sweep-handler";
import { r2BucketWithCors } from "../../adapters/r2cors/r2-bucket";
import { call, testApp } from "../../helpers/app";
import { registerConnection } from "../../helpers/connections";
import { freshPr, receipt } from "../../helpers/engine";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const app = testApp();
let n = 0;

type Rule = { id: string; allowed: { origins: string[]; methods: string[] } };
const rule = (id: string, origins: string[]): Rule => ({ id, allowed: { origins, methods: ["GET"] } });

/** A bucket with rules A and B, a connection capping each rule at `cap`, one line adding to each. */
async function twoRules(a: string[], b: string[], cap: number) {
  const bucket = await r2BucketWithCors([rule("A", a), rule("B", b)]);
  n += 1;
  const connection = registerConnection(`r2-sublists-${n}-${bucket.bucket}`, {
    type: "r2",
    config: { accountId: bucket.account },
    secrets: { apiToken: "SUBLIST_R2_TOKEN" },
    capacity: { "r2.corsOrigin": cap },
  });
  const line = (id: string) => ({
    id,
    op: "r2.corsOrigin",
    connection,
    params: { bucket: bucket.bucket, rule: id, origin: `https://{scope}.${id.toLowerCase()}.example.com` },
  });
  const plan: Plan = { version: 2, lines: [line("A"), line("B")] };
  const key = await parentLockKey(`r2:${bucket.account}:${bucket.bucket}:cors`, new SecretRegistry());
  return { bucket, plan, key, secrets: { SUBLIST_R2_TOKEN: bucket.token } };
}

async function apply(c: Awaited<ReturnType<typeof twoRules>>, requests: string[]) {
  const scope = freshPr();
  const result = await testEngine({ requests, bindings: c.secrets }).apply({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope,
    plan: c.plan,
    wait: true,
    waitTimeoutMs: 30_000,
  });
  return { result, scope };
}

describe("an operator's cap on r2.corsOrigin caps each rule's list", () => {
  it("cap 1: rule A empty, rule B full, one line in each: LIST_FULL for rule B before any write", async () => {
    const c = await twoRules([], ["https://kept.example.com"], 1);
    const before = await c.bucket.stored();
    const requests: string[] = [];
    const { result, scope } = await apply(c, requests);
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({
      list: { op: "r2.corsOrigin", name: "rule B" },
      cap: 1,
      entries: 1,
      after: 2,
    });
    expect(result.run.error?.message).toContain("rule B");
    expect(requests.filter((r) => r.startsWith("PUT ") || r.startsWith("DELETE "))).toEqual([]);
    expect(await c.bucket.stored()).toEqual(before);
    expect((await receipt("preview", scope)).intents).toEqual([]);
  });

  it("control: cap 2, the same two lines fit and both rules are written", async () => {
    const c = await twoRules([], ["https://kept.example.com"], 2);
    const { result, scope } = await apply(c, []);
    expect(result.run.status).toBe("succeeded");
    const rules = ((await c.bucket.stored())?.rules ?? []) as Rule[];
    expect(rules.map((r) => [r.id, r.allowed.origins.length])).toEqual([
      ["A", 1],
      ["B", 2],
    ]);
    expect(rules[0]?.allowed.origins).toEqual([`https://${scope}.a.example.com`]);
  });

  it("the write records one fill per rule, each naming its rule", async () => {
    const c = await twoRules(
      ["https://a-0.example.com"],
      ["https://b-0.example.com", "https://b-1.example.com"],
      5,
    );
    const { result } = await apply(c, []);
    expect(result.run.status).toBe("succeeded");
    const res = await call(app, "GET", `/v1/locks/${encodeURIComponent(c.key)}`);
    expect(res.status).toBe(200);
    const state = (await res.json()) as { fills?: Array<Record<string, unknown>> };
    const fills = [...(state.fills ?? [])].sort((x, y) => String(x.list).localeCompare(String(y.list)));
    expect(fills).toEqual([
      { op: "r2.corsOrigin", list: "rule A", cap: 5, entries: 2, at: expect.any(Number) },
      { op: "r2.corsOrigin", list: "rule B", cap: 5, entries: 3, at: expect.any(Number) },
    ]);
  });

  it("the sweep tells each rule's list near its cap once, each notice naming its rule", async () => {
    const kept = (rule: string) => Array.from({ length: 8 }, (_, i) => `https://${rule}-${i}.example.com`);
    const c = await twoRules(kept("a"), kept("b"), 10); // 9 of 10 in each rule after the write
    expect((await apply(c, [])).result.run.status).toBe("succeeded");
    const told: Array<{ id: string; subject: Record<string, unknown> }> = [];
    const queue = { send: async (body: (typeof told)[number]) => void told.push(body) } as unknown as Queue;
    const sweepEnv = { ...env, NOTIFY_QUEUE: queue } as Env;
    const parts = {
      resolveStaleIntents: async () => ({ resolved: 0 }),
      orphans: async () => ({ orphans: [], problems: [] }),
      scopesOwningEntries: async () => [],
    };
    const at = createScheduledController({ scheduledTime: Date.now() });
    await sweepAndReport(at, sweepEnv, parts);
    const ours = () => told.filter((t) => t.subject.lock === c.key);
    expect(
      ours()
        .map((t) => [t.subject.list, t.subject.entries])
        .sort(),
    ).toEqual([
      ["rule A", 9],
      ["rule B", 9],
    ]);
    expect(new Set(ours().map((t) => t.id)).size).toBe(2);
    await sweepAndReport(at, sweepEnv, parts);
    expect(ours()).toHaveLength(2); // both confirmed told: not told again
  });
});
