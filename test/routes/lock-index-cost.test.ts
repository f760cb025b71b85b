/**
 * What listing every lease costs (docs/performance.md, "Cost per million runs"): the R2 puts of the
 * held-lock index a real apply causes: a run on idle locks puts at most one entry per lock it took
 * (`counts.locks`), and the next run on the same locks does not write the entries again.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { HELD_INDEX_PREFIX } from "../../shared/lock-index";
import { apply, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { stub } from "../helpers/locks";
import { previewPlan, seedTenant } from "../helpers/plans";

const app = testApp();

/** Every index entry and its R2 version (a put makes a new version). */
async function entries(): Promise<Map<string, string>> {
  const page = await env.RECEIPTS.list({ prefix: HELD_INDEX_PREFIX, limit: 1000 });
  return new Map(page.objects.map((o) => [o.key, o.version]));
}

/** The keys whose entry is new or rewritten since `before`, once `count` of them landed (bounded poll). */
async function putsSince(before: Map<string, string>, count: number, ms = 3_000): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const changed = [...(await entries()).entries()].filter(([k, v]) => before.get(k) !== v).map(([k]) => k);
    if (changed.length >= count || Date.now() >= deadline) return changed;
    await scheduler.wait(5);
  }
}

/**
 * Waits for every index write already queued on each lock: a test holder takes the (free) lock and
 * reads it, which awaits the object's chain of index writes and puts nothing for a listed lock.
 */
async function drained(entryKeys: string[]): Promise<void> {
  for (const entry of entryKeys) {
    const key = decodeURIComponent(entry.slice(HELD_INDEX_PREFIX.length));
    const grant = await stub(key).acquire({
      key,
      holder: "cost-probe",
      ttlMs: 60_000,
      wait: true,
      waitTimeoutMs: 30_000,
    });
    if (!grant.ok) throw new Error(grant.error.message);
    await stub(key).read({ key });
    await stub(key).release({ key, holder: "cost-probe", token: grant.value.token });
  }
}

describe("the held-lock index's price per run", () => {
  it("at most one put per lock a run takes, none for a lock whose entry still stands", async ({ expect }) => {
    const domain = freshAuth0Domain("cost");
    await seedTenant(domain);
    const scope = freshPr();
    const before = await entries();
    const first = await apply(app, "preview", scope, previewPlan(domain));
    const locks = first.counts?.locks ?? 0;
    expect(locks).toBeGreaterThan(0);
    // At most one per lock: a lease already released when its object's index write runs needs none.
    const putsFirst = await putsSince(before, locks);
    expect(putsFirst.length).toBeGreaterThan(0);
    expect(putsFirst.length).toBeLessThanOrEqual(locks);

    const afterFirst = await entries();
    const second = await apply(app, "preview", scope, previewPlan(domain));
    await drained(putsFirst);
    const now = await entries();
    // An entry the first run wrote is not written again by the second.
    expect(putsFirst.filter((k) => now.get(k) !== afterFirst.get(k))).toEqual([]);
    console.log(
      `index puts: first run ${putsFirst.length} of ${locks} locks; second run took ${second.counts?.locks} lock(s)`,
    );
  });
});
