/**
 * SigV4 header authentication as S3 does it, in its order and wording (./sigv4.ts computes the
 * signature). Not modelled: RequestTimeTooSkewed (tests run on fake clocks).
 */
import type { EmulatorState } from "../emulator";
import { ACCESS_DENIED, s3Error } from "./responses";
import { expectedSignature, parseSigV4, type SigV4Authorization } from "./sigv4";
import { type S3AccessKey, s3Keys } from "./state";

/** The Authorization header's shape and the request's signing headers, before any key is looked up. */
export function checkSigningHeaders(request: Request, region: string): Response | SigV4Authorization {
  const header = request.headers.get("authorization");
  if (header === null) return s3Error(403, "AccessDenied", ACCESS_DENIED);
  const auth = parseSigV4(header);
  if (!auth) {
    return s3Error(
      400,
      "AuthorizationHeaderMalformed",
      "The authorization header is malformed; the Credential is mal-formed.",
    );
  }
  const amzDate = request.headers.get("x-amz-date");
  if (!amzDate || !/^\d{8}T\d{6}Z$/.test(amzDate)) {
    return s3Error(403, "AccessDenied", "AWS authentication requires a valid Date or x-amz-date header");
  }
  if (!request.headers.has("x-amz-content-sha256")) {
    return s3Error(400, "InvalidRequest", "Missing required header for this request: x-amz-content-sha256");
  }
  if (auth.region !== region) {
    return s3Error(
      400,
      "AuthorizationHeaderMalformed",
      `The authorization header is malformed; the region '${auth.region}' is wrong; expecting '${region}'`,
      { Region: region },
    );
  }
  if (auth.service !== "s3" || auth.date !== amzDate.slice(0, 8) || !auth.signedHeaders.includes("host")) {
    return s3Error(
      400,
      "AuthorizationHeaderMalformed",
      "The authorization header is malformed; incorrect service, date or signed headers.",
    );
  }
  return auth;
}

/** The caller's key when it exists and the signature verifies; S3's refusal otherwise. */
export async function verifyKey(
  request: Request,
  state: EmulatorState,
  auth: SigV4Authorization,
): Promise<Response | { key: S3AccessKey }> {
  const key = state.get<S3AccessKey>(s3Keys.accessKey(auth.accessKeyId));
  if (!key) {
    return s3Error(
      403,
      "InvalidAccessKeyId",
      "The AWS Access Key Id you provided does not exist in our records.",
      { AWSAccessKeyId: auth.accessKeyId },
    );
  }
  if ((await expectedSignature(request, auth, key.secretAccessKey)) !== auth.signature) {
    return s3Error(
      403,
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
      { AWSAccessKeyId: auth.accessKeyId },
    );
  }
  return { key };
}
