// Entry point: starts the remote-display session (outside React, so renders never reconnect
// it) and renders the viewer.
// First: must run before any protocol schema is built (see net/cspSafeZod.ts).
import './net/cspSafeZod.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { browserSession } from './display/guacBrowser.js';
import { watchAttention } from './ui/attention.js';
import { confirmationStore } from './store/pendingConfirmations.js';
import { controlStore } from './store/control.js';
import './theme.css';
import './styles.css';
import './confirm/confirmPanel.css';
import './ui/accountMenu.css';

const rootElement = document.getElementById('root');
if (!rootElement)
  throw new Error('index.html must contain <div id="root"> for the viewer to mount.');

watchAttention(confirmationStore, controlStore, document);
const session = browserSession();
session.start();
// Leaving the page closes the tunnel at once instead of waiting for the server's timeout.
window.addEventListener('pagehide', () => session.stop());

createRoot(rootElement).render(
  <StrictMode>
    <App session={session} />
  </StrictMode>,
);
