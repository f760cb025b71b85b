/**
 * Supabase (Management API): a project's auth redirect allow-list. Plan block:
 * `{ "type": "supabase", "accessToken": { "secret": "SUPABASE_ACCESS_TOKEN" } }`; line params:
 * `{ "project": "<project ref>", "url": "https://…" }`.
 */
import { z } from "zod";
import { SUPABASE_BUDGET } from "../budgets";
import { listMemberOp } from "../list-member/list-member-op";
import { defineAdapter, type OpSpec, type Params, type ProviderAdapter } from "../op-spec";
import { allowListEntries, allowListWith, allowListWithout } from "./allow-list";
import {
  type SupabaseConfig,
  supabaseAuthIdentity,
  supabaseConfigSchema,
  supabaseLineParamsSchema,
} from "./config";
import { readAllowList, writeAllowList } from "./management-api";

const parse = (params: Params) => supabaseLineParamsSchema.parse(params);

/** The allow-list is one comma-separated string: entries are cut or appended whole (./allow-list.ts). */
const redirectUrl: OpSpec<SupabaseConfig> = listMemberOp<SupabaseConfig, string | null>({
  name: "supabase.redirectUrl",
  providerType: "supabase",
  params: supabaseLineParamsSchema,
  itemParam: "url",
  objectParam: "project",
  lockOn: (params) => supabaseAuthIdentity(parse(params).project),
  read: (ctx, project) => readAllowList(ctx, project),
  objectSchema: z.string().nullable(),
  entries: allowListEntries,
  withEntry: (list, url, present) => (present ? allowListWith(list, url) : allowListWithout(list, url)),
  write: (ctx, project, _before, after) => writeAllowList(ctx, project, after ?? ""),
});

const typedAdapter: ProviderAdapter<SupabaseConfig> = {
  type: "supabase",
  config: supabaseConfigSchema,
  budget: SUPABASE_BUDGET,
  ops: [redirectUrl],
};

export const supabaseAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { supabaseAuthIdentity, supabaseConfigSchema, supabaseLineParamsSchema } from "./config";
