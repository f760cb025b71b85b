/**
 * Supabase (Management API): a project's auth redirect allow-list. Plan block:
 * `{ "type": "supabase", "accessToken": { "secret": "SUPABASE_ACCESS_TOKEN" } }`; line params:
 * `{ "project": "<project ref>", "url": "https://…" }`.
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
import { allowListEntries, allowListHas, allowListWith, allowListWithout } from "./allow-list";
import {
  type SupabaseConfig,
  supabaseAuthIdentity,
  supabaseConfigSchema,
  supabaseLineParamsSchema,
} from "./config";
import { readAllowList, writeAllowList } from "./management-api";

const seenSchema = z.object({ project: z.string(), list: z.string().nullable() });
const parse = (params: Params) => supabaseLineParamsSchema.parse(params);

function seenList(seen: Inspection, project: string): string | null {
  const state = seenSchema.safeParse(seen.state);
  if (!state.success || state.data.project !== project) {
    throw new SponsonError(
      "INTERNAL",
      `supabase.redirectUrl: a write needs this op's inspection of ${project}`,
    );
  }
  return state.data.list;
}

const redirectUrl: OpSpec<SupabaseConfig> = {
  name: "supabase.redirectUrl",
  providerType: "supabase",
  params: supabaseLineParamsSchema,
  key: (params) => parse(params).url,
  itemParam: "url",
  list: async (ctx, params) => allowListEntries(await readAllowList(ctx, parse(params).project)),
  lockOn: (params) => supabaseAuthIdentity(parse(params).project),

  async inspect(ctx, params) {
    const { project, url } = parse(params);
    const list = await readAllowList(ctx, project);
    return { present: allowListHas(list, url), state: { project, list } };
  },

  async create(ctx, params, seen) {
    const { project, url } = parse(params);
    const list = seenList(seen, project);
    if (allowListHas(list, url)) return;
    await writeAllowList(ctx, project, allowListWith(list, url));
  },

  async remove(ctx, params, seen) {
    const { project, url } = parse(params);
    const list = seenList(seen, project);
    if (!allowListHas(list, url)) return;
    await writeAllowList(ctx, project, allowListWithout(list, url));
  },
};

const typedAdapter: ProviderAdapter<SupabaseConfig> = {
  type: "supabase",
  config: supabaseConfigSchema,
  ops: [redirectUrl],
};

export const supabaseAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { supabaseAuthIdentity, supabaseConfigSchema, supabaseLineParamsSchema } from "./config";
