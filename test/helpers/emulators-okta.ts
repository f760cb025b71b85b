/** Orgs of the emulated Okta apps API (one object per org host). */
import { type OktaToken, oktaKeys, oktaOidcApp } from "../../dev/emulators/okta";
import { emulatorStub } from "./emulators";

export function freshOktaOrg(): string {
  return `sponson-${crypto.randomUUID().slice(0, 8)}.okta.com`;
}

export async function seedOktaToken(org: string, token: string, grant: OktaToken = {}): Promise<void> {
  await emulatorStub(org).seed({ [oktaKeys.token(token)]: grant });
}

export async function seedOktaApp(
  org: string,
  app: ReturnType<typeof oktaOidcApp> | Record<string, unknown>,
): Promise<void> {
  await emulatorStub(org).seed({ [oktaKeys.app(String(app.id))]: app });
}

export async function oktaApp(org: string, id: string): Promise<ReturnType<typeof oktaOidcApp> | undefined> {
  const key = oktaKeys.app(id);
  return (await emulatorStub(org).dump(key))[key] as ReturnType<typeof oktaOidcApp> | undefined;
}

export { oktaOidcApp };
