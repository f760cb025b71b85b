/** Every provider emulator, found by the host a request is addressed to. */
import { apiKeysEmulator } from "./apikeys";
import { auth0Emulator } from "./auth0";
import { stsEmulator } from "./aws-sts";
import { clerkEmulator } from "./clerk";
import { cloudflareApiEmulator } from "./cloudflare";
import { cognitoEmulator } from "./cognito";
import type { ProviderEmulatorModule } from "./emulator";
import { entraLoginEmulator, graphEmulator } from "./entra";
import { identityToolkitEmulator } from "./firebase";
import { gcsEmulator } from "./gcs";
import { githubEmulator } from "./github";
import { googleOAuthEmulator } from "./google";
import { iamEmulator } from "./google-iam";
import { googleStsEmulator, iamCredentialsEmulator } from "./google-sts";
import { keycloakEmulator } from "./keycloak";
import { kindeEmulator } from "./kinde";
import { notificationSinkEmulator } from "./notification-sink";
import { oidcIssuerEmulator } from "./oidc-issuer";
import { oktaEmulator } from "./okta";
import { recaptchaEmulator } from "./recaptcha";
import { s3Emulator } from "./s3";
import { supabaseEmulator } from "./supabase";
import { vercelEmulator } from "./vercel";

export const EMULATORS: readonly ProviderEmulatorModule[] = [
  auth0Emulator,
  supabaseEmulator,
  googleOAuthEmulator,
  identityToolkitEmulator,
  gcsEmulator,
  oktaEmulator,
  kindeEmulator,
  cloudflareApiEmulator,
  s3Emulator,
  iamEmulator,
  entraLoginEmulator,
  graphEmulator,
  cognitoEmulator,
  stsEmulator,
  oidcIssuerEmulator,
  keycloakEmulator,
  clerkEmulator,
  notificationSinkEmulator,
  googleStsEmulator,
  iamCredentialsEmulator,
  githubEmulator,
  recaptchaEmulator,
  apiKeysEmulator,
  vercelEmulator,
];

export function emulatorFor(host: string): ProviderEmulatorModule | undefined {
  return EMULATORS.find((m) => m.matches(host));
}

/** The name of the emulator object that answers `url` (its host, unless the module says otherwise). */
export function emulatorObjectName(url: URL): string {
  return emulatorFor(url.host)?.objectName?.(url) ?? url.host;
}
