/**
 * Day one (docs/design.md, "Adopting existing entries"): an Auth0 application's callbacks already
 * hold 30 entries when the service starts — preview URLs of 14 open and 14 closed pull requests,
 * one that two patterns claim, one added by hand. The first look marks all of them foreign, so a
 * pull request's close removes nothing; `POST /v1/adopt` makes each pull request's entry its
 * scope's own, so its close removes exactly that entry; `removeClosed` removes the closed ones'.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AdoptionEntry } from "../../../shared/schemas/adoption";
import {
  adopt,
  adoptionBody,
  BY_HAND,
  callbacks,
  dayOne,
  ownership,
  PR_PATTERN,
  prUrl,
} from "../../helpers/adoption";
import { apply, destroy, testApp } from "../../helpers/app";
import { freshAuth0Domain } from "../../helpers/emulators";
import { providerWrites, receipt } from "../../helpers/engine";
import { auth0Plan } from "../../helpers/plans";

const app = testApp();
const scopeOf = (n: number) => `pr-${n}`;
const byKey = (entries: AdoptionEntry[], key: string) => entries.find((e) => e.key === key);
const previewPlan = (domain: string) =>
  auth0Plan(domain, [{ id: "callback", op: "auth0.callbackUrl", url: PR_PATTERN }]);

/** Every receipt object under receipts/, with its etag: what "no receipt change" compares. */
async function receiptObjects(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  let cursor: string | undefined;
  do {
    const page = await env.RECEIPTS.list({ prefix: "receipts/", ...(cursor ? { cursor } : {}) });
    for (const o of page.objects) out[o.key] = o.etag;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return out;
}

describe("day one: 30 entries already on an Auth0 application", () => {
  it("before adoption a destroy leaves the open pull request's entry (foreign); after it the close removes exactly that entry", async () => {
    const day = await dayOne(freshAuth0Domain("dayone"));
    const [first, second] = day.open as [number, number];

    // The pull request's own run finds its URL there and joins it as foreign: never its to remove.
    const applied = await apply(app, "preview", scopeOf(first), previewPlan(day.domain));
    expect(applied.lines[0]).toMatchObject({ key: prUrl(first), result: "foreign" });
    expect((await destroy(app, "preview", scopeOf(first))).lines[0]?.result).toBe("released");
    expect(await callbacks(day.domain)).toEqual(day.entries);

    const result = await adopt(app, adoptionBody(day, { apply: true }));
    expect(result.dryRun).toBe(false);
    expect(result.counts).toMatchObject({ adopted: 14, kept: 16, failed: 0 });
    for (const n of day.open)
      expect(byKey(result.entries, prUrl(n))).toMatchObject({
        scope: scopeOf(n),
        pullRequest: { number: n, state: "open" },
        outcome: "adopted",
      });
    for (const n of day.closed)
      expect(byKey(result.entries, prUrl(n))).toMatchObject({
        scope: scopeOf(n),
        pullRequest: { number: n, state: "closed" },
        outcome: "kept",
        reason: "pull-request-closed",
      });
    expect(byKey(result.entries, day.ambiguous)).toMatchObject({
      scope: null,
      outcome: "kept",
      reason: "ambiguous",
      foreign: true,
    });
    expect(byKey(result.entries, day.ambiguous)?.patterns).toHaveLength(2);
    expect(byKey(result.entries, BY_HAND)).toMatchObject({
      scope: null,
      outcome: "kept",
      reason: "no-match",
    });
    expect(await callbacks(day.domain)).toEqual(day.entries);

    // Each adopted entry is in its scope's ledger, and the lock names the scope its only owner.
    const ledger = (await receipt("preview", scopeOf(second))).ledger;
    expect(ledger).toEqual([
      expect.objectContaining({ key: prUrl(second), op: "auth0.callbackUrl", runId: result.runId }),
    ]);
    expect(await ownership(day.domain, prUrl(second))).toMatchObject({
      owners: [expect.stringMatching(new RegExp(`/preview/${scopeOf(second)}$`))],
      foreign: false,
    });

    // The pull request's close: its destroy removes exactly its entry.
    expect((await destroy(app, "preview", scopeOf(first))).lines[0]?.result).toBe("removed");
    expect(await callbacks(day.domain)).toEqual(day.entries.filter((e) => e !== prUrl(first)));
    expect((await destroy(app, "preview", scopeOf(second))).lines[0]?.result).toBe("removed");
    expect(await callbacks(day.domain)).toEqual(
      day.entries.filter((e) => e !== prUrl(first) && e !== prUrl(second)),
    );

    // What no pattern (or two) gave a scope stays foreign: no scope owns it, none will remove it.
    for (const key of [day.ambiguous, BY_HAND])
      expect(await ownership(day.domain, key)).toMatchObject({ owners: [], foreign: true });
  });

  it("a dry run shows the table and writes nothing: no provider write, no receipt, no ownership change", async () => {
    const day = await dayOne(freshAuth0Domain("dryrun"));
    const writes = await providerWrites(day.domain);
    const receipts = await receiptObjects();

    const result = await adopt(app, adoptionBody(day, { removeClosed: true }));
    expect(result.dryRun).toBe(true);
    expect(result.entries.map((e) => e.key).sort()).toEqual([...day.entries].sort());
    expect(result.counts).toMatchObject({ "would-adopt": 14, "would-remove": 14, kept: 2 });
    expect(byKey(result.entries, prUrl(day.open[0] as number))).toMatchObject({
      outcome: "would-adopt",
      scope: scopeOf(day.open[0] as number),
    });
    expect(byKey(result.entries, prUrl(day.closed[0] as number))).toMatchObject({
      outcome: "would-remove",
      pullRequest: { state: "closed" },
    });

    expect(await providerWrites(day.domain)).toBe(writes);
    expect(await receiptObjects()).toEqual(receipts);
    // Never looked at under a lease: the lock knows nothing of these entries yet.
    expect(await ownership(day.domain, prUrl(day.open[0] as number))).toBeUndefined();
    expect(await callbacks(day.domain)).toEqual(day.entries);
  });

  it("removeClosed removes the closed pull requests' entries through their scopes' removal; open ones stay adopted", async () => {
    const day = await dayOne(freshAuth0Domain("closed"));
    const result = await adopt(app, adoptionBody(day, { apply: true, removeClosed: true }));
    expect(result.counts).toMatchObject({ adopted: 14, removed: 14, kept: 2, failed: 0 });
    for (const n of day.closed) {
      expect(byKey(result.entries, prUrl(n))).toMatchObject({ outcome: "removed", scope: scopeOf(n) });
      // The removal went the scope's way: adopted, then taken off by its last owner; nothing left.
      expect((await receipt("preview", scopeOf(n))).ledger).toEqual([]);
      expect(await ownership(day.domain, prUrl(n))).toBeUndefined();
    }
    const closedUrls = new Set(day.closed.map(prUrl));
    expect(await callbacks(day.domain)).toEqual(day.entries.filter((e) => !closedUrls.has(e)));

    // Asked again: nothing left to do, every open pull request's entry is already its scope's.
    const again = await adopt(app, adoptionBody(day, { apply: true, removeClosed: true }));
    expect(again.counts).toMatchObject({ adopted: 0, removed: 0, kept: 16 });
    expect(byKey(again.entries, prUrl(day.open[3] as number))).toMatchObject({
      outcome: "kept",
      reason: "already-owned",
    });
  });
});
