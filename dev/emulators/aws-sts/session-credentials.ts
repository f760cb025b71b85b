/**
 * Temporary credentials as STS issues them (`ASIA…` access key id, secret access key, session
 * token, expiration) and as S3 and Cognito check them: a request signed with such a key must carry
 * `X-Amz-Security-Token`, the token must be the one issued with that key, and unexpired.
 *
 * Every emulated host is its own object with its own storage, so the credentials carry what the
 * hosts need instead of being stored: the secret is derived from the key id and the token is a
 * MAC-ed record of the session, both under a constant that exists only in the emulators.
 */

/** Not a secret: emulator-only, it makes the emulated STS's answers checkable by other hosts. */
const EMULATED_STS_KEY = "sponson-emulated-sts-key-not-a-secret";

export interface IssuedSession {
  AccessKeyId: string;
  SecretAccessKey: string;
  SessionToken: string;
  /** ISO 8601, as STS answers it. */
  Expiration: string;
}

export interface Session {
  roleArn: string;
  sessionName: string;
  secretAccessKey: string;
  /** `arn:aws:sts::<account>:assumed-role/<role name>/<session name>`: who the caller is. */
  assumedRoleArn: string;
}

export type SessionCheck =
  | { ok: true; session: Session }
  | { ok: false; refusal: "missing" | "invalid" | "expired" };

const encoder = new TextEncoder();

async function mac(text: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(EMULATED_STS_KEY),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return btoa(
    String.fromCharCode(...new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(text)))),
  );
}

/** Temporary keys start with ASIA (long-term IAM user keys with AKIA). */
export const isSessionKey = (accessKeyId: string) => accessKeyId.startsWith("ASIA");

export function assumedRoleArn(roleArn: string, sessionName: string): string {
  const [, account = "", role = ""] = roleArn.match(/^arn:aws:iam::(\d{12}):role\/(?:.*\/)?([^/]+)$/) ?? [];
  return `arn:aws:sts::${account}:assumed-role/${role}/${sessionName}`;
}

export async function issueSession(
  roleArn: string,
  sessionName: string,
  expiresAtMs: number,
): Promise<IssuedSession> {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const random = crypto.getRandomValues(new Uint8Array(16));
  const accessKeyId = `ASIA${[...random].map((b) => alphabet[b % 32]).join("")}`;
  const record = JSON.stringify({ k: accessKeyId, r: roleArn, s: sessionName, e: expiresAtMs });
  return {
    AccessKeyId: accessKeyId,
    SecretAccessKey: (await mac(`secret:${accessKeyId}`)).slice(0, 40),
    SessionToken: `${btoa(record)}.${await mac(record)}`,
    Expiration: new Date(expiresAtMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
  };
}

/** The session a request's key and `X-Amz-Security-Token` stand for, or why they stand for none. */
export async function sessionOf(
  accessKeyId: string,
  sessionToken: string | null,
  nowMs: number,
): Promise<SessionCheck> {
  if (sessionToken === null || sessionToken === "") return { ok: false, refusal: "missing" };
  const [encoded = "", signature = ""] = sessionToken.split(".");
  let record: { k?: unknown; r?: unknown; s?: unknown; e?: unknown };
  try {
    record = JSON.parse(atob(encoded));
  } catch {
    return { ok: false, refusal: "invalid" };
  }
  const text = atob(encoded);
  if (signature !== (await mac(text)) || record.k !== accessKeyId) return { ok: false, refusal: "invalid" };
  if (typeof record.e !== "number" || nowMs >= record.e) return { ok: false, refusal: "expired" };
  const roleArn = String(record.r);
  const sessionName = String(record.s);
  return {
    ok: true,
    session: {
      roleArn,
      sessionName,
      secretAccessKey: (await mac(`secret:${accessKeyId}`)).slice(0, 40),
      assumedRoleArn: assumedRoleArn(roleArn, sessionName),
    },
  };
}
