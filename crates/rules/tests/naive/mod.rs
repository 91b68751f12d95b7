//! A second, deliberately naive implementation of the rules, written from
//! the specification alone and sharing no code with the library: the board
//! is an array of characters, the lines are listed as the board drawing
//! shows them, actions are strings in notation, and the repetition history
//! is a plain list that is never cleared. It is slow on purpose; the tests
//! compare the library against it.

#![allow(dead_code)]

use std::sync::OnceLock;

/// Every line of the board drawing, as the points along it.
const LINES: [&[&str]; 16] = [
    // The five rows.
    &["a1", "b1", "c1", "d1", "e1"],
    &["a2", "b2", "c2", "d2", "e2"],
    &["a3", "b3", "c3", "d3", "e3"],
    &["a4", "b4", "c4", "d4", "e4"],
    &["a5", "b5", "c5", "d5", "e5"],
    // The five columns.
    &["a1", "a2", "a3", "a4", "a5"],
    &["b1", "b2", "b3", "b4", "b5"],
    &["c1", "c2", "c3", "c4", "c5"],
    &["d1", "d2", "d3", "d4", "d5"],
    &["e1", "e2", "e3", "e4", "e5"],
    // The two long diagonals.
    &["a1", "b2", "c3", "d4", "e5"],
    &["a5", "b4", "c3", "d2", "e1"],
    // The four short diagonals joining the middles of the sides.
    &["a3", "b2", "c1"],
    &["a3", "b4", "c5"],
    &["c5", "d4", "e3"],
    &["c1", "d2", "e3"],
];

/// The index of a point name: column letter, then row digit.
pub fn point(name: &str) -> usize {
    let b = name.as_bytes();
    assert_eq!(b.len(), 2, "point name {name:?}");
    let column = (b[0] - b'a') as usize;
    let row = (b[1] - b'1') as usize;
    assert!(column < 5 && row < 5, "point name {name:?}");
    row * 5 + column
}

/// The name of a point index.
pub fn name(index: usize) -> String {
    format!("{}{}", (b'a' + (index % 5) as u8) as char, index / 5 + 1)
}

/// Whether `a` and `b` are consecutive on one drawn line.
fn adjacent(a: usize, b: usize) -> bool {
    static TABLE: OnceLock<Vec<Vec<bool>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (0..25)
            .map(|a| (0..25).map(|b| adjacent_on_a_line(a, b)).collect())
            .collect()
    })[a][b]
}

fn adjacent_on_a_line(a: usize, b: usize) -> bool {
    LINES.iter().any(|line| {
        line.windows(2).any(|w| {
            let (x, y) = (point(w[0]), point(w[1]));
            (x, y) == (a, b) || (x, y) == (b, a)
        })
    })
}

/// Every straight jump `(from, over, land)`: three consecutive points on
/// one drawn line, in either direction.
fn jumps() -> &'static [(usize, usize, usize)] {
    static TABLE: OnceLock<Vec<(usize, usize, usize)>> = OnceLock::new();
    TABLE.get_or_init(list_jumps)
}

fn list_jumps() -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    for line in LINES {
        for w in line.windows(3) {
            let (x, y, z) = (point(w[0]), point(w[1]), point(w[2]));
            out.push((x, y, z));
            out.push((z, y, x));
        }
    }
    out
}

/// The variant options, read from the same words as a record's rules line.
#[derive(Clone, Copy, Debug)]
pub struct NaiveRules {
    pub target: u32,
    pub tigers_first: bool,
    pub multi_jump: bool,
    pub three_tigers: bool,
    pub threefold: bool,
    pub ply_limit: u32,
}

impl NaiveRules {
    pub fn parse(text: &str) -> NaiveRules {
        let mut r = NaiveRules {
            target: 0,
            tigers_first: false,
            multi_jump: false,
            three_tigers: false,
            threefold: false,
            ply_limit: 400,
        };
        for word in text.split_whitespace() {
            if word == "standard" {
            } else if word == "tigers-first" {
                r.tigers_first = true;
            } else if word == "multi-jump" {
                r.multi_jump = true;
            } else if word == "three-tigers" {
                r.three_tigers = true;
            } else if word == "threefold-draw" {
                r.threefold = true;
            } else if let Some(n) = word.strip_prefix("goats-to-win=") {
                r.target = n.parse().unwrap();
            } else if let Some(n) = word.strip_prefix("ply-limit=") {
                r.ply_limit = n.parse().unwrap();
            } else {
                panic!("unknown rules word {word:?}");
            }
        }
        if r.target == 0 {
            r.target = if r.three_tigers { 4 } else { 5 };
        }
        r
    }

    /// The start position text of these rules.
    pub fn start_text(&self) -> String {
        // Tigers on a5 and e5, and on a1 (and e1 unless three-tiger).
        let top = "T...T";
        let bottom = if self.three_tigers { "T...." } else { "T...T" };
        let side = if self.tigers_first { "t" } else { "g" };
        let goats = if self.three_tigers { 16 } else { 20 };
        format!("{top}/...../...../...../{bottom} {side} {goats} 0 0")
    }
}

/// The end of a game as the naive rules see it: the winner (`'g'`, `'t'`,
/// or `'-'` for a draw) and the reason's name.
pub type NaiveOutcome = (char, &'static str);

#[derive(Clone, Debug)]
pub struct NaivePosition {
    pub rules: NaiveRules,
    /// `'T'`, `'G'` or `'.'` for each point, `a1` first.
    pub board: [char; 25],
    pub side: char,
    pub in_hand: u32,
    pub eaten: u32,
    pub ply: u32,
    /// Every movement-phase position reached, as (board, side to move).
    pub history: Vec<([char; 25], char)>,
}

impl NaivePosition {
    /// Reads a position text; the movement phase records the position.
    pub fn from_text(text: &str, rules: NaiveRules) -> NaivePosition {
        let fields: Vec<&str> = text.split(' ').collect();
        assert_eq!(fields.len(), 5, "position text {text:?}");
        let rows: Vec<&str> = fields[0].split('/').collect();
        let mut board = ['.'; 25];
        for (i, row) in rows.iter().enumerate() {
            for (column, c) in row.chars().enumerate() {
                board[(4 - i) * 5 + column] = c;
            }
        }
        let mut pos = NaivePosition {
            rules,
            board,
            side: fields[1].chars().next().unwrap(),
            in_hand: fields[2].parse().unwrap(),
            eaten: fields[3].parse().unwrap(),
            ply: fields[4].parse().unwrap(),
            history: Vec::new(),
        };
        if pos.in_hand == 0 {
            pos.history.push((pos.board, pos.side));
        }
        pos
    }

    pub fn to_text(&self) -> String {
        let mut rows = Vec::new();
        for r in (0..5).rev() {
            rows.push(self.board[r * 5..r * 5 + 5].iter().collect::<String>());
        }
        format!(
            "{} {} {} {} {}",
            rows.join("/"),
            self.side,
            self.in_hand,
            self.eaten,
            self.ply
        )
    }

    fn mover(&self) -> char {
        if self.side == 'g' {
            'G'
        } else {
            'T'
        }
    }

    /// Every action the rules of movement allow, before the repetition
    /// rule, each with the position it leads to.
    fn candidates(&self) -> Vec<(String, NaivePosition)> {
        let mut out = Vec::new();
        if self.side == 'g' && self.in_hand > 0 {
            for to in 0..25 {
                if self.board[to] == '.' {
                    let mut next = self.clone();
                    next.board[to] = 'G';
                    next.in_hand -= 1;
                    out.push((name(to), next.finish_turn()));
                }
            }
            return out;
        }
        let piece = self.mover();
        for from in 0..25 {
            if self.board[from] != piece {
                continue;
            }
            for to in 0..25 {
                if self.board[to] == '.' && adjacent(from, to) {
                    let mut next = self.clone();
                    next.board[from] = '.';
                    next.board[to] = piece;
                    out.push((format!("{}-{}", name(from), name(to)), next.finish_turn()));
                }
            }
            if piece == 'T' {
                let mut start = self.clone();
                start.board[from] = '.';
                self.chains(&start, from, name(from), 0, &mut out);
            }
        }
        out
    }

    /// Extends a capture chain of the tiger (lifted off the board) now on
    /// `at` that has taken `taken` goats so far.
    fn chains(
        &self,
        board: &NaivePosition,
        at: usize,
        text: String,
        taken: u32,
        out: &mut Vec<(String, NaivePosition)>,
    ) {
        let most = if self.rules.multi_jump {
            self.rules.target - self.eaten
        } else {
            1
        };
        if taken >= most {
            return;
        }
        for &(from, over, land) in jumps() {
            if from == at && board.board[over] == 'G' && board.board[land] == '.' {
                let mut next = board.clone();
                next.board[over] = '.';
                next.eaten += 1;
                let chain = format!("{text}x{}", name(land));
                let mut done = next.clone();
                done.board[land] = 'T';
                out.push((chain.clone(), done.finish_turn()));
                self.chains(&next, land, chain, taken + 1, out);
            }
        }
    }

    fn finish_turn(mut self) -> NaivePosition {
        self.side = if self.side == 'g' { 't' } else { 'g' };
        self.ply += 1;
        if self.in_hand == 0 {
            self.history.push((self.board, self.side));
        }
        self
    }

    /// The legal actions before asking whether the game is over.
    fn allowed(&self) -> Vec<(String, NaivePosition)> {
        let mut out = self.candidates();
        if !self.rules.threefold {
            out.retain(|(_, next)| !self.history.contains(&(next.board, next.side)));
        }
        out
    }

    pub fn outcome(&self) -> Option<NaiveOutcome> {
        self.outcome_given(&self.allowed())
    }

    /// The outcome, given the actions that `allowed` lists.
    fn outcome_given(&self, allowed: &[(String, NaivePosition)]) -> Option<NaiveOutcome> {
        if self.eaten >= self.rules.target {
            return Some(('t', "capture_target"));
        }
        if allowed.is_empty() {
            return Some(if self.side == 'g' {
                ('t', "goats_blocked")
            } else {
                ('g', "tigers_trapped")
            });
        }
        if self.rules.threefold && self.in_hand == 0 {
            let now = (self.board, self.side);
            if self.history.iter().filter(|h| **h == now).count() >= 3 {
                return Some(('-', "threefold"));
            }
        }
        if self.ply >= self.rules.ply_limit {
            return Some(('-', "ply_limit"));
        }
        None
    }

    /// The legal actions in notation, with the positions they lead to.
    pub fn legal(&self) -> Vec<(String, NaivePosition)> {
        let allowed = self.allowed();
        if self.outcome_given(&allowed).is_some() {
            Vec::new()
        } else {
            allowed
        }
    }

    /// The legal actions in notation, sorted.
    pub fn legal_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.legal().into_iter().map(|(a, _)| a).collect();
        names.sort();
        names
    }

    /// Plays an action given in notation; panics if it is not legal.
    pub fn play(&self, action: &str) -> NaivePosition {
        self.legal()
            .into_iter()
            .find(|(a, _)| a == action)
            .unwrap_or_else(|| panic!("{action} is not legal in {}", self.to_text()))
            .1
    }

    /// perft, by the definition: a finished game is one leaf.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let legal = self.legal();
        if legal.is_empty() {
            return 1;
        }
        legal.iter().map(|(_, next)| next.perft(depth - 1)).sum()
    }
}
