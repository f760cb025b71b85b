/**
 * Scopes whose scope lock keeps intents no receipt holds (docs/storage.md, "R2 pending-intents
 * index"; upgrading only: locks of a version before 0.2.0 kept intents): the index names them, each
 * lock's own object says what it keeps. The sweep recovers them even when no run of the scope ever
 * comes again.
 */
import type { Env } from "../../shared/env";
import { lockKeyFromPendingIndex, PENDING_INTENTS_INDEX_PREFIX } from "../../shared/lock-index";
import { parseLockKey } from "../../shared/lock-keys";
import type { Intent } from "../../shared/schemas/receipt";
import { lockStub } from "./lock-target";

const LIST_PAGE = 1000;

export interface PendingScope {
  repositoryId: number;
  environment: string;
  scope: string;
}

export async function listPendingScopes(env: Env): Promise<PendingScope[]> {
  const scopes: PendingScope[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.RECEIPTS.list({ prefix: PENDING_INTENTS_INDEX_PREFIX, limit: LIST_PAGE, cursor });
    for (const object of page.objects) {
      const parsed = parseLockKey(lockKeyFromPendingIndex(object.key));
      if (parsed?.kind === "scope") {
        scopes.push({
          repositoryId: parsed.repositoryId,
          environment: parsed.environment,
          scope: parsed.scope,
        });
      }
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return scopes;
}

/** What one scope's lock keeps (read-only; no lease). */
export function pendingIntentsOf(env: Env, key: string): Promise<Intent[]> {
  return lockStub(env, key).pendingIntents({ key });
}
