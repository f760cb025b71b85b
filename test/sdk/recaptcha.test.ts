/**
 * `@google-cloud/recaptcha-enterprise` in its REST fallback (google-gax's HTTP/1.1 transport, the
 * JSON transcoding of the service's `google.api.http` rules) against the reCAPTCHA Enterprise
 * emulator. Its auth client is google-auth-library's JWT client, whose gaxios transport takes a
 * fetch implementation, so only the origin of each request changes: the SDK's own paths, query
 * (`updateMask`, `$alt=json;enum-encoding=int`) and bodies reach the emulator. The adapter and the
 * SDK each read what the other wrote.
 */
import { RecaptchaEnterpriseServiceClient } from "@google-cloud/recaptcha-enterprise";
import { JWT } from "google-auth-library";
import { exportJWK, exportPKCS8, generateKeyPair } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { googleKeys } from "../../dev/emulators/google";
import { type RecaptchaKey, recaptchaKeys, recaptchaWebKey } from "../../dev/emulators/recaptcha";
import { recaptchaAdapter } from "../../workers/adapters/recaptcha";
import { adapterContext, opOf } from "./adapter-context";
import { dump, emulatorFetch, seed, sent, unique } from "./emulators";

const HOST = "recaptchaenterprise.googleapis.com";
const project = unique("proj");
const SITE_KEY = "6LcSdkPreviews";
const name = `projects/${project}/keys/${SITE_KEY}`;
let email: string;
let key: string;

beforeAll(async () => {
  const pair = await generateKeyPair("RS256", { extractable: true });
  email = `${unique("sdk")}@sponson-tests.iam.gserviceaccount.com`;
  key = await exportPKCS8(pair.privateKey);
  // The token host knows the account's key, and so does the API host: google-gax has the JWT
  // client send a self-signed JWT with its scope as the bearer, which the API checks itself.
  const account = { [googleKeys.serviceAccount(email)]: { publicJwk: await exportJWK(pair.publicKey) } };
  await seed("oauth2.googleapis.com", account);
  const seeded = recaptchaWebKey(project, SITE_KEY, ["app.example.com"]);
  await seed(HOST, {
    ...account,
    [recaptchaKeys.project(project)]: { members: { [email]: "editor" } },
    [recaptchaKeys.key(project, SITE_KEY)]: { ...seeded, testingOptions: { testingScore: 0.9 } },
  });
});

const client = () =>
  new RecaptchaEnterpriseServiceClient({
    fallback: true,
    authClient: new JWT({
      email,
      key,
      scopes: ["https://www.googleapis.com/auth/cloud-platform"],
      transporterOptions: { fetchImplementation: emulatorFetch },
    }),
  });

const op = opOf(recaptchaAdapter, "recaptcha.domain");
const ctx = () =>
  adapterContext(recaptchaAdapter, {
    type: "recaptcha",
    serviceAccountKey: JSON.stringify({ type: "service_account", client_email: email, private_key: key }),
  });
const params = (domain: string) => ({ project, siteKey: SITE_KEY, domain });
const stored = async () =>
  (await dump(HOST, recaptchaKeys.key(project, SITE_KEY)))[
    recaptchaKeys.key(project, SITE_KEY)
  ] as RecaptchaKey;

describe("@google-cloud/recaptcha-enterprise (REST fallback) projects.keys", () => {
  it("getKey reads the domain the adapter added; updateKey by mask is read back by the adapter, the rest of the key kept", async () => {
    const c = ctx();
    const added = params("pr-1.preview.example.com");
    await op.create(c, added, await op.inspect(c, added));
    const [got] = await client().getKey({ name });
    expect(got.webSettings?.allowedDomains).toEqual(["app.example.com", "pr-1.preview.example.com"]);
    expect(got.webSettings?.integrationType).toBe("SCORE");
    expect(got.labels).toEqual({ team: "web" });

    const before = await stored();
    const [updated] = await client().updateKey({
      key: {
        name,
        webSettings: {
          allowedDomains: [...(got.webSettings?.allowedDomains ?? []), "pr-2.preview.example.com"],
        },
      },
      updateMask: { paths: ["web_settings.allowed_domains"] },
    });
    const patch = sent.findLast((r) => r.method === "PATCH");
    // The field mask goes as written, in the proto's snake_case; the adapter sends camelCase.
    expect(new URL(patch?.url ?? "").searchParams.get("updateMask")).toBe("web_settings.allowed_domains");
    expect(updated.webSettings?.integrationType).toBe("SCORE");
    expect((await op.inspect(ctx(), params("pr-2.preview.example.com"))).present).toBe(true);
    expect(await stored()).toEqual({
      ...before,
      webSettings: {
        ...before.webSettings,
        allowedDomains: [...(before.webSettings?.allowedDomains ?? []), "pr-2.preview.example.com"],
      },
    });
  });

  it("updateKey without a mask updates every field: what the key sent leaves out is cleared", async () => {
    const other = "6LcSdkNoMask";
    await seed(HOST, {
      [recaptchaKeys.key(project, other)]: recaptchaWebKey(project, other, ["app.example.com"]),
    });
    const [updated] = await client().updateKey({
      key: {
        name: `projects/${project}/keys/${other}`,
        displayName: "Previews",
        webSettings: { allowedDomains: ["b.example.com"], integrationType: "SCORE" },
      },
    });
    expect(updated.webSettings?.allowedDomains).toEqual(["b.example.com"]);
    expect(updated.labels).toEqual({});
    expect(updated.wafSettings).toBeNull();
    // The SDK sends enums as numbers ($alt=json;enum-encoding=int); the key keeps the value's name,
    // as the adapter and every other JSON client reads it.
    const kept = (await dump(HOST, recaptchaKeys.key(project, other)))[
      recaptchaKeys.key(project, other)
    ] as RecaptchaKey;
    expect(kept.webSettings?.integrationType).toBe("SCORE");
  });

  it("Google's refusals reach the SDK as its status codes: 404 NOT_FOUND, 403 PERMISSION_DENIED, 400 INVALID_ARGUMENT", async () => {
    const missing = await client()
      .getKey({ name: `projects/${project}/keys/6LcNoSuchKey` })
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 5 });
    const denied = await client()
      .getKey({ name: `projects/not-ours/keys/${SITE_KEY}` })
      .catch((e: unknown) => e);
    expect(denied).toMatchObject({ code: 7 });
    const tooMany = Array.from({ length: 251 }, (_, i) => `d${i}.example.com`);
    for (const allowedDomains of [tooMany, ["https://pr-3.preview.example.com"]]) {
      const refused = await client()
        .updateKey({
          key: { name, webSettings: { allowedDomains } },
          updateMask: { paths: ["web_settings.allowed_domains"] },
        })
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 3 });
    }
  });
});
