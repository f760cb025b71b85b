import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TOO_MANY_REQUESTS } from "../../../dev/emulators/auth0/responses";
import { providerFetch } from "../../../dev/emulators/transport";
import { SecretRegistry } from "../../../shared/secrets";
import { auth0Adapter } from "../../../workers/adapters/auth0";
import type { OpContext } from "../../../workers/adapters/op-spec";
import { StepClock } from "../../helpers/clock";
import {
  auth0Client,
  configureHost,
  emulatorStub,
  freshAuth0Domain,
  seedAuth0Tenant,
} from "../../helpers/emulators";
import { get, token } from "./auth0-api";

const M2M = { clientId: "m2m", clientSecret: "knob-secret-5e6f" };

async function tenant(prefix: string) {
  const domain = freshAuth0Domain(prefix);
  await seedAuth0Tenant(domain, {
    m2m: M2M,
    clients: { app: { callbacks: ["https://main.example.com/cb"] } },
  });
  return { domain, bearer: await token(domain, M2M.clientId, M2M.clientSecret) };
}

/** Asks the object until `check` holds; every turn is an RPC round trip, no timers. */
async function until(check: () => Promise<boolean>, turns = 1_000): Promise<void> {
  for (let i = 0; i < turns; i += 1) if (await check()) return;
  throw new Error("condition never held");
}

describe("emulator knobs on an Auth0 host", () => {
  it("the read barrier holds every read until N have arrived, then lets them all through", async () => {
    const { domain, bearer } = await tenant("barrier");
    await configureHost(domain, { readBarrier: 3 });
    const answered: number[] = [];
    const read = (n: number) =>
      get(domain, "app", bearer).then((res) => {
        answered.push(n);
        return res;
      });
    const first = [read(1), read(2)];
    await until(async () => (await emulatorStub(domain).stats()).waitingAtBarrier === 2);
    expect(answered).toEqual([]);

    const all = await Promise.all([...first, read(3)]);
    expect(all.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(answered.sort()).toEqual([1, 2, 3]);
    expect((await emulatorStub(domain).stats()).waitingAtBarrier).toBe(0);
  });

  it("control case: two read-modify-writes that both read first lose one update (last write wins)", async () => {
    const { domain } = await tenant("lww");
    await configureHost(domain, { readBarrier: 2 });
    const ctx: OpContext = {
      config: auth0Adapter.config.parse({ type: "auth0", domain, ...M2M }),
      fetch: providerFetch(env),
      clock: new StepClock(),
      secrets: new SecretRegistry(),
    };
    const callbackUrl = auth0Adapter.ops.find((o) => o.name === "auth0.callbackUrl");
    if (!callbackUrl) throw new Error("no auth0.callbackUrl");
    const addFor = async (pr: number) => {
      const params = { client: "app", url: `https://pr-${pr}.preview.example.com/cb` };
      const seen = await callbackUrl.inspect(ctx, params);
      await callbackUrl.create(ctx, params, seen);
    };
    await Promise.all([addFor(1), addFor(2)]);

    const callbacks = (await auth0Client(domain, "app"))?.callbacks ?? [];
    // Both writers read [main] and wrote [main, theirs]: only the last one survives.
    expect(callbacks).toHaveLength(2);
    expect(callbacks[0]).toBe("https://main.example.com/cb");
    expect(["https://pr-1.preview.example.com/cb", "https://pr-2.preview.example.com/cb"]).toContain(
      callbacks[1],
    );
    expect((await emulatorStub(domain).stats()).writes).toBe(2);
  });

  it("an injected 429 is Auth0's: body, errorCode and exhausted rate-limit headers", async () => {
    const { domain, bearer } = await tenant("429");
    await configureHost(domain, { failures: [{ status: 429, count: 1, on: "read" }] });
    const limited = await get(domain, "app", bearer);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({
      statusCode: 429,
      error: "Too Many Requests",
      message: TOO_MANY_REQUESTS,
      errorCode: "too_many_requests",
    });
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    const reset = Number(limited.headers.get("x-ratelimit-reset"));
    expect(reset * 1000).toBeGreaterThan(Date.now() - 1_000);
    expect((await get(domain, "app", bearer)).status).toBe(200);
  });

  it("an injected 503 answers with Auth0's error envelope and then the host recovers", async () => {
    const { domain, bearer } = await tenant("503");
    await configureHost(domain, { failures: [{ status: 503, count: 1 }] });
    const failed = await get(domain, "app", bearer);
    expect(failed.status).toBe(503);
    expect(await failed.json()).toEqual({
      statusCode: 503,
      error: "Service Unavailable",
      message: "Service Unavailable",
    });
    expect((await get(domain, "app", bearer)).status).toBe(200);
  });
});
