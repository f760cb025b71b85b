/**
 * What the Clerk emulator keeps (one object for api.clerk.com; a secret key names its instance).
 * Storage keys:
 *   key:<secret key>                 → ClerkKey (the instance it belongs to)
 *   instance:<ins_…>                 → ClerkInstanceRecord
 *   redirect:<ins_…>:<ru_…>          → ClerkRedirectUrl
 *   race:<secret key>:<substring>    → ClerkRace (test hook)
 *   demo:provisioned                 → true (./demo.ts)
 */

export interface ClerkKey {
  instance: string;
  /** A key the emulator refuses with 403 authorization_invalid (a revoked or restricted key). */
  forbidden?: boolean;
  /**
   * Test hook: the next N pages listed with this key leave out their last URL while `total_count`
   * still counts it, as when Clerk's paging moves underneath a reader (0 or absent: off).
   */
  shortPages?: number;
}

export interface ClerkInstanceRecord {
  id: string;
  environment_type: "development" | "production";
  allowed_origins: string[] | null;
}

export interface ClerkRedirectUrl {
  object: "redirect_url";
  id: string;
  url: string;
  /** Unix ms. */
  created_at: number;
  updated_at: number;
}

/**
 * Test hook: the `nth` POST of a redirect URL containing the substring the storage key names,
 * made with that secret key, finds the URL created by someone else just before it (an id starting
 * `ru_outside`), so Clerk refuses it as a duplicate: another writer won the race between a read and
 * that request. Counted down; removed once it fired; `nth` 0 is off. One row per substring, so
 * tests (or steps) running at once each arm their own.
 */
export interface ClerkRace {
  nth: number;
}

/** The id prefix of a URL the race hook created: someone else's, never the service's. */
export const OUTSIDE_ID_PREFIX = "ru_outside";

export const clerkKeys = {
  key: (secretKey: string) => `key:${secretKey}`,
  instance: (id: string) => `instance:${id}`,
  redirects: (instance: string) => `redirect:${instance}:`,
  redirect: (instance: string, id: string) => `redirect:${instance}:${id}`,
  races: (secretKey: string) => `race:${secretKey}:`,
  race: (secretKey: string, substring: string) => `race:${secretKey}:${substring}`,
} as const;

export function clerkInstance(id: string, allowedOrigins: string[] | null = null): ClerkInstanceRecord {
  return { id, environment_type: "development", allowed_origins: allowedOrigins };
}

export function clerkRedirectUrl(id: string, url: string, at: number): ClerkRedirectUrl {
  return { object: "redirect_url", id, url, created_at: at, updated_at: at };
}
