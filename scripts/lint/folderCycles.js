// No import cycles between the folders of a source tree (apps/bridge/src): each folder is one
// node, and each file at the top of the tree is a node of its own. Root files are not lumped into
// one "root" node because they sit at both ends of the layering — config.ts, errors.ts and
// logger.ts are imported by every folder, while bridge.ts and index.ts import every folder — so a
// single node would make every folder a cycle with them and the rule would say nothing; one node
// per root file still catches config.ts importing a folder that imports config.ts.
// Tests (`*.test.ts`) and test-only helpers (any `testing/` folder) are left out of the graph:
// they assemble the whole bridge to drive it, so they import upwards by design, and nothing the
// bridge ships may import them (a production file importing one is reported as well).
// Used by folderCycles.test.ts, which runs it on the real tree inside `npm test` and on fixtures.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const isTestOnly = (rel) =>
  /\.test\.tsx?$/.test(rel) || rel.split('/').includes('testing') || rel.endsWith('.d.ts');

function sourceFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.tsx?$/.test(entry.name)) out.push(full);
  }
  return out;
}

/** The graph node of a path relative to the root: its top folder, or the root file itself. */
function nodeOf(rel) {
  const parts = rel.split('/');
  return parts.length === 1 ? parts[0].replace(/\.tsx?$/, '.ts') : `${parts[0]}/`;
}

/** The files a source imports relatively (static, re-exports, dynamic), resolved to .ts paths. */
function relativeImports(file) {
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((i) => i.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
}

/**
 * The folder graph of `root`: for each edge `from -> to`, one file import that makes it (to name
 * it in a failure). Also the production files that import test-only code.
 */
export function folderGraph(root) {
  const edges = new Map();
  const testImports = [];
  for (const file of sourceFiles(root)) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    if (isTestOnly(rel)) continue;
    for (const target of relativeImports(file)) {
      const targetRel = path.relative(root, target).split(path.sep).join('/');
      if (targetRel.startsWith('..')) continue;
      if (isTestOnly(targetRel)) testImports.push(`${rel} imports ${targetRel}`);
      const from = nodeOf(rel);
      const to = nodeOf(targetRel);
      if (from === to) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      const byTarget = edges.get(from);
      if (!byTarget.has(to)) byTarget.set(to, `${rel} imports ${targetRel}`);
    }
  }
  return { edges, testImports };
}

/**
 * Every cycle between folders, as its strongly connected component (Tarjan) with one shortest
 * loop through it spelled out file by file.
 */
export function folderCycles(root) {
  const { edges, testImports } = folderGraph(root);
  const nodes = [
    ...new Set([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])]),
  ].sort();
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of [...(edges.get(v)?.keys() ?? [])].sort()) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);

  const cycles = components.map((members) => {
    const inside = new Set(members);
    // Shortest loop from the first member back to itself, staying inside the component.
    const start = members[0];
    const previous = new Map([[start, undefined]]);
    const queue = [start];
    let closing;
    while (queue.length > 0 && closing === undefined) {
      const v = queue.shift();
      for (const w of [...(edges.get(v)?.keys() ?? [])].sort()) {
        if (!inside.has(w)) continue;
        if (w === start) {
          closing = v;
          break;
        }
        if (!previous.has(w)) {
          previous.set(w, v);
          queue.push(w);
        }
      }
    }
    const loop = [];
    for (let v = closing; v !== undefined; v = previous.get(v)) loop.unshift(v);
    loop.push(start);
    const because = loop.slice(1).map((to, i) => edges.get(loop[i]).get(to));
    return { members, loop, because };
  });
  return { cycles, testImports };
}

/** The failure text: each cycle as `a -> b -> a` with the import that makes each step. */
export function describeCycles({ cycles, testImports }) {
  const lines = [];
  for (const { members, loop, because } of cycles) {
    lines.push(
      `import cycle between folders: ${loop.join(' -> ')} (folders in it: ${members.join(' ')})`,
    );
    for (const step of because) lines.push(`  ${step}`);
  }
  for (const t of testImports) lines.push(`shipped code imports test-only code: ${t}`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = folderCycles(path.resolve(process.argv[2] ?? 'apps/bridge/src'));
  const text = describeCycles(found);
  if (text) {
    console.error(text);
    process.exit(1);
  }
}
