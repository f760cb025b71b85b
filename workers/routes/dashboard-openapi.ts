/** How the dashboard's routes describe their answers in the OpenAPI document: pages and redirects. */
import { z } from "@hono/zod-openapi";

export const html = { "text/html": { schema: z.string() } };

export const redirect = (description: string) => ({
  description,
  headers: { Location: { schema: { type: "string" as const } } },
});
