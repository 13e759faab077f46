// Imported first by every page entry (before anything that builds a protocol schema): turns off
// zod's JIT object parser. Its one-time probe calls `new Function`, which the bridge's CSP
// (script-src 'self', no 'unsafe-eval') forbids — zod catches the error and carries on, but the
// browser still reports a CSP violation on every page load. Parsing is identical either way.
// The probe runs when the first object schema is built, hence "first import" in each main.tsx.
import { config } from 'zod/v4/core';

config({ jitless: true });
