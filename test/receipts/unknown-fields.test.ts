import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { receiptKey } from "../../workers/receipts/layout";
import { at, freshEnvironment, receiptWith, store, TEST_REPO } from "./helpers";

describe("fields written by a newer version", () => {
  it("survive a read-modify-write by this version, at every level", async () => {
    const environment = freshEnvironment();
    const newer = receiptWith(environment, "pr-3", ["https://pr-3.example.com/cb"]);
    const stored = {
      ...newer,
      version: 2,
      closedAt: 1_700_000_000_000,
      ledger: newer.ledger.map((e) => ({ ...e, ttlSeconds: 3600 })),
    };
    // The newer writer puts its JSON straight into the bucket, as a future release would.
    await env.RECEIPTS.put(receiptKey(TEST_REPO.id, environment, "pr-3"), JSON.stringify(stored));

    const { receipt, etag } = await store().read(at(environment, "pr-3"));
    const entry = receipt.ledger[0];
    if (entry === undefined) throw new Error("the ledger entry was dropped on read");
    await store().write(
      { ...receipt, revision: 1, ledger: [...receipt.ledger, { ...entry, key: "second" }] },
      etag,
    );

    const raw = JSON.parse(
      (await (await env.RECEIPTS.get(receiptKey(TEST_REPO.id, environment, "pr-3")))?.text()) ?? "null",
    );
    expect(raw.version).toBe(2);
    expect(raw.closedAt).toBe(1_700_000_000_000);
    expect(raw.ledger[0].ttlSeconds).toBe(3600);
    expect(raw.ledger.map((e: { key: string }) => e.key)).toEqual(["https://pr-3.example.com/cb", "second"]);
  });
});
