/** A fresh emulated Supabase project and an adapter context pointed at it. */

import type { OpSpec } from "../../../workers/adapters/op-spec";
import { supabaseAdapter } from "../../../workers/adapters/supabase";
import {
  freshSupabaseProject,
  seedSupabaseProject,
  seedSupabaseToken,
  supabaseAuthConfig,
} from "../../helpers/emulators-supabase";
import { harness, type SetupFailure } from "../../helpers/provider-contract";

export const redirectUrl = supabaseAdapter.ops[0] as OpSpec;

export async function supabaseProject(allowList: string | null, failure?: SetupFailure) {
  const { ref, token } = freshSupabaseProject();
  if (failure !== "missing") await seedSupabaseProject(ref, { uri_allow_list: allowList });
  if (failure !== "unauthenticated") {
    await seedSupabaseToken(token, { projects: [ref], readOnly: failure === "forbidden" });
  }
  const h = harness(supabaseAdapter, { type: "supabase", accessToken: token }, [token]);
  const allowListNow = async () => (await supabaseAuthConfig(ref))?.uri_allow_list ?? null;
  return { ...h, ref, token, allowListNow };
}
