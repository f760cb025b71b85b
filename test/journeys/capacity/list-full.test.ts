/**
 * A list at its cap (docs/design.md, "Lists at their cap"): a write that would take it past the
 * cap is refused LIST_FULL under the lease, decided on the list as read there, before any provider
 * write; nothing is left behind and the lock is free. Its control (no check: the provider's error
 * in the middle of the run) is provider-caps.test.ts. Combined writes: the group that does not fit
 * goes back and is refused alone; the others are written.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import type { RunResult } from "../../../shared/schemas/run";
import type { Engine } from "../../../workers/engine/engine";
import { userPoolWithClient } from "../../adapters/cognito/user-pool";
import { connectionOf } from "../../helpers/connections";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { COGNITO_REGION } from "../../helpers/emulators-cognito";
import {
  appLockKey,
  expectLocksFree,
  freshPr,
  holdAppLock,
  receipt,
  untilWaiters,
} from "../../helpers/engine";
import { APP_CLIENT, auth0Connection, previewPlan, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const filled = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `https://${prefix}-${i}.example.com`);

function apply(e: Engine, scope: string, plan: Plan): Promise<RunResult> {
  return e.apply({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope,
    plan,
    wait: true,
    waitTimeoutMs: 30_000,
  });
}

const writes = (requests: string[]) => requests.filter((r) => !r.startsWith("GET ") && !r.includes("/token"));

describe("a list at its cap", () => {
  it("auth0: the next create is refused LIST_FULL before any provider write; nothing left, the lock free", async () => {
    const domain = freshAuth0Domain("full");
    const kept = filled(100, "kept");
    await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: { web_origins: kept } } });
    const plan: Plan = {
      version: 2,
      lines: [
        {
          id: "origin",
          op: "auth0.webOrigin",
          connection: auth0Connection(domain),
          params: { client: APP_CLIENT, url: "https://{scope}.preview.example.com" },
        },
      ],
    };
    const requests: string[] = [];
    const scope = freshPr();
    const result = await apply(testEngine({ requests }), scope, plan);
    expect(result.run.status).toBe("failed");
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({
      list: { op: "auth0.webOrigin" },
      cap: 100,
      entries: 100,
      after: 101,
    });
    expect(result.run.error?.message).toMatch(/holds 100 of at most 100 entries/);
    // Read under the lease, never written.
    expect(requests.some((r) => r.startsWith("GET "))).toBe(true);
    expect(writes(requests)).toEqual([]);
    expect((await auth0Client(domain, APP_CLIENT))?.web_origins).toEqual(kept);
    const stored = await receipt("preview", scope);
    expect(stored.intents).toEqual([]);
    expect(stored.ledger).toEqual([]);
    await expectLocksFree(expect, domain, [scope]);
    // Not retriable until something is removed: the same request is refused the same way.
    const again = await apply(testEngine(), scope, plan);
    expect(again.run.error?.code).toBe("LIST_FULL");
  });

  it("cognito: the 101st callback URL is refused LIST_FULL; the pool client is not updated", async () => {
    const kept = filled(100, "kept").map((u) => `${u}/cb`);
    const pool = await userPoolWithClient({ CallbackURLs: kept });
    const conn = connectionOf(`full-cognito-${freshPr()}`, {
      type: "cognito",
      region: COGNITO_REGION,
      accessKeyId: pool.accessKeyId,
      secretAccessKey: { secret: "FULL_COGNITO" },
    });
    const plan: Plan = {
      version: 2,
      lines: [
        {
          id: "cb",
          op: "cognito.callbackUrl",
          connection: conn,
          params: pool.params("https://{scope}.example.com/cb"),
        },
      ],
    };
    const targets: string[] = [];
    const byTarget =
      (inner: typeof fetch): typeof fetch =>
      (input, init) => {
        targets.push(new Request(input, init).headers.get("x-amz-target") ?? "");
        return inner(input, init);
      };
    const engine = testEngine({ wrapFetch: byTarget, bindings: { FULL_COGNITO: pool.secret } });
    const result = await apply(engine, freshPr(), plan);
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({ cap: 100, entries: 100 });
    // Read under the lease (DescribeUserPoolClient), never written (UpdateUserPoolClient).
    expect(targets.some((t) => t.endsWith("DescribeUserPoolClient"))).toBe(true);
    expect(targets.filter((t) => t.endsWith("UpdateUserPoolClient"))).toEqual([]);
    expect((await pool.stored())?.CallbackURLs).toEqual(kept);
  });
});

describe("a combined write that would cross the cap", () => {
  it("the holder's own group is written; the waiter's does not fit, goes back, and is refused alone", async () => {
    const domain = freshAuth0Domain("fullc");
    const kept = filled(99, "kept");
    await seedAuth0Tenant(domain, {
      m2m: TEST_M2M,
      clients: {
        [APP_CLIENT]: { callbacks: [], allowed_logout_urls: [], web_origins: kept, allowed_origins: [] },
      },
    });
    const plan = previewPlan(domain);
    const [holder, waiter] = [testEngine({ combining: true }), testEngine({ combining: true })];
    const [a, b] = [freshPr(), freshPr()];
    const key = await appLockKey(domain);
    const held = await holdAppLock(domain);
    const first = apply(holder, a, plan);
    await untilWaiters(key, 1);
    const second = apply(waiter, b, plan);
    await untilWaiters(key, 2);
    await held.release();
    const [ra, rb] = await Promise.all([first, second]);
    expect(ra.run.status).toBe("succeeded");
    expect(rb.run.status).toBe("failed");
    expect(rb.run.error?.code).toBe("LIST_FULL");
    expect(rb.run.error?.detail).toMatchObject({ list: { op: "auth0.webOrigin" }, cap: 100, entries: 100 });
    const client = await auth0Client(domain, APP_CLIENT);
    expect(client?.web_origins).toEqual([...kept, `https://${a}.preview.example.com`]);
    // None of the refused group's lines was written, in any list of the object.
    expect(client?.callbacks).toEqual([`https://${a}.preview.example.com/callback`]);
    expect(client?.allowed_logout_urls).toEqual([`https://${a}.preview.example.com/`]);
    expect((await receipt("preview", b)).intents).toEqual([]);
    await expectLocksFree(expect, domain, [a, b]);
  });
});
