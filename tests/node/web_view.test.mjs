// web/pte_view.mjs: the rows the page's worker builds from a decoded .pte
// and a conversion's metadata (the page receives these, not the decoded
// objects): exact rows for a reference .pte, BigInt-exact JSON, and the
// fallbacks for an instruction without text and a value list.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { jsonText, memoryView, pteView, valueText } from '../../web/pte_view.mjs';
import { pteforge, repo } from './helpers.mjs';

test('pteView of arduino_add_model.pte: its plan as rows of text', async () => {
  const pf = await pteforge();
  const decoded = await pf.decodePte(readFileSync(repo('tests/data/reference/pte/arduino_add_model.pte')));
  const view = pteView(decoded);
  assert.equal(view.file.identifier, 'ET12');
  assert.equal(view.file.size, 1156);
  assert.deepEqual(view.plans, [{
    name: 'forward',
    inputs: [1],
    outputs: [2],
    buffers: [0, 32],
    operators: [[0, 'aten::add', 'out']],
    instructions: ['aten::add.out(%1, %0, %3, %2, %2)'],
    values: [
      [0, 'Tensor', 'FLOAT[] 4B const#1'],
      [1, 'Tensor', 'FLOAT[3] 12B @mem1+16'],
      [2, 'Tensor', 'FLOAT[3] 12B @mem1+0'],
      [3, 'Int', '1'],
    ],
  }]);
});

test('jsonText writes integers past 2^53 with all their digits', () => {
  assert.equal(jsonText({ a: 9007199254740993n, b: [-12345678901234567890n, 1.5, 'x'] }),
    '{"a":9007199254740993,"b":[-12345678901234567890,1.5,"x"]}');
  // A string that looks like the marker stays a string.
  assert.equal(jsonText(['\u0000' + '12']), '["\\u000012"]');
});

test('valueText: lists, scalars, unknown values; pteView: an instruction without text', () => {
  assert.equal(valueText({ type: 'IntList', items: [1, 2, 9007199254740993n] }), '[1,2,9007199254740993]');
  assert.equal(valueText({ type: 'Bool', value: false }), 'false');
  assert.equal(valueText({ type: 'Null' }), '');
  assert.equal(valueText({ type: 'Tensor', scalar_type: 'LONG', sizes: [4], nbytes: 32 }), 'LONG[4] 32B');
  const view = pteView({ execution_plan: [{ name: 'm', chains: [{ instructions: [{ type: 'JumpFalseCall', cond_value_index: 3 }] }] }] });
  assert.deepEqual(view.plans[0].instructions, ['JumpFalseCall {"type":"JumpFalseCall","cond_value_index":3}']);
  assert.deepEqual(view.plans[0].values, []);
  assert.deepEqual(view.file, {});
});

test('memoryView keeps each method\'s name and memory plan only', () => {
  const plan = { algorithm: 'greedy', tensors: [{ value: 1, offset: 0, size: 16, mem_id: 1, lifetime: [0, 2] }] };
  assert.deepEqual(memoryView({ methods: [{ name: 'forward', memory_plan: plan, debug_handle_map: { 0: 1 } }] }),
    [{ name: 'forward', memory_plan: plan }]);
  assert.deepEqual(memoryView(undefined), []);
});
