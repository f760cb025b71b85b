import type { BudgetBucketApi } from "./rpc/budget-bucket";
import type { LeaseLockApi } from "./rpc/lease-lock";
import type { LockFeedApi } from "./rpc/lock-feed";
import type { ScopeStateApi } from "./rpc/scope-state";
import type { Branded } from "./rpc/stub";
import type { TokenBrokerApi } from "./rpc/token-broker";
import type { QueuedDestroy } from "./schemas/queued-destroy";
import type { QueuedPlatformApply } from "./schemas/queued-platform-apply";

/** A notification as queued (workers/notify/notification.ts validates what is consumed). */
export type QueuedNotification = { id: string; kind: string; at: number; summary: string; subject: object };

/** Bindings of the Worker and its objects (wrangler.toml; the dev entry's: dev/entry/dev-env.ts). */
export interface Env {
  LEASE_LOCK: DurableObjectNamespace<Branded<LeaseLockApi>>;
  RECEIPTS: R2Bucket;
  /** The dashboard's lock feed (durable-objects/lock-feed.ts); lock objects notify it, never await it. */
  LOCK_FEED?: DurableObjectNamespace<Branded<LockFeedApi>>;
  LEASE_TTL_SECONDS?: string;
  WAIT_TIMEOUT_SECONDS?: string;
  SPONSON_RECENT_WRITES_SECONDS?: string;
  /** Read only by the write policy's local fallback (workers/policy/); routes nothing anywhere. */
  EMULATORS?: string;
  /**
   * Scope state (open/closed at a revision), one object per scope name (docs/design.md, "Webhooks and the
   * sweep").
   */
  SCOPE_STATE: DurableObjectNamespace<Branded<ScopeStateApi>>;
  /**
   * Provider access tokens shared by the fleet, one object per connection credential (docs/design.md,
   * "Provider tokens"). Unbound: every isolate buys its own tokens, as before the object existed.
   */
  TOKEN_BROKER?: DurableObjectNamespace<Branded<TokenBrokerApi>>;
  /**
   * Provider management-API budgets shared by the fleet, one object per provider tenant
   * (docs/design.md, "Write budgets"). Unbound: every isolate sends as it goes, and a provider's
   * 429 is met by each one's own retries, as before the object existed.
   */
  BUDGET_BUCKET?: DurableObjectNamespace<Branded<BudgetBucketApi>>;
  /**
   * Destroys queued by closed pull requests, and the applies of verified platform deploy events
   * (`kind: "platform-apply"`, docs/design.md, "The platform door") (workers/queue/).
   */
  DESTROY_QUEUE: Queue<QueuedDestroy | QueuedPlatformApply>;
  /** Notifications for operators (workers/notify/); unbound: they are logged, not sent. */
  NOTIFY_QUEUE?: Queue<QueuedNotification>;
  /** One data point per run and per lock wait (docs/operations.md, "Metrics"); unbound: none. */
  RUN_ANALYTICS?: AnalyticsEngineDataset;
  /** Secret shared with GitHub for X-Hub-Signature-256; unset refuses every webhook. */
  GITHUB_WEBHOOK_SECRET?: string;
  /** JSON `[{ "name": "owner/repo", "id": 123 }]`: repositories the service acts for. */
  SPONSON_REPOSITORIES?: string;
  /** JSON list of environments a closed pull request is destroyed in; default `["preview"]`. */
  SPONSON_ENVIRONMENTS?: string;
  /** JSON: the provider connections runs may use (workers/connections/connection-schema.ts). */
  SPONSON_CONNECTIONS?: string;
  /** Any other var or secret (a connection's credentials are Worker secrets it names). */
  [name: string]: unknown;
}
