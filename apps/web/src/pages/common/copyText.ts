// Copying to the clipboard from a button. Browsers allow it only on secure pages (https, or
// http on localhost/127.0.0.1); elsewhere the person is told to select and copy by hand.

export async function copyText(
  text: string,
  clipboard: Pick<Clipboard, 'writeText'> | undefined = globalThis.navigator?.clipboard,
): Promise<void> {
  if (clipboard === undefined) {
    throw new Error(
      'This browser allows copying only on https or localhost pages: select the text and press Ctrl+C (⌘C on a Mac).',
    );
  }
  try {
    await clipboard.writeText(text);
  } catch (thrown) {
    throw new Error(
      `The browser refused to copy (${thrown instanceof Error ? thrown.message : String(thrown)}): select the text and press Ctrl+C (⌘C on a Mac).`,
    );
  }
}
