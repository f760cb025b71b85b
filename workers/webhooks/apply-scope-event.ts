/**
 * Hands one scope event to the scope-state object (dedupe + revision guard) and, when a close
 * took effect, queues its destroys. What it returns is the webhook's 200 body.
 */

import type { Env } from "../../shared/env";
import type { RepositoryRef } from "../../shared/schemas/repository";
import { type ScopeEvent, scopeStateClient } from "../scope-state/scope-state-client";
import { enqueueDestroys } from "./enqueue-destroys";

/** The scope is the repository's own: another repository's pull request of the same number is untouched. */
export async function applyScopeEvent(env: Env, repository: RepositoryRef, scope: string, event: ScopeEvent) {
  const client = scopeStateClient(env, repository.id, scope);
  const outcome = await client.applyEvent(event);
  const { status, revision } = outcome.state;
  switch (outcome.kind) {
    case "duplicate": {
      // The first attempt stored the close but may have died before its destroys were queued.
      const destroysEnqueued = outcome.enqueuePending
        ? await enqueueDestroys(env, repository, client, event)
        : 0;
      return { duplicate: true, status, revision, destroysEnqueued };
    }
    case "ignored":
      return { applied: false, reason: outcome.reason, status, revision, destroysEnqueued: 0 };
    case "applied": {
      const destroysEnqueued =
        event.status === "closed" ? await enqueueDestroys(env, repository, client, event) : 0;
      return { applied: true, status, revision, destroysEnqueued };
    }
  }
}
