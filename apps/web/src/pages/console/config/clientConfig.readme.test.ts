// The README's client configurations are the /config page's: every client the page offers has
// its block in the README (after a `<!-- client-setup:<id> -->` marker), with the same text for
// http://127.0.0.1:8080/mcp and the placeholders (JSON compared as data, commands as text).
import { describe, expect, it } from 'vitest';
import { clientSetups } from './clientConfig.js';
import { README_MCP_URL as README_URL, readmeClientBlocks } from './testing/readmeBlocks.js';
import readme from '../../../../../../README.md?raw';

describe('README client configurations', () => {
  const blocks = readmeClientBlocks(readme);

  it('has exactly the clients the page offers', () => {
    expect([...blocks.keys()]).toEqual(clientSetups(README_URL).map((setup) => setup.id));
  });

  for (const setup of clientSetups(README_URL)) {
    it(`shows the page's ${setup.client} configuration`, () => {
      const block = blocks.get(setup.id);
      expect(block, `README block client-setup:${setup.id}`).toBeDefined();
      expect(block?.language).toBe(setup.language);
      if (setup.language === 'json') {
        expect(JSON.parse(block?.body ?? '')).toEqual(JSON.parse(setup.text));
      } else {
        expect(block?.body).toBe(setup.text);
      }
    });
  }
});
