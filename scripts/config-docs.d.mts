export interface CatalogueEntry {
  name: string;
  what: string;
  unset: string;
}
export declare const CONFIG_DOC: string;
export declare function marker(table: string): { begin: string; end: string };
export declare function markdownTable(header: string[], rows: string[][]): string;
export declare function configTables(catalogue: {
  VARS: readonly CatalogueEntry[];
  SECRETS: readonly CatalogueEntry[];
  SCHEMA_VARS: readonly string[];
  schemaFile: (name: string) => string;
}): Record<string, string>;
export declare function withTables(text: string, tables: Record<string, string>): string;
