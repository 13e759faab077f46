// The AI's pointer as the person sees it: an arrow tagged "AI", hidden until placed. The live
// layer (AiPointerLayer) and the recordings player both draw this one, so a replay shows the
// hand the person saw live.
import type { Ref } from 'react';
import './aiPointer.css';

export function AiPointerMark({
  pointerRef,
  testId,
}: {
  pointerRef: Ref<HTMLDivElement>;
  testId: string;
}) {
  return (
    <div ref={pointerRef} className="ai-pointer" data-testid={testId} hidden>
      <svg width="22" height="26" viewBox="0 0 22 26">
        <path d="M1 1 L1 21 L6.5 16 L10 24.5 L13.5 23 L10 14.8 L17.5 14.8 Z" />
      </svg>
      <span className="ai-pointer__tag">AI</span>
    </div>
  );
}
