/**
 * The AWS STS emulator (sts.amazonaws.com and the regional sts.{region}.amazonaws.com, all one
 * object: IAM is global): the AWS Query protocol, POST form (or GET query) with `Action` and
 * `Version=2011-06-15`. Only AssumeRoleWithWebIdentity is modelled (./assume-role.ts); the
 * temporary credentials it issues are checked by the S3 and Cognito emulators
 * (./session-credentials.ts). State: ./state.ts; `npm start`'s account: ./demo.ts.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { assumeRoleWithWebIdentity } from "./assume-role";
import { provisionDemoAccount } from "./demo";
import { stsError } from "./responses";
import { STS_OBJECT } from "./state";

const HOST = /^sts(?:\.[a-z]{2}(?:-[a-z]+)+-\d{1,2})?\.amazonaws\.com$/;

async function queryOf(request: Request): Promise<URLSearchParams> {
  if (request.method === "GET") return new URL(request.url).searchParams;
  return new URLSearchParams(await request.text());
}

export const stsEmulator: ProviderEmulatorModule = {
  provider: "aws-sts",
  matches: (host) => HOST.test(host),
  objectName: () => STS_OBJECT,
  // No shared list lives here: nothing for the barrier to hold, nothing counted as a write.
  isRead: () => false,
  isWrite: () => false,

  async handle(request, state, outbound) {
    provisionDemoAccount(state);
    if (request.method !== "POST" && request.method !== "GET")
      return stsError(405, "InvalidAction", "Could not find operation for this request.");
    const query = await queryOf(request);
    const action = query.get("Action") ?? "";
    if (query.get("Version") !== "2011-06-15")
      return stsError(
        400,
        "InvalidAction",
        `Could not find operation ${action} for version ${query.get("Version") ?? "NO_VERSION_SPECIFIED"}`,
      );
    if (action !== "AssumeRoleWithWebIdentity")
      return stsError(400, "InvalidAction", `Could not find operation ${action} for version 2011-06-15`);
    return assumeRoleWithWebIdentity(query, state, outbound, Date.now());
  },

  injectedError(status) {
    if (status === 429 || status === 400) return stsError(400, "Throttling", "Rate exceeded");
    if (status >= 500) return stsError(status, "InternalFailure", "An internal error occurred.");
    return stsError(status, "InvalidAction", "Injected failure");
  },
};

export { DEMO_ISSUER, DEMO_ROLES } from "./demo";
export { STS_OBJECT, type StsOidcProvider, type StsRole, stsKeys } from "./state";
