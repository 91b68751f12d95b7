//! Byte-driven play: the first bytes choose the variant, every further
//! byte pair either picks a legal action or makes up an arbitrary one.
//! Checked at every step: the legal list holds an action exactly when
//! `check` accepts it, an illegal action leaves the position untouched,
//! every goat is accounted for, and a finished game has no action.
#![no_main]

use baghchal_rules::{
    perft, Action, Jump, Position, Repetition, Rules, RulesOptions, Side, Square,
};
use libfuzzer_sys::fuzz_target;

fn square(b: u8) -> Square {
    Square::new(b % 25).expect("below 25")
}

fn made_up(kind: u8, a: u8, b: u8, c: u8) -> Action {
    match kind % 4 {
        0 => Action::Place(square(a)),
        1 => Action::Step {
            from: square(a),
            to: square(b),
        },
        2 => Action::Jump(Jump::single(square(a), square(b))),
        _ => Action::Jump(Jump::chain(square(a), &[square(b), square(c)]).expect("two landings")),
    }
}

fuzz_target!(|data: &[u8]| {
    let [o, g, limit, rest @ ..] = data else {
        return;
    };
    let Ok(rules) = Rules::new(RulesOptions {
        goats_to_win: Some(3 + g % 5),
        first: if o & 1 == 0 { Side::Goat } else { Side::Tiger },
        multi_jump: o & 2 != 0,
        three_tigers: o & 4 != 0,
        repetition: if o & 8 == 0 {
            Repetition::Forbid
        } else {
            Repetition::ThreefoldDraw
        },
        ply_limit: if o & 16 == 0 {
            400
        } else {
            u16::from(*limit) + 1
        },
    }) else {
        return;
    };
    let mut pos = Position::new(rules);
    for chunk in rest.chunks(4) {
        let legal = pos.legal_actions();
        assert_eq!(legal.len(), pos.count_legal());
        assert_eq!(perft(&pos, 1), legal.len().max(1) as u64);
        let goats = pos.goats().count() + u32::from(pos.in_hand()) + u32::from(pos.eaten());
        assert_eq!(goats, u32::from(rules.total_goats()));
        if pos.is_finished() {
            assert!(legal.is_empty());
            return;
        }
        assert!(!legal.is_empty());
        let [kind, a, b, c] = [0, 1, 2, 3].map(|i| chunk.get(i).copied().unwrap_or(0));
        if kind & 0x80 == 0 {
            let action = legal[usize::from(a) % legal.len()];
            assert_eq!(pos.check(&action), Ok(()));
            pos = pos.play(action).expect("a listed action is legal");
        } else {
            let action = made_up(kind, a, b, c);
            let listed = legal.contains(&action);
            assert_eq!(pos.check(&action).is_ok(), listed);
            match pos.clone().play(action) {
                Ok(next) => {
                    assert!(listed);
                    pos = next;
                }
                Err(err) => {
                    assert!(!listed);
                    assert_eq!(err.position, pos);
                }
            }
        }
    }
});
