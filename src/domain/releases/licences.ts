/**
 * Licences an app may declare: SPDX ids, and the original store's old aliases. Matching ignores
 * case (real info.xml files say AGPL and agpl alike). The old aliases apache, mit and mpl become
 * their SPDX ids; agpl and gpl3 stay as they are, as in the original store.
 */
const SPDX = [
  'AGPL-3.0-only',
  'AGPL-3.0-or-later',
  'Apache-2.0',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'EUPL-1.2',
  'GPL-3.0-only',
  'GPL-3.0-or-later',
  'ISC',
  'LGPL-3.0-only',
  'LGPL-3.0-or-later',
  'MIT',
  'MPL-2.0',
];
const ALIASES: Record<string, string> = {
  agpl: 'agpl',
  gpl3: 'gpl3',
  apache: 'Apache-2.0',
  mit: 'MIT',
  mpl: 'MPL-2.0',
};
const BY_LOWER_CASE = new Map<string, string>([
  ...SPDX.map((id): [string, string] => [id.toLowerCase(), id]),
  ...Object.entries(ALIASES),
]);

/** The licence id to store, or null when it is not one the store knows. */
export function normaliseLicence(value: string): string | null {
  return BY_LOWER_CASE.get(value.trim().toLowerCase()) ?? null;
}
