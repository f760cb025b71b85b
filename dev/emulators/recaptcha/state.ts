/**
 * What the reCAPTCHA Enterprise emulator keeps (recaptchaenterprise.googleapis.com). Storage keys:
 *   project:<id>           → RecaptchaProject (who may read or edit its keys)
 *   key:<project>/<key>    → RecaptchaKey (the resource as the API returns it)
 *   sa:<email>             → GoogleServiceAccount, for self-signed JWT bearers (../google/state.ts)
 *   demo:provisioned       → true (./demo.ts)
 */

export interface RecaptchaProject {
  /** Service accounts and their role: `editor` is roles/recaptchaenterprise.admin, `viewer` .viewer. */
  members: Record<string, "editor" | "viewer">;
}

/** `WebKeySettings` (reCAPTCHA Enterprise API v1 reference): enums as their names, as REST sends them. */
export interface RecaptchaWebSettings {
  allowAllDomains?: boolean;
  allowedDomains?: string[];
  allowAmpTraffic?: boolean;
  integrationType?: "SCORE" | "CHECKBOX" | "INVISIBLE" | "POLICY_BASED_CHALLENGE";
  challengeSecurityPreference?: "USABILITY" | "BALANCE" | "SECURITY";
  challengeSettings?: Record<string, unknown>;
}

/**
 * `projects.keys` (v1): one of the platform settings (`webSettings`, `androidSettings`,
 * `iosSettings`, `expressSettings`, `universalSettings`), and the rest. No etag field.
 */
export interface RecaptchaKey {
  name: string;
  displayName: string;
  webSettings?: RecaptchaWebSettings;
  androidSettings?: Record<string, unknown>;
  iosSettings?: Record<string, unknown>;
  expressSettings?: Record<string, unknown>;
  universalSettings?: Record<string, unknown>;
  labels?: Record<string, string>;
  createTime: string;
  testingOptions?: { testingScore?: number; testingChallenge?: string };
  wafSettings?: { wafService?: string; wafFeature?: string };
}

export const recaptchaKeys = {
  project: (id: string) => `project:${id}`,
  key: (project: string, key: string) => `key:${project}/${key}`,
} as const;

/** A website key as the console creates one: a score key with its domains, labels and WAF settings. */
export function recaptchaWebKey(project: string, key: string, allowedDomains: string[]): RecaptchaKey {
  return {
    name: `projects/${project}/keys/${key}`,
    displayName: "Previews",
    webSettings: {
      allowedDomains,
      allowAmpTraffic: false,
      integrationType: "SCORE",
    },
    labels: { team: "web" },
    createTime: "2026-11-02T09:30:00.000000Z",
    wafSettings: { wafService: "CA", wafFeature: "ACTION_TOKEN" },
  };
}
