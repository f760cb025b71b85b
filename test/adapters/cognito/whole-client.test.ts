/**
 * UpdateUserPoolClient resets every attribute it is not sent. The adapter's write is the client as
 * described under the lease with only the lists changed, so the client after a run differs from the
 * client before in the list and nothing else — and DefaultRedirectURI never names a URL that is no
 * longer a callback.
 */

import { AwsV4Signer } from "aws4fetch";
import { describe, expect, it } from "vitest";
import { COGNITO_REGION, cognitoClient, cognitoHost } from "../../helpers/emulators-cognito";
import { cognitoOp, userPoolWithClient } from "./user-pool";

const CALLBACKS = ["https://app.example.com/oauth2/idpresponse"];
const ITEM = "https://pr-1.preview.example.com/callback";
const callbackUrl = cognitoOp("cognito.callbackUrl");
const logoutUrl = cognitoOp("cognito.logoutUrl");

/** Every attribute but the modification time, which any Update moves. */
const comparable = (c: Record<string, unknown> | undefined) => ({ ...c, LastModifiedDate: 0 });

describe("cognito writes change nothing but the lists", () => {
  it("adding a callback URL: the whole client before and after differs in CallbackURLs only", async () => {
    const p = await userPoolWithClient({
      CallbackURLs: CALLBACKS,
      LogoutURLs: [],
      DefaultRedirectURI: CALLBACKS[0],
    });
    const before = await p.stored();
    await callbackUrl.create(p.ctx, p.params(ITEM), await callbackUrl.inspect(p.ctx, p.params(ITEM)));
    expect(p.calls).toEqual(["POST / DescribeUserPoolClient", "POST / UpdateUserPoolClient"]);
    const after = await p.stored();
    expect(comparable(after)).toEqual(comparable({ ...before, CallbackURLs: [...CALLBACKS, ITEM] }));
    // The attributes the reset rule would have taken back to defaults are the client's own.
    expect(after).toMatchObject({
      RefreshTokenValidity: 5,
      TokenValidityUnits: { AccessToken: "hours", IdToken: "hours", RefreshToken: "days" },
      ExplicitAuthFlows: ["ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_USER_SRP_AUTH"],
      AllowedOAuthFlowsUserPoolClient: true,
      PreventUserExistenceErrors: "ENABLED",
      AuthSessionValidity: 5,
    });
  });

  it("control: an Update sent only the list (what a partial client does) resets the rest to defaults", async () => {
    const p = await userPoolWithClient({ CallbackURLs: CALLBACKS });
    const signer = new AwsV4Signer({
      method: "POST",
      url: `https://${cognitoHost()}/`,
      headers: {
        "content-type": "application/x-amz-json-1.1",
        "x-amz-target": "AWSCognitoIdentityProviderService.UpdateUserPoolClient",
      },
      body: JSON.stringify({ UserPoolId: p.pool, ClientId: p.client, CallbackURLs: [...CALLBACKS, ITEM] }),
      accessKeyId: p.accessKeyId,
      secretAccessKey: p.secret,
      service: "cognito-idp",
      region: COGNITO_REGION,
    });
    const signed = await signer.sign();
    const res = await p.ctx.fetch(signed.url, { method: "POST", headers: signed.headers, body: signed.body });
    expect(res.status).toBe(200);
    const after = await cognitoClient(p.pool, p.client);
    expect(after?.CallbackURLs).toEqual([...CALLBACKS, ITEM]);
    expect(after).toMatchObject({ RefreshTokenValidity: 30, PreventUserExistenceErrors: "LEGACY" });
    expect(after?.AllowedOAuthFlows).toBeUndefined();
  });

  it("one run's callback and logout URLs go out in one Update that keeps everything else", async () => {
    const p = await userPoolWithClient({
      CallbackURLs: CALLBACKS,
      LogoutURLs: ["https://app.example.com/out"],
    });
    const before = await p.stored();
    const batch = callbackUrl.batch;
    if (!batch) throw new Error("cognito has a batch form");
    const cb = p.params(ITEM);
    const out = p.params("https://pr-1.preview.example.com/");
    const state = await batch.read(p.ctx, cb);
    await batch.write(p.ctx, cb, state, (s) =>
      (logoutUrl.batch ?? batch).edit(batch.edit(s, cb, "create"), out, "create"),
    );
    expect(p.calls.filter((c) => c.endsWith("UpdateUserPoolClient"))).toHaveLength(1);
    expect(comparable(await p.stored())).toEqual(
      comparable({
        ...before,
        CallbackURLs: [...CALLBACKS, ITEM],
        LogoutURLs: ["https://app.example.com/out", "https://pr-1.preview.example.com/"],
      }),
    );
  });

  it("removing the callback URL that is DefaultRedirectURI clears the default with it; nothing else moves", async () => {
    const p = await userPoolWithClient({ CallbackURLs: [...CALLBACKS, ITEM], DefaultRedirectURI: ITEM });
    const before = await p.stored();
    await callbackUrl.remove(p.ctx, p.params(ITEM), await callbackUrl.inspect(p.ctx, p.params(ITEM)));
    const after = await p.stored();
    expect(after?.DefaultRedirectURI).toBeUndefined();
    const { DefaultRedirectURI: _gone, ...rest } = before ?? {};
    expect(comparable(after)).toEqual(comparable({ ...rest, CallbackURLs: CALLBACKS }));
  });

  it("removing any other callback URL keeps DefaultRedirectURI as it was", async () => {
    const p = await userPoolWithClient({
      CallbackURLs: [...CALLBACKS, ITEM],
      DefaultRedirectURI: CALLBACKS[0],
    });
    await callbackUrl.remove(p.ctx, p.params(ITEM), await callbackUrl.inspect(p.ctx, p.params(ITEM)));
    expect(await p.stored()).toMatchObject({ CallbackURLs: CALLBACKS, DefaultRedirectURI: CALLBACKS[0] });
  });

  it("lockOn names the region's pool client, from the connection's settings", () => {
    expect(
      callbackUrl.lockOn(
        { userPool: "eu-west-1_Ab1", client: "abc123", url: ITEM },
        { type: "cognito", region: "eu-west-1" },
      ),
    ).toBe("cognito:eu-west-1:eu-west-1_Ab1:client:abc123");
  });
});
