// The import fences: ARCHITECTURE.md's "may import" table as lint rules, so a forbidden import
// fails `npm run lint` (and so `npm test`) instead of waiting for a reviewer. Each package or app
// may import only the ones of ours the table names; a relative path that climbs out of its
// package into another is refused as well. The fences are their own module so a test can lint a
// forbidden import with exactly these rules (scripts/lint/importFences.test.ts).

/**
 * Relative imports that climb into another package or app: inside a package nothing imports a
 * path through another `src/` (or through apps/ or packages/).
 */
const CLIMBING_OUT = ['**/src/**', '**/apps/**', '**/packages/**'];

/** Our packages, by the name they are imported with. */
const OURS = '@overlay-companion/*';

function fence(files, allowed, because) {
  return {
    files,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [OURS, ...allowed.map((name) => `!@overlay-companion/${name}`)],
              message: because,
            },
            { group: CLIMBING_OUT, message: because },
          ],
        },
      ],
    },
  };
}

export const importFences = [
  fence(
    ['packages/protocol/src/**/*.ts'],
    [],
    'packages/protocol imports zod only (ARCHITECTURE.md "may import"): everything else depends on it.',
  ),
  fence(
    ['packages/guac/src/**/*.ts'],
    [],
    'packages/guac imports nothing of ours (ARCHITECTURE.md "may import").',
  ),
  fence(
    ['packages/gateway/src/**/*.ts'],
    ['guac'],
    'packages/gateway imports only @overlay-companion/guac of ours (ARCHITECTURE.md "may import").',
  ),
  fence(
    ['packages/recording/src/**/*.ts'],
    ['guac'],
    'packages/recording imports only @overlay-companion/guac of ours (ARCHITECTURE.md "may import"); its tests may also use the gateway (see the next fence).',
  ),
  fence(
    ['packages/recording/src/**/*.test.ts', 'packages/recording/src/testing/**/*.ts'],
    ['guac', 'gateway'],
    'packages/recording tests may use @overlay-companion/guac and the gateway (its testing helpers start real desktops), nothing else of ours.',
  ),
  fence(
    ['apps/web/src/**/*.{ts,tsx}'],
    ['protocol'],
    'apps/web imports only @overlay-companion/protocol of ours, never bridge or gateway code (ARCHITECTURE.md "may import").',
  ),
  fence(
    ['apps/bridge/src/**/*.ts'],
    ['protocol', 'guac', 'gateway', 'recording'],
    'apps/bridge imports protocol, guac, gateway and recording of ours, never the web app or the test kit (ARCHITECTURE.md "may import").',
  ),
];
