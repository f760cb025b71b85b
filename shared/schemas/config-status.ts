/**
 * `GET /v1/config/status` (admin): which configuration vars are set and valid, which connections
 * lack a Worker secret, and every problem with its path. Names only, never a value.
 */
import { z } from "zod";

export const configProblemSchema = z.object({ path: z.string(), message: z.string() });

export const configStatusSchema = z.object({
  valid: z.boolean(),
  vars: z.array(z.object({ name: z.string(), set: z.boolean(), valid: z.boolean() })),
  connections: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      environments: z.array(z.string()),
      missingSecrets: z.array(z.string()),
      valid: z.boolean(),
    }),
  ),
  problems: z.array(configProblemSchema),
});
export type ConfigStatus = z.infer<typeof configStatusSchema>;
