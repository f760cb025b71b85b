/**
 * The dashboard's sign-in and sign-out (docs/security.md, "The dashboard session"): the public
 * sign-in form, the POST that exchanges a token for a session cookie
 * (workers/auth/dashboard-sign-in.ts), and sign-out. Both POSTs are public in the route table
 * (workers/auth/route-access.ts) and same-origin checked here; sign-out also checks the session's
 * CSRF token (workers/auth/dashboard-session.ts).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";
import {
  assertDashboardPost,
  assertSameOrigin,
  clearSessionCookie,
  dashboardSessionToken,
  SIGN_IN_PATH,
} from "../auth/dashboard-session";
import { signInWithToken } from "../auth/dashboard-sign-in";
import { pageHeaders } from "../dashboard/page-headers";
import { renderSignIn } from "../dashboard/render";
import { problemResponses, publicSecurity } from "../http/openapi-problems";
import { validationHook } from "../http/validation";
import { html, redirect } from "./dashboard-openapi";

const signInFormRoute = createRoute({
  method: "get",
  path: "/dashboard/sign-in",
  operationId: "dashboardSignInForm",
  tags: ["dashboard"],
  summary: "The sign-in form (public)",
  security: publicSecurity,
  request: {
    query: z.object({
      error: z.enum(["invalid", "expired"]).optional(),
      "signed-out": z.string().optional(),
    }),
  },
  responses: { 200: { description: "The form", content: html } },
});

const signInRoute = createRoute({
  method: "post",
  path: "/dashboard/sign-in",
  operationId: "dashboardSignIn",
  tags: ["dashboard"],
  summary: "Exchange a token for a session cookie (public; same-origin only)",
  security: publicSecurity,
  request: {
    body: {
      content: { "application/x-www-form-urlencoded": { schema: z.object({ token: z.string().max(8192) }) } },
      required: true,
    },
  },
  responses: {
    303: redirect("To the dashboard with the cookie set, or back to the form with an error"),
    ...problemResponses("VALIDATION", "FORBIDDEN", "INTERNAL"),
  },
});

const signOutRoute = createRoute({
  method: "post",
  path: "/dashboard/sign-out",
  operationId: "dashboardSignOut",
  tags: ["dashboard"],
  summary: "Clear the session cookie (public; same-origin and CSRF token)",
  security: publicSecurity,
  request: {
    body: {
      content: {
        "application/x-www-form-urlencoded": { schema: z.object({ csrf: z.string().max(200).optional() }) },
      },
      required: true,
    },
  },
  responses: {
    303: redirect("To the sign-in form"),
    ...problemResponses("VALIDATION", "FORBIDDEN"),
  },
});

const SIGN_IN_ERRORS = {
  invalid: "That token was not accepted. Mint one with `npm run token -- --role viewer` and try again.",
  expired: "Your session ended. Sign in again.",
} as const;

export const dashboardSignInRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(signInFormRoute, (c) => {
    const nonce = pageHeaders(c);
    const { error } = c.req.valid("query");
    const signedOut = c.req.valid("query")["signed-out"] !== undefined;
    return c.html(
      renderSignIn({ nonce, signedOut, ...(error ? { error: SIGN_IN_ERRORS[error] } : {}) }),
      200,
    );
  })
  .openapi(signInRoute, async (c) => {
    // Login CSRF: a foreign page must not sign this browser in as someone else.
    assertSameOrigin(c);
    const outcome = await signInWithToken(c, c.req.valid("form").token);
    // The reason stays generic: nothing about the submitted token goes back to the page.
    return c.redirect(outcome === "signed-in" ? "/dashboard" : `${SIGN_IN_PATH}?error=invalid`, 303);
  })
  .openapi(signOutRoute, async (c) => {
    if (dashboardSessionToken(c) !== undefined) await assertDashboardPost(c, c.req.valid("form").csrf);
    else assertSameOrigin(c);
    clearSessionCookie(c);
    return c.redirect(`${SIGN_IN_PATH}?signed-out=1`, 303);
  });
