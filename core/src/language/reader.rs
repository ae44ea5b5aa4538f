//! A language memory reads, as one value: every word list a guard needs to read it, each a
//! required field ([`Reader`]), so a language cannot be added with a guard left out (a struct
//! literal without a field does not compile, and `every_reader_fills_every_part` fails on an
//! empty one). One file a language beside this one holds its reader; [`READERS`] lists them.
//! English is one reader among them: its clause engine (`consolidate::disclose`) reads more of
//! English than these parts, but the parts every language shares are read from here.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

use super::Lang;

/// Everything memory needs to read one language.
pub struct Reader {
    pub lang: Lang,
    /// "I", "my", "me" as whole words (and, in Spanish, Italian and Portuguese, which drop the
    /// pronoun, the first person of their commonest verbs: "tengo", "lavoro").
    pub first_person: &'static [&'static str],
    /// Openings of a word that are the first person ("j'" of "j'ai"; "저는"), or, in a
    /// language without spaces, the first person anywhere in the text ("我", "私").
    pub first_person_openings: &'static [&'static str],
    /// How a sentence that does not say "I" is still the user's.
    pub unsaid_subject: Unsaid,
    /// "you", "your": a sentence that speaks to the assistant is not a fact about the user.
    pub you: &'static [&'static str],
    /// What makes a sentence a question without a question mark: a final particle in a
    /// language that ends its questions so (Japanese "か", Korean "까", Chinese "吗"), else a
    /// question word opening it ("est-ce que", "warum"). Never a fact.
    pub asks: &'static [&'static str],
    /// What a speaker says to open a sentence to the listener ("te cuento", "weißt du",
    /// "告诉你"), a greeting or thanks among them ("ciao", "merci"): left out before the
    /// sentence is read, so what follows is ("ciao mi piace il Disneyland …").
    pub listener_openers: &'static [&'static str],
    /// What passes: moods, reactions, hedges, the moment, the chat itself ("je suis crevée",
    /// "müde", "jajaja", "心情", "je suppose que"), matched as whole words (anywhere, without
    /// spaces): never a fact. One opening with "^" passes only where it opens the sentence, after
    /// at most a first-person word ("^ho appena": "ho appena visto snoop", not "mi piace vivere
    /// nel verde ed ho appena messo i pannelli solari").
    pub passing: &'static [&'static str],
    /// Words that point at something said in another turn ("je l'…", "了它", "それ"; "^il", "^他":
    /// a person named there opening the sentence, read as `passing` reads "^"): a sentence
    /// with one says nothing on its own (beyond English; English's clause engine has its own
    /// `consolidate::elsewhere`).
    pub pointing: &'static [&'static str],
    /// Words that end a sentence whose object was said in another turn ("je déteste ça", "Ja,
    /// ich liebe es", "我不喜欢。", "私もです"): matched at the sentence's end, its marks left
    /// out; such a sentence says nothing on its own (beyond English, as `pointing`).
    pub dangling: &'static [&'static str],
    /// Words that open a clause holding only with the rest of its sentence: a condition, a time,
    /// a concession, a cause ("si", "quand", "bien que", "如果", "虽然", "ketika", "비록"), as
    /// whole words (anywhere, without spaces; inside words, in Korean). A sentence dropped for a
    /// `passing` or `pointing` word is read a clause at a time only without one: "Si je n'ai pas
    /// de caviar, je vais mourir" is one thought, "Génial, je ne lis presque jamais" two.
    /// English's clause engine reads it after an adverb ("usually when I'm feeling stressed" is
    /// the rest of a cut sentence).
    pub subordinators: &'static [&'static str],
    /// The marks that part a sentence's clauses: "，" in Chinese, "、" in Japanese (in Chinese
    /// "、" parts a list's items, not clauses).
    pub commas: &'static [char],
    /// How a session's summary says what the user asked, "…" where their own words go, quoted as
    /// the language quotes ("A demandé : « … »", "问：“…”"): `consolidate::summary::in_its_language`.
    pub summary_asked: &'static str,
    /// Grammar words recall ignores ("est", "ce", "où"): they say nothing of what a text is
    /// about.
    pub grammar: &'static [&'static str],
    /// The words and links that make a secret: a value after one of its names is refused on
    /// every write path (`crate::secret`), whatever language the text is in.
    pub secrets: Secrets,
    /// Identity questions and the facts that answer them ("¿Cómo me llamo?" over "me llamo
    /// Lucía"): `recall::identity`.
    pub identity: Identity,
    /// How a letter or an email is written: text the user pastes is not theirs
    /// (`consolidate::pasted`).
    pub letters: Letters,
    /// Standing-constraint cues: what makes a fact a diet or an allergy, and a message a
    /// request for advice on food (`recall::constraint`).
    pub constraints: Constraints,
    /// Plan and time words: what bounds a fact in time (`valid_until`).
    pub times: Times,
    /// Questions whose answer adds up facts said over several sessions (`recall::tally`).
    pub tally: Tally,
    /// How a sentence says the user gave something up ("quit", "ne … plus", "ya no", "nicht
    /// mehr", "戒"), folded: a cue is followed by what was given up ("quit smoking"); one that
    /// opens with "…" follows it ("smoke anymore"); one with "…" inside holds it ("ne fume
    /// plus"); one with " +" names how the next word ends ("stopped +ing": "stopped smoking", not
    /// "stopped at a cafe"). `recall::given_up`.
    pub given_up: &'static [&'static str],
    /// How a request to the assistant names its writer only as who receives ("tell me",
    /// "donne-moi", "nenn mir", "给我", "私に…てください"), folded: a request opens a clause
    /// (after at most one word, "bitte", in a language with spaces); one with "…" inside ends
    /// its sentence with what follows the "…" and may stand anywhere (Japanese and Korean put
    /// the verb last). A sentence
    /// that makes one is never a fact, and a message's "me" inside one does not make it about its
    /// writer ("Explique-moi comment fonctionne un transistor"; "Dis-moi comment s'appelle mon
    /// chat" still is, by "mon"). Not "remind me" or "help me": those ask about the writer's own.
    pub requests: &'static [&'static str],
    /// How a question asks how anyone does a thing, its "I" being anyone ("how do i", "comment
    /// puis-je", "wie … ich", "我该怎么"), folded: a " … " inside stands for exactly one word
    /// ("wie entkalke ich"), and something must follow it in its clause ("Wie heiße ich?" asks
    /// about the writer). Such an "I" does not make a message about its writer. `recall::gate`.
    pub how_to: &'static [&'static str],
    /// Letters (and marks) its language writes that English does not ("ñ", "¿", "ß", "ç"): each
    /// one is a vote for the readers that list it when a Latin-script text's language is told
    /// (`super::detect`). Empty only for a language written in a–z alone (English, Indonesian)
    /// or told by its script (Chinese, Japanese, Korean).
    pub letters_of_its_own: &'static [char],
}

/// What makes a question one that adds up or orders facts from several sessions ("how many
/// trips did I take?", "which did I read first?"), matched folded as whole words, or anywhere in
/// a language without spaces.
pub struct Tally {
    /// How many, how much, how often, in total: a count or a sum.
    pub count: &'static [&'static str],
    /// First, earliest, in what order: an order, in a question. A word that is also an
    /// adjective ends in `$` and counts only where its clause ends ("which did I see first?",
    /// not "what's my first name?").
    pub order: &'static [&'static str],
}

/// The identity questions of one language, by what they ask.
pub struct Identity {
    pub name: Cues,
    pub home: Cues,
    pub work: Cues,
    /// What a fact says of a value the user holds one at a time: where they live now
    /// ("i live in", "moved to", "vivo en") and who they work for ("works at", "ich arbeite
    /// bei"). Of two facts saying one, the one said later replaces the other.
    pub one_at_a_time: OneAtATime,
}

/// Phrases of a fact (lower-case) that state a value held one at a time.
pub struct OneAtATime {
    pub home: &'static [&'static str],
    pub employer: &'static [&'static str],
}

/// How a language asks one thing of the user's identity, and how a fact tells it.
pub struct Cues {
    /// The questions, lower-case ("wie heiße ich", "私の名前は何").
    pub asked: &'static [&'static str],
    /// What a fact that answers says ("ich heiße", "私の名前は").
    pub told: &'static [&'static str],
}

/// How a letter or an email is written in one language, lower-case.
pub struct Letters {
    /// Header names an email's head opens a line with ("subject:", "betreff:", "主题").
    pub headers: &'static [&'static str],
    /// The end of a line that opens a quoted reply ("wrote:", "a écrit :", "写道：").
    pub wrote: &'static [&'static str],
    /// Greetings that open a letter before a name ("dear", "liebe", "亲爱的").
    pub greetings: &'static [&'static str],
    /// Sign-offs that close a letter alone on their line ("best regards", "cordialement", "敬具").
    pub sign_offs: &'static [&'static str],
}

/// The cues of standing constraints in one language, each a word or a phrase, lower-case.
pub struct Constraints {
    /// A diet: "végétarienne", "cœliaque", "素食", "does not eat".
    pub diet: &'static [&'static str],
    /// An allergy: "allergique", "过敏".
    pub allergy: &'static [&'static str],
    /// Allergens that make an allergy a food matter: "noix", "花生".
    pub allergens: &'static [&'static str],
    /// Asking for advice or ideas, as the language asks what to eat: "idées", "建议", "soll ich",
    /// "devrais-je" (as `tokens` gives it: "devrais je"), "ばいい".
    pub advice: &'static [&'static str],
    /// Meals, sweets, drinks and where they are had: "dîner", "recette", "晚饭", "kuchen", "カフェ"; a
    /// cue of one CJK letter ("吃") is found inside a longer word.
    pub food: &'static [&'static str],
    /// A health condition that bears on advice: "asthme", "diabetes", "糖尿病", "me operaron".
    pub health: &'static [&'static str],
    /// Asking about health or exercise: "médecin", "gimnasio", "运动".
    pub health_advice: &'static [&'static str],
    /// Travel: "vacances", "Urlaub", "旅行".
    pub travel: &'static [&'static str],
    /// Languages by their names in this language: "alemán", "Englisch", "法语".
    pub languages: &'static [&'static str],
    /// What makes a named language one the user speaks or learns: "hablo", "lerne", "在学".
    pub speaks: &'static [&'static str],
    /// A budget that bears on advice: "presupuesto ajustado", "省钱".
    pub budget: &'static [&'static str],
    /// A dependent in the household, a person or a pet: "hija", "Sohn", "女儿".
    pub dependents: &'static [&'static str],
    /// What makes a dependent a standing situation (an age, being left alone): "años", "岁".
    pub situation: &'static [&'static str],
    /// An access need: "fauteuil roulant", "Rollstuhl", "轮椅", "no lift".
    pub access: &'static [&'static str],
    /// Health that bears on how the user travels: "mal de mer", "seekrank", "晕船".
    pub travel_health: &'static [&'static str],
    /// Asking advice on what to buy: "acheter", "regalo", "kaufen", "买".
    pub shopping: &'static [&'static str],
    /// Asking advice on plans: "week end", "cumpleaños", "Geburtstag", "周末"; the weakest domain,
    /// counted only when no other is named.
    pub plans: &'static [&'static str],
    /// Money words: a message naming one puts a budget first ("pas cher", "presupuesto", "便宜").
    pub money: &'static [&'static str],
    /// Language words: a message naming one puts what the user speaks first ("langue", "翻译").
    pub speech: &'static [&'static str],
}

/// The words and links that make a secret in one language.
pub struct Secrets {
    /// The names of a secret, each with what it names ("contraseña", "Geheimzahl", "密码",
    /// "비밀번호"). A name ending in a grammar word of the language goes on to the thing a code
    /// opens ("code de la", "code für die"): its value needs a link.
    pub names: &'static [(&'static str, Named)],
    /// What links a name to its value ("ist", "是", "는"): a year-like value ("1987") counts only
    /// straight after the name or one of these.
    pub links: &'static [&'static str],
    /// What puts a value before its name ("use hunter2 as the password", "como contraseña").
    pub before: &'static [&'static str],
}

/// What a secret's name names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    Password,
    Pin,
    /// A door, alarm or access code.
    Code,
}

/// How a sentence without a pronoun is still its writer's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsaid {
    /// The language says its subject: a sentence without the first person is not about the
    /// writer (English, French, German, Dutch).
    Said,
    /// The subject is left out, the verb's ending says it: the first-person forms of the
    /// commonest verbs are listed in `first_person` (Spanish, Italian, Portuguese), and any verb
    /// ending in `ending` is one inside a way of saying "no longer" or "never" (`no_longer`: the
    /// words before the verb and the word after it, if one: "ya no tomo", "non fumo più"). A
    /// negation alone would take adjectives for verbs ("non noioso").
    InTheVerb {
        no_longer: &'static [(&'static str, &'static str)],
        ending: &'static str,
    },
    /// The subject is left out when it is the writer: a statement with no other subject (no
    /// "you", no one else named as its topic, nothing pointed at) that says what the writer
    /// does, has or likes (a verb form of `marks`: "ています", "好き", "일하") is the writer's
    /// (Japanese, Korean). A reaction or an answer with no such verb ("すばらしい",
    /// "はい、良い家です") is not.
    Dropped {
        others: &'static [&'static str],
        marks: &'static [&'static str],
    },
}

/// The words that bound a plan in time, read against when the user said it.
pub struct Times {
    /// A day from when it is said: ("mañana", 1), ("übermorgen", 2).
    pub days: &'static [(&'static str, u32)],
    /// A week from when it is said, ending on its Sunday: ("esta semana", 0), ("nächste
    /// Woche", 1).
    pub weeks: &'static [(&'static str, u32)],
    /// The days of the week, Monday first, each in every spelling: a day named bounds a plan
    /// to its next coming ("Nächsten Dienstag habe ich ein Vorstellungsgespräch").
    pub weekdays: [&'static [&'static str]; 7],
    /// Words of a liking ("favorito", "Lieblings…", "喜欢"), matched inside words: a day named
    /// beside one is a favourite, not a plan ("Mi día favorito es el sábado").
    pub likings: &'static [&'static str],
    /// Words of a habit ("jeden", "cada", "每"): a day named after one bounds nothing.
    pub habits: &'static [&'static str],
    /// Words of an intention held for now, not for good ("I'm thinking of", "je songe à",
    /// "estoy buscando", "我在考虑", "고민 중"): a fact that says one and names no day holds for
    /// `consolidate::until::INTENTION_DAYS` from when it was said.
    pub intentions: &'static [&'static str],
    /// Words of a feeling or a difficulty about something of the moment ("I'm struggling with",
    /// "I'm worried about", "j'ai du mal à", "me preocupa", "걱정돼요"): a fact that says one
    /// holds for `consolidate::until::INTENTION_DAYS`, as an intention does (in English only
    /// where the clause opens with it: "I'm worried about the logistics", not "… and now I'm
    /// feeling more confident").
    pub feelings: &'static [&'static str],
    /// Times further off than a month ("next year", "l'année prochaine", "this summer",
    /// "algún día", a month's name, "내년"): an intention that names one is not bounded to a
    /// month. A year in digits is later in every language.
    pub later: &'static [&'static str],
    /// The months, January first, each in every spelling ("octobre", "10月", "시월"): an
    /// intention that names one ("I'm planning a trip to Hawaii in October", "estoy planeando
    /// un viaje a Galicia en agosto") holds until the end of its next coming.
    pub months: [&'static [&'static str]; 12],
}

/// The months as Chinese and Japanese both write them ("十月", "10月"), January first.
pub const HAN_MONTHS: [&[&str]; 12] = [
    &["一月", "1月"],
    &["二月", "2月"],
    &["三月", "3月"],
    &["四月", "4月"],
    &["五月", "5月"],
    &["六月", "6月"],
    &["七月", "7月"],
    &["八月", "8月"],
    &["九月", "9月"],
    &["十月", "10月"],
    &["十一月", "11月"],
    &["十二月", "12月"],
];

/// Every reader, English first.
pub const READERS: &[&Reader] = &[
    &super::en::READER,
    &super::fr::READER,
    &super::es::READER,
    &super::it::READER,
    &super::pt::READER,
    &super::de::READER,
    &super::nl::READER,
    &super::id::READER,
    &super::ko::READER,
    &super::zh::READER,
    &super::ja::READER,
];

/// The reader of `lang`, if memory reads it.
pub fn of(lang: Lang) -> Option<&'static Reader> {
    READERS.iter().find(|r| r.lang == lang).copied()
}

/// "I" and "my" of the Latin-script languages that no English text says (not "me", "mi", "ma"
/// or a verb): enough to tell a message is about its writer without the detector.
const SURELY_FIRST_PERSON: &[&str] = &[
    "je", "j'", "mon", "mes", "moi", "yo", "mis", "mí", "io", "mio", "mia", "miei", "eu", "meu",
    "minha", "meus", "minhas", "ich", "mein", "meine", "meinen", "meinem", "meiner", "mich", "mir",
    "ik", "mijn", "mij", "saya", "aku",
];

/// Whether `s` speaks of its writer in a language beyond English: by the reader of its script's
/// language (Chinese, Japanese, Korean), or by a Latin-script "I" or "my" no English text says,
/// or, in a text of four words or more, by the first person of the reader its words name
/// (`latin`: [`latin_beyond_english`] of `s`, which the caller has already asked). `s` comes
/// without its requests ([`without_requests`]): a request's "me" is who receives.
pub fn about_the_writer(s: &str, latin: Option<&'static Reader>) -> bool {
    match super::by_script(s) {
        Some(lang) => of(lang).is_some_and(|r| r.lang != Lang::English && first_person(s, r)),
        None => {
            words_of(s).iter().any(|w| {
                SURELY_FIRST_PERSON
                    .iter()
                    .any(|f| w == f || (f.ends_with('\'') && w.starts_with(f)))
            }) || {
                // The reader the text's own words name (no model: `detect`) reads its "my" and
                // "me" that English would not tell apart ("¿Cómo se llama mi perro?").
                latin.is_some_and(|r| first_person(s, r))
            }
        }
    }
}

/// The reader beyond English that a Latin-script `s`'s own words name (`detect`: word lists,
/// no model), in a text long enough to name one ("Soy milk recipes?" is English) and with no
/// grammar word only English has ("wat time do we hav diner" has "do"): there, English's words
/// are not read ("im" is German's "in the", "i" Italian's "the").
pub fn latin_beyond_english(s: &str) -> Option<&'static Reader> {
    use super::detect::Detector;
    if super::by_script(s).is_some() || crate::words::tokens(s).len() < super::SHORT_WORDS {
        return None;
    }
    let r = of(super::detect::Readers.latin(s)).filter(|r| r.lang != Lang::English)?;
    let english = of(Lang::English)?;
    let englishs_own = words_of(s)
        .iter()
        .any(|w| english.grammar.contains(&w.as_str()) && !r.grammar.contains(&w.as_str()));
    (!englishs_own).then_some(r)
}

/// Whether `folded` (a folded sentence) says `entry` of `reader.passing` or `reader.pointing`,
/// as those parts read it: an entry opening with "^" only where it opens the sentence, after at
/// most a word set off by a comma ("oui, …", "是的，…") and a first-person word.
pub fn says_entry(folded: &str, entry: &str, reader: &Reader) -> bool {
    let inside = reader.lang.matched_inside_words();
    let Some(opening) = entry.strip_prefix('^') else {
        return says_phrase(folded, entry, inside);
    };
    let text = folded.trim_start();
    let after_comma = text
        .split_once([',', '，', '、'])
        .filter(|(head, _)| {
            // One word: in a language without spaces, a word of at most three letters ("是的").
            let most = if reader.lang.unspaced() { 3 } else { 12 };
            !head.trim().contains(' ') && head.trim().chars().count() <= most
        })
        .map_or(text, |(_, rest)| rest.trim_start());
    [text, after_comma].iter().any(|t| {
        let past_i = reader
            .first_person
            .iter()
            .find_map(|w| t.strip_prefix(w).filter(|r| r.starts_with(' ')))
            .map_or(*t, str::trim_start);
        [*t, past_i]
            .iter()
            .any(|t| find_phrase(t, opening, inside) == Some(0))
    })
}

/// The word of `reader.dangling` that ends `folded` (a folded sentence), its closing marks and
/// spaces left out: as a whole word, or a sentence's last letters in a language without spaces.
pub fn dangling_end(folded: &str, reader: &Reader) -> Option<&'static str> {
    let body = folded.trim_end_matches(|c: char| !c.is_alphanumeric());
    let inside = reader.lang.matched_inside_words();
    reader.dangling.iter().copied().find(|w| {
        body.strip_suffix(w).is_some_and(|before| {
            inside
                || before
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_alphanumeric())
        })
    })
}

/// The first of `listed` that `s` says: as a whole word (an entry ending in an apostrophe opens
/// one), or anywhere in a language without spaces.
pub fn says_any(s: &str, reader: &Reader, listed: &[&'static str]) -> Option<&'static str> {
    if reader.lang.unspaced() {
        return listed.iter().find(|w| s.contains(*w)).copied();
    }
    let words = words_of(s);
    listed
        .iter()
        .find(|l| {
            words
                .iter()
                .any(|w| w == *l || (l.ends_with('\'') && w.starts_with(*l)))
        })
        .copied()
}

/// Whether `folded` holds `phrase`: as whole words, or anywhere in a language without spaces.
pub fn says_phrase(folded: &str, phrase: &str, unspaced: bool) -> bool {
    find_phrase(folded, phrase, unspaced).is_some()
}

/// Where `folded` first holds `phrase` as [`says_phrase`] reads it: its byte offset.
pub fn find_phrase(folded: &str, phrase: &str, unspaced: bool) -> Option<usize> {
    folded.match_indices(phrase).map(|(i, _)| i).find(|&i| {
        let before = folded[..i].chars().next_back();
        let after = folded[i + phrase.len()..].chars().next();
        let apart = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        unspaced || (apart(before) && (phrase.ends_with('\'') || apart(after)))
    })
}

/// Marks that end a clause: a request opens the clause after one.
const CLAUSE_ENDS: &[char] = &[
    ',', ';', ':', '.', '!', '?', '\n', '，', '；', '：', '、', '。', '！', '？',
];

/// The first request of `reader` in `folded` (a folded text), as [`Reader::requests`] reads
/// them: the byte range of the words that name the writer, and the request.
pub fn request_in(folded: &str, reader: &Reader) -> Option<(Range<usize>, &'static str)> {
    let inside = reader.lang.matched_inside_words();
    reader.requests.iter().find_map(|&r| {
        let found = match r.split_once('…') {
            // The verb ends the sentence: "私にカードマジックを教えて".
            Some((object, verb)) => folded.match_indices(object).find(|&(i, _)| {
                let rest = &folded[i + object.len()..];
                rest.trim_end_matches(|c: char| !c.is_alphanumeric())
                    .ends_with(verb)
            }),
            None => folded.match_indices(r).find(|&(i, _)| {
                find_phrase(&folded[i..], r, inside) == Some(0) && opens(folded, i, inside)
            }),
        };
        found.map(|(i, object)| (i..i + object.len(), r))
    })
}

/// Whether `at` opens a clause of `folded`: after at most one word ("bitte", "please"), or, in a
/// language without spaces, right at its start (one letter before is a subject: "他给我买了",
/// "因为我…"; "请" is listed with its requests).
fn opens(folded: &str, at: usize, unspaced: bool) -> bool {
    let head = &folded[..at];
    let clause = head.rsplit(CLAUSE_ENDS).next().unwrap_or(head);
    if unspaced {
        !clause.chars().any(char::is_alphanumeric)
    } else {
        clause.split_whitespace().count() <= 1
    }
}

/// Whether `s` makes a request of the assistant, in any reader ("tell me", "donne-moi", "给我").
pub fn makes_request(s: &str) -> bool {
    let folded = crate::words::fold(s);
    READERS.iter().any(|r| request_in(&folded, r).is_some())
}

/// The first generic how-to of `reader` in `folded` (a folded text), as [`Reader::how_to`]
/// reads them: the byte range of its words.
pub fn how_to_in(folded: &str, reader: &Reader) -> Option<Range<usize>> {
    let unspaced = reader.lang.unspaced();
    reader.how_to.iter().find_map(|&h| {
        let (first, last) = h.split_once(" … ").map_or((h, None), |(a, b)| (a, Some(b)));
        folded.match_indices(first).find_map(|(i, _)| {
            if find_phrase(&folded[i..], first, unspaced) != Some(0) {
                return None;
            }
            let mut end = i + first.len();
            if let Some(last) = last {
                // Exactly one word between: "wie entkalke ich".
                let rest = &folded[end..];
                let word = rest.trim_start();
                let word_end = word.find(char::is_whitespace)?;
                if !word[..word_end].chars().all(char::is_alphanumeric) {
                    return None;
                }
                let after = word[word_end..].trim_start();
                if find_phrase(after, last, unspaced) != Some(0) {
                    return None;
                }
                end = folded.len() - after.len() + last.len();
            }
            let clause = folded[end..].split(CLAUSE_ENDS).next().unwrap_or_default();
            clause.chars().any(char::is_alphanumeric).then_some(i..end)
        })
    })
}

/// `folded` (from [`without_requests`]) with each reader's generic how-to blanked ("how do i fix
/// a flat tyre" → "         fix a flat tyre"), so that its "I" does not count as the writer's.
pub fn without_how_to(folded: &str) -> String {
    let mut folded = folded.to_string();
    for r in READERS {
        while let Some(span) = how_to_in(&folded, r).filter(|span| !span.is_empty()) {
            folded.replace_range(span.clone(), &" ".repeat(span.len()));
        }
    }
    folded
}

/// `s` folded, each reader's requests blanked ("explique-moi comment …" → "             comment
/// …"): what is left says whether its writer speaks of themselves. Offsets are `s`'s own.
pub fn without_requests(s: &str) -> String {
    let mut folded = crate::words::fold(s);
    for r in READERS {
        while let Some((span, _)) = request_in(&folded, r).filter(|(span, _)| !span.is_empty()) {
            folded.replace_range(span.clone(), &" ".repeat(span.len()));
        }
    }
    folded
}

/// The words of `s`, lower-cased, an apostrophe kept inside ("j'ai"; typographic ones made
/// plain).
pub fn words_of(s: &str) -> Vec<String> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .filter(|w| !w.is_empty())
        .map(|w| w.replace('\u{2019}', "'").to_lowercase())
        .collect()
}

/// Whether `s` says "I", "my" or "me" as `reader`'s language does.
pub fn first_person(s: &str, reader: &Reader) -> bool {
    if reader.lang.unspaced() {
        return reader.first_person_openings.iter().any(|o| s.contains(o));
    }
    let words = words_of(s);
    words.iter().any(|w| {
        reader.first_person.contains(&w.as_str())
            || reader
                .first_person_openings
                .iter()
                .any(|o| w.starts_with(o))
    }) || verb_of_mine(s, &words, reader)
}

/// In a language whose verb says its subject, a sentence that says the writer no longer or
/// never does something ("Ya no tomo pastillas para dormir", "Non fumo più da due anni"): the
/// words of `no_longer`, then a verb of the first person's ending.
fn verb_of_mine(s: &str, words: &[String], reader: &Reader) -> bool {
    let Unsaid::InTheVerb { no_longer, ending } = reader.unsaid_subject else {
        return false;
    };
    let folded = crate::words::fold(s.trim_start());
    no_longer.iter().any(|(before, then)| {
        let n = before.split(' ').count();
        // Said at once: "No, claro que no" has a comma where the verb would be.
        let verb = words
            .get(n)
            .filter(|_| folded.starts_with(&format!("{before} {}", words[n])));
        verb.is_some_and(|v| {
            v.chars().count() >= 3 && v.ends_with(ending) && !reader.grammar.contains(&v.as_str())
        }) && (then.is_empty() || words.get(n + 1).is_some_and(|w| w == then))
            && words.len() > n + 1
    })
}

/// Whether `s` (a sentence in `reader`'s language) is a question: it has a question mark, opens
/// with "¿", or [`asks`] one without its mark.
pub fn is_question(s: &str, reader: &Reader) -> bool {
    s.contains(['?', '？']) || s.starts_with('¿') || asks(s, reader)
}

/// Whether `s` asks a question though it has no question mark: it ends with one of the
/// reader's final particles, or opens with one of its question words.
pub fn asks(s: &str, reader: &Reader) -> bool {
    let folded = crate::words::fold(s.trim());
    if reader.lang.matched_inside_words() {
        let end = folded.trim_end_matches(|c: char| !c.is_alphanumeric());
        return reader.asks.iter().any(|a| end.ends_with(a));
    }
    let start = folded.trim_start_matches(|c: char| !c.is_alphanumeric());
    reader.asks.iter().any(|a| {
        start.starts_with(a)
            && start[a.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric() || a.ends_with(' '))
    })
}

/// Whether `s`, which does not say "I", is still its writer's: in a language that drops the
/// subject, a statement that gives itself no other subject.
pub fn unsaid_but_mine(s: &str, reader: &Reader) -> bool {
    match reader.unsaid_subject {
        Unsaid::Said | Unsaid::InTheVerb { .. } => false,
        Unsaid::Dropped { others, marks } => {
            let letters = s.chars().filter(|c| c.is_alphanumeric()).count();
            letters >= 6
                && !others.iter().any(|o| says_other(s, reader, o))
                && marks.iter().any(|m| s.contains(m))
        }
    }
}

/// Whether `s` says `other`: anywhere in a language without spaces, else opening a word
/// (Korean's words take endings: "그녀는"; "너" of "디자이너" is none).
fn says_other(s: &str, reader: &Reader, other: &str) -> bool {
    if reader.lang.unspaced() {
        return s.contains(other);
    }
    words_of(s).iter().any(|w| w.starts_with(other))
}

/// `s` without a listener opener at its start ("Pues te cuento: me he mudado a Bilbao" → "me he
/// mudado a Bilbao"): a slice of `s`, cut at a character boundary of `s` itself.
pub fn without_opener<'a>(s: &'a str, reader: &Reader) -> &'a str {
    let folded = crate::words::fold(s);
    for opener in reader.listener_openers {
        // The opener stands in the first words: after at most one word ("Pues", "Ja,").
        let Some(at) = folded.find(opener) else {
            continue;
        };
        let head = &folded[..at];
        let near = head.split_whitespace().count() <= 1 && head.chars().count() <= 12;
        let end = at + opener.len();
        let whole = reader.lang.unspaced()
            || folded[end..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric());
        if near && whole {
            let rest = s[end..].trim_start_matches(|c: char| {
                c.is_whitespace() || matches!(c, ',' | ':' | ';' | '，' | '：' | '、' | '-' | '—')
            });
            if rest.chars().any(char::is_alphanumeric) {
                return rest;
            }
        }
    }
    s
}

/// Each grammar word with the readers that list it, as bits of their place in [`READERS`].
fn readers_of() -> &'static HashMap<&'static str, u32> {
    static READERS_OF: OnceLock<HashMap<&'static str, u32>> = OnceLock::new();
    READERS_OF.get_or_init(|| {
        let mut m: HashMap<&'static str, u32> = HashMap::new();
        for (i, r) in READERS.iter().enumerate() {
            for g in r.grammar {
                *m.entry(g).or_default() |= 1 << i;
            }
        }
        m
    })
}

/// Whether a lower-case word is a grammar word of some reader ("the", "mein", "la").
pub fn is_grammar(word: &str) -> bool {
    readers_of().contains_key(word)
}

/// The grammar words of the reader whose grammar `words` (lower-cased) uses most, when it uses
/// any and it is not English (whose grammar words `crate::words` leaves out always): what
/// recall leaves out of a text beside English's.
pub fn grammar_of(words: &[String]) -> Option<&'static [&'static str]> {
    reader_by_grammar(words)
        .filter(|r| r.lang != Lang::English)
        .map(|r| r.grammar)
}

/// The language whose grammar words `words` (lower-cased) use most, English winning a tie;
/// `None` when they use none.
pub fn lang_by_grammar(words: &[String]) -> Option<Lang> {
    reader_by_grammar(words).map(|r| r.lang)
}

fn reader_by_grammar(words: &[String]) -> Option<&'static Reader> {
    let mut counts = [0usize; 32];
    for w in words {
        if let Some(bits) = readers_of().get(w.as_str()) {
            (0..READERS.len())
                .filter(|i| bits & (1 << i) != 0)
                .for_each(|i| counts[i] += 1);
        }
    }
    // The first reader with the most, English first: a tie is English's.
    let (best, n) = (0..READERS.len()).fold((0, 0), |(b, m), i| {
        if counts[i] > m {
            (i, counts[i])
        } else {
            (b, m)
        }
    });
    (n > 0).then_some(READERS[best])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test a newcomer's reader must pass: every part filled, in every reader.
    #[test]
    fn every_reader_fills_every_part() {
        for r in READERS {
            let code = r.lang.code();
            let c = &r.constraints;
            let id = &r.identity;
            let l = &r.letters;
            let parts: [(&str, &[&str]); 52] = [
                ("given_up", r.given_up),
                ("subordinators", r.subordinators),
                ("requests", r.requests),
                ("how_to", r.how_to),
                ("tally.count", r.tally.count),
                ("tally.order", r.tally.order),
                ("letters.headers", l.headers),
                ("letters.wrote", l.wrote),
                ("letters.greetings", l.greetings),
                ("letters.sign_offs", l.sign_offs),
                ("pointing", r.pointing),
                ("dangling", r.dangling),
                ("identity.name.asked", id.name.asked),
                ("identity.name.told", id.name.told),
                ("identity.home.asked", id.home.asked),
                ("identity.home.told", id.home.told),
                ("identity.work.asked", id.work.asked),
                ("identity.work.told", id.work.told),
                ("identity.one_at_a_time.home", id.one_at_a_time.home),
                ("identity.one_at_a_time.employer", id.one_at_a_time.employer),
                ("constraints.diet", c.diet),
                ("constraints.allergy", c.allergy),
                ("constraints.allergens", c.allergens),
                ("constraints.advice", c.advice),
                ("constraints.food", c.food),
                ("constraints.health", c.health),
                ("constraints.health_advice", c.health_advice),
                ("constraints.travel", c.travel),
                ("constraints.languages", c.languages),
                ("constraints.speaks", c.speaks),
                ("constraints.budget", c.budget),
                ("constraints.dependents", c.dependents),
                ("constraints.situation", c.situation),
                ("constraints.access", c.access),
                ("constraints.travel_health", c.travel_health),
                ("constraints.shopping", c.shopping),
                ("constraints.plans", c.plans),
                ("constraints.money", c.money),
                ("constraints.speech", c.speech),
                ("first_person or its openings", {
                    if r.first_person.is_empty() {
                        r.first_person_openings
                    } else {
                        r.first_person
                    }
                }),
                ("you", r.you),
                ("asks", r.asks),
                ("listener_openers", r.listener_openers),
                ("passing", r.passing),
                ("grammar", r.grammar),
                ("secrets.links", r.secrets.links),
                ("secrets.before", r.secrets.before),
                ("times.likings", r.times.likings),
                ("times.habits", r.times.habits),
                ("times.intentions", r.times.intentions),
                ("times.feelings", r.times.feelings),
                ("times.later", r.times.later),
            ];
            for (part, words) in parts {
                assert!(!words.is_empty(), "{code}: {part} is empty");
                for w in words {
                    assert_eq!(
                        *w,
                        crate::words::fold(w),
                        "{code}: {part} lists {w:?} in capitals: the text is matched folded"
                    );
                }
            }
            assert_eq!(
                r.summary_asked.matches('…').count(),
                1,
                "{code}: summary_asked has no single \"…\" for the user's words"
            );
            assert!(
                !r.secrets.names.is_empty(),
                "{code}: secrets.names is empty"
            );
            assert!(!r.commas.is_empty(), "{code}: commas is empty");
            assert!(!r.times.days.is_empty(), "{code}: times.days is empty");
            assert!(!r.times.weeks.is_empty(), "{code}: times.weeks is empty");
            for (i, day) in r.times.weekdays.iter().enumerate() {
                assert!(!day.is_empty(), "{code}: weekday {i} is empty");
            }
            for (i, month) in r.times.months.iter().enumerate() {
                assert!(!month.is_empty(), "{code}: month {} is empty", i + 1);
            }
            for request in r.requests {
                let object = request.split('…').next().unwrap_or_default();
                assert!(
                    !object.is_empty(),
                    "{code}: request {request:?} names no one"
                );
            }
            // Only English and Indonesian are written in a–z alone among the Latin-script
            // languages; Chinese, Japanese and Korean are told by their script.
            let a_to_z = matches!(r.lang, Lang::English | Lang::Indonesian);
            let by_script = r.lang.matched_inside_words();
            assert_eq!(
                r.letters_of_its_own.is_empty(),
                a_to_z || by_script,
                "{code}: letters_of_its_own is wrong: empty only for a–z or a script of its own"
            );
            for c in r.letters_of_its_own {
                assert!(
                    !c.is_ascii() && !c.is_uppercase(),
                    "{code}: {c:?} is a–z or capital"
                );
            }
            if let Unsaid::Dropped { others, marks } = r.unsaid_subject {
                assert!(!others.is_empty(), "{code}: unsaid_subject lists no others");
                assert!(!marks.is_empty(), "{code}: unsaid_subject lists no marks");
            }
        }
        // One reader a language, and every language memory tells apart but `Other` has one.
        for lang in [
            Lang::English,
            Lang::French,
            Lang::German,
            Lang::Spanish,
            Lang::Italian,
            Lang::Portuguese,
            Lang::Dutch,
            Lang::Indonesian,
            Lang::Chinese,
            Lang::Japanese,
            Lang::Korean,
        ] {
            assert_eq!(
                READERS.iter().filter(|r| r.lang == lang).count(),
                1,
                "{lang:?}"
            );
        }
    }

    #[test]
    fn a_listener_opener_is_left_out() {
        let es = of(Lang::Spanish).unwrap();
        assert_eq!(
            without_opener("Pues te cuento: me he mudado a Bilbao", es),
            "me he mudado a Bilbao"
        );
        let de = of(Lang::German).unwrap();
        assert_eq!(
            without_opener("Weißt du, ich bin letztes Jahr nach Bremen gezogen", de),
            "ich bin letztes Jahr nach Bremen gezogen"
        );
        let zh = of(Lang::Chinese).unwrap();
        assert_eq!(without_opener("告诉你，我搬到上海了", zh), "我搬到上海了");
        // Not an opener far into the sentence, nor inside a word.
        assert_eq!(
            without_opener("Mi hermana y yo te cuento nada", es),
            "Mi hermana y yo te cuento nada"
        );
    }

    #[test]
    fn the_grammar_of_the_text_is_its_readers() {
        let fr = words_of("Où est-ce que j'habite ?");
        assert!(grammar_of(&fr).is_some_and(|g| g.contains(&"est")));
        assert_eq!(grammar_of(&words_of("Where is the door code?")), None);
    }
}
