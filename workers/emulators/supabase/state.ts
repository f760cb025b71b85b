/**
 * What the Supabase emulator keeps (one object for api.supabase.com). Storage keys:
 *   token:<access token>  → SupabaseToken (which projects a personal access token may manage)
 *   project:<ref>         → SupabaseAuthConfig (GET/PATCH /v1/projects/{ref}/config/auth)
 */

export interface SupabaseToken {
  /** Project refs this token's organization owns. */
  projects: string[];
  /** A read-only member's token may read the config but not change it. */
  readOnly?: boolean;
}

/** The auth config as the API returns it (the subset the emulator models; the real one is large). */
export interface SupabaseAuthConfig {
  site_url: string | null;
  uri_allow_list: string | null;
  disable_signup: boolean;
  external_email_enabled: boolean;
  jwt_exp: number;
  mailer_autoconfirm: boolean;
  [field: string]: unknown;
}

export const supabaseKeys = {
  token: (token: string) => `token:${token}`,
  project: (ref: string) => `project:${ref}`,
} as const;

export function authConfig(seed: Partial<SupabaseAuthConfig> = {}): SupabaseAuthConfig {
  return {
    site_url: "http://localhost:3000",
    uri_allow_list: "",
    disable_signup: false,
    external_email_enabled: true,
    jwt_exp: 3600,
    mailer_autoconfirm: false,
    ...seed,
  };
}
