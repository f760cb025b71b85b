/**
 * The emulated Cloud Storage JSON API answers the documented bucket requests (Cloud Storage JSON API
 * reference).
 */
import { env } from "cloudflare:workers";
import { importPKCS8, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { providerFetch } from "../../../dev/emulators/transport";
import { googleServiceAccount } from "../../helpers/emulators-firebase";
import { freshBucket, seedBucket } from "../../helpers/emulators-gcs";

const send = providerFetch(env);

async function bucketAndToken() {
  const account = await googleServiceAccount();
  const name = freshBucket();
  await seedBucket(name, {
    members: { [account.email]: "admin" },
    metageneration: 7,
    cors: [
      {
        origin: ["https://app.example.com"],
        method: ["GET"],
        responseHeader: ["Content-Type"],
        maxAgeSeconds: 3600,
      },
    ],
  });
  const now = Math.floor(Date.now() / 1000);
  const jwt = await new SignJWT({ scope: "https://www.googleapis.com/auth/devstorage.full_control" })
    .setProtectedHeader({ alg: "RS256" })
    .setIssuer(account.email)
    .setAudience("https://oauth2.googleapis.com/token")
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(await importPKCS8(account.privateKeyPem, "RS256"));
  const res = await send("https://oauth2.googleapis.com/token", {
    method: "POST",
    body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: jwt }),
  });
  const { access_token } = (await res.json()) as { access_token: string };
  return {
    url: `https://storage.googleapis.com/storage/v1/b/${name}`,
    auth: { authorization: `Bearer ${access_token}` },
  };
}

describe("Cloud Storage emulator fidelity", () => {
  it("GET ?fields=cors,metageneration → metageneration as a string and the cors array", async () => {
    const b = await bucketAndToken();
    const res = await send(`${b.url}?fields=cors,metageneration`, { headers: b.auth });
    expect(await res.json()).toEqual({
      metageneration: "7",
      cors: [
        {
          origin: ["https://app.example.com"],
          method: ["GET"],
          responseHeader: ["Content-Type"],
          maxAgeSeconds: 3600,
        },
      ],
    });
  });

  it("PATCH ?ifMetagenerationMatch=7 → 200, the bucket with metageneration 8; again with 7 → 412 conditionNotMet", async () => {
    const b = await bucketAndToken();
    const patch = () =>
      send(`${b.url}?ifMetagenerationMatch=7`, {
        method: "PATCH",
        headers: { ...b.auth, "content-type": "application/json" },
        body: JSON.stringify({ cors: [] }),
      });
    const first = await patch();
    expect(first.status).toBe(200);
    const bucket = (await first.json()) as Record<string, unknown>;
    expect(bucket).toMatchObject({ kind: "storage#bucket", metageneration: "8" });
    expect(bucket).not.toHaveProperty("cors");
    const second = await patch();
    expect(second.status).toBe(412);
    expect(await second.json()).toEqual({
      error: {
        code: 412,
        message: "At least one of the pre-conditions you specified did not hold.",
        errors: [
          {
            message: "At least one of the pre-conditions you specified did not hold.",
            domain: "global",
            reason: "conditionNotMet",
            locationType: "header",
            location: "If-Match",
          },
        ],
        status: "FAILED_PRECONDITION",
      },
    });
  });

  it("an unknown bucket → 404 notFound; no token → 401 authError", async () => {
    const b = await bucketAndToken();
    const missing = await send(b.url.replace(/assets-[^/]+$/, "assets-none"), { headers: b.auth });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      error: { code: 404, message: "The specified bucket does not exist.", errors: [{ reason: "notFound" }] },
    });
    const anonymous = await send(b.url);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 401, errors: [{ reason: "authError" }] } });
  });
});
