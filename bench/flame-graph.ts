// A flame graph (SVG) and the heaviest functions (text) from a V8 CPU profile (`node --cpu-prof`).
// Usage: node --import tsx bench/flame-graph.ts PROFILE.cpuprofile OUT.svg [TITLE]
// Prints the functions with the most time of their own, and the share of the samples under each
// of the top frames. The SVG: one box per call path, as wide as its share of the samples,
// callers below callees; idle and garbage collection are boxes of their own.
import fs from 'node:fs';
import path from 'node:path';
import { escapeHtml } from '../src/web/html.ts';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly hitCount?: number;
  readonly children?: readonly number[];
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

interface Frame {
  readonly name: string;
  self: number;
  total: number;
  readonly children: Map<string, Frame>;
}

/** A frame's name: the function, and where it is (the file's last two parts and the line). */
function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url === '' ? '' : ` ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
  return `${functionName || '(anonymous)'}${where}`;
}

/** The profile's call tree with sample times (µs), merged by name along each path. */
function callTree(profile: Profile): Frame {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const time = new Map<number, number>();
  profile.samples.forEach((id, i) => time.set(id, (time.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const root: Frame = { name: 'all', self: 0, total: 0, children: new Map() };
  const walk = (node: ProfileNode, parent: Frame): void => {
    const name = frameName(node);
    let frame = parent.children.get(name);
    if (frame === undefined) parent.children.set(name, (frame = { name, self: 0, total: 0, children: new Map() }));
    frame.self += Math.max(0, time.get(node.id) ?? 0);
    for (const child of node.children ?? []) {
      const found = byId.get(child);
      if (found !== undefined) walk(found, frame);
    }
  };
  const first = profile.nodes[0];
  if (first !== undefined) for (const child of first.children ?? []) walk(byId.get(child) as ProfileNode, root);
  const sum = (frame: Frame): number =>
    (frame.total = frame.self + [...frame.children.values()].reduce((a, c) => a + sum(c), 0));
  sum(root);
  return root;
}

/** The flame graph: 1200 px wide, 16 px a level, labels where they fit, the share in each box's title. */
function svg(root: Frame, title: string): string {
  const width = 1200;
  const row = 16;
  const boxes: string[] = [];
  let depth = 0;
  const place = (frame: Frame, x: number, level: number): void => {
    const w = (frame.total / root.total) * width;
    if (w < 0.3) return;
    depth = Math.max(depth, level);
    const share = ((100 * frame.total) / root.total).toFixed(1);
    const hue = frame.name.startsWith('(garbage')
      ? 200
      : frame.name.startsWith('(idle') || frame.name.startsWith('(program')
        ? 0
        : 20 + ((frame.name.length * 7) % 40);
    const label =
      w > 40
        ? `<text x="${(x + 3).toFixed(1)}" y="${-level * row - 4}">${escapeHtml(frame.name.slice(0, Math.floor(w / 6.5)))}</text>`
        : '';
    boxes.push(
      `<g><title>${escapeHtml(frame.name)} (${share} %)</title><rect x="${x.toFixed(1)}" y="${-(level + 1) * row}" width="${Math.max(0.3, w - 0.3).toFixed(1)}" height="${row - 1}" fill="hsl(${hue},75%,${frame.name.startsWith('(idle') ? 85 : 65}%)"/>${label}</g>`,
    );
    let at = x;
    for (const child of [...frame.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      place(child, at, level + 1);
      at += (child.total / root.total) * width;
    }
  };
  place(root, 0, 0);
  const height = (depth + 1) * row + 30;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 ${-height + 10} ${width} ${height}" font-family="monospace" font-size="11">
<text x="0" y="${-height + 24}" font-size="14">${escapeHtml(title)}</text>
${boxes.join('\n')}
</svg>
`;
}

/** The functions with the most time of their own, each with its share of the samples. */
export function heaviest(root: Frame, count: number): Array<{ name: string; share: number }> {
  const self = new Map<string, number>();
  const visit = (frame: Frame): void => {
    self.set(frame.name, (self.get(frame.name) ?? 0) + frame.self);
    for (const child of frame.children.values()) visit(child);
  };
  visit(root);
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, time]) => ({ name, share: time / root.total }));
}

/** Reads a profile, writes its flame graph, and returns the tree for reports. */
export function flameGraph(profileFile: string, svgFile: string, title: string): Frame {
  const root = callTree(JSON.parse(fs.readFileSync(profileFile, 'utf8')) as Profile);
  fs.mkdirSync(path.dirname(svgFile), { recursive: true });
  fs.writeFileSync(svgFile, svg(root, title));
  return root;
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const [profileFile, svgFile, title] = process.argv.slice(2);
  if (profileFile === undefined || svgFile === undefined) {
    process.stderr.write('usage: bench/flame-graph.ts PROFILE.cpuprofile OUT.svg [TITLE]\n');
    process.exit(2);
  }
  const root = flameGraph(profileFile, svgFile, title ?? path.basename(profileFile));
  for (const { name, share } of heaviest(root, 25))
    process.stdout.write(`${(100 * share).toFixed(1).padStart(5)} %  ${name}\n`);
}
