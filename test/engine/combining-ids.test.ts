/**
 * A stored combined answer answers only the changes it names (docs/design.md, "Write combining"):
 * a holder's answer to a waiter's create of an item must not answer that run's later removal of
 * the same item as written.
 */
import { describe, expect, it } from "vitest";
import { coversAll } from "../../durable-objects/combine-queue";
import { auth0Adapter } from "../../workers/adapters/auth0";
import type { OpSpec } from "../../workers/adapters/op-spec";
import { queuedChangeOf } from "../../workers/engine/combining/combining";
import type { Item } from "../../workers/engine/plan/item";

const op = auth0Adapter.ops.find((o) => o.name === "auth0.callbackUrl") as OpSpec;
const url = "https://pr-1.preview.example.com/callback";
const item: Item = {
  line: "cb",
  opName: op.name,
  op,
  connection: "auth0-preview",
  params: { client: "app", url },
  key: url,
  parent: "auth0:tenant:client:app",
};
const run = { id: "run-1", environment: "preview" };

describe("combined answers are matched by change", () => {
  it("a stored answer to a create does not cover a removal of the same item", () => {
    const create = queuedChangeOf({ item, action: "create" }, run, "owner");
    const remove = queuedChangeOf({ item, action: "remove" }, run, "owner");
    expect(coversAll([remove], [{ id: create.id, outcome: "written" }])).toBe(false);
    // Control: the same change is covered.
    expect(coversAll([create], [{ id: create.id, outcome: "written" }])).toBe(true);
  });
});
