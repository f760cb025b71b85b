/**
 * The S3 emulator, the bucket CORS subresource (./cors-endpoint.ts) in both addressing styles:
 * virtual-hosted `{bucket}.s3.{region}.amazonaws.com/?cors` and path-style
 * `s3.{region}.amazonaws.com/{bucket}?cors` (`s3.amazonaws.com` is us-east-1). Every request must
 * carry a SigV4 Authorization header (./authenticate.ts) and `x-amz-content-sha256`. A bucket that
 * does not exist is 404 NoSuchBucket whoever asks; throttling is 503 SlowDown; errors in S3's XML
 * envelope (./responses.ts). State: ./state.ts, one object per bucket.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { checkSigningHeaders, verifyKey } from "./authenticate";
import { deleteCors, getCors, putCors } from "./cors-endpoint";
import { provisionDemoBucket } from "./demo";
import { sha256Hex } from "./integrity";
import { ACCESS_DENIED, s3Error } from "./responses";
import { type S3Bucket, s3Keys } from "./state";

const BUCKET = "[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]";
const REGION = "[a-z]{2}(?:-[a-z]+)+-\\d{1,2}";
const VIRTUAL_HOST = new RegExp(`^(${BUCKET})\\.s3(?:\\.(${REGION}))?\\.amazonaws\\.com$`);
const PATH_HOST = new RegExp(`^s3(?:\\.(${REGION}))?\\.amazonaws\\.com$`);
/** The global endpoint's region. */
const DEFAULT_REGION = "us-east-1";

interface Addressed {
  bucket: string;
  region: string;
  /** The key part of the path: "/" for the bucket itself. */
  path: string;
}

/** Which bucket, region and key a request addresses, in either style; null: no bucket named. */
function locate(url: URL): Addressed | null {
  const virtual = url.host.match(VIRTUAL_HOST);
  if (virtual?.[1]) return { bucket: virtual[1], region: virtual[2] ?? DEFAULT_REGION, path: url.pathname };
  const pathStyle = url.host.match(PATH_HOST);
  const named = url.pathname.match(new RegExp(`^/(${BUCKET})(/.*)?$`));
  if (!pathStyle || !named?.[1]) return null;
  return { bucket: named[1], region: pathStyle[1] ?? DEFAULT_REGION, path: named[2] ?? "/" };
}

const isCors = (request: Request) => {
  const url = new URL(request.url);
  return locate(url)?.path === "/" && url.searchParams.has("cors");
};

const notImplemented = () =>
  s3Error(501, "NotImplemented", "A header you provided implies functionality that is not implemented");

export const s3Emulator: ProviderEmulatorModule = {
  provider: "s3",
  matches: (host) => VIRTUAL_HOST.test(host) || PATH_HOST.test(host),
  objectName(url) {
    const at = locate(url);
    return at ? `${at.bucket}.s3.${at.region}.amazonaws.com` : url.host;
  },
  isRead: (request) => request.method === "GET" && isCors(request),
  isWrite: (request) => (request.method === "PUT" || request.method === "DELETE") && isCors(request),

  async handle(request, state) {
    const at = locate(new URL(request.url));
    // Listing buckets (a path-style request naming none) is not modelled.
    if (!at) return notImplemented();
    provisionDemoBucket(at.bucket, at.region, state);
    const body = new Uint8Array(await request.arrayBuffer());
    const auth = checkSigningHeaders(request, at.region);
    if (auth instanceof Response) return auth;
    const bucket = state.get<S3Bucket>(s3Keys.bucket);
    if (!bucket) {
      return s3Error(404, "NoSuchBucket", "The specified bucket does not exist", { BucketName: at.bucket });
    }
    const who = await verifyKey(request, state, auth);
    if (who instanceof Response) return who;
    const declared = request.headers.get("x-amz-content-sha256");
    if (declared !== "UNSIGNED-PAYLOAD" && declared !== (await sha256Hex(body))) {
      return s3Error(
        400,
        "XAmzContentSHA256Mismatch",
        "The provided 'x-amz-content-sha256' header does not match what was computed.",
      );
    }
    if (!isCors(request) || !["GET", "PUT", "DELETE"].includes(request.method)) return notImplemented();
    if (request.method !== "GET" && who.key.access !== "full")
      return s3Error(403, "AccessDenied", ACCESS_DENIED);
    if (request.method === "GET") return getCors(bucket, at.bucket);
    if (request.method === "DELETE") return deleteCors(state, bucket);
    return putCors(request, state, body, at.bucket);
  },

  injectedError(status) {
    if (status === 503 || status === 429) {
      // S3 throttles with 503 SlowDown; the knob's 429 (used by the shared contract) answers the
      // same envelope with the status asked for. Neither carries a reset header.
      return s3Error(status, "SlowDown", "Please reduce your request rate.");
    }
    if (status >= 500)
      return s3Error(status, "InternalError", "We encountered an internal error. Please try again.");
    return s3Error(status, "InvalidRequest", "Injected failure");
  },
};

export { MAX_CORS_BYTES, MAX_CORS_RULES } from "./cors-endpoint";
export { DEMO_ACCESS_KEY } from "./demo";
export { type S3AccessKey, type S3Bucket, type S3RoleAccess, s3Keys } from "./state";
