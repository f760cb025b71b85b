/**
 * The long-running Operation an API key update returns (`{name: "operations/…", done, response |
 * error}`), polled with `GET /v2/operations/{id}` until done — for at most the provider request
 * timeout, and never past the lease deadline. What each end means for the write (docs/design.md,
 * "Fencing around a write"):
 * - done with `response`: written; only now is the write told to the engine as accepted;
 * - done with `error`: the update failed and wrote nothing — a definite failure with the
 *   provider's message, unless an earlier attempt of the PATCH went unanswered (that one may land);
 * - still not done at the bound, or a poll that fails: it may still land, exactly as a write whose
 *   answer was lost — the engine is told of an unanswered attempt and the outcome is unknown.
 */
import { z } from "zod";
import { isSponsonError, SponsonError } from "../../../shared/errors";
import { PROVIDER_REQUEST_TIMEOUT_MS } from "../../../shared/lease-defaults";
import { type HttpContext, type ProviderHttpSpec, providerJson } from "../http";

export const operationSchema = z
  .object({
    name: z.string().regex(/^operations\/[^/]+$/),
    done: z.boolean().optional(),
    error: z.object({ code: z.number().optional(), message: z.string().optional() }).loose().optional(),
    response: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();
export type Operation = z.infer<typeof operationSchema>;

/** The first wait between polls; each next one doubles, up to the last. */
export const OPERATION_POLL_FIRST_MS = 250;
export const OPERATION_POLL_MAX_MS = 2_000;
/** All the waiting one update's operation gets: the provider request timeout, what the lock-delay covers. */
export const OPERATION_WAIT_MS = PROVIDER_REQUEST_TIMEOUT_MS;

export interface OperationWatch {
  ctx: HttpContext;
  spec: ProviderHttpSpec;
  token: string;
  /** Whether an attempt of the PATCH went unanswered before the one that was answered. */
  unansweredBefore: boolean;
}

/** Waits for `first` to be done; resolves when it is done with a response, throws otherwise. */
export async function settleOperation(watch: OperationWatch, first: Operation): Promise<void> {
  const { ctx } = watch;
  const start = ctx.clock.now();
  let op = first;
  let waited = 0;
  for (let poll = 0; op.done !== true; poll += 1) {
    const wait = Math.min(OPERATION_POLL_MAX_MS, OPERATION_POLL_FIRST_MS * 2 ** poll);
    const elapsed = Math.max(waited, ctx.clock.now() - start);
    const deadline = ctx.deadline?.() ?? Number.POSITIVE_INFINITY;
    if (elapsed + wait > OPERATION_WAIT_MS || ctx.clock.now() + wait >= deadline) {
      throw mayStillLand(watch, `${op.name} still not done after ${elapsed} ms`);
    }
    await ctx.clock.sleep(wait);
    waited += wait;
    op = await pollOnce(watch, op.name);
  }
  if (op.error === undefined) return;
  const message = op.error.message ?? "the operation failed";
  if (watch.unansweredBefore) throw mayStillLand(watch, `${op.name} failed (${message})`);
  // Done with an error: the update wrote nothing, and the provider said why (its status as the
  // HTTP status the code maps to, so a refusal reads as one: a 4xx).
  const [name, status] = RPC_CODES[op.error.code ?? 2] ?? ["UNKNOWN", 500];
  throw failure(watch, `${op.name} failed: ${message}`, { status, providerCode: name });
}

/** A PROVIDER_ERROR the operation says (the PATCH itself was answered 200). */
function failure(
  watch: OperationWatch,
  message: string,
  facts: { status: number | null } & Record<string, unknown>,
  cause?: unknown,
) {
  const { provider } = watch.spec;
  const redacted = watch.ctx.secrets.redact(message).slice(0, 500);
  const retriable =
    facts.outcome === "unknown" || facts.status === null || facts.status === 429 || facts.status >= 500;
  return new SponsonError(
    "PROVIDER_ERROR",
    `${provider}: ${redacted}`,
    { provider, attempts: 1, ...facts },
    { retriable, ...(cause === undefined ? {} : { cause }) },
  );
}

async function pollOnce(watch: OperationWatch, name: string): Promise<Operation> {
  try {
    return await providerJson(
      watch.ctx,
      watch.spec,
      {
        method: "GET",
        url: `https://apikeys.googleapis.com/v2/${name}`,
        headers: { authorization: `Bearer ${watch.token}` },
      },
      operationSchema,
    );
  } catch (err) {
    // The update was accepted: a poll that fails says nothing of whether it lands.
    throw mayStillLand(
      watch,
      `${name} could not be polled (${err instanceof Error ? err.message : err})`,
      err,
    );
  }
}

/**
 * An accepted update whose end is not known: told to the engine as an attempt that may land
 * unanswered, and thrown as an unknown outcome — a lost lease where the lease was what stopped it.
 */
function mayStillLand(watch: OperationWatch, why: string, cause?: unknown): SponsonError {
  watch.ctx.onUnansweredWrite?.();
  const message = `${why}: the update was accepted and may still land (outcome unknown)`;
  if (isSponsonError(cause) && cause.code === "LOCK_LOST") {
    return new SponsonError("LOCK_LOST", message, { outcome: "unknown" }, { cause });
  }
  return failure(watch, message, { status: null, outcome: "unknown" }, cause);
}

/** `google.rpc.Code` by number: its name (the REST envelope's `status`) and its HTTP status. */
const RPC_CODES: ReadonlyArray<readonly [string, number]> = [
  ["OK", 200],
  ["CANCELLED", 499],
  ["UNKNOWN", 500],
  ["INVALID_ARGUMENT", 400],
  ["DEADLINE_EXCEEDED", 504],
  ["NOT_FOUND", 404],
  ["ALREADY_EXISTS", 409],
  ["PERMISSION_DENIED", 403],
  ["RESOURCE_EXHAUSTED", 429],
  ["FAILED_PRECONDITION", 400],
  ["ABORTED", 409],
  ["OUT_OF_RANGE", 400],
  ["UNIMPLEMENTED", 501],
  ["INTERNAL", 500],
  ["UNAVAILABLE", 503],
  ["DATA_LOSS", 500],
  ["UNAUTHENTICATED", 401],
];
