// The result views of a conversion, built from the documented result shape
// (wasm/types/index.d.ts ConvertResult; the metadata JSON of
// core/emit/metadata_json.h): the pass report table and the memory plan chart.

import { formatBytes, h, s, table } from './dom.mjs';

/** The pass report: per (method, pass) its result, time, node counts and counters; then diagnostics. */
export function renderReport(report) {
  const passes = report?.passes ?? [];
  const rows = passes.map((p) => [p.method ?? '', p.name, p.skipped ? 'skipped' : (p.changed ? 'changed' : '—'),
    Number(p.ms ?? 0).toFixed(2), p.nodes_before ?? 0, p.nodes_after ?? 0,
    Object.entries(p.stats ?? {}).map(([k, v]) => `${k}=${v}`).join(' ')]);
  const diags = (report?.diagnostics ?? []).map((d) => h('li', {}, [d.severity, d.code, d.message ?? JSON.stringify(d)].filter((x) => x !== undefined && x !== null && x !== '').join(' ')));
  return h('div', {}, h('h3', {}, 'Pass report'),
    table(['method', 'pass', 'result', 'ms', 'nodes before', 'nodes after', 'stats'], rows, { 'data-testid': 'pass-report' }),
    diags.length ? h('ul', { class: 'warnings' }, diags) : null);
}

/**
 * The memory plan of one method as an SVG chart: each planned tensor a bar
 * over its lifetime (x, node indices, inclusive) and byte range (y, offset to
 * offset + size in its pool), with the arena size against the lower bound
 * (metadata.methods[].memory_plan of core/emit/metadata_json.h).
 */
export function renderMemory(method) {
  const MAX_BARS = 2000;
  const plan = method.memory_plan;
  if (!plan?.tensors?.length) return h('p', { class: 'note' }, `${method.name}: no planned tensors.`);
  const arena = (plan.non_const_buffer_sizes ?? []).reduce((a, b) => a + b, 0);
  const bound = (plan.lower_bound ?? []).reduce((a, b) => a + b, 0);
  const lastStep = Math.max(1, ...plan.tensors.map((t) => t.lifetime[1] + 1));
  const top = Math.max(1, arena, ...plan.tensors.map((t) => t.offset + t.size));
  const W = 720, H = 260, L = 70, B = 24;
  const x = (i) => L + (i / lastStep) * (W - L - 10);
  const y = (b) => H - B - (b / top) * (H - B - 10);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'memchart', role: 'img', 'aria-label': `memory plan of ${method.name}`, 'data-testid': 'memory-chart' });
  svg.append(s('line', { x1: L, y1: H - B, x2: W - 10, y2: H - B, class: 'axis' }), s('line', { x1: L, y1: 10, x2: L, y2: H - B, class: 'axis' }));
  svg.append(s('text', { x: L - 4, y: H - B, 'text-anchor': 'end', class: 'label' }, '0'), s('text', { x: L - 4, y: y(top) + 10, 'text-anchor': 'end', class: 'label' }, `${top} B`));
  svg.append(s('text', { x: (W + L) / 2, y: H - 6, 'text-anchor': 'middle', class: 'label' }, 'lifetime (node index) →'));
  svg.append(s('text', { x: L, y: H - 8, 'text-anchor': 'start', class: 'label' }, '0'), s('text', { x: W - 10, y: H - 8, 'text-anchor': 'end', class: 'label' }, String(lastStep)));
  // The largest MAX_BARS tensors (by bytes) are drawn: an SVG of tens of
  // thousands of bars blocked the page for seconds.
  const drawn = plan.tensors.length > MAX_BARS
    ? new Set([...plan.tensors].sort((a, b) => b.size - a.size).slice(0, MAX_BARS))
    : null;
  plan.tensors.forEach((t, i) => {
    if (drawn && !drawn.has(t)) return;
    const rect = s('rect', { x: x(t.lifetime[0]), y: y(t.offset + t.size), width: Math.max(2, x(t.lifetime[1] + 1) - x(t.lifetime[0])), height: Math.max(1.5, y(t.offset) - y(t.offset + t.size)), class: `bar c${i % 6}` });
    rect.append(s('title', {}, `${(t.names ?? []).join(', ') || `value ${t.value}`}: ${t.size} B at mem${t.mem_id}+${t.offset}, lifetime ${t.lifetime[0]}–${t.lifetime[1]}`));
    svg.append(rect);
  });
  if (bound > 0) {
    svg.append(s('line', { x1: L, x2: W - 10, y1: y(bound), y2: y(bound), class: 'bound' }));
    svg.append(s('text', { x: W - 12, y: y(bound) < 24 ? y(bound) + 12 : y(bound) - 3, 'text-anchor': 'end', class: 'label' }, `lower bound ${bound} B`));
  }
  return h('div', { class: 'memory' }, h('h3', {}, 'Memory plan ', h('code', {}, method.name)),
    h('p', { class: 'meta', 'data-testid': 'arena' }, `${plan.algorithm ?? ''}: arena ${formatBytes(arena)}, lower bound ${formatBytes(bound)}${bound ? `, ratio ${(arena / bound).toFixed(3)}` : ''}; ${plan.tensors.length} planned tensors${drawn ? ` (the ${MAX_BARS.toLocaleString('en-US')} largest drawn)` : ''}`),
    svg);
}
