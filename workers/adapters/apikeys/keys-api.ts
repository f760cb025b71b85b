/**
 * API Keys API v2 calls on one key: `GET …/keys/{k}` and `PATCH …/keys/{k}?updateMask=restrictions`
 * with the key's `etag` in the body (AIP-154). The mask replaces the whole `restrictions` message,
 * `apiTargets` and every other restriction with it, so the body is the restrictions exactly as
 * read, only the referrers edited: fields this adapter does not know are sent back as they came. A
 * stale etag is refused `409 ABORTED` (AIP-154; the API Keys docs do not name the code): returned
 * to the caller as "stale", never retried blindly; after an attempt that got no answer it throws
 * an unknown outcome instead (../http/provider-request.ts), since that attempt may be what changed
 * the etag. The PATCH answers an Operation (./operation.ts).
 */
import { z } from "zod";
import { googleHttp } from "../firebase/google-auth";
import { withGoogleToken } from "../firebase/google-credentials";
import { type HttpContext, providerError, providerJson, providerRequest } from "../http";
import type { ApiKeysConfig } from "./config";
import { type Operation, operationSchema, settleOperation } from "./operation";

export interface ApiKeysContext extends HttpContext {
  config: ApiKeysConfig;
}

export interface KeyAddress {
  project: string;
  key: string;
}

/** Every field of `restrictions` is kept as read (loose): a write sends it all back. */
export const restrictionsSchema = z.record(z.string(), z.unknown());
export type Restrictions = z.infer<typeof restrictionsSchema>;

const keySchema = z
  .object({ name: z.string(), etag: z.string().min(1), restrictions: restrictionsSchema.optional() })
  .loose();

/** What a write needs of the key: its restrictions as read, and the etag they were read at. */
export interface KeyState {
  etag: string;
  restrictions: Restrictions;
}

const PROVIDER = "googleapikey";
const spec = googleHttp(PROVIDER);
const keyUrl = (at: KeyAddress) =>
  `https://apikeys.googleapis.com/v2/projects/${at.project}/locations/global/keys/${at.key}`;

export function readKey(ctx: ApiKeysContext, at: KeyAddress): Promise<KeyState> {
  return withGoogleToken(ctx, PROVIDER, ctx.config, async (token) => {
    const key = await providerJson(
      ctx,
      spec,
      { method: "GET", url: keyUrl(at), headers: { authorization: `Bearer ${token}` } },
      keySchema,
    );
    return { etag: key.etag, restrictions: key.restrictions ?? {} };
  });
}

/**
 * PATCHes `restrictions` if the key is still at `etag`, and waits for the update's Operation:
 * "written" once it is done, "stale" on 409 ABORTED (nothing written).
 */
export function writeRestrictions(
  ctx: ApiKeysContext,
  at: KeyAddress,
  etag: string,
  restrictions: Restrictions,
): Promise<"written" | "stale"> {
  return withGoogleToken(ctx, PROVIDER, ctx.config, async (token) => {
    // The PATCH's acceptance is the engine's to hear only once its Operation is done without an
    // error: an update that failed wrote nothing (docs/design.md, "Fencing around a write").
    let accepted = false;
    let unansweredBefore = false;
    const patchCtx: ApiKeysContext = {
      ...ctx,
      onWriteAccepted: () => {
        accepted = true;
      },
      onUnansweredWrite: () => {
        unansweredBefore = true;
        ctx.onUnansweredWrite?.();
      },
    };
    const response = await providerRequest(patchCtx, spec, {
      method: "PATCH",
      url: `${keyUrl(at)}?updateMask=restrictions`,
      headers: { authorization: `Bearer ${token}` },
      json: { restrictions, etag },
      precondition: 409,
      accept: [409],
    });
    if (response.status === 409) {
      await response.body?.cancel();
      return "stale";
    }
    const operation = operationSchema.safeParse(await response.json().catch(() => null));
    if (!operation.success) {
      // Accepted, with an answer that does not say what it did: it may land.
      ctx.onUnansweredWrite?.();
      throw providerError(ctx.secrets, {
        provider: PROVIDER,
        status: response.status,
        message: "unexpected response from PATCH key (not an Operation): it may still land",
        attempts: 1,
        outcome: "unknown",
      });
    }
    await settleOperation({ ctx, spec, token, unansweredBefore }, operation.data as Operation);
    if (accepted) ctx.onWriteAccepted?.();
    return "written";
  });
}
