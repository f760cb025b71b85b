/** Every provider adapter the service knows. Adding a provider is adding it here. */

import { apiKeysAdapter } from "./apikeys";
import { auth0Adapter } from "./auth0";
import { clerkAdapter } from "./clerk";
import { cognitoAdapter } from "./cognito";
import { entraAdapter } from "./entra";
import { firebaseAdapter } from "./firebase";
import { gcsAdapter } from "./gcs";
import { googleAdapter } from "./google";
import { keycloakAdapter } from "./keycloak";
import { kindeAdapter } from "./kinde";
import { oktaAdapter } from "./okta";
import type { ProviderAdapter } from "./op-spec";
import { r2CorsAdapter } from "./r2cors";
import { recaptchaAdapter } from "./recaptcha";
import { s3Adapter } from "./s3";
import { supabaseAdapter } from "./supabase";
import { turnstileAdapter } from "./turnstile";

export const ADAPTERS: readonly ProviderAdapter[] = [
  auth0Adapter,
  supabaseAdapter,
  firebaseAdapter,
  gcsAdapter,
  oktaAdapter,
  kindeAdapter,
  r2CorsAdapter,
  s3Adapter,
  googleAdapter,
  entraAdapter,
  cognitoAdapter,
  keycloakAdapter,
  clerkAdapter,
  turnstileAdapter,
  recaptchaAdapter,
  apiKeysAdapter,
];
