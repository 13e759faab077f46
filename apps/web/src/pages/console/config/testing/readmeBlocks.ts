// Test support: the README's client configurations, read back from the fenced block after each
// `<!-- client-setup:<id> -->` marker (the unit test compares them with clientConfig.ts; the e2e
// test connects real MCP clients with them).

/** The address the README's blocks are written for (with the placeholders of clientConfig.ts). */
export const README_MCP_URL = 'http://127.0.0.1:8080/mcp';

export interface ReadmeBlock {
  language: string;
  body: string;
}

export function readmeClientBlocks(readme: string): Map<string, ReadmeBlock> {
  const blocks = new Map<string, ReadmeBlock>();
  const pattern = /<!-- client-setup:([\w-]+) -->\s*```(\w+)\n([\s\S]*?)\n```/g;
  for (const match of readme.matchAll(pattern)) {
    const [, id = '', language = '', body = ''] = match;
    if (blocks.has(id)) throw new Error(`the README has two client-setup:${id} blocks`);
    blocks.set(id, { language, body });
  }
  return blocks;
}
