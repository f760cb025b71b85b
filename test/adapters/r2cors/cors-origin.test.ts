import { describe, expect, it } from "vitest";
import { secondsResetHeader } from "../../../workers/adapters/http";
import { CLOUDFLARE_API_HOST, seedR2 } from "../../helpers/emulators-r2cors";
import { describeProviderContract } from "../../helpers/provider-contract";
import { corsOrigin, EXISTING_RULES, r2BucketWithCors } from "./r2-bucket";

const ORIGIN = "https://pr-1.preview.example.com";
type Rule = { id?: string; allowed: { origins: string[] } };
const rule = (rules: unknown[] | undefined, id: string) =>
  (rules as Rule[] | undefined)?.find((r) => r.id === id);

describeProviderContract({
  provider: "r2",
  op: corsOrigin,
  item: ORIGIN,
  unrelated: ["http://localhost:5173"],
  apiHost: () => CLOUDFLARE_API_HOST,
  forbiddenOn: "write",
  errors: {
    unauthenticated: { status: 401, message: "Authentication error", providerCode: "10000" },
    forbidden: { status: 403, message: "Authentication error", providerCode: "10000" },
    missing: { status: 404, message: "The specified bucket does not exist.", providerCode: "10006" },
  },
  rateLimitWaitMs: secondsResetHeader("retry-after"),
  async setup(failure) {
    const b = await r2BucketWithCors(EXISTING_RULES, failure);
    return {
      ...b,
      params: { bucket: b.bucket, rule: "previews", origin: ORIGIN },
      secrets: [b.token],
      entries: async () => rule((await b.stored())?.rules, "previews")?.allowed.origins ?? [],
      snapshot: b.stored,
      setEntries: async (entries) => {
        const rules = (((await b.stored())?.rules ?? []) as Rule[]).map((r) =>
          r.id === "previews" ? { ...r, allowed: { ...r.allowed, origins: entries } } : r,
        );
        await seedR2({ bucket: [b.account, b.bucket, { rules }] });
      },
    };
  },
});

describe("r2.corsOrigin", () => {
  it("no CORS policy (10059) reads as empty; the named rule is created with that id", async () => {
    const b = await r2BucketWithCors(undefined);
    const params = { bucket: b.bucket, rule: "previews", origin: ORIGIN };
    const seen = await corsOrigin.inspect(b.ctx, params);
    expect(seen.present).toBe(false);
    expect(b.responses[0]?.status).toBe(404);
    await corsOrigin.create(b.ctx, params, seen);
    expect((await b.stored())?.rules).toEqual([
      { id: "previews", allowed: { origins: [ORIGIN], methods: ["GET", "HEAD"] }, maxAgeSeconds: 3600 },
    ]);
  });

  it("removing the last origin of the only rule DELETEs the policy", async () => {
    const b = await r2BucketWithCors([{ id: "previews", allowed: { origins: [ORIGIN], methods: ["GET"] } }]);
    const params = { bucket: b.bucket, rule: "previews", origin: ORIGIN };
    await corsOrigin.remove(b.ctx, params, await corsOrigin.inspect(b.ctx, params));
    expect(b.calls.at(-1)).toBe(`DELETE /client/v4/accounts/${b.account}/r2/buckets/${b.bucket}/cors`);
    expect((await corsOrigin.inspect(b.ctx, params)).present).toBe(false);
  });

  it("the other rule is sent back exactly, every field kept", async () => {
    const b = await r2BucketWithCors(EXISTING_RULES);
    const params = { bucket: b.bucket, rule: "previews", origin: ORIGIN };
    await corsOrigin.create(b.ctx, params, await corsOrigin.inspect(b.ctx, params));
    expect((await b.stored())?.rules).toEqual([
      EXISTING_RULES[0],
      {
        ...EXISTING_RULES[1],
        allowed: { ...EXISTING_RULES[1]?.allowed, origins: ["http://localhost:5173", ORIGIN] },
      },
    ]);
  });

  it("lockOn is r2:<account>:<bucket>:cors from the connection's settings", () => {
    expect(
      corsOrigin.lockOn(
        { bucket: "assets", rule: "previews", origin: ORIGIN },
        { type: "r2", accountId: "abc" },
      ),
    ).toBe("r2:abc:assets:cors");
  });
});
