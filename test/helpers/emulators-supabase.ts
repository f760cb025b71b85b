/** Seeds and reads the emulated Supabase Management API (one object for api.supabase.com). */
import {
  authConfig,
  type SupabaseAuthConfig,
  type SupabaseToken,
  supabaseKeys,
} from "../../dev/emulators/supabase/state";
import { emulatorStub } from "./emulators";

export const SUPABASE_HOST = "api.supabase.com";

/** A project ref and access token no other test uses (the host's storage is shared). */
export function freshSupabaseProject(): { ref: string; token: string } {
  const id = crypto.randomUUID().replaceAll("-", "");
  return { ref: `ref${id.slice(0, 17)}`, token: `sbp_${id}` };
}

export async function seedSupabaseToken(token: string, grant: SupabaseToken): Promise<void> {
  await emulatorStub(SUPABASE_HOST).seed({ [supabaseKeys.token(token)]: grant });
}

export async function seedSupabaseProject(ref: string, config: Partial<SupabaseAuthConfig>): Promise<void> {
  await emulatorStub(SUPABASE_HOST).seed({ [supabaseKeys.project(ref)]: authConfig(config) });
}

export async function supabaseAuthConfig(ref: string): Promise<SupabaseAuthConfig | undefined> {
  const key = supabaseKeys.project(ref);
  return (await emulatorStub(SUPABASE_HOST).dump(key))[key] as SupabaseAuthConfig | undefined;
}
