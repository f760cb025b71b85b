/**
 * storage.googleapis.com, the bucket CORS subset of the JSON API (PROVIDERS.md §6): GET and PATCH
 * /storage/v1/b/{bucket} with `fields` projection and `ifMetagenerationMatch` (412 conditionNotMet
 * on a mismatch). Every PATCH increments metageneration; `cors: []` clears the field, which GCS then
 * leaves out of the resource. State: ./state.ts.
 */
import type { EmulatorState, ProviderEmulatorModule } from "../emulator";
import { CLOUD_PLATFORM, type GoogleTokenClaims, hasScope, verifyGoogleToken } from "../google/access-token";
import { googleError, googleJson, RETRY_AFTER_SECONDS } from "../google/responses";
import { provisionDemoGcsBucket } from "./demo";
import { type GcsBucket, gcsKeys } from "./state";

const BUCKET_PATH = /^\/storage\/v1\/b\/([^/]+)$/;
const SCOPES = [CLOUD_PLATFORM, "https://www.googleapis.com/auth/devstorage.full_control"];

function resource(name: string, bucket: GcsBucket, fields: string | null): Record<string, unknown> {
  const full: Record<string, unknown> = {
    kind: "storage#bucket",
    id: name,
    selfLink: `https://www.googleapis.com/storage/v1/b/${name}`,
    projectNumber: "123456789012",
    name,
    metageneration: String(bucket.metageneration),
    location: bucket.location ?? "US",
    storageClass: "STANDARD",
    etag: btoa(`${name}:${bucket.metageneration}`).replaceAll("=", ""),
  };
  if (bucket.cors && bucket.cors.length > 0) full.cors = bucket.cors;
  if (!fields) return full;
  const wanted = new Set(fields.split(",").map((f) => f.trim()));
  return Object.fromEntries(Object.entries(full).filter(([k]) => wanted.has(k)));
}

function denied(claims: GoogleTokenClaims, permission: string): Response {
  const message = `${claims.sub} does not have ${permission} access to the Google Cloud Storage bucket. Permission '${permission}' denied on resource (or it may not exist).`;
  return googleError(403, message, { reason: "forbidden" });
}

const notFound = () => googleError(404, "The specified bucket does not exist.", { reason: "notFound" });

function invalidCors(body: unknown): boolean {
  const cors = (body as { cors?: unknown }).cors;
  if (cors === undefined || cors === null) return false;
  return !Array.isArray(cors) || cors.some((r) => typeof r !== "object" || r === null || Array.isArray(r));
}

async function patch(request: Request, state: EmulatorState, name: string, url: URL): Promise<Response> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return googleError(400, "Parse Error", { reason: "parseError" });
  }
  if (typeof body !== "object" || body === null || invalidCors(body)) {
    return googleError(400, "Invalid argument.", { reason: "invalid" });
  }
  // Check and write with no await in between: the precondition is atomic, as in GCS.
  const bucket = state.get<GcsBucket>(gcsKeys.bucket(name)) as GcsBucket;
  const expected = url.searchParams.get("ifMetagenerationMatch");
  if (expected !== null && expected !== String(bucket.metageneration)) {
    state.put(gcsKeys.preconditionFailed, (state.get<number>(gcsKeys.preconditionFailed) ?? 0) + 1);
    return googleError(412, "At least one of the pre-conditions you specified did not hold.", {
      reason: "conditionNotMet",
      locationType: "header",
      location: "If-Match",
    });
  }
  const cors = (body as { cors?: unknown[] | null }).cors;
  const updated: GcsBucket = { ...bucket, metageneration: bucket.metageneration + 1 };
  if (cors !== undefined) updated.cors = cors ?? [];
  state.put(gcsKeys.bucket(name), updated);
  return googleJson(200, resource(name, updated, url.searchParams.get("fields")));
}

export const gcsEmulator: ProviderEmulatorModule = {
  provider: "gcs",
  matches: (host) => host === "storage.googleapis.com",
  isRead: (request) => request.method === "GET" && BUCKET_PATH.test(new URL(request.url).pathname),
  isWrite: (request) => request.method === "PATCH" && BUCKET_PATH.test(new URL(request.url).pathname),

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
    return patch(request, state, name, url);
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
