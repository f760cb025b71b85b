/**
 * The drain's merge of a lock's rows into a receipt (workers/upgrade/merge-legacy-intents.ts): rows
 * the receipt's `intentsThrough` accounts for are never merged again, the others join once, and the
 * receipt then accounts for every number the lock gave; nothing to do leaves the receipt as it is.
 */
import { describe, expect, it } from "vitest";
import { emptyReceipt, type Intent } from "../../shared/schemas/receipt";
import { mergeLegacyIntents } from "../../workers/upgrade/merge-legacy-intents";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";

function row(key: string, lockSeq?: number): Intent {
  return {
    action: "create",
    line: "callback",
    op: "auth0.callbackUrl",
    connection: "auth0",
    params: {},
    key,
    parent: "auth0:tenant:client:app",
    runId: "run-dead",
    at: 1_000,
    ...(lockSeq === undefined ? {} : { lockSeq }),
  };
}

const empty = emptyReceipt(DEFAULT_REPOSITORY, "preview", "pr-1");

describe("merging a lock's rows of 0.1.x into the receipt", () => {
  it("rows past `intentsThrough` join once; the receipt then accounts for the highest number", () => {
    const receipt = { ...empty, intentsThrough: 2, intents: [row("held", 3)] };
    const { receipt: merged, merged: n } = mergeLegacyIntents(receipt, [
      row("settled", 2),
      row("held", 3),
      row("open", 4),
    ]);
    expect(n).toBe(1);
    expect(merged.intents.map((i) => i.key)).toEqual(["held", "open"]);
    expect(merged.intentsThrough).toBe(4);
  });

  it("merged again (a drain that saved, then died before its drop), nothing changes", () => {
    const first = mergeLegacyIntents(empty, [row("a", 1), row("b", 1)]).receipt;
    const again = mergeLegacyIntents(first, [row("a", 1), row("b", 1)]);
    expect(again.merged).toBe(0);
    expect(again.receipt).toBe(first);
  });

  it("rows of a build that did not number them join unless the receipt holds them", () => {
    const { receipt, merged } = mergeLegacyIntents({ ...empty, intents: [row("a")] }, [row("a"), row("b")]);
    expect(merged).toBe(1);
    expect(receipt.intents.map((i) => i.key)).toEqual(["a", "b"]);
    expect(receipt.intentsThrough).toBeUndefined();
  });
});
