import type { JWK } from "jose";

export declare const ALGS: { service: "EdDSA"; federation: "RS256" };
export declare function publicPart(jwk: JWK): JWK;
export declare function newKey(
  alg: "EdDSA" | "RS256",
): Promise<{ kid: string; privateKey: CryptoKey; publicJwk: JWK; privateJwk: JWK }>;
export declare function readRing(text: string): Promise<Array<JWK & { status: string }>>;
export declare function rotate(entries: Array<JWK & { status: string }>, alg: string): Promise<unknown>;
export declare function addNext(entries: Array<JWK & { status: string }>, alg: string): Promise<unknown>;
export declare function describeRing(entries: Array<JWK & { status: string }>): string;
