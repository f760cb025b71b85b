/**
 * The upgrade's move of receipts written before 0.2.0 (before scopes carried a repository) to the
 * repository-keyed layout (docs/upgrading.md, "Scopes per repository"; deleted in 0.4.0). Exactly
 * what a run's read-and-migrate did before 0.3.0, as a pass of its own: only with exactly one
 * repository configured, whose they then are; for each `receipts/<environment>/<scope>.json`, under
 * that scope's lease (taken without waiting: a busy scope is left for the next pass), create the
 * repository-keyed receipt only if none exists (If-None-Match: *), then delete the old key. A
 * repository-keyed receipt that exists, even a tombstone, is the scope's and hides the old key,
 * which is left as it is and reported (`shadowed`); so is a delete that failed after the create.
 * A tombstone at an old key (a scope destroyed before the move) has nothing to move. Each pass
 * takes its turn of the keys (./upgrade-turn.ts).
 */
import { SponsonError } from "../../shared/errors";
import { scopeLockKey } from "../../shared/lock-keys";
import { type Receipt, receiptSchema } from "../../shared/schemas/receipt";
import type { RepositoryConfig } from "../../shared/schemas/repository";
import { ScopeLease } from "../locks/scope-lock";
import { receiptKey } from "../receipts/layout";
import { isTombstone, receiptMetadata } from "../receipts/object-metadata";
import { legacyRepository } from "../repositories/configured";
import { type LegacyAddress, listLegacyReceiptKeys, parseLegacyReceiptKey } from "./legacy-receipt-keys";
import type { UpgradeDeps } from "./upgrade-deps";
import { failureOf, type ReceiptsReport, upgradeHolder } from "./upgrade-report";
import { turnOf } from "./upgrade-turn";

type MoveOutcome = "moved" | "shadowed" | "busy" | "nothing";

/**
 * This pass's turn of the keys (after `after`, at most `budget`): what it did, the part's next
 * mark, and how many scopes it took (spent from the pass's budget).
 */
export async function moveLegacyReceipts(
  deps: UpgradeDeps,
  after: string | null,
  budget: number,
): Promise<{ report: ReceiptsReport; mark: string | null; taken: number }> {
  const report: ReceiptsReport = { moved: [], shadowed: [], busy: [], failed: [], notMoved: [], left: 0 };
  const keys = await listLegacyReceiptKeys(deps.bucket);
  const repository = legacyRepository(deps.repositories);
  if (repository === undefined) {
    // Nothing is guessed, so nothing is spent: every key waits for an operator.
    report.notMoved = keys;
    return { report, mark: null, taken: 0 };
  }
  const turn = turnOf(keys, after, budget);
  report.left = turn.left;
  for (const key of turn.take) {
    const address = parseLegacyReceiptKey(key) as LegacyAddress;
    const to = receiptKey(repository.id, address.environment, address.scope);
    try {
      const outcome = await moveOne(deps, repository, { key, to, address });
      if (outcome === "moved") report.moved.push({ from: key, to });
      else if (outcome === "shadowed") report.shadowed.push({ key, receipt: to });
      else if (outcome === "busy") report.busy.push(key);
    } catch (err) {
      report.failed.push({ key, ...failureOf(err) });
    }
  }
  return { report, mark: turn.mark, taken: turn.take.length };
}

async function moveOne(
  deps: UpgradeDeps,
  repository: RepositoryConfig,
  { key, to, address }: { key: string; to: string; address: LegacyAddress },
): Promise<MoveOutcome> {
  // Checked before any lease: a repository-keyed receipt, once written, is never deleted.
  if ((await deps.bucket.head(to)) !== null) return "shadowed";
  const holder = upgradeHolder(deps.now());
  let lease: ScopeLease;
  try {
    const lock = deps.lock(scopeLockKey(repository.id, address.environment, address.scope));
    lease = await ScopeLease.acquire(lock, holder, deps.lease);
  } catch (err) {
    if (err instanceof SponsonError && err.code === "LOCK_HELD") return "busy";
    throw err;
  }
  let moved: string | null = null;
  try {
    const object = await deps.bucket.get(key);
    if (object === null || isTombstone(object.customMetadata)) return "nothing";
    const old = parseLegacyBody(key, await object.text(), { ...address, repositoryId: repository.id });
    const receipt: Receipt = {
      ...old,
      repository: { id: repository.id, name: repository.name },
      revision: old.revision + 1,
    };
    lease.assertHeld();
    const created = await deps.bucket.put(to, JSON.stringify(receipt), {
      httpMetadata: { contentType: "application/json" },
      customMetadata: receiptMetadata(receipt, deps.now()),
      onlyIf: { etagDoesNotMatch: "*" },
    });
    if (created === null) return "shadowed";
    moved = created.etag;
    await deps.bucket.delete(key);
    return "moved";
  } finally {
    // The next run of the scope takes the receipt this pass wrote without reading it again.
    await lease.release(moved);
  }
}

/**
 * A receipt body as written before 0.2.0: valid, and naming the scope its key names and no other
 * repository (else INTERNAL, and the key is left as it is).
 */
function parseLegacyBody(
  key: string,
  text: string,
  address: LegacyAddress & { repositoryId: number },
): Receipt {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SponsonError("INTERNAL", `receipt ${key} is not valid JSON`, { key });
  }
  const parsed = receiptSchema.safeParse(json);
  if (!parsed.success) {
    throw new SponsonError("INTERNAL", `receipt ${key} does not match the receipt schema`, { key });
  }
  const { environment, scope, repository } = parsed.data;
  const otherRepository = repository !== undefined && repository.id !== address.repositoryId;
  if (environment !== address.environment || scope !== address.scope || otherRepository) {
    throw new SponsonError("INTERNAL", `receipt ${key} names another scope`, { key });
  }
  return parsed.data;
}
