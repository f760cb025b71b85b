/**
 * `clerk.redirectUrl`: a native/mobile SSO redirect URL, an object of its own on the instance
 * (`/v1/redirect_urls`). Its lock identity is null (docs/design.md, "Vocabulary"): no parent lease,
 * nothing shared to lose, each URL its own group; the intent before the create and the ledger
 * entry after it still make every one a scope creates removed by its destroy. Found by listing
 * the instance's URLs 500 a page; removed by id (every copy, should a retry ever have made two).
 */
import { z } from "zod";
import type { OpSpec, Params } from "../op-spec";
import { type ClerkContext, createRedirectUrl, deleteRedirectUrl, listRedirectUrls } from "./backend-api";
import { type ClerkConfig, clerkRedirectUrlParamsSchema } from "./config";

const parse = (params: Params) => clerkRedirectUrlParamsSchema.parse(params);
const seenSchema = z.object({ ids: z.array(z.string()) });

async function idsOf(ctx: ClerkContext, url: string): Promise<string[]> {
  return (await listRedirectUrls(ctx)).filter((r) => r.url === url).map((r) => r.id);
}

export const clerkRedirectUrlOp: OpSpec<ClerkConfig> = {
  name: "clerk.redirectUrl",
  providerType: "clerk",
  params: clerkRedirectUrlParamsSchema,
  key: (params) => parse(params).url,
  itemParam: "url",
  lockOn: () => null,
  list: async (ctx) => (await listRedirectUrls(ctx)).map((r) => r.url),
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
