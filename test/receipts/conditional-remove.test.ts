import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { emptyReceipt } from "../../shared/schemas/receipt";
import { receiptKey } from "../../workers/receipts/layout";
import { at, freshEnvironment, receiptWith, rejection, store, TEST_REPO } from "./helpers";

describe("conditional remove (a tombstone written with etagMatches)", () => {
  it("with the current etag: the scope reads as absent, is not listed, and can be created again", async () => {
    const environment = freshEnvironment();
    const etag = await store().write(receiptWith(environment, "pr-1", ["a"]), null);
    await store().remove(at(environment, "pr-1"), etag);

    expect(await store().read(at(environment, "pr-1"))).toEqual({
      receipt: emptyReceipt(TEST_REPO, environment, "pr-1"),
      etag: null,
    });
    expect(await store().listScopes({ environment: environment })).toEqual([]);

    const again = await store().write(receiptWith(environment, "pr-1", ["b"]), null);
    const read = await store().read(at(environment, "pr-1"));
    expect(read.etag).toBe(again);
    expect(read.receipt.ledger.map((e) => e.key)).toEqual(["b"]);
  });

  it("with a stale etag: refused, and the receipt is still there unchanged", async () => {
    const environment = freshEnvironment();
    const stale = await store().write(receiptWith(environment, "pr-2", ["v1"]), null);
    const current = await store().write({ ...receiptWith(environment, "pr-2", ["v2"]), revision: 1 }, stale);

    const err = await rejection(store().remove(at(environment, "pr-2"), stale));
    expect(err.code).toBe("CONCURRENT_MODIFICATION");
    expect(err.detail).toEqual({ environment, scope: "pr-2" });

    const read = await store().read(at(environment, "pr-2"));
    expect(read.etag).toBe(current);
    expect(read.receipt.ledger.map((e) => e.key)).toEqual(["v2"]);
  });

  it("a writer that read before the remove cannot write after it: its etag is gone", async () => {
    const environment = freshEnvironment();
    await store().write(receiptWith(environment, "pr-3", ["a"]), null);
    const writer = await store().read(at(environment, "pr-3"));
    const remover = await store().read(at(environment, "pr-3"));

    await store().remove(at(environment, "pr-3"), remover.etag ?? "");
    const err = await rejection(store().write({ ...writer.receipt, revision: 1 }, writer.etag));
    expect(err.code).toBe("CONCURRENT_MODIFICATION");
    expect((await store().read(at(environment, "pr-3"))).etag).toBeNull();
  });

  it("a remove of something already removed is refused, not silently repeated", async () => {
    const environment = freshEnvironment();
    const etag = await store().write(receiptWith(environment, "pr-4", ["a"]), null);
    await store().remove(at(environment, "pr-4"), etag);
    expect((await rejection(store().remove(at(environment, "pr-4"), etag))).code).toBe(
      "CONCURRENT_MODIFICATION",
    );
  });

  it("two creators after a remove race over the tombstone: exactly one wins", async () => {
    const environment = freshEnvironment();
    const etag = await store().write(receiptWith(environment, "pr-5", ["old"]), null);
    await store().remove(at(environment, "pr-5"), etag);

    const outcomes = await Promise.allSettled([
      store().write(receiptWith(environment, "pr-5", ["from-a"]), null),
      store().write(receiptWith(environment, "pr-5", ["from-b"]), null),
    ]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const lost = outcomes.find((o) => o.status === "rejected");
    expect(lost?.status === "rejected" && lost.reason.code).toBe("CONCURRENT_MODIFICATION");
    expect((await store().read(at(environment, "pr-5"))).receipt.ledger).toHaveLength(1);
  });

  it("leaves a tombstone object, not a deleted key (R2 delete() takes no condition)", async () => {
    const environment = freshEnvironment();
    const etag = await store().write(receiptWith(environment, "pr-6", ["a"]), null);
    await store().remove(at(environment, "pr-6"), etag);
    const object = await env.RECEIPTS.head(receiptKey(TEST_REPO.id, environment, "pr-6"));
    expect(object?.customMetadata).toMatchObject({ kind: "tombstone" });
  });
});
