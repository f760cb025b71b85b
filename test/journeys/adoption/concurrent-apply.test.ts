/**
 * Adoption decides under the object's parent lease, like every write (docs/design.md, "Adopting
 * existing entries"): runs that write the same object meanwhile wait for that lease, and what they
 * did before it is what the adoption reads. Deterministic: a fault hook holds the adoption at a
 * chosen step while the other runs are started, and the lock object's queue says when they wait.
 */
import { describe, expect, it } from "vitest";
import type { FaultHook } from "../../../workers/engine/deps";
import { adopt, adoptionBody, callbacks, dayOne, ownership, PR_PATTERN, prUrl } from "../../helpers/adoption";
import { apply, destroy, testApp } from "../../helpers/app";
import { freshAuth0Domain } from "../../helpers/emulators";
import { appLockKey, freshPr, receipt } from "../../helpers/engine";
import { auth0Plan } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";

const plan = (domain: string, url = PR_PATTERN) =>
  auth0Plan(domain, [{ id: "callback", op: "auth0.callbackUrl", url }]);
const owner = (scope: string) => `${DEFAULT_REPOSITORY.id}/preview/${scope}`;

/** A fault hook that holds the adoption at `point` for `key` until `release()`; `reached` says it got there. */
function holdAt(point: "after-intent" | "after-owners", key: string) {
  let reached!: () => void;
  let release!: () => void;
  const at = new Promise<void>((r) => {
    reached = r;
  });
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const faults: FaultHook = async (p, detail) => {
    if (p === point && detail.action === "adopt" && detail.key === key) {
      reached();
      await gate;
    }
  };
  return { faults, reached: at, release };
}

async function untilWaiting(domain: string, count: number) {
  const { untilWaiters } = await import("../../helpers/engine");
  await untilWaiters(await appLockKey(domain), count);
}

describe("an apply on the same object while the adoption holds its lease", () => {
  it("waits, and loses nothing: its new entry and its joined entry survive, each owned by its scope", async () => {
    const day = await dayOne(freshAuth0Domain("concurrent"), { open: 3, closed: 0 });
    const [first, second, third] = day.open as [number, number, number];
    const hold = holdAt("after-owners", prUrl(first));
    const adoption = adopt(
      testApp({ engine: { faults: hold.faults } }),
      adoptionBody(day, { apply: true, patterns: [PR_PATTERN] }),
    );
    await hold.reached;

    // While the adoption holds the object's lease: a new pull request creates its URL, and the
    // second pull request's own run finds its URL (foreign until adopted) and joins it.
    const others = testApp();
    const newcomer = freshPr();
    const created = apply(others, "preview", newcomer, plan(day.domain), { wait: true });
    const joined = apply(others, "preview", `pr-${second}`, plan(day.domain), { wait: true });
    await untilWaiting(day.domain, 2);
    hold.release();

    const [result, c, j] = await Promise.all([adoption, created, joined]);
    expect(c.lines[0]).toMatchObject({ result: "created" });
    expect(j.lines[0]).toMatchObject({ result: "foreign" });
    expect(result.counts).toMatchObject({ adopted: 3, failed: 0 });

    const newUrl = `https://${newcomer}.preview.example.com`;
    expect((await callbacks(day.domain)).sort()).toEqual([...day.entries, newUrl].sort());
    expect(await ownership(day.domain, newUrl)).toMatchObject({ owners: [owner(newcomer)], foreign: false });
    // The second pull request had joined its entry as foreign; adoption made it its own after all.
    expect(await ownership(day.domain, prUrl(second))).toMatchObject({
      owners: [owner(`pr-${second}`)],
      foreign: false,
    });

    // Each close removes exactly its own entry.
    for (const scope of [newcomer, `pr-${first}`, `pr-${second}`, `pr-${third}`])
      expect((await destroy(others, "preview", scope)).lines[0]?.result).toBe("removed");
    expect((await callbacks(day.domain)).sort()).toEqual(
      [day.ambiguous, "http://localhost:3000/callback"].sort(),
    );
  });

  it("the decision is made under the lease, not from the earlier read: an entry another scope joined meanwhile is not taken", async () => {
    const day = await dayOne(freshAuth0Domain("decide"), { open: 2, closed: 0 });
    const [first, second] = day.open as [number, number];
    // Read without the lease (the dry run): the first pull request's entry would be adopted.
    const dry = await adopt(testApp(), adoptionBody(day, { patterns: [PR_PATTERN] }));
    expect(dry.entries.find((e) => e.key === prUrl(first))?.outcome).toBe("would-adopt");

    // Held after its receipt's intent, before it takes the object's lease: meanwhile another scope
    // (the release branch, whose plan names that URL outright) joins the entry, foreign as it is.
    const hold = holdAt("after-intent", prUrl(first));
    const adoption = adopt(
      testApp({ engine: { faults: hold.faults } }),
      adoptionBody(day, { apply: true, patterns: [PR_PATTERN] }),
    );
    await hold.reached;
    const release = `branch-release-${crypto.randomUUID().slice(0, 8)}`;
    const joined = await apply(testApp(), "preview", release, plan(day.domain, prUrl(first)));
    expect(joined.lines[0]).toMatchObject({ result: "foreign" });
    hold.release();

    const result = await adoption;
    expect(result.entries.find((e) => e.key === prUrl(first))).toMatchObject({
      outcome: "kept",
      reason: "owned-by-another-scope",
    });
    expect(result.entries.find((e) => e.key === prUrl(second))?.outcome).toBe("adopted");
    // What the read before the lease said would have taken it from the release branch's keeping:
    // foreign, so never removed. Under the lease it stays so, and the adopting scope holds nothing.
    expect(await ownership(day.domain, prUrl(first))).toMatchObject({
      owners: [owner(release)],
      foreign: true,
    });
    const stored = await receipt("preview", `pr-${first}`);
    expect(stored.ledger).toEqual([]);
    expect(stored.intents).toEqual([]);
    expect((await destroy(testApp(), "preview", release)).lines[0]?.result).toBe("released");
    expect(await callbacks(day.domain)).toContain(prUrl(first));
  });
});
