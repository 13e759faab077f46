// Which of the server's instructions are drawing: passed through to the recording as they are
// while no mask is in force (`blob` and `end` pass only for image streams), and which of them
// change the picture (the pointer's moves and shape do not: they need no new keyframe).

/** The server's drawing instructions. */
export const DRAWING = new Set([
  'size',
  'img',
  'copy',
  'transfer',
  'rect',
  'cfill',
  'dispose',
  'cursor',
  'mouse',
  'shade',
  'move',
  'set',
  'distort',
  'arc',
  'curve',
  'line',
  'start',
  'close',
  'clip',
  'cstroke',
  'lstroke',
  'lfill',
  'push',
  'pop',
  'reset',
  'identity',
  'transform',
]);

/** Whether `opcode` changes the picture (a keyframe is due after it, by the rule). */
export function drawsPicture(opcode: string): boolean {
  return DRAWING.has(opcode) && opcode !== 'mouse' && opcode !== 'cursor';
}
