// Jobs: filters, search by id / idempotency key / payload JSON, keyset paging, bulk actions that
// show the dry-run count before they are confirmed.
import { h, replace, notice, table, statusBadge, fmtTime } from '../dom.js';
import { get, post, query, enc, ApiError } from '../api.js';

const STATUSES = ['', 'BLOCKED', 'PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FILTERS = ['status', 'type', 'tag', 'from', 'to'];

/** Whether JSON value {@code whole} contains {@code part} (objects by key, arrays by element). */
export function containsJson(whole, part) {
  if (part === null || typeof part !== 'object') return whole === part;
  if (Array.isArray(part)) {
    return Array.isArray(whole) && part.every((p) => whole.some((w) => containsJson(w, p)));
  }
  if (whole === null || typeof whole !== 'object' || Array.isArray(whole)) return false;
  return Object.entries(part).every(([k, v]) => k in whole && containsJson(whole[k], v));
}

/** What the search box holds: a job id, a payload (a JSON object) or an idempotency key. */
function searchKind(text) {
  const t = text.trim();
  if (!t) return { kind: 'none' };
  if (UUID.test(t)) return { kind: 'id', value: t };
  if (t.startsWith('{')) {
    try {
      return { kind: 'payload', value: JSON.parse(t), text: t };
    } catch (e) {
      return { kind: 'invalid', message: 'Not valid JSON: ' + e.message };
    }
  }
  return { kind: 'idempotencyKey', value: t };
}

export async function render(ctx) {
  const p = ctx.params;
  const filter = {};
  FILTERS.forEach((f) => { if (p.get(f)) filter[f] = p.get(f); });
  const searchText = p.get('q') || '';
  const search = searchKind(searchText);
  if (search.kind === 'id') {
    ctx.go('#/jobs/' + enc(search.value));
    return { node: h('p', {}, 'Opening the job…') };
  }
  if (search.kind === 'payload') filter.payload = search.text;
  if (search.kind === 'idempotencyKey') filter.idempotencyKey = search.value;

  const cursors = [];
  let cursor = null;
  const results = h('div', { id: 'job-results' });
  const bulkBox = h('div', { id: 'bulk' });

  const form = h('form', { class: 'filters', id: 'job-filters', onsubmit: (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const q = {};
    for (const [k, v] of data.entries()) if (String(v).trim()) q[k] = String(v).trim();
    ctx.go('#/jobs' + query(q));
  } },
  h('input', { name: 'q', id: 'job-search', value: searchText, size: 40, placeholder: 'Job id, idempotency key or payload JSON {"order":42}' }),
  h('select', { name: 'status', id: 'filter-status' }, STATUSES.map((st) => h('option', { value: st, selected: st === (filter.status || '') }, st || 'any status'))),
  h('input', { name: 'type', placeholder: 'type', value: filter.type || '', size: 10 }),
  h('input', { name: 'tag', placeholder: 'tag', value: filter.tag || '', size: 10 }),
  h('input', { name: 'from', placeholder: 'from (ISO time)', value: filter.from || '', size: 20 }),
  h('input', { name: 'to', placeholder: 'to (ISO time)', value: filter.to || '', size: 20 }),
  h('button', { type: 'submit', class: 'primary', id: 'job-search-go' }, 'Search'));

  const operate = ctx.can.operate();
  const bulkButtons = h('div', { class: 'actions' },
    h('button', { id: 'bulk-retry', disabled: !operate, title: operate ? '' : 'Needs an operator key', onclick: () => dryRun('retry') }, 'Retry all matching…'),
    h('button', { id: 'bulk-cancel', disabled: !operate, title: operate ? '' : 'Needs an operator key', onclick: () => dryRun('cancel') }, 'Cancel all matching…'));

  async function dryRun(action) {
    replace(bulkBox, h('p', { class: 'muted' }, 'Counting…'));
    try {
      const r = await post('/jobs/bulk', { action, filter, dryRun: true });
      replace(bulkBox, h('div', { class: 'confirm card' },
        h('p', {}, h('strong', { id: 'bulk-count' }, String(r.count)), ` job(s) match: ${action} them all?`),
        h('button', { id: 'bulk-confirm', class: 'danger', disabled: r.count === 0, onclick: () => confirmBulk(action) }, `Yes, ${action} ${r.count}`),
        h('button', { id: 'bulk-dismiss', onclick: () => replace(bulkBox) }, 'No')));
    } catch (e) {
      replace(bulkBox, refusal('Bulk ' + action, e));
    }
  }

  async function confirmBulk(action) {
    try {
      let op = await post('/jobs/bulk', { action, filter });
      const show = () => replace(bulkBox, h('div', { class: 'card', id: 'bulk-progress', dataset: { status: op.status } },
        `Bulk ${op.action}: ${op.done} of ${op.count} done, ${op.failed} failed — ${op.status}`));
      show();
      while (op.status === 'running') {
        await new Promise((r) => setTimeout(r, 1000));
        op = await get('/jobs/bulk/' + enc(op.id));
        show();
      }
      await load();
    } catch (e) {
      replace(bulkBox, refusal('Bulk ' + action, e));
    }
  }

  /** A payload search the API refused for want of a range (no payload index): none was given. */
  function wantsRange(e) {
    const errors = (e.problem && e.problem.errors) || [];
    return filter.payload && !filter.from && !filter.to && e.status === 400 &&
      errors.some((x) => x.field === 'payload');
  }

  async function load() {
    let page;
    let narrowed = null;
    try {
      page = await get('/jobs' + query({ ...filter, cursor }));
    } catch (e) {
      if (!wantsRange(e)) {
        replace(results, refusal('Listing jobs', e));
        return;
      }
      // Without the payload index the API searches payloads within api.payloadSearchMaxRange
      // (a day by default): search the last day, and say so.
      const to = new Date(Date.now() + 60000);
      filter.to = to.toISOString();
      filter.from = new Date(to.getTime() - 86400000).toISOString();
      narrowed = notice('muted', h('span', { id: 'payload-range' },
        `Payload search without the payload index covers one day: jobs from ${fmtTime(filter.from)} to ${fmtTime(filter.to)}. Give from and to to search another day.`));
      try {
        page = await get('/jobs' + query({ ...filter, cursor }));
      } catch (again) {
        replace(results, refusal('Listing jobs', again));
        return;
      }
    }
    const items = page.items || [];
    // A server without payload or idempotency-key search ignores the parameter: tell, do not mislead.
    if ((filter.payload && items.some((j) => !containsJson(j.payload, search.value))) ||
        (filter.idempotencyKey && items.some((j) => j.idempotencyKey !== filter.idempotencyKey))) {
      replace(results, notice('muted', 'Search by ' + (filter.payload ? 'payload' : 'idempotency key') + ': not available on this server.'));
      return;
    }
    const rows = items.map((j) => h('tr', { dataset: { id: j.id, status: j.status } },
      h('td', {}, h('a', { href: '#/jobs/' + enc(j.id), class: 'mono' }, j.id)),
      h('td', {}, j.type), h('td', {}, statusBadge(j.status)), h('td', {}, j.priority),
      h('td', { class: 'num' }, `${j.attempts}/${j.maxAttempts}`),
      h('td', {}, fmtTime(j.runAt)), h('td', {}, (j.tags || []).join(', ')),
      h('td', { class: 'error-cell' }, j.lastError ? String(j.lastError).substring(0, 120) : '')));
    replace(results, ...(narrowed ? [narrowed] : []),
      table(['Id', 'Type', 'Status', 'Priority', 'Attempts', 'Runs at', 'Tags', 'Last error'], rows, { id: 'jobs-table' }),
      h('div', { class: 'pager' },
        h('button', { id: 'page-first', disabled: !cursor, onclick: () => { cursors.length = 0; cursor = null; load(); } }, 'First'),
        h('button', { id: 'page-prev', disabled: !cursor, onclick: () => { cursor = cursors.pop() || null; load(); } }, 'Previous'),
        h('button', { id: 'page-next', disabled: !page.nextCursor, onclick: () => { cursors.push(cursor); cursor = page.nextCursor; load(); } }, 'Next')));
  }

  const node = h('div', {}, h('h1', {}, 'Jobs'), form,
    search.kind === 'invalid' ? notice('error', search.message) : null,
    bulkButtons, bulkBox, results);
  if (search.kind !== 'invalid') await load();
  return { node, refresh: () => (document.getElementById('bulk-confirm') ? Promise.resolve() : load()) };
}

export function refusal(what, e) {
  if (e instanceof ApiError && e.missingEndpoint) return notice('muted', what + ': not available on this server.');
  if (e instanceof ApiError && e.status === 403) return notice('error', what + ': refused — ' + e.message);
  return notice('error', what + ': ' + e.message);
}
