/**
 * The emulated Cognito user pools API answers like the service (Cognito user pools API reference,
 * AWS JSON 1.1 protocol): X-Amz-Target actions, SigV4 for service cognito-idp, `__type` errors
 * with x-amzn-ErrorType, 400 TooManyRequestsException, and Update's reset of omitted attributes.
 */

import { env } from "cloudflare:workers";
import { AwsV4Signer } from "aws4fetch";
import { describe, expect, it } from "vitest";
import { providerFetch } from "../../../dev/emulators/transport";
import { userPoolWithClient } from "../../adapters/cognito/user-pool";
import { configureHost } from "../../helpers/emulators";
import { COGNITO_REGION, cognitoHost } from "../../helpers/emulators-cognito";

const send = providerFetch(env);

async function signedCall(
  p: { accessKeyId: string; secret: string },
  action: string,
  input: unknown,
  service = "cognito-idp",
) {
  const signer = new AwsV4Signer({
    method: "POST",
    url: `https://${cognitoHost()}/`,
    headers: {
      "content-type": "application/x-amz-json-1.1",
      "x-amz-target": `AWSCognitoIdentityProviderService.${action}`,
    },
    body: JSON.stringify(input),
    accessKeyId: p.accessKeyId,
    secretAccessKey: p.secret,
    service,
    region: COGNITO_REGION,
  });
  const s = await signer.sign();
  return send(s.url, { method: "POST", headers: s.headers, body: s.body });
}

describe("Cognito emulator fidelity", () => {
  it("DescribeUserPoolClient → {UserPoolClient} as x-amz-json-1.1 with a request id", async () => {
    const p = await userPoolWithClient({ CallbackURLs: ["https://a.example.com/cb"] });
    const res = await signedCall(p, "DescribeUserPoolClient", { UserPoolId: p.pool, ClientId: p.client });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-amz-json-1.1");
    expect(res.headers.get("x-amzn-requestid")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toMatchObject({
      UserPoolClient: { UserPoolId: p.pool, ClientId: p.client, CallbackURLs: ["https://a.example.com/cb"] },
    });
  });

  it("a signature with the wrong key is InvalidSignatureException; an unknown key UnrecognizedClientException", async () => {
    const p = await userPoolWithClient({});
    const wrong = await signedCall({ ...p, secret: "nope" }, "DescribeUserPoolClient", {
      UserPoolId: p.pool,
      ClientId: p.client,
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ __type: "InvalidSignatureException" });
    expect(wrong.headers.get("x-amzn-errortype")).toMatch(/^InvalidSignatureException:/);
    const unknown = await signedCall(
      { accessKeyId: "AKIAUNKNOWN000000000", secret: "x" },
      "DescribeUserPoolClient",
      {},
    );
    expect(await unknown.json()).toMatchObject({ __type: "UnrecognizedClientException" });
  });

  it("a signature scoped to another service is refused", async () => {
    const p = await userPoolWithClient({});
    const res = await signedCall(
      p,
      "DescribeUserPoolClient",
      { UserPoolId: p.pool, ClientId: p.client },
      "s3",
    );
    expect(await res.json()).toMatchObject({ __type: "IncompleteSignatureException" });
  });

  it("UpdateUserPoolClient resets every attribute it is not sent", async () => {
    const p = await userPoolWithClient({
      CallbackURLs: ["https://a.example.com/cb"],
      LogoutURLs: ["https://a.example.com/"],
    });
    const res = await signedCall(p, "UpdateUserPoolClient", {
      UserPoolId: p.pool,
      ClientId: p.client,
      CallbackURLs: ["https://a.example.com/cb"],
    });
    const { UserPoolClient: after } = (await res.json()) as { UserPoolClient: Record<string, unknown> };
    expect(after.LogoutURLs).toBeUndefined();
    expect(after).toMatchObject({ RefreshTokenValidity: 30, AllowedOAuthFlowsUserPoolClient: false });
  });

  it("DefaultRedirectURI must be one of the CallbackURLs; http is refused except for localhost", async () => {
    const p = await userPoolWithClient({});
    const base = { UserPoolId: p.pool, ClientId: p.client };
    const dangling = await signedCall(p, "UpdateUserPoolClient", {
      ...base,
      CallbackURLs: ["https://a.example.com/cb"],
      DefaultRedirectURI: "https://b.example.com/cb",
    });
    expect(await dangling.json()).toMatchObject({ __type: "InvalidParameterException" });
    const http = await signedCall(p, "UpdateUserPoolClient", {
      ...base,
      CallbackURLs: ["http://a.example.com/cb"],
    });
    expect(await http.json()).toMatchObject({ __type: "InvalidParameterException" });
    const local = await signedCall(p, "UpdateUserPoolClient", {
      ...base,
      CallbackURLs: ["http://localhost:3000/cb"],
    });
    expect(local.status).toBe(200);
  });

  it("caps: at most 100 callback and 100 logout URLs of 1 to 1024 characters; over them 400 InvalidParameterException in AWS's validation wording", async () => {
    const p = await userPoolWithClient({ CallbackURLs: ["https://keep.example.com/cb"] });
    const base = { UserPoolId: p.pool, ClientId: p.client };
    const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://pr-${i}.example.com/cb`);
    const refusal = async (input: Record<string, unknown>) => {
      const res = await signedCall(p, "UpdateUserPoolClient", { ...base, ...input });
      expect(res.status).toBe(400);
      expect(res.headers.get("x-amzn-errortype")).toMatch(/^InvalidParameterException:/);
      return ((await res.json()) as { __type: string; message: string }).message;
    };
    expect(await refusal({ CallbackURLs: urls(101) })).toMatch(
      /^1 validation error detected: Value '\[https:\/\/pr-0\.example\.com\/cb, .*\]' at 'callbackURLs' failed to satisfy constraint: Member must have length less than or equal to 100$/,
    );
    expect(await refusal({ LogoutURLs: urls(101) })).toMatch(
      /at 'logoutURLs' failed to satisfy constraint: Member must have length less than or equal to 100$/,
    );
    const long = `https://a.example.com/${"x".repeat(1003)}`;
    expect(await refusal({ CallbackURLs: [long] })).toBe(
      `1 validation error detected: Value '${long}' at 'callbackURLs.1.member' failed to satisfy constraint: Member must have length less than or equal to 1024`,
    );
    expect(await refusal({ LogoutURLs: ["https://a.example.com/", ""] })).toBe(
      "1 validation error detected: Value '' at 'logoutURLs.2.member' failed to satisfy constraint: Member must have length greater than or equal to 1",
    );
    expect((await p.stored())?.CallbackURLs).toEqual(["https://keep.example.com/cb"]);
    const full = await signedCall(p, "UpdateUserPoolClient", {
      ...base,
      CallbackURLs: urls(100),
      LogoutURLs: urls(100),
    });
    expect(full.status).toBe(200);
  });

  it("throttling is HTTP 400 TooManyRequestsException", async () => {
    const p = await userPoolWithClient({});
    await configureHost(cognitoHost(), { failures: [{ status: 429, count: 1 }] });
    const res = await signedCall(p, "DescribeUserPoolClient", { UserPoolId: p.pool, ClientId: p.client });
    await configureHost(cognitoHost(), {});
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ __type: "TooManyRequestsException", message: "Too many requests" });
  });
});
