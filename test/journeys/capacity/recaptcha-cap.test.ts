/**
 * A reCAPTCHA key at its documented cap of 250 allowed domains (docs/design.md, "Lists at their
 * cap"): the 251st is refused LIST_FULL under the lease before any PATCH; with `evictStale`, the
 * domain of this repository's stale scope makes room instead, under the same lease, and nothing
 * else is touched. The control (no check: Google's own 400 mid-run) is provider-caps.test.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parentLockKey, scopeLockKey } from "../../../shared/lock-keys";
import type { Plan } from "../../../shared/schemas/plan";
import { SecretRegistry } from "../../../shared/secrets";
import { lockStub } from "../../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../../workers/receipts/r2-receipt-store";
import { scopeStateClient } from "../../../workers/scope-state/scope-state-client";
import { recaptchaProjectWithKey, SITE_KEY } from "../../adapters/recaptcha/recaptcha-key";
import { connectionOf } from "../../helpers/connections";
import { freshPr, receipt } from "../../helpers/engine";
import { DEFAULT_REPOSITORY, scopeAddress } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const DAY = 24 * 60 * 60 * 1000;
const EVICTING = JSON.stringify([{ name: "preview", staleAfterDays: 7, evictStale: true }]);
const kept = (n: number) => Array.from({ length: n }, (_, i) => `kept-${i}.example.com`);
const own = (scope: string) => `${scope}.preview.example.com`;

let n = 0;
async function keyHolding(domains: string[]) {
  const p = await recaptchaProjectWithKey(domains);
  n += 1;
  const connection = connectionOf(`cap-recaptcha-${n}`, {
    type: "recaptcha",
    serviceAccountKey: { secret: "CAP_RECAPTCHA_KEY" },
  });
  const plan: Plan = {
    version: 2,
    lines: [
      { id: "captcha", op: "recaptcha.domain", connection, params: p.params("{scope}.preview.example.com") },
    ],
  };
  const engine = (requests?: string[], evicting = false) =>
    testEngine({
      bindings: {
        CAP_RECAPTCHA_KEY: p.account.keyJson,
        ...(evicting ? { SPONSON_ENVIRONMENTS: EVICTING } : {}),
      },
      ...(requests ? { requests } : {}),
    });
  const apply = (scope: string, options: { requests?: string[]; evicting?: boolean } = {}) =>
    engine(options.requests, options.evicting).apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
      wait: true,
      waitTimeoutMs: 30_000,
    });
  const lock = await parentLockKey(`recaptcha:${p.project}:key:${SITE_KEY}`, new SecretRegistry());
  return { ...p, apply, lock };
}

const patches = (requests: string[]) => requests.filter((r) => r.startsWith("PATCH "));

async function closeAndAge(scope: string, days: number) {
  await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent({
    status: "closed",
    revision: Date.now(),
    deliveryId: crypto.randomUUID(),
  });
  const store = new R2ReceiptStore(env.RECEIPTS);
  const { receipt: r, etag } = await store.read(scopeAddress("preview", scope));
  const at = Date.now() - days * DAY;
  await store.write({ ...r, runs: r.runs.map((run) => ({ ...run, startedAt: at, finishedAt: at })) }, etag);
}

describe("a reCAPTCHA key at its 250 allowed domains", () => {
  it("the 251st is refused LIST_FULL before any PATCH; the key and the receipt untouched, the locks free", async () => {
    const k = await keyHolding(kept(250));
    const before = await k.key();
    const requests: string[] = [];
    const scope = freshPr();
    const result = await k.apply(scope, { requests });
    expect(result.run.status).toBe("failed");
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({
      list: { op: "recaptcha.domain" },
      cap: 250,
      entries: 250,
      after: 251,
    });
    expect(requests.some((r) => r.startsWith("GET recaptchaenterprise.googleapis.com/"))).toBe(true);
    expect(patches(requests)).toEqual([]);
    expect(await k.key()).toEqual(before);
    const stored = await receipt("preview", scope);
    expect(stored.intents).toEqual([]);
    expect(stored.ledger).toEqual([]);
    for (const key of [k.lock, scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope)]) {
      const state = await lockStub(env, key).read({ key });
      expect({ held: state.held, waiters: state.waiters }).toEqual({ held: false, waiters: [] });
    }
  });

  it("with evictStale, a closed scope's domain makes room: one PATCH, the foreign and live domains kept", async () => {
    const k = await keyHolding(kept(248));
    const [closed, live, next] = [freshPr(), freshPr(), freshPr()];
    for (const scope of [closed, live]) expect((await k.apply(scope)).run.status).toBe("succeeded");
    expect(await k.domainsNow()).toHaveLength(250);
    await closeAndAge(closed, 10);

    const requests: string[] = [];
    const result = await k.apply(next, { requests, evicting: true });
    expect(result.run.status).toBe("succeeded");
    expect(patches(requests)).toHaveLength(1);
    expect(await k.domainsNow()).toEqual([...kept(248), own(live), own(next)]);
    const evicted = await receipt("preview", closed);
    expect(evicted.ledger).toEqual([]);
    expect(evicted.evictions).toMatchObject([
      { runId: result.run.id, reason: "closed", keys: [own(closed)] },
    ]);
  });
});
