/**
 * GET and PATCH the Config resource, at both paths Google serves it: /admin/v2/projects/{p}/config
 * (what firebase-tools and the adapter use) and /v2/projects/{p}/config (googleapis' default).
 * PATCH applies the field paths named by `updateMask` (or `update_mask`, as firebase-tools sends
 * it), each replaced whole, a path missing from the body cleared; without a mask, every field
 * sent. Other fields stay as they were. No etag, no precondition: the last write wins.
 */
import type { EmulatorState } from "../emulator";
import { googleError, googleJson } from "../google/responses";
import { configResource, type IdentityProject, identityKeys } from "./state";

export const CONFIG_PATH = /^\/(?:admin\/)?v2\/projects\/([^/]+)\/config$/;
const DOMAIN = /^[a-z0-9.-]+$/i;
/** Output-only fields: a mask naming them is refused. */
const OUTPUT_ONLY = new Set(["name", "subtype"]);
const FIELD_PATH = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$/;

type Json = Record<string, unknown>;

function valueAt(body: Json, path: string[]): unknown {
  let node: unknown = body;
  for (const key of path) {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

function setAt(target: Json, path: string[], value: unknown): void {
  const [head, ...rest] = path as [string, ...string[]];
  if (rest.length === 0) {
    if (value === undefined) delete target[head];
    else target[head] = value;
    return;
  }
  const child = target[head];
  const next: Json =
    typeof child === "object" && child !== null && !Array.isArray(child) ? { ...(child as Json) } : {};
  setAt(next, rest, value);
  target[head] = next;
}

/** Field names as the API takes them: camelCase, or snake_case as some clients send. */
const camel = (path: string) => path.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

export async function patchConfig(
  request: Request,
  state: EmulatorState,
  project: string,
  record: IdentityProject,
): Promise<Response> {
  const params = new URL(request.url).searchParams;
  const mask = params.get("updateMask") ?? params.get("update_mask");
  let body: Json;
  try {
    body = (await request.json()) as Json;
  } catch {
    return googleError(400, "Invalid JSON payload received.");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return googleError(400, "Invalid JSON payload received.");
  }
  const domains = body.authorizedDomains;
  if (
    domains !== undefined &&
    (!Array.isArray(domains) || domains.some((d) => typeof d !== "string" || !DOMAIN.test(d)))
  ) {
    return googleError(400, "INVALID_AUTHORIZED_DOMAIN");
  }
  const paths = mask ? mask.split(",").map((f) => camel(f.trim())) : Object.keys(body);
  for (const path of paths) {
    if (!FIELD_PATH.test(path) || OUTPUT_ONLY.has(path.split(".")[0] as string)) {
      return googleError(400, `INVALID_CONFIG : Invalid update mask field: ${path}`);
    }
  }
  const current = state.get<IdentityProject>(identityKeys.project(project)) ?? record;
  const config = { ...current.config } as NonNullable<IdentityProject["config"]>;
  for (const path of paths) setAt(config, path.split("."), valueAt(body, path.split(".")));
  if (!Array.isArray(config.authorizedDomains)) config.authorizedDomains = [];
  state.put(identityKeys.project(project), { ...current, config });
  return googleJson(200, configResource(project, config));
}
