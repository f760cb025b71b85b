/**
 * The RFC 9457 problem every refused request answers (docs/design.md, "Errors"), as a schema: the OpenAPI
 * document describes error responses with it and the CLI's client parses them with it.
 * Extension members (a lock's holder, validation issues, …) are kept, hence loose.
 */
import { z } from "zod";
import { ERROR_CODES } from "../errors";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export const problemSchema = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  code: z.enum(ERROR_CODES),
  detail: z.string(),
  retriable: z.boolean(),
  instance: z.string().optional(),
});
export type ProblemBody = z.infer<typeof problemSchema>;
