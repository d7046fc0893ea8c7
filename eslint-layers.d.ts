// Types of eslint-layers.js, for the test that runs its rule (test/unit/eslint-layers.test.ts).
import type { ESLint } from 'eslint';

export interface LayerRow {
  /** What, under src/, the folder may import besides itself. */
  readonly may: readonly string[];
  /** Packages it may not import. */
  readonly packages: readonly string[];
  readonly why: string;
}

export const LAYERS: Readonly<Record<string, LayerRow>>;
export const layersPlugin: ESLint.Plugin;
