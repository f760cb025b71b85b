/**
 * What the API Keys emulator keeps (apikeys.googleapis.com). Storage keys:
 *   project:<id>                  → ApiKeysProject (who may read or update its keys)
 *   key:<project>/<key id>        → ApiKeyRecord (the Key resource, and its version)
 *   operation:<id>                → ApiKeysOperation (an update's long-running operation)
 *   operations:<project>/<key id> → OperationsKnob (how the key's next updates' operations end; tests)
 *   stats:aborted                 → number of 409 ABORTED answered for a stale etag (tests)
 *   sa:<email>                    → GoogleServiceAccount, for self-signed JWT bearers (../google/state.ts)
 *   demo:provisioned              → true (./demo.ts)
 */

export interface ApiKeysProject {
  members: Record<string, "admin" | "viewer">;
  /** The project number the keys' names carry (`projects/<number>/…`); the id when absent. */
  number?: string;
}

/** `google.api.apikeys.v2.Key` as the API answers it (GET never carries `keyString`). */
export interface ApiKeyResource {
  name: string;
  uid: string;
  displayName?: string;
  createTime: string;
  updateTime: string;
  annotations?: Record<string, string>;
  /** Stored as sent: the proto's fields are checked, fields it does not have are kept (not modelled). */
  restrictions?: Record<string, unknown>;
  etag: string;
}

export interface ApiKeyRecord {
  key: ApiKeyResource;
  /** Counts updates; the etag is derived from it, so every update changes the etag. */
  version: number;
  /** The control case only: a key whose updates ignore the etag sent (an API with no precondition). */
  ignoresEtag?: true;
}

/** `google.rpc.Status` as an Operation's `error` carries it. */
export interface RpcStatus {
  code: number;
  message: string;
}

export interface ApiKeysOperation {
  /** `operations/<id>` */
  name: string;
  /** The key's storage key. */
  key: string;
  /** Polls before it is done; "never": it stays pending until a test sets a number. */
  pollsLeft: number | "never";
  /** The masked fields the update sets, applied when the operation is done without `error`. */
  change: Partial<Pick<ApiKeyResource, "displayName" | "annotations" | "restrictions">> & {
    clear: string[];
  };
  error?: RpcStatus;
  done: boolean;
  /** The Key once done (`response`). */
  response?: ApiKeyResource;
}

/**
 * How the operations of a key's next updates end (tests): done after `pendingPolls` polls (0: done
 * in the PATCH's own answer, the default), or never; with `error`, done with that status and
 * nothing applied. Applies to the next `count` updates, or to every one while it is set.
 */
export interface OperationsKnob {
  pendingPolls: number | "never";
  error?: RpcStatus;
  count?: number;
}

export const apiKeysKeys = {
  project: (id: string) => `project:${id}`,
  key: (project: string, id: string) => `key:${project}/${id}`,
  operation: (id: string) => `operation:${id}`,
  operations: "operation:",
  knob: (project: string, id: string) => `operations:${project}/${id}`,
  aborted: "stats:aborted",
} as const;

/** An opaque checksum of the key's state, as the API's `etag` is (its format is not documented). */
export function etagOf(uid: string, version: number): string {
  return btoa(`${uid}:${version}`).replaceAll("=", "");
}

/** A browser key as the console makes one: its referrers, and APIs it may call. */
export function apiKeyRecord(
  project: string,
  id: string,
  restrictions: Record<string, unknown> | undefined,
  number = project,
): ApiKeyRecord {
  const uid = crypto.randomUUID();
  const created = "2026-01-05T10:00:00.000000Z";
  return {
    version: 1,
    key: {
      name: `projects/${number}/locations/global/keys/${id}`,
      uid,
      displayName: "Browser key (previews)",
      createTime: created,
      updateTime: created,
      ...(restrictions ? { restrictions } : {}),
      etag: etagOf(uid, 1),
    },
  };
}
