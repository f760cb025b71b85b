/**
 * `@google-cloud/apikeys` (ApiKeysClient in its REST fallback) against the API Keys emulator: the
 * SDK's own paths, bodies, Operation decoding and polling (`updateKey` is a long-running
 * operation; `.promise()` polls `GET /v2/operations/{id}`), and the adapter and the SDK each
 * reading what the other wrote. The client's auth is a google-auth-library OAuth2Client holding an
 * access token bought at the emulated token host; its gaxios transport takes a fetch
 * implementation, so only the origin of each request changes.
 */
import { ApiKeysClient } from "@google-cloud/apikeys";
import { JWT, OAuth2Client } from "google-auth-library";
import { exportJWK, exportPKCS8, generateKeyPair } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { apiKeyRecord, apiKeysKeys } from "../../dev/emulators/apikeys";
import { googleKeys } from "../../dev/emulators/google";
import { apiKeysAdapter } from "../../workers/adapters/apikeys";
import { adapterContext, opOf } from "./adapter-context";
import { emulatorFetch, seed, sent, unique } from "./emulators";

const APIKEYS = "apikeys.googleapis.com";
const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";
const project = unique("proj");
const KEY = "sdk-browser-key";
const name = `projects/${project}/locations/global/keys/${KEY}`;
const API_TARGETS = [{ service: "maps-backend.googleapis.com", methods: ["Get*"] }];
let email: string;
let key: string;
let accessToken: string;

beforeAll(async () => {
  const pair = await generateKeyPair("RS256", { extractable: true });
  email = `${unique("sdk")}@sponson-tests.iam.gserviceaccount.com`;
  key = await exportPKCS8(pair.privateKey);
  await seed("oauth2.googleapis.com", {
    [googleKeys.serviceAccount(email)]: { publicJwk: await exportJWK(pair.publicKey) },
  });
  await seed(APIKEYS, {
    [apiKeysKeys.project(project)]: { members: { [email]: "admin" } },
    [apiKeysKeys.key(project, KEY)]: apiKeyRecord(project, KEY, {
      browserKeyRestrictions: { allowedReferrers: ["https://app.example.com/*"] },
      apiTargets: API_TARGETS,
    }),
  });
  const jwt = new JWT({
    email,
    key,
    scopes: [CLOUD_PLATFORM],
    transporterOptions: { fetchImplementation: emulatorFetch },
  });
  accessToken = (await jwt.getAccessToken()).token as string;
});

function client() {
  const authClient = new OAuth2Client({ transporterOptions: { fetchImplementation: emulatorFetch } });
  authClient.setCredentials({ access_token: accessToken, expiry_date: Date.now() + 3_600_000 });
  return new ApiKeysClient({ fallback: true, authClient });
}

const op = opOf(apiKeysAdapter, "googleapikey.referrer");
const ctx = () =>
  adapterContext(apiKeysAdapter, {
    type: "googleapikey",
    serviceAccountKey: JSON.stringify({ type: "service_account", client_email: email, private_key: key }),
  });
const params = (referrer: string) => ({ project, key: KEY, referrer });
const setOperations = (knob: Record<string, unknown>) =>
  seed(APIKEYS, { [apiKeysKeys.knob(project, KEY)]: knob });

describe("@google-cloud/apikeys ApiKeysClient (REST fallback)", () => {
  it("getKey reads the referrer the adapter added, with apiTargets untouched and an etag", async () => {
    const c = ctx();
    const added = params("https://pr-1.preview.example.com/*");
    await op.create(c, added, await op.inspect(c, added));
    const [got] = await client().getKey({ name });
    expect(got.restrictions?.browserKeyRestrictions?.allowedReferrers).toEqual([
      "https://app.example.com/*",
      "https://pr-1.preview.example.com/*",
    ]);
    expect(got.restrictions?.apiTargets).toEqual(API_TARGETS);
    expect(got.etag).toMatch(/.+/);
    expect(sent.some((r) => r.method === "GET" && new URL(r.url).pathname === `/v2/${name}`)).toBe(true);
  });

  it("updateKey with updateMask restrictions and the etag: an Operation, awaited with .promise(); the adapter reads it back", async () => {
    const sdk = client();
    const [got] = await sdk.getKey({ name });
    const referrers = [
      ...(got.restrictions?.browserKeyRestrictions?.allowedReferrers ?? []),
      "https://pr-2.preview.example.com/*",
    ];
    const [operation] = await sdk.updateKey({
      key: {
        name,
        etag: got.etag,
        restrictions: { ...got.restrictions, browserKeyRestrictions: { allowedReferrers: referrers } },
      },
      updateMask: { paths: ["restrictions"] },
    });
    const [updated] = await operation.promise();
    expect(updated.restrictions?.browserKeyRestrictions?.allowedReferrers).toEqual(referrers);
    expect(updated.etag).not.toBe(got.etag);
    const patch = sent.filter((r) => r.method === "PATCH").at(-1);
    expect(new URL(patch?.url ?? "http://x").searchParams.get("updateMask")).toBe("restrictions");
    expect((await op.inspect(ctx(), params("https://pr-2.preview.example.com/*"))).present).toBe(true);
  });

  it("a stale etag is refused ABORTED (gRPC code 10), nothing changed", async () => {
    const sdk = client();
    const [got] = await sdk.getKey({ name });
    const c = ctx();
    const third = params("https://pr-3.preview.example.com/*");
    await op.create(c, third, await op.inspect(c, third));
    const stale = await sdk
      .updateKey({ key: { name, etag: got.etag, restrictions: {} }, updateMask: { paths: ["restrictions"] } })
      .catch((e: unknown) => e);
    expect(stale).toMatchObject({ code: 10 });
    expect((await op.inspect(ctx(), third)).present).toBe(true);
  });

  it("an Operation pending for two polls: .promise() polls GET /v2/operations/{id} until done", async () => {
    await setOperations({ pendingPolls: 2 });
    try {
      const sdk = client();
      const [got] = await sdk.getKey({ name });
      const [operation] = await sdk.updateKey({
        key: { name, etag: got.etag, displayName: "Renamed by the SDK" },
        updateMask: { paths: ["display_name"] },
      });
      expect(operation.done).toBe(false);
      const [updated] = await operation.promise();
      expect(updated.displayName).toBe("Renamed by the SDK");
      expect(updated.restrictions?.apiTargets).toEqual(API_TARGETS);
      const polls = sent.filter(
        (r) => r.method === "GET" && new URL(r.url).pathname === `/v2/${operation.name}`,
      );
      expect(polls).toHaveLength(2);
    } finally {
      await setOperations({ pendingPolls: 0 });
    }
  });

  it("an Operation done with an error: .promise() rejects with its code and message; the key unchanged", async () => {
    await setOperations({ pendingPolls: 1, error: { code: 3, message: "Referrer pattern is not valid." } });
    try {
      const sdk = client();
      const [got] = await sdk.getKey({ name });
      const [operation] = await sdk.updateKey({
        key: { name, etag: got.etag, restrictions: {} },
        updateMask: { paths: ["restrictions"] },
      });
      const failed = await operation.promise().catch((e: unknown) => e);
      expect(failed).toMatchObject({
        code: 3,
        message: expect.stringContaining("Referrer pattern is not valid."),
      });
      const [after] = await sdk.getKey({ name });
      expect(after.restrictions).toEqual(got.restrictions);
    } finally {
      await setOperations({ pendingPolls: 0 });
    }
  });

  it("errors: an unknown key is NOT_FOUND (5), a project the account has no role on PERMISSION_DENIED (7)", async () => {
    const sdk = client();
    const missing = await sdk
      .getKey({ name: `projects/${project}/locations/global/keys/no-such-key` })
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 5 });
    const denied = await sdk
      .getKey({ name: `projects/not-ours/locations/global/keys/${KEY}` })
      .catch((e: unknown) => e);
    expect(denied).toMatchObject({ code: 7 });
  });
});
