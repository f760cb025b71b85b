/**
 * The Durable Object classes wrangler binds, built with what they take from the Worker: the lock
 * layer (durable-objects/) imports nothing from workers/, so the notifications transport and the
 * service-token deny list come in through their constructors here, the one place they are wired.
 * Both entries (workers/index.ts, dev/entry/index.ts) export these.
 */
import { LeaseLock as LeaseLockObject } from "../../durable-objects/lease-lock";
import { LockFeed as LockFeedObject } from "../../durable-objects/lock-feed";
import type { Env } from "../../shared/env";
import { revokedAmong } from "../auth/revoked-tokens";
import { notify } from "../notify/notify";

export class LeaseLock extends LeaseLockObject {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, { notify });
  }
}

export class LockFeed extends LockFeedObject {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, { revokedAmong });
  }
}
