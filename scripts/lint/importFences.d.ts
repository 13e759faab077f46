// Types of importFences.js (a plain ES module, as eslint.config.js imports it).
import type { Linter } from 'eslint';

export declare const importFences: Linter.Config[];
