// One job: payload, result, every attempt, links (parent, children of any kind, dependencies,
// dependents in its workflow, workflow, schedule), the diagnosis, retry and cancel; its progress and
// its latest attempt's log lines, live while it runs.
import { h, replace, notice, table, statusBadge, fmtTime, fmtDuration, json } from '../dom.js';
import { get, post, enc, query } from '../api.js';
import { refusal } from './jobs.js';

const FINAL = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'];
const RETRYABLE = ['FAILED', 'CANCELLED', 'SKIPPED'];

const CHILDREN_PAGE = 20;

/** How often a running job's progress and log lines are read while its page is open. */
const LIVE_MS = 1000;

/**
 * How many more reads follow the one that saw the job final: a handler's last progress and lines
 * are written up to worker.outputFlushInterval (250 ms by default) after its job ended.
 */
const LATE_READS = 3;

/** The progress bar of a job's latest reported progress (GET /jobs/{id} progress), or a dash. */
function progressBar(progress) {
  if (!progress) return h('span', { class: 'muted' }, 'None reported');
  const pct = Math.max(0, Math.min(100, progress.percent));
  const label = (progress.total != null ? `${progress.done} of ${progress.total} · ` : '') + `${pct.toFixed(pct % 1 ? 1 : 0)} %` + ` (attempt ${progress.attempt})`;
  const fill = h('div', { class: 'progress-fill' });
  fill.style.width = `${pct}%`; // through the CSSOM: the console's CSP allows no style attribute
  return h('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': String(pct), dataset: { percent: String(pct), attempt: String(progress.attempt) } },
    fill, h('span', { class: 'progress-label' }, label));
}

/**
 * An attempt's log lines as they arrive: reads GET /jobs/{id}/logs after the last line shown, every
 * LIVE_MS while the job is not final and its page is open (and LATE_READS times after); a newer
 * attempt's lines replace the older one's. The live tick and the page's 5-second refresh both
 * read: a read asked for while one runs waits for it, and a line already shown is not added again.
 */
function liveLog(id) {
  const lines = h('div', { id: 'job-log', class: 'log' });
  const title = h('span', { id: 'job-log-attempt', class: 'muted' });
  let attempt = null;
  let next = 0;
  let reading = Promise.resolve();
  async function readOnce() {
    let page = await get('/jobs/' + enc(id) + '/logs' + query({ after: next }));
    if (page.attempt !== attempt) {
      attempt = page.attempt;
      next = 0;
      replace(lines);
      if (page.attempt != null) page = await get('/jobs/' + enc(id) + '/logs' + query({ attempt: page.attempt }));
    }
    replace(title, attempt == null ? '' : ` · attempt ${attempt}`);
    (page.lines || []).filter((l) => l.seq > next).forEach((l) => lines.appendChild(h('div', { class: 'log-line', dataset: { seq: String(l.seq) } },
      h('span', { class: 'muted' }, fmtTime(l.at) + ' '), l.line)));
    next = Math.max(next, page.next);
    if (!lines.firstChild) lines.appendChild(h('span', { class: 'muted empty' }, 'No lines logged.'));
    else { const empty = lines.querySelector('.empty'); if (empty) empty.remove(); }
  }
  function read() {
    const done = reading.catch(() => null).then(readOnce);
    reading = done;
    return done;
  }
  return { lines, title, read };
}

/**
 * The jobs whose parent this job is (GET /jobs/{id}/children), a page at a time. {@code pages} are
 * the pages already read (a refresh reads as many children as were shown, so that the page's
 * 5-second refresh does not fold the list back to its first page); {@code shown(n)} is told how
 * many children the list holds after each page.
 */
function childList(pages, shown) {
  if (pages instanceof Error) return refusal('Children', pages);
  const parentOf = pages.parentOf;
  const list = h('div', { id: 'job-children' });
  const more = h('div');
  let count = 0;
  function add(page) {
    (page.items || []).forEach((c) => list.appendChild(h('div', { class: 'child', dataset: { id: c.id } }, jobLink(c.id), ' ', c.type, ' ', statusBadge(c.status))));
    count += (page.items || []).length;
    shown(count);
    replace(more, page.nextCursor
      ? h('button', { id: 'job-children-more', onclick: async () => {
        try {
          add(await get('/jobs/' + enc(parentOf) + '/children' + query({ limit: CHILDREN_PAGE, cursor: page.nextCursor })));
        } catch (e) {
          replace(more, refusal('Children', e));
        }
      } }, 'More children')
      : null);
  }
  pages.forEach(add);
  if (!list.firstChild) list.appendChild(h('span', { class: 'muted' }, '—'));
  return [list, more];
}

/**
 * The first {@code atLeast} children of a job (at least one page): pages of up to 100 (the list
 * limit every deployment allows is larger), read one after another.
 */
async function childPages(id, atLeast) {
  const pages = [];
  let read = 0;
  let cursor;
  do {
    const limit = pages.length === 0 ? Math.min(Math.max(CHILDREN_PAGE, atLeast), 100) : Math.min(atLeast - read, 100);
    const page = await get('/jobs/' + enc(id) + '/children' + query({ limit, cursor }));
    pages.push(page);
    read += (page.items || []).length;
    cursor = page.nextCursor;
  } while (cursor && read < atLeast);
  pages.parentOf = id;
  return pages;
}

function jobLink(id) {
  return h('a', { href: '#/jobs/' + enc(id), class: 'mono' }, id);
}

export async function render(ctx) {
  const id = ctx.arg;
  const node = h('div', { id: 'job-page' });
  const message = h('div', { id: 'job-message' });
  let childrenShown = 0;
  const log = liveLog(id);
  const progress = h('div', { id: 'job-progress' });
  let live = null;
  let lateReads = 0;

  /**
   * While the job runs and its page is open: its progress and new log lines every LIVE_MS, and
   * LATE_READS times more once it is final.
   */
  function goLive() {
    if (live) return;
    live = setTimeout(async function tick() {
      live = null;
      if (!node.isConnected) return;
      try {
        const job = await get('/jobs/' + enc(id));
        replace(progress, progressBar(job.progress));
        await log.read();
        if (!FINAL.includes(job.status) || lateReads++ < LATE_READS) goLive();
      } catch (e) {
        goLive();
      }
    }, LIVE_MS);
  }

  async function load() {
    const job = await get('/jobs/' + enc(id));
    const [executions, diagnosis, workflow, children] = await Promise.all([
      get('/jobs/' + enc(id) + '/executions').catch((e) => e),
      get('/jobs/' + enc(id) + '/diagnosis').catch((e) => e),
      job.workflowId ? get('/workflows/' + enc(job.workflowId)).catch(() => null) : Promise.resolve(null),
      childPages(id, childrenShown).catch((e) => e),
    ]);
    const final = FINAL.includes(job.status);
    replace(progress, progressBar(job.progress));
    await log.read().catch(() => null);
    if (!final) goLive();
    const operate = ctx.can.operate();
    const why = operate ? '' : 'Needs an operator key';
    const actions = h('div', { class: 'actions' },
      h('button', { id: 'job-retry', disabled: !operate || !RETRYABLE.includes(job.status), title: why || (RETRYABLE.includes(job.status) ? '' : 'Only a failed, cancelled or skipped job can be retried'), onclick: () => act('retry') }, 'Retry'),
      h('button', { id: 'job-cancel', class: 'danger', disabled: !operate || final, title: why || (final ? 'Final already' : ''), onclick: () => act('cancel') }, 'Cancel'));

    const dependents = workflow
      ? workflow.jobs.filter((st) => st.parentId !== job.id && (st.dependsOn || []).some((d) => d.id === job.id))
      : [];
    const links = h('dl', { class: 'links' },
      h('dt', {}, 'Parent'), h('dd', { id: 'job-parent' }, job.parentId ? [jobLink(job.parentId), ' (', job.runCondition || 'on_success', ')'] : '—'),
      h('dt', {}, 'Depends on'), h('dd', {}, (job.dependsOn || []).length ? job.dependsOn.map((d) => h('div', {}, jobLink(d.id), d.required ? ' (required)' : ' (optional)')) : '—'),
      h('dt', {}, 'Children'), h('dd', {}, childList(children, (n) => { childrenShown = n; })),
      dependents.length ? [h('dt', {}, 'Dependents'), h('dd', { id: 'job-dependents' }, dependents.map((c) => h('div', {}, jobLink(c.id), ' ', c.ref, ' ', statusBadge(c.status))))] : null,
      h('dt', {}, 'Workflow'), h('dd', {}, job.workflowId ? h('a', { href: '#/workflows/' + enc(job.workflowId), id: 'workflow-link', class: 'mono' }, job.workflowId) : '—'),
      h('dt', {}, 'Schedule'), h('dd', {}, job.scheduleId ? [h('a', { href: '#/schedules/' + enc(job.scheduleId), class: 'mono' }, job.scheduleId), ' occurrence ', fmtTime(job.occurrenceAt)] : '—'));

    const facts = h('dl', { class: 'facts' },
      ...[['Type', job.type], ['Priority', job.priority], ['Attempts', `${job.attempts} of ${job.maxAttempts}`], ['Runs at', fmtTime(job.runAt)],
        ['Started', fmtTime(job.startedAt)], ['Finished', fmtTime(job.finishedAt)], ['Worker', job.workerId || '—'],
        ['Idempotency key', job.idempotencyKey || '—'], ['Tags', (job.tags || []).join(', ') || '—'], ['Created', fmtTime(job.createdAt)]]
        .flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));

    const attempts = executions instanceof Error
      ? refusal('Attempts', executions)
      : table(['#', 'Status', 'Worker', 'Started', 'Duration', 'Error'], (executions.items || []).map((x) =>
          h('tr', { dataset: { attempt: String(x.attempt) } }, h('td', {}, String(x.attempt)), h('td', {}, statusBadge(x.status)), h('td', { class: 'mono' }, x.workerId || '—'),
            h('td', {}, fmtTime(x.startedAt)), h('td', {}, fmtDuration(x.durationMs)), h('td', {}, h('pre', { class: 'error' }, x.error || '')))), { id: 'attempts' });

    const diag = diagnosis instanceof Error
      ? refusal('Diagnosis', diagnosis)
      : h('ul', { id: 'diagnosis' }, (diagnosis.reasons || []).length
        ? diagnosis.reasons.map((r) => h('li', {}, h('code', {}, r.code), ' ', r.message))
        : h('li', { class: 'muted' }, 'Nothing to report.'));

    replace(node,
      h('h1', {}, 'Job ', h('span', { class: 'mono', id: 'job-id' }, job.id), ' ', h('span', { id: 'job-status', dataset: { status: job.status } }, statusBadge(job.status))),
      actions, message,
      h('div', { class: 'grid' },
        h('section', { class: 'card' }, h('h2', {}, 'Job'), facts),
        h('section', { class: 'card' }, h('h2', {}, 'Links'), links),
        h('section', { class: 'card' }, h('h2', {}, 'Diagnosis'), diag),
        h('section', { class: 'card' }, h('h2', {}, 'Last error'), h('pre', { class: 'error', id: 'last-error' }, job.lastError || '—')),
        h('section', { class: 'card' }, h('h2', {}, 'Payload'), h('div', { id: 'payload' }, json(job.payload))),
        h('section', { class: 'card' }, h('h2', {}, 'Result'), h('div', { id: 'result' }, json(job.result)))),
      h('section', { class: 'card wide' }, h('h2', {}, 'Progress'), progress),
      h('section', { class: 'card wide' }, h('h2', {}, 'Log', log.title), log.lines),
      h('section', { class: 'card wide' }, h('h2', {}, 'Attempts'), attempts));
  }

  async function act(action) {
    if (action === 'cancel' && !document.getElementById('job-cancel-confirm')) {
      replace(message, h('div', { class: 'confirm card' }, 'Cancel this job? ',
        h('button', { id: 'job-cancel-confirm', class: 'danger', onclick: () => act('cancel') }, 'Yes, cancel it'),
        h('button', { onclick: () => replace(message) }, 'No')));
      return;
    }
    try {
      await post('/jobs/' + enc(id) + '/' + action);
      replace(message, notice('ok', action === 'retry' ? 'Retried.' : 'Cancelled.'));
    } catch (e) {
      replace(message, refusal(action === 'retry' ? 'Retry' : 'Cancel', e));
      return;
    }
    await load();
  }

  await load();
  return { node, refresh: () => (document.getElementById('job-cancel-confirm') ? Promise.resolve() : load()) };
}
