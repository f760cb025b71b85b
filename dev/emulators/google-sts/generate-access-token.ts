/**
 * POST iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/{email}:generateAccessToken (IAM
 * Service Account Credentials API v1): the caller's bearer (a federated token from STS) must belong
 * to a principal the account's policy grants roles/iam.workloadIdentityUser (or
 * roles/iam.serviceAccountTokenCreator); else Google's 403 PERMISSION_DENIED. The access token it
 * issues is the one the Cloud Storage, Identity Platform and IAM emulators accept.
 */
import type { EmulatorState } from "../emulator";
import { hasScope, issueGoogleToken, verifyGoogleToken } from "../google/access-token";
import { googleError, googleJson, UNAUTHENTICATED_MESSAGE } from "../google/responses";
import { provisionDemoPolicy } from "./demo";
import { googleStsKeys, type ServiceAccountPolicy, WORKLOAD_IDENTITY_USER } from "./state";

export const GENERATE_PATH = /^\/v1\/projects\/[^/]+\/serviceAccounts\/([^/:]+):generateAccessToken$/;
const MAX_LIFETIME_SECONDS = 3_600;
const IAM_SCOPE = "https://www.googleapis.com/auth/iam";
const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";

function permissionDenied(): Response {
  const permission = "iam.serviceAccounts.getAccessToken";
  return googleJson(403, {
    error: {
      code: 403,
      message: `Permission '${permission}' denied on resource (or it may not exist).`,
      status: "PERMISSION_DENIED",
      details: [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "IAM_PERMISSION_DENIED",
          domain: "iam.googleapis.com",
          metadata: { permission },
        },
      ],
    },
  });
}

function mayImpersonate(policy: ServiceAccountPolicy | undefined, caller: string): boolean {
  const members = [
    ...(policy?.bindings[WORKLOAD_IDENTITY_USER] ?? []),
    ...(policy?.bindings["roles/iam.serviceAccountTokenCreator"] ?? []),
  ];
  return members.includes(caller) || members.includes(`serviceAccount:${caller}`);
}

export async function generateAccessToken(
  request: Request,
  state: EmulatorState,
  email: string,
): Promise<Response> {
  provisionDemoPolicy(email, state);
  const nowMs = Date.now();
  const caller = await verifyGoogleToken(request.headers.get("authorization"), nowMs);
  if (!caller) return googleError(401, UNAUTHENTICATED_MESSAGE);
  if (!hasScope(caller, [CLOUD_PLATFORM, IAM_SCOPE])) {
    return googleError(403, "Request had insufficient authentication scopes.");
  }
  if (!mayImpersonate(state.get<ServiceAccountPolicy>(googleStsKeys.policy(email)), caller.sub))
    return permissionDenied();
  const body = (await request.json().catch(() => null)) as { scope?: unknown; lifetime?: unknown } | null;
  const scopes = body?.scope;
  if (
    !Array.isArray(scopes) ||
    scopes.length === 0 ||
    !scopes.every((s) => typeof s === "string" && s !== "")
  ) {
    return googleError(400, "Scope required.");
  }
  let lifetimeSeconds = MAX_LIFETIME_SECONDS;
  if (body?.lifetime !== undefined) {
    const match = /^(\d+)(\.\d+)?s$/.exec(String(body.lifetime));
    lifetimeSeconds = Number(match?.[1] ?? Number.NaN);
    if (!(lifetimeSeconds >= 1 && lifetimeSeconds <= MAX_LIFETIME_SECONDS)) {
      return googleError(
        400,
        "The value for lifetime must be between 1s and 3600s (or 43200s with the constraints/iam.allowServiceAccountCredentialLifetimeExtension policy).",
      );
    }
  }
  const expiresAtMs = nowMs + lifetimeSeconds * 1000;
  const accessToken = await issueGoogleToken({
    sub: email,
    scope: scopes.join(" "),
    iat: nowMs,
    exp: expiresAtMs,
  });
  return googleJson(200, {
    accessToken,
    expireTime: new Date(expiresAtMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
  });
}
