/**
 * The reCAPTCHA Enterprise API emulator (recaptchaenterprise.googleapis.com): GET and PATCH of a
 * project's keys (./keys-endpoint.ts). Bearer: an access token from the Google token host (or from
 * IAM credentials, for keyless connections) with scope cloud-platform, the API's only scope, or a
 * service account's self-signed JWT (../google/access-token.ts). Errors are Google's envelope
 * `{error:{code, message, status}}`; a caller without a role on the project is refused 403 whether
 * the key exists or not, as Google's IAM check comes first. State: ./state.ts.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { CLOUD_PLATFORM, hasScope, verifyGoogleToken } from "../google/access-token";
import { googleError, googleJson, RETRY_AFTER_SECONDS, UNAUTHENTICATED_MESSAGE } from "../google/responses";
import { provisionDemoRecaptchaProject } from "./demo";
import { wantsNumbers, withEnums } from "./enums";
import { KEY_PATH, patchKey } from "./keys-endpoint";
import { type RecaptchaKey, type RecaptchaProject, recaptchaKeys } from "./state";

/** Google's IAM refusal (the wording is IAM's usual one; reCAPTCHA's own is not documented). */
const denied = (permission: string, name: string) =>
  googleError(
    403,
    `Permission '${permission}' denied on resource '//recaptchaenterprise.googleapis.com/${name}' (or it may not exist).`,
  );

export const recaptchaEmulator: ProviderEmulatorModule = {
  provider: "recaptcha",
  matches: (host) => host === "recaptchaenterprise.googleapis.com",
  isRead: (request) => request.method === "GET" && KEY_PATH.test(new URL(request.url).pathname),
  isWrite: (request) => request.method === "PATCH" && KEY_PATH.test(new URL(request.url).pathname),

  async handle(request, state) {
    const url = new URL(request.url);
    const at = url.pathname.match(KEY_PATH);
    if (at?.[1]) provisionDemoRecaptchaProject(decodeURIComponent(at[1]), state);
    const claims = await verifyGoogleToken(request.headers.get("authorization"), Date.now(), {
      host: url.host,
      state,
    });
    if (!claims) return googleError(401, UNAUTHENTICATED_MESSAGE);
    if (!hasScope(claims, [CLOUD_PLATFORM]))
      return googleError(403, "Request had insufficient authentication scopes.");
    if (!at?.[1] || !at[2] || !["GET", "PATCH"].includes(request.method))
      return googleError(404, "Not Found");
    const [project, id] = [at[1], at[2]].map(decodeURIComponent) as [string, string];
    const name = `projects/${project}/keys/${id}`;
    const role = state.get<RecaptchaProject>(recaptchaKeys.project(project))?.members[claims.sub];
    const verb = request.method === "GET" ? "get" : "update";
    if (!role) return denied(`recaptchaenterprise.keys.${verb}`, name);
    const storageKey = recaptchaKeys.key(project, id);
    const stored = state.get<RecaptchaKey>(storageKey);
    // Inferred: the 404's wording is not documented.
    if (!stored) return googleError(404, `Key ${name} not found.`);
    if (request.method === "GET")
      return googleJson(200, withEnums({ ...stored }, wantsNumbers(url) ? "numbers" : "names"));
    if (role !== "editor") return denied("recaptchaenterprise.keys.update", name);
    return patchKey(request, state, storageKey, stored);
  },

  injectedError(status) {
    if (status === 429) {
      return googleError(
        429,
        "Quota exceeded for quota metric 'Key management requests' and limit 'Key management requests per minute' of service 'recaptchaenterprise.googleapis.com'.",
        undefined,
        { "retry-after": String(RETRY_AFTER_SECONDS) },
      );
    }
    return googleError(status, status >= 500 ? "Internal error encountered." : "Injected failure");
  },
};

export { DEMO_RECAPTCHA } from "./demo";
export { MAX_ALLOWED_DOMAINS } from "./keys-endpoint";
export { type RecaptchaKey, type RecaptchaProject, recaptchaKeys, recaptchaWebKey } from "./state";
