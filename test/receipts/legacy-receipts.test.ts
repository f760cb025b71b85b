/**
 * Receipts written before scopes carried a repository live at receipts/<environment>/<scope>.json.
 * With exactly one repository configured they are that repository's: read when the current key is
 * absent, moved by the next write. With several, nothing is guessed.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { legacyReceiptKey, receiptKey } from "../../workers/receipts/layout";
import { call, testApp } from "../helpers/app";
import { at, freshEnvironment, receiptWith, rejection, store, TEST_REPO } from "./helpers";

/** A receipt as the version before repositories wrote it: no `repository`, at the legacy key. */
async function putLegacy(environment: string, scope: string, keys: string[]) {
  const { repository: _dropped, ...legacy } = receiptWith(environment, scope, keys);
  await env.RECEIPTS.put(legacyReceiptKey(environment, scope), JSON.stringify(legacy));
}

const migrating = () => store({ legacyRepositoryId: TEST_REPO.id });

describe("legacy receipts (before scopes carried a repository)", () => {
  it("with one repository configured, a legacy receipt is read as that repository's", async () => {
    const environment = freshEnvironment();
    await putLegacy(environment, "pr-5", ["https://pr-5.example.com/cb"]);
    const { receipt, etag } = await migrating().read(at(environment, "pr-5"));
    expect(etag).not.toBeNull();
    expect(receipt.ledger.map((e) => e.key)).toEqual(["https://pr-5.example.com/cb"]);
    expect(receipt.repository).toEqual(TEST_REPO);
  });

  it("the next save writes the current key and deletes the legacy one", async () => {
    const environment = freshEnvironment();
    await putLegacy(environment, "pr-6", ["a"]);
    const read = await migrating().read(at(environment, "pr-6"));
    const etag = await migrating().write({ ...read.receipt, revision: read.receipt.revision + 1 }, read.etag);
    expect(await env.RECEIPTS.head(legacyReceiptKey(environment, "pr-6"))).toBeNull();
    const current = await env.RECEIPTS.get(receiptKey(TEST_REPO.id, environment, "pr-6"));
    expect(current?.etag).toBe(etag);
    expect(JSON.parse((await current?.text()) ?? "{}")).toMatchObject({
      repository: TEST_REPO,
      ledger: [expect.objectContaining({ key: "a" })],
    });
    // From now on the current key is the receipt, also for a store that reads no legacy keys.
    expect((await store().read(at(environment, "pr-6"))).etag).toBe(etag);
  });

  it("two writers that read the same legacy receipt: one moves it, the other is refused", async () => {
    const environment = freshEnvironment();
    await putLegacy(environment, "pr-7", ["a"]);
    const first = await migrating().read(at(environment, "pr-7"));
    const second = await migrating().read(at(environment, "pr-7"));
    await migrating().write({ ...first.receipt, ledger: [] }, first.etag);
    const err = await rejection(migrating().write({ ...second.receipt, runs: [] }, second.etag));
    expect(err.code).toBe("CONCURRENT_MODIFICATION");
    expect((await store().read(at(environment, "pr-7"))).receipt.ledger).toEqual([]);
  });

  it("a legacy receipt removed (destroy of a scope that owns nothing) reads as absent", async () => {
    const environment = freshEnvironment();
    await putLegacy(environment, "pr-8", []);
    const read = await migrating().read(at(environment, "pr-8"));
    await migrating().remove(at(environment, "pr-8"), read.etag ?? "");
    expect((await migrating().read(at(environment, "pr-8"))).etag).toBeNull();
    expect(await migrating().listScopes({ environment })).toEqual([]);
  });

  it("listing yields a legacy receipt under the configured repository, once, also after it moved", async () => {
    const environment = freshEnvironment();
    await putLegacy(environment, "pr-9", ["a", "b"]);
    expect(await migrating().listScopes({ environment })).toMatchObject([
      { repositoryId: TEST_REPO.id, environment, scope: "pr-9", entries: 2 },
    ]);
    const read = await migrating().read(at(environment, "pr-9"));
    await migrating().write(read.receipt, read.etag);
    // A legacy key left behind by a delete that failed half-way is shadowed by the current key.
    await putLegacy(environment, "pr-9", ["stale"]);
    expect(await migrating().listScopes({ environment })).toMatchObject([
      { repositoryId: TEST_REPO.id, scope: "pr-9", entries: 2 },
    ]);
    expect((await migrating().read(at(environment, "pr-9"))).receipt.ledger.map((e) => e.key)).toEqual([
      "a",
      "b",
    ]);
  });

  it("without a single configured repository, a legacy receipt is not guessed at", async () => {
    const environment = freshEnvironment();
    await putLegacy(environment, "pr-10", ["a"]);
    expect((await store().read(at(environment, "pr-10"))).etag).toBeNull();
    expect(await store().listScopes({ environment })).toEqual([]);
    // Nor is it attributed to another repository than the one configured.
    const other = { id: TEST_REPO.id + 1, name: "other/repo" };
    const read = await migrating().read({ repository: other, environment, scope: "pr-10" });
    expect(read.etag).toBeNull();
    expect(await env.RECEIPTS.head(legacyReceiptKey(environment, "pr-10"))).not.toBeNull();
  });

  it("over HTTP: the single configured repository's ledger shows a legacy receipt; with two configured it does not", async () => {
    const environment = freshEnvironment();
    await putLegacy(environment, "pr-11", ["https://pr-11.example.com/"]);
    const app = testApp();
    const one = await call(app, "GET", `/v1/scopes/${environment}/pr-11/ledger`);
    expect(one.status).toBe(200);
    expect(await one.json()).toMatchObject({
      repository: TEST_REPO,
      ledger: [{ key: "https://pr-11.example.com/" }],
    });

    const twoRepositories = {
      ...env,
      SPONSON_REPOSITORIES: JSON.stringify([TEST_REPO, { name: "other/repo", id: TEST_REPO.id + 1 }]),
    } as typeof env;
    const two = await call(
      app,
      "GET",
      `/v1/scopes/${environment}/pr-11/ledger?repository=${TEST_REPO.name}`,
      undefined,
      {},
      twoRepositories,
    );
    expect(two.status).toBe(200);
    expect(await two.json()).toMatchObject({ repository: TEST_REPO, ledger: [] });
  });
});
