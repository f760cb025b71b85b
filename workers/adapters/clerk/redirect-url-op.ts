/**
 * `clerk.redirectUrl`: a native/mobile SSO redirect URL, an object of its own on the instance
 * (`/v1/redirect_urls`), created and deleted one by one. Its parent is still the instance
 * (`lockOn`), as Kinde's URLs are their application's: two scopes (or two repositories) wanting
 * one URL need their ownership serialized and recorded, or one scope's destroy takes away a URL
 * another still wants (docs/design.md, "Ownership of shared entries"). The instance's one lease
 * also serves its `allowed_origins`: a policy's `parents` pin on the instance covers both, and a
 * URL write is one short call. Found by listing the instance's URLs 500 a page; removed by id
 * (every copy, should a retry ever have made two).
 */
import { z } from "zod";
import type { OpSpec, Params } from "../op-spec";
import {
  type ClerkContext,
  checkInstance,
  createRedirectUrl,
  deleteRedirectUrl,
  listRedirectUrls,
} from "./backend-api";
import { type ClerkConfig, clerkInstanceIdentity, clerkRedirectUrlParamsSchema } from "./config";

const parse = (params: Params) => clerkRedirectUrlParamsSchema.parse(params);
const seenSchema = z.object({ ids: z.array(z.string()) });

/**
 * The instance's URLs, once the key is known to be the instance the connection names: its lease
 * (`lockOn`) is that name's, and every write follows an inspection that came through here.
 */
async function urlsOf(ctx: ClerkContext) {
  await checkInstance(ctx);
  return listRedirectUrls(ctx);
}

async function idsOf(ctx: ClerkContext, url: string): Promise<string[]> {
  return (await urlsOf(ctx)).filter((r) => r.url === url).map((r) => r.id);
}

export const clerkRedirectUrlOp: OpSpec<ClerkConfig> = {
  name: "clerk.redirectUrl",
  providerType: "clerk",
  params: clerkRedirectUrlParamsSchema,
  key: (params) => parse(params).url,
  itemParam: "url",
  lockOn: (_params, connection) => clerkInstanceIdentity(connection),
  list: async (ctx) => (await urlsOf(ctx)).map((r) => r.url),
  async inspect(ctx, params) {
    const ids = await idsOf(ctx, parse(params).url);
    return { present: ids.length > 0, state: { ids } };
  },
  async create(ctx, params, seen) {
    if (seen.present) return;
    await createRedirectUrl(ctx, parse(params).url);
  },
  async remove(ctx, params, seen) {
    if (!seen.present) return;
    const { url } = parse(params);
    const known = seenSchema.safeParse(seen.state);
    for (const id of known.success ? known.data.ids : await idsOf(ctx, url)) await deleteRedirectUrl(ctx, id);
  },
};
