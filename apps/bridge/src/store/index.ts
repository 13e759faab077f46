// The bridge's storage layer, as the rest of the bridge imports it: openStore, the record and
// repository types, the data dir checks and the id minting for tokens.
export * from './types.js';
export { openStore, type OpenStoreOptions } from './openStore.js';
export {
  DATABASE_FILE,
  DataDirError,
  SECRET_FILES,
  prepareDataDir,
  restrictFile,
} from './dataDir.js';
export { newId, type IdPrefix } from './ids.js';
export { normalizeUsername } from './people.js';
export { measureAuditAppend } from './measure.js';
