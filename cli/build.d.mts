export declare const BUNDLE: string;
export declare function buildCli(): Promise<string>;
