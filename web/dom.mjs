// Small DOM helpers of the page: elements built with textContent only (never
// innerHTML from input data), SVG elements, tables, byte sizes.

/** Creates an element: h('td', {class: 'n'}, 'text', child, ...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    // CSSOM, not a style attribute: the CSP (no 'unsafe-inline') blocks the latter.
    else if (k === 'style') for (const [p, x] of Object.entries(v)) el.style.setProperty(p, String(x));
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Replaces the children of `el`, skipping null/undefined/false (replaceChildren would print "null"). */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== undefined && c !== null && c !== false));
  return el;
}

const SVG = 'http://www.w3.org/2000/svg';
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** "1,234 B (1.2 KiB)". */
export function formatBytes(n) {
  const plain = `${Number(n).toLocaleString('en-US')} B`;
  if (n < 1024) return plain;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${plain} (${v.toFixed(1)} ${units[i]})`;
}

/**
 * Rows or items shown at first, and added per "show more" click: a program
 * of 30k nodes has tens of thousands of values, instructions, inputs and
 * modules, and building them all at once blocked the page for seconds.
 */
export const SHOWN = 500;

/**
 * Appends renderItem(item) for the first SHOWN of `items` to `container`
 * and returns [container], or [container, button] when more remain: the
 * button adds SHOWN more per click (`noun`: what an item is, "rows").
 */
export function capped(container, items, renderItem, noun) {
  let shown = 0;
  const more = () => {
    const next = items.slice(shown, shown + SHOWN);
    container.append(...next.map(renderItem));
    shown += next.length;
  };
  more();
  if (shown >= items.length) return [container];
  const button = h('button', { type: 'button', class: 'more', 'data-testid': 'show-more' });
  const label = () => {
    const rest = items.length - shown;
    button.textContent = `Show ${Math.min(SHOWN, rest).toLocaleString('en-US')} more of the ${rest.toLocaleString('en-US')} ${noun} not shown`;
  };
  label();
  button.addEventListener('click', () => {
    more();
    if (shown >= items.length) button.remove();
    else label();
  });
  return [container, button];
}

/** A table of `rows` (arrays of cells), SHOWN rows at first (capped). */
export function table(headers, rows, attrs = {}) {
  const body = h('tbody', {});
  const row = (r) => h('tr', {}, r.map((c, i) => h('td', { class: typeof r[i] === 'number' ? 'n' : null }, c)));
  const [, button] = capped(body, rows, row, 'rows');
  const el = h('table', attrs, h('thead', {}, h('tr', {}, headers.map((x) => h('th', { scope: 'col' }, x)))), body);
  return button ? h('div', { class: 'capped' }, el, button) : el;
}
