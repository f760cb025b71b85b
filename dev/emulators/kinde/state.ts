/**
 * What the Kinde emulator keeps per business host (<business>.kinde.com). Storage keys:
 *   m2m:<client id>     → KindeM2m (machine-to-machine credentials for /oauth2/token)
 *   token:<access token> → IssuedToken
 *   app:<application id> → KindeApp (its redirect and logout URLs)
 *   demo:provisioned     → true (./demo.ts)
 */

export interface KindeM2m {
  clientSecret: string;
  scopes: string[];
}
export interface KindeApp {
  redirect_urls: string[];
  logout_urls: string[];
}
export interface IssuedToken {
  scopes: string[];
  /** Epoch ms. */
  expiresAt: number;
}

export const kindeKeys = {
  m2m: (id: string) => `m2m:${id}`,
  token: (t: string) => `token:${t}`,
  app: (id: string) => `app:${id}`,
} as const;

export const KINDE_ALL_SCOPES = [
  "read:applications_redirect_uris",
  "create:applications_redirect_uris",
  "update:applications_redirect_uris",
  "delete:applications_redirect_uris",
  "read:application_logout_uris",
  "create:application_logout_uris",
  "update:application_logout_uris",
  "delete:application_logout_uris",
];
