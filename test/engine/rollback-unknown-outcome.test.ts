/**
 * docs/design.md, "Run algorithm", step 8: a failed run removes what it created. A rollback whose
 * removal has an unknown outcome (every attempt of its write answered as lost: the provider applied
 * it, the run never heard) may have taken the entry away already, or may still do so. The line of
 * that entry then says what is so — failed, the rollback's outcome unknown — never `created`, which
 * the entry may no longer be; the remove intent stays for the scope's recovery.
 *
 * Two tenants, one line on each: the first is created, the second's write is refused (a 4xx), so
 * the run fails and rolls the first back; the rollback's PATCH reaches the emulator and is applied,
 * and its answer is lost, every attempt (retry backoffs return at once).
 */
import { describe, expect, it } from "vitest";
import { type Clock, systemClock } from "../../shared/clock";
import type { Plan } from "../../shared/schemas/plan";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { durableIntents, freshPr } from "../helpers/engine";
import { APP_CLIENT, auth0Plan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const instantBackoff: Clock = { ...systemClock, sleep: async () => {} };

/**
 * `first`'s second PATCH on (the rollback's removal) is applied and its answer lost, every time;
 * `second`'s PATCH is refused 400.
 */
function rollbackAnswerLost(first: string, second: string): (inner: typeof fetch) => typeof fetch {
  let firstPatches = 0;
  return (inner) => async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? "GET").toUpperCase();
    if (method === "PATCH" && url.host === second)
      return new Response(JSON.stringify({ statusCode: 400, error: "Bad Request", message: "refused" }), {
        status: 400,
        headers: { "content-type": "application/json" },
      });
    if (method === "PATCH" && url.host === first && ++firstPatches > 1) {
      await inner(input, init);
      throw new TypeError("network connection lost");
    }
    return inner(input, init);
  };
}

describe("a rollback whose removal has an unknown outcome", () => {
  it("fails the line it rolls back, saying the removal may have landed; the remove intent stays", async () => {
    const [first, second] = [freshAuth0Domain("rb-first"), freshAuth0Domain("rb-second")];
    await seedTenant(first);
    await seedTenant(second);
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    const plan: Plan = {
      version: 2,
      lines: [
        ...auth0Plan(first, [{ id: "a", op: "auth0.callbackUrl", url }]).lines,
        ...auth0Plan(second, [{ id: "b", op: "auth0.callbackUrl", url }]).lines,
      ],
    };

    const result = await testEngine({
      clock: instantBackoff,
      combining: false,
      wrapFetch: rollbackAnswerLost(first, second),
    }).apply({ repository: DEFAULT_REPOSITORY, environment: "preview", scope, plan });

    expect(result.run.status).toBe("failed");
    // The rollback's removal landed although the run never heard: the entry is gone.
    expect((await auth0Client(first, APP_CLIENT))?.callbacks).toEqual([]);
    const a = result.lines.find((l) => l.id === "a");
    expect(a?.result, JSON.stringify(a)).toBe("failed");
    expect(a?.error).toMatchObject({ code: "LOCK_LOST", detail: { outcome: "unknown" } });
    expect(a?.error?.message).toMatch(/rollback/);
    expect(a?.error?.message).toContain("may have landed");
    expect(result.lines.find((l) => l.id === "b")?.result).toBe("failed");
    // Its outcome unknown, the removal's intent stays for the scope's recovery.
    expect(
      (await durableIntents("preview", scope)).filter((i) => i.key === url).map((i) => i.action),
    ).toContain("remove");
  });
});
