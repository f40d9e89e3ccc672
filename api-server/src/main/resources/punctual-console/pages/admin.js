// For admins: namespaces (active or not, quota, pending) and API keys (create, revoke).
import { h, replace, notice, table, statusBadge, fmtTime } from '../dom.js';
import { get, post, del, enc } from '../api.js';
import { refusal } from './jobs.js';

export async function render(ctx) {
  const namespaces = h('div', { id: 'namespaces' });
  const keys = h('div', { id: 'keys' });
  const message = h('div', { id: 'admin-message' });
  const admin = ctx.can.admin();

  async function loadNamespaces() {
    try {
      const page = await get('/namespaces?limit=100', { namespace: null });
      replace(namespaces, table(['Namespace', 'State', 'Quota', 'Created', ''], (page.items || []).map((n) =>
        h('tr', { dataset: { name: n.name } }, h('td', {}, n.name), h('td', {}, statusBadge(n.active ? 'active' : 'inactive')),
          h('td', { class: 'mono' }, JSON.stringify(n.quota || {})), h('td', {}, fmtTime(n.createdAt)),
          h('td', {}, h('button', { disabled: !admin, onclick: () => act(`/namespaces/${enc(n.name)}/${n.active ? 'deactivate' : 'reactivate'}`) }, n.active ? 'Deactivate' : 'Reactivate'))))));
    } catch (e) {
      replace(namespaces, refusal('Namespaces', e));
    }
  }

  async function loadKeys() {
    try {
      const page = await get('/keys?limit=100');
      replace(keys, table(['Name', 'Prefix', 'Role', 'Namespaces', 'Last used', 'Expires', ''], (page.items || []).map((k) =>
        h('tr', { dataset: { id: k.id } }, h('td', {}, k.name), h('td', { class: 'mono' }, k.prefix), h('td', {}, k.role),
          h('td', {}, (k.namespaces || []).join(', ')), h('td', {}, fmtTime(k.lastUsedAt)), h('td', {}, fmtTime(k.expiresAt)),
          h('td', {}, k.id === ctx.me.keyId ? h('span', { class: 'muted' }, 'this key') : h('button', { class: 'danger', disabled: !admin, onclick: () => revoke(k) }, 'Revoke'))))));
    } catch (e) {
      replace(keys, refusal('Keys', e));
    }
  }

  async function act(path) {
    try {
      await post(path);
      replace(message, notice('ok', 'Done.'));
    } catch (e) {
      replace(message, refusal('Namespace', e));
    }
    await loadNamespaces();
  }

  async function revoke(k) {
    try {
      await del('/keys/' + enc(k.id));
      replace(message, notice('ok', 'Revoked ' + k.name + '.'));
    } catch (e) {
      replace(message, refusal('Revoke', e));
    }
    await loadKeys();
  }

  const form = h('form', { id: 'new-key', class: 'filters', onsubmit: async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const body = { name: String(data.get('name')), role: String(data.get('role')), namespaces: String(data.get('namespaces')).split(',').map((x) => x.trim()).filter(Boolean) };
    try {
      const created = await post('/keys', body);
      replace(message, notice('ok', 'Key created. Its secret is shown once, copy it now: ', h('code', { id: 'new-key-secret' }, created.secret)));
      form.reset();
    } catch (err) {
      replace(message, refusal('Create key', err));
    }
    await loadKeys();
  } },
  h('input', { name: 'name', placeholder: 'name', required: true }),
  h('select', { name: 'role' }, ['viewer', 'submitter', 'operator', 'admin', 'worker'].map((r) => h('option', { value: r }, r))),
  h('input', { name: 'namespaces', placeholder: 'namespaces, comma-separated', value: ctx.me.namespace || 'default' }),
  h('button', { type: 'submit', class: 'primary', disabled: !admin }, 'Create key'));

  await Promise.all([loadNamespaces(), loadKeys()]);
  return {
    node: h('div', {}, h('h1', {}, 'Namespaces & keys'), message,
      h('section', { class: 'card wide' }, h('h2', {}, 'Namespaces'), namespaces),
      h('section', { class: 'card wide' }, h('h2', {}, 'API keys'), form, keys)),
  };
}
