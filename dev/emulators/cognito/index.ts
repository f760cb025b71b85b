/**
 * The Cognito user pools emulator (cognito-idp.{region}.amazonaws.com): POST / in the AWS JSON 1.1
 * protocol, the action in `X-Amz-Target: AWSCognitoIdentityProviderService.<Action>`, SigV4 with
 * service `cognito-idp` (checked by ../s3/sigv4.ts, the body's hash signed but not sent). Actions:
 * ./user-pool-clients.ts. Errors and throttling: ./responses.ts. State: ./state.ts.
 */
import { isSessionKey, sessionOf } from "../aws-sts/session-credentials";
import type { EmulatorState, ProviderEmulatorModule } from "../emulator";
import { sha256Hex } from "../s3/integrity";
import { expectedSignature, parseSigV4 } from "../s3/sigv4";
import { provisionDemoPool } from "./demo";
import { awsError, INVALID_SIGNATURE } from "./responses";
import { type CognitoAccessKey, type CognitoRoleAccess, cognitoKeys } from "./state";
import { describeUserPoolClient, updateUserPoolClient } from "./user-pool-clients";

const HOST = /^cognito-idp\.([a-z]{2}(?:-[a-z]+)+-\d{1,2})\.amazonaws\.com$/;
const TARGET_PREFIX = "AWSCognitoIdentityProviderService.";
const target = (request: Request) => request.headers.get("x-amz-target") ?? "";
const INVALID_TOKEN = "The security token included in the request is invalid.";

/**
 * The caller's key: an IAM user's, or temporary credentials (STS) known only with their signed
 * `X-Amz-Security-Token`, whose permissions here are the host's `role:<arn>` entry.
 */
async function callerKey(
  request: Request,
  state: EmulatorState,
  accessKeyId: string,
  signedHeaders: string[],
): Promise<CognitoAccessKey | Response> {
  if (!isSessionKey(accessKeyId)) {
    const key = state.get<CognitoAccessKey>(cognitoKeys.accessKey(accessKeyId));
    return key ?? awsError("UnrecognizedClientException", INVALID_TOKEN);
  }
  const check = await sessionOf(accessKeyId, request.headers.get("x-amz-security-token"), Date.now());
  if (!check.ok && check.refusal === "expired")
    return awsError("ExpiredTokenException", "The security token included in the request is expired");
  if (!check.ok || !signedHeaders.includes("x-amz-security-token"))
    return awsError("UnrecognizedClientException", INVALID_TOKEN);
  const role = state.get<CognitoRoleAccess>(cognitoKeys.role(check.session.roleArn));
  return {
    secretAccessKey: check.session.secretAccessKey,
    access: role?.access ?? "none",
    arn: check.session.assumedRoleArn,
  };
}

export const cognitoEmulator: ProviderEmulatorModule = {
  provider: "cognito",
  matches: (host) => HOST.test(host),
  isRead: (request) => target(request) === `${TARGET_PREFIX}DescribeUserPoolClient`,
  isWrite: (request) => target(request) === `${TARGET_PREFIX}UpdateUserPoolClient`,

  async handle(request, state) {
    const url = new URL(request.url);
    const region = url.host.match(HOST)?.[1] as string;
    const bytes = new Uint8Array(await request.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text || "{}") as Record<string, unknown>;
    } catch {
      return awsError("SerializationException", "Start of structure or map found where not expected.");
    }
    if (typeof body.UserPoolId === "string") provisionDemoPool(region, body.UserPoolId, state);
    const header = request.headers.get("authorization");
    if (!header) return awsError("MissingAuthenticationTokenException", "Missing Authentication Token");
    const auth = parseSigV4(header);
    const amzDate = request.headers.get("x-amz-date") ?? "";
    if (!auth) return awsError("IncompleteSignatureException", "Authorization header requires a Credential.");
    if (auth.service !== "cognito-idp" || auth.region !== region || auth.date !== amzDate.slice(0, 8)) {
      return awsError(
        "IncompleteSignatureException",
        "Credential should be scoped to a valid region and service.",
      );
    }
    const key = await callerKey(request, state, auth.accessKeyId, auth.signedHeaders);
    if (key instanceof Response) return key;
    const expected = await expectedSignature(request, auth, key.secretAccessKey, await sha256Hex(bytes));
    if (expected !== auth.signature) return awsError("InvalidSignatureException", INVALID_SIGNATURE);
    if (request.method !== "POST" || url.pathname !== "/") {
      return awsError("UnknownOperationException", "Unknown operation", 404);
    }
    const action = target(request).startsWith(TARGET_PREFIX)
      ? target(request).slice(TARGET_PREFIX.length)
      : "";
    const known = action === "DescribeUserPoolClient" || action === "UpdateUserPoolClient";
    if (!known) return awsError("UnknownOperationException", "");
    if (key.access === "none" || (action === "UpdateUserPoolClient" && key.access !== "full")) {
      const pool = String(body.UserPoolId ?? "");
      return awsError(
        "AccessDeniedException",
        `User: ${key.arn} is not authorized to perform: cognito-idp:${action} on resource: arn:aws:cognito-idp:${region}:123456789012:userpool/${pool} because no identity-based policy allows the cognito-idp:${action} action`,
      );
    }
    if (action === "DescribeUserPoolClient") return describeUserPoolClient(state, body);
    return updateUserPoolClient(state, body);
  },

  injectedError(status) {
    // Cognito throttles with HTTP 400 TooManyRequestsException and no reset header.
    if (status === 429) return awsError("TooManyRequestsException", "Too many requests");
    if (status >= 500) return awsError("InternalErrorException", "Internal server error", status);
    return awsError("InvalidParameterException", "Injected failure", status);
  },
};

export { DEMO_COGNITO } from "./demo";
export {
  type CognitoAccessKey,
  type CognitoRoleAccess,
  cognitoKeys,
  type UserPoolClient,
  userPoolClient,
} from "./state";
