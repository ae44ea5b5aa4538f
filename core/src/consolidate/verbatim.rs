//! A turn in a language the English rules do not read: its sentences that speak of the user in
//! the first person, kept exactly as the user wrote them (never rewritten, never translated).
//! What counts as the first person, a listener opener, a sentence whose unsaid subject is the
//! writer's, and what passes are the language's reader's (`language::reader`); the rest of the
//! rules (a question, a secret, too short, too long, a placeholder) are the English rules' own.

use super::rules::{Dropped, Rule};
use crate::language::Lang;
use crate::language::reader::{self, Reader, first_person, says_any};

/// A sentence of fewer words (characters, in a language without spaces) says too little; of
/// more, it is not one fact.
const MIN_WORDS: usize = 3;
const MAX_WORDS: usize = 32;
const MIN_CHARS: usize = 4;
const MAX_CHARS: usize = 64;

/// Each sentence of `text` (a turn in `lang`, not English) with its verdict: kept as written, or
/// the rule that dropped it. A language without a row drops every sentence by
/// [`Rule::Language`].
pub fn read(text: &str, lang: Lang) -> Vec<(&str, Result<(), Dropped>)> {
    let Some(row) = reader::of(lang) else {
        let unread = |s| (s, Err(Dropped::by(Rule::Language)));
        return sentences(text).into_iter().map(unread).collect();
    };
    let mut out = Vec::new();
    for s in sentences(text) {
        // What follows a listener opener ("te cuento: …") is read, and kept, alone.
        let s = reader::without_opener(s, row);
        let v = verdict(s, row);
        // A sentence dropped for a passing or a pointing word keeps its clauses that say
        // something on their own ("Gosto de séries coreanas, estou vendo uma agora."), as the
        // English rules read a clause at a time.
        let by_a_word = v
            .as_ref()
            .is_err_and(|d| matches!(d.rule, Rule::Passing | Rule::Unresolved));
        // A sentence that ends asking keeps the statements before its question ("私もです、私は
        // エンジニアです、ご職業は？"), as English keeps "I'm George" of "I'm George, what's yours?".
        let asks = v.as_ref().is_err_and(|d| d.rule == Rule::Question);
        out.push((s, v));
        if (by_a_word || asks) && !one_thought(s, row) {
            let mut parts = clauses(s, row);
            if asks {
                parts.pop();
            }
            if parts.len() > 1 || (asks && !parts.is_empty()) {
                out.extend(parts.into_iter().filter_map(|c| {
                    let c = reader::without_opener(c, row);
                    verdict(c, row).is_ok().then_some((c, Ok(())))
                }));
            }
        }
    }
    out
}

/// Whether `sentence` holds a word that ties its clauses together ("si", "如果"): one thought.
fn one_thought(sentence: &str, row: &Reader) -> bool {
    let folded = crate::words::fold(sentence);
    (row.subordinators.iter()).any(|w| reader::says_entry(&folded, w, row))
}

/// The clauses of `sentence`: cut at the reader's commas and semicolons (`Reader::commas`),
/// each a trimmed slice of it.
fn clauses<'s>(sentence: &'s str, row: &Reader) -> Vec<&'s str> {
    sentence
        .split(row.commas)
        .map(str::trim)
        .filter(|c| c.chars().any(char::is_alphanumeric))
        .collect()
}

/// The longest question (in characters) a reply is kept with.
const MAX_QUESTION_CHARS: usize = 120;

/// The first sentence of `text` (a turn in `lang`) read as a reply to `asked` (the assistant's
/// message before it), when that message ends asking about the user in the same language ("Hast
/// du Haustiere?", "你有宠物吗？") and the sentence passes every rule but saying "I" ("Ja, einen
/// alten Dackel namens Fritz."): the fact is the question and the reply, each as typed ("Hast du
/// Haustiere? Ja, einen alten Dackel namens Fritz."), with the sentence replied.
pub fn reply<'a>(asked: &str, text: &'a str, lang: Lang) -> Option<(String, &'a str)> {
    let row = reader::of(lang)?;
    let question = last_question(asked)?;
    // A question that asks nothing on its own ("Et toi ?"), how the user is ("Ça va ?"), or
    // about a thing or person named before ("Tu lui parles toujours ?") makes no fact of a reply.
    let folded = crate::words::fold(reader::without_opener(question, row));
    let says = |list: &[&str]| list.iter().any(|p| reader::says_entry(&folded, p, row));
    // What it asks beside "you" and grammar words: "Et vous ?", "あなたは？" ask nothing.
    let too_short = if row.lang.unspaced() {
        let you: usize = (row.you.iter())
            .map(|y| folded.matches(y).count() * y.chars().count())
            .sum();
        folded.chars().filter(|c| c.is_alphanumeric()).count() < MIN_CHARS + you
    } else {
        let words = reader::words_of(&folded);
        let asks = words
            .iter()
            .filter(|w| !row.you.contains(&w.as_str()) && !row.grammar.contains(&w.as_str()));
        words.len() < MIN_WORDS || asks.count() == 0
    };
    if question.chars().count() > MAX_QUESTION_CHARS
        || says_any(question, row, row.you).is_none()
        || too_short
        || says(row.passing)
        || says(row.pointing)
    {
        return None;
    }
    let first = reader::without_opener(sentences(text).into_iter().next()?, row);
    let only_unsaid = verdict(first, row).is_err_and(|d| d.rule == Rule::NotFirstPerson);
    (only_unsaid && judged(first, row, true).is_ok())
        .then(|| (format!("{question} {first}"), first))
}

/// The last sentence of `text` when it is a question: ends with "?" or "？".
fn last_question(text: &str) -> Option<&str> {
    let t = text.trim_end();
    let body = t.strip_suffix(['?', '？'])?;
    let start = body
        .rfind(['.', '!', '?', '。', '！', '？', '\n'])
        .map_or(0, |i| {
            i + body[i..].chars().next().map_or(1, char::len_utf8)
        });
    let q = t[start..].trim();
    q.chars().any(char::is_alphanumeric).then_some(q)
}

/// The verdict on one sentence in `row`'s language.
fn verdict(s: &str, row: &Reader) -> Result<(), Dropped> {
    judged(s, row, false)
}

/// The verdict on one sentence; `mine` when what it replies to says whose it is.
fn judged(s: &str, row: &Reader, mine: bool) -> Result<(), Dropped> {
    if reader::is_question(s, row) {
        return Err(Dropped::by(Rule::Question));
    }
    if let Some(secret) = crate::secret::find(s) {
        return Err(Dropped::on(Rule::Secret, secret.as_str()));
    }
    let (size, min, max) = if row.lang.unspaced() {
        let letters = s.chars().filter(|c| c.is_alphanumeric()).count();
        (letters, MIN_CHARS, MAX_CHARS)
    } else {
        let words = s
            .split_whitespace()
            .filter(|w| w.chars().any(char::is_alphanumeric))
            .count();
        (words, MIN_WORDS, MAX_WORDS)
    };
    if size < min {
        return Err(Dropped::by(Rule::TooShort));
    }
    if size > max {
        return Err(Dropped::by(Rule::TooLong));
    }
    if s.contains(['[', ']', '{', '}']) {
        return Err(Dropped::by(Rule::Placeholder));
    }
    if !mine && !first_person(s, row) && !reader::unsaid_but_mine(s, row) {
        return Err(Dropped::by(Rule::NotFirstPerson));
    }
    if let Some(you) = says_any(s, row, row.you) {
        return Err(Dropped::on(Rule::Addressed, you));
    }
    let folded = crate::words::fold(s);
    if let Some((_, request)) = reader::request_in(&folded, row) {
        return Err(Dropped::on(Rule::RequestOnly, request));
    }
    // Korean words take endings ("피곤해요"): `says_entry` matches them inside the text's words.
    if let Some(p) = row
        .passing
        .iter()
        .find(|p| reader::says_entry(&folded, p, row))
    {
        return Err(Dropped::on(Rule::Passing, p));
    }
    if let Some(p) = row
        .pointing
        .iter()
        .find(|p| reader::says_entry(&folded, p, row))
    {
        return Err(Dropped::on(Rule::Unresolved, p));
    }
    if let Some(p) = reader::dangling_end(&folded, row) {
        return Err(Dropped::on(Rule::Unresolved, p));
    }
    Ok(())
}

/// The sentences of `text`, each a trimmed slice of it: cut after ".", "!", "?", "…" and their
/// full-width forms, and at line breaks; a point between two digits ("3.5") cuts nothing.
pub fn sentences(text: &str) -> Vec<&str> {
    const ENDS: &[char] = &['.', '!', '?', '…', '。', '！', '？', '\n'];
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    let mut prev: Option<char> = None;
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let decimal = c == '.'
            && prev.is_some_and(|p| p.is_ascii_digit())
            && next.is_some_and(|n| n.is_ascii_digit());
        if ENDS.contains(&c) && !decimal && !next.is_some_and(|n| ENDS.contains(&n)) {
            let end = i + c.len_utf8();
            out.push(text[start..end].trim());
            start = end;
        }
        prev = Some(c);
    }
    out.push(text[start..].trim());
    out.retain(|s| s.chars().any(char::is_alphanumeric));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(text: &str, lang: Lang) -> Vec<&str> {
        read(text, lang)
            .into_iter()
            .filter(|(_, v)| v.is_ok())
            .map(|(s, _)| s)
            .collect()
    }

    #[test]
    fn sentences_are_slices_of_the_text() {
        assert_eq!(
            sentences("je le fais bien . juste se détendre avec mes deux chiens."),
            [
                "je le fais bien .",
                "juste se détendre avec mes deux chiens."
            ]
        );
        assert_eq!(
            sentences("我有两只狗。我喜欢猫！"),
            ["我有两只狗。", "我喜欢猫！"]
        );
        assert_eq!(
            sentences("Il coûte 3.5 euros... vraiment"),
            ["Il coûte 3.5 euros...", "vraiment"]
        );
    }

    #[test]
    fn first_person_sentences_are_kept_as_said() {
        assert_eq!(
            kept(
                "Salut ! J'ai deux chiens. Les voitures sont belles. Et toi, tu as des chiens ?",
                Lang::French
            ),
            ["J'ai deux chiens."]
        );
        assert_eq!(
            kept("Tengo dos gatos, Luna y Sol.", Lang::Spanish),
            ["Tengo dos gatos, Luna y Sol."]
        );
        assert_eq!(kept("我有两只猫。你呢？", Lang::Chinese), ["我有两只猫。"]);
        assert_eq!(
            kept("저는 서울에 살고 있어요.", Lang::Korean),
            ["저는 서울에 살고 있어요."]
        );
        assert!(kept("Меня зовут Ольга, я врач.", Lang::Other).is_empty());
    }

    /// Spanish, Italian and Portuguese leave the subject to the verb: a sentence opening with a
    /// common verb of the first person is the writer's (XPersona's Italian dialogues, and the
    /// Spanish and Portuguese sessions in tests/data/sessions-es-de-pt).
    #[test]
    fn a_first_person_verb_without_its_pronoun_is_the_writers() {
        for (text, lang) in [
            ("Hablo alemán y francés.", Lang::Spanish),
            (
                "Sí, pero no como carne, así que cocino mucha verdura.",
                Lang::Spanish,
            ),
            (
                "insegno principalmente a camminare e fare escursioni",
                Lang::Italian,
            ),
            ("suono il trombone, il sax alto e la tromba.", Lang::Italian),
            (
                "Toco bateria numa banda de rock com uns amigos.",
                Lang::Portuguese,
            ),
            (
                "Gosto de pescar no rio Tejo aos domingos.",
                Lang::Portuguese,
            ),
        ] {
            assert_eq!(kept(text, lang), [text], "{text}");
        }
        // A noun of the same letters is not a verb: "musica da ballo" names a dance.
        assert!(kept("la musica da ballo latino americana è bella", Lang::Italian).is_empty());
    }

    /// Moods, reactions and the moment pass in every read language: none is kept (issue #50's
    /// sessions, and written here).
    #[test]
    fn moods_and_reactions_are_never_kept() {
        for (text, lang) in [
            ("Franchement je suis crevée en ce moment.", Lang::French),
            ("Ich bin gerade total müde.", Lang::German),
            ("我最近心情不太好。", Lang::Chinese),
            ("jajaja qué bueno, me encanta.", Lang::Spanish),
            ("Estoy muy cansada esta semana.", Lang::Spanish),
            ("Sono stanchissima oggi.", Lang::Italian),
            ("Eu estou tão cansado, kkkk.", Lang::Portuguese),
            ("Ik ben zo moe vandaag.", Lang::Dutch),
            ("Saya capek banget hari ini.", Lang::Indonesian),
            ("저는 요즘 너무 피곤해요.", Lang::Korean),
            ("私は今日すごく疲れました。", Lang::Japanese),
            ("Je suis trop contente, merci !", Lang::French),
            // An exclamation, how the user is, that they get it (XPersona).
            ("oh mon Dieu, et toi ?", Lang::French),
            ("oh mio dio, e tu?", Lang::Italian),
            ("나는 잘 지내고 있어.", Lang::Korean),
            ("Kabar saya baik, bagaimana dengan anda?", Lang::Indonesian),
            ("我明白了，你呢？", Lang::Chinese),
            ("私はもう行かなくては、またね？", Lang::Japanese),
        ] {
            assert!(kept(text, lang).is_empty(), "{text}");
        }
    }

    /// A sentence that ends asking keeps the statements before its question, at the reader's
    /// commas (XPersona's "私もです、私はエンジニアです、ご職業は？" in four languages; "、"
    /// parts Japanese clauses, and a Chinese list's items, which stay together).
    #[test]
    fn a_statement_before_a_question_is_kept() {
        for (text, lang, want) in [
            (
                "私もです、私はエンジニアです、ご職業は？",
                Lang::Japanese,
                &["私はエンジニアです"][..],
            ),
            (
                "moi aussi je suis ingénieur, quel est ton travail ?",
                Lang::French,
                &["moi aussi je suis ingénieur"],
            ),
            (
                "vivo in Australia, e tu dove vivi?",
                Lang::Italian,
                &["vivo in Australia"],
            ),
            (
                "我喜欢苹果、香蕉，你呢？",
                Lang::Chinese,
                &["我喜欢苹果、香蕉"],
            ),
            ("Et toi, tu as des chiens ?", Lang::French, &[]),
        ] {
            assert_eq!(kept(text, lang), want, "{text}");
        }
    }

    /// A request to the assistant that names the user only as who receives is never a fact, in
    /// every reader (hand-written, and XPersona's "dammi un martello", "给我六个彩票号码"); the
    /// same verbs in a sentence of the user's own are kept.
    #[test]
    fn requests_are_never_kept() {
        for (text, lang) in [
            (
                "Donne-moi trois idées de titres pour un poème.",
                Lang::French,
            ),
            (
                "Explique-moi comment fonctionne un transistor.",
                Lang::French,
            ),
            ("Nenn mir ein Synonym für schnell.", Lang::German),
            (
                "Bitte erklär mir, wie ein Regenbogen entsteht.",
                Lang::German,
            ),
            ("Geef me drie ideeën voor een gedicht.", Lang::Dutch),
            ("Me diga a capital da Austrália.", Lang::Portuguese),
            ("Berikan saya tiga ide judul puisi.", Lang::Indonesian),
            (
                "Sono terribile in quel gioco, dammi un martello.",
                Lang::Italian,
            ),
            ("Dime la capital de Australia, yo no la sé.", Lang::Spanish),
            ("给我一个关于春天的成语。", Lang::Chinese),
            ("哇 ！好吧，通灵者，给我六个彩票号码。", Lang::Chinese),
            ("私に俳句をひとつ作ってください。", Lang::Japanese),
            ("나에게 재미있는 이야기를 해 줘.", Lang::Korean),
        ] {
            assert!(kept(text, lang).is_empty(), "{text}");
        }
        for (text, lang) in [
            ("我最好的朋友送给我的自行车很旧了。", Lang::Chinese),
            ("我丈夫给我买了各种各样的关于婴儿的书。", Lang::Chinese),
            ("我住在内陆，因为我对水过敏。", Lang::Chinese),
            (
                "Mon père me donne des cours de piano le samedi.",
                Lang::French,
            ),
            ("Ich gebe mir jeden Tag Mühe beim Kochen.", Lang::German),
            (
                "Ayah saya memberikan saya palu saat saya berusia 2 tahun.",
                Lang::Indonesian,
            ),
        ] {
            assert_eq!(kept(text, lang), [text], "{text}");
        }
    }

    /// A sentence pointing at something said in another turn says nothing on its own (XPersona
    /// facts read by hand); the same words as an article or a noun do not point.
    #[test]
    fn a_sentence_that_points_elsewhere_is_not_kept() {
        for (text, lang) in [
            ("je l'aime ici à part ça.", Lang::French),
            ("我帮忙设计了它！", Lang::Chinese),
            ("私はそれが大好きです。", Lang::Japanese),
            ("나는 그것들에 대해 일하는 것을 좋아해.", Lang::Korean),
            ("A mí me encanta eso.", Lang::Spanish),
        ] {
            assert!(kept(text, lang).is_empty(), "{text}");
        }
        assert_eq!(
            kept("J'aime l'école et les chats.", Lang::French),
            ["J'aime l'école et les chats."]
        );
        assert_eq!(kept("我喜欢我的猫。", Lang::Chinese), ["我喜欢我的猫。"]);
        // Someone else who cannot understand the user is no acknowledgement.
        assert_eq!(
            kept(
                "Saya suka berbicara tetapi tidak ada yang bisa mengerti saya.",
                Lang::Indonesian
            ),
            ["Saya suka berbicara tetapi tidak ada yang bisa mengerti saya."]
        );
        // A comparison's "ne le" points nowhere.
        assert_eq!(
            kept("mais je suis plus fort que je ne le pense!", Lang::French),
            ["mais je suis plus fort que je ne le pense!"]
        );
        assert_eq!(
            kept("私は犬と猫の両方を飼っています。", Lang::Japanese),
            ["私は犬と猫の両方を飼っています。"]
        );
        // "它们" names what the sentence has named itself.
        assert_eq!(
            kept("我有两只猫，它们叫小白和小黑。", Lang::Chinese),
            ["我有两只猫，它们叫小白和小黑。"]
        );
    }

    /// A sentence ending where its object should be points at the turn before ("Je déteste ça !",
    /// "我不喜欢。", "私もです。" from XPersona; "Ja, ich liebe es." from our German sessions);
    /// hedges, not knowing and what was just done pass, as English's openings do ("je suppose
    /// que non", "eh saya tidak tahu", "ho appena visto snoop e martha"; "Vou bem, acabei de
    /// correr dez quilômetros."). The same words inside a lasting sentence do not.
    #[test]
    fn a_sentence_left_hanging_or_hedged_is_not_kept() {
        for (text, lang) in [
            ("Je déteste ça !", Lang::French),
            ("je ne suis pas allé .", Lang::French),
            ("Ja, ich liebe es.", Lang::German),
            ("Sí, tengo muchas ganas.", Lang::Spanish),
            ("saya suka acara itu!", Lang::Indonesian),
            ("saya tidak menyukainya.", Lang::Indonesian),
            ("ya, saya melakukannya.", Lang::Indonesian),
            (
                "Saya berharap saya bisa, tetapi saya tidak bisa.",
                Lang::Indonesian,
            ),
            ("saya juga berharap begitu!", Lang::Indonesian),
            ("我不喜欢。", Lang::Chinese),
            ("不，我从来没有去过。", Lang::Chinese),
            ("私もです。", Lang::Japanese),
            ("違うと思います 。", Lang::Japanese),
            ("pensais que c'était fini, je suppose que non", Lang::French),
            ("euh je n'ai aucune idée", Lang::French),
            ("eh saya tidak tahu.", Lang::Indonesian),
            ("ah saya bisa mengerti", Lang::Indonesian),
            ("Bung saya paham.", Lang::Indonesian),
            ("ho appena visto snoop e martha", Lang::Italian),
            ("Je viens de rentrer d'une promenade.", Lang::French),
            ("Ich bin gerade vom Chor zurück.", Lang::German),
            (
                "Vou bem, acabei de correr dez quilômetros.",
                Lang::Portuguese,
            ),
            ("我刚刚看了史努比和玛莎。", Lang::Chinese),
            ("au moins les chats ne me manqueront pas", Lang::French),
            ("至少我们志趣相投。", Lang::Chinese),
            // Someone named in another turn opens it; what is only imagined.
            ("ils essaient de m'aider.", Lang::French),
            ("他们试图帮助我。", Lang::Chinese),
            ("彼は私のを飼えますよ。", Lang::Japanese),
            ("Oh, er wohnt bei mir um die Ecke.", Lang::German),
            ("哦，如果我的一只猫出来我会慌张的。", Lang::Chinese),
            (
                "Si j'avais un camion, je partirais en voyage.",
                Lang::French,
            ),
            (
                "Se avessi tempo, suonerei il piano ogni giorno.",
                Lang::Italian,
            ),
        ] {
            assert!(kept(text, lang).is_empty(), "{text}");
        }
    }

    /// "Mine", "this", "both" or a clitic said of what another turn named, and what one should
    /// do: nothing of the user's own ("私のは超高速です。", "j'aime les deux.", "je n'en ai pas
    /// encore fait." from XPersona).
    #[test]
    fn a_sentence_pointing_at_another_turn_is_not_kept() {
        for (text, lang) in [
            ("私のは超高速です。", Lang::Japanese),
            ("我的是木瓜。", Lang::Chinese),
            ("私は全然できないので。", Lang::Japanese),
            ("私はむしろ屋内にいたいのですが。", Lang::Japanese),
            ("j'aime les deux.", Lang::French),
            ("私は両方を楽しんでいます。", Lang::Japanese),
            ("je n'en ai pas encore fait.", Lang::French),
            ("saya bertemu dengannya di italia.", Lang::Indonesian),
            (
                "non, je n'ai pas encore appris comment le faire.",
                Lang::French,
            ),
            ("ouais, je m'y attends juste", Lang::French),
            (
                "c'est ce que je fais quand je perds une poupée.",
                Lang::French,
            ),
            ("両方とも好きです。", Lang::Japanese),
            (
                "c'est pourquoi je ne mange que des aliments crus.",
                Lang::French,
            ),
            ("Itu sebabnya saya mencintainya.", Lang::Indonesian),
            ("je suis sûr !", Lang::French),
            (
                "Itu bagus, saya yakin itu terlihat bagus.",
                Lang::Indonesian,
            ),
            ("我的孩子们也是。", Lang::Chinese),
            ("但是我的养父喜欢他们。", Lang::Chinese),
            ("我吃墨西哥菜的时候一直都吃这个。", Lang::Chinese),
            ("我应该尝试其他类型的音乐。", Lang::Chinese),
            (
                "ああ、私たちは一緒にいくつかの歌をやろうとするべきです！",
                Lang::Japanese,
            ),
        ] {
            assert!(kept(text, lang).is_empty(), "{text}");
        }
    }

    /// What English's openings pass (`lexicon::NOT_A_DISCLOSURE`: "I heard", "I feel", "I'm
    /// watching", "let's", "we could", "I'm off") passes in every reader: XPersona's "J'ai
    /// entendu dire que…", "我感觉很好", "いつか一緒に…行きましょう", and written here.
    #[test]
    fn what_english_passes_passes_in_every_reader() {
        for (text, lang) in [
            (
                "J'ai entendu dire que les animaux aident contre la dépression.",
                Lang::French,
            ),
            ("我听说宠物可以帮助抑郁症。", Lang::Chinese),
            (
                "ペットがうつ病に役立つと聞いたことがあります。",
                Lang::Japanese,
            ),
            (
                "He oído que el ukelele es fácil de aprender.",
                Lang::Spanish,
            ),
            ("Ich habe gehört, dass Bremen schön ist.", Lang::German),
            ("Ouvi dizer que o Porto é lindo.", Lang::Portuguese),
            ("Ho sentito dire che Torino è bella.", Lang::Italian),
            ("Ik heb gehoord dat Utrecht mooi is.", Lang::Dutch),
            ("Saya dengar Bandung itu indah.", Lang::Indonesian),
            ("je me sens en bonne santé et prêt à partir!", Lang::French),
            ("我感觉健康，准备出发！", Lang::Chinese),
            ("Saya merasa sangat kuat hari ini.", Lang::Indonesian),
            ("Me siento un poco sola en el piso nuevo.", Lang::Spanish),
            ("Ich fühle mich heute super.", Lang::German),
            (
                "je regarde juste un documentaire sur la guerre du vietnam.",
                Lang::French,
            ),
            ("我在看一部关于越南战争的纪录片。", Lang::Chinese),
            ("Estoy viendo una serie coreana en mi sofá.", Lang::Spanish),
            ("Sto cucinando la pasta per i miei figli.", Lang::Italian),
            (
                "Estou assistindo um filme com minha irmã.",
                Lang::Portuguese,
            ),
            ("Ik ben aan het koken voor mijn vrienden.", Lang::Dutch),
            (
                "いつか一緒にロッククライミングに行きましょう",
                Lang::Japanese,
            ),
            ("nous pourrions faire de l'escalade un jour.", Lang::French),
            ("Lass uns mal zusammen klettern gehen.", Lang::German),
            ("我们可以走了。", Lang::Chinese),
            ("mais je dois y aller maintenant", Lang::French),
            ("tapi saya harus pergi sekarang", Lang::Indonesian),
            ("나도 언젠가 의학분야에 있길 바래.", Lang::Korean),
            ("pas très éthique à mon avis", Lang::French),
            (
                "シーダソープが安定してくれることを願っています。",
                Lang::Japanese,
            ),
        ] {
            assert!(kept(text, lang).is_empty(), "{text}");
        }
    }

    /// What English's openings and requests drop as taking up what the assistant offered ("I
    /// like the idea of …", "I'm interested in learning more about …", "I'm looking for some
    /// recipe ideas"): every reader passes it too.
    #[test]
    fn taking_up_an_offer_passes_in_every_reader() {
        for (text, lang) in [
            (
                "J'adore l'idée de demander à Jen de choisir la musique.",
                Lang::French,
            ),
            (
                "Je cherche des idées de recettes avec des tomates fraîches.",
                Lang::French,
            ),
            (
                "Me interesa saber más sobre los quesos veganos.",
                Lang::Spanish,
            ),
            (
                "Mi piace l'idea di un matrimonio in un frutteto.",
                Lang::Italian,
            ),
            (
                "Gosto da ideia de um casamento num pomar.",
                Lang::Portuguese,
            ),
            (
                "Mir gefällt die Idee einer Hochzeit im Obstgarten.",
                Lang::German,
            ),
            ("Ik wil graag meer weten over vegan kaas.", Lang::Dutch),
            ("Saya suka ide pernikahan di kebun buah.", Lang::Indonesian),
            ("Estoy abierta a probar otras recetas.", Lang::Spanish),
            ("Ich bin offen für andere Vorschläge.", Lang::German),
            ("我喜欢在果园办婚礼的想法。", Lang::Chinese),
            ("我想多了解一些素食奶酪。", Lang::Chinese),
            (
                "ヴィーガンチーズについてもっと知りたいです。",
                Lang::Japanese,
            ),
            (
                "젠에게 음악을 골라 달라고 하는 아이디어가 정말 좋아요.",
                Lang::Korean,
            ),
        ] {
            assert!(kept(text, lang).is_empty(), "{text}");
        }
    }

    /// A sentence dropped for a passing or pointing word keeps a clause that says something on
    /// its own, as English reads a clause at a time (XPersona: "génial, je ne lis presque
    /// jamais", "我很好，我和父母来自印度"); never a clause of a condition, a time or a cause.
    #[test]
    fn a_clause_that_stands_alone_is_kept() {
        for (text, lang, want) in [
            (
                "génial, je ne lis presque jamais.",
                Lang::French,
                "je ne lis presque jamais.",
            ),
            (
                "我很好，我和父母来自印度。",
                Lang::Chinese,
                "我和父母来自印度。",
            ),
            (
                "Gosto de séries coreanas, estou vendo uma agora.",
                Lang::Portuguese,
                "Gosto de séries coreanas",
            ),
            (
                "amo i cani, vorrei un husky ma non posso averne uno ancora",
                Lang::Italian,
                "amo i cani",
            ),
        ] {
            assert_eq!(kept(text, lang), [want], "{text}");
        }
        for (text, lang) in [
            ("如果我不穿乐队T恤，我穿荷叶袖。", Lang::Chinese),
            (
                "Jika saya pergi seminggu tanpa kaviar, saya akan mati.",
                Lang::Indonesian,
            ),
            (
                "quand je porte mon casque, je me sens comme un super héros",
                Lang::French,
            ),
            (
                "Si pudiera, me mudaría a Bilbao, creo que sí.",
                Lang::Spanish,
            ),
        ] {
            assert!(kept(text, lang).is_empty(), "{text}");
        }
    }

    /// The words of [`a_sentence_left_hanging_or_hedged_is_not_kept`] inside a lasting sentence,
    /// or meaning something else, do not drop it.
    #[test]
    fn the_same_words_in_a_lasting_sentence_keep_it() {
        for (text, lang) in [
            (
                "A me piace vivere nel verde ed ho appena messo i pannelli solari sul tetto",
                Lang::Italian,
            ),
            (
                "assez proche je suppose, mon père a mis un marteau dans ma main à 2.",
                Lang::French,
            ),
            (
                "似てると思います、父は私が2歳の時にハンマーを持たせてきました。",
                Lang::Japanese,
            ),
            (
                "An einem Gymnasium in Leipzig, da wohne ich auch.",
                Lang::German,
            ),
            ("Sou do Porto, nasci e cresci aqui.", Lang::Portuguese),
            (
                "je viens d'Amérique, mais ma famille a déménagé en Amérique du Sud",
                Lang::French,
            ),
            ("je cours au moins trois fois par semaine.", Lang::French),
            (
                "J'ai un fils de huit ans, il vit avec sa mère.",
                Lang::French,
            ),
            ("Mein Bruder und ich spielen Tennis.", Lang::German),
            // A clause before the comma is no opener in a language without spaces.
            ("我女儿很聪明，她是一个神童。", Lang::Chinese),
            // "même si" is "even though".
            (
                "oui, même si je ne crois pas vraiment en Dieu.",
                Lang::French,
            ),
            ("我喜欢经典的乡村风。", Lang::Chinese),
            ("我也是星球大战的粉丝！", Lang::Chinese),
            // "That's why" inside the sentence points at its own first clause.
            (
                "j'aime l'isolement, c'est pourquoi je suis devenu apiculteur.",
                Lang::French,
            ),
            (
                "나는 화학을 전공했고 그래서 나는 이미 평생에 충분한 지식을 가지고 있어.",
                Lang::Korean,
            ),
            ("私は古典的なカントリーが好きです。", Lang::Japanese),
        ] {
            assert_eq!(kept(text, lang), [text], "{text}");
        }
    }

    /// What follows a listener opener is read; a sentence with no "I" is the writer's where the
    /// language leaves its subject out (Japanese, Korean), not where it says it.
    #[test]
    fn openers_and_unsaid_subjects() {
        assert_eq!(
            kept("Pues te cuento: me he mudado a Bilbao.", Lang::Spanish),
            ["me he mudado a Bilbao."]
        );
        assert_eq!(
            kept(
                "Weißt du, ich bin letztes Jahr nach Bremen gezogen.",
                Lang::German
            ),
            ["ich bin letztes Jahr nach Bremen gezogen."]
        );
        // A greeting opens a sentence; it does not make it pass (XPersona, Italian).
        assert_eq!(
            kept(
                "ciao mi piace il Disneyland e vado ogni anno",
                Lang::Italian
            ),
            ["mi piace il Disneyland e vado ogni anno"]
        );
        assert_eq!(
            kept("告诉你，我搬到上海了。", Lang::Chinese),
            ["我搬到上海了。"]
        );
        assert_eq!(
            kept("大阪で看護師をしています。", Lang::Japanese),
            ["大阪で看護師をしています。"]
        );
        assert_eq!(
            kept("서울에서 디자이너로 일하고 있어요.", Lang::Korean),
            ["서울에서 디자이너로 일하고 있어요."]
        );
        // Another subject, or a thing pointed at: not the writer's.
        assert!(kept("彼女は大阪で看護師をしています。", Lang::Japanese).is_empty());
        assert!(kept("この映画はとても長いです。", Lang::Japanese).is_empty());
        assert!(kept("Les voitures sont belles et rapides.", Lang::French).is_empty());
        // A question without its mark, by the reader's particles and question words.
        for (text, lang) in [
            ("どこに住んでいますか", Lang::Japanese),
            ("牛抜きでゲームをする時間はありますか", Lang::Japanese),
            ("我的狗叫什么名字呢。", Lang::Chinese),
            ("Est-ce que je peux avoir un chien.", Lang::French),
            ("저는 어디에 살아야 할까", Lang::Korean),
        ] {
            assert!(kept(text, lang).is_empty(), "{text}");
        }
    }
}
