/**
 * A waiter's join that rested on the holder's create, never sent (docs/design.md, "A send of
 * several requests refused half-way"; "Write combining"). A combining holder decides every change
 * in order, each against the item as the ones before leave it: a waiter wanting the URL the holder
 * is about to create joins it (`shared`). When the send stops before that create (an earlier POST
 * refused), the join rested on nothing: its claim must go with the create's, before the waiter's
 * change goes back. Kept, it names the waiter an owner of an entry someone else adds meanwhile:
 * the holder's write alone then joins it as shared, nobody marks it foreign, and the last of the
 * two scopes' destroys removes that person's entry.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../../shared/schemas/run";
import { ownerOf } from "../../../workers/engine/rules/ownership";
import { lockStub } from "../../../workers/locks/lock-target";
import { freshPr } from "../../helpers/engine";
import { at, kindeWorld } from "../../helpers/kinde-refusals";
import { endLockDelay, rawStub } from "../../helpers/locks";
import { scopeAddress } from "../../helpers/repositories";

describe("a waiter's join on a create the holder never sent", () => {
  it("is taken back with it: the URL someone added is a person's (foreign), and both scopes' destroys leave it", async () => {
    const k = await kindeWorld();
    const [h, w] = [freshPr(), freshPr()];
    const [A, X] = ["my-app://own-a", "my-app://shared-x"];
    // The holder plans A then X, the waiter X. A's POST is refused 400; at that moment someone
    // adds X by hand.
    const [holder, waiter] = (await k.inLine(
      () => k.engine({ wrapFetch: k.refusing(A, X) }).apply({ ...at(h), plan: k.plan(A, X) }),
      () => k.engine().apply({ ...at(w), plan: k.plan(X) }),
    )) as [Promise<RunResult>, Promise<RunResult>];

    // The holder's write alone (A posted again) finds X owned by nobody: a person's.
    const held = await holder;
    expect(held.run.status).toBe("succeeded");
    expect(held.lines.map((l) => l.result)).toEqual(["created", "foreign"]);
    const x = (await lockStub(env, k.key).ownership({ key: k.key })).items.find((i) => i.key === X);
    expect(x).toMatchObject({ owners: [ownerOf(scopeAddress("preview", h))], foreign: true });

    // The waiter got its change back and joins the person's entry under its own lease.
    await endLockDelay(k.key);
    await runDurableObjectAlarm(rawStub(k.key));
    const wrote = await waiter;
    expect(wrote.run.status).toBe("succeeded");
    expect(wrote.lines.map((l) => [l.result, l.writtenBy ?? null])).toEqual([["shared", null]]);

    expect((await k.engine().destroy(at(h))).run.status).toBe("succeeded");
    expect((await k.engine().destroy(at(w))).run.status).toBe("succeeded");
    expect(await k.urls(), "the hand-added X stays").toContain(X);
  });
});
