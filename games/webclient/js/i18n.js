// @ts-check
/** German and English strings; the browser's language picks one, the switch overrides it. */

/** @type {Record<string, Record<string, string>>} */
const STRINGS = {
  en: {
    lobby: 'Lobby', name: 'Your name', signIn: 'Play as guest', newTable: 'New table', game: 'Game',
    seats: 'Seats', visibility: 'Visibility', public: 'Public', private: 'Private', clock: 'Turn clock (s)',
    create: 'Create table', join: 'Join', watch: 'Watch', open: 'Open', tables: 'Tables', noTables: 'No open tables.',
    inviteCode: 'Invite code or link', addBot: 'Add bot', removeBot: 'Remove', start: 'Start', leave: 'Leave',
    yourHand: 'Your hand', yourTurn: 'Your turn', waitingFor: 'Waiting for', spectator: 'You are watching',
    moves: 'Moves', actions: 'Actions', seat: 'Seat', cards: 'cards', bot: 'bot', empty: 'empty',
    inviteLink: 'Invite link', roundResult: 'Round result', matchResult: 'Match result', finished: 'Finished',
    status: 'Status', tournaments: 'Tournaments', leaderboard: 'Leaderboard', chat: 'Chat', send: 'Send',
    retryIn: 'Too many requests: try again in {s} s.', timeLeft: '{s} s left', top: 'Top', deck: 'Draw pile',
    notFound: 'Not found.', back: 'Back to the lobby', call: 'call', players: 'Players', register: 'Register',
    standings: 'Standings', round: 'Round', yourTable: 'Your table',
  },
  de: {
    lobby: 'Lobby', name: 'Dein Name', signIn: 'Als Gast spielen', newTable: 'Neuer Tisch', game: 'Spiel',
    seats: 'Plätze', visibility: 'Sichtbarkeit', public: 'Öffentlich', private: 'Privat', clock: 'Zugzeit (s)',
    create: 'Tisch eröffnen', join: 'Mitspielen', watch: 'Zuschauen', open: 'Öffnen', tables: 'Tische', noTables: 'Keine offenen Tische.',
    inviteCode: 'Einladungscode oder -link', addBot: 'Bot dazu', removeBot: 'Entfernen', start: 'Starten', leave: 'Verlassen',
    yourHand: 'Deine Hand', yourTurn: 'Du bist dran', waitingFor: 'Warten auf', spectator: 'Du schaust zu',
    moves: 'Züge', actions: 'Aktionen', seat: 'Platz', cards: 'Karten', bot: 'Bot', empty: 'frei',
    inviteLink: 'Einladungslink', roundResult: 'Rundenergebnis', matchResult: 'Endergebnis', finished: 'Beendet',
    status: 'Status', tournaments: 'Turniere', leaderboard: 'Bestenliste', chat: 'Chat', send: 'Senden',
    retryIn: 'Zu viele Anfragen: in {s} s noch einmal versuchen.', timeLeft: 'noch {s} s', top: 'Oben', deck: 'Stapel',
    notFound: 'Nicht gefunden.', back: 'Zurück zur Lobby', call: 'ansagen', players: 'Spieler', register: 'Anmelden',
    standings: 'Tabelle', round: 'Runde', yourTable: 'Dein Tisch',
  },
};

const LANG_KEY = 'stapel.lang';

export function lang() {
  const stored = localStorage.getItem(LANG_KEY);
  if (stored && STRINGS[stored]) return stored;
  return (navigator.language || 'en').toLowerCase().startsWith('de') ? 'de' : 'en';
}

/** @param {string} value */
export function setLang(value) { localStorage.setItem(LANG_KEY, value); }

/** @param {string} key @param {Record<string, any>} [args] */
export function t(key, args = {}) {
  const text = STRINGS[lang()][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, k) => String(args[k] ?? ''));
}
