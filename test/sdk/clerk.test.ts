/**
 * `@clerk/backend` against the Clerk emulator: redirect URLs created, listed, read and deleted by
 * id; the instance read and its allowed_origins replaced by `instance.update` (204); errors read
 * from the ClerkErrors envelope, and a 429's `Retry-After` as the SDK parses it. The SDK is
 * pointed at the emulator server with its own `apiUrl` option (it appends `/v1/…` itself).
 */
import { createClerkClient, verifyToken } from "@clerk/backend";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CLERK_HOST,
  type ClerkInstanceRecord,
  clerkInstance,
  clerkKeys,
  clerkRedirectUrl,
} from "../../dev/emulators/clerk";
import { configure, dump, emulatorsUrl, seed } from "./emulators";

const id = crypto.randomUUID().replaceAll("-", "");
const INSTANCE = `ins_sdk${id.slice(0, 16)}`;
const SECRET_KEY = `sk_live_sdk${id}`;
/** Clerk's words for a secret key it does not know (message and long_message alike). */
const BAD_KEY = "The provided Clerk Secret Key is invalid. Make sure that your Clerk Secret Key is correct.";
const SEEDED = Array.from({ length: 12 }, (_, i) => `my-app-${i}://oauth-callback`);

beforeAll(async () => {
  const entries: Record<string, unknown> = {
    [clerkKeys.key(SECRET_KEY)]: { instance: INSTANCE },
    [clerkKeys.instance(INSTANCE)]: clerkInstance(INSTANCE, ["http://localhost:3000"]),
  };
  SEEDED.forEach((url, i) => {
    const ru = `ru_sdkseed${String(i).padStart(3, "0")}`;
    entries[clerkKeys.redirect(INSTANCE, ru)] = clerkRedirectUrl(ru, url, 1_700_000_000_000 + i);
  });
  await seed(CLERK_HOST, entries);
});

const clerk = (secretKey = SECRET_KEY) =>
  createClerkClient({ secretKey, apiUrl: `${emulatorsUrl()}/v1/emulators/${CLERK_HOST}` });
const caught = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as Record<string, unknown>,
  );

describe("clerk backend SDK", () => {
  it("creates a redirect URL, finds it by id, deletes it by id (a DeletedObject), then 404s in Clerk's envelope", async () => {
    const created = await clerk().redirectUrls.createRedirectUrl({
      url: "https://pr-1.preview.example.com/sso",
    });
    expect(created).toMatchObject({ url: "https://pr-1.preview.example.com/sso" });
    expect(created.id).toMatch(/^ru_/);
    expect(await clerk().redirectUrls.getRedirectUrl(created.id)).toMatchObject({ id: created.id });
    expect(await clerk().redirectUrls.deleteRedirectUrl(created.id)).toMatchObject({
      id: created.id,
      deleted: true,
    });
    const gone = await caught(clerk().redirectUrls.getRedirectUrl(created.id));
    expect(gone).toMatchObject({ status: 404, errors: [{ code: "resource_not_found" }] });
  });

  it("the list is one page of 10, newest first, with the total: why the adapter asks for limit=500", async () => {
    const list = await clerk().redirectUrls.getRedirectUrlList();
    expect(list.totalCount).toBe(SEEDED.length);
    expect(list.data).toHaveLength(10);
    expect(list.data[0]?.url).toBe(SEEDED[SEEDED.length - 1]);
    expect(list.data.map((r) => r.url)).not.toContain(SEEDED[0]);
  });

  it("a second create of a URL the instance holds is refused (the emulator's 422 duplicate_record)", async () => {
    const err = await caught(clerk().redirectUrls.createRedirectUrl({ url: SEEDED[0] as string }));
    expect(err).toMatchObject({ status: 422, errors: [{ code: "duplicate_record" }] });
  });

  it("instance.get shows allowedOrigins; instance.update replaces them whole (204)", async () => {
    expect((await clerk().instance.get()).allowedOrigins).toEqual(["http://localhost:3000"]);
    await clerk().instance.update({
      allowedOrigins: ["capacitor://localhost", "https://pr-1.preview.example.com"],
    });
    const key = clerkKeys.instance(INSTANCE);
    const stored = (await dump(CLERK_HOST, key))[key] as ClerkInstanceRecord;
    expect(stored.allowed_origins).toEqual(["capacitor://localhost", "https://pr-1.preview.example.com"]);
    const bad = await caught(clerk().instance.update({ allowedOrigins: ["not an origin"] }));
    expect(bad).toMatchObject({
      status: 422,
      errors: [{ code: "form_param_format_invalid", meta: { paramName: "allowed_origins" } }],
    });
  });

  it("a 429 carries Retry-After, which the SDK reads as retryAfter (seconds)", async () => {
    await configure(CLERK_HOST, { failures: [{ status: 429, count: 1, on: "read" }] });
    const err = await caught(clerk().instance.get());
    await configure(CLERK_HOST, {});
    expect(err).toMatchObject({ status: 429, retryAfter: 2, errors: [{ code: "too_many_requests" }] });
  });

  it("an unknown secret key is 401 clerk_key_invalid, worded as Clerk words it", async () => {
    const err = await caught(clerk("sk_live_nobody").instance.get());
    expect(err).toMatchObject({
      status: 401,
      errors: [{ code: "clerk_key_invalid", message: BAD_KEY, longMessage: BAD_KEY }],
    });
  });

  it("the SDK's own check for a bad key (verifyToken's JWKS fetch) finds clerk_key_invalid and shows its message", async () => {
    const jwt = [{ alg: "RS256", kid: "ins_sdk_kid", typ: "JWT" }, { sub: "user_1" }]
      .map((part) => Buffer.from(JSON.stringify(part)).toString("base64url"))
      .concat("c2ln")
      .join(".");
    const refused = await caught(
      verifyToken(jwt, {
        secretKey: "sk_live_nobody",
        apiUrl: `${emulatorsUrl()}/v1/emulators/${CLERK_HOST}`,
      }),
    );
    // Any other 401 body reads "Error loading Clerk JWKS … with code=401", reason jwk-remote-failed-to-load.
    expect(refused).toMatchObject({ reason: "secret-key-invalid", message: BAD_KEY });
  });
});
