/**
 * GET and PATCH /storage/v1/b/{bucket}: the bucket resource with `fields` projection, and a PATCH
 * of its CORS under `ifMetagenerationMatch` (412 conditionNotMet on a mismatch). Every PATCH
 * increments metageneration; `cors: []` clears the field, which GCS then leaves out.
 */
import type { EmulatorState } from "../emulator";
import { CLOUD_PLATFORM, type GoogleTokenClaims } from "../google/access-token";
import { googleError, googleJson } from "../google/responses";
import { type GcsBucket, gcsKeys } from "./state";

export const BUCKET_PATH = /^\/storage\/v1\/b\/([^/]+)$/;
export const SCOPES = [CLOUD_PLATFORM, "https://www.googleapis.com/auth/devstorage.full_control"];

export function resource(name: string, bucket: GcsBucket, fields: string | null): Record<string, unknown> {
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

export function denied(claims: GoogleTokenClaims, permission: string): Response {
  const message = `${claims.sub} does not have ${permission} access to the Google Cloud Storage bucket. Permission '${permission}' denied on resource (or it may not exist).`;
  return googleError(403, message, { reason: "forbidden" });
}

export const notFound = () =>
  googleError(404, "The specified bucket does not exist.", { reason: "notFound" });

function invalidCors(body: unknown): boolean {
  const cors = (body as { cors?: unknown }).cors;
  if (cors === undefined || cors === null) return false;
  return !Array.isArray(cors) || cors.some((r) => typeof r !== "object" || r === null || Array.isArray(r));
}

export async function patchBucket(
  request: Request,
  state: EmulatorState,
  name: string,
  url: URL,
): Promise<Response> {
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
