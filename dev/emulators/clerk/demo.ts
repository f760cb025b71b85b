/**
 * `npm start`: the development instance `ins_sponsondemo` and its secret key exist on first use
 * (scripts/start.mjs passes the key as CLERK_SECRET_KEY), with one allowed origin and one
 * redirect URL of the local app. Local values, not secrets.
 */
import type { EmulatorState } from "../emulator";
import { type ClerkKey, clerkInstance, clerkKeys, clerkRedirectUrl } from "./state";

export const DEMO_CLERK = {
  instance: "ins_sponsondemo",
  secretKey: "sk_test_localdemoclerksecretkey0000",
  origin: "http://localhost:3000",
  redirectUrl: "sponson-demo://oauth-callback",
} as const;

export function provisionDemoInstance(state: EmulatorState): void {
  if (state.get<boolean>("demo:provisioned")) return;
  state.put<ClerkKey>(clerkKeys.key(DEMO_CLERK.secretKey), { instance: DEMO_CLERK.instance });
  state.put(clerkKeys.instance(DEMO_CLERK.instance), clerkInstance(DEMO_CLERK.instance, [DEMO_CLERK.origin]));
  const id = "ru_sponsondemo0000000000";
  state.put(clerkKeys.redirect(DEMO_CLERK.instance, id), clerkRedirectUrl(id, DEMO_CLERK.redirectUrl, 0));
  state.put("demo:provisioned", true);
}
