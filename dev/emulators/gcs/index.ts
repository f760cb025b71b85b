/**
 * The Cloud Storage emulator (storage.googleapis.com), the bucket CORS subset of the JSON API
 * (./bucket-endpoint.ts). Bearer: an access token from the Google token host, or a service
 * account's self-signed JWT (../google/access-token.ts). State: ./state.ts.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { hasScope, verifyGoogleToken } from "../google/access-token";
import { googleError, googleJson, RETRY_AFTER_SECONDS } from "../google/responses";
import { BUCKET_PATH, denied, notFound, patchBucket, resource, SCOPES } from "./bucket-endpoint";
import { provisionDemoGcsBucket } from "./demo";
import { type GcsBucket, gcsKeys } from "./state";

export const gcsEmulator: ProviderEmulatorModule = {
  provider: "gcs",
  matches: (host) => host === "storage.googleapis.com",
  isRead: (request) => request.method === "GET" && BUCKET_PATH.test(new URL(request.url).pathname),
  isWrite: (request) => request.method === "PATCH" && BUCKET_PATH.test(new URL(request.url).pathname),
  // One bucket metadata update per second per bucket; reads are not counted (no headers either).
  budgetKey: (request) => {
    const id = new URL(request.url).pathname.match(BUCKET_PATH)?.[1];
    return request.method === "PATCH" && id !== undefined ? `bucket:${decodeURIComponent(id)}` : null;
  },
  budgetRefusal: (_limit, view) =>
    googleError(
      429,
      "The rate of change requests to the bucket is too high. Please slow down.",
      { reason: "rateLimitExceeded", domain: "usageLimits" },
      { "retry-after": String(Math.max(1, Math.ceil((view.resetAtMs - view.nowMs) / 1000))) },
    ),

  async handle(request, state) {
    const url = new URL(request.url);
    provisionDemoGcsBucket(url.pathname, state);
    const claims = await verifyGoogleToken(request.headers.get("authorization"), Date.now(), {
      host: url.host,
      state,
    });
    if (!claims) {
      return googleError(401, "Invalid Credentials", {
        reason: "authError",
        locationType: "header",
        location: "Authorization",
      });
    }
    const id = url.pathname.match(BUCKET_PATH)?.[1];
    if (id === undefined || !["GET", "PATCH"].includes(request.method)) return googleError(404, "Not Found");
    const name = decodeURIComponent(id);
    const bucket = state.get<GcsBucket>(gcsKeys.bucket(name));
    const permission = request.method === "GET" ? "storage.buckets.get" : "storage.buckets.update";
    if (!hasScope(claims, SCOPES)) return denied(claims, permission);
    if (!bucket) return notFound();
    const role = bucket.members[claims.sub];
    if (!role || (request.method === "PATCH" && role !== "admin")) return denied(claims, permission);
    if (request.method === "GET")
      return googleJson(200, resource(name, bucket, url.searchParams.get("fields")));
    return patchBucket(request, state, name, url);
  },

  injectedError(status) {
    if (status === 429) {
      return googleError(
        429,
        "The rate of change requests to the bucket is too high. Please slow down.",
        { reason: "rateLimitExceeded" },
        { "retry-after": String(RETRY_AFTER_SECONDS) },
      );
    }
    return googleError(status, status >= 500 ? "Backend Error" : "Injected failure", {
      reason: status >= 500 ? "backendError" : "invalid",
    });
  },
};

export { DEMO_GCS_BUCKET } from "./demo";
export { type GcsBucket, gcsKeys } from "./state";
