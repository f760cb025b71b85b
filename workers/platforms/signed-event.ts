/**
 * What both platform doors do first (docs/design.md, "The platform door"), cheapest refusal first:
 * the raw body within its size, the connection the body claims (only that, and only to choose whose
 * secret is checked), then the platform's signature over the exact bytes. Nothing else of the body
 * is read before the signature holds; each refusal is a log line, never a write.
 */
import type { Env } from "../../shared/env";
import { configFromEnv } from "../config/config";
import { readRawBody } from "../webhooks/raw-body";
import { badSignature, PLATFORM_EVENT_MAX_BYTES, secretValue, unknownTarget } from "./platform-answer";
import { logUnsignedRefusal } from "./platform-audit";
import type { PlatformConnection } from "./platform-schema";

export interface SignedDoor<P extends PlatformConnection> {
  platform: P["platform"];
  /** The project or site the unsigned body names. */
  claimed(body: Uint8Array): string | null;
  /** The connection of that project or site. */
  matches(connection: PlatformConnection, claimed: string | null): connection is P;
  /** The platform's own signature over the raw bytes, with the connection's secret. */
  verify(secret: string, body: Uint8Array, request: Request): Promise<boolean>;
}

export async function signedEvent<P extends PlatformConnection>(
  env: Env,
  request: Request,
  door: SignedDoor<P>,
): Promise<{ body: Uint8Array; connection: P }> {
  const refused = (status: number, rule: string, claimed: string | null) =>
    logUnsignedRefusal({ platform: door.platform, status, rule, claimed });
  let body: Uint8Array;
  try {
    body = await readRawBody(request, PLATFORM_EVENT_MAX_BYTES);
  } catch (err) {
    refused(413, "platform.size", null);
    throw err;
  }
  const claimed = door.claimed(body);
  const connection = configFromEnv(env).platforms.find((p): p is P => door.matches(p, claimed));
  if (connection === undefined) {
    refused(404, "platform.unknown", claimed);
    throw unknownTarget(door.platform);
  }
  if (!(await door.verify(secretValue(env, connection.webhookSecret), body, request))) {
    refused(401, "platform.signature", claimed);
    throw badSignature();
  }
  return { body, connection };
}
