// @ts-check
/**
 * The client's only link to the server: GraphQL over fetch and one graphql-transport-ws
 * socket (subscriptions and `act`). Uses the public API only, as any frontend would.
 * @typedef {import('../types/schema').UserError} UserError
 */

const TOKEN_KEY = 'stapel.token';

export function token() { return localStorage.getItem(TOKEN_KEY); }
/** @param {string|null} value */
export function setToken(value) {
  if (value) localStorage.setItem(TOKEN_KEY, value); else localStorage.removeItem(TOKEN_KEY);
}

/** A failed request: transport or GraphQL error (not the typed `errors` of a payload). */
export class ApiError extends Error {
  /** @param {string} code @param {string} message @param {number|null} [retryAfter] */
  constructor(code, message, retryAfter = null) {
    super(message); this.code = code; this.retryAfter = retryAfter;
  }
}

/**
 * @param {string} query
 * @param {Record<string, any>} [variables]
 * @returns {Promise<any>}
 */
export async function gql(query, variables = {}) {
  /** @type {Record<string,string>} */
  const headers = { 'Content-Type': 'application/json' };
  const t = token();
  if (t) headers.Authorization = `Bearer ${t}`;
  const response = await fetch('/graphql/', { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  let body;
  try { body = await response.json(); } catch {
    const wait = response.headers.get('Retry-After');
    if (response.status === 429) throw new ApiError('rate_limited', response.statusText, wait != null ? Number(wait) : null);
    throw new ApiError('http_' + response.status, response.statusText);
  }
  if (body.errors && body.errors.length) {
    const ext = body.errors[0].extensions || {};
    if (ext.code === 'invalid_token') setToken(null);
    throw new ApiError(ext.code || 'error', body.errors[0].message, ext.retryAfter ?? null);
  }
  return body.data;
}

/**
 * A graphql-transport-ws connection that reconnects; each subscription is re-sent on
 * reconnect through its `restart` callback (which picks its own `afterSeq`).
 */
export class Socket {
  constructor() {
    /** @type {WebSocket|null} */ this.ws = null;
    this.ready = false;
    this.nextId = 1;
    /** @type {Map<string, {payload: () => any, next: (data:any)=>void, error?: (e:any)=>void, once?: boolean, done?: (v:any)=>void}>} */
    this.ops = new Map();
    this.closed = false;
  }

  connect() {
    const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql/';
    const ws = new WebSocket(url, 'graphql-transport-ws');
    this.ws = ws; this.ready = false;
    ws.onopen = () => {
      const t = token();
      ws.send(JSON.stringify({ type: 'connection_init', payload: t ? { authorization: `Bearer ${t}` } : {} }));
    };
    ws.onmessage = (msg) => {
      const m = JSON.parse(msg.data);
      if (m.type === 'connection_ack') {
        this.ready = true;
        // Every live operation is in `ops`: (re)send each once, here and only here. (Sending
        // what was asked before the ack as well would repeat an id, and the server closes a
        // socket that does with 4409.)
        for (const [id, op] of this.ops) ws.send(JSON.stringify({ id, type: 'subscribe', payload: op.payload() }));
      } else if (m.type === 'ping') {
        ws.send(JSON.stringify({ type: 'pong' }));
      } else if (m.type === 'next') {
        const op = this.ops.get(m.id);
        if (!op) return;
        if (m.payload.errors && !m.payload.data) { op.error?.(m.payload.errors); return; }
        op.next(m.payload.data);
        if (op.once) { this.ops.delete(m.id); op.done?.(m.payload.data); }
      } else if (m.type === 'error') {
        const op = this.ops.get(m.id);
        this.ops.delete(m.id);
        op?.error?.(m.payload);
      } else if (m.type === 'complete') {
        this.ops.delete(m.id);
      }
    };
    ws.onclose = () => {
      this.ready = false;
      // One-shot operations (act) in flight are dropped: their caller retries with the same key.
      for (const [id, op] of this.ops) if (op.once) { this.ops.delete(id); op.error?.([{ message: 'connection lost' }]); }
      if (!this.closed) setTimeout(() => this.connect(), 1000);
    };
  }

  /** @param {string} text */
  _send(text) {
    // Before the ack nothing is sent: the ack sends every operation in `ops`.
    if (this.ready && this.ws) this.ws.send(text);
  }

  /**
   * @param {() => {query: string, variables?: any}} payload called on every (re)subscribe
   * @param {(data:any) => void} next
   * @param {(e:any) => void} [error]
   * @returns {() => void} unsubscribe
   */
  subscribe(payload, next, error) {
    const id = String(this.nextId++);
    this.ops.set(id, { payload, next, error });
    this._send(JSON.stringify({ id, type: 'subscribe', payload: payload() }));
    return () => {
      if (this.ops.delete(id)) this._send(JSON.stringify({ id, type: 'complete' }));
    };
  }

  /** A single query or mutation over the socket. @param {string} query @param {any} variables */
  request(query, variables) {
    return new Promise((resolve, reject) => {
      const id = String(this.nextId++);
      const payload = { query, variables };
      this.ops.set(id, { payload: () => payload, next: () => {}, once: true, done: resolve, error: reject });
      this._send(JSON.stringify({ id, type: 'subscribe', payload }));
    });
  }

  /** Resubscribe everything (e.g. after signing in with a new token). */
  reconnect() {
    if (this.ws) this.ws.close(); else this.connect();
  }
}

export const socket = new Socket();

/** The first typed error of a payload as a person reads it. @param {UserError[]} errors */
export function firstError(errors) {
  return errors && errors.length ? errors[0] : null;
}
