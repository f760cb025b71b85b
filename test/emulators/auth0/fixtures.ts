/**
 * Documented Auth0 exchanges (Auth0's Management API v2 / Authentication API
 * docs), replayed against the emulator. `auth` picks the bearer: a token with both client scopes,
 * one with read:clients only, a made-up one, or none.
 */
import { expect } from "vitest";

export const TENANT = {
  m2m: { clientId: "m2m-fixture", clientSecret: "fixture-secret-71c0" },
  readOnly: { clientId: "m2m-readonly", clientSecret: "readonly-secret-22aa", scopes: ["read:clients"] },
  app: {
    id: "app-fixture",
    seed: {
      name: "Fixture app",
      callbacks: ["https://a.example.com/cb", "https://b.example.com/cb"],
      allowed_logout_urls: ["https://a.example.com/"],
      web_origins: [],
      allowed_origins: ["https://a.example.com"],
    },
  },
};

export interface Fixture {
  name: string;
  method: "GET" | "POST" | "PATCH";
  /** `{domain}` is replaced by the tenant host. */
  path: string;
  auth?: "full" | "read-only" | "invalid" | "none";
  json?: unknown;
  form?: Record<string, string>;
  status: number;
  body: unknown;
}

const app = TENANT.app;

export const FIXTURES: Fixture[] = [
  {
    name: "client credentials token (JSON body)",
    method: "POST",
    path: "/oauth/token",
    json: {
      grant_type: "client_credentials",
      client_id: TENANT.m2m.clientId,
      client_secret: TENANT.m2m.clientSecret,
      audience: "https://{domain}/api/v2/",
    },
    status: 200,
    body: {
      access_token: expect.any(String),
      token_type: "Bearer",
      expires_in: 86400,
      scope: "read:clients update:clients",
    },
  },
  {
    name: "client credentials token (form body)",
    method: "POST",
    path: "/oauth/token",
    form: {
      grant_type: "client_credentials",
      client_id: TENANT.m2m.clientId,
      client_secret: TENANT.m2m.clientSecret,
      audience: "https://{domain}/api/v2/",
    },
    status: 200,
    body: {
      access_token: expect.any(String),
      token_type: "Bearer",
      expires_in: 86400,
      scope: expect.any(String),
    },
  },
  {
    name: "token with a wrong client secret",
    method: "POST",
    path: "/oauth/token",
    json: {
      grant_type: "client_credentials",
      client_id: TENANT.m2m.clientId,
      client_secret: "not-the-secret",
      audience: "https://{domain}/api/v2/",
    },
    status: 401,
    body: { error: "access_denied", error_description: "Unauthorized" },
  },
  {
    name: "token for an unknown client id",
    method: "POST",
    path: "/oauth/token",
    json: {
      grant_type: "client_credentials",
      client_id: "nobody",
      client_secret: "x",
      audience: "https://{domain}/api/v2/",
    },
    status: 401,
    body: { error: "access_denied", error_description: "Unauthorized" },
  },
  {
    name: "read the four lists of an application",
    method: "GET",
    path: `/api/v2/clients/${app.id}?fields=callbacks,allowed_logout_urls,web_origins,allowed_origins&include_fields=true`,
    auth: "full",
    status: 200,
    body: {
      callbacks: app.seed.callbacks,
      allowed_logout_urls: app.seed.allowed_logout_urls,
      web_origins: [],
      allowed_origins: app.seed.allowed_origins,
    },
  },
  {
    name: "read everything but the lists (include_fields=false)",
    method: "GET",
    path: `/api/v2/clients/${app.id}?fields=callbacks,allowed_logout_urls,web_origins,allowed_origins&include_fields=false`,
    auth: "read-only",
    status: 200,
    // Everything else Auth0 holds on the application, e.g. its grant types and token settings.
    body: expect.objectContaining({
      client_id: app.id,
      name: "Fixture app",
      app_type: "spa",
      grant_types: expect.any(Array),
      jwt_configuration: expect.objectContaining({ alg: "RS256" }),
    }),
  },
  {
    name: "read without a bearer token",
    method: "GET",
    path: `/api/v2/clients/${app.id}`,
    auth: "none",
    status: 401,
    body: { statusCode: 401, error: "Unauthorized", message: "Missing authentication" },
  },
  {
    name: "read with a token Auth0 did not issue",
    method: "GET",
    path: `/api/v2/clients/${app.id}`,
    auth: "invalid",
    status: 401,
    body: {
      statusCode: 401,
      error: "Unauthorized",
      message: "Invalid token",
      attributes: { error: "Invalid token" },
    },
  },
  {
    name: "read an application that does not exist",
    method: "GET",
    path: "/api/v2/clients/no-such-app",
    auth: "full",
    status: 404,
    body: {
      statusCode: 404,
      error: "Not Found",
      message: "The client does not exist",
      errorCode: "inexistent_client",
    },
  },
  {
    name: "write with a token lacking update:clients",
    method: "PATCH",
    path: `/api/v2/clients/${app.id}`,
    auth: "read-only",
    json: { callbacks: [] },
    status: 403,
    body: {
      statusCode: 403,
      error: "Forbidden",
      message: "Insufficient scope, expected any of: update:clients",
      errorCode: "insufficient_scope",
    },
  },
  {
    name: "write with an empty body",
    method: "PATCH",
    path: `/api/v2/clients/${app.id}`,
    auth: "full",
    json: {},
    status: 400,
    body: {
      statusCode: 400,
      error: "Bad Request",
      message: "Payload validation error: 'Too few properties defined (0), minimum 1'.",
      errorCode: "invalid_body",
    },
  },
  {
    name: "write a list as a string",
    method: "PATCH",
    path: `/api/v2/clients/${app.id}`,
    auth: "full",
    json: { callbacks: "https://a.example.com/cb" },
    status: 400,
    body: {
      statusCode: 400,
      error: "Bad Request",
      message: "Payload validation error: 'Expected type array but found type string' on property callbacks.",
      errorCode: "invalid_body",
    },
  },
  {
    name: "write a list holding a number",
    method: "PATCH",
    path: `/api/v2/clients/${app.id}`,
    auth: "full",
    json: { web_origins: ["https://a.example.com", 7] },
    status: 400,
    body: expect.objectContaining({ statusCode: 400, errorCode: "invalid_body" }),
  },
  {
    name: "write a field the API does not let you change",
    method: "PATCH",
    path: `/api/v2/clients/${app.id}`,
    auth: "full",
    json: { client_id: "other" },
    status: 400,
    body: expect.objectContaining({
      message: "Payload validation error: 'Additional properties not allowed: client_id'.",
      errorCode: "invalid_body",
    }),
  },
  {
    name: "write to an application that does not exist",
    method: "PATCH",
    path: "/api/v2/clients/no-such-app",
    auth: "full",
    json: { callbacks: [] },
    status: 404,
    body: {
      statusCode: 404,
      error: "Not Found",
      message: "The client does not exist",
      errorCode: "inexistent_client",
    },
  },
  {
    name: "write one list; the full application comes back",
    method: "PATCH",
    path: `/api/v2/clients/${app.id}`,
    auth: "full",
    json: { web_origins: ["https://c.example.com"] },
    status: 200,
    body: expect.objectContaining({
      client_id: app.id,
      name: "Fixture app",
      app_type: "spa",
      callbacks: app.seed.callbacks,
      allowed_logout_urls: app.seed.allowed_logout_urls,
      web_origins: ["https://c.example.com"],
      allowed_origins: app.seed.allowed_origins,
      is_first_party: true,
      token_endpoint_auth_method: "none",
    }),
  },
];
