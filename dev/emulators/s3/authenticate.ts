/**
 * SigV4 header authentication as S3 does it, in its order and wording (./sigv4.ts computes the
 * signature). Not modelled: RequestTimeTooSkewed (tests run on fake clocks).
 */
import { isSessionKey, sessionOf } from "../aws-sts/session-credentials";
import type { EmulatorState } from "../emulator";
import { ACCESS_DENIED, s3Error } from "./responses";
import { expectedSignature, parseSigV4, type SigV4Authorization } from "./sigv4";
import { type S3AccessKey, type S3RoleAccess, s3Keys } from "./state";

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

const unknownKey = (auth: SigV4Authorization) =>
  s3Error(403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.", {
    AWSAccessKeyId: auth.accessKeyId,
  });

/**
 * Temporary credentials (STS): the key is known only with its `X-Amz-Security-Token`, which must
 * be signed, be the token issued with it and be unexpired; what the role may do here is the
 * bucket's `role:<arn>` entry (none: Access Denied, as with no policy allowing it).
 */
async function sessionKey(request: Request, state: EmulatorState, auth: SigV4Authorization) {
  const token = request.headers.get("x-amz-security-token");
  const check = await sessionOf(auth.accessKeyId, token, Date.now());
  if (!check.ok) {
    if (check.refusal === "missing") return unknownKey(auth);
    if (check.refusal === "expired") return s3Error(400, "ExpiredToken", "The provided token has expired.");
    return s3Error(400, "InvalidToken", "The provided token is malformed or otherwise invalid.");
  }
  if (!auth.signedHeaders.includes("x-amz-security-token"))
    return s3Error(403, "AccessDenied", "There were headers present in the request which were not signed", {
      HeadersNotSigned: "x-amz-security-token",
    });
  const role = state.get<S3RoleAccess>(s3Keys.role(check.session.roleArn));
  return { secretAccessKey: check.session.secretAccessKey, access: role?.access ?? "none" } as const;
}

/** The caller's key when it exists and the signature verifies; S3's refusal otherwise. */
export async function verifyKey(
  request: Request,
  state: EmulatorState,
  auth: SigV4Authorization,
): Promise<Response | { key: S3AccessKey }> {
  if (isSessionKey(auth.accessKeyId)) {
    const session = await sessionKey(request, state, auth);
    if (session instanceof Response) return session;
    if ((await expectedSignature(request, auth, session.secretAccessKey)) !== auth.signature)
      return mismatch(auth);
    if (session.access === "none") return s3Error(403, "AccessDenied", ACCESS_DENIED);
    return { key: { secretAccessKey: session.secretAccessKey, access: session.access } };
  }
  const key = state.get<S3AccessKey>(s3Keys.accessKey(auth.accessKeyId));
  if (!key) return unknownKey(auth);
  if ((await expectedSignature(request, auth, key.secretAccessKey)) !== auth.signature) return mismatch(auth);
  return { key };
}

function mismatch(auth: SigV4Authorization): Response {
  return s3Error(
    403,
    "SignatureDoesNotMatch",
    "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
    { AWSAccessKeyId: auth.accessKeyId },
  );
}
