/**
 * DescribeUserPoolClient / UpdateUserPoolClient (Cognito user pools API reference): POST
 * https://cognito-idp.{region}.amazonaws.com/ in the AWS JSON 1.1 protocol, the action in
 * `X-Amz-Target`, signed with SigV4 (aws4fetch, service `cognito-idp`). Update resets every
 * attribute it is not sent to its default, so the write is the client exactly as described under
 * the lease, read-only fields dropped and only the lists changed (docs/adapters.md, "Amazon Cognito").
 */
import { AwsV4Signer } from "aws4fetch";
import { z } from "zod";
import { withAwsCredentials } from "../aws/credentials";
import { type HttpContext, type ProviderHttpSpec, providerJson } from "../http";
import type { CognitoConfig } from "./config";

export interface CognitoContext extends HttpContext {
  config: CognitoConfig;
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
/** `__type` may carry a namespace: `com.amazonaws.cognito...#ResourceNotFoundException`. */
const errorType = (body: unknown) =>
  str((body as { __type?: unknown } | null)?.__type)
    ?.split("#")
    .pop();

export const cognitoHttp: ProviderHttpSpec = {
  provider: "cognito",
  // Cognito sends no reset header: the helper's backoff applies.
  retryAfterMs: () => undefined,
  describeError(body) {
    if (typeof body !== "object" || body === null) return { message: str(body) || undefined };
    const b = body as { message?: unknown; Message?: unknown };
    return { message: str(b.message) ?? str(b.Message), code: errorType(body) };
  },
  isThrottled: (status, body) => status === 400 && errorType(body) === "TooManyRequestsException",
};

/** Fields Describe returns that Update does not take. */
const READ_ONLY = ["ClientSecret", "CreationDate", "LastModifiedDate"] as const;

export const userPoolClientSchema = z
  .object({
    UserPoolId: z.string(),
    ClientId: z.string(),
    CallbackURLs: z.array(z.string()).nullish(),
    LogoutURLs: z.array(z.string()).nullish(),
    DefaultRedirectURI: z.string().nullish(),
  })
  .loose();
export type UserPoolClient = z.infer<typeof userPoolClientSchema>;

const amzDate = (nowMs: number) => new Date(nowMs).toISOString().replace(/[:-]|\.\d{3}/g, "");

async function call<S extends z.ZodType>(
  ctx: CognitoContext,
  action: string,
  input: unknown,
  schema: S,
): Promise<z.output<S>> {
  const url = `https://cognito-idp.${ctx.config.region}.amazonaws.com/`;
  const body = JSON.stringify(input);
  // Describe is a read; Update a write, made once more only when its one attempt was refused for
  // its credentials (../aws/credentials.ts).
  const write = action !== "DescribeUserPoolClient";
  return withAwsCredentials(
    ctx,
    "cognito",
    async (credentials) => {
      const signer = new AwsV4Signer({
        method: "POST",
        url,
        headers: {
          "content-type": "application/x-amz-json-1.1",
          "x-amz-target": `AWSCognitoIdentityProviderService.${action}`,
        },
        body,
        ...credentials,
        service: "cognito-idp",
        region: ctx.config.region,
        datetime: amzDate(ctx.clock.now()),
      });
      const headers = Object.fromEntries((await signer.sign()).headers);
      return providerJson(
        ctx,
        cognitoHttp,
        { method: "POST", url, headers, body, ...(write ? {} : { read: true as const }) },
        schema,
      );
    },
    { write },
  );
}

export async function describeClient(
  ctx: CognitoContext,
  pool: string,
  client: string,
): Promise<UserPoolClient> {
  const out = await call(
    ctx,
    "DescribeUserPoolClient",
    { UserPoolId: pool, ClientId: client },
    z.object({ UserPoolClient: userPoolClientSchema }),
  );
  return out.UserPoolClient;
}

/** The Update request for `client`: every attribute it has, read-only fields dropped. */
export function updateRequestOf(client: UserPoolClient): Record<string, unknown> {
  const input: Record<string, unknown> = { ...client };
  for (const field of READ_ONLY) delete input[field];
  for (const [k, v] of Object.entries(input)) if (v === null || v === undefined) delete input[k];
  return input;
}

export async function updateClient(ctx: CognitoContext, client: UserPoolClient): Promise<void> {
  await call(ctx, "UpdateUserPoolClient", updateRequestOf(client), z.object({ UserPoolClient: z.unknown() }));
}
