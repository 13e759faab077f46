// The bridge's HTTP API as both apps see it: paths, request and answer schemas.
export * from './paths.js';
export * from './common.js';
export * from './auth.js';
export * from './people.js';
export * from './tokens.js';
export * from './audit.js';
export * from './settings.js';
export * from './layout.js';
export * from './tickets.js';
export * from './desktops.js';
export * from './files.js';
