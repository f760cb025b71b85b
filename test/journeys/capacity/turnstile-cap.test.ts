/**
 * Turnstile's hostname cap depends on the account's plan (docs/adapters.md, "Capacity"): 10 per
 * widget on Free, 200 on Enterprise, and no read says which plan an account is on. The op declares
 * Free's cap; an Enterprise connection raises it with `capacity`, no further than 200. A full
 * widget is refused `LIST_FULL` under the lease before any write, and a stale scope's hostname is
 * evicted to make room, as on every capped list.
 */
import { describe, expect, it } from "vitest";
import { TURNSTILE_PLANS } from "../../../dev/emulators/turnstile";
import type { Plan } from "../../../shared/schemas/plan";
import { checkConfig } from "../../../workers/config/config-report";
import { turnstileWidgetWith } from "../../adapters/turnstile/turnstile-widget";
import { registerConnection } from "../../helpers/connections";
import { seedTurnstile } from "../../helpers/emulators-turnstile";
import { freshPr } from "../../helpers/engine";
import { applyRequest, EVICTING, receiptOf, setPullRequest } from "../../helpers/eviction";
import { testEngine } from "../../helpers/test-engine";

const TOKEN = "CAP_TURNSTILE_TOKEN";
const hosts = (n: number) => Array.from({ length: n }, (_, i) => `site-${i}.example.com`);
const own = (scope: string) => `${scope}.preview.example.com`;
let n = 0;

/** A widget holding `held` hostnames on an account of `plan`, and a connection (capped `cap`) to it. */
async function widgetOf(held: string[], o: { plan?: keyof typeof TURNSTILE_PLANS; cap?: number } = {}) {
  const w = await turnstileWidgetWith(held);
  if (o.plan) await seedTurnstile({ plan: [w.account, TURNSTILE_PLANS[o.plan]] });
  n += 1;
  const connection = registerConnection(`turnstile-cap-${n}-${w.sitekey}`, {
    type: "turnstile",
    config: { accountId: w.account },
    secrets: { apiToken: TOKEN },
    ...(o.cap === undefined ? {} : { capacity: { "turnstile.hostname": o.cap } }),
  });
  const plan: Plan = {
    version: 2,
    lines: [
      {
        id: "widget",
        op: "turnstile.hostname",
        connection,
        params: { sitekey: w.sitekey, hostname: "{scope}.preview.example.com" },
      },
    ],
  };
  return { w, plan, bindings: { [TOKEN]: w.token } };
}

async function applied(c: Awaited<ReturnType<typeof widgetOf>>, scope: string, evict = false) {
  const requests: string[] = [];
  const bindings = evict ? { ...c.bindings, SPONSON_ENVIRONMENTS: EVICTING } : c.bindings;
  const result = await testEngine({ bindings, requests }).apply(applyRequest(c.plan, scope));
  return { result, puts: requests.filter((r) => r.startsWith("PUT ")) };
}

describe("turnstile.hostname at its cap", () => {
  it("the Free plan's cap by default: a widget holding 10 refuses the 11th LIST_FULL before any write", async () => {
    const c = await widgetOf(hosts(10));
    const { result, puts } = await applied(c, freshPr());
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({ cap: 10, entries: 10, after: 11 });
    expect(puts).toEqual([]);
    expect((await c.w.stored())?.domains).toEqual(hosts(10));
  });

  it("an Enterprise connection raises the cap: the 11th goes in, and a raised cap of 12 refuses the 13th", async () => {
    const enterprise = await widgetOf(hosts(10), { plan: "enterprise", cap: 200 });
    const scope = freshPr();
    const { result } = await applied(enterprise, scope);
    expect(result.run.error).toBeUndefined();
    expect(result.run.status).toBe("succeeded");
    expect((await enterprise.w.stored())?.domains).toEqual([...hosts(10), own(scope)]);

    const twelve = await widgetOf(hosts(12), { plan: "enterprise", cap: 12 });
    const refused = await applied(twelve, freshPr());
    expect(refused.result.run.error?.detail).toMatchObject({ cap: 12, entries: 12, after: 13 });
    expect(refused.puts).toEqual([]);
  });

  it("control: a raised cap the account's plan does not have meets Cloudflare's own refusal mid-run", async () => {
    const c = await widgetOf(hosts(10), { cap: 200 });
    const { result } = await applied(c, freshPr());
    expect(result.run.error?.code).toBe("PROVIDER_ERROR");
    expect(result.run.error?.message).toContain("too many values (max: 10)");
    expect((await c.w.stored())?.domains).toEqual(hosts(10));
  });

  it("a stale scope's hostname is evicted to make room; without evictStale the run is refused", async () => {
    const c = await widgetOf(hosts(9));
    const [stale, next] = [freshPr(), freshPr()];
    expect((await applied(c, stale, true)).result.run.status).toBe("succeeded");
    await setPullRequest(stale, "closed");
    expect((await applied(c, next)).result.run.error?.code).toBe("LIST_FULL");

    const { result, puts } = await applied(c, next, true);
    expect(result.run.status).toBe("succeeded");
    expect(puts).toHaveLength(1);
    expect((await c.w.stored())?.domains).toEqual([...hosts(9), own(next)]);
    expect((await receiptOf(stale)).evictions).toEqual([
      expect.objectContaining({ op: "turnstile.hostname", keys: [own(stale)], reason: "closed" }),
    ]);
  });

  it("config check takes a cap up to Enterprise's 200 and refuses one above it", () => {
    const problems = (cap: number) =>
      checkConfig(
        {
          SPONSON_CONNECTIONS: JSON.stringify({
            widget: {
              type: "turnstile",
              environments: ["preview"],
              config: { accountId: "0".repeat(32) },
              secrets: { apiToken: "TURNSTILE_API_TOKEN" },
              capacity: { "turnstile.hostname": cap },
            },
          }),
        },
        { secretsKnown: false },
      ).problems.filter((p) => p.path.includes(".capacity"));
    expect(problems(200)).toEqual([]);
    expect(problems(201).map((p) => p.message)).toEqual([
      "201 is above the provider's documented cap of 10 (200 on the Enterprise plan): a cap can be raised to 200 at most",
    ]);
  });
});
