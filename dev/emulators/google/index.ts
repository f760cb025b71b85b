/**
 * The Google token host, oauth2.googleapis.com: POST /token (./token-endpoint.ts). API hosts check
 * its tokens, or self-signed JWTs, with ./access-token.ts; Google's error envelope is
 * ./responses.ts; the service accounts the emulators know are ./state.ts.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { googleJson } from "./responses";
import { issueToken, oauthError } from "./token-endpoint";

export const googleOAuthEmulator: ProviderEmulatorModule = {
  provider: "google-oauth2",
  matches: (host) => host === "oauth2.googleapis.com",
  isRead: () => false,
  isWrite: () => false,

  async handle(request, state) {
    const url = new URL(request.url);
    if (url.pathname !== "/token" || request.method !== "POST") return googleJson(404, "Not Found");
    return issueToken(request, state);
  },

  injectedError(status) {
    return oauthError(
      status,
      status === 429 ? "rate_limit_exceeded" : "internal_failure",
      "Injected failure",
    );
  },
};

export { CLOUD_PLATFORM, type GoogleTokenClaims, hasScope, verifyGoogleToken } from "./access-token";
export { DEMO_GOOGLE_ACCOUNT } from "./demo";
export {
  GOOGLE_STATUS,
  googleError,
  googleJson,
  RETRY_AFTER_SECONDS,
  UNAUTHENTICATED_MESSAGE,
} from "./responses";
export { type GoogleServiceAccount, googleKeys } from "./state";
export { GOOGLE_TOKEN_LIFETIME_SECONDS } from "./token-endpoint";
