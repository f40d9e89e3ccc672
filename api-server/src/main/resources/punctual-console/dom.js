// DOM building without HTML parsing: every text goes in as a text node (textContent), every
// attribute through setAttribute with a fixed name, so nothing read from the API (payloads, errors,
// tags, names) can ever become markup or script. Nothing in the console parses HTML.

const SVG_NS = 'http://www.w3.org/2000/svg';

function append(parent, child) {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    child.forEach((c) => append(parent, c));
  } else if (child instanceof Node) {
    parent.appendChild(child);
  } else {
    parent.appendChild(document.createTextNode(String(child)));
  }
}

function apply(el, attrs) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === 'href') {
      el.setAttribute('href', safeHref(value));
    } else if (name === 'value' && 'value' in el) {
      el.value = String(value);
    } else if (name === 'checked' || name === 'disabled' || name === 'selected') {
      el[name] = Boolean(value);
    } else if (name === 'dataset') {
      Object.assign(el.dataset, value);
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
  return el;
}

/** Only links inside the console (#/...) or relative paths; anything else becomes "#". */
export function safeHref(value) {
  const text = String(value);
  return text.startsWith('#') || /^[a-z0-9./_-]*$/i.test(text) ? text : '#';
}

/** h('div', {class: 'x'}, 'text', child, [more]) */
export function h(tag, attrs, ...children) {
  const el = apply(document.createElement(tag), attrs);
  append(el, children);
  return el;
}

/** The same for SVG elements. */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function replace(el, ...children) {
  clear(el);
  append(el, children);
  return el;
}

export function fmtTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return isNaN(d) ? String(iso) : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z').replace(/Z$/, ' UTC');
}

export function fmtAge(iso, now = Date.now()) {
  if (!iso) return '—';
  const ms = now - new Date(iso).getTime();
  if (isNaN(ms)) return '—';
  return fmtDuration(Math.abs(ms)) + (ms >= 0 ? ' ago' : ' from now');
}

export function fmtDuration(ms) {
  if (ms === null || ms === undefined || isNaN(ms)) return '—';
  if (ms < 1000) return Math.round(ms) + ' ms';
  const sec = ms / 1000;
  if (sec < 60) return sec.toFixed(sec < 10 ? 1 : 0) + ' s';
  const min = sec / 60;
  if (min < 60) return min.toFixed(0) + ' min';
  const hours = min / 60;
  if (hours < 48) return hours.toFixed(1) + ' h';
  return (hours / 24).toFixed(1) + ' d';
}

export function statusBadge(status) {
  const text = String(status || '—');
  return h('span', { class: 'badge st-' + text.toLowerCase().replace(/[^a-z_]/g, '') }, text);
}

export function json(value) {
  return h('pre', { class: 'json' }, value === undefined ? '—' : JSON.stringify(value, null, 2));
}

export function table(headers, rows, attrs) {
  return h(
    'table',
    attrs || {},
    h('thead', {}, h('tr', {}, headers.map((x) => h('th', {}, x)))),
    h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: headers.length, class: 'muted' }, 'Nothing here.'))),
  );
}

export function notice(kind, ...text) {
  return h('div', { class: 'notice ' + kind }, ...text);
}
