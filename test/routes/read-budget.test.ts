/**
 * Fair use (docs/security.md, "Fair use"): the dashboard and the lock reads spend a budget of
 * their own per caller (`READ_RATE_LIMITER`), apart from runs and previews. The binding is the
 * runtime's own (wrangler.dev.toml); the tests lower its limit to 2 per key. A caller's second
 * read in the period is answered (the control just under the budget); its third is refused 429
 * RATE_LIMITED rule `rate-limit.reads` with Retry-After, before any lock is read — a bound viewer's
 * and a pull-request job's alike. Another caller, and the same caller's runs, are not spent.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { RateLimiter } from "../../workers/http/rate-limit";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { previewPlan, seedTenant } from "../helpers/plans";
import { mintServiceToken } from "../helpers/tokens";
import { type CallerKind, OWNING, type TwoRepositories, twoRepositories } from "../helpers/two-repositories";

/** The real bindings, with this test's limit of 2 per key and period (the local runtime takes both). */
type Limitable = RateLimiter & { limit(o: { key: string; limit?: number }): Promise<{ success: boolean }> };
const lowered = (binding: unknown): RateLimiter => ({
  limit: ({ key }) => (binding as Limitable).limit({ key, limit: 2 }),
});
const LIMITED = {
  SPONSON_RATE_LIMIT: "on",
  READ_RATE_LIMITER: lowered(env.READ_RATE_LIMITER),
  RUN_RATE_LIMITER: lowered(env.RUN_RATE_LIMITER),
};

let t: TwoRepositories;
let pr = 300 + Math.floor(Math.random() * 10_000);

beforeAll(async () => {
  t = await twoRepositories();
});

/** A caller of its own (a fresh subject or pull request), so no test spends another's budget. */
async function freshCaller(kind: CallerKind): Promise<string> {
  if (kind === "github") return t.token(OWNING, "github", ++pr);
  return mintServiceToken({
    role: kind,
    repository: OWNING.name,
    sub: `reads-${crypto.randomUUID()}`,
    scopes: ["preview/*"],
  });
}

describe.each(["viewer", "github"] as const)("a %s caller's reads", (kind) => {
  it.each(["/v1/locks", "/dashboard"])(
    "%s: the second read in the period is answered, the third refused 429 rate-limit.reads",
    async (path) => {
      const token = await freshCaller(kind);
      for (let i = 0; i < 2; i++)
        expect((await t.send("GET", path, token, undefined, LIMITED)).status).toBe(200);
      const refused = await t.send("GET", path, token, undefined, LIMITED);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("60");
      expect(await refused.json()).toMatchObject({
        code: "RATE_LIMITED",
        rule: "rate-limit.reads",
        retriable: true,
      });
    },
  );

  it("one budget for the lock reads and the dashboard together; another caller still reads", async () => {
    const token = await freshCaller(kind);
    expect((await t.send("GET", "/v1/locks", token, undefined, LIMITED)).status).toBe(200);
    expect((await t.send("GET", "/dashboard/live", token, undefined, LIMITED)).status).toBe(200);
    expect(
      (
        await t.send(
          "GET",
          `/v1/locks/${encodeURIComponent(`scope:${OWNING.id}/preview/pr-1`)}`,
          token,
          undefined,
          LIMITED,
        )
      ).status,
    ).toBe(429);
    expect((await t.send("GET", "/v1/locks", await freshCaller(kind), undefined, LIMITED)).status).toBe(200);
  });
});

describe("reads and runs are two budgets", () => {
  it("a ci caller whose reads are spent still previews", async () => {
    const token = await freshCaller("ci");
    for (let i = 0; i < 3; i++) await t.send("GET", "/v1/locks", token, undefined, LIMITED);
    const domain = freshAuth0Domain("reads");
    await seedTenant(domain);
    const res = await t.send(
      "POST",
      `/v1/scopes/preview/${freshPr()}/preview`,
      token,
      { plan: previewPlan(domain, "*") },
      LIMITED,
    );
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it("control: with SPONSON_RATE_LIMIT off (the dev entry's default) a third read is answered", async () => {
    const token = await freshCaller("viewer");
    const off = { ...LIMITED, SPONSON_RATE_LIMIT: "off" };
    for (let i = 0; i < 3; i++)
      expect((await t.send("GET", "/v1/locks", token, undefined, off)).status).toBe(200);
  });
});
