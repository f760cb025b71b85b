/**
 * The R2 bucket CORS subset of Cloudflare's v4 API (api.cloudflare.com; ./cors-endpoint.ts), in
 * the v4 envelope (../cloudflare/responses.ts), its tokens checked as ../cloudflare/tokens.ts
 * says. `cf-r2-jurisdiction` picks the jurisdiction a bucket is looked up in: a bucket of `eu` is
 * not found without that header, and the same name may exist in both. State: ./state.ts.
 */

import { cfError } from "../cloudflare/responses";
import { refusedToken } from "../cloudflare/tokens";
import type { ProviderEmulatorModule } from "../emulator";
import { CORS_PATH, handleCors } from "./cors-endpoint";
import { provisionDemoR2 } from "./demo";
import { R2_JURISDICTIONS, type R2Bucket, type R2Token, r2Keys } from "./state";

export const r2CorsEmulator: ProviderEmulatorModule = {
  provider: "r2",
  matches: (host) => host === "api.cloudflare.com",
  isRead: (request) => request.method === "GET" && CORS_PATH.test(new URL(request.url).pathname),
  isWrite: (request) => request.method !== "GET" && CORS_PATH.test(new URL(request.url).pathname),

  async handle(request, state) {
    const match = new URL(request.url).pathname.match(CORS_PATH);
    if (match?.[1] && match[2]) provisionDemoR2(match[1], decodeURIComponent(match[2]), state);
    const bearer = request.headers.get("authorization")?.match(/^Bearer (\S+)$/i)?.[1];
    if (!bearer || !state.get<R2Token>(r2Keys.token(bearer)))
      return cfError(401, 10000, "Authentication error");
    if (!match?.[1] || !match[2] || !["GET", "PUT", "DELETE"].includes(request.method)) {
      return cfError(404, 7003, "Could not route to the requested resource.");
    }
    const [account, name] = [match[1], decodeURIComponent(match[2])];
    const refused = refusedToken(request, state, account, "r2");
    if (refused) return refused;
    const jurisdiction = request.headers.get("cf-r2-jurisdiction") ?? "default";
    if (!(R2_JURISDICTIONS as readonly string[]).includes(jurisdiction)) {
      // [U] the code and wording Cloudflare answers for an unknown jurisdiction.
      return cfError(400, 10080, `Invalid jurisdiction: ${jurisdiction}`);
    }
    const key = r2Keys.bucket(account, name, jurisdiction);
    const bucket = state.get<R2Bucket>(key);
    if (!bucket) return cfError(404, 10006, "The specified bucket does not exist.");
    return handleCors(request, state, key, bucket);
  },

  injectedError(status) {
    if (status === 429)
      return cfError(429, 971, "Please wait and consider throttling your request speed", {
        "retry-after": "4",
      });
    return cfError(status, 10001, "Internal error");
  },
};

export { cfEnvelope } from "../cloudflare/responses";
export { DEMO_R2 } from "./demo";
export { R2_JURISDICTIONS, type R2Bucket, type R2Token, r2Keys } from "./state";
