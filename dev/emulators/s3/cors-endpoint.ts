/**
 * The bucket's CORS subresource: GET, PUT and DELETE ?cors. PUT replaces the whole document with
 * no precondition (last write wins); it needs Content-MD5 or a flexible checksum (./integrity.ts),
 * at most 100 rules and 64 KB. No configuration: GET is 404 NoSuchCORSConfiguration.
 */
import type { EmulatorState } from "../emulator";
import { type CorsRule, readCorsDocument, writeCorsDocument } from "./cors-xml";
import { checkIntegrity } from "./integrity";
import { MALFORMED_XML, s3Empty, s3Error, s3Xml } from "./responses";
import { type S3Bucket, s3Keys } from "./state";

export const MAX_CORS_RULES = 100;
export const MAX_CORS_BYTES = 64 * 1024;
const METHODS = new Set(["GET", "PUT", "POST", "DELETE", "HEAD"]);

/** S3's own checks on a CORS document; the rules when valid. */
function validate(xml: string): CorsRule[] | Response {
  const rules = readCorsDocument(xml);
  if (!rules || rules.length === 0) return s3Error(400, "MalformedXML", MALFORMED_XML);
  // AWS documents the cap, not its refusal: these are the words S3-compatible servers answer.
  if (rules.length > MAX_CORS_RULES) {
    return s3Error(
      400,
      "InvalidRequest",
      `The number of CORS rules should not exceed allowed limit of ${MAX_CORS_RULES} rules.`,
    );
  }
  for (const rule of rules) {
    if (rule.AllowedOrigin.length === 0 || rule.AllowedMethod.length === 0 || (rule.ID?.length ?? 0) > 255) {
      return s3Error(400, "MalformedXML", MALFORMED_XML);
    }
    const method = rule.AllowedMethod.find((m) => !METHODS.has(m));
    if (method !== undefined) {
      return s3Error(
        400,
        "InvalidRequest",
        `Found unsupported HTTP method in CORS config. Unsupported method is ${method}`,
      );
    }
    const origin = rule.AllowedOrigin.find((o) => o.split("*").length > 2);
    if (origin !== undefined) {
      return s3Error(400, "InvalidRequest", `AllowedOrigin "${origin}" can not have more than one wildcard.`);
    }
  }
  return rules;
}

export async function putCors(request: Request, state: EmulatorState, body: Uint8Array, bucketName: string) {
  const problem = await checkIntegrity(request.headers, body);
  if (problem) return s3Error(400, problem.code, problem.message);
  // [U] the documented 64 KB limit; the exact error S3 answers past it was not confirmed.
  if (body.byteLength > MAX_CORS_BYTES) {
    return s3Error(400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size");
  }
  const rules = validate(new TextDecoder().decode(body));
  if (rules instanceof Response) return rules;
  // Read and write with no await in between: last write wins, as on S3.
  const bucket = state.get<S3Bucket>(s3Keys.bucket);
  if (!bucket)
    return s3Error(404, "NoSuchBucket", "The specified bucket does not exist", { BucketName: bucketName });
  state.put<S3Bucket>(s3Keys.bucket, { ...bucket, rules });
  return s3Empty(200);
}

export function getCors(bucket: S3Bucket, bucketName: string): Response {
  if (!bucket.rules || bucket.rules.length === 0) {
    return s3Error(404, "NoSuchCORSConfiguration", "The CORS configuration does not exist", {
      BucketName: bucketName,
    });
  }
  return s3Xml(200, writeCorsDocument(bucket.rules));
}

export function deleteCors(state: EmulatorState, bucket: S3Bucket): Response {
  state.put<S3Bucket>(s3Keys.bucket, { ...bucket, rules: [] });
  return s3Empty(204);
}
