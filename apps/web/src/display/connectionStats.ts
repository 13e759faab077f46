// Live numbers for the person: frames per second the desktop is sending (Guacamole `sync`
// instructions), and input latency — from the person's mouse or key event leaving the page to
// the next frame arriving, which is what they feel. Published at most twice a second, never per
// frame, so the menu can render from it.
import { createStore } from 'zustand/vanilla';

export interface ConnectionStats {
  /** Frames in the last second; null while not connected. */
  fps: number | null;
  /** Median of recent input→frame times, ms; null until the person has used the desktop. */
  latencyMs: number | null;
}

export const statsStore = createStore<ConnectionStats>()(() => ({ fps: null, latencyMs: null }));

const PUBLISH_MS = 500;
const SAMPLES = 21;

let frames: number[] = [];
let pendingInputAt: number | null = null;
const latencies: number[] = [];
let lastPublish = 0;

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? null;
}

/** The person's input left the page (mouse or key sent to the desktop). */
export function inputSent(now = performance.now()): void {
  pendingInputAt ??= now;
}

/** A frame (sync) arrived from the desktop. */
export function frameArrived(now = performance.now()): void {
  frames.push(now);
  if (pendingInputAt !== null) {
    latencies.push(now - pendingInputAt);
    if (latencies.length > SAMPLES) latencies.shift();
    pendingInputAt = null;
  }
  if (now - lastPublish >= PUBLISH_MS) publish(now);
}

/** Publish the numbers as of `now` (also called once a second, so an idle desktop reads 0). */
export function publish(now = performance.now()): void {
  lastPublish = now;
  frames = frames.filter((t) => now - t <= 1000);
  const latency = median(latencies);
  const next = { fps: frames.length, latencyMs: latency === null ? null : Math.round(latency) };
  const current = statsStore.getState();
  if (current.fps !== next.fps || current.latencyMs !== next.latencyMs) statsStore.setState(next);
}

/** A new connection: forget the old one's numbers. */
export function statsReset(): void {
  frames = [];
  pendingInputAt = null;
  latencies.length = 0;
  statsStore.setState({ fps: 0, latencyMs: null });
}
