/**
 * A combining holder's own write refused by the provider (docs/design.md, "A send of several
 * requests refused half-way"; "Write combining"). A provider refusal (a 4xx) of the combined send
 * hands every waiter's changes back and the holder writes its own alone, deciding them again under
 * the same lease. Its refused POST wrote nothing (the provider answered, and no attempt of it went
 * unanswered), so the claim made for it names the scope the owner of an entry it never wrote: kept,
 * the write alone would find an entry someone else added meanwhile owned by the scope alone, answer
 * `created` for it, and the scope's destroy would remove that person's entry. The same holds for a
 * claim-back (a scope whose ledger names the entry, evicted from its ownership): a create decided
 * under the lease and not written is never claimed back in the write alone either.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../../shared/schemas/run";
import { ownerOf } from "../../../workers/engine/rules/ownership";
import { lockStub, lockTarget } from "../../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../../workers/receipts/r2-receipt-store";
import { seedKinde } from "../../helpers/emulators-kinde";
import { freshPr, receipt } from "../../helpers/engine";
import { at, KINDE_APP, kindeWorld } from "../../helpers/kinde-refusals";
import { endLockDelay, rawStub } from "../../helpers/locks";
import { scopeAddress } from "../../helpers/repositories";

const OP = "kinde.callbackUrl";

describe("a combining holder's own POST refused, then written alone", () => {
  it("takes the entry someone added meanwhile for a person's (foreign), and its destroy leaves it", async () => {
    const k = await kindeWorld();
    const [h, w] = [freshPr(), freshPr()];
    const [X, Y] = ["my-app://holder-x", "my-app://waiter-y"];
    // The holder's own POST of X is refused 400; at that moment someone adds X by hand.
    const [holder, waiter] = (await k.inLine(
      () => k.engine({ wrapFetch: k.refusing(X, X) }).apply({ ...at(h), plan: k.plan(X) }),
      () => k.engine().apply({ ...at(w), plan: k.plan(Y) }),
    )) as [Promise<RunResult>, Promise<RunResult>];

    const held = await holder;
    expect(held.run.status).toBe("succeeded");
    expect(
      held.lines.map((l) => l.result),
      "nothing of the holder's made X",
    ).toEqual(["foreign"]);
    expect((await receipt("preview", h)).ledger.map((e) => [e.key, e.holding])).toEqual([[X, "foreign"]]);
    expect(await k.owners(X)).toEqual([ownerOf(scopeAddress("preview", h))]);

    // The waiter got its change back and wrote it under its own lease.
    await endLockDelay(k.key);
    await runDurableObjectAlarm(rawStub(k.key));
    expect((await waiter).lines.map((l) => l.result)).toEqual(["created"]);

    expect((await k.engine().destroy(at(h))).run.status).toBe("succeeded");
    expect(await k.urls(), "the hand-added X stays").toContain(X);
    expect(await k.owners(X)).toEqual([]);
  });

  it("a claim-back's create refused: the entry someone added meanwhile is not taken back as the scope's own", async () => {
    const k = await kindeWorld();
    const [h, w] = [freshPr(), freshPr()];
    const [X, Y] = ["my-app://holder-x", "my-app://waiter-y"];
    const me = ownerOf(scopeAddress("preview", h));
    expect((await k.engine().apply({ ...at(h), plan: k.plan(X) })).lines[0]?.result).toBe("created");
    // Another run's eviction, staged: the lock no longer names the scope an owner, its receipt says why.
    const evictor = await lockTarget(env, k.key, k.identity).acquire({
      holder: "run-evictor",
      ttlMs: 30_000,
    });
    if (!evictor.ok) throw new Error(evictor.error.message);
    const token = evictor.value.token;
    const changes = [{ op: OP, key: X, action: "remove" as const, owner: me }];
    await lockStub(env, k.key).changeOwners({ key: k.key, holder: "run-evictor", token, changes });
    await lockStub(env, k.key).release({ key: k.key, holder: "run-evictor", token });
    const store = new R2ReceiptStore(env.RECEIPTS);
    const stored = await store.read(scopeAddress("preview", h));
    const note = {
      runId: "run-evictor",
      object: k.identity,
      op: OP,
      keys: [X],
      reason: "idle" as const,
      at: Date.now(),
    };
    await store.write({ ...stored.receipt, evictions: [note] }, stored.etag);

    // The holder sees X before any lease (a claim-back), but X is gone by its lease: it POSTs X,
    // which is refused 400 while someone adds X by hand.
    const [holder, waiter] = (await k.inLine(
      () => k.engine({ wrapFetch: k.refusing(X, X) }).apply({ ...at(h), plan: k.plan(X) }),
      async () => {
        await seedKinde(k.domain, { apps: { [KINDE_APP]: { redirect_urls: [] } } });
        return k.engine().apply({ ...at(w), plan: k.plan(Y) });
      },
    )) as [Promise<RunResult>, Promise<RunResult>];

    const held = await holder;
    expect(held.run.status).toBe("succeeded");
    expect(
      held.lines.map((l) => l.result),
      "the scope's own X went; this one is a person's",
    ).toEqual(["foreign"]);
    const x = (await lockStub(env, k.key).ownership({ key: k.key })).items.find((i) => i.key === X);
    expect(x).toMatchObject({ owners: [me], foreign: true });

    await endLockDelay(k.key);
    await runDurableObjectAlarm(rawStub(k.key));
    expect((await waiter).lines.map((l) => l.result)).toEqual(["created"]);
    expect((await k.engine().destroy(at(h))).run.status).toBe("succeeded");
    expect(await k.urls(), "the hand-added X stays").toContain(X);
  });
});
