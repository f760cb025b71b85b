/**
 * Write combining across repositories (docs/security.md, "Repository isolation"): a run whose
 * changes another repository's holder wrote is told they were written for it, never that run's id
 * (not in its lines, its ledger, nor the lock's history it may read); a holder of its own repository
 * is still named.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { OTHER_REPOSITORY_RUN } from "../../shared/schemas/provenance";
import type { RepositoryRef } from "../../shared/schemas/repository";
import type { RunResult } from "../../shared/schemas/run";
import { lockStub } from "../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { appLockKey, freshPr, holdAppLock, untilWaiters } from "../helpers/engine";
import { APP_CLIENT, auth0Plan, TEST_M2M } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const OTHER: RepositoryRef = { id: 700_000_001, name: "acme/gamma" };

const request = (repository: RepositoryRef, scope: string, domain: string) => ({
  repository,
  environment: "preview",
  scope,
  wait: true,
  waitTimeoutMs: 30_000,
  plan: auth0Plan(domain, [
    { id: "origin", op: "auth0.webOrigin", url: "https://{scope}.preview.example.com" },
  ]),
});

/** The holder (first) and a waiter queued behind a lock held by hand, then let go. */
async function combined(holder: RepositoryRef, waiter: RepositoryRef) {
  const domain = freshAuth0Domain("crep");
  await seedAuth0Tenant(domain, {
    m2m: TEST_M2M,
    clients: { [APP_CLIENT]: { callbacks: [], allowed_logout_urls: [], web_origins: [] } },
  });
  const key = await appLockKey(domain);
  const held = await holdAppLock(domain);
  const [h, w] = [freshPr(), freshPr()];
  // The plan first: it registers the connection the engine is built with.
  const [ph, pw] = [request(holder, h, domain), request(waiter, w, domain)];
  const engine = () => testEngine({ combining: true });
  const first = engine().apply(ph);
  await untilWaiters(key, 1);
  const second = engine().apply(pw);
  await untilWaiters(key, 2);
  await held.release();
  const [rh, rw] = (await Promise.all([first, second])) as [RunResult, RunResult];
  const ledger = (
    await new R2ReceiptStore(env.RECEIPTS).read({ repository: waiter, environment: "preview", scope: w })
  ).receipt;
  const history = (await lockStub(env, key).read({ key })).history;
  return { rh, rw, ledger, history };
}

describe("write combining across repositories", () => {
  it("another repository's holder wrote the waiter's change: the waiter is never told its run id", async () => {
    const { rh, rw, ledger, history } = await combined(DEFAULT_REPOSITORY, OTHER);
    expect(rh.run.status).toBe("succeeded");
    expect(rw.run.status).toBe("succeeded");
    expect(rw.lines.map((l) => [l.result, l.writtenBy])).toEqual([["created", OTHER_REPOSITORY_RUN]]);
    expect(ledger.runs.at(-1)?.combinedBy).toEqual([OTHER_REPOSITORY_RUN]);
    expect(JSON.stringify(rw)).not.toContain(rh.run.id);
    expect(JSON.stringify(ledger)).not.toContain(rh.run.id);
    // The lock's history entry under the waiter's run (what its repository may read) names no holder run.
    const mine = history.filter((e) => e.holder === rw.run.id);
    expect(mine.length).toBeGreaterThan(0);
    expect(JSON.stringify(mine)).not.toContain(rh.run.id);
    // Nor is the holder told the waiter's run.
    expect(JSON.stringify(rh)).not.toContain(rw.run.id);
  }, 60_000);

  it("control: a holder of the waiter's own repository is named", async () => {
    const { rh, rw, ledger } = await combined(DEFAULT_REPOSITORY, DEFAULT_REPOSITORY);
    expect(rw.lines.map((l) => [l.result, l.writtenBy])).toEqual([["created", rh.run.id]]);
    expect(ledger.runs.at(-1)?.combinedBy).toEqual([rh.run.id]);
  }, 60_000);
});
