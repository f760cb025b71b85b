/** Projects, keys and operations of the emulated API Keys API (apikeys.googleapis.com). */
import {
  type ApiKeyRecord,
  type ApiKeysOperation,
  type ApiKeysProject,
  apiKeyRecord,
  apiKeysKeys,
  etagOf,
  type OperationsKnob,
} from "../../dev/emulators/apikeys";
import { emulatorStub } from "./emulators";

export const APIKEYS_HOST = "apikeys.googleapis.com";

export async function seedApiKeysProject(project: string, record: ApiKeysProject): Promise<void> {
  await emulatorStub(APIKEYS_HOST).seed({ [apiKeysKeys.project(project)]: record });
}

export async function seedApiKey(project: string, id: string, record: ApiKeyRecord): Promise<void> {
  await emulatorStub(APIKEYS_HOST).seed({ [apiKeysKeys.key(project, id)]: record });
}

export async function apiKey(project: string, id: string): Promise<ApiKeyRecord | undefined> {
  const key = apiKeysKeys.key(project, id);
  return (await emulatorStub(APIKEYS_HOST).dump(key))[key] as ApiKeyRecord | undefined;
}

/** Someone outside Sponson updates the key's restrictions (a new version: a new etag). */
export async function changeRestrictions(
  project: string,
  id: string,
  change: (restrictions: Record<string, unknown>) => Record<string, unknown>,
): Promise<void> {
  const record = (await apiKey(project, id)) as ApiKeyRecord;
  const version = record.version + 1;
  const etag = etagOf(record.key.uid, version);
  await seedApiKey(project, id, {
    ...record,
    version,
    key: { ...record.key, restrictions: change(record.key.restrictions ?? {}), etag },
  });
}

/** How the operations of the key's next updates end (OperationsKnob); null: done at once. */
export async function setOperations(project: string, id: string, knob: OperationsKnob | null): Promise<void> {
  await emulatorStub(APIKEYS_HOST).seed({ [apiKeysKeys.knob(project, id)]: knob ?? { pendingPolls: 0 } });
}

/** Every operation the emulator holds, by name. */
export async function operations(): Promise<ApiKeysOperation[]> {
  return Object.values(await emulatorStub(APIKEYS_HOST).dump(apiKeysKeys.operations)) as ApiKeysOperation[];
}

/**
 * Pending operations of the key end now, applied before this returns (an update that lands after
 * its caller stopped waiting for it): each is made due, and the emulator applies due operations
 * before it answers any request.
 */
export async function landPendingOperations(project: string, id: string): Promise<number> {
  const key = apiKeysKeys.key(project, id);
  const pending = (await operations()).filter((op) => op.key === key && !op.done);
  if (pending.length === 0) return 0;
  const stub = emulatorStub(APIKEYS_HOST);
  await stub.seed(
    Object.fromEntries(
      pending.map((op) => [
        apiKeysKeys.operation(op.name.slice("operations/".length)),
        { ...op, pollsLeft: 0 },
      ]),
    ),
  );
  // Any request will do: due operations are applied first (this one is refused, unauthenticated).
  await (await stub.fetch(`https://${APIKEYS_HOST}/v2/operations/land`)).body?.cancel();
  return pending.length;
}

/** How many 409 ABORTED the emulator has answered for a stale etag (all keys). */
export async function staleEtagRefusals(): Promise<number> {
  return ((await emulatorStub(APIKEYS_HOST).dump(apiKeysKeys.aborted))[apiKeysKeys.aborted] as number) ?? 0;
}

export { apiKeyRecord };
