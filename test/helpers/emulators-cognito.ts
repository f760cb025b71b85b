/** User pools of the emulated Cognito API: one object per regional host. */
import {
  type CognitoAccessKey,
  type CognitoRoleAccess,
  cognitoKeys,
  type UserPoolClient,
  userPoolClient,
} from "../../dev/emulators/cognito";
import { emulatorStub } from "./emulators";

export const COGNITO_REGION = "eu-west-1";
export const cognitoHost = (region = COGNITO_REGION) => `cognito-idp.${region}.amazonaws.com`;

export async function seedCognito(
  seed: {
    keys?: Record<string, CognitoAccessKey>;
    pool?: string;
    clients?: UserPoolClient[];
    roles?: Record<string, CognitoRoleAccess>;
  },
  region = COGNITO_REGION,
): Promise<void> {
  const entries: Record<string, unknown> = {};
  for (const [id, key] of Object.entries(seed.keys ?? {})) entries[cognitoKeys.accessKey(id)] = key;
  for (const [arn, access] of Object.entries(seed.roles ?? {})) entries[cognitoKeys.role(arn)] = access;
  if (seed.pool) entries[cognitoKeys.pool(seed.pool)] = true;
  for (const c of seed.clients ?? []) entries[cognitoKeys.client(c.UserPoolId, c.ClientId)] = c;
  await emulatorStub(cognitoHost(region)).seed(entries);
}

export async function cognitoClient(pool: string, client: string, region = COGNITO_REGION) {
  const key = cognitoKeys.client(pool, client);
  return (await emulatorStub(cognitoHost(region)).dump(key))[key] as UserPoolClient | undefined;
}

export { userPoolClient };
