// @ts-check
/** Cards drawn by the client: a card code ("red-7", "hearts-Q", "joker", "karma-give", "12") becomes a labelled element. */

const SUIT_SYMBOL = { hearts: '♥', diamonds: '♦', clubs: '♣', spades: '♠' };
const COLOR_NAMES = ['red', 'yellow', 'green', 'blue'];

/** @param {string} code */
export function cardParts(code) {
  const i = code.indexOf('-');
  if (i < 0) return { family: '', rank: code };
  return { family: code.slice(0, i), rank: code.slice(i + 1) };
}

/** A readable label for screen readers and titles. @param {string} code */
export function cardLabel(code) {
  const { family, rank } = cardParts(code);
  return family ? `${family} ${rank}` : rank;
}

/**
 * @param {string} code
 * @param {{onClick?: () => void, disabled?: boolean, small?: boolean}} [opts]
 * @returns {HTMLElement}
 */
export function cardElement(code, opts = {}) {
  const { family, rank } = cardParts(code);
  const el = document.createElement(opts.onClick ? 'button' : 'span');
  el.className = 'card' + (opts.small ? ' small' : '');
  if (COLOR_NAMES.includes(family)) el.classList.add('c-' + family);
  else if (family in SUIT_SYMBOL) el.classList.add('s-' + family);
  else if (family) el.classList.add('f-' + family);
  el.dataset.card = code;
  el.setAttribute('aria-label', cardLabel(code));
  el.title = cardLabel(code);
  const symbol = SUIT_SYMBOL[family] || '';
  el.innerHTML = `<span class="corner">${esc(rank)}${symbol}</span><span class="face">${symbol || esc(short(rank))}</span>`;
  if (opts.onClick) {
    const button = /** @type {HTMLButtonElement} */ (el);
    button.disabled = !!opts.disabled;
    button.addEventListener('click', opts.onClick);
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

/** @param {string} rank */
function short(rank) { return rank.length > 4 ? rank.slice(0, 4) : rank; }

/** @param {any} s */
export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c] || c));
}
