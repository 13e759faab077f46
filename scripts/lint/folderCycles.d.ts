// Types of folderCycles.js (a plain ES module, run by node as a command as well).

export interface FolderGraph {
  /** from node -> to node -> one `file imports file` that makes the edge. */
  edges: Map<string, Map<string, string>>;
  /** Shipped files that import a test or a `testing/` helper, as `file imports file`. */
  testImports: string[];
}

export interface FolderCycle {
  /** The folders (`name/`) and root files (`name.ts`) of one strongly connected component. */
  members: string[];
  /** One shortest loop through it, first node repeated at the end. */
  loop: string[];
  /** For each step of the loop, the import that makes it. */
  because: string[];
}

export declare function folderGraph(root: string): FolderGraph;
export declare function folderCycles(root: string): {
  cycles: FolderCycle[];
  testImports: string[];
};
export declare function describeCycles(found: {
  cycles: FolderCycle[];
  testImports: string[];
}): string;
