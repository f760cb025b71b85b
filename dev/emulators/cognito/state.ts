/**
 * What the Cognito user pools emulator keeps, one object per regional host
 * (cognito-idp.{region}.amazonaws.com). Storage keys:
 *   key:<access key id>             → CognitoAccessKey (IAM credentials the host honours)
 *   role:<role arn>                 → CognitoRoleAccess (what a role's temporary credentials may do)
 *   pool:<user pool id>             → true (the pool exists)
 *   client:<user pool id>:<client>  → UserPoolClient (as DescribeUserPoolClient returns it)
 *   demo:provisioned                → true (./demo.ts)
 */

export interface CognitoAccessKey {
  secretAccessKey: string;
  /** `read`: cognito-idp:Describe* only (UpdateUserPoolClient → AccessDeniedException); `none`: neither. */
  access: "full" | "read" | "none";
  /** The IAM user's ARN, named in AccessDeniedException messages. */
  arn: string;
}

/** A role's permissions here, for temporary credentials STS issued for it (../aws-sts/). */
export interface CognitoRoleAccess {
  access: "full" | "read";
}

export type UserPoolClient = Record<string, unknown> & {
  UserPoolId: string;
  ClientId: string;
  ClientName: string;
  CallbackURLs?: string[];
  LogoutURLs?: string[];
  DefaultRedirectURI?: string;
};

export const cognitoKeys = {
  accessKey: (id: string) => `key:${id}`,
  role: (arn: string) => `role:${arn}`,
  pool: (pool: string) => `pool:${pool}`,
  client: (pool: string, client: string) => `client:${pool}:${client}`,
} as const;

/** Attributes UpdateUserPoolClient takes; every one it is not sent is reset to its default. */
export const UPDATABLE_DEFAULTS: Record<string, unknown> = {
  RefreshTokenValidity: 30,
  AccessTokenValidity: 60,
  IdTokenValidity: 60,
  TokenValidityUnits: { AccessToken: "minutes", IdToken: "minutes", RefreshToken: "days" },
  ReadAttributes: undefined,
  WriteAttributes: undefined,
  ExplicitAuthFlows: undefined,
  SupportedIdentityProviders: undefined,
  CallbackURLs: undefined,
  LogoutURLs: undefined,
  DefaultRedirectURI: undefined,
  AllowedOAuthFlows: undefined,
  AllowedOAuthScopes: undefined,
  AllowedOAuthFlowsUserPoolClient: false,
  AnalyticsConfiguration: undefined,
  PreventUserExistenceErrors: "LEGACY",
  EnableTokenRevocation: true,
  EnablePropagateAdditionalUserContextData: false,
  AuthSessionValidity: 3,
  RefreshTokenRotation: { Feature: "DISABLED", RetryGracePeriodSeconds: 0 },
};

/** An app client with a hosted UI, as the console creates one. */
export function userPoolClient(
  pool: string,
  client: string,
  lists: { CallbackURLs?: string[]; LogoutURLs?: string[]; DefaultRedirectURI?: string } = {},
): UserPoolClient {
  return {
    UserPoolId: pool,
    ClientId: client,
    ClientName: "previews",
    ClientSecret: `${client}-secret-not-real`,
    LastModifiedDate: 1767607200,
    CreationDate: 1767607200,
    RefreshTokenValidity: 5,
    AccessTokenValidity: 1,
    IdTokenValidity: 1,
    TokenValidityUnits: { AccessToken: "hours", IdToken: "hours", RefreshToken: "days" },
    ReadAttributes: ["email", "email_verified", "name"],
    WriteAttributes: ["email", "name"],
    ExplicitAuthFlows: ["ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_USER_SRP_AUTH"],
    SupportedIdentityProviders: ["COGNITO", "Google"],
    AllowedOAuthFlows: ["code"],
    AllowedOAuthScopes: ["openid", "email", "profile"],
    AllowedOAuthFlowsUserPoolClient: true,
    PreventUserExistenceErrors: "ENABLED",
    EnableTokenRevocation: true,
    EnablePropagateAdditionalUserContextData: false,
    AuthSessionValidity: 5,
    RefreshTokenRotation: { Feature: "DISABLED", RetryGracePeriodSeconds: 0 },
    ...lists,
  };
}
