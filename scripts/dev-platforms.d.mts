export declare const PLATFORM_SECRETS: { vercel: string; netlify: string };
export declare function ensurePlatformSecret(platform: "vercel" | "netlify"): string;
export declare function demoPlatforms(): Array<Record<string, unknown>>;
export declare function localPlatformSetup(port: string): { vars: Record<string, string>; lines: string[] };
