/**
 * A run answered as one JSON document, or (Accept: application/x-ndjson) as one event per line
 * while it happens. A run refused before it starts is still a problem response in both modes: the
 * stream only opens once the run's first event exists.
 */
import type { Context } from "hono";
import type { RunEvent, RunResult } from "../../shared/schemas/run";
import type { Emit } from "../engine/deps";
import { errorInfo } from "../engine/run";

export const NDJSON = "application/x-ndjson";

export function wantsStream(c: Context): boolean {
  return (c.req.header("accept") ?? "").includes(NDJSON);
}

export async function answerRun(c: Context, start: (emit: Emit) => Promise<RunResult>): Promise<Response> {
  if (!wantsStream(c)) return c.json(await start(() => {}), 200);

  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  // A client that went away must not stop the run: its writes are dropped, the run goes on.
  const send = (event: RunEvent) =>
    void writer.write(encoder.encode(`${JSON.stringify(event)}\n`)).catch(() => {});
  let opened!: () => void;
  const firstEvent = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const run = start((event) => {
    opened();
    send(event);
  });
  // Throws (→ problem response) if the run was refused before emitting anything.
  await Promise.race([firstEvent, run]);
  const finished = run
    .catch((err) => send({ type: "error", error: errorInfo(err) }))
    .finally(() => writer.close().catch(() => {}));
  c.executionCtx.waitUntil(finished);
  return new Response(readable, {
    status: 200,
    headers: { "content-type": NDJSON, "cache-control": "no-store" },
  });
}
