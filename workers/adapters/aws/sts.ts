/**
 * AWS STS AssumeRoleWithWebIdentity (AWS STS API reference): an unsigned Query request, POST
 * https://sts.{region}.amazonaws.com/ (the regional endpoint AWS recommends) with
 * `Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn&RoleSessionName&WebIdentityToken
 * &DurationSeconds`, answered with XML `Credentials { AccessKeyId, SecretAccessKey, SessionToken,
 * Expiration }`. The web identity token's audience is `sts.amazonaws.com`, the one AWS documents
 * for an IAM OIDC provider used this way. Errors: `<ErrorResponse><Error><Code/><Message/>`.
 */
import { SponsonError } from "../../../shared/errors";
import type { FederationAssertions } from "../../keys/federation";
import { type HttpContext, type ProviderHttpSpec, providerRequest } from "../http";
import { xmlText } from "../s3/cors-xml";

export const STS_AUDIENCE = "sts.amazonaws.com";
/** The shortest session STS grants: enough for a run, and worthless soon after. */
export const STS_SESSION_SECONDS = 900;

export const stsEndpoint = (region: string) => `https://sts.${region}.amazonaws.com/`;

function field(xml: string, name: string): string | undefined {
  const m = xml.match(new RegExp(`<${name}>([^<]*)</${name}>`));
  return m?.[1] === undefined ? undefined : (xmlText(m[1]) ?? undefined);
}

const TRANSIENT = new Set(["Throttling", "IDPCommunicationError"]);

const stsHttp = (family: string): ProviderHttpSpec => ({
  provider: family,
  // STS throttles with 400 Throttling and no reset header: the helper's backoff applies. 400
  // IDPCommunicationError (STS could not reach the issuer) is documented as transient: the same.
  retryAfterMs: () => undefined,
  isThrottled: (status, body) =>
    status === 400 && typeof body === "string" && TRANSIENT.has(field(body, "Code") ?? ""),
  describeError(body) {
    if (typeof body !== "string") return {};
    return { code: field(body, "Code"), message: field(body, "Message") };
  },
});

export interface TemporaryCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
}

/** `sponson-<connection>`, within STS's 64 characters of [\w+=,.@-] (CloudTrail shows who assumed). */
export function sessionName(subject: string): string {
  const connection = subject.replace(/^sponson:connection:/, "");
  return `sponson-${connection}`.replace(/[^\w+=,.@-]/g, "-").slice(0, 64);
}

export async function assumeRoleWithWebIdentity(
  ctx: HttpContext,
  family: string,
  endpoint: string,
  roleArn: string,
  federation: FederationAssertions,
): Promise<TemporaryCredentials> {
  const connection = federation.subject.replace(/^sponson:connection:/, "");
  let response: Response;
  try {
    response = await providerRequest(ctx, stsHttp(family), {
      method: "POST",
      read: true,
      url: endpoint,
      headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8", accept: "text/xml" },
      body: new URLSearchParams({
        Action: "AssumeRoleWithWebIdentity",
        Version: "2011-06-15",
        RoleArn: roleArn,
        RoleSessionName: sessionName(federation.subject),
        WebIdentityToken: await federation.assertion(STS_AUDIENCE),
        DurationSeconds: String(STS_SESSION_SECONDS),
      }).toString(),
    });
  } catch (err) {
    throw refused(err, connection, roleArn);
  }
  const xml = await response.text();
  const credentials = {
    accessKeyId: field(xml, "AccessKeyId"),
    secretAccessKey: field(xml, "SecretAccessKey"),
    sessionToken: field(xml, "SessionToken"),
  };
  if (!credentials.accessKeyId || !credentials.secretAccessKey || !credentials.sessionToken) {
    throw new SponsonError(
      "PROVIDER_ERROR",
      `connection "${connection}": AWS STS answered AssumeRoleWithWebIdentity without credentials`,
      { provider: family, connection },
    );
  }
  return credentials as TemporaryCredentials;
}

/** The exchange's refusal, naming the connection, the role and AWS's own code. */
function refused(err: unknown, connection: string, roleArn: string): unknown {
  if (!(err instanceof SponsonError) || err.code !== "PROVIDER_ERROR") return err;
  const code = typeof err.detail?.providerCode === "string" ? err.detail.providerCode : "no error code";
  return new SponsonError(
    "PROVIDER_ERROR",
    `connection "${connection}": AWS STS refused AssumeRoleWithWebIdentity for ${roleArn} (${code}): ${err.message}`,
    { ...err.detail, connection, exchange: "AssumeRoleWithWebIdentity" },
    { retriable: err.retriable },
  );
}
