// A workflow as a graph: steps in layers (a step sits one layer below the deepest step it waits
// for), edges from each upstream step, each box coloured by its state and linked to its job.
import { h, s, replace, notice, statusBadge, fmtTime } from '../dom.js';
import { get, post, enc } from '../api.js';
import { refusal } from './jobs.js';

const FINAL = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'];
const BOX_W = 170;
const BOX_H = 46;
const GAP_X = 30;
const GAP_Y = 50;

/** The layer of each step: 0 for steps that wait for nothing, else 1 + the deepest upstream's. */
export function layers(steps) {
  const byId = new Map(steps.map((st) => [st.id, st]));
  const upstream = (st) => [st.parentId, ...(st.dependsOn || []).map((d) => d.id)].filter((u) => u && byId.has(u));
  const depth = new Map();
  const visiting = new Set();
  const visit = (st) => {
    if (depth.has(st.id)) return depth.get(st.id);
    if (visiting.has(st.id)) return 0; // a cycle cannot be stored; stay safe anyway
    visiting.add(st.id);
    const d = upstream(st).reduce((m, u) => Math.max(m, visit(byId.get(u)) + 1), 0);
    visiting.delete(st.id);
    depth.set(st.id, d);
    return d;
  };
  steps.forEach(visit);
  return { depth, upstream };
}

function graph(steps) {
  const { depth, upstream } = layers(steps);
  const rows = [];
  steps.forEach((st) => {
    const d = depth.get(st.id);
    (rows[d] = rows[d] || []).push(st);
  });
  const widest = Math.max(1, ...rows.map((r) => r.length));
  const width = widest * (BOX_W + GAP_X) + GAP_X;
  const height = rows.length * (BOX_H + GAP_Y) + GAP_Y / 2;
  const pos = new Map();
  rows.forEach((row, d) => {
    const offset = (width - row.length * (BOX_W + GAP_X) + GAP_X) / 2;
    row.forEach((st, i) => pos.set(st.id, { x: offset + i * (BOX_W + GAP_X), y: GAP_Y / 2 + d * (BOX_H + GAP_Y) }));
  });
  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, class: 'workflow-graph', id: 'workflow-graph', width, height });
  svg.appendChild(s('defs', {}, s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' }, s('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow' }))));
  steps.forEach((st) => upstream(st).forEach((u) => {
    const a = pos.get(u);
    const b = pos.get(st.id);
    svg.appendChild(s('path', { d: `M ${a.x + BOX_W / 2} ${a.y + BOX_H} C ${a.x + BOX_W / 2} ${a.y + BOX_H + GAP_Y / 2}, ${b.x + BOX_W / 2} ${b.y - GAP_Y / 2}, ${b.x + BOX_W / 2} ${b.y}`, class: 'edge', 'marker-end': 'url(#arrow)' }));
  }));
  steps.forEach((st) => {
    const p = pos.get(st.id);
    const link = s('a', { href: '#/jobs/' + enc(st.id), class: 'step', 'data-ref': st.ref, 'data-status': st.status },
      s('rect', { x: p.x, y: p.y, width: BOX_W, height: BOX_H, rx: 6, class: 'node st-' + String(st.status).toLowerCase() }),
      s('text', { x: p.x + 8, y: p.y + 18, class: 'node-title' }, String(st.ref || st.type).substring(0, 22)),
      s('text', { x: p.x + 8, y: p.y + 36, class: 'node-sub' }, `${st.status} · ${st.type}`.substring(0, 26)),
      s('title', {}, `${st.ref} (${st.type}) ${st.status}${st.lastError ? ' — ' + st.lastError : ''}`));
    svg.appendChild(link);
  });
  return svg;
}

export async function render(ctx) {
  const node = h('div', { id: 'workflow-page' });
  const message = h('div');
  async function load() {
    const wf = await get('/workflows/' + enc(ctx.arg));
    const operate = ctx.can.operate();
    const open = wf.jobs.some((st) => !FINAL.includes(st.status));
    replace(node,
      h('h1', {}, 'Workflow ', h('span', { class: 'mono' }, wf.id), ' ', statusBadge(wf.status)),
      h('div', { class: 'actions' }, h('button', { id: 'workflow-cancel', class: 'danger', disabled: !operate || !open, title: operate ? (open ? '' : 'Every step is final already') : 'Needs an operator key', onclick: cancel }, 'Cancel the workflow')),
      message,
      h('p', { class: 'muted' }, `${wf.jobs.length} steps · created ${fmtTime(wf.createdAt)}`),
      h('div', { class: 'card wide graph-box' }, graph(wf.jobs)));
  }
  async function cancel() {
    try {
      await post('/workflows/' + enc(ctx.arg) + '/cancel');
      replace(message, notice('ok', 'Cancelled.'));
    } catch (e) {
      replace(message, refusal('Cancel', e));
    }
    await load();
  }
  await load();
  return { node, refresh: load };
}
