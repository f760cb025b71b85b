import { describe, expect, it } from "vitest";
import { secondsResetHeader } from "../../../workers/adapters/http";
import { CLOUDFLARE_API_HOST, seedTurnstile } from "../../helpers/emulators-turnstile";
import { describeProviderContract, failure } from "../../helpers/provider-contract";
import { CONFIGURED, hostnameOp, turnstileWidgetWith } from "./turnstile-widget";

const HOST = "pr-1.preview.example.com";
const UNRELATED = ["app.example.com", "localhost"];
/** What Cloudflare stamps on every write; everything else of the widget must come back as it was. */
const unstamped = (w: Record<string, unknown> | undefined) => {
  const { modified_on: _m, last_modified_via: _l, ...rest } = w ?? {};
  return rest;
};

describeProviderContract({
  provider: "turnstile",
  op: hostnameOp,
  item: HOST,
  unrelated: UNRELATED,
  apiHost: () => CLOUDFLARE_API_HOST,
  forbiddenOn: "write",
  errors: {
    unauthenticated: { status: 401, message: "Authentication error", providerCode: "10000" },
    forbidden: { status: 403, message: "Authentication error", providerCode: "10000" },
    missing: { status: 404, message: "widget not found", providerCode: "10404" },
  },
  rateLimitWaitMs: secondsResetHeader("retry-after"),
  async setup(failure) {
    const w = await turnstileWidgetWith(UNRELATED, failure);
    return {
      ...w,
      params: { sitekey: w.sitekey, hostname: HOST },
      secrets: [w.token],
      entries: async () => (await w.stored())?.domains ?? [],
      snapshot: async () => unstamped(await w.stored()),
      setEntries: async (domains) => {
        await seedTurnstile({ widget: [w.account, { ...w.widget, domains }] });
      },
    };
  },
});

describe("turnstile.hostname", () => {
  it("the PUT sends every field as read, a field Cloudflare added and this adapter does not know included; only domains change", async () => {
    const future = { level: "strict", since: "2026-06-01" };
    const w = await turnstileWidgetWith(UNRELATED, undefined, { ...CONFIGURED, future_setting: future });
    const params = { sitekey: w.sitekey, hostname: HOST };
    await hostnameOp.create(w.ctx, params, await hostnameOp.inspect(w.ctx, params));
    const after = await w.stored();
    expect(unstamped(after)).toEqual(unstamped({ ...w.widget, domains: [...UNRELATED, HOST] }));
    expect(after?.future_setting).toEqual(future);
    expect(after?.bot_fight_mode).toBe(true);
    expect(after?.clearance_level).toBe("interactive");
  });

  it("the widget's secret is neither kept in the inspection nor sent back; Cloudflare's own fields are not sent", async () => {
    const w = await turnstileWidgetWith(UNRELATED);
    const bodies: unknown[] = [];
    const inner = w.ctx.fetch;
    w.ctx.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (request.method === "PUT") bodies.push(await request.clone().json());
      return inner(request);
    }) as typeof fetch;
    const params = { sitekey: w.sitekey, hostname: HOST };
    const seen = await hostnameOp.inspect(w.ctx, params);
    expect(JSON.stringify(seen.state)).not.toContain(w.widget.secret);
    await hostnameOp.create(w.ctx, params, seen);
    expect(bodies).toHaveLength(1);
    const sent = bodies[0] as Record<string, unknown>;
    expect(Object.keys(sent).sort()).toEqual(
      [
        "bot_fight_mode",
        "clearance_level",
        "domains",
        "ephemeral_id",
        "mode",
        "name",
        "offlabel",
        "region",
      ].sort(),
    );
    expect((await w.stored())?.secret).toBe(w.widget.secret);
  });

  it("removing the widget's last hostname is refused before anything is sent", async () => {
    const w = await turnstileWidgetWith([HOST]);
    const params = { sitekey: w.sitekey, hostname: HOST };
    const seen = await hostnameOp.inspect(w.ctx, params);
    const err = await failure(hostnameOp.remove(w.ctx, params, seen));
    expect(err.code).toBe("VALIDATION");
    expect(err.detail).toMatchObject({ rule: "turnstile.lastHostname" });
    expect(err.message).toContain("Add another hostname to the widget");
    expect(w.calls.filter((c) => c.startsWith("PUT "))).toEqual([]);
    expect((await w.stored())?.domains).toEqual([HOST]);
  });

  it("a token not granted Turnstile is refused 403, as Cloudflare refuses a token without the permission", async () => {
    const w = await turnstileWidgetWith(UNRELATED, "no-turnstile");
    const err = await failure(hostnameOp.inspect(w.ctx, { sitekey: w.sitekey, hostname: HOST }));
    expect(err.detail).toMatchObject({ provider: "turnstile", status: 403, providerCode: "10000" });
  });

  it("params: a bare lowercase host name; a scheme, port, path, wildcard or capital is refused", () => {
    const ok = (hostname: string) =>
      hostnameOp.params.safeParse({ sitekey: "0x4AAAAAAAB", hostname }).success;
    for (const good of [HOST, "localhost", "127.0.0.1", "com", "my-app-git-x-acme.vercel.app"])
      expect(ok(good), good).toBe(true);
    for (const bad of [
      `https://${HOST}`,
      `${HOST}:8443`,
      `${HOST}/login`,
      "*.example.com",
      "PR-1.example.com",
      "",
    ])
      expect(ok(bad), bad).toBe(false);
  });

  it("lockOn is turnstile:<account>:widget:<sitekey> from the connection's settings", () => {
    expect(
      hostnameOp.lockOn({ sitekey: "0x4AAAAAAAB", hostname: HOST }, { type: "turnstile", accountId: "abc" }),
    ).toBe("turnstile:abc:widget:0x4AAAAAAAB");
  });

  it("declares the Free plan's cap, raisable to Enterprise's, and that its items admit their subdomains", () => {
    expect(hostnameOp.capacity).toMatchObject({ maxEntries: 10, higher: { maxEntries: 200 } });
    expect(hostnameOp.coversSubdomains).toBe(true);
  });
});
