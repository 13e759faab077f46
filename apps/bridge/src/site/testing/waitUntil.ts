// Test support: polls until a condition holds — for state that changes on another bridge of a
// site, which a test cannot await directly (it arrives over NATS).
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 2000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
