/**
 * PATCH projects/{project}/keys/{key} (reCAPTCHA Enterprise API v1 reference, UpdateKey; its proto's
 * `update_mask`: "If the mask is not present, all fields are updated"). With `updateMask` each path
 * it names (`webSettings.allowedDomains`, or a whole `webSettings`) is replaced by the body's value,
 * a path missing from the body cleared, every other field kept; without one, every updatable field
 * is the body's, so whatever the body leaves out is gone. Platform settings are a oneof: setting one
 * clears the others. No etag, no precondition: the last write wins. The answer is the key
 * (synchronous, not a long-running operation). Enums sent as numbers are kept as names (./enums.ts).
 *
 * Inferred, not read in Google's docs (Google documents neither wording): the messages of the 400s
 * below, and that more than 250 domains (the documented cap) is a 400 INVALID_ARGUMENT rather than
 * another status.
 */
import type { EmulatorState } from "../emulator";
import { googleError, googleJson } from "../google/responses";
import { wantsNumbers, withEnums } from "./enums";
import type { RecaptchaKey } from "./state";

export const KEY_PATH = /^\/v1\/projects\/([^/]+)\/keys\/([^/]+)$/;

/** "Each key supports a maximum of 250 domains" (the proto's `allowed_domains`). */
export const MAX_ALLOWED_DOMAINS = 250;

const PLATFORMS = ["webSettings", "androidSettings", "iosSettings", "expressSettings", "universalSettings"];
/** Every field a PATCH may set; `name` (identifier) and `createTime` (output only) are not among them. */
const UPDATABLE = new Set(["displayName", ...PLATFORMS, "labels", "testingOptions", "wafSettings"]);
const OUTPUT_ONLY = new Set(["name", "createTime"]);
const WEB_FIELDS = new Set([
  "allowAllDomains",
  "allowedDomains",
  "allowAmpTraffic",
  "integrationType",
  "challengeSecurityPreference",
  "challengeSettings",
]);
/** A host and nothing else: no scheme, port, path, query or fragment (the proto's `allowed_domains`). */
const DOMAIN = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
/** Field names as the API takes them: camelCase, or snake_case as gRPC-minded clients send. */
const camel = (path: string) => path.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function valueAt(body: Json, path: string[]): unknown {
  let node: unknown = body;
  for (const key of path) {
    if (!isObject(node)) return undefined;
    node = node[key];
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
  const next: Json = isObject(child) ? { ...child } : {};
  setAt(next, rest, value);
  target[head] = next;
}

/** Google's REST front end refuses a field the message does not have. */
function unknownField(body: Json): string | null {
  const top = Object.keys(body).find((f) => !UPDATABLE.has(f) && !OUTPUT_ONLY.has(f));
  if (top) return `Invalid JSON payload received. Unknown name "${top}" at 'key': Cannot find field.`;
  const web = body.webSettings;
  if (web !== undefined && !isObject(web)) return "Invalid value at 'key.web_settings'.";
  const inner = isObject(web) ? Object.keys(web).find((f) => !WEB_FIELDS.has(f)) : undefined;
  return inner
    ? `Invalid JSON payload received. Unknown name "${inner}" at 'key.web_settings': Cannot find field.`
    : null;
}

function badPath(path: string): string | null {
  const [root = "", sub, ...deeper] = path.split(".");
  if (OUTPUT_ONLY.has(root)) return `Field '${path}' is output only and cannot be updated.`;
  if (!UPDATABLE.has(root)) return `Invalid update mask path: ${path}`;
  if (root !== "webSettings" || sub === undefined) return null;
  // Only challengeSettings has fields of its own below webSettings.
  const known = WEB_FIELDS.has(sub) && (deeper.length === 0 || sub === "challengeSettings");
  return known ? null : `Invalid update mask path: ${path}`;
}

/** What the key must be after the update (required fields, the domains' shape and cap). */
function invalidKey(key: Json): string | null {
  if (typeof key.displayName !== "string" || key.displayName === "")
    return "Invalid argument: display_name is required.";
  if (!PLATFORMS.some((p) => key[p] !== undefined))
    return "Invalid argument: one of web_settings, android_settings, ios_settings, express_settings or universal_settings is required.";
  const web = key.webSettings;
  if (!isObject(web)) return null;
  if (web.integrationType === undefined)
    return "Invalid argument: web_settings.integration_type is required.";
  const domains = web.allowedDomains ?? [];
  if (!Array.isArray(domains) || domains.some((d) => typeof d !== "string"))
    return "Invalid value at 'key.web_settings.allowed_domains'.";
  const bad = (domains as string[]).find((d) => !DOMAIN.test(d));
  if (bad !== undefined)
    return `Invalid argument: allowed domain "${bad}" is not a valid domain: it must be a host without scheme, port, path, query or fragment.`;
  if (domains.length > MAX_ALLOWED_DOMAINS)
    return `Invalid argument: ${domains.length} allowed domains; a key supports at most ${MAX_ALLOWED_DOMAINS}. Set allow_all_domains to use the key on more domains.`;
  return null;
}

export async function patchKey(
  request: Request,
  state: EmulatorState,
  storageKey: string,
  stored: RecaptchaKey,
): Promise<Response> {
  const url = new URL(request.url);
  const params = url.searchParams;
  const mask = params.get("updateMask") ?? params.get("update_mask");
  let sent: unknown;
  try {
    sent = await request.json();
  } catch {
    return googleError(400, "Invalid JSON payload received.");
  }
  if (!isObject(sent)) return googleError(400, "Invalid JSON payload received.");
  const body = withEnums(sent, "names");
  const unknown = unknownField(body);
  if (unknown) return googleError(400, unknown);
  const paths = mask ? mask.split(",").map((p) => camel(p.trim())) : [...UPDATABLE];
  for (const path of paths) {
    const bad = badPath(path);
    if (bad) return googleError(400, bad);
  }
  const next: Json = structuredClone(stored) as unknown as Json;
  for (const path of paths) setAt(next, path.split("."), valueAt(body, path.split(".")));
  const chosen = PLATFORMS.find(
    (p) => paths.some((path) => path.split(".")[0] === p) && next[p] !== undefined,
  );
  for (const p of PLATFORMS) if (chosen && p !== chosen) delete next[p];
  const invalid = invalidKey(next);
  if (invalid) return googleError(400, invalid);
  state.put(storageKey, next);
  return googleJson(200, withEnums(next, wantsNumbers(url) ? "numbers" : "names"));
}
