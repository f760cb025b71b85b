/** Businesses of the emulated Kinde Management API (one object per <business>.kinde.com host). */
import { KINDE_ALL_SCOPES, type KindeApp, type KindeM2m, kindeKeys } from "../../dev/emulators/kinde";
import { emulatorStub } from "./emulators";

export function freshKindeDomain(): string {
  return `sponson${crypto.randomUUID().slice(0, 8)}.kinde.com`;
}

export async function seedKinde(
  domain: string,
  seed: { m2m?: { clientId: string } & Partial<KindeM2m>; apps?: Record<string, Partial<KindeApp>> },
): Promise<void> {
  const entries: Record<string, unknown> = {};
  if (seed.m2m) {
    entries[kindeKeys.m2m(seed.m2m.clientId)] = {
      clientSecret: seed.m2m.clientSecret ?? "",
      scopes: seed.m2m.scopes ?? KINDE_ALL_SCOPES,
    } satisfies KindeM2m;
  }
  for (const [id, app] of Object.entries(seed.apps ?? {})) {
    entries[kindeKeys.app(id)] = { redirect_urls: [], logout_urls: [], ...app } satisfies KindeApp;
  }
  await emulatorStub(domain).seed(entries);
}

export async function kindeApp(domain: string, id: string): Promise<KindeApp | undefined> {
  const key = kindeKeys.app(id);
  return (await emulatorStub(domain).dump(key))[key] as KindeApp | undefined;
}
