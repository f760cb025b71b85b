/**
 * `npm start`: the project `sponson-demo` has the browser key `sponson-demo-browser-key` on first
 * use, updated by the demo Google service account (../google/demo.ts): one referrer of its own and
 * one API it may call. Storage key: `demo:provisioned` → true.
 */
import type { EmulatorState } from "../emulator";
import { DEMO_GOOGLE_ACCOUNT } from "../google/demo";
import { type ApiKeysProject, apiKeyRecord, apiKeysKeys } from "./state";

export const DEMO_API_KEY = { project: "sponson-demo", key: "sponson-demo-browser-key" } as const;

export function provisionDemoApiKey(project: string, state: EmulatorState): void {
  if (project !== DEMO_API_KEY.project || state.get<boolean>("demo:provisioned")) return;
  state.put<ApiKeysProject>(apiKeysKeys.project(project), { members: { [DEMO_GOOGLE_ACCOUNT]: "admin" } });
  state.put(
    apiKeysKeys.key(project, DEMO_API_KEY.key),
    apiKeyRecord(project, DEMO_API_KEY.key, {
      browserKeyRestrictions: { allowedReferrers: ["https://app.example.com/*"] },
      apiTargets: [{ service: "maps-backend.googleapis.com" }],
    }),
  );
  state.put("demo:provisioned", true);
}
