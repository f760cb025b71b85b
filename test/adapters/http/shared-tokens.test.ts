/**
 * Tokens shared by the fleet (docs/design.md, "Provider tokens"): callers on many isolates — each
 * with its own, empty isolate cache — buy one Auth0 token between them through the connection's
 * token object; a 401 any of them reports drops it; a rotated secret is a new object and a new token.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { emulatorTransport } from "../../../dev/entry/dev-env";
import { CLAIM_TTL_MS } from "../../../durable-objects/token-broker";
import { systemClock } from "../../../shared/clock";
import { SponsonError } from "../../../shared/errors";
import { rpcStub } from "../../../shared/rpc/stub";
import { sha256Hex, type TokenBrokerApi, tokenObjectName } from "../../../shared/rpc/token-broker";
import { SecretRegistry } from "../../../shared/secrets";
import {
  type Auth0Context,
  readClientLists,
  warmAuth0Token,
} from "../../../workers/adapters/auth0/management-api";
import { type TokenSource, withAccessToken } from "../../../workers/adapters/http";
import type { SharedTokens } from "../../../workers/adapters/http/shared-tokens";
import { expireAuth0Tokens, freshAuth0Domain } from "../../helpers/emulators";
import { APP_CLIENT, seedTenant, TEST_M2M } from "../../helpers/plans";

const namespace = () => {
  if (!env.TOKEN_BROKER) throw new Error("TOKEN_BROKER is not bound");
  return env.TOKEN_BROKER;
};

/** The connection's door to its token objects, as the wiring builds it (workers/wiring/wire.ts). */
function fleet(connection: string): SharedTokens & { last?: TokenBrokerApi } {
  const door: SharedTokens & { last?: TokenBrokerApi } = {
    object: (fingerprint) => {
      door.last = rpcStub(namespace(), tokenObjectName(connection, fingerprint));
      return door.last;
    },
  };
  return door;
}

/** A tenant, and a transport that counts its token exchanges and can hold them until released. */
async function tenant() {
  const domain = freshAuth0Domain("tokens");
  await seedTenant(domain);
  const exchanges: string[] = [];
  let release: () => void = () => {};
  let held: Promise<void> | undefined;
  const inner = emulatorTransport(env);
  const transport: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    if (new URL(request.url).pathname === "/oauth/token") {
      const response = await inner(request);
      const body = (await response.clone().json()) as { access_token?: string };
      exchanges.push(body.access_token ?? "");
      await held;
      return response;
    }
    return inner(request);
  };
  return {
    domain,
    exchanges,
    /** Token exchanges wait at the transport until `release()`. */
    hold() {
      held = new Promise((r) => {
        release = r;
      });
    },
    release: () => release(),
    /** One caller on its own isolate: a fresh context that skips the isolate cache. */
    isolate(tokens: SharedTokens | undefined): Auth0Context {
      return {
        config: { type: "auth0", domain, clientId: TEST_M2M.clientId, clientSecret: TEST_M2M.clientSecret },
        fetch: transport,
        clock: systemClock,
        secrets: new SecretRegistry(),
        isolateCache: false,
        ...(tokens ? { tokens } : {}),
      };
    },
  };
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  // Waits on the object's own state (what it says over RPC), not on time.
  while (!(await condition())) await scheduler.wait(1);
}

describe("tokens shared by the fleet", () => {
  it("ten callers on ten isolates at once make one token exchange, and all use that token", async () => {
    const t = await tenant();
    const door = fleet(`auth0-${t.domain}`);
    t.hold();
    const callers = Array.from({ length: 10 }, () => t.isolate(door));
    const reads = callers.map((ctx) => readClientLists(ctx, APP_CLIENT));
    // The first caller holds the claim and is exchanging; the nine others wait in the object.
    await until(async () => door.last !== undefined && (await door.last.status()).waiting === 9);
    t.release();
    const lists = await Promise.all(reads);
    expect(lists.every((l) => Array.isArray(l.callbacks))).toBe(true);
    expect(t.exchanges).toHaveLength(1);
    for (const ctx of callers)
      expect(ctx.secrets.redact(`Bearer ${t.exchanges[0]}`)).toBe("Bearer [redacted]");
  });

  it("control: without the token object the same ten callers make ten exchanges", async () => {
    const t = await tenant();
    const callers = Array.from({ length: 10 }, () => t.isolate(undefined));
    await Promise.all(callers.map((ctx) => warmAuth0Token(ctx)));
    expect(t.exchanges).toHaveLength(10);
  });

  it("callers one after another on fresh isolates reuse the one token", async () => {
    const t = await tenant();
    const door = fleet(`auth0-${t.domain}`);
    for (let i = 0; i < 5; i++) await readClientLists(t.isolate(door), APP_CLIENT);
    expect(t.exchanges).toHaveLength(1);
  });

  it("a 401 seen by one caller drops the token for every isolate: one new exchange, then shared", async () => {
    const t = await tenant();
    const door = fleet(`auth0-${t.domain}`);
    await readClientLists(t.isolate(door), APP_CLIENT);
    await expireAuth0Tokens(t.domain);
    // This caller's read is refused with the shared token; it reports the 401 and buys a new one.
    await readClientLists(t.isolate(door), APP_CLIENT);
    expect(t.exchanges).toHaveLength(2);
    expect(t.exchanges[1]).not.toBe(t.exchanges[0]);
    // Another isolate is given the new token, without an exchange of its own.
    await readClientLists(t.isolate(door), APP_CLIENT);
    expect(t.exchanges).toHaveLength(2);
    // The object holds a token, and it is not the rejected one.
    const object = door.last as TokenBrokerApi;
    expect(await object.drop(await sha256Hex(t.exchanges[0] as string))).toBe(false);
    expect((await object.status()).holdsToken).toBe(true);
  });

  it("a rotated secret is another object: it never reuses the token bought with the old one", async () => {
    const connection = `rotating-${crypto.randomUUID()}`;
    const door = fleet(connection);
    const bought: string[] = [];
    const source = (secret: string): TokenSource => ({
      endpoint: `https://${connection}.test/oauth/token`,
      clientId: "m2m",
      clientSecret: secret,
      fetchToken: async () => {
        bought.push(`${secret}-token-${bought.length + 1}`);
        return { accessToken: bought.at(-1) as string, expiresInSeconds: 3_600 };
      },
    });
    const ctx = () => ({
      clock: systemClock,
      secrets: new SecretRegistry(),
      tokens: door,
      isolateCache: false,
    });
    const seen: string[] = [];
    await withAccessToken(ctx(), source("first-secret"), async (t) => seen.push(t));
    await withAccessToken(ctx(), source("first-secret"), async (t) => seen.push(t));
    await withAccessToken(ctx(), source("second-secret"), async (t) => seen.push(t));
    expect(seen).toEqual(["first-secret-token-1", "first-secret-token-1", "second-secret-token-2"]);
  });

  it("a failed exchange hands the waiters their own exchange: nobody waits for a refresher that failed", async () => {
    const connection = `failing-${crypto.randomUUID()}`;
    const door = fleet(connection);
    let attempts = 0;
    let fail: () => void = () => {};
    const failing = new Promise<never>((_, reject) => {
      fail = () => reject(new Error("token endpoint down"));
    });
    const source: TokenSource = {
      endpoint: `https://${connection}.test/oauth/token`,
      clientId: "m2m",
      clientSecret: "the-secret",
      fetchToken: async () => {
        attempts += 1;
        if (attempts === 1) return failing;
        return { accessToken: `token-${attempts}-abcdef`, expiresInSeconds: 3_600 };
      },
    };
    const ctx = () => ({
      clock: systemClock,
      secrets: new SecretRegistry(),
      tokens: door,
      isolateCache: false,
    });
    const first = withAccessToken(ctx(), source, async (t) => t);
    await until(async () => door.last !== undefined && (await door.last.status()).refreshing);
    const second = withAccessToken(ctx(), source, async (t) => t);
    await until(async () => (await (door.last as TokenBrokerApi).status()).waiting === 1);
    fail();
    await expect(first).rejects.toThrow("token endpoint down");
    expect(await second).toBe("token-2-abcdef");
    // The waiter's own token was handed over: the next caller needs no exchange.
    expect(await withAccessToken(ctx(), source, async (t) => t)).toBe("token-2-abcdef");
    expect(attempts).toBe(2);
  });
});

describe("a wait for another isolate's token under a lease", () => {
  it("ends at the caller's deadline with a clear error, not at the claim's 45 s, and the claim goes on", async () => {
    const connection = `deadline-${crypto.randomUUID()}`;
    const door = fleet(connection);
    let attempts = 0;
    // The first exchange never finishes within the test: its claim stays live.
    const source: TokenSource = {
      endpoint: `https://${connection}.test/oauth/token`,
      clientId: "m2m",
      clientSecret: "the-secret",
      fetchToken: async () => {
        attempts += 1;
        return new Promise<never>(() => {});
      },
    };
    const ctx = (deadline?: () => number) => ({
      clock: systemClock,
      secrets: new SecretRegistry(),
      tokens: door,
      isolateCache: false,
      ...(deadline ? { deadline } : {}),
    });
    void withAccessToken(ctx(), source, async (t) => t);
    await until(async () => door.last !== undefined && (await door.last.status()).refreshing);
    const deadline = Date.now() + 200;
    const started = Date.now();
    const err = await withAccessToken(
      ctx(() => deadline),
      source,
      async (t) => t,
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SponsonError);
    expect((err as SponsonError).code).toBe("PROVIDER_ERROR");
    expect((err as SponsonError).detail).toMatchObject({ tokenWait: "deadline" });
    expect((err as SponsonError).message).toContain("deadline");
    expect(Date.now() - started).toBeLessThan(CLAIM_TTL_MS / 2);
    // The waiter left; the claimer still holds the claim, and the late caller exchanged nothing.
    const status = await (door.last as TokenBrokerApi).status();
    expect(status).toMatchObject({ refreshing: true, waiting: 0 });
    expect(attempts).toBe(1);
  });
});

describe("the token object's storage", () => {
  it("keeps the token under one key, an alarm before expiry keeps it, a reported 401 deletes it", async () => {
    const stub = rpcStub(namespace(), tokenObjectName("stored", crypto.randomUUID()));
    const now = Date.now();
    await stub.store(null, {
      token: "stored-token-abcdef",
      refreshAtMs: now + 30_000,
      expiresAtMs: now + 60_000,
    });
    const stored = () =>
      runInDurableObject(stub as unknown as DurableObjectStub, (_, state) => state.storage.get("token"));
    expect(await stored()).toMatchObject({ token: "stored-token-abcdef", expiresAtMs: now + 60_000 });
    // The alarm is set for the expiry; fired early (alarms may), it keeps a token that is still valid.
    expect(await runDurableObjectAlarm(stub as unknown as DurableObjectStub)).toBe(true);
    expect(await stub.take(now)).toEqual({
      kind: "token",
      token: "stored-token-abcdef",
      refreshAtMs: now + 30_000,
    });
    expect(await stub.drop(await sha256Hex("stored-token-abcdef"))).toBe(true);
    expect(await stored()).toBeUndefined();
    expect((await stub.take(now)).kind).toBe("exchange");
  });
});
