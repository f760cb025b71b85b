/** Projects and keys of the emulated reCAPTCHA Enterprise API (recaptchaenterprise.googleapis.com). */
import {
  type RecaptchaKey,
  type RecaptchaProject,
  recaptchaKeys,
  recaptchaWebKey,
} from "../../dev/emulators/recaptcha";
import { emulatorStub } from "./emulators";

export const RECAPTCHA_HOST = "recaptchaenterprise.googleapis.com";

export async function seedRecaptchaProject(project: string, record: RecaptchaProject): Promise<void> {
  await emulatorStub(RECAPTCHA_HOST).seed({ [recaptchaKeys.project(project)]: record });
}

export async function seedRecaptchaKey(project: string, key: RecaptchaKey): Promise<void> {
  const id = key.name.split("/").pop() as string;
  await emulatorStub(RECAPTCHA_HOST).seed({ [recaptchaKeys.key(project, id)]: key });
}

export async function recaptchaKey(project: string, id: string): Promise<RecaptchaKey | undefined> {
  const key = recaptchaKeys.key(project, id);
  return (await emulatorStub(RECAPTCHA_HOST).dump(key))[key] as RecaptchaKey | undefined;
}

export { recaptchaWebKey };
