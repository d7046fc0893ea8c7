/** Where a said sentence is written, and the expressions that fill its placeholders. */
export interface SaidPlace {
  readonly file: string;
  readonly line: number;
  readonly expressions: string[];
}

/** Every said sentence of src/: its source (`The app {0} is not registered.`) → where it is written. */
export function saidSources(root?: string): Map<string, SaidPlace[]>;
