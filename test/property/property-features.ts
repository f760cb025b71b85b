/**
 * Which generators the fleet and GCS properties draw from (./fleet-model.ts, ./gcs-races.ts).
 * Features the merged engine does not survive yet are off by default, each named for the finding
 * it waits for; SPONSON_PROPERTY_FEATURES=all (or a comma-separated list) switches them on.
 */
import { viteEnv } from "./replay";

export type FeatureName =
  /** A line id of one run names another op, URL or object in the next (one item identity). */
  | "plan-edits"
  /** A provider write fails past the retry budget (every line of a failed run gets a result). */
  | "provider-failures"
  /** More changes on one object than one combined request carries (issue 20: any plan size). */
  | "big-plans"
  /** An admin force-release of the scope lock at a fault point, a recovery served first (scope lease checked before ownership changes). */
  | "lease-lost-scope"
  /** An admin force-release of the parent lock at a fault point (fencing around the write). */
  | "lease-lost-parent"
  /** A combining waiter that gives up while a holder has its changes (never drop an intent on doubt). */
  | "waiter-timeout"
  /** A receipt of the previous version with create intents (the upgrade rebuild counts intents). */
  | "old-receipts"
  /** Every provider request of a step answers later. */
  | "slow-writes"
  /**
   * A write whose answer is lost lands after its run ended: its retries refused (an unknown
   * outcome), or answered (the run succeeds, and the lost attempt still lands).
   */
  | "late-writes"
  /** A provider request that takes longer than the lease (request deadlines, maximum critical section). */
  | "hung-writes"
  /**
   * A crash (or a lost scope lease) right after the parent lease is granted, before the run read
   * any ownership: on an object never rebuilt, the next holder's rebuild meets the run's create
   * intents, among them a foreign entry's the run never wrote.
   */
  | "crash-before-first-look"
  /** GCS: an outside writer takes away a foreign origin a run joins, before its write (412: decide again). */
  | "gcs-412-take"
  /**
   * A send of several requests refused half-way: Clerk redirect URLs in plans (one POST per URL),
   * and another writer creating one of a group's URLs right before its POST (StaleState after the
   * requests before it were written).
   */
  | "per-item-refused"
  /**
   * Google API key referrers in plans: a write carrying the key's etag, another writer updating
   * the key right before a run's PATCH (409: read and decided again), and an update's Operation
   * still pending at the request timeout (lands late: an unknown outcome) or ending with an error.
   */
  | "api-key-etag";

export const ALL_FEATURES: readonly FeatureName[] = [
  "plan-edits",
  "provider-failures",
  "big-plans",
  "lease-lost-scope",
  "lease-lost-parent",
  "waiter-timeout",
  "old-receipts",
  "slow-writes",
  "late-writes",
  "hung-writes",
  "gcs-412-take",
  "crash-before-first-look",
  "per-item-refused",
  "api-key-etag",
];

/**
 * On by default: what the merged engine survives. Measured on each fix's branch merged with this
 * one: `plan-edits`, `provider-failures` and `old-receipts` pass once identity is merged;
 * `waiter-timeout` and `lease-lost-scope` once doubt is too; `big-plans`, `lease-lost-parent` and
 * `gcs-412-take` once fencing is. `crash-before-first-look` fails on identity's branch (its rebuild
 * counts a crashed run's create intent as an owner, so a foreign entry the run never wrote is
 * removed by the recovery); `hung-writes` costs a lease's length per history and stays off.
 * `per-item-refused` fails without a send refused half-way keeping what it wrote (the URLs posted
 * before the refusal were joined as foreign and leaked: seed 586958664, path 1). `api-key-etag`
 * fails with the etag left out of the PATCH (the other writer's referrer lost: seed -963711263,
 * path 7) and with the Operation taken as done (a line says created, nothing there: seed
 * 354462346, path 11).
 */
export const DEFAULT_FEATURES: readonly FeatureName[] = [
  "plan-edits",
  "provider-failures",
  "old-receipts",
  "waiter-timeout",
  "lease-lost-scope",
  "big-plans",
  "lease-lost-parent",
  "gcs-412-take",
  "crash-before-first-look",
  "slow-writes",
  "late-writes",
  "per-item-refused",
  "api-key-etag",
];

/** `all` is every feature but hung writes (each costs a lease's length of waiting). */
export function propertyFeatures(): Set<FeatureName> {
  const asked = viteEnv.SPONSON_PROPERTY_FEATURES;
  if (asked === undefined || asked === "") return new Set(DEFAULT_FEATURES);
  if (asked === "all") return new Set(ALL_FEATURES.filter((f) => f !== "hung-writes"));
  const names = asked.split(",").map((f) => f.trim());
  for (const n of names)
    if (!ALL_FEATURES.includes(n as FeatureName)) throw new Error(`unknown property feature ${n}`);
  return new Set(names as FeatureName[]);
}
