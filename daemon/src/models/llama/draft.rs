//! A guessed reply, checked in one step: when the caller can say what the reply likely is (a
//! pass's rewrite is mostly the rule's own third-person sentence), the guess's next tokens are
//! decoded together with each sampled token, and every one the sampler then picks itself is
//! already in the context. The sampler still picks every token from the logits of the tokens
//! before it, so the reply is the one it gives without a guess; only the number of decode
//! steps changes. A wrong guess is dropped at its first wrong token, and taken up again where
//! the reply's last two tokens meet it further on (a rewrite that differs by a word goes on as
//! the rule's sentence).

use llama_cpp_2::token::LlamaToken;

/// Guessed tokens decoded past the sampled one, at most. A guessed token costs about half a
/// token decoded alone (its logits are computed too), so a long wrong guess costs more than it
/// can save: the window starts here, shrinks to [`MIN_AHEAD`] where the guess was wrong, and
/// doubles back each time a whole window was right.
const MAX_AHEAD: usize = 16;
/// The window after a wrong guess.
const MIN_AHEAD: usize = 4;

/// The guess and how far it has been right.
#[derive(Debug)]
pub(super) struct Draft {
    tokens: Vec<LlamaToken>,
    /// The guess's next token: the one the sampler is expected to pick next (`None`: off the
    /// guess until the reply meets it again).
    next: Option<usize>,
    /// Where the guess was left: it is taken up again only past here.
    left: usize,
    /// The last two sampled tokens.
    last: [Option<LlamaToken>; 2],
    /// Guessed tokens decoded into the context that the sampler has not picked yet.
    ahead: usize,
    /// Sampled tokens that were already decoded as a guess.
    taken: usize,
    /// How many tokens the next guess may hold (`MIN_AHEAD..=MAX_AHEAD`).
    window: usize,
}

/// What a sampled token asks of the context.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// It was decoded as a guess: its KV and the logits after it are in place.
    InPlace,
    /// Decode it (the guess's next tokens may follow it in the same batch).
    Decode,
    /// The guess was wrong here: drop the last `n` tokens of the context, then decode it.
    Missed(usize),
}

impl Draft {
    pub(super) fn new(tokens: Vec<LlamaToken>) -> Self {
        Draft {
            tokens,
            next: Some(0),
            left: 0,
            last: [None; 2],
            ahead: 0,
            taken: 0,
            window: MAX_AHEAD,
        }
    }

    /// The sampler picked `token`.
    pub(super) fn step(&mut self, token: LlamaToken) -> Step {
        self.last = [self.last[1], Some(token)];
        let right = self
            .next
            .is_some_and(|n| self.tokens.get(n) == Some(&token));
        if right {
            self.next = self.next.map(|n| n + 1);
        } else if let Some(n) = self.next.take() {
            self.left = n;
        }
        match (self.ahead, right) {
            (0, _) => Step::Decode,
            (_, true) => {
                self.ahead -= 1;
                self.taken += 1;
                if self.ahead == 0 {
                    self.window = (self.window * 2).min(MAX_AHEAD);
                }
                Step::InPlace
            }
            (n, false) => {
                self.ahead = 0;
                self.window = MIN_AHEAD;
                Step::Missed(n)
            }
        }
    }

    /// The guessed tokens to decode after the one just sampled, at most `room`: the guess's
    /// next ones, or, off the guess, those after the first place past where it was left that
    /// holds the last two sampled tokens.
    pub(super) fn guesses(&mut self, room: usize) -> &[LlamaToken] {
        if self.next.is_none()
            && let [Some(a), Some(b)] = self.last
        {
            self.next = self
                .tokens
                .windows(2)
                .enumerate()
                .skip(self.left)
                .find(|(_, w)| w[0] == a && w[1] == b)
                .map(|(i, _)| i + 2);
        }
        let Some(next) = self.next else {
            self.ahead = 0;
            return &[];
        };
        let end = self.tokens.len().min(next + room.min(self.window));
        let start = next.min(end);
        self.ahead = end - start;
        &self.tokens[start..end]
    }

    /// Guessed tokens in the context that were never picked (drop them when the reply ends).
    pub(super) fn ahead(&self) -> usize {
        self.ahead
    }

    /// Sampled tokens that were already decoded as a guess.
    pub(super) fn taken(&self) -> usize {
        self.taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ids: &[i32]) -> Vec<LlamaToken> {
        ids.iter().map(|&i| LlamaToken(i)).collect()
    }

    #[test]
    fn a_right_guess_is_taken_in_place_and_a_wrong_one_dropped_at_its_first_wrong_token() {
        let mut d = Draft::new(t(&[1, 2, 3, 4, 5]));
        // The first sampled token is the guess's first: decode it with the next three.
        assert_eq!(d.step(LlamaToken(1)), Step::Decode);
        assert_eq!(d.guesses(3), &t(&[2, 3, 4])[..]);
        assert_eq!(d.step(LlamaToken(2)), Step::InPlace);
        // 9, not 3: the two guessed tokens still ahead (3, 4) are dropped; "2 9" is nowhere
        // in the guess, so nothing is guessed.
        assert_eq!(d.step(LlamaToken(9)), Step::Missed(2));
        assert_eq!(d.guesses(3), &[] as &[LlamaToken]);
        assert_eq!(d.step(LlamaToken(5)), Step::Decode);
        assert_eq!((d.ahead(), d.taken()), (0, 1));
    }

    #[test]
    fn a_reply_that_meets_the_guess_again_takes_it_up_from_there() {
        // The guess "User is 1 2 3 4 5 6", the reply "User was 2 3 4 5 6": off at "was", back on
        // at "2 3", guessing "4 5 6".
        let mut d = Draft::new(t(&[10, 11, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
        assert_eq!(d.step(LlamaToken(10)), Step::Decode);
        assert_eq!(d.guesses(9), &t(&[11, 1, 2, 3, 4, 5, 6, 7, 8])[..]);
        assert_eq!(d.step(LlamaToken(12)), Step::Missed(9));
        assert!(d.guesses(9).is_empty(), "'10 12' is not in the guess");
        assert_eq!(d.step(LlamaToken(2)), Step::Decode);
        assert!(d.guesses(9).is_empty(), "'12 2' is not in the guess");
        assert_eq!(d.step(LlamaToken(3)), Step::Decode);
        // After a wrong guess, a short one; a short one all right, a longer one.
        assert_eq!(d.guesses(9), &t(&[4, 5, 6, 7])[..]);
        for k in 4..=7 {
            assert_eq!(d.step(LlamaToken(k)), Step::InPlace);
        }
        assert_eq!(d.step(LlamaToken(8)), Step::Decode);
        assert_eq!(d.guesses(9), &t(&[9])[..]);
        assert_eq!(d.window, 2 * MIN_AHEAD);
        assert_eq!(d.taken(), 4);
    }

    #[test]
    fn the_guess_is_taken_up_only_past_where_it_was_left() {
        // "7 8" occurs before and after where the reply left the guess: only the later counts.
        let mut d = Draft::new(t(&[7, 8, 1, 2, 7, 8, 3]));
        assert_eq!(d.step(LlamaToken(7)), Step::Decode);
        assert_eq!(d.step(LlamaToken(8)), Step::Decode);
        assert_eq!(d.step(LlamaToken(1)), Step::Decode);
        assert_eq!(d.step(LlamaToken(7)), Step::Decode);
        assert_eq!(d.step(LlamaToken(8)), Step::Decode);
        assert_eq!(d.guesses(9), &t(&[3])[..]);
    }

    #[test]
    fn a_guess_right_to_its_end_leaves_nothing_ahead() {
        let mut d = Draft::new(t(&[1, 2]));
        assert_eq!(d.step(LlamaToken(1)), Step::Decode);
        assert_eq!(d.guesses(10), &t(&[2])[..]);
        assert_eq!(d.step(LlamaToken(2)), Step::InPlace);
        assert_eq!(d.ahead(), 0);
        // Past the guess's end: plain decoding.
        assert_eq!(d.step(LlamaToken(7)), Step::Decode);
        assert_eq!(d.guesses(10), &[] as &[LlamaToken]);
        assert_eq!(d.taken(), 1);
    }

    #[test]
    fn no_guess_and_a_first_token_that_misses_decode_one_at_a_time() {
        let mut none = Draft::new(Vec::new());
        assert_eq!(none.step(LlamaToken(1)), Step::Decode);
        assert!(none.guesses(10).is_empty());
        let mut d = Draft::new(t(&[1, 2]));
        assert_eq!(d.step(LlamaToken(2)), Step::Decode);
        assert!(d.guesses(10).is_empty());
        assert_eq!(d.step(LlamaToken(2)), Step::Decode);
        assert!(d.guesses(10).is_empty());
    }

    #[test]
    fn guesses_fit_the_room_left() {
        let mut d = Draft::new((0..100).map(LlamaToken).collect());
        assert_eq!(d.step(LlamaToken(0)), Step::Decode);
        assert_eq!(d.guesses(0).len(), 0);
        assert_eq!(d.guesses(3).len(), 3);
        assert_eq!(d.guesses(1000).len(), MAX_AHEAD);
        assert_eq!(d.ahead(), MAX_AHEAD);
    }
}
