export declare const START_DIR: string;
export declare const START_STATE: string;
export declare const DEFAULT_LOCAL_URL: string;
export declare function writeStartState(port: string): void;
export declare function removeStartState(): void;
export declare function runningStartUrl(dir?: string): string | undefined;
export declare function localInstance(
  env?: Record<string, string | undefined>,
  dir?: string,
): { url: string; source: "PORT" | "default" | string };
