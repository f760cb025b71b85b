/**
 * What a lock transition does besides its SQL write, as data (docs/design.md, "Lease protocol"):
 * transitions are synchronous and return their effects; `commit` is the one place that arms the
 * alarm, announces a change to open dashboards, brings the held-lock index in line (a contended
 * lock listed included) or tells
 * operators of a take-over. Committing right after the transition, before the next call is
 * delivered, keeps the order the transition gave them.
 */
import type { Env } from "../shared/env";
import type { LeaseGrant } from "../shared/schemas/lock";
import { type ExpiredLease, type LockNotice, takeoverNotice } from "./lease-endings";
import { announceLockChange, type LockChange } from "./lock-feed";

/** Lock-feed notices within this window are sent as one (the latest). */
const FEED_COALESCE_MS = 20;

export type Effect =
  /** An alarm no later than `at` (lease expiry, a lock-delay's or a hold's end, an answer's age). */
  | { kind: "arm"; at: number }
  /** Tell open dashboards the lock changed. */
  | { kind: "announce"; change: LockChange }
  /** Bring the held-lock index in line, in the background (transitions only ever add). */
  | { kind: "sync-index" }
  /** Another run waits for the held lock: list it in the index, in the background. */
  | { kind: "list-contended" }
  /** Tell operators a grant took over an expired lease, in the background. */
  | { kind: "took-over"; previous: ExpiredLease; grant: LeaseGrant };

/** A transition's outcome and what it asks to be done. */
export interface Step<T = undefined> {
  result: T;
  effects: Effect[];
}

export const arm = (at: number): Effect => ({ kind: "arm", at });
export const announce = (change: LockChange): Effect => ({ kind: "announce", change });
export const SYNC_INDEX: Effect = { kind: "sync-index" };
export const LIST_CONTENDED: Effect = { kind: "list-contended" };

/** A step with no outcome but its effects. */
export function effectsOnly(effects: Effect[]): Step {
  return { result: undefined, effects };
}

/**
 * What the Worker hands the lock object (workers/wiring/objects.ts): the lock layer imports nothing
 * from workers/, so the transport of its notices to operators comes in here.
 */
export interface LeaseLockDeps {
  /** Puts a notice on the notifications queue; logs and answers on failure, never throws. */
  notify(env: Env, notice: LockNotice): Promise<unknown>;
}

/** What commit reaches: the object's storage and background work, the index, the notice transport. */
export interface EffectTargets {
  ctx: DurableObjectState;
  env: Env;
  key(): string | null;
  syncIndexLater(): void;
  listContended(): Promise<void>;
  notify: LeaseLockDeps["notify"];
}

export class LockEffects {
  readonly #t: EffectTargets;
  /** The armed alarm as this object last set or found it (null: none armed). */
  #alarmAt: number | null = null;
  /** The lock-feed change waiting to be sent, and whether a send is scheduled. */
  #change: LockChange | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(targets: EffectTargets) {
    this.#t = targets;
  }

  /** The alarm as armed: read before the first call is delivered. */
  async load(): Promise<void> {
    this.#alarmAt = await this.#t.ctx.storage.getAlarm();
  }

  /** The firing alarm is no longer armed: whatever the alarm's own work arms is the next one. */
  alarmFired(): void {
    this.#alarmAt = null;
  }

  commit(effects: readonly Effect[]): void {
    for (const effect of effects) {
      switch (effect.kind) {
        case "arm":
          this.#arm(effect.at);
          break;
        case "announce":
          this.#announce(effect.change);
          break;
        case "sync-index":
          this.#t.syncIndexLater();
          break;
        case "list-contended":
          this.#t.ctx.waitUntil(this.#t.listContended());
          break;
        case "took-over": {
          // The SQL write is already made; the output gate holds the send until it is durable.
          const { ctx, env, notify } = this.#t;
          const notice = takeoverNotice(effect.grant.key, effect.previous, effect.grant, Date.now());
          ctx.waitUntil(notify(env, notice));
          break;
        }
      }
    }
  }

  /**
   * Makes sure an alarm fires no later than `at`. An alarm armed earlier is kept (it fires, finds
   * nothing due and re-arms at the live expiry), so renewals and back-to-back grants do not each
   * write the alarm: a busy lock re-arms about once per TTL, not once per transition.
   */
  #arm(at: number): void {
    if (this.#alarmAt !== null && this.#alarmAt <= at) return;
    this.#alarmAt = at;
    void this.#t.ctx.storage.setAlarm(at);
  }

  /**
   * Never awaited. Changes within FEED_COALESCE_MS go out as one notice carrying the latest: a
   * dashboard re-fetches what it shows anyway, and a burst of transitions costs one call to the
   * feed instead of one each.
   */
  #announce(change: LockChange): void {
    this.#change = change;
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      const latest = this.#change;
      this.#change = null;
      const key = this.#t.key();
      if (key && latest) announceLockChange(this.#t.env, key, latest);
    }, FEED_COALESCE_MS);
  }
}
