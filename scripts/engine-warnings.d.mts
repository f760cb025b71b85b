export declare function pinnedNode(dir: string): string | null;
export declare function satisfies(version: string, range: string): boolean | null;
export declare function engineWarningFilter(pinned: string | null): {
  push(line: string): string[];
  end(): string[];
};
