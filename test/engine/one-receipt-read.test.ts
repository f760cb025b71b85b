/**
 * One receipt read per run (issue 24, docs/design.md "Run algorithm"): the scope lock hands the etag
 * its last holder saved the receipt with to the next grant, and a run whose read before the lease
 * has that etag uses it instead of reading again under the lease. Wherever the handed etag is not
 * known true — a holder that saved and never released, a force-release, another run that saved
 * between this run's read and its grant — the run reads again, and its save (a conditional put on
 * the etag) never writes over what it did not read.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import type { RunResult } from "../../shared/schemas/run";
import { lockTarget } from "../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { apply, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr, receipt, untilWaiters } from "../helpers/engine";
import { expireLeaseNow, granted, rawStub, stub } from "../helpers/locks";
import { auth0Plan, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY, scopeAddress } from "../helpers/repositories";

const TTL_MS = 30_000;
/** The scope state is read twice (before the lease and under it); the rest are receipt reads. */
const SCOPE_STATE_READS = 2;

const receiptReads = (result: RunResult) => (result.counts?.storageReads ?? 0) - SCOPE_STATE_READS;

/** A scope that has had one run: its lock knows the etag that run saved. */
async function warmScope() {
  const domain = freshAuth0Domain("one-read");
  await seedTenant(domain);
  const scope = freshPr();
  const first = await apply(testApp(), "preview", scope, previewPlan(domain));
  expect(first.run.status).toBe("succeeded");
  return { domain, scope, key: scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope) };
}

/** A holder outside the engine that rewrites the receipt as it is (a new version, nothing else). */
async function resave(scope: string): Promise<number> {
  const store = new R2ReceiptStore(env.RECEIPTS);
  const { receipt: stored, etag } = await store.read(scopeAddress("preview", scope));
  await store.write({ ...stored, revision: stored.revision + 1 }, etag);
  return stored.revision + 1;
}

const waitLong = { wait: true, waitTimeoutSeconds: 60 };

describe("one receipt read per run", () => {
  it("a run on a warm scope reads its receipt once: before the lease (was twice)", async () => {
    const { domain, scope } = await warmScope();
    const again = await apply(testApp(), "preview", scope, previewPlan(domain));
    expect(again.lines.map((l) => l.result)).toEqual(["unchanged", "unchanged", "unchanged"]);
    expect(receiptReads(again)).toBe(1);
    expect((await receipt("preview", scope)).runs.map((r) => r.id)).toContain(again.run.id);
  });

  it("a writing run on a warm scope reads its receipt once too", async () => {
    const { domain, scope } = await warmScope();
    const grown = auth0Plan(domain, [
      { id: "callback", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
      { id: "logout", op: "auth0.logoutUrl", url: "https://{scope}.preview.example.com/" },
      { id: "origin", op: "auth0.webOrigin", url: "https://{scope}.preview.example.com" },
      { id: "extra", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/extra" },
    ]);
    const result = await apply(testApp(), "preview", scope, grown);
    expect(result.lines.find((l) => l.id === "extra")?.result).toBe("created");
    expect(receiptReads(result)).toBe(1);
  });

  it("a holder that saved and then died without releasing: the next run reads again and keeps its save", async () => {
    const { domain, scope, key } = await warmScope();
    const crashed = granted(await lockTarget(env, key).acquire({ holder: "run-crashed", ttlMs: TTL_MS }));
    expect(crashed.receiptEtag).toBeDefined();
    // The next run reads the receipt before the lease, then waits for it.
    const next = apply(testApp(), "preview", scope, previewPlan(domain), waitLong);
    await untilWaiters(key, 1);
    const saved = await resave(scope);
    await expireLeaseNow(key);
    expect(await runDurableObjectAlarm(rawStub(key))).toBe(true);

    const result = await next;
    expect(result.run.status).toBe("succeeded");
    expect(receiptReads(result)).toBe(2);
    expect((await receipt("preview", scope)).revision).toBe(saved + 1);
  });

  it("a force-released holder that saved: the next run reads again", async () => {
    const { domain, scope, key } = await warmScope();
    granted(await lockTarget(env, key).acquire({ holder: "run-stuck", ttlMs: TTL_MS }));
    const next = apply(testApp(), "preview", scope, previewPlan(domain), waitLong);
    await untilWaiters(key, 1);
    const saved = await resave(scope);
    granted(await stub(key).forceRelease({ key, reason: "stuck", actor: "admin" }));

    const result = await next;
    expect(result.run.status).toBe("succeeded");
    expect(receiptReads(result)).toBe(2);
    expect((await receipt("preview", scope)).revision).toBe(saved + 1);
  });

  it("another run of the scope saves between this run's read and its grant: this run reads again", async () => {
    const { domain, scope, key } = await warmScope();
    const grown = auth0Plan(domain, [
      { id: "callback", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
      { id: "logout", op: "auth0.logoutUrl", url: "https://{scope}.preview.example.com/" },
      { id: "origin", op: "auth0.webOrigin", url: "https://{scope}.preview.example.com" },
      { id: "extra", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/extra" },
    ]);
    let reached!: () => void;
    const atIntent = new Promise<void>((resolve) => {
      reached = resolve;
    });
    // The other run holds the scope lease, its intent saved, until this run waits for the lease.
    const holding = testApp({
      engine: {
        faults: async (point) => {
          if (point !== "after-intent") return;
          reached();
          await untilWaiters(key, 1);
        },
      },
    });
    const other = apply(holding, "preview", scope, grown);
    await atIntent;
    const next = apply(testApp(), "preview", scope, grown, waitLong);
    const [first, second] = await Promise.all([other, next]);

    expect(first.lines.find((l) => l.id === "extra")?.result).toBe("created");
    expect(second.run.status).toBe("succeeded");
    expect(second.lines.map((l) => l.result)).toEqual(["unchanged", "unchanged", "unchanged", "unchanged"]);
    expect(receiptReads(second)).toBe(2);
    const runs = (await receipt("preview", scope)).runs.map((r) => r.id);
    expect(runs.slice(-2)).toEqual([first.run.id, second.run.id]);
  });
});
