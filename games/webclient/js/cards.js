// @ts-check
/**
 * Cards drawn by the client: a card code ("red-7", "hearts-Q", "joker", "karma-give", "12")
 * becomes a labelled element. A face shows a corner index, a large sign and, for special
 * cards, their name in full (wrapped, never cut off); the label is read by screen readers.
 */
import { t, has } from './i18n.js';

const SUIT_SYMBOL = { hearts: '♥', diamonds: '♦', clubs: '♣', spades: '♠' };
const COLOR_NAMES = ['red', 'yellow', 'green', 'blue'];
/** Special ranks: [corner, large sign]; the name comes from i18n (`card_<rank>`). */
const SPECIAL = {
  skip: ['⊘', '⊘'], reverse: ['⇄', '⇄'], draw2: ['+2', '+2'], wild: ['★', '★'], 'wild-draw4': ['+4', '+4'],
  cone: ['▲', '▲'], joker: ['★', '★'], x: ['X', 'X'], draw: ['+3', '+3'], stop: ['■', 'STOP'],
  'karma-give': ['K', '⇢'], 'karma-table': ['K', '▦'], 'karma-bottom': ['K', '⤒'], 'karma-five': ['K', '≤5'],
};
const FACE_RANK = { J: 'J', Q: 'Q', K: 'K', A: 'A' };

/** @param {string} code */
export function cardParts(code) {
  if (code in SPECIAL || !code.includes('-')) return { family: '', rank: code };
  const i = code.indexOf('-');
  return { family: code.slice(0, i), rank: code.slice(i + 1) };
}

/** A readable label in the page's language ("Rot 7", "Herz Dame", "Karma: Abgeben"). @param {string} code */
export function cardLabel(code) {
  if (!code) return '';
  if (code in SPECIAL) return t('card_' + code);
  const { family, rank } = cardParts(code);
  const rankName = rank in SPECIAL ? t('card_' + rank) : rank in FACE_RANK ? t('rank_' + rank) : rank;
  if (!family) return rankName;
  const familyName = COLOR_NAMES.includes(family) ? t('color_' + family) : family in SUIT_SYMBOL ? t('suit_' + family) : family;
  return `${familyName} ${rankName}`;
}

/**
 * @param {string} code
 * @param {{onClick?: () => void, disabled?: boolean, small?: boolean, pressed?: boolean|null}} [opts]
 * @returns {HTMLElement}
 */
export function cardElement(code, opts = {}) {
  const { family, rank } = cardParts(code);
  const el = document.createElement(opts.onClick ? 'button' : 'span');
  el.className = 'card' + (opts.small ? ' small' : '');
  if (COLOR_NAMES.includes(family)) el.classList.add('c-' + family);
  else if (family in SUIT_SYMBOL) el.classList.add('s-' + family);
  else if (code.startsWith('karma-')) el.classList.add('f-karma');
  else if (code.startsWith('wild') || code === 'cone' || code === 'joker' || code === 'x') el.classList.add('f-wild');
  else if (code === 'stop' || code === 'draw') el.classList.add('f-' + code);
  el.dataset.card = code;
  const label = cardLabel(code);
  el.setAttribute('aria-label', label);
  el.title = label;
  const symbol = SUIT_SYMBOL[family] || '';
  const special = SPECIAL[code] || SPECIAL[rank];
  const corner = special ? special[0] : rank + symbol;
  const face = special ? special[1] : symbol ? (rank in FACE_RANK ? rank + symbol : symbol) : rank;
  const key = SPECIAL[code] ? code : rank;
  const name = special && !opts.small ? `<span class="name">${esc(t(has('face_' + key) ? 'face_' + key : 'card_' + key))}</span>` : '';
  el.innerHTML = `<span class="corner" aria-hidden="true">${esc(corner)}</span><span class="face${face.length > 2 ? ' long' : ''}" aria-hidden="true">${esc(face)}</span>${name}`;
  if (opts.pressed != null) el.setAttribute('aria-pressed', String(opts.pressed));
  if (opts.onClick) {
    // Not `disabled`: a card that cannot be played now keeps the keyboard focus (it would be
    // lost at every update while others move); it says so and ignores clicks.
    const onClick = opts.onClick;
    el.setAttribute('aria-disabled', String(!!opts.disabled));
    el.addEventListener('click', () => { if (el.getAttribute('aria-disabled') !== 'true') onClick(); });
  }
  return el;
}

/** A face-down card with a count. @param {number} count */
export function backElement(count) {
  const el = document.createElement('span');
  el.className = 'card back small';
  el.textContent = String(count);
  return el;
}

/** @param {any} s */
export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c] || c));
}
