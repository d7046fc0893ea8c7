/**
 * Whether a platform version satisfies a semantic spec of the contract's grammar (`*`,
 * `>=X.Y.Z`, `<X.Y.Z`, `>=X.Y.Z <X.Y.Z`): the filter of platform/{v}/apps.json.
 */
type Triple = readonly [number, number, number];

const parse = (version: string): Triple => {
  const [a = 0, b = 0, c = 0] = version.split('.').map(Number);
  return [a, b, c];
};
const compare = (x: Triple, y: Triple): number => x[0] - y[0] || x[1] - y[1] || x[2] - y[2];

export interface SpecBounds {
  readonly min: Triple | null;
  /** Exclusive. */
  readonly max: Triple | null;
}

export function parseSpec(spec: string): SpecBounds {
  let min: Triple | null = null;
  let max: Triple | null = null;
  for (const token of spec.trim().split(/\s+/)) {
    if (token.startsWith('>=')) min = parse(token.slice(2));
    else if (token.startsWith('<')) max = parse(token.slice(1));
  }
  return { min, max };
}

export function satisfies(version: string, bounds: SpecBounds): boolean {
  const v = parse(version);
  return (bounds.min === null || compare(v, bounds.min) >= 0) && (bounds.max === null || compare(v, bounds.max) < 0);
}
