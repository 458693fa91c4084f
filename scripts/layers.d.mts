/** A layer of docs/architecture.md (see layers.mjs). */
export interface Layer {
  readonly name: string;
  readonly holds: string;
  readonly match: (file: string) => boolean;
}

export declare const LAYERS: readonly Layer[];
export declare function layerOf(file: string): number;
export declare function isTest(file: string): boolean;
export declare function sourceFiles(root: string, dir: string): string[];
export declare function layerImportRules(root: string, extra?: (file: string) => unknown[]): { files: string[]; rules: Record<string, unknown> }[];
