/**
 * The emulated Cloudflare v4 Turnstile widget endpoints answer as the API reference documents
 * (Cloudflare API reference, Turnstile widgets): the v4 envelope, a PUT that replaces the whole
 * configuration (what it leaves out goes back to its default: the reason the adapter sends every
 * field back), the plan's hostname cap, and the token refusals.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { providerFetch } from "../../../dev/emulators/transport";
import { TURNSTILE_PLANS, turnstileWidget } from "../../../dev/emulators/turnstile";
import { freshTurnstileAccount, seedTurnstile, turnstileWidgetNow } from "../../helpers/emulators-turnstile";

const send = providerFetch(env);

async function widget(fields: Record<string, unknown> = {}, plan?: { hostnames: number }) {
  const { account, token, sitekey } = freshTurnstileAccount();
  const seeded = turnstileWidget(sitekey, ["app.example.com"], fields);
  await seedTurnstile({ token: [token, { accounts: [account] }], widget: [account, seeded] });
  if (plan) await seedTurnstile({ plan: [account, plan] });
  const url = `https://api.cloudflare.com/client/v4/accounts/${account}/challenges/widgets/${sitekey}`;
  const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const put = (body: unknown) => send(url, { method: "PUT", headers: auth, body: JSON.stringify(body) });
  return { account, sitekey, seeded, url, auth, put, stored: () => turnstileWidgetNow(account, sitekey) };
}

const hosts = (n: number) => Array.from({ length: n }, (_, i) => `pr-${i}.preview.example.com`);
const refusal = async (res: Response) => [res.status, await res.json()];

describe("Turnstile emulator fidelity", () => {
  it("GET → {success: true, errors: [], messages: [], result: widget} with its secret, and Ratelimit headers", async () => {
    const w = await widget();
    const res = await send(w.url, { headers: w.auth });
    expect(await res.json()).toEqual({ success: true, errors: [], messages: [], result: w.seeded });
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=1200;w=300');
  });

  it("PUT replaces the whole configuration: flags left out go back to their defaults, a field left out is gone", async () => {
    const w = await widget({ bot_fight_mode: true, offlabel: true, clearance_level: "managed", extra: 1 });
    const res = await w.put({ name: "renamed", mode: "managed", domains: ["a.example.com"] });
    expect(res.status).toBe(200);
    const after = await w.stored();
    expect(after).toMatchObject({
      name: "renamed",
      domains: ["a.example.com"],
      bot_fight_mode: false,
      offlabel: false,
      clearance_level: "no_clearance",
      ephemeral_id: false,
      secret: w.seeded.secret,
      sitekey: w.sitekey,
      created_on: w.seeded.created_on,
      last_modified_via: "api",
    });
    expect(after).not.toHaveProperty("extra");
    expect(after?.modified_on).not.toBe(w.seeded.modified_on);
  });

  it("a PUT without a required field (the docs' `{domains}` alone) is refused, and changes nothing", async () => {
    const w = await widget();
    const res = await w.put({ domains: ["a.example.com"] });
    expect(await refusal(res)).toEqual([
      400,
      {
        success: false,
        errors: [{ code: 10400, message: "missing field `mode`" }],
        messages: [],
        result: null,
      },
    ]);
    expect(await w.stored()).toEqual(w.seeded);
  });

  it("the plan's hostname cap: the Free plan's 11th is refused; an Enterprise account takes 200, not 201", async () => {
    const free = await widget();
    const at = { name: "previews", mode: "managed" };
    expect((await free.put({ ...at, domains: hosts(TURNSTILE_PLANS.free.hostnames) })).status).toBe(200);
    expect(await refusal(await free.put({ ...at, domains: hosts(11) }))).toEqual([
      400,
      {
        success: false,
        errors: [{ code: 10400, message: "invalid value for `domains`, too many values (max: 10)" }],
        messages: [],
        result: null,
      },
    ]);
    const enterprise = await widget({}, TURNSTILE_PLANS.enterprise);
    expect((await enterprise.put({ ...at, domains: hosts(200) })).status).toBe(200);
    expect((await enterprise.put({ ...at, domains: hosts(201) })).status).toBe(400);
  });

  it("hostnames only, at least one, and the region stays as created", async () => {
    const w = await widget();
    const at = { name: "previews", mode: "managed" };
    for (const bad of ["https://a.example.com", "a.example.com:443", "a.example.com/login", "*.example.com"])
      expect((await w.put({ ...at, domains: [bad] })).status, bad).toBe(400);
    expect((await w.put({ ...at, domains: [] })).status).toBe(400);
    expect((await w.put({ ...at, domains: ["a.example.com"], region: "china" })).status).toBe(400);
    expect(await w.stored()).toEqual(w.seeded);
  });

  it("tokens: unknown 401, another account's or one without Turnstile 403, both code 10000; an unknown widget 404", async () => {
    const w = await widget();
    const as = (token: string) => send(w.url, { headers: { authorization: `Bearer ${token}` } });
    const authError = (status: number) => [
      status,
      {
        success: false,
        errors: [{ code: 10000, message: "Authentication error" }],
        messages: [],
        result: null,
      },
    ];
    expect(await refusal(await as("nobody"))).toEqual(authError(401));
    await seedTurnstile({ token: ["cf-other-account", { accounts: ["0".repeat(32)] }] });
    expect(await refusal(await as("cf-other-account"))).toEqual(authError(403));
    await seedTurnstile({ token: ["cf-r2-only", { accounts: [w.account], products: ["r2"] }] });
    expect(await refusal(await as("cf-r2-only"))).toEqual(authError(403));
    const missing = await send(w.url.replace(w.sitekey, "0x4AAAAAAAnone"), { headers: w.auth });
    expect(missing.status).toBe(404);
  });
});
