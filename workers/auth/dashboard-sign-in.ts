/**
 * Signing a browser in to the dashboard (docs/security.md, "The dashboard session"; docs/design.md,
 * "Security model"): the submitted token is verified as an Authorization header's would be, and only
 * a service token that is not revoked starts a session. A GitHub token is a CI credential, not a
 * person's, so GitHub's keys are never fetched for a form.
 */
import type { Context } from "hono";
import { decodeJwt } from "jose";
import { SponsonError } from "../../shared/errors";
import type { AppEnv } from "../app-env";
import { authConfigFromEnv } from "./auth-config";
import { clearSessionCookie, setSessionCookie } from "./dashboard-session";
import { assertNotRevoked } from "./revoked-tokens";
import { serviceKeySet } from "./service-keys";
import { verifyBearer } from "./verify-token";

/**
 * `signed-in`: the session cookie is set. `refused`: any session cookie is cleared, and the caller
 * learns no more, so nothing about the submitted token goes back to the page.
 */
export type SignInOutcome = "signed-in" | "refused";

/** Starts a session from the form's token; a misconfigured service (INTERNAL) still throws. */
export async function signInWithToken(c: Context<AppEnv>, submitted: string): Promise<SignInOutcome> {
  const token = submitted.trim();
  const config = authConfigFromEnv(c.env);
  const service = await serviceKeySet(config.serviceSigningKey, config.servicePublicKeys);
  try {
    const caller = await verifyBearer(
      token,
      config,
      { github: () => async () => Promise.reject(new Error("not for the dashboard")), service },
      new Date(),
    );
    if (caller.kind !== "service") throw new Error("dashboard sessions take service tokens");
    await assertNotRevoked(c.env.RECEIPTS, caller, Date.now());
    // Verified above, so `exp` is present and in the future.
    setSessionCookie(c, token, (decodeJwt(token).exp ?? 0) - Date.now() / 1000);
    return "signed-in";
  } catch (err) {
    if (err instanceof SponsonError && err.code === "INTERNAL") throw err;
    clearSessionCookie(c);
    return "refused";
  }
}
