/**
 * Clerk (Backend API): the instance's `allowed_origins` (kind `clerk.instance`: one array written
 * whole by `PATCH /v1/instance`, no precondition, the instance's lease serializing) and its
 * native/mobile SSO redirect URLs (objects of their own: ./redirect-url-op.ts). Connection: `{
 * "type": "clerk", "config": { "instance": "ins_…" }, "secrets": { "secretKey": "CLERK_SECRET_KEY"
 * } }`; line params: `{ "origin": "https://…" }` and `{ "url": "https://…" | "my-app://…" }`.
 */

import { z } from "zod";
import { CLERK_BUDGET } from "../budgets";
import { listMemberOp, listWithEntry } from "../list-member/list-member-op";
import { defineAdapter, type ProviderAdapter, withOriginItems } from "../op-spec";
import { type ClerkInstance, readInstance, writeAllowedOrigins } from "./backend-api";
import {
  type ClerkConfig,
  clerkAllowedOriginParamsSchema,
  clerkConfigSchema,
  clerkInstanceIdentity,
} from "./config";
import { clerkRedirectUrlOp } from "./redirect-url-op";

const instanceStateSchema = z
  .object({ id: z.string().min(1), allowed_origins: z.array(z.string()).nullish() })
  .loose() as z.ZodType<ClerkInstance>;

const allowedOrigin = listMemberOp<ClerkConfig, ClerkInstance>({
  name: "clerk.allowedOrigin",
  providerType: "clerk",
  params: clerkAllowedOriginParamsSchema,
  itemParam: "origin",
  objectParam: "origin",
  // The key names the instance: one object per connection, whatever the line says.
  objectOf: () => "instance",
  kind: "clerk.instance",
  lockOn: (_params, connection) => clerkInstanceIdentity(connection),
  read: (ctx) => readInstance(ctx),
  objectSchema: instanceStateSchema,
  entries: (instance) => instance.allowed_origins ?? [],
  withEntry: (instance, origin, present) => ({
    ...instance,
    allowed_origins: listWithEntry(instance.allowed_origins ?? [], origin, present),
  }),
  // Only the array goes out: PATCH /v1/instance refuses fields it does not take.
  write: (ctx, _object, _before, after) => writeAllowedOrigins(ctx, after.allowed_origins ?? []),
});

const typedAdapter: ProviderAdapter<ClerkConfig> = {
  type: "clerk",
  config: clerkConfigSchema,
  budget: CLERK_BUDGET,
  ops: [withOriginItems(allowedOrigin), clerkRedirectUrlOp],
};

export const clerkAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { clerkInstanceIdentity } from "./config";
