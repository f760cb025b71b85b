import { describe, expect, it } from "vitest";
import { at, freshEnvironment, receiptWith, rejection, store } from "./helpers";

describe("conditional writes", () => {
  it("create-if-absent is refused when the receipt exists, and the stored receipt is unchanged", async () => {
    const environment = freshEnvironment();
    const etag = await store().write(receiptWith(environment, "pr-1", ["first"]), null);

    const err = await rejection(store().write(receiptWith(environment, "pr-1", ["second"]), null));
    expect(err.code).toBe("CONCURRENT_MODIFICATION");
    expect(err.message).toBe(`receipt ${environment}/pr-1 was changed by another writer — re-read and retry`);
    expect(err.detail).toEqual({ environment, scope: "pr-1" });

    const read = await store().read(at(environment, "pr-1"));
    expect(read.etag).toBe(etag);
    expect(read.receipt.ledger.map((e) => e.key)).toEqual(["first"]);
  });

  it("an update with a stale etag is refused and the stored receipt is unchanged", async () => {
    const environment = freshEnvironment();
    const stale = await store().write(receiptWith(environment, "pr-2", ["v1"]), null);
    const current = await store().write({ ...receiptWith(environment, "pr-2", ["v2"]), revision: 1 }, stale);

    const err = await rejection(
      store().write({ ...receiptWith(environment, "pr-2", ["v3"]), revision: 2 }, stale),
    );
    expect(err.code).toBe("CONCURRENT_MODIFICATION");

    const read = await store().read(at(environment, "pr-2"));
    expect(read.etag).toBe(current);
    expect(read.receipt).toMatchObject({ revision: 1, ledger: [{ key: "v2" }] });
  });

  it("an update of a receipt that does not exist is refused, and nothing is created", async () => {
    const environment = freshEnvironment();
    const elsewhere = await store().write(receiptWith(environment, "pr-8", []), null);
    const err = await rejection(store().write(receiptWith(environment, "pr-9", ["x"]), elsewhere));
    expect(err.code).toBe("CONCURRENT_MODIFICATION");
    expect((await store().read(at(environment, "pr-9"))).etag).toBeNull();
  });

  it("two writers read the same etag: the first write wins, the second gets CONCURRENT_MODIFICATION", async () => {
    const environment = freshEnvironment();
    await store().write(receiptWith(environment, "pr-3", ["base"]), null);
    const a = await store().read(at(environment, "pr-3"));
    const b = await store().read(at(environment, "pr-3"));
    expect(a.etag).toBe(b.etag);

    const winner = await store().write(
      {
        ...a.receipt,
        revision: 1,
        ledger: [...a.receipt.ledger, ...receiptWith(environment, "pr-3", ["from-a"]).ledger],
      },
      a.etag,
    );
    const err = await rejection(
      store().write(
        { ...b.receipt, revision: 1, ledger: receiptWith(environment, "pr-3", ["from-b"]).ledger },
        b.etag,
      ),
    );
    expect(err.code).toBe("CONCURRENT_MODIFICATION");

    const read = await store().read(at(environment, "pr-3"));
    expect(read.etag).toBe(winner);
    expect(read.receipt.ledger.map((e) => e.key)).toEqual(["base", "from-a"]);
  });

  it("two creators race for an absent receipt: exactly one create succeeds", async () => {
    const environment = freshEnvironment();
    const outcomes = await Promise.allSettled([
      store().write(receiptWith(environment, "pr-4", ["from-a"]), null),
      store().write(receiptWith(environment, "pr-4", ["from-b"]), null),
    ]);
    const won = outcomes.filter((o) => o.status === "fulfilled");
    const lost = outcomes.filter((o) => o.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]?.status === "rejected" && lost[0].reason.code).toBe("CONCURRENT_MODIFICATION");
    const stored = (await store().read(at(environment, "pr-4"))).receipt.ledger.map((e) => e.key);
    expect(stored).toHaveLength(1);
  });
});
