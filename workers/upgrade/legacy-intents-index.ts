/**
 * Scope locks that still keep intents a holder of 0.1.x left there (docs/storage.md, "R2
 * pending-intents index"): the index names them, each lock's own object says what it keeps. The
 * upgrade drains them even when no run of the scope ever comes again. Deleted in 0.4.0.
 */
import { LEGACY_INTENTS_INDEX_PREFIX, lockKeyFromLegacyIndex } from "../../shared/lock-index";
import { parseLockKey } from "../../shared/lock-keys";

const LIST_PAGE = 1000;

export interface LegacyIntentsScope {
  /** The scope lock's key, as the index entry names it. */
  key: string;
  repositoryId: number;
  environment: string;
  scope: string;
}

export async function listLegacyIntentScopes(bucket: R2Bucket): Promise<LegacyIntentsScope[]> {
  const scopes: LegacyIntentsScope[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: LEGACY_INTENTS_INDEX_PREFIX, limit: LIST_PAGE, cursor });
    for (const object of page.objects) {
      const key = lockKeyFromLegacyIndex(object.key);
      const parsed = parseLockKey(key);
      if (parsed?.kind === "scope") {
        const { repositoryId, environment, scope } = parsed;
        scopes.push({ key, repositoryId, environment, scope });
      }
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return scopes;
}
