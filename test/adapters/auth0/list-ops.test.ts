import { describe, expect, it } from "vitest";
import { auth0Adapter } from "../../../workers/adapters/auth0";
import { auth0Client, seedAuth0Tenant } from "../../helpers/emulators";
import { APP, auth0Tenant, line, M2M, op } from "./auth0-tenant";

const callbackUrl = op("auth0.callbackUrl");

describe("auth0 list ops against the emulated Management API", () => {
  it("create adds the URL with a PATCH of that one field; inspect then says present", async () => {
    const { domain, ctx, calls } = await auth0Tenant();
    const params = line("https://pr-1.preview.example.com/callback");
    const before = await callbackUrl.inspect(ctx, params);
    expect(before.present).toBe(false);
    await callbackUrl.create(ctx, params, before);
    expect((await auth0Client(domain, APP))?.callbacks).toEqual([
      "https://pr-1.preview.example.com/callback",
    ]);
    expect((await callbackUrl.inspect(ctx, params)).present).toBe(true);
    expect(calls).toEqual([
      "POST /oauth/token",
      `GET /api/v2/clients/${APP}`,
      `PATCH /api/v2/clients/${APP}`,
      `GET /api/v2/clients/${APP}`,
    ]);
  });

  it("creating a URL that is already there sends nothing", async () => {
    const { ctx, calls } = await auth0Tenant({
      clients: { [APP]: { callbacks: ["https://a.example.com/cb"] } },
    });
    const params = line("https://a.example.com/cb");
    const seen = await callbackUrl.inspect(ctx, params);
    expect(seen.present).toBe(true);
    const before = calls.length;
    await callbackUrl.create(ctx, params, seen);
    expect(calls.slice(before)).toEqual([]);
  });

  it("remove drops only that URL; removing an absent URL sends nothing", async () => {
    const { domain, ctx, calls } = await auth0Tenant({
      clients: { [APP]: { callbacks: ["https://a.example.com/cb", "https://b.example.com/cb"] } },
    });
    const params = line("https://a.example.com/cb");
    await callbackUrl.remove(ctx, params, await callbackUrl.inspect(ctx, params));
    expect((await auth0Client(domain, APP))?.callbacks).toEqual(["https://b.example.com/cb"]);

    const again = await callbackUrl.inspect(ctx, params);
    expect(again.present).toBe(false);
    const before = calls.length;
    await callbackUrl.remove(ctx, params, again);
    expect(calls.slice(before)).toEqual([]);
  });

  it("drift: a URL removed behind our back is reported absent by inspect", async () => {
    const { domain, ctx } = await auth0Tenant();
    const params = line("https://pr-7.preview.example.com/callback");
    await callbackUrl.create(ctx, params, await callbackUrl.inspect(ctx, params));
    await seedAuth0Tenant(domain, { m2m: M2M, clients: { [APP]: { callbacks: [] } } });
    expect((await callbackUrl.inspect(ctx, params)).present).toBe(false);
  });

  it("preserves every unrelated entry exactly, in order, and every other field", async () => {
    const original = {
      name: "Previews",
      description: "shared by every preview",
      callbacks: ["https://z.example.com/cb", "http://localhost:3000/cb", "https://*.example.com/cb"],
      allowed_logout_urls: ["https://z.example.com/"],
      web_origins: ["https://z.example.com"],
      allowed_origins: ["https://y.example.com"],
      custom_login_page_on: false,
    };
    const { domain, ctx } = await auth0Tenant({ clients: { [APP]: original } });
    const params = line("https://pr-2.preview.example.com/cb");
    await callbackUrl.create(ctx, params, await callbackUrl.inspect(ctx, params));
    expect(await auth0Client(domain, APP)).toEqual({
      ...original,
      client_id: APP,
      app_type: "spa",
      callbacks: [...original.callbacks, "https://pr-2.preview.example.com/cb"],
    });
    await callbackUrl.remove(ctx, params, await callbackUrl.inspect(ctx, params));
    expect(await auth0Client(domain, APP)).toEqual({ ...original, client_id: APP, app_type: "spa" });
  });

  it("each op edits its own list and leaves the other three alone", async () => {
    const { domain, ctx } = await auth0Tenant();
    const fields = {
      "auth0.callbackUrl": "callbacks",
      "auth0.logoutUrl": "allowed_logout_urls",
      "auth0.webOrigin": "web_origins",
      "auth0.allowedOrigin": "allowed_origins",
    } as const;
    expect(auth0Adapter.ops.map((o) => o.name).sort()).toEqual(Object.keys(fields).sort());
    for (const [name, field] of Object.entries(fields)) {
      const params = line(`https://${field.replaceAll("_", "-")}.example.com`);
      await op(name).create(ctx, params, await op(name).inspect(ctx, params));
    }
    const client = await auth0Client(domain, APP);
    for (const field of Object.values(fields)) {
      expect(client?.[field]).toEqual([`https://${field.replaceAll("_", "-")}.example.com`]);
    }
  });

  it("lockOn is pure: the application's identity from the connection's settings, never a secret", () => {
    const block = { type: "auth0", domain: "Acme.us.auth0.com", clientId: "m2m" };
    expect(callbackUrl.lockOn(line("https://x.example.com"), block)).toBe(
      "auth0:acme.us.auth0.com:client:app-previews",
    );
    expect(op("auth0.webOrigin").lockOn(line("https://x.example.com", "other"), block)).toBe(
      "auth0:acme.us.auth0.com:client:other",
    );
    expect(callbackUrl.key(line("https://x.example.com/cb"))).toBe("https://x.example.com/cb");
  });

  it("a write refuses an inspection made for another application", async () => {
    const { ctx } = await auth0Tenant({ clients: { [APP]: {}, other: {} } });
    const seenOfOther = await op("auth0.webOrigin").inspect(ctx, line("https://x.example.com", "other"));
    const params = line("https://x.example.com/cb");
    await expect(callbackUrl.create(ctx, params, seenOfOther)).rejects.toMatchObject({ code: "INTERNAL" });
  });

  it("the lists of one application are read with one GET and changed with one PATCH", async () => {
    const { ctx, domain, calls } = await auth0Tenant();
    const callback = line("https://x.example.com/cb");
    const origin = line("https://x.example.com");
    const [cb, wo] = [callbackUrl.batch, op("auth0.webOrigin").batch];
    if (!cb || !wo) throw new Error("auth0 ops have a many-items form");
    expect(wo.kind).toBe(cb.kind);
    const state = await cb.read(ctx, callback);
    const before = calls.length - 1;
    await cb.write(ctx, callback, state, (s) => wo.edit(cb.edit(s, callback, "create"), origin, "create"));
    expect(calls.slice(before)).toEqual([`GET /api/v2/clients/${APP}`, `PATCH /api/v2/clients/${APP}`]);
    const client = await auth0Client(domain, APP);
    expect(client?.callbacks).toEqual(["https://x.example.com/cb"]);
    expect(client?.web_origins).toEqual(["https://x.example.com"]);
  });

  it("params and config are validated", () => {
    expect(callbackUrl.params.safeParse({ client: "app", url: "https://ok.example.com" }).success).toBe(true);
    expect(callbackUrl.params.safeParse({ client: "../admin", url: "https://ok.example.com" }).success).toBe(
      false,
    );
    expect(callbackUrl.params.safeParse({ client: "app", url: "javascript:alert(1)" }).success).toBe(false);
    expect(
      callbackUrl.params.safeParse({ client: "app", url: "https://a.example.com,https://b" }).success,
    ).toBe(false);
    expect(
      auth0Adapter.config.safeParse({
        type: "auth0",
        domain: "https://acme.auth0.com",
        clientId: "m",
        clientSecret: "s",
      }).success,
    ).toBe(false);
  });
});
