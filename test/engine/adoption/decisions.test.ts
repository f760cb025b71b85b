/**
 * The adoption's decisions (workers/engine/adoption/decide.ts), pure: what each entry is from the
 * reads before any lease, and what adopting one does from its ownership under the object's lease.
 */
import { describe, expect, it } from "vitest";
import { parsePattern } from "../../../shared/adoption-patterns";
import type { ItemOwnership } from "../../../shared/schemas/ownership";
import {
  decideAdoption,
  decideEntry,
  type PullAnswer,
  type Survey,
} from "../../../workers/engine/adoption/decide";

const pattern = (() => {
  const p = parsePattern("https://pr-{pr}.preview.example.com", "preview");
  if (!p.ok) throw new Error(p.problem);
  return p.pattern;
})();
const key = (n: number) => `https://pr-${n}.preview.example.com`;
const me = (scope: string) => `1/preview/${scope}`;
const own = (k: string, owners: string[], foreign: boolean): ItemOwnership => ({
  op: "auth0.callbackUrl",
  key: k,
  owners,
  foreign,
});

function survey(over: Partial<Survey> & { states?: Record<number, PullAnswer> } = {}): Survey {
  return {
    ownership: () => undefined,
    listed: true,
    ownerOf: me,
    scopeOf: (owner) => (owner.startsWith("1/preview/") ? owner.slice("1/preview/".length) : null),
    inLedger: () => false,
    pull: (m) => ("pr" in m ? (over.states?.[m.pr] ?? { number: m.pr, state: "open" }) : "none"),
    scopeClosed: () => false,
    refused: () => null,
    ...over,
  };
}

const decide = (k: string, s: Survey, removeClosed = false) =>
  decideEntry(k, { item: k, patterns: [pattern], removeClosed }, s);

describe("decideEntry", () => {
  it("an open pull request's entry nobody owns is adopted; foreign as read when the list was never looked at", () => {
    const d = decide(key(5), survey({ listed: false }));
    expect(d).toMatchObject({
      action: "adopt",
      entry: { scope: "pr-5", outcome: "would-adopt", foreign: true, owners: 0 },
    });
  });

  it("a closed one is kept unless removeClosed, then adopted and removed (or only removed if adopted already)", () => {
    const closed = survey({ states: { 5: { number: 5, state: "closed" } } });
    expect(decide(key(5), closed)).toMatchObject({
      action: "keep",
      entry: { reason: "pull-request-closed" },
    });
    expect(decide(key(5), closed, true)).toMatchObject({
      action: "adopt-remove",
      entry: { outcome: "would-remove" },
    });
    const adopted = {
      ...closed,
      ownership: (k: string) => own(k, [me("pr-5")], false),
      inLedger: () => true,
    };
    expect(decide(key(5), adopted, true)).toMatchObject({ action: "remove" });
  });

  it("another scope's entry, a missing pull request, a refused item: kept, saying why", () => {
    expect(decide(key(5), survey({ ownership: (k) => own(k, [me("main")], true) }))).toMatchObject({
      action: "keep",
      entry: { reason: "owned-by-another-scope", owners: 1 },
    });
    expect(decide(key(5), survey({ states: { 5: { number: 5, state: "missing" } } }))).toMatchObject({
      entry: { reason: "no-pull-request" },
    });
    expect(decide(key(5), survey({ refused: () => "policy.environments.preview.items" }))).toMatchObject({
      entry: { reason: "policy", rule: "policy.environments.preview.items" },
    });
  });

  it("its own scope joined it as foreign: still adopted; owned and in its ledger: already its own", () => {
    const joined = survey({ ownership: (k) => own(k, [me("pr-5")], true), inLedger: () => true });
    expect(decide(key(5), joined).action).toBe("adopt");
    const owned = survey({ ownership: (k) => own(k, [me("pr-5")], false), inLedger: () => true });
    expect(decide(key(5), owned)).toMatchObject({ action: "keep", entry: { reason: "already-owned" } });
    // The lock names the scope but its receipt does not (a lost receipt): the ledger entry is added.
    expect(decide(key(5), { ...owned, inLedger: () => false }).action).toBe("adopt");
  });
});

describe("ownership comes before GitHub's answer", () => {
  const owned = (by: string) =>
    survey({
      ownership: (k) => own(k, [me(by)], false),
      inLedger: (scope) => scope === by,
      states: { 5: { number: 5, state: "missing" } },
    });

  it("an entry its scope already owns is already-owned, naming that scope, though GitHub has no such pull request", () => {
    expect(decide(key(5), owned("pr-5"))).toMatchObject({
      action: "keep",
      entry: { scope: "pr-5", reason: "already-owned", pullRequest: { number: 5, state: "missing" } },
    });
  });

  it("an entry another scope owns names the scope that owns it, not the one the pattern gives", () => {
    expect(decide(key(5), owned("main"))).toMatchObject({
      action: "keep",
      entry: { scope: "main", reason: "already-owned", owners: 1 },
    });
  });

  it("an owned entry no pattern matches is already-owned too", () => {
    const local = "http://localhost:3000/callback";
    expect(decide(local, owned("pr-5"))).toMatchObject({
      action: "keep",
      entry: { scope: "pr-5", reason: "already-owned", pullRequest: null },
    });
  });

  it("an entry owned outside this repository and environment names no scope", () => {
    const elsewhere = survey({ ownership: (k) => own(k, ["2/preview/pr-5"], false) });
    expect(decide(key(5), elsewhere).entry).toMatchObject({ scope: null, reason: "already-owned" });
  });

  it("control: an entry nobody owns whose pull request GitHub does not know stays, saying so", () => {
    const nobody = survey({ states: { 5: { number: 5, state: "missing" } } });
    expect(decide(key(5), nobody).entry).toMatchObject({ scope: null, reason: "no-pull-request" });
  });
});

describe("decideAdoption (under the lease)", () => {
  it("clears foreign and adds the scope; takes nothing another scope owns; nothing absent", () => {
    expect(decideAdoption(own(key(5), [], true), true, me("pr-5"))).toEqual({
      kind: "adopt",
      changes: [
        { op: "auth0.callbackUrl", key: key(5), action: "not-foreign" },
        { op: "auth0.callbackUrl", key: key(5), action: "add", owner: me("pr-5") },
      ],
    });
    expect(decideAdoption(own(key(5), [me("pr-5")], false), true, me("pr-5"))).toEqual({
      kind: "adopt",
      changes: [],
    });
    expect(decideAdoption(own(key(5), [me("main")], true), true, me("pr-5"))).toEqual({ kind: "taken" });
    expect(decideAdoption(own(key(5), [], true), false, me("pr-5"))).toEqual({ kind: "absent" });
  });
});

describe("a scope the service knows closed", () => {
  it("is never adopted into; a closed pull request's entry is still removed when asked", () => {
    const closed = survey({ scopeClosed: (scope) => scope === "pr-4" });
    expect(decide(key(4), closed).entry).toMatchObject({
      scope: "pr-4",
      outcome: "kept",
      reason: "scope-closed",
    });
    expect(decide(key(5), closed).entry).toMatchObject({ scope: "pr-5", outcome: "would-adopt" });
    const gone = survey({ scopeClosed: () => true, states: { 4: { number: 4, state: "closed" } } });
    expect(decide(key(4), gone, true).entry).toMatchObject({ outcome: "would-remove" });
  });
});
