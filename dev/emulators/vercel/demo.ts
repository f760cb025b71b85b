/**
 * `npm start`'s demo Vercel project (docs/deploy.md, "Vercel"): project `prj_sponsondemo` of team
 * `team_sponsondemo`, named `web` (its hosts `web-…-acme.vercel.app` are what the local write policy
 * admits), deploying the demo repository; the token DEMO_VERCEL_TOKEN reads its deployments.
 * `npm run platform-event` seeds each deployment it announces. Local values, not secrets.
 */
import type { EmulatorState } from "../emulator";
import { type VercelToken, vercelKeys } from "./state";

export const DEMO_VERCEL_PROJECT = "prj_sponsondemo";
export const DEMO_VERCEL_TEAM = "team_sponsondemo";
export const DEMO_VERCEL_TOKEN = "vercel_sponson-local-demo";

export function provisionDemoProject(state: EmulatorState): void {
  const key = vercelKeys.token(DEMO_VERCEL_TOKEN);
  if (state.get(key)) return;
  state.put<VercelToken>(key, { scopes: [DEMO_VERCEL_TEAM] });
}
