/** `cloudflare` (the official v4 client) against the R2 CORS emulator, jurisdictions included. */
import Cloudflare from "cloudflare";
import { describe, expect, it } from "vitest";
import { r2Keys } from "../../dev/emulators/r2cors";
import { configure, dump, emulatorFetch, seed, sent, unique } from "./emulators";

const HOST = "api.cloudflare.com";
const ACCOUNT = crypto.randomUUID().replaceAll("-", "");
const TOKEN = `test-only-sdk-r2-${crypto.randomUUID()}`;
const RULE = {
  allowed: { origins: ["https://a.example.com"], methods: ["GET" as const] },
  maxAgeSeconds: 600,
};

async function bucket(jurisdiction?: string) {
  const name = unique("sdk");
  await seed(HOST, {
    [r2Keys.token(TOKEN)]: { accounts: [ACCOUNT] },
    [r2Keys.bucket(ACCOUNT, name, jurisdiction)]: { rules: [{ id: "app", ...RULE }] },
  });
  return name;
}

const client = () => new Cloudflare({ apiToken: TOKEN, fetch: emulatorFetch, maxRetries: 0 });

describe("cloudflare SDK: r2.buckets.cors", () => {
  it("get, update (whole policy), delete; then get is 404 code 10059", async () => {
    const name = await bucket();
    const cf = client();
    expect((await cf.r2.buckets.cors.get(name, { account_id: ACCOUNT })).rules).toEqual([
      { id: "app", ...RULE },
    ]);
    const rules = [
      { id: "app", ...RULE },
      { id: "previews", allowed: { origins: ["https://pr-1.example.com"], methods: ["GET" as const] } },
    ];
    await cf.r2.buckets.cors.update(name, { account_id: ACCOUNT, rules });
    expect((await cf.r2.buckets.cors.get(name, { account_id: ACCOUNT })).rules).toEqual(rules);
    await cf.r2.buckets.cors.delete(name, { account_id: ACCOUNT });
    const empty = await cf.r2.buckets.cors.get(name, { account_id: ACCOUNT }).catch((e: unknown) => e);
    expect(empty).toBeInstanceOf(Cloudflare.NotFoundError);
    expect(empty).toMatchObject({ status: 404, errors: [expect.objectContaining({ code: 10059 })] });
  });

  it("cf-r2-jurisdiction: an eu bucket is found only in eu; writes land there", async () => {
    const name = await bucket("eu");
    const cf = client();
    const unqualified = await cf.r2.buckets.cors.get(name, { account_id: ACCOUNT }).catch((e: unknown) => e);
    expect(unqualified).toMatchObject({ status: 404, errors: [expect.objectContaining({ code: 10006 })] });
    const eu = await cf.r2.buckets.cors.get(name, { account_id: ACCOUNT, "cf-r2-jurisdiction": "eu" });
    expect(eu.rules).toEqual([{ id: "app", ...RULE }]);
    expect(sent.at(-1)?.headers.get("cf-r2-jurisdiction")).toBe("eu");
    await cf.r2.buckets.cors.update(name, { account_id: ACCOUNT, "cf-r2-jurisdiction": "eu", rules: [] });
    const stored = await dump(HOST, r2Keys.bucket(ACCOUNT, name, "eu"));
    expect(stored[r2Keys.bucket(ACCOUNT, name, "eu")]).toEqual({ rules: [] });
    expect(stored[r2Keys.bucket(ACCOUNT, name)]).toBeUndefined();
  });

  it("errors: 401 code 10000 for an unknown token; 429 in the envelope", async () => {
    const name = await bucket();
    const stranger = new Cloudflare({ apiToken: "not-a-token", fetch: emulatorFetch, maxRetries: 0 });
    const refused = await stranger.r2.buckets.cors
      .get(name, { account_id: ACCOUNT })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 401, errors: [expect.objectContaining({ code: 10000 })] });
    await configure(HOST, { failures: [{ status: 429, count: 1, on: "read" }] });
    const limited = await client()
      .r2.buckets.cors.get(name, { account_id: ACCOUNT })
      .catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(Cloudflare.RateLimitError);
    expect(limited).toMatchObject({ status: 429, errors: [expect.objectContaining({ code: 971 })] });
  });
});
