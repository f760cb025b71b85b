/**
 * A scope the service already knows closed is never adopted into (docs/design.md, "Adopting existing
 * entries"): its close was handled (or is queued), so no later destroy would ever remove an entry
 * adopted into it — a closed scope is never resurrected, as a late apply's is not ("Staleness
 * recheck"). GitHub's answer alone (open, or no token at all) does not decide it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeStateClient } from "../../../workers/scope-state/scope-state-client";
import { adopt, adoptionBody, callbacks, dayOne, ownership, prUrl } from "../../helpers/adoption";
import { testApp } from "../../helpers/app";
import { freshAuth0Domain } from "../../helpers/emulators";
import { receipt } from "../../helpers/engine";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";

const app = testApp();

async function closeScope(scope: string) {
  await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent({
    status: "closed",
    revision: Date.now(),
    deliveryId: crypto.randomUUID(),
  });
}

describe("adoption into a scope the service knows closed", () => {
  it("keeps the entry foreign and writes no receipt for the closed scope; the open one is adopted (control)", async () => {
    const day = await dayOne(freshAuth0Domain("closedscope"), { open: 2, closed: 0 });
    const [closed, open] = day.open as [number, number];
    // GitHub still says open (a close webhook the service received first, or a reopen it has not).
    await closeScope(`pr-${closed}`);

    const result = await adopt(app, adoptionBody(day, { apply: true }));
    expect(result.entries.find((e) => e.key === prUrl(closed))).toMatchObject({
      scope: `pr-${closed}`,
      outcome: "kept",
      reason: "scope-closed",
    });
    expect(result.entries.find((e) => e.key === prUrl(open))).toMatchObject({ outcome: "adopted" });

    expect((await receipt("preview", `pr-${closed}`)).ledger).toEqual([]);
    expect((await ownership(day.domain, prUrl(closed)))?.owners ?? []).toEqual([]);
    expect((await receipt("preview", `pr-${open}`)).ledger).toEqual([
      expect.objectContaining({ key: prUrl(open) }),
    ]);
    expect(await callbacks(day.domain)).toEqual(day.entries);
  });
});
