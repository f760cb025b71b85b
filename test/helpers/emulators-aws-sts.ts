/** The emulated AWS STS (one object for every STS host): IAM OIDC providers and roles to trust the issuer. */
import { STS_OBJECT, type StsOidcProvider, type StsRole, stsKeys } from "../../dev/emulators/aws-sts/state";
import { emulatorStub } from "./emulators";

export const STS_AUDIENCE = "sts.amazonaws.com";

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
