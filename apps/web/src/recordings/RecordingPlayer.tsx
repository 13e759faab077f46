// The player of one recording: the recorded screen (Guacamole.SessionRecording's display, scaled
// to fit), the AI's overlays painted over it with the overlay layer's own shapes (overlaysOnCanvas.ts)
// and the AI's pointer marked at each click, both read from the event track at the moment shown;
// under it the controls — play/pause, the seek bar with markers for AI actions, approvals and
// Stop, the speed (1×–16×) and "skip idle". Keys on the player: space plays or pauses, ←/→ seek
// 5 s, [ and ] change the speed, Home/End go to the start and end. The overlays, the pointer and
// the display follow the playback through subscriptions, never through React renders.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { drawOverlaysOnCanvas } from '../overlay/overlaysOnCanvas.js';
import { AiPointerMark } from '../overlay/AiPointerMark.js';
import { clockTime } from '../pages/common/time.js';
import { SPEEDS, type Playback, type PlaybackState, type Speed } from './playback.js';
import { formatElapsed } from './recordingText.js';
import { usePlaybackValue } from './usePlayback.js';
import type { PlayerEvent } from './recordingsWire.js';
import { overlaysAt, pointerAt, seekMarkers } from './timeline.js';

const SEEK_STEP_MS = 5_000;

export interface RecordingPlayerProps {
  playback: Playback;
  events: readonly PlayerEvent[];
  /** Names the player for assistive technology ("Recording of Office, 24 Nov 10:12"). */
  label: string;
}

export function RecordingPlayer({ playback, events, label }: RecordingPlayerProps) {
  const stage = useRef<HTMLDivElement>(null);
  const screen = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const pointer = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0, scale: 1 });

  // The display: mounted once, rescaled to fit the stage whenever either changes size.
  useEffect(() => {
    const host = screen.current;
    const area = stage.current;
    if (host === null || area === null) return undefined;
    const display = playback.recording.getDisplay();
    const element = display.getElement();
    element.classList.add('player__display');
    host.prepend(element);
    const fit = () => {
      const width = display.getWidth();
      const height = display.getHeight();
      if (width <= 0 || height <= 0) return;
      playback.screenSized(width, height);
      const scale = Math.min(area.clientWidth / width, area.clientHeight / height);
      display.scale(scale);
      setSize((old) =>
        old.width === width && old.height === height && old.scale === scale
          ? old
          : { width, height, scale },
      );
    };
    display.onresize = fit;
    const observer = new ResizeObserver(fit);
    observer.observe(area);
    fit();
    return () => {
      observer.disconnect();
      display.onresize = null;
      element.remove();
    };
  }, [playback]);

  // The AI's overlays and pointer at the moment shown, repainted only when they change.
  useEffect(() => {
    const layer = canvas.current;
    const mark = pointer.current;
    const context = layer?.getContext('2d') ?? null;
    if (layer === null || mark === null || context === null || size.width === 0) return undefined;
    const ratio = window.devicePixelRatio || 1;
    layer.width = Math.round(size.width * size.scale * ratio);
    layer.height = Math.round(size.height * size.scale * ratio);
    let shownKey: string | null = null;
    const paint = ({ at }: PlaybackState) => {
      const overlays = overlaysAt(events, at);
      const key = overlays.map((o) => o.overlay_id).join('\n');
      if (key !== shownKey) {
        shownKey = key;
        context.setTransform(1, 0, 0, 1, 0, 0);
        context.clearRect(0, 0, layer.width, layer.height);
        context.setTransform(ratio, 0, 0, ratio, 0, 0);
        const region = { x: 0, y: 0, width: size.width, height: size.height };
        drawOverlaysOnCanvas(context, overlays, region, size.scale);
        layer.dataset.overlayCount = String(overlays.length);
      }
      const point = pointerAt(events, at);
      mark.hidden = point === null;
      if (point !== null) {
        const x = (point.x + 0.5) * size.scale;
        const y = (point.y + 0.5) * size.scale;
        mark.style.transform = `translate(${x}px, ${y}px)`;
        mark.dataset.x = String(point.x);
        mark.dataset.y = String(point.y);
      }
    };
    paint(playback.getState());
    return playback.subscribe(paint);
  }, [playback, events, size]);

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    const target = event.target as HTMLElement;
    const inControl = target.matches('input, select, textarea, button, a');
    const { at, start, end } = playback.getState();
    switch (event.key) {
      case ' ':
        if (inControl && !target.matches('input[type="range"]')) return;
        playback.toggle();
        break;
      case 'ArrowLeft':
        playback.seek(at - SEEK_STEP_MS);
        break;
      case 'ArrowRight':
        playback.seek(at + SEEK_STEP_MS);
        break;
      case '[':
        playback.stepSpeed(-1);
        break;
      case ']':
        playback.stepSpeed(1);
        break;
      case 'Home':
        playback.seek(start);
        break;
      case 'End':
        playback.seek(end);
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  return (
    <section
      className="player"
      aria-label={label}
      aria-keyshortcuts="Space ArrowLeft ArrowRight [ ] Home End"
      onKeyDown={onKeyDown}
      data-testid="recording-player"
    >
      {/* Focusable, so a click on the picture puts the player's keys under the person's hand. */}
      <div
        className="player__stage"
        ref={stage}
        tabIndex={0}
        role="img"
        aria-label="The recorded screen. Keys: Space plays or pauses, left and right arrows move 5 seconds, [ and ] change the speed, Home and End go to the start and the end."
        data-testid="player-stage"
        style={size.width > 0 ? { aspectRatio: `${size.width} / ${size.height}` } : undefined}
      >
        <div
          className="player__screen"
          ref={screen}
          data-testid="player-screen"
          style={{ width: size.width * size.scale, height: size.height * size.scale }}
        >
          <canvas
            className="player__overlays"
            ref={canvas}
            data-testid="player-overlays"
            aria-hidden="true"
            style={{ width: size.width * size.scale, height: size.height * size.scale }}
          />
          <div className="ai-pointer-layer player__pointer-layer" aria-hidden="true">
            <AiPointerMark pointerRef={pointer} testId="player-pointer" />
          </div>
        </div>
      </div>
      <PlayerControls playback={playback} events={events} />
    </section>
  );
}

function PlayerControls({
  playback,
  events,
}: {
  playback: Playback;
  events: readonly PlayerEvent[];
}) {
  const state = usePlaybackValue(playback, (s) => s);
  const { at, start, end, playing, speed } = state;
  const markers = seekMarkers(events, start, end);
  const position = `${formatElapsed(at - start)} of ${formatElapsed(end - start)}`;
  return (
    <div className="player__controls">
      <button
        type="button"
        className="button player__play"
        aria-label={playing ? 'Pause' : 'Play'}
        aria-keyshortcuts="Space"
        onClick={() => playback.toggle()}
        data-testid="player-play"
      >
        {playing ? '❚❚ Pause' : '▶ Play'}
      </button>
      <span className="player__time" data-testid="player-time">
        <span className="player__elapsed">{position}</span>{' '}
        {/* The time of day this moment happened: "(13:37)" alone read like a second length. */}
        <span className="muted" title="The time of day this moment was recorded">
          · at {clockTime(at)}
        </span>
      </span>
      <div className="seekbar">
        <div className="seekbar__markers" aria-hidden="true">
          {markers.map((marker, i) => (
            <span
              key={i}
              className={`seekbar__marker seekbar__marker--${marker.kind}`}
              style={{ left: `${marker.at * 100}%` }}
              title={marker.label}
              data-testid="seek-marker"
              data-kind={marker.kind}
            />
          ))}
        </div>
        <input
          type="range"
          className="seekbar__range"
          aria-label="Position in the recording"
          aria-valuetext={position}
          min={start}
          max={Math.max(end, start + 1)}
          step={100}
          value={at}
          onChange={(event) => playback.seek(Number(event.target.value))}
          data-testid="player-seek"
          data-at={Math.round(at)}
        />
      </div>
      <label className="player__speed">
        Speed{' '}
        <select
          value={speed}
          aria-keyshortcuts="[ ]"
          onChange={(event) => playback.setSpeed(Number(event.target.value) as Speed)}
          data-testid="player-speed"
        >
          {SPEEDS.map((s) => (
            <option key={s} value={s}>
              {s}×
            </option>
          ))}
        </select>
      </label>
      <label className="player__skip">
        <input
          type="checkbox"
          checked={state.skipIdle}
          onChange={(event) => playback.setSkipIdle(event.target.checked)}
          data-testid="player-skip-idle"
        />{' '}
        Skip idle
      </label>
    </div>
  );
}
