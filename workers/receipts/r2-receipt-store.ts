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
 * Migration: receipts written before scopes carried a repository live at
 * `receipts/<environment>/<scope>.json`. When the store is told which repository they belong to
 * (exactly one configured: `legacyRepositoryId`), a read that finds no current key reads the legacy
 * one, and the next write creates the current key (If-None-Match: *, so two migrating writers
 * cannot both win) and then deletes the legacy key. Once the current key exists it shadows the
 * legacy one everywhere, so a delete that failed half-way loses nothing.
 */
import { SponsonError } from "../../shared/errors";
import { emptyReceipt, type Receipt, receiptSchema } from "../../shared/schemas/receipt";
import { repositoryRefById } from "../../shared/schemas/repository";
import {
  legacyReceiptKey,
  parseLegacyReceiptKey,
  parseReceiptKey,
  RECEIPTS_PREFIX,
  type ReceiptAddress,
  receiptKey,
  receiptPrefix,
} from "./layout";
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

/** Marks a version read from a legacy key: the next write moves the receipt (R2 etags are hex). */
const LEGACY_ETAG = "legacy:";

export interface R2ReceiptStoreOptions {
  /** Keys asked for per list() page (1–1000); small in tests to exercise the cursor. */
  listPageSize?: number;
  now?: () => number;
  /** The repository receipts at pre-repository keys belong to; unset: they are never read. */
  legacyRepositoryId?: number;
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
  readonly #legacyId: number | undefined;

  constructor(bucket: R2Bucket, options: R2ReceiptStoreOptions = {}) {
    this.#bucket = bucket;
    this.#pageSize = Math.min(Math.max(Math.trunc(options.listPageSize ?? MAX_LIST_PAGE), 1), MAX_LIST_PAGE);
    this.#now = options.now ?? Date.now;
    this.#legacyId = options.legacyRepositoryId;
  }

  async read(address: ScopeAddress): Promise<StoredReceipt> {
    const { repository, environment, scope } = address;
    const key = receiptKey(repository.id, environment, scope);
    const object = await this.#bucket.get(key);
    if (object === null && repository.id === this.#legacyId) {
      const legacy = await this.#readLegacy(address);
      if (legacy !== null) return legacy;
    }
    if (object === null || isTombstone(object.customMetadata)) {
      return { receipt: emptyReceipt(repository, environment, scope), etag: null };
    }
    return { receipt: parseReceiptBody(key, await object.text(), address), etag: object.etag };
  }

  async #readLegacy(address: ScopeAddress): Promise<StoredReceipt | null> {
    const key = legacyReceiptKey(address.environment, address.scope);
    const object = await this.#bucket.get(key);
    if (object === null || isTombstone(object.customMetadata)) return null;
    return {
      receipt: parseReceiptBody(key, await object.text(), address),
      etag: `${LEGACY_ETAG}${object.etag}`,
    };
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
    if (etag?.startsWith(LEGACY_ETAG)) {
      return this.#migrate(key, body, options, checked.data, etag.slice(LEGACY_ETAG.length));
    }
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

  /** A receipt read from its legacy key is written to its current key, then the legacy key goes. */
  async #migrate(
    key: string,
    body: string,
    options: PutOptions,
    receipt: Receipt,
    legacyEtag: string,
  ): Promise<string> {
    const { environment, scope } = receipt;
    const legacyKey = legacyReceiptKey(environment, scope);
    const legacy = await this.#bucket.head(legacyKey);
    if (legacy === null || legacy.etag !== legacyEtag) throw concurrentModification(environment, scope);
    // Only one writer creates the current key; a second one that read the same legacy version fails here.
    const created = await this.#bucket.put(key, body, { ...options, onlyIf: { etagDoesNotMatch: "*" } });
    if (created === null) throw concurrentModification(environment, scope);
    await this.#bucket.delete(legacyKey);
    return created.etag;
  }

  async remove(address: ScopeAddress, etag: string): Promise<void> {
    const { repository, environment, scope } = address;
    const legacy = etag.startsWith(LEGACY_ETAG);
    const key = legacy ? legacyReceiptKey(environment, scope) : receiptKey(repository.id, environment, scope);
    const now = this.#now();
    const tombstone = await this.#bucket.put(key, tombstoneBody(environment, scope, now), {
      httpMetadata: { contentType: "application/json" },
      customMetadata: tombstoneMetadata(now),
      onlyIf: { etagMatches: legacy ? etag.slice(LEGACY_ETAG.length) : etag },
    });
    if (tombstone === null) throw concurrentModification(environment, scope);
  }

  async listScopes(filter: ScopeFilter = {}): Promise<ScopeSummary[]> {
    const { repositoryId, environment } = filter;
    const legacyId = this.#legacyId;
    const withLegacy = legacyId !== undefined && (repositoryId === undefined || repositoryId === legacyId);
    const prefix = withLegacy ? RECEIPTS_PREFIX : receiptPrefix(repositoryId, environment);
    const scopes: ScopeSummary[] = [];
    /** `environment/scope` of the legacy repository that have a current key (live or tombstone). */
    const moved = new Set<string>();
    const legacy: Array<{ object: R2Object; address: ReceiptAddress }> = [];
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
        const current = parseReceiptKey(object.key);
        if (current !== null) {
          if (repositoryId !== undefined && current.repositoryId !== repositoryId) continue;
          if (environment !== undefined && current.environment !== environment) continue;
          if (current.repositoryId === legacyId) moved.add(`${current.environment}/${current.scope}`);
          const summary = await this.#summarize(object, current);
          if (summary !== null) scopes.push(summary);
          continue;
        }
        const old = withLegacy ? parseLegacyReceiptKey(object.key) : null;
        if (old === null || legacyId === undefined) continue;
        if (environment !== undefined && old.environment !== environment) continue;
        legacy.push({ object, address: { repositoryId: legacyId, ...old } });
      }
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor !== undefined);
    for (const { object, address } of legacy) {
      if (moved.has(`${address.environment}/${address.scope}`)) continue;
      const summary = await this.#summarize(object, address);
      if (summary !== null) scopes.push(summary);
    }
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
  return { ...parsed.data, repository: { id: address.repository.id, name: address.repository.name } };
}
