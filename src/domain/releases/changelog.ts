/**
 * The section of a CHANGELOG.md for one release (reference §5.4): headings `## 1.2.3`,
 * `## [1.2.3]`, `## v1.2.3`, `## [v1.2.3] - 2024-01-01`, …; nightlies and pre-releases take the
 * `## [Unreleased]` section. The text of the section, trimmed; "" when there is none.
 */
const VERSION_HEADING = /^## \[?v?(\d+\.\d+(?:\.\d+)?)/;
const UNRELEASED_HEADING = /^## \[Unreleased\]/i;

export function changelogSection(markdown: string, version: string, nightly: boolean): string {
  const wanted = nightly || version.includes('-') ? 'Unreleased' : version;
  const sections = new Map<string, string[]>();
  let current = '';
  for (const line of markdown.replace(/\r\n?/g, '\n').trim().split('\n')) {
    const heading = VERSION_HEADING.exec(line)?.[1] ?? (UNRELEASED_HEADING.test(line) ? 'Unreleased' : undefined);
    if (heading !== undefined) {
      current = heading;
      // A version heading repeated later does not add to the first section.
      if (sections.has(current)) current = `${current}\u0000again`;
      sections.set(current, []);
      continue;
    }
    const lines = sections.get(current) ?? [];
    lines.push(line);
    sections.set(current, lines);
  }
  return (sections.get(wanted) ?? []).join('\n').trim();
}
