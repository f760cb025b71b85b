/** The Amazon Cognito provider block and line params (Cognito user pools API reference). */
import { z } from "zod";
import { awsCredentialFields, ONE_CREDENTIAL_FORM, oneCredentialForm } from "../aws/credentials";

/** A key pair, or keyless `federated: { roleArn }` (docs/design.md, "Federated connections"). */
export const cognitoConfigSchema = z
  .strictObject({
    type: z.literal("cognito"),
    /** The pools' region: requests go to https://cognito-idp.{region}.amazonaws.com/ (and STS's there). */
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, "an AWS region such as us-east-1"),
    ...awsCredentialFields,
  })
  .refine(oneCredentialForm, { message: ONE_CREDENTIAL_FORM });
export type CognitoConfig = z.infer<typeof cognitoConfigSchema>;

export const cognitoLineParamsSchema = z.strictObject({
  /** e.g. us-east-1_AbCdEf123 */
  userPool: z.string().regex(/^[\w-]+_[0-9a-zA-Z]+$/, "a user pool id such as us-east-1_AbCdEf123"),
  /** The app client's id. */
  client: z.string().regex(/^[\w+]{1,128}$/, "an app client id"),
  /** Cognito takes absolute URLs, HTTPS unless localhost, no fragment, at most 1024 characters. */
  url: z
    .string()
    .max(1_024)
    .regex(
      /^(https:\/\/|http:\/\/localhost[:/]|[a-z][a-z0-9+.-]*:\/\/)[^\s#,]*$/i,
      "an absolute URL without a fragment",
    ),
});

/** `cognito:<region>:<user pool>:client:<client id>` (docs/design.md, "Vocabulary"). */
export function cognitoClientIdentity(region: string, userPool: string, client: string): string {
  return `cognito:${region}:${userPool}:client:${client}`;
}
