import type { DownloadChart } from '../domain/archives/download-weeks.ts';
import { countText, dayAndMonth, shortDate } from './catalog-display.ts';
import type { PageTexts } from './page-texts.ts';
import type { Html } from './html.ts';
import { html } from './html.ts';

/**
 * The developer's download charts (issue 52): bars drawn in SVG on the server (no script), each
 * with its numbers in a table for screen readers (the drawing is hidden from them). Sizes are
 * in the SVG's own units; it scales to the page's width.
 */

const WIDTH = 600;
const BAR_AREA = 160;
const LABEL_AREA = 30;

/** A chart's numbers for screen readers: a table they read, which the page does not show. */
function hiddenTable(caption: string, headings: readonly string[], rows: ReadonlyArray<readonly string[]>): Html {
  return html`<table class="visually-hidden"><caption>${caption}</caption><thead><tr>${headings.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${rows.map(([head = '', ...cells]) => html`<tr><th scope="row">${head}</th>${cells.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody></table>`;
}

function weeksChart(t: PageTexts, chart: DownloadChart): Html {
  const { dev, language } = t;
  // "9 Nov" without the year: the chart's weeks are recent.
  const weekLabel = (week: string): string => dayAndMonth(week, language);
  const max = Math.max(1, ...chart.weeks.map((w) => w.count));
  const slot = WIDTH / Math.max(1, chart.weeks.length);
  const bars = chart.weeks.map((w, i) => {
    const height = Math.round((w.count / max) * (BAR_AREA - 20));
    const x = Math.round(i * slot + slot * 0.15);
    const y = BAR_AREA - height;
    const label = i % 2 === chart.weeks.length % 2 ? '' : weekLabel(w.week);
    return html`<rect x="${x}" y="${y}" width="${Math.round(slot * 0.7)}" height="${height}" class="bar"><title>${weekLabel(w.week)}: ${countText(w.count, language)}</title></rect>${label === '' ? '' : html`<text x="${Math.round(i * slot + slot / 2)}" y="${BAR_AREA + 22}" text-anchor="middle">${label}</text>`}`;
  });
  return html`<figure class="chart"><svg viewBox="0 0 ${WIDTH} ${BAR_AREA + LABEL_AREA}" aria-hidden="true" focusable="false"><text x="0" y="16" class="axis">${countText(max, language)}</text><line x1="0" y1="${BAR_AREA}" x2="${WIDTH}" y2="${BAR_AREA}" class="axis-line"/>${bars}</svg><figcaption>${dev.chartWeeksCaption(chart.weeks.length)}</figcaption></figure>
${hiddenTable(
  'Downloads per week',
  ['Week of', 'Downloads'],
  chart.weeks.map((w) => [shortDate(w.week, 'en'), countText(w.count, language)]),
)}`;
}

/** The releases' totals as horizontal bars (the ten with most downloads). */
function releasesChart(t: PageTexts, chart: DownloadChart): Html {
  const { dev, language } = t;
  const top = [...chart.releases].sort((a, b) => b.count - a.count).slice(0, 10);
  const max = Math.max(1, ...top.map((r) => r.count));
  const row = 30;
  const labelWidth = 170;
  const bars = top.map((r, i) => {
    const width = Math.round((r.count / max) * (WIDTH - labelWidth - 80));
    const y = i * row;
    return html`<text x="${labelWidth - 8}" y="${y + 21}" text-anchor="end">${r.label}</text><rect x="${labelWidth}" y="${y + 6}" width="${Math.max(width, 1)}" height="${row - 12}" class="bar"/><text x="${labelWidth + width + 6}" y="${y + 21}">${countText(r.count, language)}</text>`;
  });
  return html`<figure class="chart"><svg viewBox="0 0 ${WIDTH} ${Math.max(1, top.length) * row}" aria-hidden="true" focusable="false">${bars}</svg><figcaption>${top.length === chart.releases.length ? dev.chartReleasesCaptionAll : dev.chartReleasesCaptionTop(top.length, chart.releases.length)}</figcaption></figure>
${hiddenTable(
  dev.chartReleasesTable,
  [dev.chartRelease, dev.chartDownloads],
  chart.releases.map((r) => [r.label, countText(r.count, language)]),
)}`;
}

/** The manage page's downloads section; null when the store serves none of the app's archives. */
export function downloadCharts(t: PageTexts, chart: DownloadChart, appId: string): Html {
  const code = (inner: Html): Html => html`<code>${inner}</code>`;
  if (chart.releases.length === 0) return html`<p>${t.tagged('dev.chartNoneKept', { code })}</p>`;
  const total = chart.weeks.reduce((sum, w) => sum + w.count, 0);
  return html`${total === 0 ? html`<p>${t.dev.chartNoDownloads(chart.weeks.length)}</p>` : weeksChart(t, chart)}
${releasesChart(t, chart)}
<p class="hint">${t.tagged('dev.chartCounted', { code }, { request: `GET /api/v1/apps/${appId}/downloads?days=84` })}</p>`;
}
