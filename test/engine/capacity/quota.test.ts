/**
 * The shares of a list, pure (docs/design.md, "A share of each list"): which lists have a share and
 * how large; the check from the plan (its lines against the scope's ledger); and the check under the
 * lease (the lock's counts with a trial's ownership changes made, the run's retiring entries out).
 * Keeping, shrinking, removing and claiming back are never refused.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ItemOwnership, OwnershipShares } from "../../../shared/schemas/ownership";
import type { OpSpec } from "../../../workers/adapters/op-spec";
import { planOverQuota, quotaExceeded, quotaOfList } from "../../../workers/engine/capacity/quota";
import { leaseOverQuota } from "../../../workers/engine/capacity/quota-under-lease";
import type { Item } from "../../../workers/engine/plan/item";
import { type Change, decideInOrder } from "../../../workers/engine/rules/group-decisions";

const OBJECT = "fake:object";
const REPO = { id: 7, name: "acme/web" };
const ME = "7/preview/pr-1";
const SIBLING = "7/preview/pr-2";
const THEIRS = "9/preview/pr-1";
const holder = { repository: REPO, environment: "preview", scope: "pr-1" };

function listOp(capacity?: OpSpec["capacity"]): OpSpec {
  return {
    name: "fake.origin",
    providerType: "fake",
    params: z.record(z.string(), z.string()),
    key: (p) => p.url as string,
    itemParam: "url",
    lockOn: () => OBJECT,
    inspect: async () => ({ present: false }),
    create: async () => {},
    remove: async () => {},
    list: async () => [],
    ...(capacity ? { capacity } : {}),
    batch: {
      kind: "fake.object",
      read: async () => [],
      keys: (state) => state as string[],
      edit: (state) => state,
      write: async () => {},
    },
  };
}
const OP = listOp({ maxEntries: 100 });
const url = (n: number) => `https://o${n}.example.com`;
const item = (n: number): Item => ({
  line: `l${n}`,
  opName: OP.name,
  op: OP,
  connection: "c",
  params: { url: url(n) },
  key: url(n),
  parent: OBJECT,
});
const owned = (n: number, owners: string[]): ItemOwnership => ({
  op: OP.name,
  key: url(n),
  owners,
  foreign: false,
});

/** The lock's counts for the owners of `rows` (each an entry of the op). */
function sharesOf(rows: ItemOwnership[]): OwnershipShares {
  const owners = new Map<string, number>();
  const repos = new Map<number, Set<string>>();
  for (const r of rows)
    for (const o of r.owners) {
      owners.set(o, (owners.get(o) ?? 0) + 1);
      const id = Number(o.split("/")[0]);
      repos.set(id, new Set([...(repos.get(id) ?? []), r.key]));
    }
  return {
    owners: [...owners].map(([owner, entries]) => ({ op: OP.name, owner, entries })),
    repositories: [...repos].map(([repositoryId, keys]) => ({
      op: OP.name,
      repositoryId,
      entries: keys.size,
    })),
  };
}

/** Decides `changes` by `owner` on the held `rows` (each change's item absent unless held by someone). */
function trial(
  rows: ItemOwnership[],
  changes: Array<{ change: Change; owner: string }>,
  retiring: number[] = [],
  elsewhere: number[] = [],
) {
  const known = changes
    .map(({ change }) => rows.find((r) => r.key === change.item.key) ?? owned(0, []))
    .map((k, i) => ({ ...k, key: changes[i]?.change.item.key as string }));
  const present = known.map((k) => k.owners.length > 0);
  const decisions = decideInOrder(changes, present, known);
  return {
    object: OBJECT,
    shares: sharesOf(rows),
    known: [
      ...known,
      ...[...retiring, ...elsewhere].map((n) => rows.find((r) => r.key === url(n)) ?? owned(n, [])),
    ],
    decisions,
    retiring: retiring.map((n) => ({ op: OP.name, key: url(n) })),
    elsewhere: { owner: ME, items: elsewhere.map((n) => ({ op: OP.name, key: url(n), inLedger: false })) },
    quotaOf: () => ({ perScope: 3, perRepository: 4 }),
  };
}
const create = (n: number, owner = ME, extra: Partial<Change> = {}) => ({
  change: { item: item(n), action: "create" as const, ...extra },
  owner,
});
const remove = (n: number, owner = ME) => ({ change: { item: item(n), action: "remove" as const }, owner });
const me = { owner: ME, repository: REPO };

describe("which lists have a share", () => {
  it("a capped list has 10 per scope unless configured; an uncapped one only what is configured", () => {
    expect(quotaOfList(OP, {})).toEqual({ perScope: 10 });
    expect(quotaOfList(listOp(), {})).toBeNull();
    expect(quotaOfList(listOp(), { maxEntries: 5 })).toEqual({ perScope: 10 });
    expect(quotaOfList(listOp(), { maxEntriesPerRepository: 20 })).toEqual({ perRepository: 20 });
    expect(quotaOfList(OP, { maxEntriesPerScope: 2, maxEntriesPerRepository: 6 })).toEqual({
      perScope: 2,
      perRepository: 6,
    });
  });
});

describe("the check from the plan", () => {
  const line = (n: number, quota = { perScope: 3, perRepository: 4 }) => ({
    op: OP.name,
    key: url(n),
    parent: OBJECT,
    quota,
  });
  const ledger = (ns: number[]) => ns.map((n) => ({ op: OP.name, key: url(n), parent: OBJECT }));

  it("four lines on a list of three per scope are refused, naming the list and the share", () => {
    const breach = planOverQuota(
      [1, 2, 3, 4].map((n) => line(n)),
      [],
      holder,
    );
    expect(breach).toMatchObject({
      object: OBJECT,
      op: OP.name,
      share: "scope",
      max: 3,
      scope: { holds: 0, after: 4 },
    });
    const err = quotaExceeded(breach as NonNullable<typeof breach>);
    expect(err.code).toBe("QUOTA_EXCEEDED");
    expect(err.message).toContain("at most 3 entries of fake.origin's list");
  });

  it("control: three lines fit; lines on lists without a share or without an object are not counted", () => {
    expect(
      planOverQuota(
        [1, 2, 3].map((n) => line(n)),
        [],
        holder,
      ),
    ).toBeNull();
    const none = [1, 2, 3, 4].map((n) => ({ ...line(n), quota: null }));
    expect(planOverQuota(none, [], holder)).toBeNull();
    expect(
      planOverQuota(
        [1, 2, 3, 4].map((n) => ({ ...line(n), parent: null })),
        [],
        holder,
      ),
    ).toBeNull();
  });

  it("keeping or shrinking a share above the quota is never refused; growing it is", () => {
    const held = ledger([1, 2, 3, 4, 5]);
    expect(
      planOverQuota(
        [1, 2, 3, 4, 5].map((n) => line(n)),
        held,
        holder,
      ),
    ).toBeNull();
    expect(
      planOverQuota(
        [1, 2, 3, 6].map((n) => line(n)),
        held,
        holder,
      ),
    ).toBeNull();
    expect(
      planOverQuota(
        [1, 2, 3, 4, 5, 6].map((n) => line(n)),
        held,
        holder,
      ),
    ).toMatchObject({
      scope: { holds: 5, after: 6 },
    });
  });

  it("a plan alone past the repository's share is refused too", () => {
    const breach = planOverQuota(
      [1, 2, 3, 4, 5].map((n) => line(n, { perScope: 10, perRepository: 4 })),
      [],
      holder,
    );
    expect(breach).toMatchObject({ share: "repository", max: 4, repository: null });
  });
});

describe("the check under the lease", () => {
  it("a sibling scope's entries count for the repository: 3 held + 2 new is 5 of 4", () => {
    const rows = [owned(1, [SIBLING]), owned(2, [SIBLING]), owned(3, [SIBLING])];
    const breach = leaseOverQuota({ ...trial(rows, [create(4), create(5)]), who: me });
    expect(breach).toMatchObject({
      share: "repository",
      max: 4,
      scope: { holds: 0, after: 2 },
      repository: { holds: 3, after: 5 },
      checked: "lease",
    });
  });

  it("control: another repository's entries do not count, and an entry shared in the repository counts once", () => {
    const rows = [owned(1, [THEIRS]), owned(2, [THEIRS]), owned(3, [SIBLING])];
    expect(leaseOverQuota({ ...trial(rows, [create(4), create(5)]), who: me })).toBeNull();
    // Joining the sibling's entry adds nothing to the repository's count: 3 + 1 new is 4 of 4.
    const joined = [owned(1, [SIBLING]), owned(2, [SIBLING]), owned(3, [SIBLING])];
    expect(leaseOverQuota({ ...trial(joined, [create(3), create(4)]), who: me })).toBeNull();
  });

  it("a swap keeps the share: retiring entries of the run's ledger are counted out", () => {
    const rows = [owned(1, [ME]), owned(2, [ME]), owned(3, [ME])];
    expect(leaseOverQuota({ ...trial(rows, [create(4)], [1]), who: me })).toBeNull();
    // Without the retiring entry the same write is 4 of 3 for the scope.
    expect(leaseOverQuota({ ...trial(rows, [create(4)]), who: me })).toMatchObject({
      share: "scope",
      scope: { holds: 3, after: 4 },
    });
  });

  it("a removal, and a claim-back of an entry the ledger names, are never refused", () => {
    const rows = [owned(1, [ME]), owned(2, [ME]), owned(3, [ME]), owned(4, [ME]), owned(5, [])];
    expect(leaseOverQuota({ ...trial(rows, [remove(1)]), who: me })).toBeNull();
    const back = trial(rows, [create(5, ME, { inLedger: true })]);
    expect(leaseOverQuota({ ...back, who: me })).toBeNull();
  });

  it("another owner's gains are checked for that owner: a carried waiter's share, with the holder's write in", () => {
    const rows = [owned(1, [SIBLING])];
    // The holder's own changes are checked alone: 1 + 2 of 4.
    expect(leaseOverQuota({ ...trial(rows, [create(2), create(3)]), who: me })).toBeNull();
    const t = trial(rows, [create(2), create(3), create(4, SIBLING), create(5, SIBLING)]);
    expect(leaseOverQuota({ ...t, who: { owner: SIBLING, repository: REPO } })).toMatchObject({
      share: "repository",
      holder: { scope: "pr-2" },
      repository: { holds: 1, after: 5 },
    });
  });

  it("the run's other group on the list counts: a swap of one for two through two connections is 6 of 5", () => {
    const quota5 = () => ({ perRepository: 5 });
    const rows = [1, 2, 3, 4].map((n) => owned(n, [SIBLING])).concat(owned(5, [ME]));
    // The first group adds 6 and retires 5; the second adds 7 (its own group write, `elsewhere`).
    const first = { ...trial(rows, [create(6)], [5], [7]), quotaOf: quota5 };
    expect(leaseOverQuota({ ...first, who: me })).toMatchObject({
      share: "repository",
      repository: { holds: 5, after: 6 },
    });
    // Control: the first group alone is a swap that keeps the share.
    expect(leaseOverQuota({ ...trial(rows, [create(6)], [5]), quotaOf: quota5, who: me })).toBeNull();
    // Within the share (3 a sibling's, 1 its own): the first group passes, and once it wrote 6 the
    // second counts 6 once — 3 + 5 + 6 + 7 less 5 is 5 of 5.
    const fits = [1, 2, 3].map((n) => owned(n, [SIBLING])).concat(owned(5, [ME]));
    expect(leaseOverQuota({ ...trial(fits, [create(6)], [5], [7]), quotaOf: quota5, who: me })).toBeNull();
    const wrote = [...fits, owned(6, [ME])];
    expect(leaseOverQuota({ ...trial(wrote, [create(7)], [5], [6]), quotaOf: quota5, who: me })).toBeNull();
  });
});
