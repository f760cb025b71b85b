/**
 * The group write's one Fence (issue 29 item 1; docs/design.md, "One group write, one fence"): which
 * preceding call counts as a check is decided there alone. Stub leases record every call, so each
 * case pins the round trips made and saved around one write.
 */
import { describe, expect, it } from "vitest";
import { SponsonError } from "../../shared/errors";
import type { OwnedItem, OwnershipView } from "../../shared/schemas/ownership";
import { LeaseLostOnRead } from "../../workers/adapters/http/provider-error";
import type { OpContext } from "../../workers/adapters/op-spec";
import { StaleState } from "../../workers/adapters/stale-state";
import { Fence } from "../../workers/engine/write/fence";
import { PartlySent } from "../../workers/engine/write/provider-write";
import type { ParentLease } from "../../workers/locks/parent-lock";
import type { ScopeLease } from "../../workers/locks/scope-lock";

const view = (rebuilt: boolean): OwnershipView => ({ items: [], listedOps: [], rebuilt });

function stubs(refuse: ReadonlySet<string> = new Set()) {
  const calls: string[] = [];
  let granted: OwnershipView | null = view(true);
  const lost = () => new SponsonError("LOCK_LOST", "lease lost");
  const lease = (kind: string) => ({
    deadline: Number.POSITIVE_INFINITY,
    assertHeld: () => calls.push(`${kind} assertHeld`),
    check: async () => {
      calls.push(`${kind} check`);
      if (refuse.has(`${kind} check`)) throw lost();
    },
    abandon: () => calls.push(`${kind} abandon`),
    writeMayLand: () => calls.push(`${kind} writeMayLand`),
    target: { key: `${kind}-lock` },
    releaseHeld: async () => {
      calls.push(`${kind} releaseHeld`);
      return !refuse.has(`${kind} releaseHeld`);
    },
    changeOwners: async () => {
      calls.push(`${kind} changeOwners`);
      return view(true);
    },
    withdrawOwners: async () => {
      calls.push(`${kind} withdrawOwners`);
    },
    grantedOwners: (_: readonly OwnedItem[]) => {
      const answer = granted;
      granted = null;
      if (answer) calls.push("granted");
      return answer;
    },
    owners: async () => {
      calls.push(`${kind} owners`);
      return view(false);
    },
  });
  const fence = new Fence({
    scope: lease("scope") as unknown as ScopeLease,
    parent: lease("parent") as unknown as ParentLease,
    checkAfter: true,
    what: "app-1",
  });
  return { calls, fence };
}

/** The error `p` rejects with, which must be a SponsonError. */
async function failure(p: Promise<unknown>): Promise<SponsonError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SponsonError);
  return err as SponsonError;
}

const claim = [{ op: "callbacks", key: "https://a.example", action: "add" as const, owner: "scope-a" }];
const sent = async () => {};

describe("the group write's fence", () => {
  it("claims made last before the write are the parent's check before it: no round trip of its own", async () => {
    const { calls, fence } = stubs();
    await fence.claim(claim);
    await fence.write(sent);
    expect(calls).toEqual([
      "parent changeOwners",
      "scope assertHeld",
      "parent assertHeld",
      "parent check",
      "scope check",
    ]);
  });

  it("any other fence call after the claims, or no claims at all, leaves the round trip to make", async () => {
    const { calls, fence } = stubs();
    await fence.claim(claim);
    await fence.withdraw(claim);
    await fence.write(sent);
    await fence.claim([]);
    await fence.write(sent);
    expect(calls.filter((c) => c === "parent check")).toHaveLength(4);
    expect(calls).not.toContain("parent assertHeld");
  });

  it("a parent call that follows the write stands for its check after; refused, the outcome is unknown and the lease abandoned", async () => {
    const { calls, fence } = stubs();
    await fence.claim(claim);
    await fence.write(sent, "call");
    expect(calls.slice(-1)).toEqual(["scope check"]);
    const err = await failure(
      fence.follow(() => Promise.reject(new SponsonError("LOCK_LOST", "token refused"))),
    );
    expect(err.detail).toMatchObject({ outcome: "unknown" });
    expect(calls).toContain("parent abandon");
    expect(fence.inDoubt).toBe(true);
  });

  it("a call after the write that is not the parent's makes the check it stands for", async () => {
    const { calls, fence } = stubs();
    await fence.write(sent, "call");
    calls.length = 0;
    const err = await failure(
      fence.follow(() => Promise.reject(new SponsonError("LOCK_LOST", "scope lost")), false),
    );
    // The parent lease is still held: the write stands, the call's own error is what fails.
    expect(calls).toEqual(["parent check"]);
    expect(err.message).toBe("scope lost");
    expect(fence.inDoubt).toBe(false);
  });

  it("a write with no answer is an unknown outcome; a provider's refusal is its own answer", async () => {
    const noAnswer = stubs();
    const unknown = await failure(
      noAnswer.fence.write(() =>
        Promise.reject(new SponsonError("PROVIDER_ERROR", "reset", { status: null, outcome: "unknown" })),
      ),
    );
    expect(unknown.code).toBe("LOCK_LOST");
    expect(unknown.detail).toMatchObject({ outcome: "unknown" });
    expect(noAnswer.fence.inDoubt).toBe(true);
    // The lease is still held (the provider answered, or the connection broke): not abandoned, its
    // release is quiet (the lock-delay after it covers a late landing).
    expect(noAnswer.calls).toContain("parent writeMayLand");
    expect(noAnswer.calls).not.toContain("parent abandon");
    const refusal = stubs();
    const refused = await failure(
      refusal.fence.write(() =>
        Promise.reject(new SponsonError("PROVIDER_ERROR", "bad request", { status: 400 })),
      ),
    );
    expect(refused.code).toBe("PROVIDER_ERROR");
    expect(refusal.fence.inDoubt).toBe(false);
    // Nothing after a refused write: no check after it, no abandon.
    expect(refusal.calls).toEqual(["scope assertHeld", "parent check"]);
  });

  it("a failure of a request that changes nothing (a token exchange with no answer) is the provider's failure, not an unknown outcome", async () => {
    const { calls, fence } = stubs();
    const err = await failure(
      fence.write(() =>
        Promise.reject(new SponsonError("PROVIDER_ERROR", "auth0: network error", { status: null })),
      ),
    );
    expect(err.code).toBe("PROVIDER_ERROR");
    expect(fence.inDoubt).toBe(false);
    expect(calls).toEqual(["scope assertHeld", "parent check"]);
  });

  it("a write the lease was lost around is an unknown outcome whose lease is abandoned, never released", async () => {
    const { calls, fence } = stubs();
    const err = await failure(
      fence.write(() =>
        Promise.reject(
          new SponsonError("LOCK_LOST", "unanswered at the lease deadline", { outcome: "unknown" }),
        ),
      ),
    );
    expect(err.detail).toMatchObject({ outcome: "unknown" });
    expect(calls).toContain("parent abandon");
    expect(fence.inDoubt).toBe(true);
  });

  it("a write attempt the transport reports unanswered makes the parent's release quiet, even when the write then succeeds", async () => {
    const { calls, fence } = stubs();
    const ctx = fence.context({
      fetch: async () => new Response("ok"),
      clock: realClock,
    } as unknown as OpContext);
    await fence.claim(claim);
    await fence.write(async () => {
      ctx.onUnansweredWrite?.();
    }, "release");
    await fence.releaseAfterWrite();
    expect(calls).toContain("parent writeMayLand");
    expect(calls.indexOf("parent writeMayLand")).toBeLessThan(calls.indexOf("parent releaseHeld"));
    // The write succeeded and the release said the lease was live: the outcome is known.
    expect(fence.inDoubt).toBe(false);
    expect(calls).not.toContain("parent abandon");
  });

  it("with nothing else after the write, the release is the parent's check after it", async () => {
    const { calls, fence } = stubs();
    await fence.claim(claim);
    await fence.write(sent, "release");
    expect(calls.slice(-1)).toEqual(["scope check"]);
    expect(calls).not.toContain("parent check");
    await fence.releaseAfterWrite();
    expect(calls.slice(-2)).toEqual(["parent assertHeld", "parent releaseHeld"]);
    expect(fence.inDoubt).toBe(false);
    // Owed once: a second call (the lease's own finally) makes no check.
    await fence.releaseAfterWrite();
    expect(calls.filter((c) => c === "parent releaseHeld")).toHaveLength(1);
  });

  it("a release that finds the lease no longer live makes the outcome unknown", async () => {
    const { fence } = stubs(new Set(["parent releaseHeld"]));
    await fence.write(sent, "release");
    const err = await failure(fence.releaseAfterWrite());
    expect(err.code).toBe("LOCK_LOST");
    expect(err.detail).toMatchObject({ outcome: "unknown" });
    expect(fence.inDoubt).toBe(true);
  });

  it("control: without a write nothing is owed, and no release is made by the fence", async () => {
    const { calls, fence } = stubs(new Set(["parent releaseHeld"]));
    await fence.releaseAfterWrite();
    expect(calls).toEqual([]);
  });

  it("a check after the write that fails makes the outcome unknown", async () => {
    const { calls, fence } = stubs(new Set(["scope check"]));
    const err = await failure(fence.write(sent));
    expect(err.detail).toMatchObject({ outcome: "unknown" });
    expect(calls).toContain("parent abandon");
  });

  it("the grant's ownership view stands for the first read only", async () => {
    const { calls, fence } = stubs();
    expect((await fence.owners([])).rebuilt).toBe(true);
    expect((await fence.owners([])).rebuilt).toBe(false);
    expect(calls).toEqual(["granted", "parent owners"]);
  });

  it("an evicted scope's lease past its deadline before the send: nothing is sent, the group is decided again", async () => {
    const { calls, fence } = stubs();
    const lapsed = {
      assertHeld: () => {
        calls.push("evicted assertHeld");
        throw new SponsonError("LOCK_LOST", "past its deadline");
      },
      deadline: 0,
    };
    fence.guard(lapsed as unknown as ScopeLease);
    await fence.claim(claim);
    let sends = 0;
    const err = await fence
      .write(async () => {
        sends += 1;
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(StaleState);
    expect(sends).toBe(0);
    // Not an unknown outcome: no lease is abandoned.
    expect(calls.filter((c) => c.endsWith("abandon"))).toEqual([]);
  });

  it("a read still in flight at the lease deadline is a lost lease; a write in flight then may have landed", async () => {
    const passed = { deadline: Date.now() - 1, assertHeld: () => {} };
    const fence = new Fence({
      scope: passed as unknown as ScopeLease,
      parent: passed as unknown as ParentLease,
      checkAfter: true,
      what: "app-1",
    });
    const ctx = fence.context({
      fetch: () => new Promise<Response>(() => {}),
      clock: realClock,
    } as unknown as OpContext);
    const read = await failure(ctx.fetch("https://provider.example/x"));
    expect(read.code).toBe("LOCK_LOST");
    expect(read.detail?.outcome).toBeUndefined();
    expect(read.message).not.toContain("may have landed");
    const write = await failure(ctx.fetch("https://provider.example/x", { method: "PATCH" }));
    expect(write.detail).toMatchObject({ outcome: "unknown" });
  });

  it("a request that changes nothing, lost with the lease, fails the write as a lost lease: nothing abandoned, nothing in doubt", async () => {
    const { calls, fence } = stubs();
    const err = await failure(
      fence.write(() =>
        Promise.reject(new LeaseLostOnRead("token exchange unanswered at the lease deadline")),
      ),
    );
    expect(err.code).toBe("LOCK_LOST");
    expect(err.detail?.outcome).toBeUndefined();
    expect(fence.inDoubt).toBe(false);
    expect(calls).not.toContain("parent abandon");
  });

  it("a send of several requests that wrote part of its changes owes the check after: a later failure makes it first, and a lost lease makes the outcome unknown", async () => {
    const { calls, fence } = stubs(new Set(["parent check"]));
    await fence.claim(claim);
    const refusedHalfWay = new PartlySent([], new StaleState({ duplicate: true }));
    const err = await fence
      .write(() => Promise.reject(refusedHalfWay))
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBe(refusedHalfWay);
    // The withdraw after it is refused: the lease was lost, so what was sent may have overlapped.
    const lost = (await fence.failure(new SponsonError("LOCK_LOST", "token refused"))) as SponsonError;
    expect(lost.detail).toMatchObject({ outcome: "unknown" });
    expect(calls).toContain("parent abandon");
    expect(fence.inDoubt).toBe(true);
  });

  it("control: a failure after a partial send whose check after passes stands as it is; before any send, no check is made", async () => {
    const { calls, fence } = stubs();
    const refused = new SponsonError("PROVIDER_ERROR", "bad request", { status: 400 });
    expect(await fence.failure(refused)).toBe(refused);
    expect(calls).toEqual([]);
    await fence.claim(claim);
    const partly = new PartlySent([], refused);
    const err = await fence
      .write(() => Promise.reject(partly))
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBe(partly);
    expect(await fence.failure(refused)).toBe(refused);
    expect(calls.slice(-2)).toEqual(["parent check", "scope check"]);
    expect(fence.inDoubt).toBe(false);
  });

  it("hands out a context whose writes re-check the leases", async () => {
    const { calls, fence } = stubs();
    const ctx = fence.context({
      fetch: async () => new Response("ok"),
      clock: realClock,
    } as unknown as OpContext);
    await ctx.fetch("https://provider.example/x", { method: "PATCH" });
    expect(calls).toEqual(["scope assertHeld", "parent assertHeld"]);
  });
});

const realClock = {
  now: () => Date.now(),
  setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
  clearTimeout: (t: unknown) => clearTimeout(t as number),
};
