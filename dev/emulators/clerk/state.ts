/**
 * What the Clerk emulator keeps (one object for api.clerk.com; a secret key names its instance).
 * Storage keys:
 *   key:<secret key>                 → ClerkKey (the instance it belongs to)
 *   instance:<ins_…>                 → ClerkInstanceRecord
 *   redirect:<ins_…>:<ru_…>          → ClerkRedirectUrl
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

export const clerkKeys = {
  key: (secretKey: string) => `key:${secretKey}`,
  instance: (id: string) => `instance:${id}`,
  redirects: (instance: string) => `redirect:${instance}:`,
  redirect: (instance: string, id: string) => `redirect:${instance}:${id}`,
} as const;

export function clerkInstance(id: string, allowedOrigins: string[] | null = null): ClerkInstanceRecord {
  return { id, environment_type: "development", allowed_origins: allowedOrigins };
}

export function clerkRedirectUrl(id: string, url: string, at: number): ClerkRedirectUrl {
  return { object: "redirect_url", id, url, created_at: at, updated_at: at };
}
