/**
 * `npm start`: the demo project `sponsondemoproject01` and a personal access token for it exist on
 * first use (scripts/start.mjs passes the token as SUPABASE_ACCESS_TOKEN). Local values, not secrets.
 * Storage key: `demo:provisioned` → true.
 */
import type { EmulatorState } from "../emulator";
import { authConfig, type SupabaseToken, supabaseKeys } from "./state";

export const DEMO_SUPABASE = {
  ref: "sponsondemoproject01",
  token: "sbp_local_demo_0000000000000000000000000000",
} as const;

export function provisionDemoProject(pathname: string, state: EmulatorState): void {
  if (!pathname.startsWith(`/v1/projects/${DEMO_SUPABASE.ref}/`) || state.get<boolean>("demo:provisioned"))
    return;
  state.put<SupabaseToken>(supabaseKeys.token(DEMO_SUPABASE.token), { projects: [DEMO_SUPABASE.ref] });
  state.put(
    supabaseKeys.project(DEMO_SUPABASE.ref),
    authConfig({ uri_allow_list: "http://localhost:3000/**" }),
  );
  state.put("demo:provisioned", true);
}
