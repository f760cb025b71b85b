/**
 * The claims of writes a send never made (docs/design.md, "A send of several requests refused
 * half-way"; "Ownership of shared entries"). A run claims every item before it writes. Kinde edits
 * one URL per request, so a send stops at the first request that fails: the changes after it were
 * never sent, and their claims name a scope the owner of an entry it never wrote. If someone else
 * creates that entry meanwhile, such a claim makes it the scope's: its rollback (or a later
 * recovery, or its destroy) would remove another writer's entry. So the claims of changes a send
 * never reached are withdrawn before the group fails — the run's own, and those a combining holder
 * made for a waiter before it hands the waiter's changes back.
 *
 * In each case the provider refuses one POST (400) and, at that moment, someone else adds the URL
 * whose POST would have come next.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../../shared/schemas/run";
import type { LockProvider } from "../../../workers/engine/deps";
import { ownerOf } from "../../../workers/engine/rules/ownership";
import { lockStub, lockTarget } from "../../../workers/locks/lock-target";
import { freshPr, receipt, untilWaiters } from "../../helpers/engine";
import { at, kindeWorld } from "../../helpers/kinde-refusals";
import { overriding } from "../../helpers/lock-overrides";
import { endLockDelay, rawStub } from "../../helpers/locks";
import { scopeAddress } from "../../helpers/repositories";

describe("a send stopped by a refusal takes back the claims of what it never sent", () => {
  it("the run's own: B refused, C added by someone else meanwhile; the run's rollback removes A and leaves C", async () => {
    const k = await kindeWorld();
    const scope = freshPr();
    const [A, B, C] = ["my-app://own-a", "my-app://own-b", "my-app://own-c"];
    const result = await k
      .engine({ wrapFetch: k.refusing(B, C), combining: false })
      .apply({ ...at(scope), plan: k.plan(A, B, C) });

    expect(result.run.status).toBe("failed");
    expect(result.lines.map((l) => l.result)).toEqual(["failed", "failed", "failed"]);
    expect(await k.urls(), "the other writer's C stays; the run's A is rolled back").toEqual([C]);
    expect(await k.owners(C)).toEqual([]);
    expect((await receipt("preview", scope)).intents).toEqual([]);
  });

  it("a waiter's, before its changes go back: it then finds the URL someone else added unowned, and joins it as foreign", async () => {
    const k = await kindeWorld();
    const [h, w] = [freshPr(), freshPr()];
    const [X, Y, Z] = ["my-app://holder-x", "my-app://waiter-y", "my-app://waiter-z"];
    // The holder and the waiter queue behind another run, in that order: the first becomes the
    // holder, and its grant takes the waiter's changes.
    const other = await lockTarget(env, k.key, k.identity).acquire({
      holder: "run-other",
      ttlMs: 60_000,
      wait: false,
      waitTimeoutMs: 0,
    });
    if (!other.ok) throw new Error(other.error.message);
    const holder: Promise<RunResult> = k
      .engine({ wrapFetch: k.refusing(Y, Z) })
      .apply({ ...at(h), plan: k.plan(X) });
    await untilWaiters(k.key, 1);
    const waiter: Promise<RunResult> = k.engine().apply({ ...at(w), plan: k.plan(Y, Z) });
    await untilWaiters(k.key, 2);
    await lockStub(env, k.key).release({ key: k.key, holder: "run-other", token: other.value.token });

    const held = await holder;
    expect(held.run.status).toBe("succeeded");
    expect(held.lines.map((l) => l.result)).toEqual(["created"]);
    // Y's POST was refused; Z's was never sent: the claim made for it is gone with the waiter's changes.
    expect(await k.owners(Z)).toEqual([]);

    await endLockDelay(k.key);
    await runDurableObjectAlarm(rawStub(k.key));
    const wrote = await waiter;
    expect(wrote.run.status).toBe("succeeded");
    expect(wrote.lines.map((l) => [l.result, l.writtenBy ?? null])).toEqual([
      ["created", null],
      ["foreign", null],
    ]);
    expect((await receipt("preview", w)).ledger.map((e) => [e.key, e.holding])).toEqual([
      [Y, "created"],
      [Z, "foreign"],
    ]);

    // The waiter's destroy leaves the URL someone else added.
    expect((await k.engine().destroy(at(w))).run.status).toBe("succeeded");
    expect(await k.urls()).toEqual([X, Z]);
    expect(await k.owners(Z)).toEqual([]);
  });

  it("the withdraw never reaches the lock: C's intent is marked refused, the holder does not write its own changes again, and its rollback leaves C", async () => {
    const k = await kindeWorld();
    const [h, w] = [freshPr(), freshPr()];
    const [A, B, C, Y] = ["my-app://own-a", "my-app://own-b", "my-app://own-c", "my-app://waiter-y"];
    const me = ownerOf(scopeAddress("preview", h));
    // The withdraw of C's claim under the holder's first lease never reaches the lock object.
    let first: number | null = null;
    let tries = 0;
    const unreachable = (inner: LockProvider): LockProvider => ({
      ...inner,
      parent: async (identity) => {
        const target = await inner.parent(identity);
        return overriding(target, {
          changeOwners: async (req) => {
            first ??= req.token;
            const withdraw = req.changes.some((c) => c.key === C && c.action === "remove" && c.owner === me);
            if (req.token === first && withdraw) {
              tries += 1;
              throw new Error("Durable Object reset because its code was updated.");
            }
            return target.changeOwners(req);
          },
        });
      },
    });
    const other = await lockTarget(env, k.key, k.identity).acquire({
      holder: "run-other",
      ttlMs: 60_000,
      wait: false,
      waitTimeoutMs: 0,
    });
    if (!other.ok) throw new Error(other.error.message);
    const holder = k
      .engine({ wrapFetch: k.refusing(B, C), wrapLocks: unreachable })
      .apply({ ...at(h), plan: k.plan(A, B, C) });
    await untilWaiters(k.key, 1);
    const waiter = k.engine().apply({ ...at(w), plan: k.plan(Y) });
    await untilWaiters(k.key, 2);
    await lockStub(env, k.key).release({ key: k.key, holder: "run-other", token: other.value.token });

    const held = await holder;
    expect(tries, "the withdraw is tried more than once").toBeGreaterThan(1);
    expect(held.run.status).toBe("failed");
    expect(held.lines.map((l) => l.result)).toEqual(["failed", "failed", "failed"]);
    // Never written again under that lease; rolled back under the next: A gone, C (someone else's) left.
    expect((await k.urls()).filter((u) => u !== Y)).toEqual([C]);
    expect(await k.owners(C)).toEqual([]);
    expect((await receipt("preview", h)).intents).toEqual([]);

    // The waiter got its change back, and wrote it under its own lease.
    expect((await waiter).run.status).toBe("succeeded");
    expect((await k.urls()).sort()).toEqual([C, Y]);
  });
});
