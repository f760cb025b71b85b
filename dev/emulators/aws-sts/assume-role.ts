/**
 * AssumeRoleWithWebIdentity (AWS STS API reference): an unsigned Query request whose
 * `WebIdentityToken` is an OIDC token. STS finds the account's OIDC provider for the token's `iss`,
 * verifies it against the issuer's discovery document and JWKS (../oidc-assertions.ts), requires an
 * `aud` among the provider's client ids, then evaluates the role's trust policy (`<issuer>:sub`,
 * `<issuer>:aud`). Refusals in STS's own codes and words (./responses.ts).
 */
import type { EmulatorState } from "../emulator";
import { checkAssertion } from "../oidc-assertions";
import { EXPIRED, NOT_AUTHORIZED, NOT_VALIDATED, requestId, STS_XMLNS, stsError, stsXml } from "./responses";
import { assumedRoleArn, issueSession } from "./session-credentials";
import { providerName, type StsOidcProvider, type StsRole, stsKeys } from "./state";

const ROLE_ARN = /^arn:aws:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;
const SESSION_NAME = /^[\w+=,.@-]{2,64}$/;
const DEFAULT_MAX_SESSION_SECONDS = 3600;

function validation(field: string, value: string, constraint: string): Response {
  return stsError(
    400,
    "ValidationError",
    `1 validation error detected: Value '${value}' at '${field}' failed to satisfy constraint: ${constraint}`,
  );
}

function unverifiedIssuer(token: string): string | null {
  try {
    const payload = JSON.parse(atob((token.split(".")[1] ?? "").replace(/-/g, "+").replace(/_/g, "/")));
    return typeof payload.iss === "string" ? payload.iss : null;
  } catch {
    return null;
  }
}

export async function assumeRoleWithWebIdentity(
  form: URLSearchParams,
  state: EmulatorState,
  outbound: typeof fetch,
  nowMs: number,
): Promise<Response> {
  const roleArn = form.get("RoleArn") ?? "";
  const sessionName = form.get("RoleSessionName") ?? "";
  const token = form.get("WebIdentityToken") ?? "";
  const duration = Number(form.get("DurationSeconds") ?? DEFAULT_MAX_SESSION_SECONDS);
  if (!ROLE_ARN.test(roleArn)) return validation("roleArn", roleArn, "Member must satisfy the ARN pattern");
  if (!SESSION_NAME.test(sessionName))
    return validation(
      "roleSessionName",
      sessionName,
      "Member must satisfy regular expression pattern: [\\w+=,.@-]*",
    );
  if (token.length < 4)
    return validation("webIdentityToken", "***", "Member must have length greater than or equal to 4");
  const role = state.get<StsRole>(stsKeys.role(roleArn));
  const max = role?.maxSessionSeconds ?? DEFAULT_MAX_SESSION_SECONDS;
  if (!Number.isInteger(duration) || duration < 900 || duration > max) {
    return stsError(
      400,
      "ValidationError",
      `The requested DurationSeconds exceeds the MaxSessionDuration set for this role.`,
    );
  }
  const iss = unverifiedIssuer(token);
  if (iss === null) return stsError(400, "InvalidIdentityToken", NOT_VALIDATED);
  const provider = state.get<StsOidcProvider>(stsKeys.provider(iss));
  if (!provider || provider.url !== iss)
    return stsError(
      400,
      "InvalidIdentityToken",
      `No OpenIDConnect provider found in your account for ${iss}`,
    );
  // Verified against the provider (its client ids); the trust policy is evaluated after.
  const check = await checkAssertion(
    token,
    { issuer: iss, subject: role?.trust.subject ?? "", audiences: provider.clientIds },
    outbound,
    nowMs,
  );
  if (!check.ok) {
    switch (check.refusal) {
      case "expired":
        return stsError(400, "ExpiredTokenException", EXPIRED);
      case "audience":
        return stsError(400, "InvalidIdentityToken", "Incorrect token audience");
      case "discovery":
        return stsError(
          400,
          "InvalidIdentityToken",
          "Couldn't retrieve verification key from your identity provider,  please reference AssumeRoleWithWebIdentity documentation for requirements",
        );
      case "subject":
        break;
      default:
        return stsError(400, "InvalidIdentityToken", NOT_VALIDATED);
    }
  }
  // No role, another provider, another subject or audience: the trust policy does not allow it.
  const claims = check.ok ? check.claims : null;
  const aud = [claims?.aud ?? []].flat();
  if (
    !role ||
    !claims ||
    ![role.trust.issuer].flat().some((trusted) => providerName(trusted) === providerName(iss)) ||
    role.trust.subject !== claims.sub ||
    !aud.includes(role.trust.audience)
  )
    return stsError(403, "AccessDenied", NOT_AUTHORIZED);

  const issued = await issueSession(roleArn, sessionName, nowMs + duration * 1000);
  const id = requestId();
  const assumedId = `AROA${roleArn.length.toString().padStart(4, "0")}SPONSONEMU:${sessionName}`;
  return stsXml(
    `<AssumeRoleWithWebIdentityResponse xmlns="${STS_XMLNS}">
  <AssumeRoleWithWebIdentityResult>
    <Audience>${role.trust.audience}</Audience>
    <AssumedRoleUser>
      <AssumedRoleId>${assumedId}</AssumedRoleId>
      <Arn>${assumedRoleArn(roleArn, sessionName)}</Arn>
    </AssumedRoleUser>
    <Provider>${providerName(iss)}</Provider>
    <Credentials>
      <AccessKeyId>${issued.AccessKeyId}</AccessKeyId>
      <SecretAccessKey>${issued.SecretAccessKey}</SecretAccessKey>
      <SessionToken>${issued.SessionToken}</SessionToken>
      <Expiration>${issued.Expiration}</Expiration>
    </Credentials>
    <SubjectFromWebIdentityToken>${claims.sub}</SubjectFromWebIdentityToken>
  </AssumeRoleWithWebIdentityResult>
  <ResponseMetadata>
    <RequestId>${id}</RequestId>
  </ResponseMetadata>
</AssumeRoleWithWebIdentityResponse>
`,
    id,
  );
}
