/** The Supabase provider block and line params (Supabase Management API reference). */
import { z } from "zod";

/** The resolved block: `accessToken` is the value its `{ "secret": … }` reference resolved to. */
export const supabaseConfigSchema = z.strictObject({
  type: z.literal("supabase"),
  /** A personal access token (`sbp_…`) or an OAuth app token with auth-config write access. */
  accessToken: z.string().min(1),
});
export type SupabaseConfig = z.infer<typeof supabaseConfigSchema>;

export const supabaseLineParamsSchema = z.strictObject({
  /** Project ref (the subdomain of `<ref>.supabase.co`); it ends up in a URL path. */
  project: z.string().regex(/^[a-z0-9]{1,64}$/, "a Supabase project ref"),
  /**
   * One allow-list entry; GoTrue globs such as `https://*.example.com/**` are allowed. A comma
   * would split it into two entries of the comma-separated list, so it is refused.
   */
  url: z
    .string()
    .max(2_000)
    .regex(/^[a-z][a-z0-9+.-]*:\/\/[^\s,]+$/i, "a URL without spaces or commas"),
});
export type SupabaseLineParams = z.infer<typeof supabaseLineParamsSchema>;

/** The lock identity of a project's auth config (docs/design.md, "Vocabulary"): `supabase:<ref>:auth`. */
export function supabaseAuthIdentity(project: string): string {
  return `supabase:${project}:auth`;
}
