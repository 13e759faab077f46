// A card's thumbnail: the bridge's picture of the recording at the action's moment. The live
// timeline asks for it as the AI acts, when the recording's file may not hold that moment yet
// (the bridge answers 404, "no picture at that moment") or the bridge's renders are all busy
// (429): a failed load is asked again a few times, later each time, before the card gives up and
// shows it broken. Each retry adds `again=<n>` so the browser asks anew instead of reusing the
// failure.
import { useEffect, useRef, useState } from 'react';

/** How many times a failed thumbnail is asked again. */
export const THUMBNAIL_RETRIES = 4;
/** The wait before retry n (1-based) is n times this. */
export const THUMBNAIL_RETRY_STEP_MS = 750;

/** What to ask for on `attempt` (0 = the first time). */
export function thumbnailAttemptSrc(src: string, attempt: number): string {
  return attempt === 0 ? src : `${src}${src.includes('?') ? '&' : '?'}again=${String(attempt)}`;
}

/** How long to wait after `attempt` failed before the next one, or null: retries are spent. */
export function thumbnailRetryDelayMs(attempt: number): number | null {
  return attempt < THUMBNAIL_RETRIES ? THUMBNAIL_RETRY_STEP_MS * (attempt + 1) : null;
}

export function CardThumbnail({ src, width, alt }: { src: string; width: number; alt: string }) {
  const [attempt, setAttempt] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const failed = () => {
    const delay = thumbnailRetryDelayMs(attempt);
    if (delay === null) return;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setAttempt(attempt + 1), delay);
  };
  return (
    <img
      src={thumbnailAttemptSrc(src, attempt)}
      width={width}
      loading="lazy"
      alt={alt}
      onError={failed}
    />
  );
}
