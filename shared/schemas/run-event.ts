/**
 * The NDJSON events of a streamed run (docs/api.md, "Streaming (NDJSON)": one JSON event per line as
 * it happens, then the result) as a schema, for the OpenAPI document and the CLI's client. The
 * compile-time checks below keep it and the engine's `RunEvent` type the same shape.
 */
import { z } from "zod";
import { errorInfoSchema } from "./receipt";
import { repositoryRefSchema } from "./repository";
import { driftSchema, lineResultSchema, type RunEvent, runResultSchema, waitingSchema } from "./run";

export const runEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("run"),
    run: z.object({
      id: z.string(),
      repository: repositoryRefSchema.optional(),
      environment: z.string(),
      scope: z.string(),
      action: z.string(),
    }),
  }),
  z.object({ type: z.literal("line"), line: lineResultSchema }),
  z.object({ type: z.literal("drift"), drift: driftSchema }),
  z.object({ type: z.literal("warning"), message: z.string() }),
  z.object({ type: z.literal("waiting"), waiting: waitingSchema }),
  z.object({ type: z.literal("result"), result: runResultSchema }),
  z.object({ type: z.literal("error"), error: errorInfoSchema }),
  z.object({ type: z.literal("keepalive") }),
]);
export type RunEventWire = z.infer<typeof runEventSchema>;

// Both directions assignable: the engine emits nothing the schema refuses, and vice versa.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: Same<RunEvent, RunEventWire> = true;
void sameShape;
