/**
 * The critical section's pure steps (workers/engine/write/section-plan.ts): who an attempt
 * decides, what it decides from what was read, and the write plan its claim and send carry out.
 */
import { describe, expect, it } from "vitest";
import type { ItemOwnership } from "../../shared/schemas/ownership";
import { auth0Adapter } from "../../workers/adapters/auth0";
import type { OpSpec } from "../../workers/adapters/op-spec";
import type { Item } from "../../workers/engine/plan/item";
import type { Change, Decided, Participant } from "../../workers/engine/rules/group-decisions";
import {
  decideWithout,
  heldBackNow,
  ownWritesOf,
  participantsOf,
  toDecide,
  unsendableOf,
  withRoom,
  writePlanOf,
} from "../../workers/engine/write/section-plan";

const op = auth0Adapter.ops.find((o) => o.name === "auth0.webOrigin") as OpSpec;
const itemOf = (url: string): Item => ({
  line: url,
  opName: op.name,
  op,
  connection: "auth0-preview",
  params: { client: "app", url },
  key: url,
  parent: "auth0:tenant:client:app",
});
const me = "1/preview/pr-1";
const other = "1/preview/pr-2";
const a = itemOf("https://a.example.com");
const b = itemOf("https://b.example.com");
const ownedBy = (item: Item, owners: string[]): ItemOwnership => ({
  op: item.opName,
  key: item.key,
  owners,
  foreign: false,
});
const waiter = (change: Change, name = "w2"): Participant =>
  ({ change, owner: other, waiter: name }) as Participant;
const unansweredOf = (...items: Item[]) => ({ has: (i: Item) => items.includes(i) });
const noSettled = { sent: new Map<Change, Decided>(), refused: new Set<Change>() };

describe("who an attempt decides", () => {
  const mine: Change = { item: a, action: "create" };
  const theirs: Change = { item: a, action: "create" };
  const theirsB: Change = { item: b, action: "remove" };
  const everyone = participantsOf([mine], [waiter(theirs), waiter(theirsB)], me);

  it("the run's own changes first, owned by the run, then the carried ones in queue order", () => {
    expect(everyone.map((p) => [p.change, p.owner])).toEqual([
      [mine, me],
      [theirs, other],
      [theirsB, other],
    ]);
  });

  it("holds back a carried change on an unanswered item, never an own one or one already sent", () => {
    expect(heldBackNow(everyone, new Map(), unansweredOf(a))).toEqual([theirs]);
    expect(heldBackNow(everyone, new Map([[theirs, {}]]), unansweredOf(a))).toEqual([]);
    expect(heldBackNow(everyone, new Map(), unansweredOf())).toEqual([]);
  });

  it("decides neither what an earlier attempt sent nor what is held back", () => {
    const left = toDecide(everyone, new Map([[mine, {}]]), new Set([theirsB]));
    expect(left.map((p) => p.change)).toEqual([theirs]);
  });
});

describe("deciding from what was read", () => {
  it("leaves out a waiter named gone, its changes not decided at all", () => {
    const group = {
      all: participantsOf([{ item: a, action: "create" }], [waiter({ item: b, action: "create" })], me),
      seen: [{ present: false }, { present: false }],
      owns: [ownedBy(a, []), ownedBy(b, [])],
    };
    expect(decideWithout(group, noSettled, new Set()).map((d) => d.change.item)).toEqual([a, b]);
    expect(decideWithout(group, noSettled, new Set(["w2"])).map((d) => d.change.item)).toEqual([a]);
  });

  it("sees the item as an earlier attempt's sent removal leaves it (its leave not yet recorded)", () => {
    const removal: Change = { item: a, action: "remove" };
    const group = {
      all: [waiter(removal)],
      seen: [{ present: true }],
      owns: [ownedBy(a, [me, other])],
    };
    // Control: with the run still an owner, the waiter's removal only leaves.
    expect(decideWithout(group, noSettled, new Set())[0]).toMatchObject({ outcome: "left", write: false });
    const sent = {
      change: { item: a, action: "remove" },
      owner: me,
      ownersAfter: [{ op: a.opName, key: a.key, action: "remove", owner: me }],
    } as unknown as Decided;
    const settled = { sent: new Map([[sent.change, sent]]), refused: new Set<Change>() };
    expect(decideWithout(group, settled, new Set())[0]).toMatchObject({ outcome: "written", write: true });
  });

  it("room made by eviction joins the group after what was read", () => {
    const group = {
      all: participantsOf([{ item: a, action: "create" }], [], me),
      seen: [{ present: false }],
      owns: [],
    };
    const added = waiter({ item: b, action: "remove" });
    const roomy = withRoom(group, { owns: [ownedBy(a, [])], added: [added], seen: [{ present: true }] });
    expect(roomy.all).toEqual([...group.all, added]);
    expect(roomy.seen).toEqual([{ present: false }, { present: true }]);
    expect(roomy.owns).toEqual([ownedBy(a, [])]);
  });
});

describe("the write plan", () => {
  const decided = (change: Change, over: Partial<Decided> & { waiter?: string } = {}): Decided => ({
    change,
    owner: me,
    outcome: "written",
    write: true,
    ownersBefore: [],
    ownersAfter: [],
    ...over,
  });
  const create = decided({ item: a, action: "create" });
  const joined = decided({ item: b, action: "create" }, { write: false, outcome: "shared" });
  const carried = decided({ item: b, action: "create" }, { owner: other, waiter: "w2" });
  const everyone = [create, joined];

  it("sends only the writes; the own ones are the run's, not a waiter's", () => {
    const plan = writePlanOf([create, joined, carried], {
      everyone,
      sent: new Map(),
      carried: true,
      leased: true,
    });
    expect(plan.writes).toEqual([create, carried]);
    expect(ownWritesOf(plan.decisions, me)).toEqual([create]);
  });

  it.each([
    ["no parent lease", { carried: false, leased: false }, [], "renew"],
    ["a holder's report follows", { carried: true, leased: true }, [], "call"],
    ["a removal's leave follows", { carried: false, leased: true }, [{ action: "remove" }], "call"],
    ["nothing follows: the release", { carried: false, leased: true }, [], "release"],
  ] as const)("the parent's check after the write — %s", (_, at, after, expected) => {
    const d = decided({ item: a, action: "remove" }, { ownersAfter: after as never });
    expect(writePlanOf([d], { everyone: [d], sent: new Map(), ...at }).after).toBe(expected);
  });

  it("places an earlier attempt's sent change where it stands in the group", () => {
    const sent = new Map([[create.change, create]]);
    expect(writePlanOf([joined], { everyone, sent, carried: false, leased: true }).whole).toEqual([
      create,
      joined,
    ]);
  });

  it("an own write on an unanswered item cannot be sent; a waiter's or a non-write is not one", () => {
    expect(unsendableOf([create, joined, carried], unansweredOf(a, b))).toEqual([a]);
    expect(unsendableOf([create], unansweredOf(b))).toEqual([]);
  });
});
