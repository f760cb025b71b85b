/**
 * Firebase Auth / Identity Platform: a project's authorized domains. Plan block:
 * `{ "type": "firebase", "serviceAccountKey": { "secret": "GOOGLE_SERVICE_ACCOUNT_KEY" } }` (the
 * key file's JSON); line params: `{ "project": "<project id>", "domain": "pr-1.preview.example.com" }`.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import {
  defineAdapter,
  type Inspection,
  type OpSpec,
  type Params,
  type ProviderAdapter,
} from "../../engine/op-spec";
import {
  type FirebaseConfig,
  firebaseConfigIdentity,
  firebaseConfigSchema,
  firebaseLineParamsSchema,
} from "./config";
import { withGoogleToken } from "./google-auth";
import { readAuthorizedDomains, writeAuthorizedDomains } from "./identity-toolkit";

const seenSchema = z.object({ project: z.string(), domains: z.array(z.string()) });
const parse = (params: Params) => firebaseLineParamsSchema.parse(params);

function seenDomains(seen: Inspection, project: string): string[] {
  const state = seenSchema.safeParse(seen.state);
  if (!state.success || state.data.project !== project) {
    throw new SponsonError(
      "INTERNAL",
      `firebase.authorizedDomain: a write needs this op's inspection of ${project}`,
    );
  }
  return state.data.domains;
}

const authorizedDomain: OpSpec<FirebaseConfig> = {
  name: "firebase.authorizedDomain",
  providerType: "firebase",
  params: firebaseLineParamsSchema,
  key: (params) => parse(params).domain,
  itemParam: "domain",
  list: (ctx, params) => readAuthorizedDomains(ctx, parse(params).project),
  lockOn: (params) => firebaseConfigIdentity(parse(params).project),

  async inspect(ctx, params) {
    const { project, domain } = parse(params);
    const domains = await readAuthorizedDomains(ctx, project);
    return { present: domains.includes(domain), state: { project, domains } };
  },

  async create(ctx, params, seen) {
    const { project, domain } = parse(params);
    const domains = seenDomains(seen, project);
    if (domains.includes(domain)) return;
    await writeAuthorizedDomains(ctx, project, [...domains, domain]);
  },

  async remove(ctx, params, seen) {
    const { project, domain } = parse(params);
    const domains = seenDomains(seen, project);
    if (!domains.includes(domain)) return;
    await writeAuthorizedDomains(
      ctx,
      project,
      domains.filter((d) => d !== domain),
    );
  },
};

const typedAdapter: ProviderAdapter<FirebaseConfig> = {
  type: "firebase",
  config: firebaseConfigSchema,
  // The jwt-bearer token exchange happens here, before any lease is taken (docs/design.md, "Lease protocol").
  prepare: (ctx) => withGoogleToken(ctx, "firebase", ctx.config.serviceAccountKey, async () => {}),
  ops: [authorizedDomain],
};

export const firebaseAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { firebaseConfigIdentity, firebaseConfigSchema, firebaseLineParamsSchema } from "./config";
