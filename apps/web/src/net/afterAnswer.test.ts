// afterAnswer: messages queued during a task are sent after its synchronous code (the answer),
// all of them, in order, and each task's batch on its own.
import { describe, expect, it } from 'vitest';
import { afterAnswer } from './afterAnswer.js';

describe('afterAnswer', () => {
  it('sends what a task queued after its synchronous code, in order', async () => {
    const wire: string[] = [];
    const broadcast = afterAnswer((m: string) => wire.push(m));
    broadcast('overlay_created 1');
    broadcast('overlay_created 2');
    wire.push('tool_result');
    expect(wire).toEqual(['tool_result']);
    await Promise.resolve();
    expect(wire).toEqual(['tool_result', 'overlay_created 1', 'overlay_created 2']);

    broadcast('overlay_removed 1');
    wire.push('tool_result');
    await Promise.resolve();
    expect(wire.slice(3)).toEqual(['tool_result', 'overlay_removed 1']);
  });
});
