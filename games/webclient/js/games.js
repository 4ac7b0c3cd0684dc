// @ts-check
/**
 * What each game shows, as a person reads it: the public facts of a view, labels for legal
 * actions and for events, and which card or slot on the page each legal action belongs to.
 * Nothing here decides what is allowed: every enabled control comes from `view.legalActions`.
 */
import { t } from './i18n.js';
import { cardLabel, cardElement, backElement, esc } from './cards.js';

export const GAME_NAMES = { kato: 'KaTO', krass_kariert: 'Krass Kariert', karma: 'Karma', aetsch: 'Ätsch, Ätsch' };

/** @typedef {{seatName: (s: number) => string, mySeat: number|null}} Ctx */

/** Score column heading per game (RULES.md: what `scores` means in each game). @param {string} game */
export function scoreHeading(game) {
  return { kato: t('points'), krass_kariert: t('chipsLeft'), karma: t('cardsLeft'), aetsch: t('cardsLeft') }[game] || t('score');
}

/** @param {string} game */
export function callWord(game) { return game === 'aetsch' ? 'Ätsch!' : 'KaTO!'; }

/** @param {string} kind */
function kindName(kind) { return t('kind_' + kind); }

/** @param {string[]} cards */
function cardsText(cards) { return (cards || []).map(cardLabel).join(', '); }

/**
 * The page element keys a legal action belongs to: `card:<code>` (a card of the hand or an own
 * table card with that code), `hand:<i>` (Krass Kariert's fixed hand positions), `slot:<p>` (a gap
 * in the hand), `reserve:<r>`, `down:<p>` (a face-down table card). Actions with none are buttons.
 * @param {string} game @param {any} a @returns {string[]}
 */
export function targetsOf(game, a) {
  const [kind, arg] = Object.entries(a)[0];
  if (kind === 'play' && arg) {
    if (game === 'krass_kariert') {
      const out = [];
      for (let i = arg.index; i < arg.index + (arg.count || 1); i++) out.push('hand:' + i);
      return out;
    }
    if (arg.card) return ['card:' + arg.card];
    if (arg.cards) return [...new Set(arg.cards)].map((c) => 'card:' + c);
  }
  if (kind === 'give' && arg && arg.card) return ['card:' + arg.card];
  if (kind === 'takeReserve') return ['reserve:' + arg.reserve, 'slot:' + arg.position];
  if (kind === 'insert') return ['slot:' + arg.position];
  if (kind === 'playBlind') return ['down:' + arg.position];
  return [];
}

/** A readable label for one legal action. @param {string} game @param {any} a @param {Ctx} ctx @param {any} v */
export function actionLabel(game, a, ctx, v) {
  const [kind, arg] = Object.entries(a)[0];
  const name = (/** @type {number} */ s) => ctx.seatName(s);
  switch (kind) {
    case 'play': {
      if (game === 'krass_kariert') {
        const hand = (v && v.hand) || [];
        const cards = hand.slice(arg.index, arg.index + arg.count).map(cardLabel).join(', ');
        if (arg.kind === 'stop' || arg.kind === 'draw') return t('playCard', { c: kindName(arg.kind) });
        return `${kindName(arg.kind)} ${t('ofRank', { r: arg.rank })} (${cards})`;
      }
      const cards = arg.cards ? cardsText(arg.cards) : cardLabel(arg.card);
      let text = t('playCard', { c: cards });
      if (arg.color) text += ` → ${t('color_' + arg.color)}`;
      if (arg.suit) text += ` → ${t('suit_' + arg.suit)}`;
      if (arg.to != null) text += ` → ${t('pileTo', { p: name(arg.to) })}`;
      return text;
    }
    case 'draw': return v && (v.pendingTwo || 0) > 0 ? t('takeTwos', { n: v.pendingTwo }) : t('act_draw');
    case 'accept': return v && v.pendingDraw ? t('acceptN', { n: v.pendingDraw }) : t('act_accept');
    case 'catch': return t('act_catch', { p: name(arg.seat) });
    case 'call': return t('act_call', { c: callWord(game) });
    case 'chooseColor': return t('act_chooseColor', { c: t('color_' + arg.color) });
    case 'takeReserve': return t('act_takeReserve', { c: cardLabel(((v && v.reserves && v.reserves[ctx.mySeat ?? -1]) || [])[arg.reserve] || '?'), p: arg.position + 1 });
    case 'insert': return t('act_insert', { p: arg.position + 1 });
    case 'chooseFaceUp': return t('act_chooseFaceUp', { c: cardsText(arg.cards) });
    case 'playBlind': return t('act_playBlind', { p: arg.position + 1 });
    case 'giveTo': return t('act_giveTo', { p: name(arg.to) });
    case 'giveDrawn': return t('act_giveDrawn', { p: name(arg.to) });
    case 'peek': return t('act_peek', { p: name(arg.seat) });
    case 'give': return t('act_give', { c: cardLabel(arg.card), p: v && v.giveTo != null ? name(v.giveTo) : '' });
    case 'swap': return t('act_swap', { a: name(arg.seats[0]), b: name(arg.seats[1]) });
    default: return t('act_' + kind);
  }
}

/** Colour/suit swatch class for a choice button, if any. @param {any} a */
export function actionClass(a) {
  const arg = Object.values(a)[0];
  if (arg && typeof arg === 'object') {
    if (arg.color) return 'swatch c-' + arg.color;
    if (arg.suit) return 'swatch s-' + arg.suit;
  }
  return '';
}

/**
 * One line of the move list. It depends on the event and the seat names only, so the list
 * rebuilt after a reload reads exactly as the live one did.
 * @param {{type: string, data: any}} e @param {Ctx} ctx
 */
export function describeEvent(e, ctx) {
  const d = e.data || {};
  const get = (/** @type {string} */ k) => {
    if (k in d) return d[k];
    const camel = k.replace(/_(\w)/g, (_, c) => c.toUpperCase());
    return d[camel];
  };
  const who = get('display_name') != null ? String(get('display_name')) : get('seat') != null ? ctx.seatName(get('seat')) : '';
  const name = (/** @type {any} */ s) => (s == null ? '?' : ctx.seatName(Number(s)));
  const args = { p: who, n: get('count') ?? get('total') ?? '', c: '', to: name(get('to')), target: name(get('target')) };
  switch (e.type) {
    case 'seat_taken': return t('ev_seat_taken', { ...args, s: Number(get('seat')) + 1 });
    case 'seat_left': return t('ev_seat_left', args);
    case 'bot_took_over': return t('ev_bot_took_over', args);
    case 'match_started': return t('ev_match_started');
    case 'table_created': return t('ev_table_created', { g: GAME_NAMES[get('game')] || get('game') });
    case 'table_finished': {
      const placings = get('placings') || [];
      const order = placings.map((/** @type {number} */ p, /** @type {number} */ s) => [p, s]).sort((a, b) => a[0] - b[0]);
      return t('ev_table_finished', { c: order.map(([p, s]) => `${p}. ${ctx.seatName(s)}`).join(', ') });
    }
    case 'table_aborted': return t('ev_table_aborted');
    case 'chat': return get('hidden') ? t('ev_chat_hidden', args) : `${who}: “${get('text') ?? ''}”`;
    case 'chat_hidden': return t('ev_message_hidden');
    case 'chat_unhidden': return t('ev_message_unhidden');
    case 'dealt': return t('ev_dealt', { ...args, n: (get('cards') || get('hand') || []).length });
    case 'deal_started': return t('ev_deal_started', { d: get('deal'), p: name(get('leader')) });
    case 'round_started': return t('ev_round_started', { r: get('round'), c: get('top') ? cardLabel(get('top')) : '' });
    case 'played': {
      const cards = get('cards') ? cardsText(get('cards')) : cardLabel(get('card') || '');
      let line = t('ev_played', { ...args, c: cards });
      if (get('kind') && get('kind') !== 'solo' && get('kind') !== 'stop' && get('kind') !== 'draw') line += ` (${kindName(get('kind'))})`;
      if (get('color') && String(get('cards') || '').startsWith('wild')) line += ` → ${t('color_' + get('color'))}`;
      if (get('suit') && /(^|-)(J|joker)$/.test(get('card') || '')) line += ` → ${t('suit_' + get('suit'))}`;
      if (get('source') === 'table') line += ` ${t('fromTable')}`;
      return line;
    }
    case 'played_blind': return t(get('fits') ? 'ev_played_blind' : 'ev_played_blind_miss', { ...args, c: cardLabel(get('card') || '') });
    case 'drew': return t('ev_drew', args);
    case 'drew_cards': case 'drew_card': return t('ev_drew_cards', { ...args, c: get('cards') ? cardsText(get('cards')) : cardLabel(get('card') || '') });
    case 'received_card': return t('ev_received_card', { ...args, c: cardLabel(get('card') || ''), f: name(get('from')) });
    case 'gave_card': return t('ev_gave_card', { ...args, c: cardLabel(get('card') || '') });
    case 'hand_shown': case 'peeked_hand': return t('ev_hand_shown', { p: name(get(e.type === 'peeked_hand' ? 'target' : 'seat')), c: cardsText(get('cards')) });
    case 'hand_swapped': return t('ev_hand_swapped', { ...args, c: cardsText(get('cards')) });
    case 'face_up_choice': return t('ev_face_up_choice', { ...args, c: cardsText(get('cards')) });
    case 'face_up_revealed': return t('ev_face_up_revealed');
    case 'took_pile': return t('ev_took_pile', { ...args, n: (get('cards') || []).length });
    case 'pile_given': return t('ev_pile_given', { ...args, n: (get('cards') || []).length });
    case 'burned': return t('ev_burned', { ...args, n: (get('cards') || []).length });
    case 'bottom_card_up': return t('ev_bottom_card_up', { ...args, c: cardLabel(get('card') || '') });
    case 'finished': return t('ev_finished', { ...args, r: get('place') });
    case 'color_chosen': return t('ev_color_chosen', { ...args, c: t('color_' + get('color')) });
    case 'direction': return t(get('direction') === 1 ? 'ev_clockwise' : 'ev_counterclockwise');
    case 'draw_pending': return t('ev_draw_pending', args);
    case 'two_pending': return t('ev_two_pending', args);
    case 'challenged': return t(get('honest') ? 'ev_challenged_honest' : 'ev_challenged_bluff', args);
    case 'drawn_card_fits': return t(get('fits') ? 'ev_drawn_fits' : 'ev_drawn_no_fit', args);
    case 'caught': return t('ev_caught', { ...args, b: name(get('by')), n: get('penalty') });
    case 'called': return t('ev_called', { ...args, c: get('call') || 'KaTO!' });
    case 'penalty': return t('ev_penalty', args);
    case 'die_rolled': return t('ev_die_rolled', { ...args, r: get('face') });
    case 'gave_drawn': return t('ev_gave_drawn', args);
    case 'gave': return t('ev_gave', args);
    case 'peeked': return t('ev_peeked', args);
    case 'swapped': return t('ev_swapped', { ...args, a: name((get('seats') || [])[0]), b: name((get('seats') || [])[1]) });
    case 'trick_started': return t('ev_trick_started', { p: name(get('leader')) });
    case 'trick_won': return t(get('draws') ? 'ev_trick_won_draw' : 'ev_trick_won', { ...args, n: get('draw_cards') });
    case 'took_reserve': return t('ev_took_reserve', { ...args, c: cardLabel(get('card') || '') });
    case 'placed_reserve': case 'inserted_card': return t('ev_inserted_card', { ...args, c: cardLabel(get('card') || ''), r: Number(get('position')) + 1 });
    case 'chip_lost': return t('ev_chip_lost', { ...args, n: get('chips') });
    case 'played_from': return '';  // the hand positions of one's own play: nothing to read
    case 'round_over': return t('ev_round_over');
    case 'match_over': return t('ev_match_over');
    default: {
      if (['skipped', 'passed', 'accepted', 'reshuffled', 'stopped', 'hand_emptied', 'no_legal_action', 'inserted',
        'turn', 'went_out', 'plays_again', 'table_play_required', 'receiver_required', 'back_in', 'face_up_chosen',
        'face_down_shuffled', 'draw_pile_empty'].includes(e.type)) return t('ev_' + e.type, args);
      // An event this client does not know yet: its type and fields, keys in a fixed order.
      const rest = Object.entries(d).filter(([k]) => k !== 'seat').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, val]) => `${k}=${JSON.stringify(val)}`).join(' ');
      return `${who ? who + ': ' : ''}${e.type}${rest ? ' ' + rest : ''}`;
    }
  }
}

/** A small card row. @param {string[]} cards */
function miniCards(cards) {
  const row = document.createElement('span');
  row.className = 'mini';
  for (const c of cards) row.append(cardElement(c, { small: true }));
  return row;
}

/**
 * Per-seat extras shown in each seat's box (chips, reserves, table cards, score).
 * @param {any} v @param {number} s @param {HTMLElement} box
 */
export function seatExtras(v, s, box) {
  const game = v.game;
  const line = (/** @type {string} */ html) => { const p = document.createElement('div'); p.className = 'extra'; p.innerHTML = html; box.append(p); return p; };
  if (game === 'kato') line(`${t('points')}: <b>${v.scores[s] ?? 0}</b>`);
  if (game === 'krass_kariert') {
    const chips = v.chips[s] ?? 0;
    line(`${t('chips')}: <span class="chips" aria-label="${chips} ${t('chips')}">${'●'.repeat(chips) || '–'}</span>`);
    const reserves = (v.reserves && v.reserves[s]) || [];
    if (reserves.length && s !== v.seat) { const p = line(`${t('reserves')}: `); p.append(miniCards(reserves)); }
  }
  if (game === 'karma') {
    const up = (v.tableUp && v.tableUp[s]) || [];
    const down = (v.tableDownCounts && v.tableDownCounts[s]) || 0;
    if (s !== v.seat && (up.length || down)) {
      const p = line(`${t('tableCards')}: `);
      p.append(miniCards(up));
      if (down) { const b = backElement(down); b.title = t('faceDown'); p.append(b); }
    }
    const place = (v.finished || []).indexOf(s);
    if (place >= 0) line(`<b>${t('placeN', { n: place + 1 })}</b>`);
    if (v.phase === 'choose') line(v.chosen && v.chosen[s] ? `✓ ${t('hasChosen')}` : `… ${t('choosing')}`);
  }
  if (game === 'aetsch' && v.rounds > 1) line(`${t('placingSum')}: <b>${v.placingSums[s] ?? 0}</b>`);
}

/**
 * The middle of the table: piles and the public facts of this moment.
 * @param {any} v @param {Ctx} ctx @returns {HTMLElement}
 */
export function centre(v, ctx) {
  const el = document.createElement('div');
  el.className = 'centre';
  const piles = document.createElement('div');
  piles.className = 'piles';
  el.append(piles);
  const facts = document.createElement('ul');
  facts.className = 'facts';
  el.append(facts);
  const fact = (/** @type {string} */ html, cls = '') => facts.insertAdjacentHTML('beforeend', `<li class="${cls}">${html}</li>`);
  const deck = (/** @type {number} */ n) => {
    const w = document.createElement('figure');
    const b = backElement(n); b.title = t('deck'); b.setAttribute('aria-label', `${t('deck')}: ${n}`);
    w.append(b); w.insertAdjacentHTML('beforeend', `<figcaption>${t('deck')}</figcaption>`);
    piles.append(w);
  };
  const topCard = (/** @type {string|null} */ code, caption = t('top')) => {
    const w = document.createElement('figure');
    if (code) {
      const c = cardElement(code); c.classList.add('top');
      c.setAttribute('aria-label', `${caption}: ${cardLabel(code)}`);
      w.append(c);
    } else w.insertAdjacentHTML('beforeend', '<span class="card empty-pile" aria-hidden="true"></span>');
    w.insertAdjacentHTML('beforeend', `<figcaption>${caption}</figcaption>`);
    piles.append(w);
  };
  const dir = (/** @type {number} */ d) => fact(d === 1 ? `↻ ${t('clockwise')}` : `↺ ${t('counterclockwise')}`);

  if (v.game === 'kato') {
    deck(v.drawCount);
    topCard(v.top);
    if (v.color) fact(`${t('colorInForce')}: <span class="swatch c-${esc(v.color)}">${t('color_' + v.color)}</span>`, 'big');
    dir(v.direction);
    fact(`${t('round')} ${v.round}`);
    if (v.pendingDraw > 0 && v.turn != null) fact(t('pendingDraw', { n: v.pendingDraw, p: ctx.seatName(v.turn) }), 'warn');
    if (v.drawn && v.seat === v.turn) fact(t('youDrew', { c: cardLabel(v.drawn) }), 'warn');
    if (v.katoWindow != null && v.katoWindow >= 0) fact(t('katoWindow', { p: ctx.seatName(v.katoWindow) }), 'warn');
    if (v.shownHand) { fact(t('shownHand', { p: ctx.seatName(v.shownHand.seat ?? v.turn) })); facts.lastElementChild?.append(miniCards(v.shownHand.cards || v.shownHand.hand || [])); }
  } else if (v.game === 'aetsch') {
    deck(v.drawCount);
    topCard(v.top);
    if (v.suit) fact(`${t('suitInForce')}: <span class="swatch s-${esc(v.suit)}">${t('suit_' + v.suit)}</span>`, 'big');
    dir(v.direction);
    fact(`${t('round')} ${v.round} / ${v.rounds}`);
    if (v.pendingTwo > 0 && v.twoTarget != null) fact(t('pendingTwo', { n: v.pendingTwo, p: ctx.seatName(v.twoTarget) }), 'warn');
    if (v.lastRoll) fact(t('lastRoll', { p: ctx.seatName(v.lastRoll.seat), r: v.lastRoll.face, e: t('die_' + v.lastRoll.face) }));
    if (v.toGiveCount > 0 && v.turn != null) fact(t('toGive', { p: ctx.seatName(v.turn), n: v.toGiveCount }), 'warn');
    if (v.drawnCard && v.seat === v.turn) fact(t('youDrew', { c: cardLabel(v.drawnCard) }), 'warn');
    if (v.peeked && v.peeked.hand) { fact(t('peekedHand', { p: ctx.seatName(v.peeked.seat) })); facts.lastElementChild?.append(miniCards(v.peeked.hand)); }
  } else if (v.game === 'karma') {
    deck(v.drawCount);
    const pile = v.pile || [];
    const w = document.createElement('figure');
    w.className = 'pile';
    if (pile.length) {
      const fan = document.createElement('span');
      fan.className = 'fan';
      for (const c of pile.slice(-4)) fan.append(cardElement(c));
      /** @type {HTMLElement} */ (fan.lastElementChild).classList.add('top');
      w.append(fan);
    } else w.insertAdjacentHTML('beforeend', '<span class="card empty-pile" aria-hidden="true"></span>');
    w.insertAdjacentHTML('beforeend', `<figcaption>${t('pile')} (${pile.length})</figcaption>`);
    piles.append(w);
    if (v.phase === 'choose') fact(t('chooseFaceUpHint'), 'warn');
    if (v.pending) fact(t('pending_' + v.pending) , 'warn');
    else if (v.top === 'karma-five') fact(t('pending_five'), 'warn');
    if (v.outCount) fact(t('outOfGame', { n: v.outCount }));
  } else if (v.game === 'krass_kariert') {
    deck(v.drawPileCount);
    fact(`${t('deal')} ${v.deal}`);
    if (v.leader != null) fact(t('leads', { p: ctx.seatName(v.leader) }));
    const trick = document.createElement('ol');
    trick.className = 'trick';
    trick.setAttribute('aria-label', t('trick'));
    for (const step of v.trick || []) {
      const li = document.createElement('li');
      li.append(`${ctx.seatName(step.seat)}: `);
      if (step.action === 'play') {
        li.append(miniCards(step.cards));
        if (step.kind && step.kind !== 'solo') li.append(` ${kindName(step.kind)}`);
        if (step.rank != null) li.append(` · ${t('ofRank', { r: step.rank })}`);
      } else li.append(t('tookReserve'));
      trick.append(li);
    }
    const box = document.createElement('figure');
    box.className = 'trickbox';
    box.append(trick);
    if (!(v.trick || []).length) box.insertAdjacentHTML('afterbegin', `<p class="muted">${t('noTrickYet')}</p>`);
    box.insertAdjacentHTML('beforeend', `<figcaption>${t('trick')}</figcaption>`);
    piles.append(box);
    if (v.drawsLeft > 0 && v.drawer != null) fact(t('drawsLeft', { p: ctx.seatName(v.drawer), n: v.drawsLeft }), 'warn');
  }
  return el;
}

/**
 * Round results (from the table's `roundResults`) and the match result as tables.
 * @param {string} game @param {any[]} rounds @param {any} match @param {number} seatCount @param {Ctx} ctx
 */
export function resultsTable(game, rounds, match, seatCount, ctx) {
  if (!rounds.length && !match) return '';
  const seats = [...Array(seatCount).keys()];
  const head = `<tr><th scope="col">${t('round')}</th>${seats.map((s) => `<th scope="col">${esc(ctx.seatName(s))}</th>`).join('')}</tr>`;
  const cell = (/** @type {any} */ r, /** @type {number} */ s) => `<td><span class="place">${t('placeShort', { n: r.placings[s] })}</span> · ${r.scores[s]}</td>`;
  const rows = rounds.map((r) => `<tr><th scope="row">${r.roundNumber}</th>${seats.map((s) => cell(r, s)).join('')}</tr>`).join('');
  const final = match ? `<tr class="final"><th scope="row">${t('matchResult')}</th>${seats.map((s) => cell(match, s)).join('')}</tr>` : '';
  return `<table class="results"><caption>${t('place')} · ${scoreHeading(game)}</caption>
    <thead>${head}</thead><tbody>${rows}${final}</tbody></table>`;
}

const COLOR_ORDER = ['red', 'yellow', 'green', 'blue'];
const SUIT_ORDER = ['clubs', 'spades', 'hearts', 'diamonds'];
const RANK_ORDER = ['2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K', 'A'];

/**
 * The order in which a hand is shown: by colour or suit, then rank (only a display order; the
 * keys stay the codes). Krass Kariert hands keep their dealt order, which is part of the game.
 * @param {string} game @param {string[]} hand @returns {number[]} hand positions in display order
 */
export function displayOrder(game, hand) {
  const positions = hand.map((_, i) => i);
  if (game === 'krass_kariert') return positions;
  /** @param {string} code @returns {[number, number, string]} */
  const key = (code) => {
    const i = code.indexOf('-');
    const family = i < 0 ? code : code.slice(0, i);
    const rank = i < 0 ? '' : code.slice(i + 1);
    if (game === 'karma') return /^\d+$/.test(code) ? [0, Number(code), ''] : [1, 0, code];
    const order = game === 'kato' ? COLOR_ORDER : SUIT_ORDER;
    const f = order.indexOf(family);
    if (f < 0) return [9, 0, code];
    const r = game === 'kato' ? (/^\d+$/.test(rank) ? Number(rank) : 20) : RANK_ORDER.indexOf(rank);
    return [f, r, code];
  };
  return positions.sort((a, b) => {
    const x = key(hand[a]); const y = key(hand[b]);
    return x[0] - y[0] || x[1] - y[1] || (x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0) || a - b;
  });
}
