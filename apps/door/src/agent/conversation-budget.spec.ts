import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConversationMessage } from './conversation.js';
import { elidedText, keepWithinBudget } from './conversation-budget.js';

const assistant = (text: string, thinking = ''): ConversationMessage => ({
  role: 'assistant',
  text,
  thinking: thinking ? [{ text: thinking, signature: 's' }] : [],
  toolCalls: [],
});
const task = (text: string): ConversationMessage => ({ role: 'user', origin: 'task', content: [{ type: 'text', text }] });

test('a transcript within the budget is left as it is', () => {
  const messages = [task('t'.repeat(10)), assistant('a'.repeat(40)), assistant('b'.repeat(40))];
  assert.equal(keepWithinBudget(messages, 100), 0);
  assert.equal((messages[1] as { text: string }).text, 'a'.repeat(40));
});

test('past the budget the oldest texts are elided, never the task nor the newest two messages', () => {
  const messages = [
    task('t'.repeat(50)),
    assistant('a'.repeat(100), 'think'),
    assistant('b'.repeat(100)),
    assistant('c'.repeat(100)),
    assistant('d'.repeat(100)),
  ];
  const elided = keepWithinBudget(messages, 300);
  assert.equal(messages[0].role === 'user' && messages[0].content[0].type === 'text' && messages[0].content[0].text, 't'.repeat(50));
  const texts = messages.slice(1).map((m) => (m.role === 'assistant' ? m.text : ''));
  assert.deepEqual(texts, [elidedText(100, 300), elidedText(100, 300), 'c'.repeat(100), 'd'.repeat(100)]);
  assert.deepEqual(messages[1].role === 'assistant' && messages[1].thinking, []);
  assert.equal(elided, 2 * 100 + 5 - 2 * elidedText(100, 300).length);
});

test('tool results are elided in place, their ids and order kept; an elided text is not elided again', () => {
  const tool: ConversationMessage = {
    role: 'tool',
    results: [{ toolCallId: 'c1', name: 'bash', content: 'x'.repeat(500), isError: false, outcome: { isError: false } as never }],
  };
  const messages = [task('t'), tool, assistant('a'.repeat(10)), assistant('b'.repeat(10))];
  keepWithinBudget(messages, 100);
  assert.ok(tool.role === 'tool');
  assert.equal(tool.results[0].toolCallId, 'c1');
  assert.equal(tool.results[0].content, elidedText(500, 100));
  assert.equal(keepWithinBudget(messages, 100), 0);
  assert.equal(tool.results[0].content, elidedText(500, 100));
});
