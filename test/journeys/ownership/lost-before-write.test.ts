/**
 * The claims of a write the checks right before it stopped (docs/design.md, "Fencing around a
 * write"; "A send of several requests refused half-way"; "A refused write's claims when the
 * withdraw fails"). A group claims its items, then checks its leases right before the write; a
 * lease found lost there stops the group before anything is sent. Nothing of this run's is on
 * those entries, so the claims go like those of any write not made: withdrawn under the parent
 * lease while it is held (the scope lease lost alone), the run's own and a combining holder's
 * waiters' alike; where the parent lease is lost too, no withdraw can be made under it, and the
 * run's own creates are marked `refused` on their intents, so no later recovery removes an entry
 * someone else adds.
 *
 * In each case someone adds the run's URLs by hand right after the claims. Time passes on the
 * run's own clock only (a ManualClock): the lock objects' leases stay live until a test ends them.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../../shared/lock-keys";
import type { RunResult } from "../../../shared/schemas/run";
import type { LockProvider } from "../../../workers/engine/deps";
import { ManualClock } from "../../helpers/clock";
import { seedKinde } from "../../helpers/emulators-kinde";
import { freshPr, receipt } from "../../helpers/engine";
import { at, KINDE_APP, kindeWorld } from "../../helpers/kinde-refusals";
import { overriding } from "../../helpers/lock-overrides";
import { endLockDelay, expireLeaseNow, rawStub } from "../../helpers/locks";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";

const TTL_MS = 30_000;
const SECOND = 1_000;

/**
 * `onClaims` right after the run's claims of `keys` are answered; `onScopeCheck` after each renewal
 * of its scope lease made once it holds the parent lease and before those claims.
 */
function aroundClaims(
  keys: readonly string[],
  hooks: { onClaims: () => Promise<void>; onScopeCheck?: () => void },
) {
  let parentHeld = false;
  let claimed = false;
  return (inner: LockProvider): LockProvider => ({
    ...inner,
    scope: (repositoryId, environment, scope) => {
      const target = inner.scope(repositoryId, environment, scope);
      return overriding(target, {
        renew: async (req) => {
          const answer = await target.renew(req);
          if (parentHeld && !claimed) hooks.onScopeCheck?.();
          return answer;
        },
      });
    },
    parent: async (identity) => {
      const target = await inner.parent(identity);
      return overriding(target, {
        acquire: async (req) => {
          const answer = await target.acquire(req);
          parentHeld = true;
          return answer;
        },
        acquireOrCombine: async (req) => {
          const answer = await target.acquireOrCombine(req);
          parentHeld = true;
          return answer;
        },
        // A grant handed over after a wait is claimed.
        claim: async (req) => {
          const answer = await target.claim(req);
          parentHeld = true;
          return answer;
        },
        changeOwners: async (req) => {
          const answer = await target.changeOwners(req);
          if (!claimed && req.changes.some((c) => c.action === "add" && keys.includes(c.key))) {
            claimed = true;
            await hooks.onClaims();
          }
          return answer;
        },
      });
    },
  });
}

describe("a lease found lost right before the write", () => {
  it("both leases past their deadline: no withdraw can be made, so the run's intent is marked refused, and the recovery leaves the URL someone added", async () => {
    const k = await kindeWorld();
    const scope = freshPr();
    const X = "my-app://own-x";
    const clock = new ManualClock();
    const wrapLocks = aroundClaims([X], {
      onClaims: async () => {
        await seedKinde(k.domain, { apps: { [KINDE_APP]: { redirect_urls: [...(await k.urls()), X] } } });
        clock.advance(10 * 60 * SECOND);
      },
    });
    const result = await k
      .engine({ combining: false, clock, wrapLocks })
      .apply({ ...at(scope), plan: k.plan(X) });
    expect(result.run.status).toBe("failed");
    expect(result.lines[0]?.error?.code).toBe("LOCK_LOST");
    expect(result.lines[0]?.error?.message).not.toContain("may have landed");
    // The claim could not be taken back under a lease past its deadline: the intent says so.
    expect(await k.owners(X)).toHaveLength(1);
    expect((await receipt("preview", scope)).intents).toMatchObject([
      { key: X, action: "create", refused: true },
    ]);

    // Once both leases have ended, the scope's next run recovers: it only leaves X.
    await expireLeaseNow(scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope));
    await expireLeaseNow(k.key);
    expect((await k.engine().destroy(at(scope))).run.status).toBe("succeeded");
    expect(await k.urls(), "the hand-added X stays").toEqual([X]);
    expect(await k.owners(X)).toEqual([]);
  });

  it("the scope lease alone past its deadline: the claims are withdrawn under the parent lease, the holder's and its waiter's, and nobody takes a URL someone added for theirs", async () => {
    const k = await kindeWorld();
    const [h, w] = [freshPr(), freshPr()];
    const [X, Y] = ["my-app://holder-x", "my-app://waiter-y"];
    const clock = new ManualClock();
    // The scope's last check before the claims, then the claims, half a TTL apart; then past the
    // scope lease's deadline (measured at that check), short of the parent's (at the claims).
    let scopeChecks = 0;
    const wrapLocks = aroundClaims([X, Y], {
      onScopeCheck: () => {
        scopeChecks += 1;
        clock.jump(TTL_MS / 2);
      },
      onClaims: async () => {
        await seedKinde(k.domain, { apps: { [KINDE_APP]: { redirect_urls: [...(await k.urls()), X, Y] } } });
        clock.jump(TTL_MS * 0.8);
      },
    });
    const [holder, waiter] = (await k.inLine(
      () => k.engine({ clock, wrapLocks }).apply({ ...at(h), plan: k.plan(X) }),
      () => k.engine().apply({ ...at(w), plan: k.plan(Y) }),
    )) as [Promise<RunResult>, Promise<RunResult>];

    const held = await holder;
    expect(scopeChecks).toBe(1);
    expect(held.run.status).toBe("failed");
    expect(held.lines[0]?.error?.code).toBe("LOCK_LOST");
    expect(await k.owners(X), "the holder's claim is withdrawn").toEqual([]);
    expect(await k.owners(Y), "the waiter's too, before its change goes back").toEqual([]);

    // The waiter writes its change under its own lease: Y is a person's.
    await endLockDelay(k.key);
    await runDurableObjectAlarm(rawStub(k.key));
    const wrote = await waiter;
    expect(wrote.run.status).toBe("succeeded");
    expect(wrote.lines.map((l) => [l.result, l.writtenBy ?? null])).toEqual([["foreign", null]]);

    // The holder's scope recovers once its lease ended: X is not its own, and stays.
    await expireLeaseNow(scopeLockKey(DEFAULT_REPOSITORY.id, "preview", h));
    expect((await k.engine().destroy(at(h))).run.status).toBe("succeeded");
    expect((await k.engine().destroy(at(w))).run.status).toBe("succeeded");
    expect((await k.urls()).sort(), "the hand-added URLs stay").toEqual([X, Y]);
  });
});
