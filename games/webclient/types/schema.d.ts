// Generated from schema.graphql by games/webclient/generate_types.py: do not edit.

export interface ActPayload {
  __typename?: "ActPayload";
  /** The table's version after your move. */
  version: number | null;
  seq: number | null;
  /** True when this idempotency key was applied before. */
  replayed: boolean;
  errors: Array<UserError>;
  /** The table after your move (one more read; skip it for speed). */
  table: Table | null;
}

/** One move. Exactly one field is set; moves without fields take `true`. Each entry of `legalActions` is a valid value of this input. */
export interface ActionInput {
  /** In kato, krass_kariert, karma, aetsch. */
  play?: PlayInput | null;
  /** In kato, aetsch. Takes `true`. */
  draw?: boolean | null;
  /** In kato, aetsch. Takes `true`. */
  pass?: boolean | null;
  /** In kato. */
  chooseColor?: ChooseColorInput | null;
  /** In kato. Takes `true`. */
  accept?: boolean | null;
  /** In kato. Takes `true`. */
  challenge?: boolean | null;
  /** In kato. Takes `true`. */
  call?: boolean | null;
  /** In kato. */
  catch?: CatchInput | null;
  /** In krass_kariert. */
  takeReserve?: TakeReserveInput | null;
  /** In krass_kariert. */
  insert?: InsertInput | null;
  /** In karma. */
  chooseFaceUp?: ChooseFaceUpInput | null;
  /** In karma. */
  playBlind?: PlayBlindInput | null;
  /** In karma. */
  giveTo?: GiveToInput | null;
  /** In karma. Takes `true`. */
  takePile?: boolean | null;
  /** In aetsch. */
  giveDrawn?: GiveDrawnInput | null;
  /** In aetsch. */
  peek?: PeekInput | null;
  /** In aetsch. */
  give?: GiveInput | null;
  /** In aetsch. */
  swap?: SwapInput | null;
  /** In aetsch. Takes `true`. */
  reroll?: boolean | null;
}

export interface AetschView {
  __typename?: "AetschView";
  game: string;
  seat: number | null;
  version: number;
  deadline: string | null;
  legalActions: Array<any>;
  hand: Array<string> | null;
  handCounts: Array<number>;
  actors: Array<number>;
  players: number;
  top: string | null;
  suit: string | null;
  direction: number;
  phase: string;
  turn: number | null;
  pendingTwo: number;
  twoTarget: number | null;
  toGiveCount: number;
  giveTo: number | null;
  drawnCard: string | null;
  lastRoll: any | null;
  peeked: any | null;
  drawCount: number;
  discardCount: number;
  dealer: number;
  round: number;
  rounds: number;
  roundResults: any;
  placingSums: Array<number>;
  winner: number | null;
  options: any;
  raw: any;
}

/** A token's metadata; the secret is never shown again. */
export interface ApiToken {
  __typename?: "ApiToken";
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  expiresAt: string | null;
}

/** One moderator action. */
export interface AuditLogEntry {
  __typename?: "AuditLogEntry";
  id: string;
  action: string;
  actor: Player | null;
  targetPlayer: Player | null;
  tableId: string | null;
  messageId: string | null;
  reportId: string | null;
  reason: string;
  extra: any;
  createdAt: string;
}

export interface AuditLogPage {
  __typename?: "AuditLogPage";
  items: Array<AuditLogEntry>;
  nextCursor: string | null;
}

export interface AuthPayload {
  __typename?: "AuthPayload";
  /** The new bearer token. Shown once: store it. */
  token: string | null;
  me: Me | null;
  errors: Array<UserError>;
}

/** A bot level a table can ask for (addBot(level: id)). */
export interface BotLevel {
  __typename?: "BotLevel";
  id: string;
  description: string;
}

/** The fields of `catch` (which game takes which: docs/games/). */
export interface CatchInput {
  /** kato: the seat caught */
  seat?: number | null;
}

export interface ChatMessage {
  __typename?: "ChatMessage";
  id: string;
  tableId: string;
  seq: number;
  author: Player;
  text: string;
  createdAt: string;
}

/** The fields of `chooseColor` (which game takes which: docs/games/). */
export interface ChooseColorInput {
  /** kato: the colour in force from now */
  color?: string | null;
}

/** The fields of `chooseFaceUp` (which game takes which: docs/games/). */
export interface ChooseFaceUpInput {
  /** karma: three cards of your hand */
  cards?: Array<string> | null;
}

export interface CreateApiTokenPayload {
  __typename?: "CreateApiTokenPayload";
  /** Shown once: store it. */
  token: string | null;
  apiToken: ApiToken | null;
  errors: Array<UserError>;
}

export interface CreateTableInput {
  game?: string;
  options?: any | null;
  seatCount?: number | null;
  visibility?: VisibilityEnum;
  turnClockSeconds?: number | null;
  allowSpectators?: boolean;
  spectatorsMayChat?: boolean;
  /** Spectators receive this table's events this many seconds late (0 to 3600), so a watcher cannot relay the match to a player; seated players are never delayed. */
  spectatorDelaySeconds?: number;
  /** Take seat 0 yourself. */
  join?: boolean;
}

export interface CreateTournamentInput {
  name?: string;
  game?: string;
  format?: TournamentFormat;
  options?: any | null;
  tableSize?: number | null;
  /** Swiss / round robin. */
  rounds?: number | null;
  /** Single elimination: how many of each table go on (0: half the table). */
  advance?: number;
  /** Arena. */
  durationMinutes?: number | null;
  maxPlayers?: number | null;
  registrationOpensAt?: string | null;
  registrationClosesAt?: string | null;
  /** Started by the clock then; without it the organiser starts it. */
  startsAt?: string | null;
  rated?: boolean;
  /** Bots fill the seats of byes. */
  allowBots?: boolean;
  botLevel?: string;
  /** Every table's turn clock: a no-show's turns are played by a bot. */
  turnClockSeconds?: number;
  /** Every table's spectators get its events this many seconds late (0 to 3600). */
  spectatorDelaySeconds?: number;
}

export interface CreateWebhookEndpointInput {
  url?: string;
  /** Empty: every tournament you organise. */
  tournamentId?: string | null;
  /** Empty: every event. */
  events?: Array<WebhookEvent> | null;
  description?: string;
}

export interface DeleteWebhookEndpointPayload {
  __typename?: "DeleteWebhookEndpointPayload";
  ok: boolean;
  errors: Array<UserError>;
}

/** Why an expected failure happened; the values are stable (docs/api.md, docs/games/). */
export type ErrorCode = "unauthenticated" | "invalid_credentials" | "invalid_username" | "username_taken" | "invalid_password" | "invalid_display_name" | "invalid_token" | "invalid_token_name" | "malformed_authorization" | "token_expired" | "banned" | "inactive" | "not_found" | "table_full" | "seat_taken" | "invalid_seat" | "wrong_invite_code" | "already_seated" | "not_seated" | "not_creator" | "not_open" | "not_playing" | "not_enough_players" | "game_over" | "stale_version" | "unknown_game" | "invalid_options" | "invalid_bot_level" | "spectators_not_allowed" | "invalid_seat_count" | "invalid_turn_clock" | "invalid_visibility" | "invalid_idempotency_key" | "idempotency_key_reused" | "busy" | "bad_after_seq" | "invalid_cursor" | "malformed_action" | "invalid_spectator_delay" | "not_finished" | "not_started" | "chat_not_allowed" | "invalid_text" | "muted" | "table_closed" | "forbidden" | "reason_required" | "invalid_until" | "cannot_report_self" | "invalid_reason" | "already_handled" | "invalid_status" | "unknown_action" | "unknown_field" | "missing_field" | "invalid_type" | "invalid_value" | "not_your_turn" | "round_over" | "round_not_over" | "unknown_option" | "invalid_deck" | "invalid_player_count" | "card_not_in_hand" | "does_not_match" | "color_required" | "color_not_allowed" | "choose_color_first" | "cannot_choose_color_now" | "one_card_only" | "invalid_combination" | "must_answer_draw" | "must_play_drawn_card" | "cannot_draw_now" | "cannot_pass" | "nothing_to_accept" | "nothing_to_challenge" | "nothing_to_call" | "nothing_to_catch" | "cannot_catch_yourself" | "must_insert" | "nothing_to_insert" | "invalid_index" | "rank_required" | "rank_not_allowed" | "played_alone" | "not_a_combination" | "does_not_beat" | "must_lead" | "no_reserve" | "no_such_reserve" | "invalid_position" | "choose_face_up_first" | "already_chosen" | "receiver_required" | "to_not_allowed" | "invalid_receiver" | "card_not_on_table" | "cards_not_identical" | "one_karma_card" | "must_play_blind" | "no_cards" | "blind_not_allowed" | "no_card_at_position" | "nothing_to_give" | "table_play_required" | "pile_empty" | "wrong_phase" | "not_drawn_card" | "must_answer_two" | "suit_required" | "suit_not_allowed" | "invalid_target" | "invalid_seats" | "reroll_not_allowed" | "not_organiser" | "registration_closed" | "tournament_full" | "already_registered" | "not_registered" | "disqualified" | "already_started" | "invalid_format" | "invalid_table_size" | "invalid_rounds" | "invalid_advance" | "invalid_duration" | "invalid_schedule" | "invalid_name" | "invalid_url" | "invalid_events" | "too_many_endpoints" | "not_elimination" | "already_paused" | "not_paused" | "tournament_over" | "no_pending_round" | "no_such_table" | "not_in_round" | "not_at_table" | "same_table" | "table_too_small" | "already_bye" | "rate_limited" | "query_timeout";

/** One thing that happened; `data` holds its fields, camelCased like the schema (each game's events and who sees them: docs/games/<game>.md). */
export interface GameEvent {
  __typename?: "GameEvent";
  type: string;
  data: any;
}

export interface GameInfo {
  __typename?: "GameInfo";
  id: string;
  name: string;
  minPlayers: number;
  maxPlayers: number;
  options: Array<OptionSpec>;
  botLevels: Array<string>;
  /** The bot levels with a short description, weakest first. */
  botLevelInfo: Array<BotLevel>;
}

/** One game's view of a match. */
export type GameView = KatoView | KrassKariertView | KarmaView | AetschView;

/** The fields of `giveDrawn` (which game takes which: docs/games/). */
export interface GiveDrawnInput {
  /** aetsch: another player */
  to?: number | null;
}

/** The fields of `give` (which game takes which: docs/games/). */
export interface GiveInput {
  /** aetsch: a card of your hand */
  card?: string | null;
}

/** The fields of `giveTo` (which game takes which: docs/games/). */
export interface GiveToInput {
  /** karma: the receiver */
  to?: number | null;
}

/** The fields of `insert` (which game takes which: docs/games/). */
export interface InsertInput {
  /** krass_kariert: where in your hand (0 = front) */
  position?: number | null;
}

export interface KarmaView {
  __typename?: "KarmaView";
  game: string;
  seat: number | null;
  version: number;
  deadline: string | null;
  legalActions: Array<any>;
  hand: Array<string> | null;
  handCounts: Array<number>;
  actors: Array<number>;
  players: number;
  options: any;
  phase: string;
  turn: number | null;
  pending: string | null;
  top: string | null;
  pile: Array<string>;
  tableUp: Array<Array<string>>;
  tableDownCounts: Array<number>;
  tableDownPositions: Array<Array<number>>;
  ownTableDown: Array<string> | null;
  chosen: Array<boolean>;
  faceUpChoice: Array<string> | null;
  drawCount: number;
  outCount: number;
  finished: Array<number>;
  loser: number | null;
  cardsLeft: Array<number>;
  result: any | null;
  raw: any;
}

export interface KatoView {
  __typename?: "KatoView";
  game: string;
  seat: number | null;
  version: number;
  deadline: string | null;
  legalActions: Array<any>;
  hand: Array<string> | null;
  handCounts: Array<number>;
  actors: Array<number>;
  top: string | null;
  color: string | null;
  direction: number;
  phase: string;
  turn: number | null;
  pendingDraw: number;
  pendingKind: string | null;
  challengeable: boolean;
  challengeColor: string | null;
  drawn: string | null;
  katoWindow: number | null;
  shownHand: any | null;
  drawCount: number;
  discardCount: number;
  players: number;
  dealer: number;
  round: number;
  scores: Array<number>;
  lastResult: any | null;
  over: boolean;
  options: any;
  raw: any;
}

export interface KrassKariertView {
  __typename?: "KrassKariertView";
  game: string;
  seat: number | null;
  version: number;
  deadline: string | null;
  legalActions: Array<any>;
  hand: Array<string> | null;
  handCounts: Array<number>;
  actors: Array<number>;
  players: number;
  deal: number;
  phase: string;
  top: any | null;
  chips: Array<number>;
  reserves: Array<Array<string>>;
  leader: number | null;
  trick: any;
  toAct: Array<number>;
  lastTrick: any;
  drawn: Array<string> | null;
  drawer: number | null;
  drawnWaiting: number;
  drawsLeft: number;
  drawPileCount: number;
  discardPileCount: number;
  handSize: number;
  lastLoser: number | null;
  roundResult: any | null;
  result: any | null;
  raw: any;
}

export interface LeaderboardEntry {
  __typename?: "LeaderboardEntry";
  rank: number;
  player: Player;
  rating: Rating;
}

export interface LobbyUpdate {
  __typename?: "LobbyUpdate";
  tableId: string;
  game: string;
  status: TableStatusEnum;
}

/** The signed-in player, with what only they may see. */
export interface Me {
  __typename?: "Me";
  id: string;
  displayName: string;
  isGuest: boolean;
  isBot: boolean;
  username: string;
  isStaff: boolean;
  mutedUntil: string | null;
  /** When the token of this request stops working (null: no end). A guest's token ends after a time unused, so for guests this moves on with every use. */
  tokenExpiresAt: string | null;
}

export interface Mutation {
  __typename?: "Mutation";
  /** A guest player and its token; no password needed. */
  createGuest: AuthPayload;
  /** Register with a password. Called with a guest's token, the guest becomes this registered player and keeps its history. */
  register: AuthPayload;
  /** A new token for a registered player. */
  login: AuthPayload;
  /** A further named token, e.g. one per device or bot script. */
  createApiToken: CreateApiTokenPayload;
  /** Change your password. Every other token of yours is revoked and its websockets are closed; the token of this request goes on working. */
  changePassword: AuthPayload;
  /** Revoke one of your tokens; it is refused from then on. */
  revokeApiToken: RevokeApiTokenPayload;
  createTable: TablePayload;
  /** Sit down by table id or invite code (private tables need the code); `seat` picks a free seat. */
  joinTable: TablePayload;
  /** Before the start your seat is freed; during a match a bot plays it to the end. */
  leaveTable: TablePayload;
  /** The creator deals the first round. */
  startTable: TablePayload;
  /** The creator ends a table that has not started, without a result. Anything else is a moderator's action: it needs the abort permission and a `reason`, and is audited. */
  abortTable: TablePayload;
  /** The creator seats a bot before the start. `level` is one of the game's `botLevels` (none: its default). */
  addBot: TablePayload;
  removeBot: TablePayload;
  /** Make a move. `expectedVersion` is the table version you saw (a move made against an older one is refused as `stale_version`); the same `idempotencyKey` applies once and answers the same. */
  act: ActPayload;
  /** Say something at a table: seated players, and spectators where the table allows it. 1 to 500 characters; rate-limited (`rate_limited`); refused while you are muted (`muted`, the message says until when; see `me.mutedUntil`). Event data keys: `message_id`, `seat`, `player_id`, `display_name`, `text`. */
  sendChatMessage: SendChatMessagePayload;
  /** Report a player to the moderators, optionally at a table or for a chat message of theirs. */
  reportPlayer: ReportPlayerPayload;
  /** Organisers only (permission tournaments.add_tournament). */
  createTournament: TournamentPayload;
  registerForTournament: TournamentPayload;
  /** Before the start the place is freed; later you are not paired again and a bot finishes your running table. */
  unregisterFromTournament: TournamentPayload;
  /** The organiser starts the first round now. */
  startTournament: TournamentPayload;
  /** Pause: tables that play finish; the next round is paired and waits (pending) until you resume. Errors (codes): `not_found`, `not_organiser`, `reason_required`, and per action `already_paused`, `not_paused`, `tournament_over`, `no_pending_round`, `not_in_round`, `no_such_table`, `same_table`, `table_full`, `not_at_table`, `table_too_small`, `already_bye`. */
  pauseTournament: TournamentPayload;
  /** Resume: the pending round starts (an arena seats whoever waits). Errors (codes): `not_found`, `not_organiser`, `reason_required`, and per action `already_paused`, `not_paused`, `tournament_over`, `no_pending_round`, `not_in_round`, `no_such_table`, `same_table`, `table_full`, `not_at_table`, `table_too_small`, `already_bye`. */
  resumeTournament: TournamentPayload;
  /** Pair the pending round again from the field as it is now. Errors (codes): `not_found`, `not_organiser`, `reason_required`, and per action `already_paused`, `not_paused`, `tournament_over`, `no_pending_round`, `not_in_round`, `no_such_table`, `same_table`, `table_full`, `not_at_table`, `table_too_small`, `already_bye`. */
  repairTournamentRound: TournamentPayload;
  /** Move a player of the pending round to table `tableNumber` (from 1): to a free seat, or in exchange with `swapWithPlayerId` who sits there. Errors (codes): `not_found`, `not_organiser`, `reason_required`, and per action `already_paused`, `not_paused`, `tournament_over`, `no_pending_round`, `not_in_round`, `no_such_table`, `same_table`, `table_full`, `not_at_table`, `table_too_small`, `already_bye`. */
  moveTournamentPlayer: TournamentPayload;
  /** Give a player a bye in the pending round (a bye's points). Errors (codes): `not_found`, `not_organiser`, `reason_required`, and per action `already_paused`, `not_paused`, `tournament_over`, `no_pending_round`, `not_in_round`, `no_such_table`, `same_table`, `table_full`, `not_at_table`, `table_too_small`, `already_bye`. */
  awardTournamentBye: TournamentPayload;
  /** Register a URL for tournament events, signed per Standard Webhooks; the secret is in this payload only. */
  createWebhookEndpoint: WebhookEndpointPayload;
  updateWebhookEndpoint: WebhookEndpointPayload;
  /** A new secret, shown once; the old one stops at once. */
  rotateWebhookSecret: WebhookEndpointPayload;
  deleteWebhookEndpoint: DeleteWebhookEndpointPayload;
  /** Send a `webhook.test` event to this endpoint now (also when it is disabled). */
  sendTestWebhook: WebhookDeliveryPayload;
}

export interface OptionSpec {
  __typename?: "OptionSpec";
  name: string;
  /** int, bool or choice */
  type: string;
  default: any | null;
  description: string;
  minimum: number | null;
  maximum: number | null;
  nullable: boolean;
  choices: Array<string> | null;
}

/** The fields of `peek` (which game takes which: docs/games/). */
export interface PeekInput {
  /** aetsch: whose hand */
  seat?: number | null;
}

/** The fields of `playBlind` (which game takes which: docs/games/). */
export interface PlayBlindInput {
  /** karma: its position 0..2 */
  position?: number | null;
}

/** The fields of `play` (which game takes which: docs/games/). */
export interface PlayInput {
  /** kato: the cards played, from your hand; karma: identical cards */
  cards?: Array<string> | null;
  /** kato: the colour chosen (wild cards only) (optional) */
  color?: string | null;
  /** kato: call KaTO with this play (optional); aetsch: Ätsch! (one card left) or Ätsch, Ätsch! (none) (optional) */
  call?: boolean | null;
  /** krass_kariert: the hand position of the first card */
  index?: number | null;
  /** krass_kariert: how many adjacent cards */
  count?: number | null;
  /** krass_kariert: solo, street2, pair, street3, triple, stop or draw */
  kind?: string | null;
  /** krass_kariert: the highest number as played, x's included (not for stop or draw) (optional) */
  rank?: number | null;
  /** karma: who receives the pile (karma-give only) (optional) */
  to?: number | null;
  /** aetsch: the card, from your hand */
  card?: string | null;
  /** aetsch: the wished suit (J and joker only) (optional) */
  suit?: string | null;
}

/** A person, a guest or a bot, as others see them. */
export interface Player {
  __typename?: "Player";
  id: string;
  displayName: string;
  isGuest: boolean;
  isBot: boolean;
}

/** A player as everyone may see them. */
export interface PlayerProfile {
  __typename?: "PlayerProfile";
  id: string;
  displayName: string;
  isGuest: boolean;
  isBot: boolean;
  ratings: Array<Rating>;
  /** Rounds and matches played and won, per game they have finished a round of. */
  stats: Array<PlayerStats>;
}

/** A person's record in one game: rounds and matches played to their end at tables where they held a seat (bots have none), and how many of them they won (placed first, ties included). */
export interface PlayerStats {
  __typename?: "PlayerStats";
  game: string;
  roundsPlayed: number;
  roundsWon: number;
  matchesPlayed: number;
  matchesWon: number;
}

export interface Query {
  __typename?: "Query";
  /** The signed-in player; null without a token. */
  me: Me | null;
  /** The signed-in player's API tokens (metadata only). */
  apiTokens: Array<ApiToken>;
  /** Every game: player counts, house rules and bot levels. */
  games: Array<GameInfo>;
  /** The lobby: public tables, newest first (open by default). */
  tables: TablePage;
  /** One table, with your view of its match. */
  table: Table | null;
  /** Tables you sit at that are open or playing. */
  myTables: Array<Table>;
  /** Moderator actions, newest first. Staff with the audit log permission only; others get the error code `forbidden`. */
  moderationLog: AuditLogPage | null;
  /** The replay of an ended match (finished or aborted), every hand included. Public tables: anyone; private: their players and creator; staff always. Errors (codes): `not_found`, `not_finished` while the match runs (nothing of it is revealed), `not_started`. */
  tableReplay: TableReplay;
  /** One tournament: its rounds, tables and standings. */
  tournament: Tournament | null;
  /** Tournaments, newest first. */
  tournaments: Array<Tournament>;
  /** The best rated players of a game (by ordinal). */
  leaderboard: Array<LeaderboardEntry>;
  /** A player as everyone may see them, with their ratings. */
  player: PlayerProfile | null;
  /** Your webhook endpoints (organisers and staff). */
  webhookEndpoints: Array<WebhookEndpoint>;
}

/** OpenSkill (Plackett-Luce) rating in one game; `ordinal` = mu - 3 sigma ranks leaderboards. */
export interface Rating {
  __typename?: "Rating";
  game: string;
  mu: number;
  sigma: number;
  ordinal: number;
  matches: number;
  updatedAt: string;
  /** The latest rated matches, newest first. */
  history: Array<RatingChange>;
}

export interface RatingChange {
  __typename?: "RatingChange";
  tableId: string;
  placing: number;
  muBefore: number;
  muAfter: number;
  sigmaAfter: number;
  ordinalAfter: number;
  createdAt: string;
}

export interface Registration {
  __typename?: "Registration";
  player: Player;
  status: string;
  reason: string;
  createdAt: string;
}

/** One seat of a replayed match. */
export interface ReplaySeat {
  __typename?: "ReplaySeat";
  seat: number;
  playerId: string;
  displayName: string;
  isBot: boolean;
  botLevel: string | null;
}

/** One change at the table, in order (the log without its chat). */
export interface ReplayStep {
  __typename?: "ReplayStep";
  seq: number;
  kind: string;
  /** What a rebuild calls here: `new_game`, `apply` (with `seat` and `action`), `start_next_round`, or nothing (seats, the end). */
  engine: string | null;
  seat: number | null;
  action: any | null;
  version: number;
  status: string | null;
  at: string;
  /** What everyone saw at this step. */
  events: any;
  /** What only some seats saw (their hands), each with its `visible_to`; revealed because the match has ended. */
  hiddenEvents: any;
}

/** Your report, as the moderators received it. */
export interface Report {
  __typename?: "Report";
  id: string;
  status: ReportStatusEnum;
  createdAt: string;
}

export interface ReportPlayerPayload {
  __typename?: "ReportPlayerPayload";
  report: Report | null;
  errors: Array<UserError>;
}

export type ReportStatusEnum = "OPEN" | "RESOLVED" | "DISMISSED";

export interface RevokeApiTokenPayload {
  __typename?: "RevokeApiTokenPayload";
  apiToken: ApiToken | null;
  errors: Array<UserError>;
}

export interface RoundResultType {
  __typename?: "RoundResultType";
  roundNumber: number;
  placings: Array<number>;
  scores: Array<number>;
}

export interface SeatType {
  __typename?: "SeatType";
  position: number;
  player: Player;
  isBot: boolean;
  botLevel: string | null;
  takenOverByBot: boolean;
}

export interface SendChatMessagePayload {
  __typename?: "SendChatMessagePayload";
  message: ChatMessage | null;
  errors: Array<UserError>;
}

/** Rank by points (placing p at k seats scores k - p; a bye half a table), then Buchholz (opponents' points), wins, lower placing sum, seed. Elimination ranks by the round reached first. Disqualified players rank last. */
export interface Standing {
  __typename?: "Standing";
  rank: number;
  player: Player;
  points: number;
  buchholz: number;
  wins: number;
  placingSum: number;
  matches: number;
  byes: number;
  eliminatedInRound: number | null;
}

export interface Subscription {
  __typename?: "Subscription";
  /** Every change at a table as you may see it, numbered by `seq`. First the changes after `afterSeq` are replayed from the log (the last one with your current view), then live ones follow. A seat's own cards reach only that seat. An `afterSeq` beyond the table's last seq is refused with `bad_after_seq` (its `lastSeq` in the error's extensions). */
  tableEvents: TableUpdate;
  /** Public tables opening, filling, starting, ending. */
  lobbyEvents: LobbyUpdate;
  /** A tournament as it runs: first a `subscribed` event with its current status, then round started, table finished, standings changed, finished. Events say what changed; query `tournament` for the details. */
  tournamentEvents: TournamentEvent;
}

/** The fields of `swap` (which game takes which: docs/games/). */
export interface SwapInput {
  /** aetsch: the two seats */
  seats?: Array<number> | null;
}

export interface Table {
  __typename?: "Table";
  /** Opaque and random (not a counter): use it as it is, in every `tableId` and in links. */
  id: string;
  game: string;
  status: TableStatusEnum;
  visibility: VisibilityEnum;
  seatCount: number;
  options: any;
  version: number;
  lastSeq: number;
  roundNumber: number;
  deadline: string | null;
  turnClockSeconds: number;
  allowSpectators: boolean;
  spectatorsMayChat: boolean;
  spectatorDelaySeconds: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  result: any | null;
  creator: Player;
  seats: Array<SeatType>;
  /** Your seat here, if you sit here. */
  mySeat: number | null;
  /** Only for the creator and seated players. */
  inviteCode: string | null;
  /** Your own view (a spectator's if you do not sit here). */
  view: GameView | null;
  /** The numbered changes after `afterSeq`, as you may see them. */
  events: Array<TableUpdate>;
  roundResults: Array<RoundResultType>;
}

export interface TablePage {
  __typename?: "TablePage";
  items: Array<Table>;
  nextCursor: string | null;
}

export interface TablePayload {
  __typename?: "TablePayload";
  table: Table | null;
  errors: Array<UserError>;
}

/** An ended match, enough to rebuild every state with the engine: `newGame(seatCount, seed, options)`, then each step's `engine` call. Also at `/api/tables/<id>/replay.json`. */
export interface TableReplay {
  __typename?: "TableReplay";
  tableId: string;
  game: string;
  status: string;
  seatCount: number;
  /** A string: 62 bits do not fit GraphQL's Int. */
  seed: string;
  options: any;
  /** The first deal's draw order. */
  deck: Array<string>;
  players: Array<ReplaySeat>;
  steps: Array<ReplayStep>;
  result: any | null;
  finalState: any | null;
  /** The whole replay as one JSON document (the export's content). */
  document: any;
}

export type TableStatusEnum = "OPEN" | "PLAYING" | "FINISHED" | "ABORTED";

/** One numbered change at a table, as this viewer may see it. Every viewer receives every `seq`, so a gap means something was missed: resubscribe with `afterSeq`. */
export interface TableUpdate {
  __typename?: "TableUpdate";
  tableId: string;
  seq: number;
  kind: string;
  version: number;
  /** The table's status as of this seq (right after this change), in replays too. */
  status: TableStatusEnum;
  events: Array<GameEvent>;
  /** The viewer's view after this change (null in a replay but the last). */
  view: GameView | null;
}

/** The fields of `takeReserve` (which game takes which: docs/games/). */
export interface TakeReserveInput {
  /** krass_kariert: 0 or 1 among your remaining reserve cards */
  reserve?: number | null;
  /** krass_kariert: where in your hand (0 = front) */
  position?: number | null;
}

export interface Tournament {
  __typename?: "Tournament";
  id: string;
  name: string;
  game: string;
  format: TournamentFormat;
  status: TournamentStatus;
  options: any;
  tableSize: number;
  /** Swiss and round robin: how many rounds (set at the start if left open). */
  plannedRounds: number | null;
  advance: number;
  durationMinutes: number | null;
  maxPlayers: number | null;
  registrationOpensAt: string | null;
  registrationClosesAt: string | null;
  startsAt: string | null;
  endsAt: string | null;
  rated: boolean;
  allowBots: boolean;
  botLevel: string;
  turnClockSeconds: number;
  /** Every table of this tournament delays its spectators' events by this much. */
  spectatorDelaySeconds: number;
  /** Paused: tables that play finish, nothing new starts until the organiser resumes. */
  pausedAt: string | null;
  pauseReason: string;
  currentRound: number;
  registeredCount: number;
  organiser: Player;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  rounds: Array<TournamentRound>;
  standings: Array<Standing>;
  registrations: Array<Registration>;
  /** Whether you are registered (and not withdrawn). */
  isRegistered: boolean;
}

export interface TournamentEvent {
  __typename?: "TournamentEvent";
  tournamentId: string;
  /** subscribed, registration_opened, registration_closed, registrations_changed, started, round_started, table_finished, standings_changed, finished, cancelled, paused, resumed, round_prepared (a pending round was paired or changed) */
  kind: string;
  status: TournamentStatus;
  round: number;
  tableId: string | null;
}

export type TournamentFormat = "ROUND_ROBIN" | "SWISS" | "SINGLE_ELIMINATION" | "ARENA";

export interface TournamentPayload {
  __typename?: "TournamentPayload";
  tournament: Tournament | null;
  errors: Array<UserError>;
}

export interface TournamentRound {
  __typename?: "TournamentRound";
  number: number;
  /** pending (paired while the tournament is paused; see `planned`), playing, finished */
  status: string;
  byes: Array<string>;
  startedAt: string;
  finishedAt: string | null;
  tables: Array<TournamentTable>;
  /** A pending round's tables (player ids in seat order), before they are created. */
  planned: Array<Array<string>>;
}

export type TournamentStatus = "SCHEDULED" | "REGISTRATION" | "CLOSED" | "RUNNING" | "FINISHED" | "CANCELLED";

/** One table of a round. */
export interface TournamentTable {
  __typename?: "TournamentTable";
  number: number;
  tableId: string;
  status: string;
  /** Registered players in seat order (filler bots sit after them). */
  players: Array<string>;
  /** Player id -> placing at this table, once it finished. */
  placings: any | null;
  /** The game table itself: seats, your view, its events. */
  table: Table | null;
}

export interface UpdateWebhookEndpointInput {
  id?: string;
  url?: string | null;
  events?: Array<WebhookEvent> | null;
  description?: string | null;
  /** true enables a disabled endpoint again; false disables it. */
  active?: boolean | null;
}

/** An expected failure: switch on `code`; `message` is for people. */
export interface UserError {
  __typename?: "UserError";
  code: ErrorCode;
  message: string;
  field: string | null;
  /** With `rate_limited`: seconds to wait before trying again. */
  retryAfter: number | null;
}

export type VisibilityEnum = "PUBLIC" | "PRIVATE";

/** One event for one endpoint; every try carries the same `webhook-id` (`messageId`). */
export interface WebhookDelivery {
  __typename?: "WebhookDelivery";
  id: string;
  messageId: string;
  eventType: string;
  /** pending, succeeded or failed */
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
  payload: any;
}

export interface WebhookDeliveryPayload {
  __typename?: "WebhookDeliveryPayload";
  delivery: WebhookDelivery | null;
  errors: Array<UserError>;
}

export interface WebhookEndpoint {
  __typename?: "WebhookEndpoint";
  id: string;
  url: string;
  description: string;
  /** Empty: every tournament you organise. */
  tournamentId: string | null;
  /** Empty: every event. */
  events: Array<string>;
  isActive: boolean;
  disabledAt: string | null;
  /** Why it was disabled (for example after repeated failed tries). */
  disabledReason: string;
  consecutiveFailures: number;
  createdAt: string;
  /** The latest deliveries, newest first. */
  deliveries: Array<WebhookDelivery>;
}

export interface WebhookEndpointPayload {
  __typename?: "WebhookEndpointPayload";
  endpoint: WebhookEndpoint | null;
  /** The signing secret (`whsec_...`): shown only here, once. */
  secret: string | null;
  errors: Array<UserError>;
}

/** Event types an endpoint can ask for (the payload's `type`). */
export type WebhookEvent = "REGISTRATION_OPENED" | "REGISTRATION_CLOSED" | "STARTED" | "ROUND_STARTED" | "TABLE_FINISHED" | "ROUND_FINISHED" | "FINISHED" | "CANCELLED" | "PLAYER_DISQUALIFIED";
