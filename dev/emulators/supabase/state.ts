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

/** OAuth providers GoTrue configures, each with `_enabled`, `_client_id`, `_secret`, `_email_optional`. */
const EXTERNAL_PROVIDERS = [
  "apple",
  "azure",
  "bitbucket",
  "discord",
  "facebook",
  "figma",
  "github",
  "gitlab",
  "google",
  "kakao",
  "keycloak",
  "linkedin_oidc",
  "notion",
  "slack",
  "slack_oidc",
  "spotify",
  "twitch",
  "twitter",
  "x",
  "zoom",
];
/** Auth hooks, each with `_enabled`, `_uri`, `_secrets`. */
const HOOKS = [
  "custom_access_token",
  "mfa_verification_attempt",
  "password_verification_attempt",
  "send_sms",
  "send_email",
  "before_user_created",
  "after_user_created",
];

/**
 * The rest of a project's auth config as a new project has it. GET and PATCH answer these too,
 * with the stored config on top, so a client that changes one field sees the others as they were.
 */
export const AUTH_CONFIG_DEFAULTS: Readonly<Record<string, unknown>> = Object.freeze({
  api_max_request_duration: 10,
  db_max_pool_size: null,
  db_max_pool_size_unit: null,
  disable_signup: false,
  external_anonymous_users_enabled: false,
  external_email_enabled: true,
  external_phone_enabled: false,
  external_web3_solana_enabled: false,
  external_web3_ethereum_enabled: false,
  ...Object.fromEntries(
    EXTERNAL_PROVIDERS.flatMap((p) => [
      [`external_${p}_enabled`, false],
      [`external_${p}_client_id`, null],
      [`external_${p}_secret`, null],
      [`external_${p}_email_optional`, false],
    ]),
  ),
  ...Object.fromEntries(
    HOOKS.flatMap((h) => [
      [`hook_${h}_enabled`, false],
      [`hook_${h}_uri`, null],
      [`hook_${h}_secrets`, null],
    ]),
  ),
  jwt_exp: 3600,
  mailer_allow_unverified_email_sign_ins: false,
  mailer_autoconfirm: false,
  mailer_otp_exp: 3600,
  mailer_otp_length: 6,
  mailer_secure_email_change_enabled: true,
  mailer_subjects_confirmation: null,
  mailer_subjects_email_change: null,
  mailer_subjects_invite: null,
  mailer_subjects_magic_link: null,
  mailer_subjects_recovery: null,
  mfa_max_enrolled_factors: 10,
  mfa_totp_enroll_enabled: true,
  mfa_totp_verify_enabled: true,
  mfa_phone_enroll_enabled: false,
  mfa_phone_verify_enabled: false,
  password_hibp_enabled: false,
  password_min_length: 6,
  password_required_characters: null,
  rate_limit_anonymous_users: 30,
  rate_limit_email_sent: 2,
  rate_limit_sms_sent: 30,
  rate_limit_token_refresh: 150,
  rate_limit_verify: 30,
  rate_limit_otp: 30,
  refresh_token_rotation_enabled: true,
  saml_enabled: false,
  security_captcha_enabled: false,
  security_captcha_provider: null,
  security_captcha_secret: null,
  security_manual_linking_enabled: false,
  security_refresh_token_reuse_interval: 10,
  security_update_password_require_reauthentication: false,
  sessions_inactivity_timeout: null,
  sessions_single_per_user: false,
  sessions_timebox: null,
  site_url: "http://localhost:3000",
  sms_autoconfirm: false,
  sms_max_frequency: 60,
  sms_otp_exp: 60,
  sms_otp_length: 6,
  sms_provider: "twilio",
  sms_template: "Your code is {{ .Code }}",
  smtp_admin_email: null,
  smtp_host: null,
  smtp_max_frequency: 60,
  smtp_pass: null,
  smtp_port: null,
  smtp_sender_name: null,
  smtp_user: null,
  uri_allow_list: "",
});

/** The config as the API shows it: a new project's defaults under what the project holds. */
export function authConfigView(stored: SupabaseAuthConfig): Record<string, unknown> {
  return { ...AUTH_CONFIG_DEFAULTS, ...stored };
}
