/**
 * GET and PATCH /v1.0/applications/{object id} and /v1.0/applications(appId='{client id}') (Graph
 * v1.0 reference, "Update application"). PATCH answers 204 and replaces each property it names
 * whole — a complex property such as `web` too, so a sub-property left out is reset — with no
 * precondition. Limits: 256 redirect URIs per app over all platforms (100 when personal accounts
 * may sign in), 256 characters each. Reads see a write only after the host's read-after-write lag
 * (./state.ts), as Graph's eventual consistency allows.
 */
import type { EmulatorState } from "../emulator";
import { graphError, graphHeaders, graphJson } from "./responses";
import { type EntraAppRecord, entraKeys, type GraphApplication, visibleVersion } from "./state";

export const APP_PATH = /^\/v1\.0\/applications(?:\/([0-9a-f-]{36})|\(appId='([0-9a-f-]{36})'\))$/i;
const READ_ONLY = ["id", "appId", "createdDateTime", "publisherDomain", "deletedDateTime"];
const MAX_URI_CHARS = 256;
const MAX_URIS = 256;
const MAX_URIS_PERSONAL = 100;
const CAP_REFUSAL = "One or more properties contains invalid values.";

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : undefined;

/** The stored record an address names, and its key. */
export function findApp(
  state: EmulatorState,
  tenantId: string,
  match: RegExpMatchArray,
): { key: string; record: EntraAppRecord } | undefined {
  if (match[1]) {
    const key = entraKeys.app(tenantId, match[1].toLowerCase());
    const record = state.get<EntraAppRecord>(key);
    return record ? { key, record } : undefined;
  }
  for (const [key, record] of state.list<EntraAppRecord>(entraKeys.app(tenantId, ""))) {
    if (record.versions.at(-1)?.app.appId === match[2]?.toLowerCase()) return { key, record };
  }
  return undefined;
}

export function getApp(request: Request, record: EntraAppRecord): Response {
  const app = visibleVersion(record, Date.now()) as GraphApplication;
  const select = new URL(request.url).searchParams.get("$select");
  if (!select) {
    return graphJson(
      200,
      { "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#applications/$entity", ...app },
      request,
    );
  }
  const fields = select.split(",").map((f) => f.trim());
  const picked: Json = {
    "@odata.context": `https://graph.microsoft.com/v1.0/$metadata#applications(${fields.join(",")})/$entity`,
  };
  for (const f of fields) if (f in app) picked[f] = app[f];
  return graphJson(200, picked, request);
}

const badRequest = (message: string, request: Request) =>
  graphError(400, "Request_BadRequest", message, request);

function uriLists(app: Json): string[] {
  return ["web", "spa", "publicClient"].flatMap((p) => {
    const list = obj(app[p])?.redirectUris;
    return Array.isArray(list) ? (list as string[]) : [];
  });
}

export async function patchApp(
  request: Request,
  state: EmulatorState,
  key: string,
  record: EntraAppRecord,
): Promise<Response> {
  let body: Json | undefined;
  try {
    body = obj(await request.json());
  } catch {
    body = undefined;
  }
  if (!body)
    return badRequest(
      "Unable to read JSON request payload. Please ensure Content-Type header is set and payload is of valid JSON format.",
      request,
    );
  const named = READ_ONLY.find((f) => f in body);
  if (named) return badRequest(`Property '${named}' is read-only and cannot be set.`, request);
  for (const platform of ["web", "spa", "publicClient"]) {
    if (!(platform in body)) continue;
    const value = obj(body[platform]);
    const uris = value?.redirectUris;
    if (!value || (uris !== undefined && (!Array.isArray(uris) || uris.some((u) => typeof u !== "string")))) {
      return badRequest(
        `Invalid value specified for property '${platform}' of resource 'Application'.`,
        request,
      );
    }
  }
  const current = (record.versions.at(-1) as { app: GraphApplication }).app;
  const next: Json = { ...current };
  for (const [field, value] of Object.entries(body)) next[field] = value;
  const web = obj(next.web);
  if (web) {
    const uris = (web.redirectUris as string[] | undefined) ?? [];
    const sent = obj(body.web)?.redirectUriSettings;
    if (Array.isArray(sent) && JSON.stringify(sent.map((s) => obj(s)?.uri)) !== JSON.stringify(uris)) {
      return badRequest("The redirectUris and redirectUriSettings of 'web' do not match.", request);
    }
    // redirectUriSettings mirrors redirectUris; a PATCH of one keeps the other in step.
    next.web = { ...web, redirectUris: uris, redirectUriSettings: uris.map((uri) => ({ uri, index: null })) };
  }
  const all = uriLists(next);
  // Past either cap Graph answers the generic validation refusal, naming neither (the words the
  // legacy Graph answered at 256 reply URLs; the cap "can't be raised").
  const personal = String(next.signInAudience).includes("PersonalMicrosoftAccount");
  const max = personal ? MAX_URIS_PERSONAL : MAX_URIS;
  if (all.length > max || all.some((u) => u.length > MAX_URI_CHARS)) {
    return badRequest(CAP_REFUSAL, request);
  }
  const bad = all.find(
    (u) => !/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(u) && !/^[a-z][a-z0-9+.-]*:\/\S*$/i.test(u),
  );
  if (bad)
    return badRequest(
      `Invalid value specified for property 'redirectUris' of resource 'Application'.`,
      request,
    );
  const nowMs = Date.now();
  const lagMs = state.get<number>(entraKeys.lag) ?? 0;
  // Versions no read can see any more (an older one than the newest visible) are dropped.
  const visibleFrom = record.versions.findLastIndex((v) => v.visibleAtMs <= nowMs);
  const kept = record.versions.slice(Math.max(0, visibleFrom));
  state.put<EntraAppRecord>(key, {
    ...record,
    versions: [...kept, { visibleAtMs: nowMs + lagMs, app: next as GraphApplication }],
  });
  return new Response(null, { status: 204, headers: graphHeaders(request) });
}
