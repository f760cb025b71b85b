/**
 * The long-running operations an update returns (google.longrunning.Operation; `GET
 * /v2/{name=operations/*}`, as the API Keys client's own LRO rules name it). By default an
 * operation is done in the PATCH's own answer; a key's OperationsKnob keeps it pending until its
 * `pendingPolls`-th poll (or for good), or ends it with an error and nothing applied. The change
 * is applied when the operation is done, over the key as it is then: a masked field replaced whole
 * (the etag was checked when the update was accepted; whether Google checks it again on completion
 * is not documented — not modelled).
 */
import type { EmulatorState } from "../emulator";
import { googleError, googleJson } from "../google/responses";
import {
  type ApiKeyRecord,
  type ApiKeyResource,
  type ApiKeysOperation,
  apiKeysKeys,
  etagOf,
  type OperationsKnob,
} from "./state";

export const OPERATION_PATH = /^\/v2\/operations\/([^/]+)$/;
const KEY_TYPE = "type.googleapis.com/google.api.apikeys.v2.Key";

/** The Operation as the API answers it: proto3 JSON leaves `done: false` out. */
export function operationJson(op: ApiKeysOperation): Record<string, unknown> {
  return {
    name: op.name,
    ...(op.done ? { done: true } : {}),
    ...(op.done && op.error
      ? { error: { code: op.error.code, message: op.error.message, details: [] } }
      : {}),
    ...(op.done && !op.error && op.response ? { response: { "@type": KEY_TYPE, ...op.response } } : {}),
  };
}

/** The update's operation, done at once unless the key's knob says otherwise. */
export function startOperation(
  state: EmulatorState,
  key: string,
  change: ApiKeysOperation["change"],
  knob: OperationsKnob | undefined,
): Response {
  const id = `akmf.p7-${crypto.randomUUID()}`;
  const op: ApiKeysOperation = {
    name: `operations/${id}`,
    key,
    pollsLeft: knob?.pendingPolls ?? 0,
    change,
    done: false,
    ...(knob?.error ? { error: knob.error } : {}),
  };
  const now = op.pollsLeft === 0 ? settle(state, op) : op;
  state.put(apiKeysKeys.operation(id), now);
  return googleJson(200, operationJson(now));
}

/** GET operations/{id}: one poll; the poll that uses up `pendingPolls` answers it done. */
export function pollOperation(state: EmulatorState, id: string): Response {
  const stored = state.get<ApiKeysOperation>(apiKeysKeys.operation(id));
  if (!stored) return googleError(404, `Operation operations/${id} not found.`);
  let op = stored;
  if (!op.done && op.pollsLeft !== "never") {
    const left = op.pollsLeft - 1;
    op = left <= 0 ? settle(state, op) : { ...op, pollsLeft: left };
    state.put(apiKeysKeys.operation(id), op);
  }
  return googleJson(200, operationJson(op));
}

/** Operations a test made due (pollsLeft 0) are done before any other request is answered. */
export function settleDueOperations(state: EmulatorState): void {
  for (const [storageKey, op] of state.list<ApiKeysOperation>(apiKeysKeys.operations)) {
    if (!op.done && op.pollsLeft === 0) state.put(storageKey, settle(state, op));
  }
}

function settle(state: EmulatorState, op: ApiKeysOperation): ApiKeysOperation {
  if (op.error) return { ...op, pollsLeft: 0, done: true };
  const record = state.get<ApiKeyRecord>(op.key);
  if (!record) {
    return { ...op, pollsLeft: 0, done: true, error: { code: 5, message: "The key no longer exists." } };
  }
  const version = record.version + 1;
  const { clear, ...set } = op.change;
  const key: ApiKeyResource = { ...record.key, ...set };
  for (const field of clear) delete (key as unknown as Record<string, unknown>)[field];
  key.updateTime = new Date().toISOString();
  key.etag = etagOf(key.uid, version);
  state.put<ApiKeyRecord>(op.key, { ...record, key, version });
  return { ...op, pollsLeft: 0, done: true, response: key };
}
