/** The emulated AWS STS (one object for every STS host): IAM OIDC providers and roles to trust the issuer. */
import { env } from "cloudflare:workers";
import { STS_OBJECT, type StsOidcProvider, type StsRole, stsKeys } from "../../dev/emulators/aws-sts/state";
import { SecretRegistry } from "../../shared/secrets";
import { connectionSubject, federationIssuer, mintFederationToken } from "../../workers/keys/federation";
import { emulatorStub } from "./emulators";

export const STS_AUDIENCE = "sts.amazonaws.com";
/** The issuer the runtime tests' emulated clouds trust (vitest.config.ts SPONSON_PUBLIC_URL). */
export const TEST_ISSUER = "https://sponson.test";

export async function seedSts(seed: { providers?: StsOidcProvider[]; roles?: Record<string, StsRole> }) {
  const entries: Record<string, unknown> = {};
  for (const provider of seed.providers ?? []) entries[stsKeys.provider(provider.url)] = provider;
  for (const [arn, role] of Object.entries(seed.roles ?? {})) entries[stsKeys.role(arn)] = role;
  await emulatorStub(STS_OBJECT).seed(entries);
}

/** A role ARN no other test uses. */
export function freshRoleArn(prefix = "sponson"): string {
  return `arn:aws:iam::123456789012:role/${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

/** The account trusts the issuer for `clientIds`; a fresh role for `trustedConnection`'s subject only. */
export async function trustingRole(trustedConnection: string, clientIds = [STS_AUDIENCE]) {
  const roleArn = freshRoleArn();
  await seedSts({
    providers: [{ url: TEST_ISSUER, clientIds }],
    roles: {
      [roleArn]: {
        trust: { issuer: TEST_ISSUER, subject: connectionSubject(trustedConnection), audience: STS_AUDIENCE },
      },
    },
  });
  return roleArn;
}

/** A token as the service mints it for `connection` (or for another audience or time). */
export function mintFor(connection: string, audience = STS_AUDIENCE, nowMs = Date.now()) {
  const issuer = federationIssuer(env as unknown as Record<string, unknown>);
  if (!issuer)
    throw new Error("FEDERATION_SIGNING_KEY / SPONSON_PUBLIC_URL bindings missing (vitest.config.ts)");
  return mintFederationToken(issuer, { connection, audience, nowMs }, new SecretRegistry());
}

/** AssumeRoleWithWebIdentity at the regional endpoint; the answer's text and AWS's error code. */
export async function assumeRole(roleArn: string, token: string, region = "eu-west-1") {
  const res = await emulatorStub(STS_OBJECT).fetch(`https://sts.${region}.amazonaws.com/`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      Action: "AssumeRoleWithWebIdentity",
      Version: "2011-06-15",
      RoleArn: roleArn,
      RoleSessionName: "sponson-test",
      WebIdentityToken: token,
      DurationSeconds: "900",
    }).toString(),
  });
  const text = await res.text();
  const field = (name: string) => text.match(new RegExp(`<${name}>([^<]*)</${name}>`))?.[1];
  return { status: res.status, text, code: field("Code"), field };
}
