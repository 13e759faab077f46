// What the chrome says about a desktop's people, from desktop_state, in words for someone who
// read no docs: who is in charge of the AI (only their AI acts, they answer its requests), what
// this person may do here, who is watching, and the charge choices with the message each sends.
import type { ChargeMessage, DesktopAccessLevel } from '@overlay-companion/protocol';
import type { DesktopPeople } from '../store/desktopState.js';

/** The status bar's short line. */
export function chargeLabel(people: DesktopPeople): string {
  return people.you.in_charge ? 'You are in charge' : `AI in charge: ${people.in_charge.name}`;
}

/** What being in charge means here, for this person. */
export function chargeExplanation(people: DesktopPeople): string {
  if (people.you.in_charge) {
    return 'You are in charge of the AI here: only your AI may act on this desktop, and you answer its requests. Everyone watching can still press Stop.';
  }
  const name = people.in_charge.name;
  return `${name} is in charge of the AI here: only ${name}’s AI may act, and ${name} answers its requests. Stop still works for you.`;
}

const ACCESS_TEXT: Record<DesktopAccessLevel, string> = {
  owner: 'This is your desktop.',
  admin: 'You administer this desktop.',
  control: 'You may use this desktop’s mouse and keyboard.',
  view: 'View only: you may watch, but your mouse and keyboard never reach this desktop.',
};

/** What this person may do here, and how they could come to be in charge. */
export function accessText(people: DesktopPeople): string {
  const { access, in_charge, may_take_charge } = people.you;
  const base = ACCESS_TEXT[access];
  if (in_charge || access === 'view') return base;
  return may_take_charge
    ? `${base} You may take the charge at any time.`
    : `${base} ${people.in_charge.name} may hand you the charge.`;
}

/** "Watching: Ada, Bob and 3 more"; the first `listed` names, the rest counted. */
export function watchingText(people: DesktopPeople, listed = people.watchers.length): string {
  const names = people.watchers.slice(0, listed).map((w) => w.name);
  const more = people.watchers.length - names.length + people.more_watchers;
  if (names.length === 0) return more > 0 ? `Watching: ${more}` : 'Nobody else is watching';
  return `Watching: ${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

export interface ChargeChoice {
  key: string;
  label: string;
  /** The button's tooltip: what happens when it is pressed. */
  title: string;
  message: ChargeMessage;
}

/** The charge buttons this person gets: Take charge, and one Hand over per person they may. */
export function chargeChoices(people: DesktopPeople): ChargeChoice[] {
  const { you, in_charge } = people;
  const choices: ChargeChoice[] = [];
  if (you.may_take_charge && !you.in_charge) {
    choices.push({
      key: 'take',
      label: 'Take charge',
      title: `Make your AI the one that may act here; you answer its requests instead of ${in_charge.name}.`,
      message: { type: 'charge', action: 'take' },
    });
  }
  for (const person of you.may_hand_over_to) {
    choices.push({
      key: `hand_over:${person.id}`,
      label: `Hand over to ${person.name}`,
      title: `${person.name}’s AI becomes the one that may act here, and ${person.name} answers its requests.`,
      message: { type: 'charge', action: 'hand_over', to: person.id },
    });
  }
  return choices;
}
