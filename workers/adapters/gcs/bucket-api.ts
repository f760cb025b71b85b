/**
 * The JSON API calls on a bucket's CORS (Cloud Storage JSON API reference): GET ?fields=cors,metageneration
 * and PATCH ?ifMetagenerationMatch=<n>. A 412 is returned to the caller (never retried blindly);
 * a 412 after an attempt that got no answer throws an unknown outcome (../http/provider-request.ts).
 */
import { z } from "zod";
import { googleHttp } from "../firebase/google-auth";
import { withGoogleToken } from "../firebase/google-credentials";
import { type HttpContext, providerError, providerJson, providerRequest } from "../http";
import type { GcsConfig } from "./config";

export interface GcsContext extends HttpContext {
  config: GcsConfig;
}

export const gcsCorsRuleSchema = z
  .object({
    origin: z.array(z.string()).optional(),
    method: z.array(z.string()).optional(),
    responseHeader: z.array(z.string()).optional(),
    maxAgeSeconds: z.number().optional(),
  })
  .loose();
export type GcsCorsRule = z.infer<typeof gcsCorsRuleSchema>;

const bucketSchema = z.object({
  metageneration: z.string().regex(/^\d+$/),
  cors: z.array(gcsCorsRuleSchema).optional(),
});
export interface BucketCors {
  metageneration: string;
  cors: GcsCorsRule[];
}

const spec = googleHttp("gcs");
const bucketUrl = (bucket: string) =>
  `https://storage.googleapis.com/storage/v1/b/${encodeURIComponent(bucket)}`;

export function readBucketCors(ctx: GcsContext, bucket: string): Promise<BucketCors> {
  return withGoogleToken(ctx, "gcs", ctx.config, async (token) => {
    const body = await providerJson(
      ctx,
      spec,
      {
        method: "GET",
        url: `${bucketUrl(bucket)}?fields=cors,metageneration`,
        headers: { authorization: `Bearer ${token}` },
      },
      bucketSchema,
    );
    return { metageneration: body.metageneration, cors: body.cors ?? [] };
  });
}

/** PATCH the whole CORS array if the bucket is still at `metageneration`; "conflict" on 412. */
export function writeBucketCors(
  ctx: GcsContext,
  bucket: string,
  metageneration: string,
  cors: GcsCorsRule[],
): Promise<"written" | "conflict"> {
  return withGoogleToken(ctx, "gcs", ctx.config, async (token) => {
    const response = await providerRequest(ctx, spec, {
      method: "PATCH",
      url: `${bucketUrl(bucket)}?ifMetagenerationMatch=${metageneration}&fields=cors,metageneration`,
      headers: { authorization: `Bearer ${token}` },
      json: { cors },
      precondition: 412,
      accept: [412],
    });
    if (response.status === 412) {
      await response.body?.cancel();
      return "conflict";
    }
    const parsed = bucketSchema.safeParse(await response.json().catch(() => null));
    if (!parsed.success) {
      throw providerError(ctx.secrets, {
        provider: "gcs",
        status: response.status,
        message: "unexpected response from PATCH bucket",
        attempts: 1,
      });
    }
    return "written";
  });
}
