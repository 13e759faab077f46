// Test support: what a sealed site message (siteSeal.ts) says, read by a test's raw NATS client
// without checking the seal (the test plays a bridge of the site, or inspects what one sent).
export function sealedBody(data: Uint8Array): unknown {
  const envelope = JSON.parse(new TextDecoder().decode(data)) as { b: string };
  return JSON.parse(envelope.b);
}
