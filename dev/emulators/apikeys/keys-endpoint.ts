/**
 * PATCH projects/{project}/locations/global/keys/{key} (API Keys API v2, UpdateKey). The body is the
 * Key; `updateMask` names what to update: `displayName`, `restrictions`, `annotations` (snake case
 * too), `*` for all three, or, absent, those present in the body. Each named field is replaced
 * whole by the body's value (AIP-134: `restrictions` with its `apiTargets`), a named field the body
 * leaves out is cleared; other paths, deeper ones included, are refused (inferred). An `etag` in the
 * body that is not the key's is refused 409 ABORTED (AIP-154; the API Keys docs do not say which
 * code — inferred); none is an unconditional update. The answer is the update's Operation
 * (./operations-endpoint.ts). Check and accept happen with no await in between.
 */
import type { EmulatorState } from "../emulator";
import { googleError } from "../google/responses";
import { startOperation } from "./operations-endpoint";
import { restrictionsProblem } from "./restrictions";
import { type ApiKeyRecord, type ApiKeysOperation, apiKeysKeys, type OperationsKnob } from "./state";

export const KEY_PATH = /^\/v2\/projects\/([^/]+)\/locations\/([^/]+)\/keys\/([^/]+)$/;
const MUTABLE = ["displayName", "restrictions", "annotations"] as const;
type Mutable = (typeof MUTABLE)[number];
const camel = (path: string) => path.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const isMutable = (f: string): f is Mutable => (MUTABLE as readonly string[]).includes(f);

export interface KeyAddress {
  project: string;
  id: string;
  storageKey: string;
}

export async function patchKey(request: Request, state: EmulatorState, at: KeyAddress): Promise<Response> {
  const params = new URL(request.url).searchParams;
  let body: Record<string, unknown>;
  try {
    body = (await request.json()) as Record<string, unknown>;
  } catch {
    return googleError(400, "Invalid JSON payload received.");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return googleError(400, "Invalid JSON payload received.");
  }
  const mask = params.get("updateMask") ?? params.get("update_mask");
  const paths =
    mask === null
      ? MUTABLE.filter((f) => body[f] !== undefined)
      : mask === "*"
        ? [...MUTABLE]
        : mask.split(",").map((p) => camel(p.trim()));
  const bad = paths.find((p) => !isMutable(p));
  if (bad !== undefined) return googleError(400, `Invalid update_mask path: ${bad}`);
  const fields = paths as Mutable[];
  if (fields.includes("restrictions")) {
    const problem = restrictionsProblem(body.restrictions);
    if (problem) return googleError(400, problem);
  }
  const name = body.displayName;
  if (fields.includes("displayName") && typeof name === "string" && name.length > 63) {
    return googleError(400, "The display name must be at most 63 characters.");
  }
  // Read after the body's await, then checked and accepted with none in between: the etag is a
  // compare-and-set, as the API's is.
  const record = state.get<ApiKeyRecord>(at.storageKey);
  if (!record) return googleError(404, "Requested entity was not found.");
  const etag = body.etag;
  if (typeof etag === "string" && etag !== "" && !record.ignoresEtag && etag !== record.key.etag) {
    state.put(apiKeysKeys.aborted, (state.get<number>(apiKeysKeys.aborted) ?? 0) + 1);
    return googleError(
      409,
      `The etag in the request does not match the current etag of the key ${record.key.name}; get the key and retry.`,
    );
  }
  const change: ApiKeysOperation["change"] = { clear: [] };
  for (const field of fields) {
    const value = body[field];
    if (value === undefined || value === null) change.clear.push(field);
    else Object.assign(change, { [field]: value });
  }
  const knobKey = apiKeysKeys.knob(at.project, at.id);
  const knob = state.get<OperationsKnob>(knobKey);
  if (knob?.count !== undefined) {
    if (knob.count <= 1) state.delete(knobKey);
    else state.put<OperationsKnob>(knobKey, { ...knob, count: knob.count - 1 });
  }
  return startOperation(state, at.storageKey, change, knob);
}
