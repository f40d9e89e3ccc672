// Workers: alive or stale, namespaces, running jobs, heartbeat age.
import { h, replace, table, statusBadge, fmtAge, fmtTime } from '../dom.js';
import { get, enc } from '../api.js';
import { refusal } from './jobs.js';

export async function render() {
  const list = h('div', { id: 'workers' });
  async function load() {
    let page;
    try {
      page = await get('/workers?limit=100');
    } catch (e) {
      replace(list, refusal('Workers', e));
      return;
    }
    const now = Date.now();
    replace(list, table(['Worker', 'Status', 'Host', 'Namespaces', 'Running', 'Heartbeat', 'Started', 'Jobs'], (page.items || []).map((w) =>
      h('tr', { dataset: { id: w.id, status: w.status } },
        h('td', { class: 'mono' }, w.id), h('td', {}, statusBadge(w.status)), h('td', {}, `${w.host} (pid ${w.pid})`),
        h('td', {}, (w.namespaces || []).join(', ')), h('td', { class: 'num' }, `${w.running}/${w.concurrency}`),
        h('td', {}, fmtAge(w.heartbeatAt, now)), h('td', {}, fmtTime(w.startedAt)),
        h('td', {}, (w.jobs || []).map((j) => h('div', {}, h('a', { href: '#/jobs/' + enc(j.id), class: 'mono' }, String(j.id).substring(0, 8)), ` ${j.type} #${j.attempt}`))))),
    { id: 'workers-table' }));
  }
  await load();
  return { node: h('div', {}, h('h1', {}, 'Workers'), list), refresh: load };
}
