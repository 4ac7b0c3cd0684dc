// @ts-check
/**
 * The replay of an ended match, step by step (`/t/<id>/replay`), from the public
 * `tableReplay` query alone. Each step reads as the move list did (`describeEvent`); the
 * events only one seat saw (the hands dealt, the cards drawn) are shown too, since the
 * match has ended and the replay reveals them. The last step adds the match result.
 * @typedef {import('../types/schema').TableReplay} TableReplay
 * @typedef {import('../types/schema').ReplayStep} ReplayStep
 */
import { gql } from './api.js';
import { t } from './i18n.js';
import { cardElement, esc } from './cards.js';
import { GAME_NAMES, describeEvent, resultsTable } from './games.js';

const REPLAY_QUERY = `query($id: ID!) { tableReplay(tableId: $id) { tableId game status seatCount
  players { seat displayName isBot } steps { seq kind seat status at events hiddenEvents } result } }`;

/**
 * @param {HTMLElement} main @param {string} id
 * @param {(err: any) => void} sayError @param {Array<() => void>} cleanups
 */
export async function replayPage(main, id, sayError, cleanups) {
  /** @type {TableReplay} */
  let replay;
  try { replay = (await gql(REPLAY_QUERY, { id })).tableReplay; } catch (x) {
    main.innerHTML = `<section class="panel"><p><a href="/t/${esc(id)}">← ${t('backToTable')}</a></p></section>`;
    sayError(x);
    return;
  }
  const steps = replay.steps;
  /** @param {number} s */
  const seatName = (s) => {
    const p = replay.players.find((x) => x.seat === s);
    if (!p) return `${t('seat')} ${s + 1}`;
    const twins = replay.players.filter((x) => x.displayName === p.displayName).length > 1;
    return p.isBot || twins ? `${p.displayName} (${s + 1})` : p.displayName;
  };
  const ctx = { seatName, mySeat: null };
  let at = 0;
  /** The replay's events are flat (`{type, visible_to, ...fields}`); the move list reads `{type, data}`. @param {any} e */
  const asEvent = (e) => { const { type, visible_to: _, ...data } = e; return { type, data: e.data ?? data }; };

  main.innerHTML = `<section class="panel"><h2>${t('replay')}: ${esc(GAME_NAMES[replay.game] || replay.game)} <small>#${esc(replay.tableId)}</small></h2>
    <p><a href="/t/${esc(replay.tableId)}">← ${t('backToTable')}</a></p>
    <p class="replay-nav"><button id="rv-first">« ${t('rvFirst')}</button>
      <button id="rv-back">◀ ${t('rvBack')}</button>
      <span id="rv-counter" aria-live="polite"></span>
      <button id="rv-forward">${t('rvForward')} ▶</button>
      <button id="rv-last">${t('rvLast')} »</button></p>
    <p class="muted hint">${t('rvKeys')}</p></section>
    <section class="panel" id="rv-step"></section>
    <section class="panel" id="rv-hands"></section>
    <section class="panel" id="rv-result"></section>`;
  const $ = (/** @type {string} */ s) => /** @type {HTMLElement} */ (main.querySelector(s));

  /** A line with the cards as small cards behind it. @param {string} text @param {string[]} cards */
  const withCards = (text, cards) => {
    const li = document.createElement('li');
    li.append(text + ' ');
    const row = document.createElement('span');
    row.className = 'mini';
    for (const c of cards) row.append(cardElement(c, { small: true }));
    li.append(row);
    return li;
  };

  /** Each seat's hand as last dealt at or before step `i` (what the replay reveals). @param {number} i */
  const dealtHands = (i) => {
    /** @type {Map<number, string[]>} */
    const hands = new Map();
    for (const step of steps.slice(0, i + 1)) {
      for (const e of step.hiddenEvents.map(asEvent)) if (e.type === 'dealt') hands.set(Number(e.data.seat), e.data.cards || e.data.hand || []);
    }
    return hands;
  };

  const render = () => {
    const step = /** @type {ReplayStep} */ (steps[at]);
    $('#rv-counter').textContent = t('rvStep', { i: at + 1, n: steps.length });
    $('#rv-counter').dataset.step = String(at + 1);
    /** @type {HTMLButtonElement} */ ($('#rv-first')).disabled = /** @type {HTMLButtonElement} */ ($('#rv-back')).disabled = at === 0;
    /** @type {HTMLButtonElement} */ ($('#rv-last')).disabled = /** @type {HTMLButtonElement} */ ($('#rv-forward')).disabled = at === steps.length - 1;

    const box = $('#rv-step');
    const who = step.seat != null ? seatName(step.seat) : '';
    box.innerHTML = `<h3>${who ? `${esc(who)} · ` : ''}<span class="muted">${esc(new Date(step.at).toLocaleTimeString())}</span></h3>`;
    const list = document.createElement('ul');
    list.id = 'rv-events';
    for (const e of step.events.map(asEvent)) {
      const line = describeEvent(e, ctx);
      if (line) { const li = document.createElement('li'); li.textContent = line; li.dataset.type = e.type; list.append(li); }
    }
    for (const e of step.hiddenEvents.map(asEvent)) {
      const d = e.data || {};
      const cards = d.cards || (d.card ? [d.card] : []);
      const text = e.type === 'dealt' ? t('rvDealt', { p: seatName(Number(d.seat)) }) : describeEvent(e, ctx);
      if (!text) continue;
      const li = withCards(text, e.type === 'dealt' ? cards : []);
      li.className = 'revealed'; li.dataset.type = e.type;
      list.append(li);
    }
    if (!list.children.length) list.innerHTML = `<li class="muted">–</li>`;
    box.append(list);

    const hands = dealtHands(at);
    $('#rv-hands').innerHTML = hands.size ? `<h3>${t('rvHands')}</h3>` : '';
    if (hands.size) {
      const ul = document.createElement('ul');
      for (const [seat, cards] of [...hands].sort((a, b) => a[0] - b[0])) ul.append(withCards(`${seatName(seat)}:`, cards));
      $('#rv-hands').append(ul);
    }

    const last = at === steps.length - 1;
    const match = last && replay.result && replay.result.placings ? replay.result : null;
    if (match) {
      const winners = match.placings.map((/** @type {number} */ p, /** @type {number} */ s) => (p === 1 ? seatName(s) : null)).filter(Boolean);
      $('#rv-result').innerHTML = `<h3>${t('results')}</h3><p class="winner" id="rv-winner">★ ${esc(t('winnerIs', { p: winners.join(', ') }))}</p>
        ${resultsTable(replay.game, [], match, replay.seatCount, ctx)}`;
    } else $('#rv-result').innerHTML = last ? `<p>${t('st_' + replay.status.toLowerCase())}</p>` : '';
  };

  /** @param {number} i */
  const show = (i) => { at = Math.max(0, Math.min(steps.length - 1, i)); render(); };
  const on = (/** @type {string} */ sel, /** @type {() => void} */ fn) => $(sel).addEventListener('click', fn);
  on('#rv-first', () => show(0));
  on('#rv-back', () => show(at - 1));
  on('#rv-forward', () => show(at + 1));
  on('#rv-last', () => show(steps.length - 1));
  /** @param {KeyboardEvent} e */
  const keys = (e) => {
    const target = /** @type {HTMLElement} */ (e.target);
    if (e.altKey || e.ctrlKey || e.metaKey || target.closest('input, select, textarea')) return;
    /** @type {Record<string, number>} */
    const moves = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: steps.length - 1 };
    const to = moves[e.key];
    if (to == null) return;
    e.preventDefault();
    show(to);
  };
  document.addEventListener('keydown', keys);
  cleanups.push(() => document.removeEventListener('keydown', keys));
  if (steps.length) render();
}
