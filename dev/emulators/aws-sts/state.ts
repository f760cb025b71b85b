/**
 * What the AWS STS emulator keeps: the account's IAM OIDC identity providers and roles (IAM is
 * global, so every STS host, sts.amazonaws.com and sts.{region}.amazonaws.com, is one object).
 * Storage keys:
 *   oidc-provider:<issuer host[/path]> → StsOidcProvider (aws iam create-open-id-connect-provider)
 *   role:<role arn>                    → StsRole (its trust policy, reduced to what STS checks)
 *   demo:provisioned                   → true (./demo.ts)
 */

export interface StsOidcProvider {
  /** The issuer URL exactly as registered: the token's `iss` must equal it. */
  url: string;
  /** The audiences (client ids) the provider accepts: a token whose `aud` is none of them is refused. */
  clientIds: string[];
}

/**
 * A role's trust policy for one federated principal: `Principal.Federated` is the provider,
 * `Condition.StringEquals` names `<issuer host>:sub` and `<issuer host>:aud` exactly.
 */
export interface StsRole {
  /** Several issuers: `Principal.Federated` lists several providers (the demo's, ./demo.ts). */
  trust: { issuer: string | string[]; subject: string; audience: string };
  /** The role's MaxSessionDuration (default one hour). */
  maxSessionSeconds?: number;
}

/** The provider key: the issuer without its scheme, as IAM names the provider in its ARN. */
export const providerName = (issuer: string) => issuer.replace(/^https:\/\//, "").replace(/\/+$/, "");

export const stsKeys = {
  provider: (issuer: string) => `oidc-provider:${providerName(issuer)}`,
  role: (arn: string) => `role:${arn}`,
  demoProvisioned: "demo:provisioned",
} as const;

/** The one object every STS host is answered by. */
export const STS_OBJECT = "sts.amazonaws.com";
