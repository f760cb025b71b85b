import { COGNITO_REGION, cognitoClient, cognitoHost, seedCognito } from "../../helpers/emulators-cognito";
import { describeProviderContract } from "../../helpers/provider-contract";
import { cognitoOp, userPoolWithClient } from "./user-pool";

const CALLBACKS = ["https://app.example.com/oauth2/idpresponse", "http://localhost:3000/callback"];
const LOGOUTS = ["https://app.example.com/signed-out"];
const ITEM = "https://pr-1.preview.example.com/callback";

for (const [name, field, unrelated] of [
  ["cognito.callbackUrl", "CallbackURLs", CALLBACKS],
  ["cognito.logoutUrl", "LogoutURLs", LOGOUTS],
] as const) {
  describeProviderContract({
    provider: "cognito",
    op: cognitoOp(name),
    item: ITEM,
    unrelated: [...unrelated],
    apiHost: () => cognitoHost(COGNITO_REGION),
    forbiddenOn: "write",
    throttleStatus: 400,
    errors: {
      unauthenticated: {
        status: 400,
        message: "The security token included in the request is invalid.",
        providerCode: "UnrecognizedClientException",
      },
      forbidden: {
        status: 400,
        message:
          /^User: arn:aws:iam::123456789012:user\/previews is not authorized to perform: cognito-idp:UpdateUserPoolClient on resource: /,
        providerCode: "AccessDeniedException",
      },
      missing: {
        status: 400,
        message: /^User pool client [0-9a-f]{26} does not exist\.$/,
        providerCode: "ResourceNotFoundException",
      },
      serverError: { status: 500, message: "Internal server error", providerCode: "InternalErrorException" },
    },
    rateLimitWaitMs: () => undefined,
    async setup(failure) {
      const p = await userPoolWithClient(
        { CallbackURLs: CALLBACKS, LogoutURLs: LOGOUTS, DefaultRedirectURI: CALLBACKS[0] },
        failure,
      );
      return {
        ...p,
        params: p.params(ITEM),
        secrets: [p.secret],
        entries: async () => ((await p.stored())?.[field] as string[] | undefined) ?? [],
        // LastModifiedDate moves with every Update; everything else must come back exactly.
        snapshot: async () => ({ ...(await p.stored()), LastModifiedDate: 0 }),
        setEntries: async (entries) => {
          const c = await cognitoClient(p.pool, p.client);
          if (!c) throw new Error("client missing");
          await seedCognito({ clients: [{ ...c, [field]: entries }] });
        },
      };
    },
  });
}
