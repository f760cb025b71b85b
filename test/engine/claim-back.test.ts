/**
 * Claiming back an entry the scope's ledger names (docs/design.md, "Evicting stale scopes"; "Ownership
 * of shared entries"): present and owned by nobody, it is the scope's own per its ledger, not a
 * person's; nothing is written and its ledger entry stays as it was. Carried by a combining holder,
 * the change says so too.
 */
import { describe, expect, it } from "vitest";
import type { ItemOwnership } from "../../shared/schemas/ownership";
import { queuedChangesSchema } from "../../shared/schemas/queued-change";
import { auth0Adapter } from "../../workers/adapters/auth0";
import type { OpSpec } from "../../workers/adapters/op-spec";
import { queuedChangeOf } from "../../workers/engine/combining/combining";
import type { Item } from "../../workers/engine/plan/item";
import { type Change, decideInOrder } from "../../workers/engine/rules/group-decisions";

const op = auth0Adapter.ops.find((o) => o.name === "auth0.webOrigin") as OpSpec;
const url = "https://fixed.example.com";
const item: Item = {
  line: "fixed",
  opName: op.name,
  op,
  connection: "auth0-preview",
  params: { client: "app", url },
  key: url,
  parent: "auth0:tenant:client:app",
};
const me = "1/preview/pr-1";
const nobody: ItemOwnership = { op: op.name, key: url, owners: [], foreign: false };
const decide = (change: Change, own = nobody) => decideInOrder([{ change, owner: me }], [true], [own])[0];

describe("claiming back an entry the ledger names", () => {
  it("present and owned by nobody: the scope joins as its own, unmarked, and nothing is written", () => {
    expect(decide({ item, action: "create", inLedger: true })).toMatchObject({
      outcome: "already",
      write: false,
      holding: "created",
      ownersBefore: [{ op: op.name, key: url, action: "add", owner: me }],
    });
    // Control: an entry the ledger does not name, present and unowned, is a person's (foreign).
    expect(decide({ item, action: "create" })).toMatchObject({
      outcome: "foreign",
      ownersBefore: [{ action: "foreign" }, { action: "add", owner: me }],
    });
  });

  it("owned by another scope: the scope shares it; already its own: nothing changes but the idempotent add", () => {
    const other = { ...nobody, owners: ["1/preview/pr-2"] };
    expect(decide({ item, action: "create", inLedger: true }, other)).toMatchObject({
      outcome: "shared",
      write: false,
    });
    expect(decide({ item, action: "create", inLedger: true }, { ...nobody, owners: [me] })).toMatchObject({
      outcome: "already",
      write: false,
    });
  });

  it("a waiter's claim-back is carried as one: the lock object's schema keeps the mark", () => {
    const queued = queuedChangeOf(
      { item, action: "create", inLedger: true },
      { id: "run-1", environment: "preview" },
      me,
    );
    expect(queuedChangesSchema.parse([queued])[0]?.inLedger).toBe(true);
    const plain = queuedChangeOf({ item, action: "create" }, { id: "run-1", environment: "preview" }, me);
    expect(queuedChangesSchema.parse([plain])[0]?.inLedger).toBeUndefined();
  });
});
