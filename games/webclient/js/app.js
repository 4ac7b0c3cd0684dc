// @ts-check
/**
 * Stapel's reference web client: lobby, table (play and watch), tournaments and leaderboard.
 * Renders only what the server sends: `view` and `view.legalActions`; no rule lives here.
 * @typedef {import('../types/schema').Table} Table
 * @typedef {import('../types/schema').GameInfo} GameInfo
 * @typedef {import('../types/schema').TableUpdate} TableUpdate
 * @typedef {import('../types/schema').GameView} GameView
 * @typedef {import('../types/schema').OptionSpec} OptionSpec
 */
import { gql, socket, token, setToken, firstError, ApiError } from './api.js';
import { t, lang, setLang } from './i18n.js';
import { cardElement, backElement, esc } from './cards.js';

const main = /** @type {HTMLElement} */ (document.getElementById('main'));
const flash = /** @type {HTMLElement} */ (document.getElementById('flash'));

/** @type {Array<() => void>} */
let cleanups = [];

/** @param {string} text */
function say(text) { flash.textContent = text; flash.hidden = !text; }

/** @param {any} err */
function sayError(err) {
  if (err && err.code === 'rate_limited') say(t('retryIn', { s: err.retryAfter ?? '?' }));
  else say(err && err.message ? `${err.message} (${err.code || 'error'})` : String(err));
}

/** @param {string} path */
export function go(path) { history.pushState(null, '', path); route(); }

function route() {
  for (const c of cleanups.splice(0)) c();
  say('');
  const path = location.pathname;
  let m;
  if (!token()) return signIn();
  if ((m = path.match(/^\/t\/([A-Za-z0-9_-]+)/))) return tablePage(m[1]);
  if ((m = path.match(/^\/join\/([^/]+)/))) return joinByCode(decodeURIComponent(m[1]));
  if ((m = path.match(/^\/tournaments\/(\d+)/))) return tournamentPage(m[1]);
  if (path.startsWith('/tournaments')) return tournamentsPage();
  if (path.startsWith('/leaderboard')) return leaderboardPage();
  return lobby();
}

function signIn() {
  main.innerHTML = `<section class="panel"><h1>Stapel</h1><form id="guest">
    <label>${t('name')} <input name="name" required maxlength="40" autocomplete="nickname"></label>
    <button type="submit">${t('signIn')}</button></form></section>`;
  const form = /** @type {HTMLFormElement} */ (main.querySelector('#guest'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const data = await gql(`mutation($n: String!) { createGuest(displayName: $n) { token errors { code message } } }`,
        { n: new FormData(form).get('name') });
      const err = firstError(data.createGuest.errors);
      if (err) return sayError(err);
      setToken(data.createGuest.token);
      socket.reconnect();
      route();
    } catch (x) { sayError(x); }
  });
}

const TABLE_FIELDS = `id game status visibility seatCount version lastSeq mySeat inviteCode turnClockSeconds
  creator { id displayName } seats { position isBot botLevel takenOverByBot player { id displayName } }`;

async function lobby() {
  main.innerHTML = `<section class="panel"><h2>${t('tables')}</h2><ul id="tables" class="tables"></ul></section>
    <section class="panel"><h2>${t('newTable')}</h2><form id="create"></form></section>
    <section class="panel"><h2>${t('join')}</h2><form id="bycode">
      <label>${t('inviteCode')} <input name="code" required></label> <button>${t('join')}</button></form></section>`;
  const list = /** @type {HTMLElement} */ (main.querySelector('#tables'));
  const refresh = async () => {
    try {
      const data = await gql(`query { tables(first: 30) { items { ${TABLE_FIELDS} } } playing: tables(status: PLAYING, first: 20) { items { ${TABLE_FIELDS} } } }`);
      const items = [...data.tables.items, ...data.playing.items];
      list.innerHTML = items.length ? '' : `<li>${t('noTables')}</li>`;
      for (const table of items) {
        const li = document.createElement('li');
        const taken = table.seats.length;
        li.innerHTML = `<a href="/t/${table.id}">#${table.id} ${esc(table.game)}</a> · ${esc(table.creator.displayName)} · ${taken}/${table.seatCount} · ${table.status.toLowerCase()}`;
        list.append(li);
      }
    } catch (x) { sayError(x); }
  };
  refresh();
  cleanups.push(socket.subscribe(() => ({ query: 'subscription { lobbyEvents { kind } }' }), () => refresh()));
  createForm(/** @type {HTMLFormElement} */ (main.querySelector('#create')));
  const byCode = /** @type {HTMLFormElement} */ (main.querySelector('#bycode'));
  byCode.addEventListener('submit', (e) => {
    e.preventDefault();
    const raw = String(new FormData(byCode).get('code')).trim();
    const code = raw.includes('/join/') ? raw.split('/join/')[1] : raw;
    go('/join/' + encodeURIComponent(code));
  });
}

/** The house-rules form is built from the `games` query. @param {HTMLFormElement} form */
async function createForm(form) {
  /** @type {GameInfo[]} */
  const games = (await gql(`query { games { id name minPlayers maxPlayers botLevels
    options { name type default description minimum maximum nullable choices } } }`)).games;
  form.innerHTML = `<label>${t('game')} <select name="game">${games.map((g) => `<option value="${g.id}">${esc(g.name)}</option>`).join('')}</select></label>
    <label>${t('seats')} <input type="number" name="seats"></label>
    <label>${t('visibility')} <select name="visibility"><option value="PUBLIC">${t('public')}</option><option value="PRIVATE">${t('private')}</option></select></label>
    <label>${t('clock')} <input type="number" name="clock" min="0" placeholder="—"></label>
    <fieldset id="rules"></fieldset><button type="submit">${t('create')}</button>`;
  const select = /** @type {HTMLSelectElement} */ (form.querySelector('[name=game]'));
  const seats = /** @type {HTMLInputElement} */ (form.querySelector('[name=seats]'));
  const rules = /** @type {HTMLElement} */ (form.querySelector('#rules'));
  const fill = () => {
    const g = /** @type {GameInfo} */ (games.find((x) => x.id === select.value));
    seats.min = String(g.minPlayers); seats.max = String(g.maxPlayers); seats.value = String(Math.min(4, g.maxPlayers));
    rules.innerHTML = `<legend>${esc(g.name)}</legend>` + g.options.map(optionField).join('');
  };
  select.addEventListener('change', fill);
  fill();
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const g = /** @type {GameInfo} */ (games.find((x) => x.id === select.value));
    /** @type {Record<string, any>} */
    const options = {};
    for (const o of g.options) {
      const input = /** @type {HTMLInputElement} */ (form.querySelector(`[name="opt-${o.name}"]`));
      if (o.type === 'bool') options[o.name] = input.checked;
      else if (o.type === 'int') options[o.name] = input.value === '' ? null : Number(input.value);
      else options[o.name] = input.value === '' ? null : input.value;
    }
    const fd = new FormData(form);
    const input = { game: g.id, options, seatCount: Number(fd.get('seats')), visibility: fd.get('visibility'),
      turnClockSeconds: fd.get('clock') === '' ? null : Number(fd.get('clock')) };
    try {
      const data = await gql(`mutation($i: CreateTableInput!) { createTable(input: $i) { table { id } errors { code message field } } }`, { i: input });
      const err = firstError(data.createTable.errors);
      if (err) return sayError(err);
      go('/t/' + data.createTable.table.id);
    } catch (x) { sayError(x); }
  });
}

/** @param {OptionSpec} o */
function optionField(o) {
  const name = `opt-${o.name}`;
  const label = `<span title="${esc(o.description)}">${esc(o.name)}</span>`;
  if (o.type === 'bool') return `<label class="opt"><input type="checkbox" name="${name}" ${o.default ? 'checked' : ''}> ${label}</label>`;
  if (o.type === 'choice') return `<label class="opt">${label} <select name="${name}">${(o.choices || []).map((c) => `<option ${c === o.default ? 'selected' : ''}>${esc(c)}</option>`).join('')}</select></label>`;
  const range = `${o.minimum != null ? `min="${o.minimum}"` : ''} ${o.maximum != null ? `max="${o.maximum}"` : ''}`;
  return `<label class="opt">${label} <input type="number" name="${name}" ${range} value="${o.default ?? ''}"></label>`;
}

/** @param {string} code */
async function joinByCode(code) {
  try {
    const data = await gql(`mutation($c: String!) { joinTable(inviteCode: $c) { table { id } errors { code message } } }`, { c: code });
    const err = firstError(data.joinTable.errors);
    if (err) { sayError(err); return; }
    history.replaceState(null, '', '/t/' + data.joinTable.table.id);
    route();
  } catch (x) { sayError(x); }
}

/** Event data keys may be snake_case or camelCase: read them through this. @param {any} data @param {string} key */
export function field(data, key) {
  if (!data) return undefined;
  if (key in data) return data[key];
  const camel = key.replace(/_(\w)/g, (_, c) => c.toUpperCase());
  if (camel in data) return data[camel];
  const snake = key.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
  return data[snake];
}

const VIEW_FRAGMENT = `view { __typename
  ... on KatoView { game seat version deadline legalActions hand handCounts actors top color direction phase turn pendingDraw katoWindow drawCount discardCount round scores lastResult over }
  ... on KrassKariertView { game seat version deadline legalActions hand handCounts actors trickTop: top chips reserves phase deal leader trick toAct drawPileCount roundResult result }
  ... on KarmaView { game seat version deadline legalActions hand handCounts actors top pile tableUp tableDownCounts ownTableDown phase turn pending drawCount finished loser result }
  ... on AetschView { game seat version deadline legalActions hand handCounts actors top suit direction phase turn pendingTwo drawnCard drawCount discardCount round rounds roundResults placingSums winner }
}`;

const seqKey = (/** @type {string} */ id) => `stapel.seq.${id}`;

/** @param {string} id */
async function tablePage(id) {
  /** @type {Table|null} */
  let table = null;
  /** @type {any} */
  let view = null;
  /** @type {string[]} */
  const moves = [];
  let lastSeq = 0;
  let version = 0;
  let busy = false;
  /** A card whose plays need a choice (colour, call ...): the actions panel offers only those. */
  let selected = /** @type {string|null} */ (null);

  main.innerHTML = `<section class="panel" id="head"></section>
    <section class="panel" id="board" aria-live="polite"></section>
    <section class="panel" id="hand"></section>
    <section class="panel" id="actions"></section>
    <section class="panel"><h2>${t('moves')}</h2><ol id="moves" class="moves"></ol></section>`;
  const $ = (/** @type {string} */ s) => /** @type {HTMLElement} */ (main.querySelector(s));

  const loadTable = async () => {
    const data = await gql(`query($id: ID!) { table(id: $id) { ${TABLE_FIELDS} roundNumber result deadline ${VIEW_FRAGMENT} } }`, { id });
    table = data.table;
    if (!table) { say(t('notFound')); return; }
    view = table.view; version = table.version;
    renderHead(); renderView();
  };

  const renderHead = () => {
    if (!table) return;
    const tb = table;
    const mine = tb.mySeat != null;
    const isCreator = tb.creator && view !== undefined;
    const seats = [];
    for (let i = 0; i < tb.seatCount; i++) {
      const s = tb.seats.find((x) => x.position === i);
      const label = s ? `${esc(s.player.displayName)}${s.isBot ? ` (${t('bot')})` : ''}` : `<em>${t('empty')}</em>`;
      const remove = s && s.isBot && tb.status === 'OPEN' ? ` <button data-remove="${i}">${t('removeBot')}</button>` : '';
      seats.push(`<li>${t('seat')} ${i}: ${label}${remove}</li>`);
    }
    const invite = tb.inviteCode ? `<p>${t('inviteLink')}: <input readonly id="invite" value="${location.origin}/join/${esc(tb.inviteCode)}"></p>` : '';
    const open = tb.status === 'OPEN';
    $('#head').innerHTML = `<h2>#${tb.id} ${esc(tb.game)} · <span id="status">${tb.status.toLowerCase()}</span></h2>
      <ul class="seats">${seats.join('')}</ul>${invite}
      ${open && !mine ? `<button id="join">${t('join')}</button>` : ''}
      ${open && isCreator ? `<button id="addbot">${t('addBot')}</button> <button id="start">${t('start')}</button>` : ''}
      ${!mine ? `<p class="note">${t('spectator')}</p>` : ''}`;
    const on = (/** @type {string} */ sel, /** @type {() => Promise<void>} */ fn) => main.querySelector(sel)?.addEventListener('click', fn);
    on('#join', () => mutate(`mutation($id: ID!) { joinTable(tableId: $id) { errors { code message } } }`, 'joinTable'));
    on('#addbot', () => mutate(`mutation($id: ID!) { addBot(tableId: $id) { errors { code message } } }`, 'addBot'));
    on('#start', () => mutate(`mutation($id: ID!) { startTable(tableId: $id) { errors { code message } } }`, 'startTable'));
    main.querySelectorAll('[data-remove]').forEach((b) => b.addEventListener('click', () =>
      mutate(`mutation($id: ID!, $s: Int!) { removeBot(tableId: $id, seat: $s) { errors { code message } } }`, 'removeBot',
        { s: Number(/** @type {HTMLElement} */ (b).dataset.remove) })));
  };

  /** @param {string} q @param {string} name @param {any} [vars] */
  const mutate = async (q, name, vars = {}) => {
    try {
      const data = await gql(q, { id, ...vars });
      const err = firstError(data[name].errors);
      if (err) sayError(err); else say('');
      await loadTable();
    } catch (x) { sayError(x); }
  };

  const renderView = () => {
    const v = view;
    const board = $('#board');
    if (!v) { board.innerHTML = ''; $('#hand').innerHTML = ''; $('#actions').innerHTML = ''; return; }
    const myTurn = v.seat != null && v.actors.includes(v.seat);
    const who = v.actors.map((/** @type {number} */ s) => seatName(s)).join(', ');
    const deadline = v.deadline ? Math.max(0, Math.round((Date.parse(v.deadline) - Date.now()) / 1000)) : null;
    const counts = v.handCounts.map((/** @type {number} */ n, /** @type {number} */ i) =>
      `<li class="${v.actors.includes(i) ? 'active' : ''}">${esc(seatName(i))}: ${n} ${t('cards')}</li>`).join('');
    const turnText = myTurn ? `<strong>${t('yourTurn')}</strong>` : who ? `${t('waitingFor')} ${esc(who)}` : t('finished');
    board.innerHTML = `<p class="turn">${turnText}
      ${deadline != null ? ` · <span class="clock">${t('timeLeft', { s: deadline })}</span>` : ''}</p>
      <ul class="counts">${counts}</ul><div class="piles" id="piles"></div><dl class="facts" id="facts"></dl>`;
    const piles = $('#piles');
    const top = typeof v.top === 'string' ? v.top : null;
    if (top) { const el = cardElement(top); el.classList.add('top'); el.setAttribute('aria-label', `${t('top')}: ${el.getAttribute('aria-label')}`); piles.append(el); }
    if (v.drawCount != null) { const b = backElement(v.drawCount); b.title = t('deck'); piles.append(b); }
    const facts = $('#facts');
    for (const key of ['color', 'suit', 'phase', 'round', 'deal', 'pendingDraw', 'pendingTwo', 'pending', 'scores', 'chips', 'placingSums', 'trickTop', 'trick', 'tableUp', 'tableDownCounts', 'ownTableDown', 'top']) {
      if (v[key] == null || key === 'top' && top) continue;
      if (Array.isArray(v[key]) && !v[key].length) continue;
      facts.insertAdjacentHTML('beforeend', `<dt>${esc(key)}</dt><dd>${esc(JSON.stringify(v[key]))}</dd>`);
    }
    const result = v.lastResult || v.roundResult || v.result || (v.roundResults && v.roundResults.length ? v.roundResults[v.roundResults.length - 1] : null);
    if (result) facts.insertAdjacentHTML('beforeend', `<dt>${t('roundResult')}</dt><dd class="result">${esc(JSON.stringify(result))}</dd>`);
    if (table && table.status === 'FINISHED') board.insertAdjacentHTML('beforeend', `<p class="final"><strong>${t('matchResult')}</strong>: ${esc(JSON.stringify(table.result))}</p>`);

    const hand = $('#hand');
    hand.innerHTML = '';
    /** @type {any[]} */
    const legal = v.legalActions || [];
    if (v.hand) {
      hand.innerHTML = `<h2>${t('yourHand')}</h2>`;
      const row = document.createElement('div');
      row.className = 'hand';
      for (const code of v.hand) {
        // A card is clickable when exactly its own single-card play is legal (no extra choice).
        const plays = legal.filter((a) => a.play && a.play.cards && a.play.cards.length === 1 && a.play.cards[0] === code);
        const simple = plays.find((a) => Object.keys(a.play).length === 1);
        row.append(cardElement(code, { disabled: !plays.length || busy, onClick: () => simple ? act(simple) : focusActions(code) }));
      }
      hand.append(row);
    }
    const actions = $('#actions');
    actions.innerHTML = legal.length ? `<h2>${t('actions')}</h2>` : '';
    const choices = selected ? legal.filter((a) => a.play && a.play.cards && a.play.cards.includes(selected)) : [];
    if (!choices.length) selected = null;
    for (const a of choices.length ? choices : legal) {
      const b = document.createElement('button');
      b.className = 'action' + (choices.length ? ' choice' : '');
      b.textContent = actionLabel(a);
      b.dataset.action = JSON.stringify(a);
      b.disabled = busy;
      b.addEventListener('click', () => { selected = null; act(a); });
      actions.append(b);
    }
    if (choices.length) {
      const back = document.createElement('button');
      back.className = 'cancel';
      back.textContent = '×';
      back.setAttribute('aria-label', 'cancel');
      back.addEventListener('click', () => { selected = null; renderView(); });
      actions.append(back);
    }
  };

  /** @param {string} code */
  const focusActions = (code) => {
    selected = code;
    renderView();
    /** @type {HTMLElement|null} */ (main.querySelector('.action.choice'))?.focus();
  };

  /** @param {number} s */
  const seatName = (s) => {
    const seat = table?.seats.find((x) => x.position === s);
    return seat ? seat.player.displayName : `${t('seat')} ${s}`;
  };

  /** @param {any} a */
  const act = async (a) => {
    if (busy) return;
    busy = true;
    const key = crypto.randomUUID();
    const q = `mutation($id: ID!, $a: ActionInput!, $v: Int!, $k: String) { act(tableId: $id, action: $a, expectedVersion: $v, idempotencyKey: $k) { version seq replayed errors { code message field } } }`;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const data = /** @type {any} */ (await socket.request(q, { id, a, v: version, k: key }));
        const err = firstError(data.act.errors);
        if (err && err.code === 'stale_version') await loadTable();  // someone moved first: the next update comes anyway
        else if (err) sayError(err);
        else say('');
        break;
      } catch (x) {
        if (attempt === 2) sayError(x instanceof ApiError ? x : { message: 'connection lost', code: 'network' });
      }
    }
    busy = false;
    renderView();
  };

  /** @param {TableUpdate} u */
  const onUpdate = (u) => {
    if (u.seq <= lastSeq) return;
    lastSeq = u.seq;
    sessionStorage.setItem(seqKey(id), String(lastSeq));
    version = u.version;
    for (const e of u.events) {
      moves.push(describeEvent(e));
      const li = document.createElement('li');
      li.textContent = moves[moves.length - 1];
      $('#moves').append(li);
    }
    if (table) table.status = u.status;
    if (u.view) { view = u.view; renderView(); }
    if (u.kind !== 'action' || u.status !== 'PLAYING') loadTable();
    else if (table) { const st = main.querySelector('#status'); if (st) st.textContent = u.status.toLowerCase(); }
  };

  /** @param {{type: string, data: any}} e */
  const describeEvent = (e) => {
    // Only the event itself decides its line (the names it carries, keys in a fixed order):
    // a move list rebuilt from `events` after a reload reads exactly as the live one did.
    const seat = field(e.data, 'seat');
    const name = field(e.data, 'display_name');
    const who = name != null ? name + ': ' : seat != null ? seatName(seat) + ': ' : '';
    const rest = Object.entries(e.data || {}).filter(([k]) => k !== 'seat').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, val]) => `${k}=${JSON.stringify(val)}`).join(' ');
    return `${who}${e.type}${rest ? ' ' + rest : ''}`;
  };

  await loadTable();
  if (!table) return;
  // Resume after a reload: the move list comes from `events` up to the seq we saw, the rest from the subscription.
  const stored = Number(sessionStorage.getItem(seqKey(id)) || 0);
  const start = Math.min(stored, table.lastSeq);
  if (start > 0) {
    let after = 0;
    while (after < start) {
      const data = await gql(`query($id: ID!, $a: Int!) { table(id: $id) { events(afterSeq: $a, limit: 100) { seq kind version status events { type data } } } }`, { id, a: after });
      const batch = data.table.events.filter((/** @type {TableUpdate} */ u) => u.seq <= start);
      if (!batch.length) break;
      for (const u of batch) onUpdate(/** @type {TableUpdate} */ ({ ...u, view: null }));
      after = batch[batch.length - 1].seq;
    }
  }
  cleanups.push(socket.subscribe(
    () => ({ query: `subscription($id: ID!, $after: Int!) { tableEvents(tableId: $id, afterSeq: $after) { tableId seq kind version status events { type data } ${VIEW_FRAGMENT} } }`,
      variables: { id, after: lastSeq } }),
    (data) => onUpdate(data.tableEvents),
    (err) => sayError(err && err[0] ? err[0] : err)));
  const timer = setInterval(() => {
    const clock = main.querySelector('.clock');
    if (clock && view && view.deadline) clock.textContent = t('timeLeft', { s: Math.max(0, Math.round((Date.parse(view.deadline) - Date.now()) / 1000)) });
  }, 1000);
  cleanups.push(() => clearInterval(timer));
}

/** A readable label for one legal action, e.g. "play red-7 · color blue". @param {any} a */
export function actionLabel(a) {
  const [kind, arg] = Object.entries(a)[0];
  if (arg === true) return kind;
  if (arg && typeof arg === 'object') {
    return kind + ' ' + Object.entries(arg).map(([k, v]) => k === 'call' ? `+ ${t('call')}` : k === 'cards' ? v.join(' ') : `${k} ${Array.isArray(v) ? v.join(',') : v}`).join(' · ');
  }
  return kind;
}

async function tournamentsPage() {
  const data = await gql(`query { tournaments { id name game status format } }`);
  main.innerHTML = `<section class="panel"><h2>${t('tournaments')}</h2><ul>${data.tournaments.map((/** @type {any} */ x) =>
    `<li><a href="/tournaments/${x.id}">${esc(x.name)}</a> · ${esc(x.game)} · ${esc(x.status)}</li>`).join('')}</ul></section>`;
}

/** @param {string} id */
async function tournamentPage(id) {
  const load = async () => {
    const data = await gql(`query($id: ID!) { me { id } tournament(id: $id) { id name game status currentRound isRegistered
      rounds { number tables { tableId players placings } }
      standings { rank points buchholz wins player { id displayName } } } }`, { id });
    const x = data.tournament;
    if (!x) { say(t('notFound')); return; }
    const myId = data.me && data.me.id;
    const last = x.rounds.length ? x.rounds[x.rounds.length - 1] : null;
    const mine = last && last.tables.find((/** @type {any} */ tb) => tb.players.map(String).includes(String(myId)));
    main.innerHTML = `<section class="panel"><h2>${esc(x.name)} · ${esc(x.game)} · <span id="tstatus">${esc(x.status)}</span></h2>
      ${!x.isRegistered && x.status === 'REGISTRATION' ? `<button id="reg">${t('register')}</button>` : ''}
      ${mine ? `<p><a href="/t/${mine.tableId}">${t('yourTable')}</a></p>` : ''}
      <h3>${t('standings')}</h3><table class="standings"><tbody>${x.standings.map((/** @type {any} */ s) =>
        `<tr><td>${s.rank}</td><td>${esc(s.player.displayName)}</td><td>${s.points}</td><td>${s.wins}</td></tr>`).join('')}</tbody></table>
      <h3>${t('round')}</h3><ul>${x.rounds.map((/** @type {any} */ r) => `<li>${t('round')} ${r.number}: ${r.tables.map((/** @type {any} */ tb) => `<a href="/t/${tb.tableId}">#${tb.tableId}</a>`).join(' ')}</li>`).join('')}</ul></section>`;
    main.querySelector('#reg')?.addEventListener('click', async () => {
      const r = await gql(`mutation($id: ID!) { registerForTournament(tournamentId: $id) { errors { code message } } }`, { id });
      const err = firstError(r.registerForTournament.errors);
      if (err) sayError(err); else load();
    });
  };
  await load();
  cleanups.push(socket.subscribe(() => ({ query: `subscription($id: ID!) { tournamentEvents(tournamentId: $id) { kind status round tableId } }`, variables: { id } }), () => load()));
}

async function leaderboardPage() {
  const game = new URLSearchParams(location.search).get('game') || 'kato';
  const data = await gql(`query($g: String!) { leaderboard(game: $g) { rank player { displayName } rating { ordinal matches } } }`, { g: game });
  main.innerHTML = `<section class="panel"><h2>${t('leaderboard')} · ${esc(game)}</h2><table><tbody>${data.leaderboard.map((/** @type {any} */ e) =>
    `<tr><td>${e.rank}</td><td>${esc(e.player.displayName)}</td><td>${e.rating.ordinal.toFixed(1)}</td><td>${e.rating.matches}</td></tr>`).join('')}</tbody></table></section>`;
}

function init() {
  const switcher = /** @type {HTMLSelectElement} */ (document.getElementById('lang'));
  switcher.value = lang();
  document.documentElement.lang = lang();
  switcher.addEventListener('change', () => { setLang(switcher.value); document.documentElement.lang = switcher.value; route(); });
  document.addEventListener('click', (e) => {
    const a = /** @type {HTMLElement} */ (e.target).closest('a');
    if (a && a.origin === location.origin && !a.hasAttribute('download')) { e.preventDefault(); go(a.pathname + a.search); }
  });
  window.addEventListener('popstate', route);
  window.addEventListener('unhandledrejection', (e) => sayError(e.reason));
  socket.connect();
  route();
}

init();
