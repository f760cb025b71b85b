import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { receiptKey } from "../../workers/receipts/layout";
import { at, freshEnvironment, receiptWith, rejection, store, TEST_REPO } from "./helpers";

describe("a receipt that cannot be read back", () => {
  it("is not JSON: INTERNAL naming the key, and a write over it is still conditional", async () => {
    const environment = freshEnvironment();
    const key = receiptKey(TEST_REPO.id, environment, "pr-4");
    await env.RECEIPTS.put(key, "{ not json");
    const err = await rejection(store().read(at(environment, "pr-4")));
    expect(err.code).toBe("INTERNAL");
    expect(err.message).toContain(key);
    expect(err.detail).toMatchObject({ key });
    // Nobody can clobber it with a create: the bytes stay for an operator to inspect.
    const create = await rejection(store().write(receiptWith(environment, "pr-4", []), null));
    expect(create.code).toBe("CONCURRENT_MODIFICATION");
    expect(await (await env.RECEIPTS.get(key))?.text()).toBe("{ not json");
  });

  it("is JSON but not a receipt: INTERNAL naming the key and the failing field", async () => {
    const environment = freshEnvironment();
    const key = receiptKey(TEST_REPO.id, environment, "pr-5");
    await env.RECEIPTS.put(key, JSON.stringify({ ...receiptWith(environment, "pr-5", []), ledger: "oops" }));
    const err = await rejection(store().read(at(environment, "pr-5")));
    expect(err.code).toBe("INTERNAL");
    expect(err.message).toContain(key);
    expect(String(err.detail?.issues)).toContain("ledger");
  });

  it("names another scope than its key: INTERNAL, never handed out as this scope's receipt", async () => {
    const environment = freshEnvironment();
    await env.RECEIPTS.put(
      receiptKey(TEST_REPO.id, environment, "pr-6"),
      JSON.stringify(receiptWith(environment, "pr-60", ["x"])),
    );
    const err = await rejection(store().read(at(environment, "pr-6")));
    expect(err.code).toBe("INTERNAL");
    expect(err.detail).toMatchObject({ found: `${TEST_REPO.id}/${environment}/pr-60` });
  });

  it("names another repository than its key: INTERNAL, never handed out as this repository's receipt", async () => {
    const environment = freshEnvironment();
    const other = { id: TEST_REPO.id + 1, name: "someone/else" };
    await env.RECEIPTS.put(
      receiptKey(TEST_REPO.id, environment, "pr-5"),
      JSON.stringify({ ...receiptWith(environment, "pr-5", ["x"]), repository: other }),
    );
    const err = await rejection(store().read(at(environment, "pr-5")));
    expect(err.code).toBe("INTERNAL");
    expect(err.detail).toMatchObject({ found: `${other.id}/${environment}/pr-5` });
  });
});
