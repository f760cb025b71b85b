/**
 * Access tokens for Graph issued by the emulated login host: a JWT (HS256 with a key only the
 * emulators know; real ones are RS256) with the claims Graph checks — `aud` Graph, `tid`, `appid`,
 * `roles`, `exp`. Graph's emulator verifies it without sharing storage with the login host.
 */
import { jwtVerify, SignJWT } from "jose";

const KEY = new TextEncoder().encode("sponson-entra-emulator-token-key-0001");
export const GRAPH_AUDIENCES = ["https://graph.microsoft.com", "00000003-0000-0000-c000-000000000000"];
export const ENTRA_TOKEN_LIFETIME_SECONDS = 3_599;

export interface GraphClaims {
  tid: string;
  appid: string;
  roles: string[];
}

export function issueGraphToken(claims: GraphClaims, nowMs: number): Promise<string> {
  const now = Math.floor(nowMs / 1000);
  return new SignJWT({ ...claims, idtyp: "app", ver: "1.0" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setAudience("https://graph.microsoft.com")
    .setIssuer(`https://sts.windows.net/${claims.tid}/`)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + ENTRA_TOKEN_LIFETIME_SECONDS)
    .sign(KEY);
}

export type TokenCheck = { claims: GraphClaims } | { problem: string };

export async function verifyGraphToken(authorization: string | null, nowMs: number): Promise<TokenCheck> {
  const token = authorization?.match(/^Bearer (\S+)$/i)?.[1];
  if (!token) return { problem: "Access token is empty." };
  try {
    const { payload } = await jwtVerify(token, KEY, {
      algorithms: ["HS256"],
      audience: GRAPH_AUDIENCES,
      currentDate: new Date(nowMs),
    });
    return {
      claims: {
        tid: String(payload.tid),
        appid: String(payload.appid),
        roles: Array.isArray(payload.roles) ? payload.roles.map(String) : [],
      },
    };
  } catch (err) {
    const expired = err instanceof Error && err.name === "JWTExpired";
    return {
      problem: expired
        ? "Lifetime validation failed, the token is expired."
        : "Access token validation failure. Invalid audience.",
    };
  }
}
