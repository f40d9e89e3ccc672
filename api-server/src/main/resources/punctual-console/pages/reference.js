// The API reference: GET /api/v1/openapi.json (the document the server ships) rendered as routes
// grouped by tag: method, path, the least role (x-punctual-role), parameters, request body and
// responses with their schemas. Built with DOM calls and text nodes only, like every page; schemas
// open on demand (a <details> renders its content the first time it is opened).
import { h, replace, notice } from '../dom.js';
import { get } from '../api.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const MAX_DEPTH = 6;

/** The component a local $ref names ("#/components/schemas/Job"), or null. */
function resolve(doc, ref) {
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return null;
  let node = doc;
  for (const part of ref.slice(2).split('/')) {
    if (node === null || typeof node !== 'object') return null;
    node = node[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node === undefined ? null : node;
}

function refName(ref) {
  return String(ref).split('/').pop();
}

/** A short type text: "string", "string | null", "array of Job", "Job", "object". */
function typeText(schema) {
  if (!schema || typeof schema !== 'object') return 'any';
  if (schema.$ref) return refName(schema.$ref);
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  if (schema.type === 'array') return 'array of ' + typeText(schema.items);
  if (schema.oneOf || schema.anyOf) return (schema.oneOf || schema.anyOf).map(typeText).join(' | ');
  if (schema.type) return schema.type + (schema.format ? ' (' + schema.format + ')' : '');
  if (schema.properties) return 'object';
  return 'any';
}

/** Facts worth a line under a property: enum, bounds, default, pattern. */
function constraints(schema) {
  if (!schema || typeof schema !== 'object') return [];
  const out = [];
  if (Array.isArray(schema.enum)) out.push('one of ' + schema.enum.map((v) => JSON.stringify(v)).join(', '));
  if (schema.minimum !== undefined) out.push('≥ ' + schema.minimum);
  if (schema.maximum !== undefined) out.push('≤ ' + schema.maximum);
  if (schema.minLength !== undefined) out.push('length ≥ ' + schema.minLength);
  if (schema.maxLength !== undefined) out.push('length ≤ ' + schema.maxLength);
  if (schema.maxItems !== undefined) out.push('at most ' + schema.maxItems + ' items');
  if (schema.default !== undefined) out.push('default ' + JSON.stringify(schema.default));
  if (schema.pattern) out.push('pattern ' + schema.pattern);
  return out;
}

/** A <details> whose content is built the first time it opens. */
function lazy(summary, build, attrs) {
  let built = false;
  const body = h('div', { class: 'ref-body' });
  const el = h('details', attrs || {}, h('summary', {}, summary), body);
  el.addEventListener('toggle', () => {
    if (el.open && !built) {
      built = true;
      replace(body, build());
    }
  });
  return el;
}

/** A schema as a table of its properties (objects), or its type; $refs expand on demand. */
function schemaView(doc, schema, depth, seen) {
  if (!schema || typeof schema !== 'object') return h('span', { class: 'muted' }, 'any');
  if (schema.$ref) {
    const name = refName(schema.$ref);
    const target = resolve(doc, schema.$ref);
    if (!target) return h('code', {}, name);
    if (seen.includes(name) || depth >= MAX_DEPTH) return h('code', { class: 'ref-name' }, name + ' (above)');
    return lazy(h('code', { class: 'ref-name' }, name), () => schemaView(doc, target, depth + 1, seen.concat(name)), { class: 'ref-schema', dataset: { schema: name } });
  }
  const parts = [];
  if (schema.description) parts.push(h('p', { class: 'muted' }, schema.description));
  if (schema.type === 'array' && schema.items) {
    parts.push(h('div', {}, 'array of ', schemaView(doc, schema.items, depth + 1, seen)));
    return parts;
  }
  const variants = schema.oneOf || schema.anyOf;
  if (variants) {
    parts.push(h('div', {}, schema.oneOf ? 'one of:' : 'any of:'), h('ul', {}, variants.map((v) => h('li', {}, schemaView(doc, v, depth + 1, seen)))));
    return parts;
  }
  if (schema.properties) {
    const required = new Set(schema.required || []);
    const rows = Object.entries(schema.properties).map(([name, prop]) => {
      const nested = prop && (prop.$ref || prop.properties || (prop.items && (prop.items.$ref || prop.items.properties)));
      return h('tr', { dataset: { property: name } },
        h('td', { class: 'mono' }, name, required.has(name) ? h('span', { class: 'req', title: 'required' }, ' *') : null),
        h('td', { class: 'mono' }, typeText(prop)),
        h('td', {},
          prop && prop.description ? h('div', {}, prop.description) : null,
          constraints(prop).map((c) => h('div', { class: 'muted mini' }, c)),
          nested ? schemaView(doc, prop.$ref || prop.properties ? prop : prop.items, depth + 1, seen) : null));
    });
    parts.push(h('table', { class: 'ref-props' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Field'), h('th', {}, 'Type'), h('th', {}, 'Meaning'))),
      h('tbody', {}, rows)));
    if (schema.additionalProperties === false) parts.push(h('div', { class: 'muted mini' }, 'No other fields.'));
    return parts;
  }
  parts.push(h('code', {}, typeText(schema)), constraints(schema).map((c) => h('span', { class: 'muted mini' }, ' · ' + c)));
  return parts;
}

function parameterRows(doc, op) {
  return (op.parameters || []).map((p) => (p && p.$ref ? resolve(doc, p.$ref) || { name: refName(p.$ref) } : p)).map((p) =>
    h('tr', { dataset: { parameter: p.name || '' } },
      h('td', { class: 'mono' }, p.name || '—', p.required ? h('span', { class: 'req', title: 'required' }, ' *') : null),
      h('td', {}, p.in || ''),
      h('td', { class: 'mono' }, typeText(p.schema)),
      h('td', {}, p.description || '', constraints(p.schema).map((c) => h('div', { class: 'muted mini' }, c)))));
}

function contentSchema(content) {
  if (!content || typeof content !== 'object') return null;
  const type = content['application/json'] ? 'application/json' : Object.keys(content)[0];
  return type ? { type, schema: content[type] && content[type].schema } : null;
}

function operationView(doc, method, path, op) {
  const route = method.toUpperCase() + ' ' + path;
  const role = op['x-punctual-role'] || 'admin';
  return lazy(
    [h('span', { class: 'method m-' + method }, method.toUpperCase()), ' ', h('span', { class: 'mono route-path' }, path), ' ',
      h('span', { class: 'route-summary' }, op.summary || ''), ' ', h('span', { class: 'badge role', title: 'Least role' }, role)],
    () => {
      const parts = [];
      if (op.description) parts.push(h('p', {}, op.description));
      parts.push(h('p', { class: 'mini' }, 'Least role: ', h('strong', { class: 'route-role' }, role), op.operationId ? [' · operationId ', h('code', {}, op.operationId)] : null));
      const params = parameterRows(doc, op);
      if (params.length) {
        parts.push(h('h3', {}, 'Parameters'), h('table', { class: 'ref-params' },
          h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'In'), h('th', {}, 'Type'), h('th', {}, 'Meaning'))),
          h('tbody', {}, params)));
      }
      if (op.requestBody) {
        const body = op.requestBody.$ref ? resolve(doc, op.requestBody.$ref) || {} : op.requestBody;
        const c = contentSchema(body.content);
        parts.push(h('h3', {}, 'Request body', c ? [' (', c.type, ')'] : null, body.required ? ' · required' : ''),
          body.description ? h('p', {}, body.description) : null,
          h('div', { class: 'ref-request' }, c ? schemaView(doc, c.schema, 0, []) : '—'));
      }
      const responses = Object.entries(op.responses || {}).map(([status, r]) => {
        const resp = r && r.$ref ? resolve(doc, r.$ref) || {} : r || {};
        const c = contentSchema(resp.content);
        return h('tr', { dataset: { status } },
          h('td', { class: 'mono' }, status),
          h('td', {}, resp.description || '', c ? [h('div', { class: 'muted mini' }, c.type), schemaView(doc, c.schema, 0, [])] : null));
      });
      parts.push(h('h3', {}, 'Responses'), h('table', { class: 'ref-responses' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Status'), h('th', {}, 'Body'))), h('tbody', {}, responses)));
      return parts;
    },
    { class: 'card route', dataset: { route, tag: (op.tags || ['other'])[0], role } });
}

/** The operations of the document, grouped by their first tag in the document's tag order. */
function groups(doc) {
  const byTag = new Map((doc.tags || []).map((t) => [t.name, { tag: t, ops: [] }]));
  for (const [path, item] of Object.entries(doc.paths || {})) {
    for (const method of METHODS) {
      const op = item && item[method];
      if (!op) continue;
      const tag = (op.tags && op.tags[0]) || 'other';
      if (!byTag.has(tag)) byTag.set(tag, { tag: { name: tag }, ops: [] });
      byTag.get(tag).ops.push({ method, path, op });
    }
  }
  return [...byTag.values()].filter((g) => g.ops.length);
}

export async function render() {
  const doc = await get('/openapi.json');
  const all = groups(doc);
  const list = h('div', { id: 'api-routes' });
  const count = h('span', { class: 'muted', id: 'api-count' });
  const search = h('input', { id: 'api-search', type: 'search', placeholder: 'Filter: path, method, summary, role or tag', size: 50, oninput: () => draw() });

  function draw() {
    const q = search.value.trim().toLowerCase();
    let shown = 0;
    const sections = all.map((g) => {
      const ops = g.ops.filter(({ method, path, op }) => !q
        || [method, path, op.summary || '', op['x-punctual-role'] || '', g.tag.name].join(' ').toLowerCase().includes(q));
      shown += ops.length;
      if (!ops.length) return null;
      return h('section', { class: 'api-tag', dataset: { tag: g.tag.name } },
        h('h2', {}, g.tag.name, ' (', String(ops.length), ')'),
        g.tag.description ? h('p', { class: 'muted' }, g.tag.description) : null,
        ops.map(({ method, path, op }) => operationView(doc, method, path, op)));
    });
    replace(count, shown + ' routes');
    replace(list, shown ? sections : notice('muted', 'No route matches.'));
  }

  draw();
  const info = doc.info || {};
  const node = h('div', { id: 'api-page' },
    h('h1', {}, 'API reference ', h('span', { class: 'muted mini' }, (info.title || '') + ' ' + (info.version || ''))),
    h('p', { class: 'muted' }, 'Rendered from ', h('code', {}, 'GET /api/v1/openapi.json'),
      ' (OpenAPI ', doc.openapi || '?', '). Every request carries the key as a Bearer token and may name its namespace in the Punctual-Namespace header; the least role each route needs is on its line.'),
    h('div', { class: 'filters' }, search, count),
    list);
  return { node };
}
