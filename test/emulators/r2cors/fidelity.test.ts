/**
 * The emulated Cloudflare v4 R2 CORS endpoints answer with the documented envelope (Cloudflare API
 * reference, R2 bucket CORS).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { providerFetch } from "../../../dev/emulators/transport";
import { freshR2Account, seedR2 } from "../../helpers/emulators-r2cors";

const send = providerFetch(env);

async function bucket(rules?: unknown[]) {
  const { account, token, bucket } = freshR2Account();
  await seedR2({
    token: [token, { accounts: [account] }],
    bucket: [account, bucket, rules ? { rules } : {}],
  });
  return {
    url: `https://api.cloudflare.com/client/v4/accounts/${account}/r2/buckets/${bucket}/cors`,
    auth: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  };
}

describe("R2 CORS emulator fidelity", () => {
  it("GET with a policy → {success: true, errors: [], messages: [], result: {rules}} and Ratelimit headers", async () => {
    const rules = [
      { id: "a", allowed: { origins: ["https://a.example.com"], methods: ["GET"] }, maxAgeSeconds: 60 },
    ];
    const b = await bucket(rules);
    const res = await send(b.url, { headers: b.auth });
    expect(await res.json()).toEqual({ success: true, errors: [], messages: [], result: { rules } });
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=1200;w=300');
    expect(res.headers.get("ratelimit")).toMatch(/^"default";r=\d+;t=300$/);
  });

  it("GET without a policy → 404 code 10059; PUT a malformed policy → 400 code 10040", async () => {
    const b = await bucket();
    const none = await send(b.url, { headers: b.auth });
    expect([none.status, await none.json()]).toEqual([
      404,
      {
        success: false,
        errors: [{ code: 10059, message: "The CORS configuration does not exist." }],
        messages: [],
        result: null,
      },
    ]);
    const bad = await send(b.url, {
      method: "PUT",
      headers: b.auth,
      body: JSON.stringify({ rules: [{ allowed: { origins: [], methods: ["GET"] } }] }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ success: false, errors: [{ code: 10040 }] });
  });

  it("PUT replaces the whole policy, DELETE removes it", async () => {
    const b = await bucket([{ allowed: { origins: ["https://old.example.com"], methods: ["GET"] } }]);
    const rules = [{ allowed: { origins: ["https://new.example.com"], methods: ["PUT"] } }];
    const put = await send(b.url, { method: "PUT", headers: b.auth, body: JSON.stringify({ rules }) });
    expect(await put.json()).toEqual({ success: true, errors: [], messages: [], result: null });
    expect(((await (await send(b.url, { headers: b.auth })).json()) as { result: unknown }).result).toEqual({
      rules,
    });
    expect((await send(b.url, { method: "DELETE", headers: b.auth })).status).toBe(200);
    expect((await send(b.url, { headers: b.auth })).status).toBe(404);
  });
});
