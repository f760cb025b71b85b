/**
 * clerk.redirectUrl against the Clerk emulator: each URL an object of its own, found by listing
 * the instance's URLs 500 a page, created by `POST /v1/redirect_urls`, adopted when an unanswered
 * attempt of ours landed, removed by id.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { EmulatorKnobsInput } from "../../../dev/emulators/knobs";
import { providerFetch } from "../../../dev/emulators/transport";
import { SponsonError } from "../../../shared/errors";
import {
  type ClerkContext,
  createRedirectUrl,
  listRedirectUrls,
} from "../../../workers/adapters/clerk/backend-api";
import { StaleState } from "../../../workers/adapters/stale-state";
import { configureHost, emulatorStub } from "../../helpers/emulators";
import { failure } from "../../helpers/provider-contract";
import { CLERK_HOST, clerkInstanceWith, clerkOp } from "./clerk-instance";

const op = clerkOp("clerk.redirectUrl");
const ITEM = "https://pr-1.preview.example.com/sso-callback";
const params = { url: ITEM };
const urlsOf = async (c: Awaited<ReturnType<typeof clerkInstanceWith>>) =>
  (await c.redirectUrls()).map((r) => r.url).sort();

/** The create's refusal with the emulator's knobs set for it (cleared after). */
async function createRefused(
  c: Awaited<ReturnType<typeof clerkInstanceWith>>,
  seen: Awaited<ReturnType<typeof op.inspect>>,
  knobs: EmulatorKnobsInput,
): Promise<SponsonError> {
  await configureHost(CLERK_HOST, knobs);
  try {
    const thrown = await op.create(c.ctx, params, seen).then(
      () => null,
      (err: unknown) => err,
    );
    if (!(thrown instanceof SponsonError)) throw new Error(`expected a refusal, got ${String(thrown)}`);
    return thrown;
  } finally {
    await configureHost(CLERK_HOST, {});
  }
}

describe("clerk.redirectUrl", () => {
  it("locks on its instance, as allowed origins do: ownership of a URL two scopes want is kept there", () => {
    expect(op.lockOn(params, { type: "clerk", instance: "ins_abc" })).toBe("clerk:instance:ins_abc");
    expect(op.batch).toBeUndefined();
  });

  it("create POSTs { url } once; inspect then finds it; a second create sends nothing", async () => {
    const c = await clerkInstanceWith({ redirectUrls: ["my-app://oauth-callback"] });
    const seen = await op.inspect(c.ctx, params);
    expect(seen.present).toBe(false);
    await op.create(c.ctx, params, seen);
    expect(await urlsOf(c)).toEqual([ITEM, "my-app://oauth-callback"].sort());
    const again = await op.inspect(c.ctx, params);
    expect(again.present).toBe(true);
    const before = c.calls.length;
    await op.create(c.ctx, params, again);
    expect(c.calls.slice(before)).toEqual([]);
    expect(c.calls.filter((x) => x.startsWith("POST"))).toEqual(["POST /v1/redirect_urls"]);
  });

  it("a first attempt Clerk refuses as a duplicate is someone else's URL: StaleState (nothing written), not adopted", async () => {
    const c = await clerkInstanceWith({ redirectUrls: [ITEM] });
    // An inspection made before someone created it.
    await expect(op.create(c.ctx, params, { present: false, state: { ids: [] } })).rejects.toBeInstanceOf(
      StaleState,
    );
    expect(await urlsOf(c)).toEqual([ITEM]);
    expect(c.calls).toEqual([
      "POST /v1/redirect_urls",
      "GET /v1/redirect_urls", // the duplicate's refusal: is it there?
    ]);
  });

  it("the emulator's race hook: the nth POST of a matching URL finds it created by someone else just before (422 duplicate), once", async () => {
    const c = await clerkInstanceWith({});
    const seen = await op.inspect(c.ctx, params);
    const other = "https://pr-1.preview.example.com/other";
    await c.raceCreate("pr-1.preview.example.com/sso", 2);
    await op.create(c.ctx, { url: other }, seen);
    // The first matching POST goes through; the second meets someone else's URL.
    await op.create(c.ctx, { url: `${ITEM}-first` }, seen);
    await expect(op.create(c.ctx, params, seen)).rejects.toBeInstanceOf(StaleState);
    const byUrl = Object.fromEntries((await c.redirectUrls()).map((r) => [r.url, r.id]));
    expect(byUrl[ITEM]).toMatch(/^ru_outside/);
    expect(byUrl[`${ITEM}-first`]).not.toMatch(/^ru_outside/);
    expect(byUrl[other]).not.toMatch(/^ru_outside/);
    // Fired once: the hook is gone.
    await op.remove(c.ctx, params, await op.inspect(c.ctx, params));
    await op.create(c.ctx, params, await op.inspect(c.ctx, params));
    expect((await c.redirectUrls()).find((r) => r.url === ITEM)?.id).not.toMatch(/^ru_outside/);
  });

  it("a POST whose answer was lost, refused as a duplicate on its retry: an unknown outcome, never adopted (the URL found may be anyone's, and an attempt may still land)", async () => {
    const c = await clerkInstanceWith({});
    const seen = await op.inspect(c.ctx, params);
    const before = c.calls.length;
    const thrown = await createRefused(c, seen, { loseWriteAnswers: 1 });
    expect(thrown.detail).toMatchObject({ status: 422, outcome: "unknown" });
    expect(await urlsOf(c)).toEqual([ITEM]);
    // No look settles it: the error stands as the write's own.
    expect(c.calls.slice(before)).toEqual(["POST /v1/redirect_urls", "POST /v1/redirect_urls"]);
  });

  it("a URL someone else created, met after a 429 (nothing of ours can have landed): StaleState, not adopted", async () => {
    const c = await clerkInstanceWith({ redirectUrls: [ITEM] });
    await configureHost(CLERK_HOST, { failures: [{ status: 429, count: 1, on: "write" }] });
    try {
      // An inspection made before someone created it; the 429's wait passes on the test clock.
      await expect(op.create(c.ctx, params, { present: false, state: { ids: [] } })).rejects.toBeInstanceOf(
        StaleState,
      );
    } finally {
      await configureHost(CLERK_HOST, {});
    }
    expect(await urlsOf(c)).toEqual([ITEM]);
  });

  it("a POST whose answer was lost and whose retry is refused (400): an unknown outcome, and the POST does land later", async () => {
    const c = await clerkInstanceWith({});
    const seen = await op.inspect(c.ctx, params);
    // The POST is taken but lands only later; its retry is refused.
    const thrown = await createRefused(c, seen, {
      lateWrites: 1,
      failuresAfterLateWrite: [{ status: 400, count: 2, on: "any" }],
    });
    expect(thrown.detail).toMatchObject({ outcome: "unknown" });
    expect(c.calls.filter((x) => x.startsWith("POST"))).toHaveLength(2);
    // And it does land.
    await emulatorStub(CLERK_HOST).landLateWrites();
    expect(await urlsOf(c)).toEqual([ITEM]);
  });

  it("a refusal that is not a duplicate stays a refusal (Clerk's envelope: long message and code)", async () => {
    const c = await clerkInstanceWith({});
    // The params schema refuses http:// too; here Clerk's own refusal, behind it.
    const err = await failure(createRedirectUrl(c.ctx as ClerkContext, "http://pr-1.preview.example.com/cb"));
    expect(err.message).toBe(
      "clerk: 422 url must be prefixed with https:// or a custom scheme e.g. my-app://oauth-callback",
    );
    expect(err.detail).toMatchObject({ status: 422, providerCode: "form_param_format_invalid" });
    expect(await urlsOf(c)).toEqual([]);
    // The list finds no such URL to adopt: the refusal stands.
    expect(c.calls).toEqual(["POST /v1/redirect_urls", "GET /v1/redirect_urls"]);
    expect(op.params.safeParse({ url: "http://pr-1.preview.example.com/cb" }).success).toBe(false);
  });

  it("remove deletes it by id and leaves the others; removing an absent one sends no write", async () => {
    const c = await clerkInstanceWith({ redirectUrls: ["my-app://oauth-callback", ITEM] });
    const [mine] = (await c.redirectUrls()).filter((r) => r.url === ITEM);
    await op.remove(c.ctx, params, await op.inspect(c.ctx, params));
    expect(await urlsOf(c)).toEqual(["my-app://oauth-callback"]);
    expect(c.calls).toContain(`DELETE /v1/redirect_urls/${mine?.id}`);
    const before = c.calls.length;
    const seen = await op.inspect(c.ctx, params);
    await op.remove(c.ctx, params, seen);
    expect(c.calls.slice(before)).toEqual(["GET /v1/redirect_urls"]);
  });

  it("a URL already deleted by someone else (404 on DELETE) is removed all the same", async () => {
    const c = await clerkInstanceWith({ redirectUrls: [ITEM] });
    const seen = await op.inspect(c.ctx, params);
    await op.remove(c.ctx, params, seen);
    await op.remove(c.ctx, params, seen);
    expect(c.responses.filter((r) => r.status === 404)).toHaveLength(1);
    expect(await urlsOf(c)).toEqual([]);
  });

  it("lists 500 a page: a URL behind the first 10 (Clerk's default page) is found", async () => {
    const others = Array.from({ length: 24 }, (_, i) => `my-app-${i}://oauth-callback`);
    // Seeded oldest first: ITEM is the oldest, the last of a newest-first list.
    const c = await clerkInstanceWith({ redirectUrls: [ITEM, ...others] });
    const sent: string[] = [];
    const inner = c.ctx.fetch;
    c.ctx.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      sent.push(new Request(input, init).url);
      return inner(input, init);
    }) as typeof fetch;
    expect((await op.inspect(c.ctx, params)).present).toBe(true);
    expect(sent).toEqual([
      // The key's instance, checked once (the connection names it: the lease's identity).
      "https://api.clerk.com/v1/instance",
      "https://api.clerk.com/v1/redirect_urls?paginated=true&limit=500&offset=0",
    ]);
    expect(await op.list(c.ctx, params)).toHaveLength(25);
  });

  it("pages on past 500: the 501st URL is found with a second page", async () => {
    const urls = Array.from({ length: 501 }, (_, i) => `my-app-${i}://cb`);
    const c = await clerkInstanceWith({ redirectUrls: urls });
    expect((await op.inspect(c.ctx, { url: "my-app-0://cb" })).present).toBe(true);
    expect(c.calls).toEqual(["GET /v1/instance", "GET /v1/redirect_urls", "GET /v1/redirect_urls"]);
    expect(await op.list(c.ctx, params)).toHaveLength(501);
  });

  it("a key of another instance than the connection names: refused like allowedOrigin's read, before any redirect-URL request", async () => {
    // The connection names ins_other…, its key is another instance's: that instance's URLs would
    // be written under ins_other…'s lease.
    const c = await clerkInstanceWith({ redirectUrls: ["my-app://oauth-callback"] }, "missing");
    const before = await urlsOf(c);
    for (const attempt of [op.inspect(c.ctx, params), op.list(c.ctx, params)]) {
      const err = await failure(attempt);
      expect(err.code).toBe("PROVIDER_ERROR");
      expect(err.message).toMatch(
        /^clerk: 404 instance ins_other\w+ not found: the connection's secret key is instance ins_\w+'s$/,
      );
      expect(err.detail).toMatchObject({ provider: "clerk", status: 404 });
    }
    expect(c.calls.filter((x) => !x.startsWith("GET /v1/instance"))).toEqual([]);
    expect(await urlsOf(c)).toEqual(before);
  });

  it("the key's instance is asked once per connection context: later calls go straight to the URLs", async () => {
    const c = await clerkInstanceWith({});
    await op.inspect(c.ctx, params);
    await op.inspect(c.ctx, params);
    expect(c.calls).toEqual(["GET /v1/instance", "GET /v1/redirect_urls", "GET /v1/redirect_urls"]);
  });

  it("a list longer than the pages it may read is refused, never read as complete (a URL not seen is not absent)", async () => {
    // The bound lowered to 2 pages (1,000 URLs): the instance holds 1,001.
    const urls = Array.from({ length: 1_001 }, (_, i) => `my-app-${i}://cb`);
    const c = await clerkInstanceWith({ redirectUrls: urls });
    const err = await failure(listRedirectUrls(c.ctx as ClerkContext, 2));
    expect(err.code).toBe("PROVIDER_ERROR");
    expect(err.message).toBe(
      "clerk: 200 the instance holds 1001 redirect URLs; 1000 were read in 2 pages of 500, the most read for one list",
    );
    expect(err.detail).toMatchObject({ provider: "clerk", status: 200 });
    expect(err.retriable).toBe(false);
    expect(c.calls).toEqual(["GET /v1/redirect_urls", "GET /v1/redirect_urls"]);
  });

  it("control: a list that ends on the last page it may read is complete", async () => {
    const urls = Array.from({ length: 1_000 }, (_, i) => `my-app-${i}://cb`);
    const c = await clerkInstanceWith({ redirectUrls: urls });
    expect(await listRedirectUrls(c.ctx as ClerkContext, 2)).toHaveLength(1_000);
  });

  it("a 429 waits the seconds Retry-After asks, then the create goes through", async () => {
    const c = await clerkInstanceWith({});
    const seen = await op.inspect(c.ctx, params);
    await configureHost(CLERK_HOST, { failures: [{ status: 429, count: 1, on: "write" }] });
    try {
      await op.create(c.ctx, params, seen);
    } finally {
      await configureHost(CLERK_HOST, {});
    }
    const limited = c.responses.find((r) => r.status === 429);
    expect(limited?.headers.get("retry-after")).toBe("2");
    expect((await limited?.json()) as unknown).toMatchObject({ errors: [{ code: "too_many_requests" }] });
    expect(c.clock.sleeps).toEqual([2_000]);
    expect(await urlsOf(c)).toEqual([ITEM]);
  });

  it("the emulator's limit: a development key's 101st request in 10 s is a 429 with Retry-After", async () => {
    const c = await clerkInstanceWith({ keyKind: "test" });
    const fetcher = providerFetch(env);
    const get = () =>
      fetcher("https://api.clerk.com/v1/instance", { headers: { authorization: `Bearer ${c.secretKey}` } });
    const statuses: number[] = [];
    for (let i = 0; i < 100; i += 1) statuses.push((await get()).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const over = await get();
    expect(over.status).toBe(429);
    const wait = Number(over.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(10);
  });

  it("bad credentials: 401 in Clerk's envelope, and the key appears nowhere in the error", async () => {
    const c = await clerkInstanceWith({}, "unauthenticated");
    const err = await failure(op.inspect(c.ctx, params));
    // Clerk's own words say what to do: the connection's secret key is the one to check.
    expect(err.message).toBe(
      "clerk: 401 The provided Clerk Secret Key is invalid. Make sure that your Clerk Secret Key is correct.",
    );
    expect(err.detail).toMatchObject({ providerCode: "clerk_key_invalid" });
    expect(JSON.stringify(err.toInfo())).not.toContain(c.secretKey);
  });
});
