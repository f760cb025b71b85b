/**
 * An adoption is one run (docs/design.md, "Adopting existing entries"): every lease it takes names
 * the same holder. When one closed pull request's removal ends with an unknown outcome — the check
 * after the write refused, so the object's parent lease is abandoned and must end by expiry and
 * the lock-delay after it ("Fencing around a write") — the adoption does not take that object
 * again: the next closed pull request's scope would otherwise be handed the abandoned lease (the
 * same holder asking is a re-acquire), release it plainly and write while the first removal may
 * still land.
 */
import { describe, expect, it } from "vitest";
import type { LockTarget } from "../../../workers/locks/lock-target";
import { adoptionBody, callbacks, dayOne, ownership, PR_PATTERN, prUrl } from "../../helpers/adoption";
import { freshAuth0Domain } from "../../helpers/emulators";
import { appLockKey, receipt } from "../../helpers/engine";
import { overriding } from "../../helpers/lock-overrides";
import { stub } from "../../helpers/locks";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

describe("adoption with removeClosed, one removal's outcome unknown", () => {
  it("the next closed pull request's scope does not take the object again: the abandoned lease ends by expiry, its entry stays", async () => {
    const day = await dayOne(freshAuth0Domain("adopt-unknown"), { open: 0, closed: 2 });
    const [first, second] = [...day.closed].sort((a, b) => a - b) as [number, number];
    // Built first: it registers the tenant's connection, which the engine's configuration reads.
    const body = {
      ...adoptionBody(day, { patterns: [PR_PATTERN] }),
      apply: true,
      removeClosed: true,
      repository: DEFAULT_REPOSITORY,
      actor: "admin:test",
    };
    // Armed right before the first scope's removal is sent: its scope lease is then refused at the
    // check after the write (an admin's force-release, say), so the write's outcome is unknown.
    let lostScope: string | null = null;
    const grants: number[] = [];
    const engine = testEngine({
      combining: false,
      faults: (at, detail) => {
        if (at === "after-owners" && detail.action === "remove" && detail.key === prUrl(first))
          lostScope = `pr-${first}`;
      },
      wrapLocks: (inner) => ({
        ...inner,
        scope: (repo, env, scope) => {
          const t = inner.scope(repo, env, scope);
          return overriding(t, {
            renew: async (req) =>
              lostScope === scope
                ? { ok: false, error: { code: "LOCK_LOST", message: "force-released by admin: test" } }
                : t.renew(req),
          } satisfies Partial<LockTarget>);
        },
        parent: async (identity) => {
          const t = await inner.parent(identity);
          return overriding(t, {
            acquire: async (req) => {
              const r = await t.acquire(req);
              if (r.ok) grants.push(r.value.token);
              return r;
            },
          } satisfies Partial<LockTarget>);
        },
      }),
    });

    const result = await engine.adopt(body as never);

    const entry = (n: number) => result.entries.find((e) => e.key === prUrl(n));
    expect(entry(first)).toMatchObject({ outcome: "failed", error: { code: "LOCK_LOST" } });
    expect(entry(first)?.error?.message).toContain("outcome unknown");
    // Refused before anything was touched: its entry stays as it was, foreign, in no receipt.
    expect(entry(second)).toMatchObject({ outcome: "failed", error: { code: "LOCK_LOST" } });
    expect(entry(second)?.error?.message).toContain("unknown outcome");
    expect(await callbacks(day.domain)).toContain(prUrl(second));
    expect((await ownership(day.domain, prUrl(second)))?.owners ?? []).toEqual([]);
    expect(await receipt("preview", `pr-${second}`)).toMatchObject({ ledger: [], intents: [] });

    // No grant twice: the abandoned lease was never re-acquired, and it is still the object's lease,
    // ending by its expiry and the lock-delay after it.
    expect(new Set(grants).size).toBe(grants.length);
    const key = await appLockKey(day.domain);
    const state = await stub(key).read({ key });
    expect(state).toMatchObject({ held: true, holder: result.runId, token: grants.at(-1) });
    expect(state.history.some((h) => h.note === "re-acquire")).toBe(false);
  });
});
