/**
 * `@aws-sdk/client-cognito-identity-provider` against the Cognito emulator. The SDK builds and
 * SigV4-signs each JSON 1.1 request for the real regional host; a request handler sends it to the
 * emulator with only the origin changed. The adapter and the SDK each read what the other wrote.
 */
import {
  CognitoIdentityProviderClient,
  CognitoIdentityProviderServiceException,
  DescribeUserPoolClientCommand,
  UpdateUserPoolClientCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { describe, expect, it } from "vitest";
import { cognitoKeys, userPoolClient } from "../../dev/emulators/cognito";
import { cognitoAdapter } from "../../workers/adapters/cognito";
import { adapterContext, opOf } from "./adapter-context";
import { emulatorFetch, seed, unique } from "./emulators";

const REGION = "eu-central-1";
const HOST = `cognito-idp.${REGION}.amazonaws.com`;
const KEY = {
  id: `AKIA${crypto.randomUUID().replaceAll("-", "").slice(0, 16).toUpperCase()}`,
  secret: "test-only-sdk-cognito",
};

interface SmithyRequest {
  method: string;
  protocol: string;
  hostname: string;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

const emulatorHandler = {
  async handle(request: SmithyRequest) {
    const res = await emulatorFetch(`${request.protocol}//${request.hostname}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body as BodyInit | undefined,
    });
    return {
      response: {
        statusCode: res.status,
        reason: res.statusText,
        headers: Object.fromEntries(res.headers),
        body: new Uint8Array(await res.arrayBuffer()),
      },
    };
  },
};

const sdk = (secret = KEY.secret) =>
  new CognitoIdentityProviderClient({
    region: REGION,
    credentials: { accessKeyId: KEY.id, secretAccessKey: secret },
    requestHandler: emulatorHandler as unknown as CognitoIdentityProviderClient["config"]["requestHandler"],
    maxAttempts: 1,
  });

async function pool() {
  const id = unique("p").replace("-", "");
  const poolId = `${REGION}_${id}`;
  const clientId = `c${crypto.randomUUID().replaceAll("-", "").slice(0, 25)}`;
  await seed(HOST, {
    [cognitoKeys.accessKey(KEY.id)]: {
      secretAccessKey: KEY.secret,
      access: "full",
      arn: "arn:aws:iam::123456789012:user/sdk",
    },
    [cognitoKeys.pool(poolId)]: true,
    [cognitoKeys.client(poolId, clientId)]: userPoolClient(poolId, clientId, {
      CallbackURLs: ["https://app.example.com/cb"],
      LogoutURLs: ["https://app.example.com/"],
      DefaultRedirectURI: "https://app.example.com/cb",
    }),
  });
  return { UserPoolId: poolId, ClientId: clientId };
}

const ctx = () =>
  adapterContext(cognitoAdapter, {
    type: "cognito",
    region: REGION,
    accessKeyId: KEY.id,
    secretAccessKey: KEY.secret,
  });

describe("@aws-sdk/client-cognito-identity-provider", () => {
  it("DescribeUserPoolClient reads the client the adapter wrote, every attribute intact", async () => {
    const ids = await pool();
    const before = (await sdk().send(new DescribeUserPoolClientCommand(ids))).UserPoolClient;
    const op = opOf(cognitoAdapter, "cognito.callbackUrl");
    const params = {
      userPool: ids.UserPoolId,
      client: ids.ClientId,
      url: "https://pr-1.preview.example.com/cb",
    };
    const c = ctx();
    await op.create(c, params, await op.inspect(c, params));
    const after = (await sdk().send(new DescribeUserPoolClientCommand(ids))).UserPoolClient;
    expect(after?.CallbackURLs).toEqual([
      "https://app.example.com/cb",
      "https://pr-1.preview.example.com/cb",
    ]);
    expect({ ...after, CallbackURLs: [], LastModifiedDate: 0 }).toEqual({
      ...before,
      CallbackURLs: [],
      LastModifiedDate: 0,
    });
  });

  it("the adapter reads what UpdateUserPoolClient wrote", async () => {
    const ids = await pool();
    const { UserPoolClient: current } = await sdk().send(new DescribeUserPoolClientCommand(ids));
    const { ClientSecret: _s, CreationDate: _c, LastModifiedDate: _m, ...writable } = current ?? {};
    await sdk().send(
      new UpdateUserPoolClientCommand({
        ...(writable as typeof ids),
        LogoutURLs: ["https://app.example.com/", "https://pr-2.preview.example.com/"],
      }),
    );
    const op = opOf(cognitoAdapter, "cognito.logoutUrl");
    const params = {
      userPool: ids.UserPoolId,
      client: ids.ClientId,
      url: "https://pr-2.preview.example.com/",
    };
    expect((await op.inspect(ctx(), params)).present).toBe(true);
  });

  it("errors come back as the SDK's modelled exceptions: ResourceNotFoundException, InvalidSignatureException", async () => {
    const ids = await pool();
    const missing = await sdk()
      .send(new DescribeUserPoolClientCommand({ ...ids, ClientId: "nope" }))
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CognitoIdentityProviderServiceException);
    expect(missing).toMatchObject({ name: "ResourceNotFoundException", $metadata: { httpStatusCode: 400 } });
    const badKey = await sdk("wrong")
      .send(new DescribeUserPoolClientCommand(ids))
      .catch((e: unknown) => e);
    expect(badKey).toMatchObject({ name: "InvalidSignatureException" });
  });
});
