// Entry of signin.html, the one page the bridge serves without sign-in (/signin and /setup).
// It loads nothing of the viewer or the console: only what these forms need.
// First: must run before any protocol schema is built (see net/cspSafeZod.ts).
import '../../net/cspSafeZod.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { SignInApp } from './SignInApp.js';
import '../../theme.css';
import '../pages.css';

const rootElement = document.getElementById('root');
if (!rootElement)
  throw new Error('signin.html must contain <div id="root"> for the page to mount.');

createRoot(rootElement).render(
  <StrictMode>
    <SignInApp location={window.location} />
  </StrictMode>,
);
