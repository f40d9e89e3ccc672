// One schedule: its next fire times in its zone and in UTC (the preview endpoint), its last runs
// and their outcomes (lateness shows misfires), pause / resume / trigger.
import { h, replace, notice, table, statusBadge, fmtTime, fmtDuration, json } from '../dom.js';
import { get, post, enc } from '../api.js';
import { refusal } from './jobs.js';
import { expression } from './schedules.js';

/** The instant as wall-clock time in {@code zone} (IANA), with the zone's offset. */
export function inZone(iso, zone) {
  try {
    return new Intl.DateTimeFormat('sv-SE', {
      timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short',
    }).format(new Date(iso));
  } catch (e) {
    return String(iso);
  }
}

export async function render(ctx) {
  const id = ctx.arg;
  const node = h('div', { id: 'schedule-page' });
  const message = h('div', { id: 'schedule-message' });
  async function load() {
    const sc = await get('/schedules/' + enc(id));
    const [preview, runs] = await Promise.all([
      get('/schedules/' + enc(id) + '/preview?count=10').catch((e) => e),
      get('/schedules/' + enc(id) + '/jobs?limit=20').catch((e) => e),
    ]);
    const operate = ctx.can.operate();
    const why = operate ? '' : 'Needs an operator key';
    const paused = sc.status === 'PAUSED' || sc.status === 'paused';
    const actions = h('div', { class: 'actions' },
      paused
        ? h('button', { id: 'schedule-resume', disabled: !operate, title: why, onclick: () => act('resume') }, 'Resume')
        : h('button', { id: 'schedule-pause', disabled: !operate, title: why, onclick: () => act('pause') }, 'Pause'),
      h('button', { id: 'schedule-trigger', disabled: !operate, title: why, onclick: () => act('trigger') }, 'Run once now'));
    const fires = preview instanceof Error
      ? refusal('Next fire times', preview)
      : table([`In ${sc.timezone}`, 'UTC'], (preview.fireTimes || []).map((t) => h('tr', {}, h('td', {}, inZone(t, sc.timezone)), h('td', {}, fmtTime(t)))), { id: 'preview' });
    const lastRuns = runs instanceof Error
      ? refusal('Last runs', runs)
      : table(['Occurrence (UTC)', 'Job', 'Status', 'Started', 'Late by', 'Error'], (runs.items || []).map((j) => {
          const late = j.startedAt && j.occurrenceAt ? new Date(j.startedAt) - new Date(j.occurrenceAt) : null;
          return h('tr', {}, h('td', {}, fmtTime(j.occurrenceAt)), h('td', {}, h('a', { href: '#/jobs/' + enc(j.id), class: 'mono' }, j.id.substring(0, 8))),
            h('td', {}, statusBadge(j.status)), h('td', {}, fmtTime(j.startedAt)), h('td', { class: late > 60000 ? 'warn' : '' }, late === null ? '—' : fmtDuration(late)),
            h('td', { class: 'error-cell' }, j.lastError ? String(j.lastError).substring(0, 100) : ''));
        }), { id: 'schedule-runs' });
    replace(node,
      h('h1', {}, 'Schedule ', h('span', {}, sc.name), ' ', h('span', { id: 'schedule-status', dataset: { status: sc.status } }, statusBadge(sc.status))),
      actions, message,
      h('div', { class: 'grid' },
        h('section', { class: 'card' }, h('h2', {}, 'Definition'), h('dl', { class: 'facts' },
          ...[['Expression', expression(sc)], ['Zone', sc.timezone], ['Misfires', sc.misfire], ['Overlap', sc.overlap], ['Job type', sc.type], ['Priority', sc.priority],
            ['Next fire', fmtTime(sc.nextFireAt)], ['Last fire', fmtTime(sc.lastFireAt)], ['Starts', fmtTime(sc.startAt)], ['Ends', fmtTime(sc.endAt)]]
            .flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v || '—')]))),
        h('section', { class: 'card' }, h('h2', {}, 'Next fire times'), fires),
        h('section', { class: 'card' }, h('h2', {}, 'Payload'), json(sc.payload))),
      h('section', { class: 'card wide' }, h('h2', {}, 'Last runs'), lastRuns));
  }
  async function act(action) {
    try {
      const r = await post('/schedules/' + enc(id) + '/' + action);
      replace(message, notice('ok', action === 'trigger' ? ['Triggered: job ', h('a', { href: '#/jobs/' + enc(r.id), class: 'mono' }, r.id)] : action === 'pause' ? 'Paused.' : 'Resumed.'));
    } catch (e) {
      replace(message, refusal(action, e));
    }
    await load();
  }
  await load();
  return { node, refresh: load };
}
