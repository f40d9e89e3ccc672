// Schedules: the list, with status, expression, next and last fire times.
import { h, replace, table, statusBadge, fmtTime } from '../dom.js';
import { get, query, enc } from '../api.js';
import { refusal } from './jobs.js';

export function expression(sc) {
  return sc.cron ? 'cron ' + sc.cron : 'every ' + sc.every;
}

export async function render() {
  const list = h('div', { id: 'schedules' });
  const cursors = [];
  let cursor = null;
  async function load() {
    let page;
    try {
      page = await get('/schedules' + query({ cursor, limit: 50 }));
    } catch (e) {
      replace(list, refusal('Schedules', e));
      return;
    }
    replace(list,
      table(['Name', 'Status', 'Expression', 'Zone', 'Next fire (UTC)', 'Last fire (UTC)', 'Type'], (page.items || []).map((sc) =>
        h('tr', { dataset: { id: sc.id, name: sc.name } },
          h('td', {}, h('a', { href: '#/schedules/' + enc(sc.id) }, sc.name)), h('td', {}, statusBadge(sc.status)),
          h('td', { class: 'mono' }, expression(sc)), h('td', {}, sc.timezone), h('td', {}, fmtTime(sc.nextFireAt)),
          h('td', {}, fmtTime(sc.lastFireAt)), h('td', {}, sc.type))), { id: 'schedules-table' }),
      h('div', { class: 'pager' },
        h('button', { disabled: !cursor, onclick: () => { cursor = cursors.pop() || null; load(); } }, 'Previous'),
        h('button', { disabled: !page.nextCursor, onclick: () => { cursors.push(cursor); cursor = page.nextCursor; load(); } }, 'Next')));
  }
  await load();
  return { node: h('div', {}, h('h1', {}, 'Schedules'), list), refresh: load };
}
