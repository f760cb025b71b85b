import { describe, expect, it } from "vitest";
import { emptyReceipt } from "../../shared/schemas/receipt";
import { at, freshEnvironment, receiptWith, store, TEST_REPO } from "./helpers";

describe("receipts round trip through R2", () => {
  it("a scope without a receipt reads as the empty receipt with etag null", async () => {
    const environment = freshEnvironment();
    expect(await store().read(at(environment, "pr-1"))).toEqual({
      receipt: emptyReceipt(TEST_REPO, environment, "pr-1"),
      etag: null,
    });
  });

  it("a created receipt reads back equal, with the etag the write returned", async () => {
    const environment = freshEnvironment();
    const receipt = { ...receiptWith(environment, "pr-7", ["https://pr-7.example.com/cb"]), revision: 1 };
    const etag = await store().write(receipt, null);
    const read = await store().read(at(environment, "pr-7"));
    expect(read.receipt).toEqual(receipt);
    expect(read.etag).toBe(etag);
  });

  it("an update with the etag just read replaces the receipt and returns a new etag", async () => {
    const environment = freshEnvironment();
    const first = await store().write(receiptWith(environment, "main", ["a"]), null);
    const second = await store().write(
      { ...receiptWith(environment, "main", ["a", "b"]), revision: 1 },
      first,
    );
    expect(second).not.toBe(first);
    const read = await store().read(at(environment, "main"));
    expect(read.receipt.ledger.map((e) => e.key)).toEqual(["a", "b"]);
    expect(read.etag).toBe(second);
  });

  it("a branch scope whose name holds a slash round-trips", async () => {
    const environment = freshEnvironment();
    await store().write(receiptWith(environment, "branch-feature/login", ["x"]), null);
    const read = await store().read(at(environment, "branch-feature/login"));
    expect(read.receipt.scope).toBe("branch-feature/login");
    expect(read.receipt.ledger).toHaveLength(1);
  });

  it("an invalid receipt is refused before anything is written", async () => {
    const environment = freshEnvironment();
    const bad = { ...receiptWith(environment, "pr-2", []), revision: -1 };
    await expect(store().write(bad, null)).rejects.toMatchObject({ code: "INTERNAL" });
    expect((await store().read(at(environment, "pr-2"))).etag).toBeNull();
  });
});
