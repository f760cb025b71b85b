/**
 * `npm start`: the project `sponson-demo` has the OAuth client `sponson-demo-client` (location
 * `global`) on first use, edited by the demo Google service account (../google/demo.ts).
 * Storage key: `demo:provisioned` → true.
 */
import type { EmulatorState } from "../emulator";
import { DEMO_GOOGLE_ACCOUNT } from "../google/demo";
import { type IamProject, iamKeys, iamOAuthClient } from "./state";

export const DEMO_IAM = { project: "sponson-demo", client: "sponson-demo-client" } as const;

export function provisionDemoIamProject(project: string, state: EmulatorState): void {
  if (project !== DEMO_IAM.project || state.get<boolean>("demo:provisioned")) return;
  state.put<IamProject>(iamKeys.project(project), { members: { [DEMO_GOOGLE_ACCOUNT]: "editor" } });
  state.put(
    iamKeys.client(project, "global", DEMO_IAM.client),
    iamOAuthClient(project, DEMO_IAM.client, ["http://localhost:3000/callback"]),
  );
  state.put("demo:provisioned", true);
}
