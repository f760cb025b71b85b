/**
 * AWS credentials of an S3 or Cognito connection (docs/design.md, "Federated connections"): an
 * access key pair from the connection's secrets, or, federated, temporary credentials that STS
 * AssumeRoleWithWebIdentity gives for a token the service mints for this connection's subject
 * (./sts.ts). Temporary credentials are a token like any other: the isolate's cache and the fleet's
 * token object keep them (one exchange per connection per lifetime), and each of their secret parts
 * is registered before use.
 */
import { z } from "zod";
import { isSponsonError, SponsonError } from "../../../shared/errors";
import { type HttpContext, withAccessToken } from "../http";
import { assumeRoleWithWebIdentity, STS_SESSION_SECONDS, stsEndpoint } from "./sts";

/** `{ "federated": { "roleArn": … } }`: the role whose trust policy names this connection's subject. */
export const awsFederatedSchema = z.strictObject({
  roleArn: z
    .string()
    // The adapters' endpoints are *.amazonaws.com: a China or GovCloud role could never be assumed.
    .refine((arn) => !/^arn:aws-[a-z-]+:/.test(arn), {
      message:
        "only the aws partition is supported (not aws-cn or aws-us-gov): the endpoints are amazonaws.com",
      abort: true,
    })
    .regex(
      /^arn:aws:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/,
      "an IAM role ARN such as arn:aws:iam::123456789012:role/sponson-previews",
    ),
});

/** The credential fields both AWS adapters take; exactly one form (see `oneCredentialForm`). */
export const awsCredentialFields = {
  /** Not a secret (it is sent in every Authorization header), but may be a reference too. */
  accessKeyId: z
    .string()
    .regex(/^[A-Z0-9]{16,128}$/, "an AWS access key id")
    .optional(),
  secretAccessKey: z.string().min(1).optional(),
  /** Temporary credentials obtained elsewhere carry a session token. */
  sessionToken: z.string().min(1).optional(),
  /** Keyless: no key pair at all. */
  federated: awsFederatedSchema.optional(),
};

type CredentialFields = {
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  sessionToken?: string | undefined;
  federated?: z.infer<typeof awsFederatedSchema> | undefined;
};

export const ONE_CREDENTIAL_FORM =
  "either accessKeyId and secretAccessKey (a Worker secret), or federated { roleArn }, not both";

export function oneCredentialForm(c: CredentialFields): boolean {
  const keyed =
    c.accessKeyId !== undefined || c.secretAccessKey !== undefined || c.sessionToken !== undefined;
  return c.federated ? !keyed : c.accessKeyId !== undefined && c.secretAccessKey !== undefined;
}

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

interface AwsCredentialContext extends HttpContext {
  config: CredentialFields & { region: string };
}

const heldSchema = z.object({ a: z.string(), s: z.string(), t: z.string() });

/**
 * What each service answers to credentials it no longer accepts (AWS never answers 401): S3 400
 * ExpiredToken / InvalidToken, 403 InvalidAccessKeyId; Cognito 400 ExpiredTokenException /
 * UnrecognizedClientException.
 */
const REJECTED_CREDENTIALS: Readonly<Record<string, readonly string[]>> = {
  s3: ["ExpiredToken", "InvalidToken", "InvalidAccessKeyId"],
  cognito: ["ExpiredTokenException", "UnrecognizedClientException"],
};

/** What `call` does: a write is made once more only when no earlier attempt of it may have landed. */
export interface AwsCall {
  write: boolean;
}

/**
 * Whether `err` is the service refusing the credentials. Such an answer is a definite refusal:
 * nothing was done, so one more attempt with fresh credentials is safe (docs/design.md, "Provider
 * tokens"). A write that the request helper sent more than once (a 5xx or no answer first) may
 * have landed before the refusal: it is not sent again (docs/design.md, "Lease protocol").
 */
function rejectedCredentials(family: string, what: AwsCall, err: unknown): boolean {
  if (!isSponsonError(err) || err.code !== "PROVIDER_ERROR") return false;
  const { status, providerCode, attempts, outcome } = err.detail ?? {};
  if (status !== 400 && status !== 403) return false;
  if (typeof providerCode !== "string" || !REJECTED_CREDENTIALS[family]?.includes(providerCode)) return false;
  return !what.write || (attempts === 1 && outcome === undefined);
}

/**
 * Runs `call` (which signs and sends) with the connection's credentials. Federated: the cached
 * temporary credentials, or a new exchange; an exchange refused is a PROVIDER_ERROR naming the
 * connection and AWS's code; credentials the service refuses are dropped from the cache and the
 * fleet's object and `call` is made once more with new ones.
 */
export async function withAwsCredentials<T>(
  ctx: AwsCredentialContext,
  family: string,
  call: (credentials: AwsCredentials) => Promise<T>,
  what: AwsCall = { write: false },
): Promise<T> {
  const { federated, accessKeyId, secretAccessKey, sessionToken } = ctx.config;
  if (!federated) {
    ctx.secrets.register(secretAccessKey ?? "");
    if (sessionToken) ctx.secrets.register(sessionToken);
    return call({
      accessKeyId: accessKeyId ?? "",
      secretAccessKey: secretAccessKey ?? "",
      ...(sessionToken ? { sessionToken } : {}),
    });
  }
  const federation = ctx.federation;
  if (!federation) throw new SponsonError("INTERNAL", `${family}: a federated connection without an issuer`);
  const endpoint = stsEndpoint(ctx.config.region);
  return withAccessToken(
    ctx,
    {
      endpoint,
      clientId: federated.roleArn,
      // No secret: the issuer and this connection's subject name the credential in the cache key.
      clientSecret: `federated:${federation.issuer}:${federation.subject}`,
      async fetchToken() {
        const issued = await assumeRoleWithWebIdentity(ctx, family, endpoint, federated.roleArn, federation);
        ctx.secrets.register(issued.secretAccessKey);
        ctx.secrets.register(issued.sessionToken);
        const held = { a: issued.accessKeyId, s: issued.secretAccessKey, t: issued.sessionToken };
        return { accessToken: JSON.stringify(held), expiresInSeconds: STS_SESSION_SECONDS };
      },
      rejected: (err) => rejectedCredentials(family, what, err),
    },
    (token) => {
      const held = heldSchema.parse(JSON.parse(token));
      // A token from the fleet's object was registered whole; its parts appear alone in headers.
      ctx.secrets.register(held.s);
      ctx.secrets.register(held.t);
      return call({ accessKeyId: held.a, secretAccessKey: held.s, sessionToken: held.t });
    },
  );
}

/** The adapter's `prepare`: a federated connection's exchange happens before any lease is taken. */
export function prepareAwsCredentials(ctx: AwsCredentialContext, family: string): Promise<void> {
  return withAwsCredentials(ctx, family, async () => {});
}
