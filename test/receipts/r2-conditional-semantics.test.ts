/**
 * What the embedded R2 really does with `onlyIf` (docs/storage.md, "Receipts (R2)": local emulations have had
 * bugs, e.g. an inverted `etagMatches: "*"`). R2ReceiptStore relies on exactly these answers; if a runtime
 * upgrade changes one of them, this file fails before the store silently overwrites a receipt.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const bucket = () => env.RECEIPTS;
const freshKey = () => `probe/${crypto.randomUUID()}.json`;

describe("R2 onlyIf in the embedded runtime", () => {
  it('etagDoesNotMatch "*" creates an absent key', async () => {
    const key = freshKey();
    const created = await bucket().put(key, "first", { onlyIf: { etagDoesNotMatch: "*" } });
    expect(created?.etag).toEqual(expect.any(String));
    expect(await (await bucket().get(key))?.text()).toBe("first");
  });

  it('etagDoesNotMatch "*" refuses (null, no throw) when the key exists, and keeps the object', async () => {
    const key = freshKey();
    await bucket().put(key, "first");
    const refused = await bucket().put(key, "second", { onlyIf: { etagDoesNotMatch: "*" } });
    expect(refused).toBeNull();
    expect(await (await bucket().get(key))?.text()).toBe("first");
  });

  it("If-None-Match: * given as Headers behaves the same way", async () => {
    const key = freshKey();
    const ifAbsent = () => new Headers({ "If-None-Match": "*" });
    expect(await bucket().put(key, "first", { onlyIf: ifAbsent() })).not.toBeNull();
    expect(await bucket().put(key, "second", { onlyIf: ifAbsent() })).toBeNull();
    expect(await (await bucket().get(key))?.text()).toBe("first");
  });

  it('etagMatches "*" is not "only if absent": it refuses an absent key and accepts an existing one', async () => {
    const key = freshKey();
    expect(await bucket().put(key, "first", { onlyIf: { etagMatches: "*" } })).toBeNull();
    expect(await bucket().head(key)).toBeNull();
    await bucket().put(key, "first");
    expect(await bucket().put(key, "second", { onlyIf: { etagMatches: "*" } })).not.toBeNull();
  });

  it("etagMatches with the current etag updates; with a stale etag it refuses and keeps the object", async () => {
    const key = freshKey();
    const v1 = await bucket().put(key, "v1");
    const v2 = await bucket().put(key, "v2", { onlyIf: { etagMatches: v1?.etag ?? "" } });
    expect(v2?.etag).toEqual(expect.any(String));
    expect(v2?.etag).not.toBe(v1?.etag);
    expect(await bucket().put(key, "v3", { onlyIf: { etagMatches: v1?.etag ?? "" } })).toBeNull();
    expect(await (await bucket().get(key))?.text()).toBe("v2");
  });

  it("etagMatches refuses an absent key", async () => {
    const key = freshKey();
    const v1 = await bucket().put(freshKey(), "elsewhere");
    expect(await bucket().put(key, "v1", { onlyIf: { etagMatches: v1?.etag ?? "" } })).toBeNull();
    expect(await bucket().head(key)).toBeNull();
  });

  it("the etag comes from the content: the same bytes written twice get the same etag", async () => {
    const key = freshKey();
    const a = await bucket().put(key, "same");
    const b = await bucket().put(key, "same");
    expect(b?.etag).toBe(a?.etag);
  });
});
