/**
 * Icons that are small files and huge drawings (issue 49): `levels` nested levels, each a `<g>`
 * of ten `<use>` of the level below, draw 10^levels copies of one rectangle.
 */
export function nestedUseIcon(levels = 9): string {
  let defs = '<g id="l0"><rect width="1" height="1"/></g>';
  for (let level = 1; level <= levels; level++) {
    defs += `<g id="l${level}">${Array.from({ length: 10 }, (_, i) => `<use href="#l${level - 1}" x="${i}"/>`).join('')}</g>`;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><defs>${defs}</defs><use href="#l${levels}"/></svg>`;
}
