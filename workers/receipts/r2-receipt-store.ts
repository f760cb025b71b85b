/**
 * ReceiptStore over an R2 bucket (docs/design.md, "Storage"). Every write is a conditional put, so a writer
 * that read a receipt can only replace the exact version it read:
 *
 * - update: `onlyIf: { etagMatches: <etag read> }`;
 * - create: `onlyIf: { etagDoesNotMatch: "*" }` (If-None-Match: *) — verified in the embedded
 *   runtime by test/receipts/r2-conditional-semantics.test.ts. Note `etagMatches: "*"` is the
 *   opposite ("only if present"); an emulator once had the two inverted.
 *
 * R2 answers a failed condition with `null`, not an error; we turn it into CONCURRENT_MODIFICATION
 * and never retry blindly: the caller must re-read and decide again.
 *
 * Remove: R2's delete() takes no condition, and "head(), compare, delete()" leaves a window in which
 * another writer's conditional put lands and is then deleted — the lost update this service exists
 * to prevent. So a remove is a conditional put of a *tombstone* over the version the caller read:
 * atomic, refused like any stale write. A tombstone reads as "no receipt" (empty, etag null), is
 * skipped by listScopes, and a create replaces it with a second conditional put on the tombstone's
 * own etag (still atomic: two creators racing over one tombstone → one wins). Tombstones are never
 * deleted by the store, for the same reason; each is a few hundred bytes.
 *
 * Only the repository-keyed layout is read and listed: receipts written before scopes carried a
 * repository are moved to it by the upgrade (workers/upgrade/move-legacy-receipts.ts), never looked
 * for by a run.
 */
import { SponsonError } from "../../shared/errors";
import { emptyReceipt, type Receipt, receiptSchema } from "../../shared/schemas/receipt";
import { repositoryRefById } from "../../shared/schemas/repository";
import { withCanonicalParents } from "./canonical-parents";
import { parseReceiptKey, type ReceiptAddress, receiptKey, receiptPrefix } from "./layout";
import {
  isTombstone,
  parseObjectMetadata,
  receiptMetadata,
  tombstoneBody,
  tombstoneMetadata,
} from "./object-metadata";
import type { ReceiptStore, ScopeAddress, ScopeFilter, ScopeSummary, StoredReceipt } from "./receipt-store";

/** R2 lists at most 1000 keys a page. */
const MAX_LIST_PAGE = 1000;

export interface R2ReceiptStoreOptions {
  /** Keys asked for per list() page (1–1000); small in tests to exercise the cursor. */
  listPageSize?: number;
  now?: () => number;
}

function concurrentModification(environment: string, scope: string): SponsonError {
  return new SponsonError(
    "CONCURRENT_MODIFICATION",
    `receipt ${environment}/${scope} was changed by another writer — re-read and retry`,
    { environment, scope },
  );
}

type PutOptions = R2PutOptions & { customMetadata: Record<string, string> };

export class R2ReceiptStore implements ReceiptStore {
  readonly #bucket: R2Bucket;
  readonly #pageSize: number;
  readonly #now: () => number;

  constructor(bucket: R2Bucket, options: R2ReceiptStoreOptions = {}) {
    this.#bucket = bucket;
    this.#pageSize = Math.min(Math.max(Math.trunc(options.listPageSize ?? MAX_LIST_PAGE), 1), MAX_LIST_PAGE);
    this.#now = options.now ?? Date.now;
  }

  async read(address: ScopeAddress): Promise<StoredReceipt> {
    const { repository, environment, scope } = address;
    const key = receiptKey(repository.id, environment, scope);
    const object = await this.#bucket.get(key);
    if (object === null || isTombstone(object.customMetadata)) {
      return { receipt: emptyReceipt(repository, environment, scope), etag: null };
    }
    return { receipt: parseReceiptBody(key, await object.text(), address), etag: object.etag };
  }

  async write(receipt: Receipt, etag: string | null): Promise<string> {
    const { environment, scope, repository } = receipt;
    if (repository === undefined) {
      throw new SponsonError(
        "INTERNAL",
        `refusing to write receipt ${environment}/${scope} without its repository`,
      );
    }
    const key = receiptKey(repository.id, environment, scope);
    const checked = receiptSchema.safeParse(receipt);
    if (!checked.success) {
      throw new SponsonError("INTERNAL", `refusing to write an invalid receipt to ${key}`, {
        key,
        issues: checked.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`),
      });
    }
    const body = JSON.stringify(checked.data);
    const options: PutOptions = {
      httpMetadata: { contentType: "application/json" },
      customMetadata: receiptMetadata(checked.data, this.#now()),
    };
    if (etag !== null) {
      const written = await this.#bucket.put(key, body, { ...options, onlyIf: { etagMatches: etag } });
      if (written === null) throw concurrentModification(environment, scope);
      return written.etag;
    }
    const created = await this.#bucket.put(key, body, { ...options, onlyIf: { etagDoesNotMatch: "*" } });
    if (created !== null) return created.etag;
    // Something is there. A tombstone counts as absent: replace exactly that tombstone, atomically.
    const existing = await this.#bucket.head(key);
    if (existing === null || !isTombstone(existing.customMetadata)) {
      throw concurrentModification(environment, scope);
    }
    const revived = await this.#bucket.put(key, body, { ...options, onlyIf: { etagMatches: existing.etag } });
    if (revived === null) throw concurrentModification(environment, scope);
    return revived.etag;
  }

  async remove(address: ScopeAddress, etag: string): Promise<void> {
    const { repository, environment, scope } = address;
    const key = receiptKey(repository.id, environment, scope);
    const now = this.#now();
    const tombstone = await this.#bucket.put(key, tombstoneBody(environment, scope, now), {
      httpMetadata: { contentType: "application/json" },
      customMetadata: tombstoneMetadata(now),
      onlyIf: { etagMatches: etag },
    });
    if (tombstone === null) throw concurrentModification(environment, scope);
  }

  async listScopes(filter: ScopeFilter = {}): Promise<ScopeSummary[]> {
    const { repositoryId, environment } = filter;
    const prefix = receiptPrefix(repositoryId, environment);
    const scopes: ScopeSummary[] = [];
    let cursor: string | undefined;
    do {
      // With `include`, R2 may return fewer keys than `limit` on a page that is not the last one:
      // only `truncated` says whether to go on.
      const page = await this.#bucket.list({
        prefix,
        limit: this.#pageSize,
        include: ["customMetadata"],
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const object of page.objects) {
        // Anything else under the prefix (a key of the layout before repositories) is not listed.
        const address = parseReceiptKey(object.key);
        if (address === null) continue;
        if (environment !== undefined && address.environment !== environment) continue;
        const summary = await this.#summarize(object, address);
        if (summary !== null) scopes.push(summary);
      }
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor !== undefined);
    return scopes;
  }

  async #summarize(object: R2Object, address: ReceiptAddress): Promise<ScopeSummary | null> {
    const metadata = parseObjectMetadata(object.customMetadata);
    if (metadata?.kind === "tombstone") return null;
    const uploadedAt = object.uploaded.getTime();
    if (metadata !== null) {
      const parents = metadata.parents === undefined ? {} : { parents: metadata.parents };
      return { ...address, entries: metadata.entries, uploadedAt, ...parents };
    }
    // Written without our metadata (by hand, or by an older version): read the receipt itself.
    const stored = await this.#bucket.get(object.key);
    if (stored === null || isTombstone(stored.customMetadata)) return null;
    const repository = repositoryRefById(address.repositoryId, []);
    const receipt = parseReceiptBody(object.key, await stored.text(), { ...address, repository });
    return { ...address, entries: receipt.ledger.length, uploadedAt };
  }
}

/**
 * A receipt body that is not JSON, not a receipt, or names another scope is an INTERNAL error
 * naming its key. The repository is the one addressed (its configured name, for display).
 */
function parseReceiptBody(key: string, text: string, address: ScopeAddress): Receipt {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SponsonError("INTERNAL", `receipt ${key} is not valid JSON`, { key });
  }
  const parsed = receiptSchema.safeParse(json);
  if (!parsed.success) {
    throw new SponsonError("INTERNAL", `receipt ${key} does not match the receipt schema`, {
      key,
      issues: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`),
    });
  }
  const { environment, scope, repository } = parsed.data;
  if (
    environment !== address.environment ||
    scope !== address.scope ||
    (repository !== undefined && repository.id !== address.repository.id)
  ) {
    throw new SponsonError("INTERNAL", `receipt ${key} names another scope`, {
      key,
      found: `${repository?.id ?? "?"}/${environment}/${scope}`,
    });
  }
  const repositoryRef = { id: address.repository.id, name: address.repository.name };
  return withCanonicalParents({ ...parsed.data, repository: repositoryRef });
}
