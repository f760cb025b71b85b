/**
 * A lock object's notices to open dashboards (durable-objects/lock-feed.ts), never awaited. Changes
 * within FEED_COALESCE_MS go out as one notice carrying the latest: a dashboard re-fetches what it
 * shows anyway, and a burst of transitions costs one call to the feed instead of one each.
 */
import type { Env } from "../shared/env";
import { announceLockChange, type LockChange } from "./lock-feed";

/** Lock-feed notices within this window are sent as one (the latest). */
const FEED_COALESCE_MS = 20;

export class FeedNotices {
  readonly #env: Env;
  readonly #key: () => string | null;
  /** The lock-feed change waiting to be sent, and whether a send is scheduled. */
  #change: LockChange | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(env: Env, key: () => string | null) {
    this.#env = env;
    this.#key = key;
  }

  announce(change: LockChange): void {
    this.#change = change;
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      const latest = this.#change;
      this.#change = null;
      const key = this.#key();
      if (key && latest) announceLockChange(this.#env, key, latest);
    }, FEED_COALESCE_MS);
  }
}
