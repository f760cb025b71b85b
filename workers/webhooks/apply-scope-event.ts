/**
 * Hands one scope event to the scope-state object (dedupe + revision guard) and, when a close
 * took effect, queues its destroys. What it returns is the webhook's 200 body.
 */

import type { Env } from "../../shared/env";
import { type ScopeEvent, scopeStateClient } from "../scope-state/scope-state-client";
import { enqueueDestroys } from "./enqueue-destroys";

export async function applyScopeEvent(env: Env, scope: string, event: ScopeEvent) {
  const client = scopeStateClient(env, scope);
  const outcome = await client.applyEvent(event);
  const { status, revision } = outcome.state;
  switch (outcome.kind) {
    case "duplicate": {
      // The first attempt stored the close but may have died before its destroys were queued.
      const destroysEnqueued = outcome.enqueuePending ? await enqueueDestroys(env, client, event) : 0;
      return { duplicate: true, status, revision, destroysEnqueued };
    }
    case "ignored":
      return { applied: false, reason: outcome.reason, status, revision, destroysEnqueued: 0 };
    case "applied": {
      const destroysEnqueued = event.status === "closed" ? await enqueueDestroys(env, client, event) : 0;
      return { applied: true, status, revision, destroysEnqueued };
    }
  }
}
