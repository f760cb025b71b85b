/** Projects and OAuth clients of the emulated IAM API (iam.googleapis.com). */
import {
  type IamOAuthClient,
  type IamProject,
  iamKeys,
  iamOAuthClient,
} from "../../dev/emulators/google-iam";
import { emulatorStub } from "./emulators";

export const IAM_HOST = "iam.googleapis.com";

export async function seedIamProject(project: string, record: IamProject): Promise<void> {
  await emulatorStub(IAM_HOST).seed({ [iamKeys.project(project)]: record });
}

export async function seedIamClient(
  project: string,
  client: IamOAuthClient,
  location = "global",
): Promise<void> {
  const id = client.name.split("/").pop() as string;
  await emulatorStub(IAM_HOST).seed({ [iamKeys.client(project, location, id)]: client });
}

export async function iamClient(project: string, id: string, location = "global") {
  const key = iamKeys.client(project, location, id);
  return (await emulatorStub(IAM_HOST).dump(key))[key] as IamOAuthClient | undefined;
}

export { iamOAuthClient };
