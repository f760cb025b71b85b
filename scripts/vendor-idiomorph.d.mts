export const IDIOMORPH_MODULE: string;
export function idiomorphModule(): string;
