// What the page shows of a decoded .pte and of a conversion's metadata,
// built in the worker: plain rows of strings and numbers. A 30k-node
// program decodes to hundreds of thousands of small objects, and sending
// them to the page (a structured clone, read on the page's thread) and
// turning them into rows there blocked the page for over a second; rows of
// strings are cheap to send, and the downloads travel as Blobs.

/** JSON.stringify that writes a BigInt (an integer past 2^53) as its digits. */
export function jsonText(value) {
  return JSON.stringify(value, (_, x) => (typeof x === 'bigint' ? `\u0000${x}\u0000` : x))
    .replace(/"\\u0000(-?\d+)\\u0000"/g, '$1');
}

/**
 * One EValue of a decoded plan as text: a tensor as "Float[2, 3] 24B @mem1+64"
 * (planned) or "... const#3" (constant data), a scalar or list as its JSON.
 */
export function valueText(v) {
  if (v.type === 'Tensor') {
    const alloc = v.allocation_info ? ` @mem${v.allocation_info.memory_id}+${v.allocation_info.memory_offset}` : (v.data_buffer_idx ? ` const#${v.data_buffer_idx}` : '');
    return `${v.scalar_type}[${(v.sizes ?? []).join(', ')}] ${v.nbytes ?? ''}B${alloc}`;
  }
  if ('value' in v) return jsonText(v.value);
  if ('items' in v) return jsonText(v.items);
  return '';
}

/**
 * The page's view of a decoded .pte (the object form of decodePte):
 * {file, plans: [{name, inputs, outputs, buffers, operators: [[index, name,
 * overload]], instructions: [text], values: [[index, type, text]]}]}.
 */
export function pteView(decoded) {
  return {
    file: decoded.file ?? {},
    plans: (decoded.execution_plan ?? []).map((plan) => ({
      name: plan.name,
      inputs: plan.inputs ?? [],
      outputs: plan.outputs ?? [],
      buffers: plan.non_const_buffer_sizes ?? [],
      operators: (plan.operators ?? []).map((o) => [o.index, o.name, o.overload]),
      instructions: (plan.chains ?? []).flatMap((c) => c.instructions).map((i) => i.text ?? `${i.type} ${jsonText(i)}`),
      values: (plan.values ?? []).map((v) => [v.index, v.type, valueText(v)]),
    })),
  };
}

/** What the page draws of a conversion's metadata: per method its name and memory plan. */
export function memoryView(metadata) {
  return (metadata?.methods ?? []).map((m) => ({ name: m.name, memory_plan: m.memory_plan }));
}
