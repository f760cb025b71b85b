/**
 * Plans (DESIGN §3). A plan comes from a pull request and is untrusted: credentials may only be
 * references to Worker secrets, never values.
 */
import { z } from "zod";

export const secretRefSchema = z.strictObject({
  secret: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,63}$/, "a secret reference names a Worker secret, e.g. AUTH0_CLIENT_SECRET"),
});
export type SecretRef = z.infer<typeof secretRefSchema>;

const configValueSchema = z.union([z.string().max(2_000), z.number(), z.boolean(), secretRefSchema]);

/** Field names that hold credentials: these must be secret references, never inline values. */
export const CREDENTIAL_FIELD = /(secret|password|token|privatekey|apikey|credential)/i;

export const providerConfigSchema = z
  .object({ type: z.string().regex(/^[a-z][a-z0-9]{0,31}$/) })
  .catchall(configValueSchema)
  .superRefine((block, ctx) => {
    for (const [field, value] of Object.entries(block)) {
      if (CREDENTIAL_FIELD.test(field) && (typeof value !== "object" || value === null)) {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: `credentials are given as a secret reference, e.g. { "secret": "AUTH0_CLIENT_SECRET" }, never inline`,
        });
      }
    }
  });
export type ProviderConfig = z.infer<typeof providerConfigSchema>;

const nameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);

export const lineSchema = z.strictObject({
  id: nameSchema,
  op: z.string().regex(/^[a-z0-9]+\.[A-Za-z0-9]+$/),
  provider: nameSchema,
  params: z.record(z.string().max(64), z.string().max(2_000)),
});
export type Line = z.infer<typeof lineSchema>;

export const MAX_PLAN_LINES = 500;

export const planSchema = z
  .strictObject({
    version: z.literal(1),
    providers: z.record(nameSchema, providerConfigSchema),
    lines: z.array(lineSchema).max(MAX_PLAN_LINES),
  })
  .superRefine((plan, ctx) => {
    const seen = new Set<string>();
    plan.lines.forEach((line, i) => {
      if (seen.has(line.id))
        ctx.addIssue({ code: "custom", path: ["lines", i, "id"], message: `duplicate line id "${line.id}"` });
      seen.add(line.id);
      if (!(line.provider in plan.providers)) {
        ctx.addIssue({
          code: "custom",
          path: ["lines", i, "provider"],
          message: `unknown provider "${line.provider}"`,
        });
      }
    });
  });
export type Plan = z.infer<typeof planSchema>;
