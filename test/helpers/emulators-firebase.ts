/**
 * Google service accounts and Identity Platform projects for the emulators: a fresh RSA key pair
 * per account (its public key seeded at oauth2.googleapis.com, its key file handed to the adapter).
 */
import { exportJWK, exportPKCS8, generateKeyPair } from "jose";
import {
  type GoogleServiceAccount,
  googleKeys,
  type IdentityProject,
  identityKeys,
} from "../../dev/emulators/firebase";
import { emulatorStub } from "./emulators";

export const GOOGLE_TOKEN_HOST = "oauth2.googleapis.com";
export const IDENTITY_HOST = "identitytoolkit.googleapis.com";

export interface ServiceAccount {
  email: string;
  /** The key file's JSON text, as a Worker secret would hold it. */
  keyJson: string;
  privateKeyPem: string;
}

/** A new service account whose public key Google knows (unless `registered` is false). */
export async function googleServiceAccount(registered = true): Promise<ServiceAccount> {
  const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
  const id = crypto.randomUUID().slice(0, 8);
  const email = `sponson-${id}@sponson-tests.iam.gserviceaccount.com`;
  const privateKeyPem = await exportPKCS8(privateKey);
  if (registered) {
    const account: GoogleServiceAccount = { publicJwk: await exportJWK(publicKey) };
    await emulatorStub(GOOGLE_TOKEN_HOST).seed({ [googleKeys.serviceAccount(email)]: account });
  }
  const keyJson = JSON.stringify({
    type: "service_account",
    project_id: "sponson-tests",
    private_key_id: id,
    private_key: privateKeyPem,
    client_email: email,
    token_uri: "https://oauth2.googleapis.com/token",
  });
  return { email, keyJson, privateKeyPem };
}

export function freshGoogleProject(prefix = "proj"): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

export async function seedIdentityProject(project: string, record: IdentityProject): Promise<void> {
  await emulatorStub(IDENTITY_HOST).seed({ [identityKeys.project(project)]: record });
}

export async function identityProject(project: string): Promise<IdentityProject | undefined> {
  const key = identityKeys.project(project);
  return (await emulatorStub(IDENTITY_HOST).dump(key))[key] as IdentityProject | undefined;
}

/** Every token issued to `email` before now is refused from here on (as after a key rotation). */
export async function revokeGoogleTokens(email: string): Promise<void> {
  await emulatorStub(IDENTITY_HOST).seed({ [identityKeys.revokedBefore(email)]: Date.now() });
}
