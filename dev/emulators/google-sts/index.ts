/**
 * Google Workload Identity Federation: Security Token Service (sts.googleapis.com,
 * ./sts-endpoint.ts) and IAM Service Account Credentials (iamcredentials.googleapis.com,
 * ./generate-access-token.ts), two hosts that share no storage (./state.ts). The service's token is
 * checked against its issuer's discovery and JWKS, fetched through `outbound`.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { googleError, googleJson } from "../google/responses";
import { oauthError } from "../google/token-endpoint";
import { GENERATE_PATH, generateAccessToken } from "./generate-access-token";
import { exchangeToken } from "./sts-endpoint";

export const googleStsEmulator: ProviderEmulatorModule = {
  provider: "google-sts",
  matches: (host) => host === "sts.googleapis.com",
  isRead: () => false,
  isWrite: () => false,

  async handle(request, state, outbound) {
    const url = new URL(request.url);
    if (url.pathname !== "/v1/token" || request.method !== "POST") return googleJson(404, "Not Found");
    return exchangeToken(request, state, outbound);
  },

  injectedError(status) {
    return oauthError(
      status,
      status === 429 ? "rate_limit_exceeded" : "internal_failure",
      "Injected failure",
    );
  },
};

export const iamCredentialsEmulator: ProviderEmulatorModule = {
  provider: "google-iamcredentials",
  matches: (host) => host === "iamcredentials.googleapis.com",
  isRead: () => false,
  isWrite: () => false,

  async handle(request, state) {
    const email = new URL(request.url).pathname.match(GENERATE_PATH)?.[1];
    if (!email || request.method !== "POST") return googleError(404, "Not Found");
    return generateAccessToken(request, state, decodeURIComponent(email));
  },

  injectedError(status) {
    return googleError(status, status === 429 ? "Quota exceeded." : "Internal error encountered.");
  },
};

export { DEMO_ISSUER, DEMO_WORKLOAD_IDENTITY_PROVIDER } from "./demo";
export * from "./state";
