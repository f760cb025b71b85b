/**
 * The one place provider writes happen (DESIGN §5 step 4, seed 000). Under the item's parent lease
 * (if its op names one): inspect again, announce the intent in the receipt, check the fencing
 * token, write from the fresh state, then record the ledger change.
 */
import { SponsonError } from "../../shared/errors";
import { Lease } from "../locks/lease";
import type { EngineDeps } from "./deps";
import { type Item, recordOf } from "./item";
import type { ProviderContexts } from "./provider-context";
import type { ReceiptSession } from "./receipt-session";
import type { Run } from "./run";

export type WriteAction = "create" | "remove";
export type WriteOutcome = "written" | "already";

export interface WaitPolicy {
  wait: boolean;
  waitTimeoutMs: number;
}

export class ItemWriter {
  readonly #deps: EngineDeps;
  readonly #run: Run;
  readonly #session: ReceiptSession;
  readonly #scopeLease: Lease;
  readonly #contexts: ProviderContexts;

  constructor(
    deps: EngineDeps,
    run: Run,
    session: ReceiptSession,
    scopeLease: Lease,
    contexts: ProviderContexts,
  ) {
    this.#deps = deps;
    this.#run = run;
    this.#session = session;
    this.#scopeLease = scopeLease;
    this.#contexts = contexts;
  }

  context(item: Item) {
    return this.#contexts.get(item.connection);
  }

  /** Runs `fn` under the item's parent lease; one parent lease at a time, only for this write. */
  async withParent<T>(item: Item, waiting: WaitPolicy, fn: (lease: Lease | null) => Promise<T>): Promise<T> {
    if (item.parent === null || !this.#deps.parentLocks) return fn(null);
    // Never wait for a parent lock without the scope lease still ours.
    this.#scopeLease.assertHeld();
    const target = await this.#deps.locks.parent(item.parent);
    let lease: Lease;
    try {
      lease = await Lease.acquire(target, this.#run.id, {
        ttlMs: this.#deps.ttlMs,
        wait: waiting.wait,
        waitTimeoutMs: waiting.waitTimeoutMs,
        clock: this.#deps.clock,
        onWarning: (m) => this.#run.warn(m),
      });
    } catch (err) {
      if (err instanceof SponsonError && err.code === "LOCK_HELD") {
        throw new SponsonError("LOCK_HELD", `${err.message} (parent ${item.parent})`, {
          ...err.detail,
          parent: item.parent,
        });
      }
      throw err;
    }
    try {
      return await fn(lease);
    } finally {
      await lease.release();
    }
  }

  /**
   * Every request that can change the provider re-checks both leases first: an adapter that
   * retries a write after a backoff must not send it once the holder's deadline has passed.
   */
  #fenced(fetcher: typeof fetch, lease: Lease | null): typeof fetch {
    return (input, init) => {
      const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
      if (method !== "GET" && method !== "HEAD") {
        this.#scopeLease.assertHeld();
        lease?.assertHeld();
      }
      return fetcher(input, init);
    };
  }

  /** Makes the item present (create) or absent (remove), re-inspecting under the lease first. */
  async write(item: Item, action: WriteAction, waiting: WaitPolicy): Promise<WriteOutcome> {
    const base = this.context(item);
    return this.withParent(item, waiting, async (lease) => {
      const ctx = { ...base, fetch: this.#fenced(base.fetch, lease) };
      // The read made before the lease may be stale: decide from what is there now.
      const seen = await item.op.inspect(ctx, item.params);
      if (action === "create" ? seen.present : !seen.present) {
        if (action === "remove") {
          this.#session.dropLedger(item.line, item.key);
          await this.#session.save();
        }
        return "already";
      }
      const record = recordOf(item, this.#run.id);
      const where = { line: item.line, key: item.key, action, runId: this.#run.id };
      const intent = { action, ...record, at: this.#deps.clock.now() };
      this.#session.addIntent(intent);
      await this.#session.save();
      await this.#deps.faults?.("after-intent", where);
      // Fencing: both leases must still be ours immediately before the provider write.
      this.#scopeLease.assertHeld();
      await lease?.check();
      if (action === "create") await item.op.create(ctx, item.params, seen);
      else await item.op.remove(ctx, item.params, seen);
      await this.#deps.faults?.("after-write", where);
      this.#session.dropIntent(intent);
      if (action === "create") this.#session.addLedger({ ...record, createdAt: this.#deps.clock.now() });
      else this.#session.dropLedger(item.line, item.key);
      await this.#session.save();
      return "written";
    });
  }
}
