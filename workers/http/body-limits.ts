/**
 * Body limits on every route that reads a body (docs/security.md, "Body limits"), checked before the
 * body is buffered: a declared Content-Length over the limit is refused without reading, and a body
 * without one is counted as it streams (Hono's bodyLimit). One middleware in front of every route,
 * so a route added later is covered without remembering to.
 */
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { SponsonError } from "../../shared/errors";
import type { AppEnv } from "../app-env";

/** The API's JSON bodies (plans of up to 500 lines fit well within it). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** The dashboard's forms: a token, a CSRF token, a lock key and a reason. */
export const DASHBOARD_FORM_MAX_BYTES = 16 * 1024;

function limited(maxSize: number) {
  return bodyLimit({
    maxSize,
    onError: () => {
      throw new SponsonError("PAYLOAD_TOO_LARGE", `request body exceeds ${maxSize} bytes`, {
        limitBytes: maxSize,
      });
    },
  });
}

const api = limited(MAX_BODY_BYTES);
const forms = limited(DASHBOARD_FORM_MAX_BYTES);

export function bodyLimits() {
  return createMiddleware<AppEnv>(async function bodyLimits(c, next) {
    const path = c.req.path;
    const limit = path === "/dashboard" || path.startsWith("/dashboard/") ? forms : api;
    return limit(c, next);
  });
}
