export declare const ACTIONS: string[];
export declare function githubTimestamp(date: Date): string;
export declare function pullRequestPayload(event: {
  action: string;
  pr: number;
  repository?: { name: string; id: number };
  updatedAt?: string;
}): { payload: Record<string, unknown>; body: string };
export declare function deliveryHeaders(
  secret: string,
  body: string,
  delivery?: string,
): Promise<Record<string, string>>;
