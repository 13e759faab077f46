// Entry of console.html: the signed-in person's pages (Config & tokens, Monitor layout, Settings,
// Audit, People).
// First: must run before any protocol schema is built (see net/cspSafeZod.ts).
import '../../net/cspSafeZod.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ConsoleApp } from './ConsoleApp.js';
import '../../theme.css';
import '../pages.css';

const rootElement = document.getElementById('root');
if (!rootElement)
  throw new Error('console.html must contain <div id="root"> for the page to mount.');

createRoot(rootElement).render(
  <StrictMode>
    <ConsoleApp />
  </StrictMode>,
);
