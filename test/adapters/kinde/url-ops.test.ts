import { describe, expect, it } from "vitest";
import { secondsResetHeader } from "../../../workers/adapters/http";
import { kindeApp, seedKinde } from "../../helpers/emulators-kinde";
import { describeProviderContract } from "../../helpers/provider-contract";
import { APP, kindeBusiness, kindeOp } from "./kinde-business";

const CALLBACKS = [
  "https://app.example.com/api/auth/kinde_callback",
  "http://localhost:3000/api/auth/kinde_callback",
];
const LOGOUTS = ["https://app.example.com"];
const ITEM = "https://pr-1.preview.example.com/api/auth/kinde_callback";

for (const [name, field, unrelated] of [
  ["kinde.callbackUrl", "redirect_urls", CALLBACKS],
  ["kinde.logoutUrl", "logout_urls", LOGOUTS],
] as const) {
  describeProviderContract({
    provider: "kinde",
    op: kindeOp(name),
    item: ITEM,
    unrelated: [...unrelated],
    apiHost: (f) => (f.ctx.config as { domain: string }).domain,
    forbiddenOn: "write",
    errors: {
      unauthenticated: {
        status: 401,
        message:
          "Client authentication failed (e.g., unknown client, no client authentication included, or unsupported authentication method).",
        providerCode: "invalid_client",
      },
      forbidden: { status: 403, message: /^Missing required scope: create:/, providerCode: "FORBIDDEN" },
      // Kinde documents 400/403/429 for these endpoints; an unknown application is a 400 [U].
      missing: { status: 400, message: "Invalid application id", providerCode: "INVALID_APPLICATION_ID" },
    },
    rateLimitWaitMs: secondsResetHeader("ratelimit-reset"),
    async setup(failure) {
      const k = await kindeBusiness({ redirect_urls: CALLBACKS, logout_urls: LOGOUTS }, failure);
      return {
        ...k,
        params: { app: APP, url: ITEM },
        secrets: [k.secret],
        entries: async () => (await k.app())?.[field] ?? [],
        snapshot: k.app,
        setEntries: async (entries) => {
          const app = await k.app();
          await seedKinde(k.domain, { apps: { [APP]: { ...app, [field]: entries } } });
        },
      };
    },
  });
}

describe("kinde ITEM ops: item-level, no shared object", () => {
  it("create POSTs only the new ITEM; remove DELETEs it by ?urls=, ITEM-encoded", async () => {
    const k = await kindeBusiness({ redirect_urls: CALLBACKS });
    const op = kindeOp("kinde.callbackUrl");
    const params = { app: APP, url: ITEM };
    const seen: string[] = [];
    const inner = k.ctx.fetch;
    k.ctx.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (request.method === "POST" && !request.url.endsWith("/oauth2/token"))
        seen.push(await request.clone().text());
      if (request.method === "DELETE") seen.push(new URL(request.url).search);
      return inner(request);
    }) as typeof fetch;
    await op.create(k.ctx, params, await op.inspect(k.ctx, params));
    await op.remove(k.ctx, params, await op.inspect(k.ctx, params));
    expect(seen).toEqual([JSON.stringify({ urls: [ITEM] }), `?urls=${encodeURIComponent(ITEM)}`]);
    expect((await kindeApp(k.domain, APP))?.redirect_urls).toEqual(CALLBACKS);
  });

  it("two scopes adding at once both survive even without a lock: the writes are item-level", async () => {
    const k = await kindeBusiness({ redirect_urls: CALLBACKS });
    const op = kindeOp("kinde.callbackUrl");
    const a = { app: APP, url: "https://pr-a.preview.example.com/cb" };
    const b = { app: APP, url: "https://pr-b.preview.example.com/cb" };
    // The application is still the parent, for the ownership of URLs two scopes want.
    expect(op.lockOn(a, { type: "kinde", domain: "Acme.kinde.com" })).toBe(`kinde:acme.kinde.com:app:${APP}`);
    // Both read before either writes: the stale reads do not matter, the writes are item-level.
    const [seenA, seenB] = await Promise.all([op.inspect(k.ctx, a), op.inspect(k.ctx, b)]);
    await Promise.all([op.create(k.ctx, a, seenA), op.create(k.ctx, b, seenB)]);
    expect(new Set((await kindeApp(k.domain, APP))?.redirect_urls)).toEqual(
      new Set([...CALLBACKS, a.url, b.url]),
    );
  });
});

describe("kinde write answers", () => {
  it("a 200 without code: OK (empty body, or another shape) is success; a 200 carrying errors is not", async () => {
    const k = await kindeBusiness({ redirect_urls: CALLBACKS });
    const op = kindeOp("kinde.callbackUrl");
    const inner = k.ctx.fetch;
    const bodies = ["", JSON.stringify({ message: "Callbacks updated" })];
    k.ctx.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const response = await inner(request);
      if (request.method === "GET" || request.url.endsWith("/oauth2/token")) return response;
      // The write landed on the emulator; its answer is swapped for the next shape under test.
      return new Response(bodies.shift() ?? JSON.stringify({ errors: [{ code: "X", message: "x" }] }), {
        status: 200,
      });
    }) as typeof fetch;
    const a = { app: APP, url: "https://pr-a.preview.example.com/cb" };
    await op.create(k.ctx, a, await op.inspect(k.ctx, a));
    await op.remove(k.ctx, a, await op.inspect(k.ctx, a));
    expect((await kindeApp(k.domain, APP))?.redirect_urls).toEqual(CALLBACKS);
    const b = { app: APP, url: "https://pr-b.preview.example.com/cb" };
    await expect(op.create(k.ctx, b, await op.inspect(k.ctx, b))).rejects.toMatchObject({
      code: "PROVIDER_ERROR",
    });
  });
});
