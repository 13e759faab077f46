// The connected AI clients, written out in the menu's "The AI" section: below 2560 px the bar has
// no room for them (styles.css), so this is where the person reads who is connected — every
// client on its own line, with its last call, rather than the bar's one cut-short label.
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { controlStore } from '../store/control.js';
import { useNow } from '../ui/useNow.js';
import { aiClientsTitle } from '../activity/aiClientsText.js';

export function MenuAiClients() {
  const { link, aiClients } = useStore(
    controlStore,
    useShallow(({ link, aiClients }) => ({ link, aiClients })),
  );
  const now = useNow(link === 'open' && aiClients.length > 0, 5_000);
  if (link !== 'open') return null;
  return (
    <ul className="client-menu__clients" data-testid="menu-ai-clients">
      {aiClientsTitle(aiClients, now)
        .split('\n')
        .map((line, index) => (
          <li key={index}>{line}</li>
        ))}
    </ul>
  );
}
