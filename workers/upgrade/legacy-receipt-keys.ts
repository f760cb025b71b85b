/**
 * Where receipts written before 0.2.0 (before scopes carried a repository) live:
 * `receipts/<environment>/<scope>.json`. An environment starts with a letter and a repository id
 * with a digit, so this layout and the repository-keyed one (workers/receipts/layout.ts) never read
 * as each other. Upgrading only: deleted in 0.4.0 with the rest of workers/upgrade/.
 */
import { SponsonError } from "../../shared/errors";
import { isValidEnvironment, isValidScope } from "../../shared/lock-keys";
import { RECEIPTS_PREFIX } from "../receipts/layout";
import { isTombstone } from "../receipts/object-metadata";

const SUFFIX = ".json";

export interface LegacyAddress {
  environment: string;
  scope: string;
}

export function legacyReceiptKey(environment: string, scope: string): string {
  if (!isValidEnvironment(environment) || !isValidScope(scope)) {
    throw new SponsonError("VALIDATION", `${environment}/${scope} is not an environment and a scope`);
  }
  return `${RECEIPTS_PREFIX}${environment}/${scope}${SUFFIX}`;
}

/** A legacy key's environment and scope, or null (a repository-keyed key is never a legacy one). */
export function parseLegacyReceiptKey(key: string): LegacyAddress | null {
  if (!key.startsWith(RECEIPTS_PREFIX) || !key.endsWith(SUFFIX)) return null;
  const path = key.slice(RECEIPTS_PREFIX.length, -SUFFIX.length);
  const slash = path.indexOf("/");
  if (slash <= 0) return null;
  const environment = path.slice(0, slash);
  const scope = path.slice(slash + 1);
  if (!isValidEnvironment(environment) || !isValidScope(scope)) return null;
  return { environment, scope };
}

/**
 * Every legacy key in the bucket that holds a receipt (a tombstone there, a scope destroyed before
 * its receipt moved, holds nothing to move). The first level under `receipts/` is listed with a
 * delimiter, so only the environments' folders are walked, never a repository's: once nothing is
 * left to move, the pass costs one list call.
 */
export async function listLegacyReceiptKeys(bucket: R2Bucket): Promise<string[]> {
  const folders: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: RECEIPTS_PREFIX, delimiter: "/", cursor });
    for (const prefix of page.delimitedPrefixes) {
      const segment = prefix.slice(RECEIPTS_PREFIX.length, -1);
      if (isValidEnvironment(segment)) folders.push(prefix);
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  const keys: string[] = [];
  for (const folder of folders) {
    let next: string | undefined;
    do {
      const page = await bucket.list({ prefix: folder, cursor: next, include: ["customMetadata"] });
      for (const object of page.objects) {
        if (parseLegacyReceiptKey(object.key) !== null && !isTombstone(object.customMetadata))
          keys.push(object.key);
      }
      next = page.truncated ? page.cursor : undefined;
    } while (next);
  }
  return keys;
}
