// The wire types of the table server (the protocol crate), as JSDoc types.
// The golden-JSON fixtures of the protocol are type-checked against these
// in CI, so a change on either side that breaks the other fails the build.

/** @typedef {'goats' | 'tigers'} Side */
/** @typedef {'friend' | 'computer' | 'bots'} Opponent */
/** @typedef {'host' | 'guest'} Player */
/** @typedef {'player' | 'spectator'} Role */
/** @typedef {'placement' | 'movement'} Phase */
/** @typedef {'forbid' | 'threefold_draw'} Repetition */
/** @typedef {'single' | 'two_boards' | 'series'} Format */
/** @typedef {1 | 2} BoardNumber which board of a two-board table */

/**
 * @typedef {object} Variant
 * @property {number} [goats_to_win] 3..7; left out: the default (5, or 4 with three tigers)
 * @property {Side} [first]
 * @property {boolean} [multi_jump]
 * @property {boolean} [three_tigers]
 * @property {Repetition} [repetition]
 * @property {number} [ply_limit]
 */

/**
 * A table's time control: an initial time and an increment per action, in
 * seconds (initial 5..=10800, increment 0..=180), or a correspondence pace
 * of 1 to 3 days per action.
 * @typedef {{initial: number, increment: number} | {days_per_action: number}} ClockOption
 */

/**
 * `POST /api/tables` body.
 * @typedef {object} CreateTable
 * @property {Opponent} opponent
 * @property {Side} [side]
 * @property {number} [level]
 * @property {number} [spectators]
 * @property {Variant} [variant]
 * @property {ClockOption | null} [clock] left out or `null`: no clock
 * @property {Format} [format] left out: `single`
 * @property {number} [series_games] 2, 4 or 6, with `format: 'series'` only
 */

/**
 * `POST /api/tables` answer (201).
 * @typedef {object} TableCreated
 * @property {string} table
 * @property {string | null} secret
 * @property {Side | null} side
 * @property {string | null} seat_link
 * @property {string | null} opponent_link
 * @property {string | null} spectator_link
 */

/**
 * Why the HTTP API refused a request (the protocol crate's `ApiErrorCode`).
 * @typedef {'invalid_json' | 'forbidden_origin' | 'not_found' | 'game_not_over' | 'too_large'
 *   | 'unsupported_media_type' | 'invalid_field' | 'illegal_action' | 'invalid_notation'
 *   | 'rate_limited' | 'unavailable' | 'not_signed_in' | 'wrong_password' | 'name_taken'
 *   | 'already_account' | 'account_needed' | 'taken' | 'busy'
 *   | 'blocked'} ApiErrorCode
 */

/**
 * A rating as players read it.
 * @typedef {object} RatingView
 * @property {string} speed
 * @property {number} rating
 * @property {number} deviation
 * @property {boolean} provisional
 * @property {number} games
 */

/**
 * A table where the player has a seat and a game goes on.
 * @typedef {object} PlayingGame
 * @property {string} table
 * @property {string} url
 * @property {boolean} lobby
 */

/**
 * `GET /api/me`: the current player.
 * @typedef {object} Me
 * @property {string} id
 * @property {string | null} name
 * @property {RatingView[]} ratings
 * @property {PlayingGame[]} playing
 */

/**
 * A player someone blocks.
 * @typedef {object} BlockedPlayer
 * @property {string} id
 * @property {string | null} name
 */

/**
 * `GET /api/blocks`: the players the current player blocks, the latest
 * first.
 * @typedef {object} BlockList
 * @property {BlockedPlayer[]} players
 */

/**
 * Games won, drawn and lost with one side.
 * @typedef {object} SideRecord
 * @property {Side} side
 * @property {number} won
 * @property {number} drawn
 * @property {number} lost
 */

/**
 * The rating after one rated game.
 * @typedef {object} RatingPoint
 * @property {number} at milliseconds since the epoch
 * @property {number} rating
 */

/**
 * A player's rating over time in one speed class, oldest first.
 * @typedef {object} RatingHistory
 * @property {string} speed
 * @property {RatingPoint[]} points
 */

/**
 * `GET /api/players/{id}`: a player's profile.
 * @typedef {object} Profile
 * @property {string} id
 * @property {string | null} name
 * @property {number} created
 * @property {boolean} closed
 * @property {RatingView[]} ratings
 * @property {SideRecord[]} record
 * @property {RatingHistory[]} history
 */

/**
 * Who played the other side of a game.
 * @typedef {{kind: 'player', id: string, name: string | null}
 *   | {kind: 'computer', level: number | null}
 *   | {kind: 'link'}} GameOpponent
 */

/**
 * One finished game, as its player sees it.
 * @typedef {object} PlayerGame
 * @property {string} table
 * @property {number} game
 * @property {number} [board]
 * @property {Side} side
 * @property {GameOpponent} opponent
 * @property {'won' | 'drawn' | 'lost' | 'aborted'} result
 * @property {ResultReason} reason
 * @property {number} plies
 * @property {string} speed
 * @property {boolean} rated
 * @property {number | null} rating
 * @property {number | null} rating_change
 * @property {number} ended
 * @property {string} url
 */

/**
 * `GET /api/players/{id}/games`: one page of a player's games, newest first.
 * @typedef {object} PlayerGames
 * @property {PlayerGame[]} games
 * @property {string | null} next
 */

/**
 * A player on a leaderboard.
 * @typedef {object} LeaderboardEntry
 * @property {number} rank
 * @property {string} id
 * @property {string} name
 * @property {number} rating
 * @property {number} deviation
 * @property {number} games
 */

/**
 * `GET /api/leaderboard/{speed}`.
 * @typedef {object} Leaderboard
 * @property {string} speed
 * @property {LeaderboardEntry[]} players
 */

/**
 * `POST /api/account` and `POST /api/session` bodies.
 * @typedef {object} AccountCredentials
 * @property {string} name
 * @property {string} password
 */

/**
 * `PUT /api/account/password` body.
 * @typedef {object} PasswordChange
 * @property {string} password
 * @property {string} new_password
 */

/**
 * `DELETE /api/account` body.
 * @typedef {object} AccountClosing
 * @property {string} password
 */

/**
 * A time control as a table request gives it.
 * @typedef {object} TimeControlRequest
 * @property {number} [initial]
 * @property {number} [increment]
 * @property {number} [days_per_action]
 */

/**
 * `POST /api/challenges` body.
 * @typedef {object} CreateChallenge
 * @property {'goats' | 'tigers' | 'random'} [side]
 * @property {TimeControlRequest | null} [clock]
 * @property {boolean} [rated]
 * @property {number} [min_rating]
 * @property {number} [max_rating]
 */

/**
 * A player as the lobby shows them.
 * @typedef {object} LobbyPlayer
 * @property {string} id
 * @property {string | null} name
 * @property {number} rating
 * @property {boolean} provisional
 */

/**
 * An open challenge.
 * @typedef {object} Challenge
 * @property {string} id
 * @property {LobbyPlayer} player
 * @property {'goats' | 'tigers' | 'random'} side
 * @property {TimeControlRequest | null} clock
 * @property {string} speed
 * @property {boolean} rated
 * @property {number | null} min_rating
 * @property {number | null} max_rating
 */

/**
 * A pool and how many wait in it.
 * @typedef {object} PoolView
 * @property {string} id
 * @property {string} speed
 * @property {number} waiting
 */

/**
 * `GET /api/lobby`.
 * @typedef {object} LobbyState
 * @property {Challenge[]} challenges
 * @property {PoolView[]} pools
 * @property {number} players_online
 * @property {number} games_in_play
 */

/**
 * A new table the lobby seated the player at.
 * @typedef {object} Paired
 * @property {string} table
 * @property {string} url
 */

/**
 * `POST /api/pools/{pool}` answer.
 * @typedef {object} PoolJoined
 * @property {string} pool
 * @property {boolean} rated
 */

/**
 * A lobby game in progress.
 * @typedef {object} LiveGame
 * @property {string} table
 * @property {string} url
 * @property {string} speed
 * @property {TimeControlRequest | null} clock
 * @property {boolean} rated
 * @property {LobbyPlayer} goats
 * @property {LobbyPlayer} tigers
 */

/**
 * `GET /api/live`.
 * @typedef {object} LiveGames
 * @property {LiveGame[]} games
 */

/**
 * An event of the lobby's live channel.
 * @typedef {({type: 'state'} & LobbyState) | ({type: 'paired'} & Paired)} LobbyEvent
 */

/**
 * An HTTP error body.
 * @typedef {object} ApiError
 * @property {ApiErrorCode} error
 * @property {string} [field]
 * @property {string} message
 */

/**
 * Commands other than `action` take an optional id, acknowledged the same
 * way once the command is stored. The commands about one game name their
 * `board` (required at a two-board table; elsewhere left out or 1); a
 * rematch is the whole table's and names none.
 * @typedef {{type: 'hello', table: string, token?: string, since?: number}
 *   | {type: 'action', id: string, action: string, board?: BoardNumber}
 *   | {type: 'resign' | 'offer_draw' | 'accept_draw' | 'decline_draw'
 *       | 'claim_victory' | 'claim_draw' | 'abort', id?: string, board?: BoardNumber}
 *   | {type: 'rematch' | 'decline_rematch', id?: string}
 *   | {type: 'ping'}} ClientMessage
 */

/**
 * `GET /api/tables/{table}/games/{game}`: one game as played so far.
 * @typedef {object} GameRecord
 * @property {string} table
 * @property {number} game
 * @property {BoardNumber} [board] at a two-board table
 * @property {Variant} variant
 * @property {Side} host_side
 * @property {string[]} moves
 * @property {GameResult | null} result
 * @property {string} record
 * @property {GameRatings} [ratings] a rated game's rating changes
 */

/**
 * A player's rating before and after a rated game.
 * @typedef {object} RatingChange
 * @property {number} before
 * @property {number} after
 * @property {number} change
 */

/**
 * Both players' rating changes.
 * @typedef {object} GameRatings
 * @property {RatingChange} goats
 * @property {RatingChange} tigers
 */

/** @typedef {'win' | 'draw' | 'loss'} Outcome */

/**
 * A value for one side, naming its kind (docs/protocol.md, "Values and
 * their kinds"): the rules' result of a finished game; the tablebase's
 * result for the board (ignoring the repetition record); a result proved
 * under the house rules, within `plies` (with the tablebase's own result
 * in `solved` where it differs); or a search's estimate, the goats'
 * winning chance 0..100 and the score in thousandths of a goat.
 * @typedef {{kind: 'over', result: Outcome}
 *   | {kind: 'solved', result: Outcome, plies: number}
 *   | {kind: 'proved', result: Outcome, plies: number, solved?: {result: Outcome, plies: number}}
 *   | {kind: 'estimate', goats_percent: number, score: number}} Evaluation
 */

/**
 * What one action was worth to the side that played it.
 * @typedef {object} ActionReview
 * @property {number} ply
 * @property {Side} side
 * @property {string} action
 * @property {Evaluation} before
 * @property {Evaluation} after
 * @property {string} best
 * @property {number} lost percentage points of the mover's share of the game given away
 */

/**
 * `GET /api/tables/{table}/games/{game}/analysis`: a finished game, action
 * by action.
 * @typedef {object} GameAnalysis
 * @property {number} version the review's shape (2)
 * @property {string} table
 * @property {number} game
 * @property {ActionReview[]} actions
 */

/** @typedef {'record' | 'pypi' | 'obx'} NotationFormat */

/**
 * A game pasted into the analysis board.
 * @typedef {object} PastedGame
 * @property {NotationFormat} [format] left out, the server tells it from the text
 * @property {string} text
 */

/**
 * `POST /api/analysis` body: every field may be left out.
 * @typedef {object} AnalysisRequest
 * @property {Variant} [variant]
 * @property {string} [start] position text; default the variant's start
 * @property {string[]} [actions] the line played from `start`
 * @property {PastedGame} [game] instead of `start` and `actions`
 */

/**
 * One legal action on the analysis board, with its value for the side to move.
 * @typedef {object} ActionValue
 * @property {string} action
 * @property {Evaluation} evaluation
 */

/**
 * `POST /api/analysis` answer: the position after the line, and every
 * legal action of the side to move with its value, best first.
 * @typedef {object} AnalysisBoard
 * @property {Variant} variant
 * @property {string} start
 * @property {string[]} actions the line as played, in this project's notation
 * @property {string} position
 * @property {Side} side_to_move
 * @property {Phase} phase
 * @property {number} in_hand
 * @property {number} eaten
 * @property {number} goats_to_win
 * @property {number} ply
 * @property {number} ply_limit
 * @property {GameResult | null} result
 * @property {ActionValue[]} legal
 * @property {string | null} best
 * @property {NotationFormat | null} game_format the notation a pasted game was read in
 */

/**
 * @typedef {object} SeatView
 * @property {Player} player
 * @property {boolean} computer
 * @property {number} [level]
 * @property {boolean} connected
 */

/**
 * The side whose player has no socket open in a game in progress, and from
 * when the present player may claim (RFC 3339 times; `now` is the server's
 * time when it was sent).
 * @typedef {object} Absence
 * @property {Side} side on `board`, at a two-board table
 * @property {BoardNumber} [board] at a two-board table: the board whose game may be claimed
 * @property {string} since
 * @property {string} claimable_at
 * @property {string} now
 */

/**
 * @typedef {object} Presence
 * @property {SeatView} goats
 * @property {SeatView} tigers
 * @property {number} spectators
 * @property {number} spectator_seats
 * @property {Absence | null} [absent]
 */

/**
 * @typedef {'capture_target' | 'tigers_trapped' | 'goats_blocked' | 'ply_limit'
 *   | 'threefold' | 'resignation' | 'agreement' | 'timeout' | 'abandoned' | 'aborted'} ResultReason
 */

/**
 * @typedef {object} GameResult
 * @property {Side | null} winner
 * @property {ResultReason} reason
 */

/**
 * @typedef {object} Tally
 * @property {number} host
 * @property {number} guest
 * @property {number} draws
 */

/**
 * The clocks of a game: each side's time left at the start of the turn (on
 * a correspondence pace, the time left for the current action and the
 * other side's full allowance), which side's time runs, since when, and
 * the server's time when this state was sent (RFC 3339, with ms).
 * @typedef {object} GameClock
 * @property {number} goats_ms
 * @property {number} tigers_ms
 * @property {Side | null} running
 * @property {string | null} turn_started_at
 * @property {string} now
 */

/**
 * @typedef {object} GameState
 * @property {number} game
 * @property {string} position
 * @property {Side} side_to_move
 * @property {Phase} phase
 * @property {number} in_hand
 * @property {number} eaten
 * @property {number} goats_to_win
 * @property {number} trapped_tigers
 * @property {number} tigers
 * @property {number} ply
 * @property {number} ply_limit
 * @property {string[]} legal
 * @property {string | null} last_action
 * @property {GameResult | null} result
 * @property {Side | null} draw_offer
 * @property {Side | null} rematch_offer
 * @property {Side} host_side
 * @property {Tally} tally
 * @property {GameClock | null} [clock] `null`: no clock
 * @property {boolean} [abortable] until each side has made its first action
 * @property {SeriesState} [series] at a series table only
 * @property {BoardNumber} [board] at a two-board table: which board this state is of
 * @property {MatchState} [match] at a two-board table only
 */

/**
 * Where a two-board match stands; a player's score is its wins plus half
 * the draws (an aborted board counts for nobody).
 * @typedef {object} MatchState
 * @property {number} number which match at the table, from 1
 * @property {number} host_wins
 * @property {number} guest_wins
 * @property {number} draws
 * @property {{winner: Player | null} | null} result once both boards are over; `winner` `null`: tied
 */

/**
 * One board of a two-board table in a snapshot.
 * @typedef {object} BoardSnapshot
 * @property {string[]} moves
 * @property {GameState} state
 */

/**
 * Where a series stands; a player's score is its wins plus half the draws.
 * @typedef {object} SeriesState
 * @property {number} number which series at the table, from 1
 * @property {number} games the most games it has: 2, 4 or 6
 * @property {number} game the current game's place in it, from 1
 * @property {number} host_wins
 * @property {number} guest_wins
 * @property {number} draws
 * @property {{winner: Player | null} | null} result once decided; `winner` `null`: tied
 */

/**
 * @typedef {object} TableInfo
 * @property {string} id
 * @property {Opponent} opponent
 * @property {number | null} level
 * @property {Variant} variant
 * @property {ClockOption | null} [clock]
 * @property {Format} [format] left out: `single`
 * @property {number} [series_games] at a series table
 */

/**
 * @typedef {{kind: 'played', side: Side, action: string}
 *   | {kind: 'resigned', side: Side}
 *   | {kind: 'draw_offered', side: Side}
 *   | {kind: 'draw_declined', side: Side}
 *   | {kind: 'draw_withdrawn', side: Side}
 *   | {kind: 'draw_agreed'}
 *   | {kind: 'rematch_offered', side: Side}
 *   | {kind: 'rematch_started', game: number}
 *   | {kind: 'flagged', side: Side}
 *   | {kind: 'claimed', side: Side, result: 'win' | 'draw'}
 *   | {kind: 'aborted', side: Side}
 *   | {kind: 'rematch_declined', side: Side}
 *   | {kind: 'rematch_withdrawn', side: Side}
 *   | {kind: 'abandoned', side: Side}
 *   | {kind: 'clock_paused', side: Side}
 *   | {kind: 'clock_resumed', side: Side}} TableEvent
 */

/**
 * @typedef {'invalid_message' | 'too_large' | 'not_joined' | 'already_joined' | 'unknown_table'
 *   | 'invalid_token' | 'seat_taken' | 'gallery_full' | 'spectator'
 *   | 'not_your_turn' | 'illegal_action' | 'game_over' | 'game_not_over'
 *   | 'no_draw_offers' | 'no_offer' | 'rate_limited' | 'invalid_id' | 'internal'
 *   | 'not_claimable' | 'not_abortable' | 'too_many_offers' | 'unknown_board'} ErrorCode
 */

/**
 * Why an action is illegal (the protocol crate's `IllegalReason`).
 * @typedef {'must_place' | 'cannot_place' | 'not_your_piece' | 'not_a_line' | 'occupied'
 *   | 'goats_cannot_jump' | 'nothing_to_capture' | 'chain_not_allowed' | 'chain_past_target'
 *   | 'repetition' | 'not_legal' | 'notation'} IllegalReason
 */

/**
 * @typedef {{type: 'welcome', protocol: number, table: TableInfo, role: Role, player?: Player, secret?: string}
 *   | {type: 'snapshot', version: number, moves: string[], state: GameState, boards?: BoardSnapshot[]}
 *   | {type: 'event', version: number, event: TableEvent, state: GameState, board?: BoardNumber}
 *   | ({type: 'presence'} & Presence)
 *   | {type: 'ack', id: string}
 *   | {type: 'error', id?: string, code: ErrorCode, reason?: IllegalReason, message: string}
 *   | {type: 'pong'}} ServerMessage
 */

export {};

/**
 * `GET /api/puzzles/next`: a puzzle with its line and the start's legal actions.
 * @typedef {object} PuzzleView
 * @property {string} id
 * @property {string} position the start, as position text
 * @property {Side} side_to_move the side that solves it
 * @property {string[]} themes
 * @property {number} rating
 * @property {number} rating_deviation
 * @property {number} plays
 * @property {string[]} solution
 * @property {string[]} legal
 * @property {PuzzleRating | null} player the asking player's puzzle rating; null without a session
 */

/**
 * A player's puzzle rating.
 * @typedef {object} PuzzleRating
 * @property {number} rating
 * @property {number} deviation
 * @property {boolean} provisional
 * @property {number} tries puzzles tried, each once
 */

/**
 * What a first try changed.
 * @typedef {object} PuzzleRated
 * @property {PuzzleRating} player the player's puzzle rating after it
 * @property {number} change the shown rating after less before
 * @property {number} puzzle_rating the puzzle's rating after it
 */

/**
 * `POST /api/puzzles/{id}/moves` body: the actions from the start, the last the solver's new move.
 * @typedef {object} PuzzleMoves
 * @property {string[]} moves
 */

/** @typedef {'correct' | 'solved' | 'wrong'} PuzzleVerdict */

/**
 * `POST /api/puzzles/{id}/moves` answer.
 * @typedef {object} PuzzleAnswer
 * @property {PuzzleVerdict} verdict
 * @property {string | null} reply the tablebase's reply after a correct move
 * @property {string} position after the move and the reply
 * @property {string[]} legal the solver's legal actions there
 * @property {string[] | null} solution the line, once solved or wrong
 * @property {PuzzleRated | null} rated what a first try changed, once solved or wrong
 */
