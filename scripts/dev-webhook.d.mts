export declare const DEMO_REPOSITORY: { name: string; id: number };
export declare function ensureWebhookSecret(): string;
export declare function localWebhookSetup(port: string, argv: string[]): { vars: string[]; lines: string[] };
