/**
 * A lease's options, built and checked in one place (docs/design.md, "Lease protocol"): every
 * number is validated when the options are built, before any call to the lock object, and every
 * default is filled in here, so the session, its roles and the acquire loop read one settled value.
 *
 * The timing rules, as a leader-election config states them: `ttlMs > 0`; the holder stops
 * trusting its lease `safetyMarginMs` before the server-side expiry, and its first renewal (at
 * TTL/3) must come before that, so `safetyMarginMs < 2·ttlMs/3`; `maxHoldMs`, when set, is > 0.
 */
import { z } from "zod";
import { type Clock, systemClock } from "../../shared/clock";
import { SponsonError } from "../../shared/errors";
import { DEFAULT_WAIT_TIMEOUT_MS } from "../../shared/lease-defaults";
import type { OwnedItem } from "../../shared/schemas/ownership";
import type { RunOrigin } from "../../shared/schemas/provenance";
import type { Waiting } from "../../shared/schemas/run";
import type { WaitDeadline } from "./wait-deadline";

/** Release calls made before a failed release only warns (retried with backoff). */
export const RELEASE_ATTEMPTS = 5;

const ms = z.number().finite();

/** The numbers and switches of a lease; each default is documented on its field. */
export const leaseTimingSchema = z
  .object({
    /** The lease's time to live on the server; renewed every TTL/3. */
    ttlMs: ms.positive(),
    /** Queue behind the holder (true) or be refused at once with LOCK_HELD (false, the default). */
    wait: z.boolean().default(false),
    /**
     * How long a waiting acquire waits in all, re-joins included (default DEFAULT_WAIT_TIMEOUT_MS):
     * the budget of the deadline it starts when the options name none (`deadline`).
     */
    waitTimeoutMs: ms.nonnegative().default(DEFAULT_WAIT_TIMEOUT_MS),
    /**
     * Write combining: how long past the deadline a waiter whose changes a live holder took waits
     * on for that holder's report (default 0: it stops at the deadline, its intents kept). The
     * engine gives the longest a parent lease can live (docs/design.md, "Lease protocol").
     */
    takenGraceMs: ms.nonnegative().default(0),
    /** How long before the server-side expiry the holder stops trusting its lease (default: defaultSafetyMarginMs). */
    safetyMarginMs: ms.nonnegative().optional(),
    /** Release calls before giving up with a warning (default RELEASE_ATTEMPTS). */
    releaseAttempts: z.number().int().positive().default(RELEASE_ATTEMPTS),
    /**
     * The longest this lease may be held (a critical section's maximum length): renewals stop
     * there, and the deadline never moves past it, so a hung call cannot keep the lock forever.
     * Unset: no limit.
     */
    maxHoldMs: ms.positive().optional(),
    /** Shortens the lock-delay after this lease's expiry (the fencing tests' control case only). */
    lockDelayMs: ms.nonnegative().optional(),
  })
  .transform((t) => ({ ...t, safetyMarginMs: t.safetyMarginMs ?? defaultSafetyMarginMs(t.ttlMs) }))
  .refine((t) => t.safetyMarginMs < (2 * t.ttlMs) / 3, {
    message:
      "safetyMarginMs must be less than 2/3 of ttlMs: the first renewal (at TTL/3) comes before the deadline",
    path: ["safetyMarginMs"],
  });

/** What callers pass: the timing above plus the hooks (functions and values no schema checks). */
export interface LeaseOptions extends z.input<typeof leaseTimingSchema> {
  /** Default: the system clock. Tests pass a ManualClock. */
  clock?: Clock;
  /** In [0, 1): the jitter of re-join backoff (default Math.random; tests pass a fixed one). */
  random?: () => number;
  /** Default: console.warn. */
  onWarning?: (message: string) => void;
  /**
   * The items whose ownership the holder will decide from: the grant (or the claim after a wait)
   * answers their view, read under the lease at that instant (`grantedOwners`).
   */
  items?: OwnedItem[];
  /** The run asking, kept with its lease and its place in the queue (docs/design.md, "Lock answers"). */
  origin?: RunOrigin;
  /** While queued (`wait`): told the lock, its holder, this run's place and the time waited so far. */
  onWaiting?: (waiting: Waiting) => void;
  /**
   * The run's one wait deadline, shared by every acquire it makes (docs/design.md, "Lease
   * protocol": the run's side). Unset: the acquire starts its own, of `waitTimeoutMs`.
   */
  deadline?: WaitDeadline;
}

/** Options as built by `leaseOptions`: every default filled in, every rule checked. */
export interface LeaseSettings extends z.output<typeof leaseTimingSchema> {
  readonly clock: Clock;
  readonly random: () => number;
  readonly onWarning: (message: string) => void;
  readonly items?: OwnedItem[];
  readonly origin?: RunOrigin;
  readonly onWaiting?: (waiting: Waiting) => void;
  readonly deadline?: WaitDeadline;
  /**
   * Write combining (set by `ParentLease.acquireOrCombine`, never an option): the claim of a grant
   * handed over after a wait takes the queue behind it in the same step (LeaseGrant.queued).
   */
  readonly takeQueue?: boolean;
}

export function defaultSafetyMarginMs(ttlMs: number): number {
  return Math.min(Math.max(Math.floor(ttlMs / 10), 1), 5_000);
}

const settled = new WeakSet<object>();

/**
 * Builds a lease's settings, or throws VALIDATION naming every field that breaks a rule. Settings
 * already built pass through unchanged (the acquire loop takes either).
 */
export function leaseOptions(opts: LeaseOptions | LeaseSettings): LeaseSettings {
  if (settled.has(opts)) return opts as LeaseSettings;
  const timing = leaseTimingSchema.safeParse(opts);
  if (!timing.success) {
    const why = timing.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ");
    throw new SponsonError("VALIDATION", `lease options refused: ${why}`);
  }
  const built: LeaseSettings = {
    ...timing.data,
    clock: opts.clock ?? systemClock,
    random: opts.random ?? Math.random,
    onWarning: opts.onWarning ?? ((m) => console.warn(m)),
    ...(opts.items ? { items: opts.items } : {}),
    ...(opts.origin ? { origin: opts.origin } : {}),
    ...(opts.onWaiting ? { onWaiting: opts.onWaiting } : {}),
    ...(opts.deadline ? { deadline: opts.deadline } : {}),
  };
  settled.add(built);
  return Object.freeze(built);
}
