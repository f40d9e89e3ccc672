// The console's shell: sign-in, navigation, the namespace switcher, hash routing and polling.
import { h, replace, notice } from './dom.js';
import { get, session, whenUnauthorized, ApiError } from './api.js';
import * as overview from './pages/overview.js';
import * as jobs from './pages/jobs.js';
import * as job from './pages/job.js';
import * as workflow from './pages/workflow.js';
import * as schedules from './pages/schedules.js';
import * as schedule from './pages/schedule.js';
import * as workers from './pages/workers.js';
import * as admin from './pages/admin.js';
import * as reference from './pages/reference.js';

const POLL_MS = 5000;
const ROLES = ['worker', 'viewer', 'submitter', 'operator', 'admin'];

const root = document.getElementById('app');
const state = { me: null, page: null, timer: null, polling: false };

/** What the signed-in key may do, for showing or hiding actions (the server decides anyway). */
export const can = {
  operate: () => state.me && ROLES.indexOf(state.me.role) >= ROLES.indexOf('operator'),
  admin: () => state.me && state.me.role === 'admin',
};

const ROUTES = [
  [/^\/?$/, overview],
  [/^\/overview$/, overview],
  [/^\/jobs$/, jobs],
  [/^\/jobs\/([^/]+)$/, job],
  [/^\/workflows\/([^/]+)$/, workflow],
  [/^\/schedules$/, schedules],
  [/^\/schedules\/([^/]+)$/, schedule],
  [/^\/workers$/, workers],
  [/^\/admin$/, admin],
  [/^\/api$/, reference],
];

function parseHash() {
  const hash = location.hash.replace(/^#/, '') || '/overview';
  const [path, q] = hash.split('?');
  return { path, params: new URLSearchParams(q || '') };
}

function signInView(message) {
  const input = h('input', { type: 'password', id: 'api-key', name: 'key', autocomplete: 'off', placeholder: 'pct_…', required: true, size: 60 });
  const namespace = h('input', { id: 'sign-in-namespace', name: 'namespace', autocomplete: 'off', placeholder: 'the default, or the key\'s only one', size: 30 });
  const form = h(
    'form',
    {
      id: 'sign-in',
      class: 'card sign-in',
      onsubmit: async (e) => {
        e.preventDefault();
        session.signIn(input.value.trim());
        session.setNamespace(namespace.value.trim());
        await start();
      },
    },
    h('h1', {}, 'Punctual'),
    h('p', {}, 'Sign in with an API key. It is kept in this tab only (sessionStorage) and sent as a Bearer token.'),
    message ? notice('error', message) : null,
    h('label', { for: 'api-key' }, 'API key'),
    input,
    h('label', { for: 'sign-in-namespace' }, 'Namespace (optional; needed for a key of several namespaces without default)'),
    namespace,
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
  );
  replace(root, form);
  input.focus();
}

async function namespaceSwitcher() {
  const select = h('select', {
    id: 'namespace',
    title: 'Namespace (Punctual-Namespace)',
    onchange: () => {
      session.setNamespace(select.value);
      state.me.namespace = select.value;
      route();
    },
  });
  let names = [];
  try {
    const page = await get('/namespaces?limit=100', { namespace: null });
    names = (page.items || []).map((n) => n.name);
  } catch (e) {
    names = [];
  }
  const keyNamespaces = state.me.namespaces.filter((n) => n !== '*');
  for (const n of keyNamespaces) if (!names.includes(n)) names.push(n);
  const current = state.me.namespace;
  if (current && !names.includes(current)) names.unshift(current);
  names.forEach((n) => select.appendChild(h('option', { value: n, selected: n === current }, n)));
  return select;
}

async function shell() {
  const nav = h(
    'nav',
    {},
    h('a', { href: '#/overview', class: 'brand' }, 'Punctual'),
    h('a', { href: '#/overview', dataset: { page: 'overview' } }, 'Overview'),
    h('a', { href: '#/jobs', dataset: { page: 'jobs' } }, 'Jobs'),
    h('a', { href: '#/schedules', dataset: { page: 'schedules' } }, 'Schedules'),
    h('a', { href: '#/workers', dataset: { page: 'workers' } }, 'Workers'),
    can.admin() ? h('a', { href: '#/admin', dataset: { page: 'admin' } }, 'Namespaces & keys') : null,
    h('a', { href: '#/api', id: 'nav-api', dataset: { page: 'api' } }, 'API'),
    h('span', { class: 'spacer' }),
    await namespaceSwitcher(),
    h('span', { id: 'whoami', class: 'who', dataset: { role: state.me.role } }, state.me.name + ' · ' + state.me.role),
    h('button', { id: 'sign-out', onclick: () => { session.signOut(); stopPolling(); signInView(); } }, 'Sign out'),
  );
  replace(root, h('header', {}, nav), h('main', { id: 'page' }), h('footer', { id: 'poll-status', class: 'muted' }));
}

function stopPolling() {
  if (state.timer) clearInterval(state.timer);
  state.timer = null;
}

async function poll() {
  if (document.hidden || state.polling || !state.page || !state.page.refresh) return;
  state.polling = true;
  try {
    await state.page.refresh();
    const status = document.getElementById('poll-status');
    if (status) replace(status, 'Updated ' + new Date().toISOString().substring(11, 19) + ' UTC · every 5 s while this tab is visible');
  } catch (e) {
    const status = document.getElementById('poll-status');
    if (status) replace(status, 'Update failed: ' + e.message);
  } finally {
    state.polling = false;
  }
}

async function route() {
  if (!state.me) return;
  const { path, params } = parseHash();
  const page = document.getElementById('page');
  if (!page) return;
  document.querySelectorAll('nav a[data-page]').forEach((a) => {
    a.classList.toggle('active', path.startsWith('/' + a.dataset.page));
  });
  for (const [pattern, module] of ROUTES) {
    const match = pattern.exec(path);
    if (match) {
      const ctx = { me: state.me, can, params, arg: match[1] ? decodeURIComponent(match[1]) : null, go: (hash) => { location.hash = hash; } };
      state.page = null;
      replace(page, h('p', { class: 'muted' }, 'Loading…'));
      try {
        const rendered = await module.render(ctx);
        if (parseHash().path !== path) return; // the person moved on meanwhile
        state.page = rendered;
        replace(page, rendered.node);
      } catch (e) {
        replace(page, notice('error', e instanceof ApiError && e.status === 404 ? 'Not found in this namespace.' : 'Could not load: ' + e.message));
      }
      return;
    }
  }
  replace(page, notice('error', 'No such page.'));
}

async function start() {
  if (!session.key()) {
    signInView();
    return;
  }
  try {
    state.me = await get('/me', { quiet401: true });
  } catch (e) {
    session.signOut();
    const several = e instanceof ApiError && e.status === 403 && e.problem && e.problem.field === 'Punctual-Namespace';
    signInView(e instanceof ApiError && e.status === 401 ? 'That key was refused.' : several ? e.message : 'Could not sign in: ' + e.message);
    return;
  }
  if (!session.namespace()) session.setNamespace(state.me.namespace);
  state.me.namespace = session.namespace();
  await shell();
  await route();
  stopPolling();
  state.timer = setInterval(poll, POLL_MS);
}

whenUnauthorized(() => {
  session.signOut();
  stopPolling();
  state.me = null;
  signInView('The key was refused (revoked or expired): sign in again.');
});
window.addEventListener('hashchange', route);
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) poll();
});
start();
