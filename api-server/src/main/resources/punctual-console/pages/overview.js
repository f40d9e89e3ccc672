// Overview: counts by state (stats), queue depth per priority (Redis), the per-minute chart
// (stats/series), start lag, live workers. Polled: queue depth and workers every 5 s; stats and
// the series every 30 s (every sixth poll).
import { h, replace, notice, fmtDuration, table, statusBadge, fmtAge } from '../dom.js';
import { get, query } from '../api.js';
import { perMinuteChart, bars } from './chart.js';

// GET /stats counts attempts: STARTED by the minute they started, the others by how they ended.
const OUTCOMES = ['STARTED', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'LOST'];

/** The group of the namespace shown (groupBy=namespace lists every namespace of the key). */
function ours(stats, namespace) {
  return (stats.groups || []).find((g) => g.key === namespace) || null;
}
const HOURS = 3;

function unavailable(what, e) {
  return notice('muted', what + ': ' + (e && e.missingEndpoint ? 'not available on this server' : 'could not load (' + (e ? e.message : '') + ')'));
}

export async function render(ctx) {
  const namespace = ctx.me.namespace;
  const states = h('section', { class: 'card', id: 'states' }, h('h2', {}, 'Attempts by outcome (last 24 h)'));
  const depth = h('section', { class: 'card', id: 'queue-depth' }, h('h2', {}, 'Queue depth by priority'));
  const lag = h('section', { class: 'card', id: 'start-lag' }, h('h2', {}, 'Start lag (last hour)'));
  const live = h('section', { class: 'card', id: 'live-workers' }, h('h2', {}, 'Workers'));
  const chart = h('section', { class: 'card wide', id: 'per-minute' }, h('h2', {}, `Jobs per minute, last ${HOURS} hours`));
  const node = h('div', { class: 'overview' }, h('h1', {}, 'Overview'), h('div', { class: 'grid' }, states, depth, lag, live, chart));
  let tick = 0;

  async function fast() {
    await Promise.all([
      get('/queues/depth').then(
        (d) => replace(depth, h('h2', {}, 'Queue depth by priority'), table(['Priority', 'Due now', 'Future'],
          d.priorities.map((p) => h('tr', { dataset: { priority: p.priority } }, h('td', {}, p.priority), h('td', { class: 'num due' }, String(p.due)), h('td', { class: 'num future' }, String(p.future)))))),
        (e) => replace(depth, h('h2', {}, 'Queue depth by priority'), unavailable('Queue depth', e)),
      ),
      get('/workers?limit=100').then(
        (w) => {
          const items = w.items || [];
          const alive = items.filter((x) => x.status === 'alive');
          const running = alive.reduce((n, x) => n + (x.running || 0), 0);
          replace(live, h('h2', {}, 'Workers'),
            h('p', { class: 'big' }, h('span', { id: 'alive-workers' }, String(alive.length)), ' alive'),
            h('p', {}, `${items.filter((x) => x.status === 'stale').length} stale · ${running} jobs running`),
            items.slice(0, 5).map((x) => h('div', { class: 'mini' }, statusBadge(x.status), ' ', x.id, ' · beat ', fmtAge(x.heartbeatAt))),
            h('a', { href: '#/workers' }, 'All workers'));
        },
        (e) => replace(live, h('h2', {}, 'Workers'), unavailable('Workers', e)),
      ),
    ]);
  }

  async function slow() {
    const now = Date.now();
    const to = new Date(Math.ceil(now / 60000) * 60000);
    const from = new Date(to.getTime() - HOURS * 3600000);
    const dayAgo = new Date(now - 24 * 3600000).toISOString();
    const hourAgo = new Date(now - 3600000).toISOString();
    await Promise.all([
      get('/stats' + query({ from: dayAgo, to: new Date(now).toISOString(), groupBy: 'namespace' })).then(
        (st) => {
          const counts = (ours(st, namespace) || {}).counts || {};
          const names = [...OUTCOMES, ...Object.keys(counts).filter((k) => !OUTCOMES.includes(k))];
          replace(states, h('h2', {}, 'Attempts by outcome (last 24 h)'),
            bars(names.map((name) => ({ label: name, value: counts[name] || 0, cls: 'st-' + name.toLowerCase() }))));
        },
        (e) => replace(states, h('h2', {}, 'Attempts by outcome (last 24 h)'), unavailable('Counts by outcome', e)),
      ),
      get('/stats' + query({ from: hourAgo, to: new Date(now).toISOString(), groupBy: 'namespace' })).then(
        (st) => {
          const g = ours(st, namespace);
          replace(lag, h('h2', {}, 'Start lag (last hour)'), g && g.startLagMs
            ? h('div', {}, h('p', { class: 'big' }, 'p50 ', fmtDuration(g.startLagMs.p50)), h('p', {}, 'p95 ', fmtDuration(g.startLagMs.p95), ' · success rate ', g.successRate == null ? '—' : (g.successRate * 100).toFixed(1) + ' %'))
            : h('p', { class: 'muted' }, 'No job started in the last hour.'));
        },
        (e) => replace(lag, h('h2', {}, 'Start lag (last hour)'), unavailable('Start lag', e)),
      ),
      get('/stats/series' + query({ from: from.toISOString(), to: to.toISOString() })).then(
        (series) => replace(chart, h('h2', {}, `Jobs per minute, last ${HOURS} hours`), perMinuteChart(series.points || [], from.getTime(), to.getTime())),
        (e) => replace(chart, h('h2', {}, `Jobs per minute, last ${HOURS} hours`), unavailable('The per-minute series', e)),
      ),
    ]);
  }

  await Promise.all([fast(), slow()]);
  return {
    node,
    async refresh() {
      tick++;
      await fast();
      if (tick % 6 === 0) await slow();
    },
  };
}
