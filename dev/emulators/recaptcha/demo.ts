/**
 * `npm start`: the project `sponson-demo` has the website key `sponson-demo-site-key` on first use,
 * edited by the demo Google service account (../google/demo.ts).
 * Storage key: `demo:provisioned` → true.
 */
import type { EmulatorState } from "../emulator";
import { DEMO_GOOGLE_ACCOUNT } from "../google/demo";
import { type RecaptchaProject, recaptchaKeys, recaptchaWebKey } from "./state";

export const DEMO_RECAPTCHA = { project: "sponson-demo", key: "sponson-demo-site-key" } as const;

export function provisionDemoRecaptchaProject(project: string, state: EmulatorState): void {
  if (project !== DEMO_RECAPTCHA.project || state.get<boolean>("demo:provisioned")) return;
  state.put<RecaptchaProject>(recaptchaKeys.project(project), {
    members: { [DEMO_GOOGLE_ACCOUNT]: "editor" },
  });
  state.put(
    recaptchaKeys.key(project, DEMO_RECAPTCHA.key),
    recaptchaWebKey(project, DEMO_RECAPTCHA.key, ["localhost"]),
  );
  state.put("demo:provisioned", true);
}
