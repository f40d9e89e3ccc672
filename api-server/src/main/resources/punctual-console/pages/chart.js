// Charts drawn as SVG elements (createElementNS), no library.
import { s, h } from '../dom.js';

const SERIES = [
  ['started', 'Started', 'c-started'],
  ['succeeded', 'Succeeded', 'c-succeeded'],
  ['failed', 'Failed', 'c-failed'],
];

/** Jobs started/succeeded/failed per minute: points [{minute, started, succeeded, failed}]. */
export function perMinuteChart(points, fromMs, toMs) {
  const width = 760;
  const height = 220;
  const left = 44;
  const bottom = 24;
  const top = 10;
  const right = 10;
  const max = Math.max(1, ...points.flatMap((p) => SERIES.map(([k]) => Number(p[k]) || 0)));
  const x = (ms) => left + ((ms - fromMs) / Math.max(1, toMs - fromMs)) * (width - left - right);
  const y = (v) => top + (1 - v / max) * (height - top - bottom);
  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': 'Jobs per minute' });
  // axes and grid
  for (const frac of [0, 0.5, 1]) {
    const v = Math.round(max * frac);
    svg.appendChild(s('line', { x1: left, x2: width - right, y1: y(v), y2: y(v), class: 'gridline' }));
    svg.appendChild(s('text', { x: left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, String(v)));
  }
  const hours = Math.max(1, Math.round((toMs - fromMs) / 3600000));
  for (let i = 0; i <= hours; i++) {
    const ms = fromMs + ((toMs - fromMs) * i) / hours;
    const label = new Date(ms).toISOString().substring(11, 16);
    svg.appendChild(s('text', { x: x(ms), y: height - 6, 'text-anchor': 'middle', class: 'axis' }, label));
  }
  // The series lists only minutes that had something: every other minute of the range is a zero.
  const byMinute = new Map(points.map((p) => [Math.floor(new Date(p.minute).getTime() / 60000), p]));
  const sorted = [];
  for (let m = Math.floor(fromMs / 60000); m < Math.ceil(toMs / 60000); m++) {
    sorted.push(byMinute.get(m) || { minute: new Date(m * 60000).toISOString(), started: 0, succeeded: 0, failed: 0 });
  }
  for (const [key, , cls] of SERIES) {
    const coords = sorted.map((p) => `${x(new Date(p.minute).getTime()).toFixed(1)},${y(Number(p[key]) || 0).toFixed(1)}`);
    if (coords.length) svg.appendChild(s('polyline', { points: coords.join(' '), class: 'series ' + cls }));
  }
  const legend = h(
    'div',
    { class: 'legend' },
    SERIES.map(([key, label, cls]) => {
      const total = points.reduce((sum, p) => sum + (Number(p[key]) || 0), 0);
      return h('span', { class: 'key ' + cls }, label + ' ' + total);
    }),
    h('span', { class: 'muted' }, ' (per minute, UTC)'),
  );
  return h('div', { class: 'chart-box' }, svg, legend);
}

/** Horizontal bars: rows [{label, value, cls}]. */
export function bars(rows) {
  const max = Math.max(1, ...rows.map((r) => r.value));
  const width = 360;
  const rowHeight = 22;
  const svg = s('svg', { viewBox: `0 0 ${width} ${rows.length * rowHeight + 4}`, class: 'bars', role: 'img' });
  rows.forEach((r, i) => {
    const w = Math.max(r.value ? 2 : 0, (r.value / max) * (width - 190));
    svg.appendChild(s('text', { x: 0, y: i * rowHeight + 15, class: 'axis' }, r.label));
    svg.appendChild(s('rect', { x: 110, y: i * rowHeight + 4, width: w, height: 14, class: 'bar ' + (r.cls || '') }));
    svg.appendChild(s('text', { x: 116 + w, y: i * rowHeight + 15, class: 'axis' }, String(r.value)));
  });
  return svg;
}
