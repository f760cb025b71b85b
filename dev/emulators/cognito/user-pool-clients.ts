/**
 * DescribeUserPoolClient and UpdateUserPoolClient (Amazon Cognito user pools API reference).
 * Update resets every updatable attribute the request omits to its default (./state.ts); members
 * it does not know are ignored; read-only ones (ClientSecret, dates) cannot be set. Checked like
 * the service: callback and logout URLs absolute, HTTPS unless localhost, no fragment, at most 100
 * and 1024 characters each; DefaultRedirectURI one of CallbackURLs. No precondition: the last
 * write wins (ConcurrentModificationException only for requests that overlap).
 */
import type { EmulatorState } from "../emulator";
import { awsError, awsJson } from "./responses";
import { cognitoKeys, UPDATABLE_DEFAULTS, type UserPoolClient } from "./state";

const MAX_URLS = 100;
const MAX_URL_CHARS = 1024;

type Json = Record<string, unknown>;

function located(state: EmulatorState, body: Json): { key: string; client: UserPoolClient } | Response {
  const pool = typeof body.UserPoolId === "string" ? body.UserPoolId : "";
  const id = typeof body.ClientId === "string" ? body.ClientId : "";
  if (!pool || !id) {
    return awsError(
      "InvalidParameterException",
      "1 validation error detected: UserPoolId and ClientId are required.",
    );
  }
  if (!state.get<boolean>(cognitoKeys.pool(pool))) {
    return awsError("ResourceNotFoundException", `User pool ${pool} does not exist.`);
  }
  const key = cognitoKeys.client(pool, id);
  const client = state.get<UserPoolClient>(key);
  if (!client) return awsError("ResourceNotFoundException", `User pool client ${id} does not exist.`);
  return { key, client };
}

export function describeUserPoolClient(state: EmulatorState, body: Json): Response {
  const found = located(state, body);
  if (found instanceof Response) return found;
  return awsJson({ UserPoolClient: found.client });
}

/** AWS's wording for a member past its model's constraint (the request's member names are camelCase). */
const constraint = (value: string, at: string, rule: string) =>
  `1 validation error detected: Value '${value}' at '${at}' failed to satisfy constraint: Member must have length ${rule}`;

function urlProblem(field: string, list: unknown): string | null {
  if (list === undefined) return null;
  if (!Array.isArray(list) || list.some((u) => typeof u !== "string"))
    return `${field} must be a list of strings.`;
  const member = `${field[0]?.toLowerCase()}${field.slice(1)}`;
  if (list.length > MAX_URLS)
    return constraint(`[${list.join(", ")}]`, member, `less than or equal to ${MAX_URLS}`);
  for (const [i, url] of (list as string[]).entries()) {
    if (url.length > MAX_URL_CHARS)
      return constraint(url, `${member}.${i + 1}.member`, `less than or equal to ${MAX_URL_CHARS}`);
    if (url.length === 0) return constraint(url, `${member}.${i + 1}.member`, "greater than or equal to 1");
  }
  for (const url of list as string[]) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return `${field} URL ${url} is invalid.`;
    }
    if (parsed.hash !== "" || url.includes("#")) return `${field} URL ${url} must not contain a fragment.`;
    const local = parsed.protocol === "http:" && parsed.hostname === "localhost";
    if (parsed.protocol === "http:" && !local)
      return `${field} URL ${url} must use HTTPS unless it is localhost.`;
  }
  return null;
}

export function updateUserPoolClient(state: EmulatorState, body: Json): Response {
  const found = located(state, body);
  if (found instanceof Response) return found;
  for (const field of ["CallbackURLs", "LogoutURLs"]) {
    const problem = urlProblem(field, body[field]);
    if (problem) return awsError("InvalidParameterException", problem);
  }
  const callbacks = (body.CallbackURLs as string[] | undefined) ?? [];
  if (typeof body.DefaultRedirectURI === "string" && !callbacks.includes(body.DefaultRedirectURI)) {
    return awsError("InvalidParameterException", "DefaultRedirectURI must be one of the CallbackURLs.");
  }
  const { client } = found;
  const next: UserPoolClient = {
    UserPoolId: client.UserPoolId,
    ClientId: client.ClientId,
    ClientName: typeof body.ClientName === "string" ? body.ClientName : client.ClientName,
  };
  for (const keep of ["ClientSecret", "CreationDate"]) if (keep in client) next[keep] = client[keep];
  next.LastModifiedDate = Math.floor(Date.now() / 1000);
  // Omitted means "the default", not "as it was": the reset rule this emulator exists to show.
  for (const [field, fallback] of Object.entries(UPDATABLE_DEFAULTS)) {
    const value = body[field] ?? fallback;
    if (value !== undefined) next[field] = value;
  }
  state.put(found.key, next);
  return awsJson({ UserPoolClient: next });
}
