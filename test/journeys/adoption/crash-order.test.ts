/**
 * The adoption's order (docs/design.md, "Adopting existing entries"): the receipt first (an intent
 * with the ledger entry), then the ownership at the object's lock, then the receipt again (the
 * intent dropped). A crash between any two steps leaves what the scope's next run recovers: before
 * the ownership change the entry stays foreign (nothing lost, nothing taken); after it the entry is
 * the scope's, and its close removes it.
 */
import { describe, expect, it } from "vitest";
import type { FaultPoint } from "../../../workers/engine/deps";
import { SimulatedCrash } from "../../../workers/engine/simulated-crash";
import { adoptionBody, callbacks, dayOne, ownership, PR_PATTERN, prUrl } from "../../helpers/adoption";
import { apply, destroy, testApp } from "../../helpers/app";
import { freshAuth0Domain } from "../../helpers/emulators";
import { freshPr, providerWrites, receipt } from "../../helpers/engine";
import { auth0Plan } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const app = testApp();

function crashAt(point: FaultPoint, key: string) {
  return testEngine({
    faults: (at, detail) => {
      if (at === point && detail.action === "adopt" && detail.key === key) throw new SimulatedCrash(at);
    },
  });
}

/** Some pull request's first run: the service's first look at the list marks every entry foreign. */
async function firstLook(domain: string) {
  const scope = freshPr();
  const plan = auth0Plan(domain, [
    { id: "cb", op: "auth0.callbackUrl", url: "https://{scope}.new.example.com" },
  ]);
  expect((await apply(app, "preview", scope, plan)).lines[0]?.result).toBe("created");
}

const request = (day: Awaited<ReturnType<typeof dayOne>>) => ({
  ...adoptionBody(day, { patterns: [PR_PATTERN] }),
  apply: true,
  removeClosed: false,
  repository: DEFAULT_REPOSITORY,
  actor: "admin:test",
});

describe("a crash during adoption", () => {
  it("after the ownership change: the pull request's next apply keeps the entry, never takes it off and back", async () => {
    const day = await dayOne(freshAuth0Domain("crash0"), { open: 1, closed: 0 });
    await firstLook(day.domain);
    const [n] = day.open as [number];
    await expect(crashAt("after-owners", prUrl(n)).adopt(request(day))).rejects.toBeInstanceOf(
      SimulatedCrash,
    );
    const writes = await providerWrites(day.domain);

    // Recovery keeps an adoption's entry (it was there before): no removal, no re-creation.
    const plan = auth0Plan(day.domain, [{ id: "callback", op: "auth0.callbackUrl", url: PR_PATTERN }]);
    const applied = await apply(app, "preview", `pr-${n}`, plan);
    expect(applied.warnings.join(" ")).toContain("recovered 1 intent");
    expect(applied.lines[0]).toMatchObject({ key: prUrl(n), result: "unchanged" });
    expect(await providerWrites(day.domain)).toBe(writes);
    expect((await receipt("preview", `pr-${n}`)).ledger).toEqual([
      expect.objectContaining({ key: prUrl(n), line: "callback" }),
    ]);
    expect((await destroy(app, "preview", `pr-${n}`)).lines[0]?.result).toBe("removed");
  });

  it("after the receipt's intent, before the ownership change: the entry stays foreign; its destroy leaves it", async () => {
    const day = await dayOne(freshAuth0Domain("crash1"), { open: 2, closed: 0 });
    await firstLook(day.domain);
    const [n] = day.open as [number];
    await expect(crashAt("after-intent", prUrl(n)).adopt(request(day))).rejects.toBeInstanceOf(
      SimulatedCrash,
    );
    const stored = await receipt("preview", `pr-${n}`);
    // Only the intent: the ledger entry waits for the ownership change, as a create's does.
    expect(stored.intents).toEqual([
      expect.objectContaining({ action: "create", key: prUrl(n), adopts: true }),
    ]);
    expect(stored.ledger).toEqual([]);
    expect(await ownership(day.domain, prUrl(n))).toMatchObject({ owners: [], foreign: true });

    // The scope's next run recovers: the scope joins the foreign entry, which it never removes.
    const destroyed = await destroy(app, "preview", `pr-${n}`);
    expect(destroyed.warnings.join(" ")).toContain("recovered 1 intent");
    expect(destroyed.lines[0]?.result).toBe("released");
    expect(await callbacks(day.domain)).toContain(prUrl(n));

    // Adopted again, to the end this time: now the close removes it.
    const again = await testEngine().adopt(request(day));
    expect(again.entries.find((e) => e.key === prUrl(n))?.outcome).toBe("adopted");
    expect((await destroy(app, "preview", `pr-${n}`)).lines[0]?.result).toBe("removed");
    expect(await callbacks(day.domain)).not.toContain(prUrl(n));
  });

  it("after the receipt's intent: the next adoption recovers it first, and its answer says so", async () => {
    const day = await dayOne(freshAuth0Domain("crash3"), { open: 1, closed: 0 });
    await firstLook(day.domain);
    const [n] = day.open as [number];
    await expect(crashAt("after-intent", prUrl(n)).adopt(request(day))).rejects.toBeInstanceOf(
      SimulatedCrash,
    );

    const again = await testEngine().adopt(request(day));
    expect(again.entries.find((e) => e.key === prUrl(n))?.outcome).toBe("adopted");
    // The scope's run warned of its recovery; the adoption's answer carries it, naming the scope.
    expect(again.warnings).toContainEqual(expect.stringMatching(new RegExp(`^pr-${n}: recovered 1 intent`)));
  });

  it("after the ownership change, before the receipt's last save: recovery keeps it the scope's, its destroy removes it", async () => {
    const day = await dayOne(freshAuth0Domain("crash2"), { open: 2, closed: 0 });
    await firstLook(day.domain);
    const [n, other] = day.open as [number, number];
    await expect(crashAt("after-owners", prUrl(n)).adopt(request(day))).rejects.toBeInstanceOf(
      SimulatedCrash,
    );
    expect((await receipt("preview", `pr-${n}`)).intents).toHaveLength(1);
    expect(await ownership(day.domain, prUrl(n))).toMatchObject({
      owners: [`${DEFAULT_REPOSITORY.id}/preview/pr-${n}`],
      foreign: false,
    });

    const destroyed = await destroy(app, "preview", `pr-${n}`);
    expect(destroyed.lines[0]?.result).toBe("removed");
    expect(await callbacks(day.domain)).not.toContain(prUrl(n));
    // Only that one: the other pull request's entry was never reached, and stays foreign.
    expect(await callbacks(day.domain)).toContain(prUrl(other));
    expect(await ownership(day.domain, prUrl(other))).toMatchObject({ owners: [], foreign: true });
  });
});
