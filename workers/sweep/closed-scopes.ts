/**
 * Scopes whose pull request is closed but whose ledger still owns entries: a destroy that never
 * ran (a lost enqueue, a parked dead letter) or failed. A close whose destroys were never confirmed
 * enqueued (the receiver died, or the queue refused the batch) has its destroys sent here, since
 * GitHub does not redeliver (docs/design.md, "Webhooks and the sweep"); the rest is reported, and
 * the dead-letter re-drive acts on parked destroys.
 */
import type { Env } from "../../shared/env";
import { repositoryRefById } from "../../shared/schemas/repository";
import { configFromEnv } from "../config/config";
import { type ScopeStateClient, scopeStateClient } from "../scope-state/scope-state-client";
import { enqueueDestroys } from "../webhooks/enqueue-destroys";

export interface ScopeRef {
  repositoryId: number;
  environment: string;
  scope: string;
}

export interface ClosedScopeWithEntries extends ScopeRef {
  revision: number;
  /** Its close's destroys were never confirmed enqueued: this sweep sent them. */
  destroysResent?: true;
}

interface ScopeCheck {
  status: string;
  revision: number;
  resent: boolean;
}

export async function closedScopesWithEntries(
  env: Env,
  owning: ScopeRef[],
): Promise<ClosedScopeWithEntries[]> {
  const checks = new Map<string, Promise<ScopeCheck>>();
  const found: ClosedScopeWithEntries[] = [];
  for (const ref of owning) {
    // One check per repository's scope: its state object is shared by every environment, and one
    // re-send queues the destroy of every environment.
    const name = `${ref.repositoryId}/${ref.scope}`;
    let check = checks.get(name);
    if (check === undefined) {
      check = checkScope(env, scopeStateClient(env, ref.repositoryId, ref.scope));
      checks.set(name, check);
    }
    const { status, revision, resent } = await check;
    if (status !== "closed") continue;
    found.push(resent ? { ...ref, revision, destroysResent: true } : { ...ref, revision });
  }
  return found;
}

async function checkScope(env: Env, client: ScopeStateClient): Promise<ScopeCheck> {
  const { status, revision } = await client.read();
  if (status !== "closed") return { status, revision, resent: false };
  const close = await client.unconfirmedClose();
  if (close === null) return { status, revision, resent: false };
  const repository = repositoryRefById(client.repositoryId, configFromEnv(env).repositories);
  // The same messages the receiver sends, confirmed the same way; a destroy is idempotent, so a
  // crash between the send and the confirmation only sends it once more.
  await enqueueDestroys(env, repository, client, close);
  return { status, revision, resent: true };
}
