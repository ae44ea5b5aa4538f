//! Standing constraints: facts that limit which advice fits the user (a diet, an allergy, a
//! health condition, accessibility, a language, a budget, a family situation), recognised from
//! a fact's text by rule, and the advice domains a message asks about (food, travel, shopping,
//! health, plans). A message asking for advice in a domain recalls the constraints on it even
//! when it shares no word with them ("Any dinner ideas?" over "User is vegetarian"). The cues of
//! diet, allergy, allergens, health, and of asking for ideas about food, health and travel are
//! every reader's (`language::reader`), and so are a language spoken, a budget and a dependent, so
//! a constraint kept in the user's words is found in their language ("Des idées pour le dîner ?"
//! over "je suis végétarienne"), and so are access needs, health that bears on travel, and asking
//! advice on shopping or plans.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use serde::Serialize;

use crate::language::reader::{Constraints, READERS};
use crate::words::tokens;

/// What kind of constraint a fact states (`--explain` shows "constraint: diet").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Label {
    Diet,
    Allergy,
    Health,
    Accessibility,
    Language,
    Budget,
    Family,
}

impl Label {
    pub fn as_str(self) -> &'static str {
        match self {
            Label::Diet => "diet",
            Label::Allergy => "allergy",
            Label::Health => "health",
            Label::Accessibility => "accessibility",
            Label::Language => "language",
            Label::Budget => "budget",
            Label::Family => "family",
        }
    }
}

/// Advice domains, as a bit set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Domains(u8);

impl Domains {
    pub const NONE: Domains = Domains(0);
    pub const FOOD: Domains = Domains(1);
    pub const TRAVEL: Domains = Domains(2);
    pub const SHOPPING: Domains = Domains(4);
    pub const HEALTH: Domains = Domains(8);
    pub const PLANS: Domains = Domains(16);

    pub const fn or(self, other: Domains) -> Domains {
        Domains(self.0 | other.0)
    }

    pub fn meets(self, other: Domains) -> bool {
        self.0 & other.0 != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// A standing constraint: its kind, and the advice it bears on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Constraint {
    pub label: Label,
    pub domains: Domains,
}

/// A text's lower-cased words: as a set, and as one space-separated string with a space at
/// each end, so that `" gluten free "` matches "gluten-free" and whole words only.
pub(super) struct Spaced {
    /// The words, one space apart, a space at each end.
    pub(super) line: String,
    words: HashSet<String>,
}

pub(super) fn spaced(text: &str) -> Spaced {
    let words = tokens(text);
    let mut line = String::from(" ");
    for t in &words {
        line.push_str(t);
        line.push(' ');
    }
    Spaced {
        line,
        words: words.into_iter().collect(),
    }
}

/// Whether `s` holds one of `cues`, each a word or a phrase. A cue whose first word is not in
/// the text is passed over with one set lookup (the index runs this for every fact). A cue of
/// one CJK letter ("卵", "吃") is found inside the two-letter pieces `tokens` cuts such text into.
fn any(s: &Spaced, cues: &[&str]) -> bool {
    cues.iter().any(|c| {
        if one_cjk_letter(c) {
            return s.line.contains(c);
        }
        let first = c.split(' ').next().unwrap_or(c);
        s.words.contains(first) && (!c.contains(' ') || s.line.contains(&format!(" {c} ")))
    })
}

/// Whether `cue` is a single Chinese, Japanese or Korean letter, which no two-letter piece of
/// `tokens` equals.
fn one_cjk_letter(cue: &str) -> bool {
    let mut letters = cue.chars();
    letters.next().is_some_and(crate::words::is_cjk) && letters.next().is_none()
}

/// Whether `s` gives someone's age: "is six", "is 6".
fn says_an_age(s: &Spaced) -> bool {
    let s = &s.line;
    s.match_indices(" is ").any(|(at, m)| {
        let next = s[at + m.len()..].split(' ').next().unwrap_or_default();
        // A child's age in words ("is six"): `words::NUMBER_WORDS` up to seventeen.
        crate::words::number_value(next).is_some_and(|n| (1..=17).contains(&n))
            || (!next.is_empty() && next.len() <= 2 && next.chars().all(|c| c.is_ascii_digit()))
    })
}

/// The standing constraint `text` states, if it states one (the first that applies, in the
/// order of [`Label`]).
pub fn of_fact(text: &str) -> Option<Constraint> {
    use Domains as D;
    let words = tokens(text);
    let has = fact_cues(&words);
    let s = |group: usize| has & (1 << group) != 0;
    let c = |label, domains| Some(Constraint { label, domains });
    if s(ALLERGY_) {
        return if s(FOOD_ALLERGENS_) {
            c(Label::Allergy, D::FOOD.or(D::HEALTH))
        } else {
            c(Label::Allergy, D::HEALTH)
        };
    }
    if s(DIET_) {
        return c(Label::Diet, D::FOOD);
    }
    if s(ACCESSIBILITY_) {
        return c(Label::Accessibility, D::TRAVEL.or(D::PLANS).or(D::SHOPPING));
    }
    if s(TRAVEL_HEALTH_) {
        return c(Label::Health, D::TRAVEL.or(D::PLANS).or(D::HEALTH));
    }
    if s(HEALTH_) {
        return c(Label::Health, D::HEALTH.or(D::PLANS));
    }
    if s(LANGUAGES_) && s(SPEAKS_) {
        return c(Label::Language, D::TRAVEL.or(D::PLANS));
    }
    if s(BUDGET_) {
        return c(Label::Budget, D::SHOPPING.or(D::TRAVEL));
    }
    if s(DEPENDENTS_) && (s(SITUATION_) || says_an_age(&spaced(text))) {
        return c(Label::Family, D::TRAVEL.or(D::PLANS));
    }
    None
}

// The cue lists a fact is matched against, by their place in [`FACT_CUES`].
const ALLERGY_: usize = 0;
const FOOD_ALLERGENS_: usize = 1;
const DIET_: usize = 2;
const ACCESSIBILITY_: usize = 3;
const TRAVEL_HEALTH_: usize = 4;
const HEALTH_: usize = 5;
const LANGUAGES_: usize = 6;
const SPEAKS_: usize = 7;
const BUDGET_: usize = 8;
const DEPENDENTS_: usize = 9;
const SITUATION_: usize = 10;
/// The cue lists a fact is matched against: every reader's (a fact is in the user's language).
fn fact_cue_lists() -> [&'static [&'static str]; 11] {
    let g = gathered();
    [
        &g.allergy,
        &g.allergens,
        &g.diet,
        &g.access,
        &g.travel_health,
        &g.health,
        &g.languages,
        &g.speaks,
        &g.budget,
        &g.dependents,
        &g.situation,
    ]
}

/// The constraint cues of every reader, gathered once.
struct Gathered {
    diet: Vec<&'static str>,
    allergy: Vec<&'static str>,
    allergens: Vec<&'static str>,
    advice: Vec<&'static str>,
    food: Vec<&'static str>,
    health: Vec<&'static str>,
    health_advice: Vec<&'static str>,
    travel: Vec<&'static str>,
    languages: Vec<&'static str>,
    speaks: Vec<&'static str>,
    budget: Vec<&'static str>,
    dependents: Vec<&'static str>,
    situation: Vec<&'static str>,
    access: Vec<&'static str>,
    travel_health: Vec<&'static str>,
    shopping: Vec<&'static str>,
    plans: Vec<&'static str>,
    money: Vec<&'static str>,
    speech: Vec<&'static str>,
}

fn gathered() -> &'static Gathered {
    static G: OnceLock<Gathered> = OnceLock::new();
    G.get_or_init(|| {
        let all = |pick: fn(&'static Constraints) -> &'static [&'static str]| {
            READERS
                .iter()
                .flat_map(|r| pick(&r.constraints).iter().copied())
                .map(as_tokens)
                .collect()
        };
        Gathered {
            diet: all(|c| c.diet),
            allergy: all(|c| c.allergy),
            allergens: all(|c| c.allergens),
            advice: all(|c| c.advice),
            food: all(|c| c.food),
            health: all(|c| c.health),
            health_advice: all(|c| c.health_advice),
            travel: all(|c| c.travel),
            languages: all(|c| c.languages),
            speaks: all(|c| c.speaks),
            budget: all(|c| c.budget),
            dependents: all(|c| c.dependents),
            situation: all(|c| c.situation),
            access: all(|c| c.access),
            travel_health: all(|c| c.travel_health),
            shopping: all(|c| c.shopping),
            plans: all(|c| c.plans),
            money: all(|c| c.money),
            speech: all(|c| c.speech),
        }
    })
}

/// A cue as the words `tokens` gives its text: itself, or, in letters without spaces (Chinese,
/// Japanese, Korean), its two-letter pieces one space apart ("不吃肉" → "不吃 吃肉").
fn as_tokens(cue: &'static str) -> &'static str {
    if !cue.chars().any(crate::words::is_cjk) {
        return cue;
    }
    let pieces: Vec<String> = cue.split(' ').flat_map(tokens).collect();
    Box::leak(pieces.join(" ").into_boxed_str())
}

/// Which of [`FACT_CUES`] occur in `words`, as bits. Looked up from each word of the fact (a
/// map from a cue's first word to its lists), so the index pays a few lookups per fact, not
/// one per cue.
fn fact_cues(words: &[String]) -> u32 {
    type ByFirst = HashMap<&'static str, Vec<(usize, Vec<&'static str>)>>;
    static MAP: OnceLock<ByFirst> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        let mut m: ByFirst = HashMap::new();
        for (group, cues) in fact_cue_lists().iter().enumerate() {
            for cue in *cues {
                let parts: Vec<&'static str> = cue.split(' ').collect();
                m.entry(parts[0]).or_default().push((group, parts));
            }
        }
        m
    });
    let mut has = 0;
    for (k, w) in words.iter().enumerate() {
        // A one-letter CJK cue ("卵") inside a two-letter piece ("卵ア").
        if w.chars().count() == 2 && w.chars().all(crate::words::is_cjk) {
            for letter in w.chars() {
                let key = letter.to_string();
                for (group, parts) in map.get(key.as_str()).into_iter().flatten() {
                    if parts.len() == 1 {
                        has |= 1 << group;
                    }
                }
            }
        }
        let Some(cues) = map.get(w.as_str()) else {
            continue;
        };
        for (group, parts) in cues {
            let rest = &parts[1..];
            let follows = words.len() > k + rest.len()
                && rest.iter().zip(&words[k + 1..]).all(|(p, w)| p == w);
            if rest.is_empty() || follows {
                has |= 1 << group;
            }
        }
    }
    has
}

/// Whether `message` asks for advice or ideas as a reader's language asks ("devrais-je", "qué
/// puedo", "soll ich", "我该", "おすすめ"), whatever it is about.
pub fn asks_advice(message: &str) -> bool {
    any(&spaced(message), &gathered().advice)
}

/// The advice domains `message` asks about: empty unless it asks for advice, a recommendation
/// or something for the user ("how many calories are in a banana?" asks none; "suggest a
/// dinner" and "give me a recipe" ask food). Plans ("tonight", "a party") is the weakest: it counts only when no other domain is
/// named, so "dinner ideas for tonight" asks about food, not every plan.
pub fn advice_domains(message: &str) -> Domains {
    let s = spaced(message);
    let g = gathered();
    // A request asks too ("Kannst du mir ein Rezept für Nusskuchen geben?", "give me a
    // recipe"): what it names is the advice it wants, but for plans, which any request for
    // something fun would name ("tell me a fun fact about whales").
    let advice = any(&s, &g.advice);
    if !advice && !crate::language::reader::makes_request(message) {
        return Domains::NONE;
    }
    let mut d = Domains::NONE;
    for (cues, domain) in [
        (g.food.as_slice(), Domains::FOOD),
        (g.travel.as_slice(), Domains::TRAVEL),
        (g.shopping.as_slice(), Domains::SHOPPING),
        (g.health_advice.as_slice(), Domains::HEALTH),
        (g.plans.as_slice(), Domains::PLANS),
    ] {
        if any(&s, cues) && (domain != Domains::PLANS || (d.is_empty() && advice)) {
            d = d.or(domain);
        }
    }
    d
}

/// The kinds of constraint `message` names (money: a budget; language: what the user speaks;
/// an allergy or an allergen, in any reader: "lunch ideas that suit my allergy", "un dessert aux
/// cacahuètes"; a diet), which go first; the others follow in the order of their scores.
pub fn order_for(message: &str) -> Vec<Label> {
    let s = spaced(message);
    let g = gathered();
    let mut order = Vec::new();
    for (cues, label) in [
        (&g.money[..], Label::Budget),
        (&g.speech[..], Label::Language),
        (&g.allergy[..], Label::Allergy),
        (&g.allergens[..], Label::Allergy),
        (&g.diet[..], Label::Diet),
    ] {
        if any(&s, cues) && !order.contains(&label) {
            order.push(label);
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(text: &str) -> Option<&'static str> {
        of_fact(text).map(|c| c.label.as_str())
    }

    /// Each message asks advice in the domains beside it.
    fn asks(cases: &[(&str, Domains)]) {
        for &(message, want) in cases {
            assert_eq!(advice_domains(message), want, "{message}");
        }
    }

    #[test]
    fn facts_that_constrain_advice() {
        for (fact, want) in [
            ("User is vegetarian", Some("diet")),
            (
                "I'm pescatarian: I eat fish but no other meat",
                Some("diet"),
            ),
            (
                "User has coeliac disease and must eat strictly gluten-free",
                Some("diet"),
            ),
            ("I've been teetotal since 2021", Some("diet")),
            ("I'm allergic to penicillin", Some("allergy")),
            ("Isla has a severe peanut allergy", Some("allergy")),
            (
                "User has mild asthma and carries an inhaler",
                Some("health"),
            ),
            ("I get seasick on big ferries", Some("health")),
            ("User uses a wheelchair", Some("accessibility")),
            (
                "User's flat is on the third floor with no lift",
                Some("accessibility"),
            ),
            (
                "User speaks English natively and conversational Spanish",
                Some("language"),
            ),
            ("User is on a tight budget this year", Some("budget")),
            ("My daughter Isla is six", Some("family")),
            (
                "User's greyhound Pilot gets anxious when left alone",
                Some("family"),
            ),
            // Not constraints: a tool, a spelling preference, a name, a hobby.
            ("User writes Go for most of their work code", None),
            ("User wants answers in British English spelling", None),
            ("My wife is Noor", None),
            ("User's daughter Isla is obsessed with dinosaurs", None),
            ("I work a four-day week; Fridays are for my daughter", None),
            ("I play bass in a covers band", None),
        ] {
            assert_eq!(label(fact), want, "{fact}");
        }
    }

    #[test]
    fn a_food_allergy_bears_on_food_a_drug_allergy_on_health_only() {
        let peanut = of_fact("Isla has a severe peanut allergy").unwrap();
        assert!(peanut.domains.meets(Domains::FOOD) && peanut.domains.meets(Domains::HEALTH));
        let drug = of_fact("I'm allergic to penicillin").unwrap();
        assert!(drug.domains.meets(Domains::HEALTH) && !drug.domains.meets(Domains::FOOD));
    }

    /// Issue #50: constraints beyond the five languages that had cues, and the pass's own
    /// English ("User does not eat pork").
    #[test]
    fn constraints_in_every_read_language() {
        for (fact, want) in [
            ("Je suis cœliaque", "diet"),
            ("User does not eat pork", "diet"),
            ("Sou vegetariana há dez anos", "diet"),
            ("Tenho alergia a amendoim", "allergy"),
            ("Ik ben allergisch voor pinda's", "allergy"),
            ("Saya alergi kacang", "allergy"),
            ("私はベジタリアンです", "diet"),
            ("私はピーナッツアレルギーです", "allergy"),
            ("저는 채식주의자예요", "diet"),
            ("저는 땅콩 알레르기가 있어요", "allergy"),
            ("我不吃肉", "diet"),
        ] {
            assert_eq!(label(fact), Some(want), "{fact}");
        }
        asks(&[
            ("Alguma ideia para o jantar?", Domains::FOOD),
            ("夕食のおすすめはありますか？", Domains::FOOD),
            ("저녁 메뉴 추천해 줄래요?", Domains::FOOD),
            ("Heb je ideeën voor het avondeten?", Domains::FOOD),
            ("Ada saran untuk makan malam?", Domains::FOOD),
        ]);
    }

    /// Issue #50: asking what to eat the way each language asks it ("what should I …", "can I
    /// eat …"), in every reader, over the meals, sweets and drinks people name; from the
    /// six-language recall set and the constraint probe (tests/data).
    #[test]
    fn advice_on_food_as_every_reader_asks_it() {
        for message in [
            "Was soll ich heute Abend kochen?",
            "Welche Snacks soll ich für die Zugfahrt einpacken?",
            "¿Me recomiendas un postre con nata?",
            "¿Qué puedo cenar esta noche?",
            "Qu'est-ce que je pourrais cuisiner ce soir ?",
            "Quel gâteau devrais-je faire pour l'anniversaire de Léa ?",
            "Cosa posso mangiare a colazione?",
            "O que posso comer no café da manhã?",
            "Wat zal ik vanavond koken?",
            "Sebaiknya sarapan apa?",
            "今天晚饭我做什么好？",
            "我可以吃麻婆豆腐吗？",
            "週末の飲み会で何を頼めばいい？",
            "朝ごはんに何を食べたらいいですか？",
            "저녁에 뭐 먹을까?",
        ] {
            assert_eq!(advice_domains(message), Domains::FOOD, "{message}");
        }
        // Questions that ask no advice, however food-like.
        for message in [
            "Combien de calories dans une banane ?",
            "Wer hat die Brezel erfunden?",
            "饺子是谁发明的？",
            "ラーメンを発明したのは誰？",
        ] {
            assert_eq!(advice_domains(message), Domains::NONE, "{message}");
        }
    }

    /// A cue is matched against a text's words as `tokens` gives them, so one written otherwise
    /// ("devrais-je", "pique-nique") could never match.
    #[test]
    fn every_constraint_cue_is_written_as_its_words() {
        for r in READERS {
            let c = &r.constraints;
            let cues = [
                c.diet,
                c.allergy,
                c.allergens,
                c.advice,
                c.food,
                c.health,
                c.health_advice,
                c.travel,
                c.languages,
                c.speaks,
                c.budget,
                c.dependents,
                c.situation,
                c.access,
                c.travel_health,
                c.shopping,
                c.plans,
                c.money,
                c.speech,
            ]
            .concat();
            for cue in cues
                .into_iter()
                .filter(|c| !c.chars().any(crate::words::is_cjk))
            {
                assert_eq!(
                    tokens(cue).join(" "),
                    cue,
                    "{}: {cue:?} is not written as its words",
                    r.lang.code()
                );
            }
        }
    }

    /// Issue #50: access needs, health that bears on travel, and asking advice on shopping or
    /// plans in every reader, as English had them (written here; XPersona's "je suis
    /// partiellement sourd", "我是有听力障碍的博物馆导游"); a Korean child's age; a Japanese recipe
    /// asked without "私に".
    #[test]
    fn access_travel_health_shopping_and_plans_in_every_reader() {
        use Domains as D;
        for fact in [
            "Je suis en fauteuil roulant depuis mon accident.",
            "je suis partiellement sourd",
            "Uso silla de ruedas.",
            "Ich bin Rollstuhlfahrerin.",
            "Ik zit in een rolstoel.",
            "Ando de cadeira de rodas.",
            "Saya pakai kursi roda.",
            "我是有听力障碍的博物馆导游。",
            "私は車椅子を使っています。",
            "저는 휠체어를 타요.",
        ] {
            assert_eq!(label(fact), Some("accessibility"), "{fact}");
        }
        for fact in [
            "J'ai le mal de mer sur les bateaux.",
            "Me mareo en los barcos.",
            "Ich werde schnell seekrank.",
            "Soffro di mal di mare.",
            "Ik ben snel zeeziek.",
            "我晕船很厉害。",
            "私は船酔いしやすいです。",
            "저는 뱃멀미가 심해요.",
        ] {
            assert_eq!(label(fact), Some("health"), "{fact}");
        }
        for fact in ["우리 딸은 다섯 살이에요.", "세 살짜리 아들이 있어요."] {
            assert_eq!(label(fact), Some("family"), "{fact}");
        }
        asks(&[
            ("Quel ordinateur devrais-je acheter ?", D::SHOPPING),
            ("¿Qué regalo debería comprar para mi madre?", D::SHOPPING),
            ("Welches Geschenk soll ich kaufen?", D::SHOPPING),
            ("我该买什么礼物？", D::SHOPPING),
            ("何を買えばいいですか？", D::SHOPPING),
            ("Des idées pour le week end ?", D::PLANS),
            ("Was soll ich am Wochenende unternehmen?", D::PLANS),
            ("周末我该做什么？", D::PLANS),
            ("カレーのレシピを教えて。", D::FOOD),
            ("コーヒーのシミの落とし方を教えてください。", D::NONE),
        ]);
    }

    /// Issue #50: a health condition, and asking about health or travel, in every reader ("Me
    /// operaron de la rodilla" bears on "¿Qué ejercicios puedo hacer en el gimnasio?"); the
    /// constraint probe and the six-language recall set.
    #[test]
    fn health_and_travel_in_every_reader() {
        for fact in [
            "Me operaron de la rodilla el año pasado.",
            "Ich habe Diabetes Typ 1.",
            "Je suis asthmatique depuis l'enfance.",
            "我有哮喘。",
            "Sono incinta di cinque mesi.",
        ] {
            assert_eq!(label(fact), Some("health"), "{fact}");
        }
        asks(&[
            (
                "¿Qué ejercicios puedo hacer en el gimnasio?",
                Domains::HEALTH,
            ),
            (
                "Welche Übungen soll ich im Fitnessstudio machen?",
                Domains::HEALTH,
            ),
            ("我应该吃什么药？", Domains::HEALTH.or(Domains::FOOD)),
            ("Wohin soll ich im Urlaub reisen?", Domains::TRAVEL),
            ("Tu me conseilles quel hôtel à Lisbonne ?", Domains::TRAVEL),
            ("周末去哪里旅行比较好？", Domains::TRAVEL),
        ]);
    }

    /// Issue #50: a language spoken, a budget and a dependent, in every reader; English words
    /// that another reader's cue spells ("spare", German's "I save") are no constraint.
    #[test]
    fn language_budget_and_family_in_every_reader() {
        for (fact, want) in [
            (
                "Estoy aprendiendo alemán porque me mudo a Múnich.",
                "language",
            ),
            ("我在学法语，明年要去巴黎读研究生。", "language"),
            ("Ich spreche fließend Englisch.", "language"),
            ("Tengo una hija de cinco años.", "family"),
            ("我女儿今年六岁。", "family"),
            ("Je suis fauchée ce mois-ci, petit budget.", "budget"),
            ("Sto risparmiando per una macchina nuova.", "budget"),
        ] {
            assert_eq!(label(fact), Some(want), "{fact}");
        }
        for fact in [
            "User has a spare room for guests",
            "Mi hijo Pablo juega al fútbol en un equipo infantil.",
        ] {
            assert_eq!(label(fact), None, "{fact}");
        }
    }

    /// A cue of one CJK letter is found inside the two-letter pieces text is cut into ("卵" in
    /// "卵ア"), and a diet said with "don't eat" or "don't drink" is one in Chinese and Japanese.
    #[test]
    fn one_letter_cues_and_diets_said_plainly() {
        let egg = of_fact("卵アレルギーがあります。").unwrap();
        assert!(egg.domains.meets(Domains::FOOD), "{egg:?}");
        for fact in [
            "お酒は飲みません。",
            "我不吃辣。",
            "肉は食べません。",
            "我不喝酒。",
        ] {
            assert_eq!(label(fact), Some("diet"), "{fact}");
        }
    }

    #[test]
    fn a_message_naming_an_allergy_or_an_allergen_puts_allergies_first() {
        for message in [
            "Give me lunch ideas that suit my allergy",
            "Tu peux me proposer un dessert aux cacahuètes ?",
            "有什么不含花生的甜点推荐吗？",
        ] {
            assert_eq!(order_for(message), vec![Label::Allergy], "{message}");
        }
        assert_eq!(order_for("Ideas for a vegan dinner?"), vec![Label::Diet]);
    }

    #[test]
    fn requests_for_advice_and_their_domains() {
        use Domains as D;
        asks(&[
            ("Any dinner ideas for tonight?", D::FOOD),
            ("What should I cook for dinner?", D::FOOD),
            ("book me a hotel in London", D::TRAVEL),
            ("which laptop should I buy?", D::SHOPPING),
            ("what cold medicine can I take?", D::HEALTH),
            ("plan a family day out for Sunday", D::PLANS),
            // A request names the advice it wants, in any reader.
            ("give me a dinner recipe", D::FOOD),
            ("Kannst du mir ein Rezept für Nusskuchen geben?", D::FOOD),
            ("Donne-moi une recette de dîner", D::FOOD),
            ("Explique-moi la photosynthèse", D::NONE),
            ("tell me a fun fact about octopuses", D::NONE),
            // Questions, not requests for advice: no domain, however food-like.
            ("how many calories are in a banana?", D::NONE),
            ("how do vaccines work?", D::NONE),
            (
                "translate 'I would like a coffee, please' into French",
                D::NONE,
            ),
            // Advice outside the constrained domains.
            ("recommend a good Python linter", D::NONE),
        ]);
    }

    #[test]
    fn a_message_naming_money_or_language_puts_that_kind_first() {
        assert_eq!(
            order_for("recommend a city break we can afford"),
            vec![Label::Budget]
        );
        assert_eq!(
            order_for("which language app for the trip?"),
            vec![Label::Language]
        );
        assert!(order_for("suggest a dinner").is_empty());
    }
}
