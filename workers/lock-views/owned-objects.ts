/**
 * The owned-object index and audit trail in R2 (docs/storage.md): which parent locks keep
 * ownership (each writes its own entry once), what each knows (read from the lock itself), and
 * the record of every orphan an admin removed: its intent before the removal, then its outcome
 * (workers/audit/audit-intent.ts).
 */
import { z } from "zod";
import { canonicalIdentity } from "../../shared/canonical-identity";
import type { Env } from "../../shared/env";
import { OWNED_INDEX_PREFIX } from "../../shared/lock-index";
import { parentLockKey } from "../../shared/lock-keys";
import type { SecretRegistry } from "../../shared/secrets";
import { writeCompletion, writeIntent } from "../audit/audit-intent";
import type { OrphanRemovalAudit } from "../audit/orphan-audit";
import type { OwnedObjects } from "../engine/deps";
import { lockStub } from "../locks/lock-target";

export const ORPHAN_AUDIT_PREFIX = "audit/orphans/";

/** The intent and its completion share one key: the intent's time first, so keys list in time order. */
const orphanAuditKey = (record: OrphanRemovalAudit) =>
  `${ORPHAN_AUDIT_PREFIX}${record.startedAt ?? record.at}-${record.runId}.json`;

const entrySchema = z.object({ key: z.string(), identity: z.string() });

export function ownedObjectIndex(env: Env, secrets: SecretRegistry): OwnedObjects {
  return {
    async list() {
      const objects: Array<{ key: string; identity: string }> = [];
      let cursor: string | undefined;
      do {
        const page = await env.RECEIPTS.list({ prefix: OWNED_INDEX_PREFIX, ...(cursor ? { cursor } : {}) });
        for (const object of page.objects) {
          const body = await env.RECEIPTS.get(object.key);
          const parsed = entrySchema.safeParse(body ? await body.json() : null);
          if (parsed.success) objects.push(parsed.data);
        }
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor !== undefined);
      return canonicalObjects(objects);
    },
    async read(identity) {
      const key = await parentLockKey(identity, secrets);
      return lockStub(env, key).ownership({ key });
    },
    async recordRemovalIntent(intent: OrphanRemovalAudit) {
      await writeIntent(env.RECEIPTS, orphanAuditKey(intent), intent);
    },
    async recordRemoval(record: OrphanRemovalAudit) {
      return writeCompletion(env.RECEIPTS, orphanAuditKey(record), record);
    },
  };
}

/**
 * Each object once, by its canonical identity (shared/canonical-identity.ts): a lock an earlier
 * version keyed by another spelling of the host indexed itself under it, and is now read as the
 * canonical lock, which holds the object's ownership.
 */
function canonicalObjects(objects: Array<{ key: string; identity: string }>) {
  const byIdentity = new Map<string, { key: string; identity: string }>();
  for (const object of objects) {
    const identity = canonicalIdentity(object.identity);
    if (!byIdentity.has(identity)) byIdentity.set(identity, { key: object.key, identity });
  }
  return [...byIdentity.values()];
}
