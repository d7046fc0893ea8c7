/** The width help is wrapped at when standard output is not a terminal that says its own. */
export const DEFAULT_COLUMNS = 80;

/**
 * Wraps text at `width` columns: runs of lines are filled word by word, each line starting with
 * `indent`; a line that starts with a space (an example) is kept as it is; a word longer than a
 * line stands on its own.
 */
export function wrap(text: string, width: number, indent = ''): string {
  const out: string[] = [];
  let words: string[] = [];
  const fill = (): void => {
    let line = '';
    for (const word of words) {
      if (line !== '' && indent.length + line.length + 1 + word.length > width) {
        out.push(indent + line);
        line = word;
      } else line = line === '' ? word : `${line} ${word}`;
    }
    if (line !== '') out.push(indent + line);
    words = [];
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '' || /^\s/.test(line)) {
      fill();
      out.push(line.trim() === '' ? '' : indent + line);
    } else words.push(...line.split(/\s+/).filter((w) => w !== ''));
  }
  fill();
  return out.join('\n');
}

/** `1 category`, `3 categories`. */
export function counted(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Edits from one word to another: insertions, deletions, substitutions, and swaps of two neighbours (`tokne`). */
function distance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The candidate closest to a mistyped word, when it is close enough to be what was meant (a typo or two); else null. */
export function closest(word: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of new Set(candidates)) {
    const d = distance(word.toLowerCase(), candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best !== null && bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : null;
}

/** A size as people read it: KiB under a MiB (a 300 KiB archive is not "0.3 MiB"), else MiB with one decimal. */
export function sizeText(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
