//! Dutch, as memory reads it.

use super::Lang;
use super::reader::{Reader, Times, Unsaid};

pub const READER: Reader = Reader {
    lang: Lang::Dutch,
    first_person: &["ik", "mijn", "me", "mij"],
    first_person_openings: &[],
    unsaid_subject: Unsaid::Said,
    you: &["jij", "jou", "jouw", "u", "uw", "jullie"],
    listener_openers: &["weet je", "weet je wat", "moet je horen", "ik zeg je"],
    passing: &[
        "vandaag",
        "vanavond",
        "ik begrijp",
        "het spijt me",
        "klinkt",
        "gaat goed",
        "moe",
        "doodmoe",
        "verdrietig",
        "blij",
        "gelukkig",
        "gestrest",
        "ziek",
        "haha",
        "dank je",
        "bedankt",
        "hallo",
        "leuk",
        "welterusten",
    ],
    grammar: &[
        "de", "het", "een", "en", "of", "ik", "jij", "je", "hij", "zij", "ze", "wij", "we",
        "jullie", "mij", "me", "mijn", "jouw", "zijn", "ons", "onze", "is", "ben", "bent", "was",
        "waren", "heb", "hebt", "heeft", "hebben", "had", "niet", "geen", "ook", "nog", "al",
        "heel", "zo", "wat", "wie", "waar", "wanneer", "waarom", "welke", "hoe", "in", "op", "aan",
        "bij", "met", "van", "voor", "naar", "uit", "om", "te", "dat", "die", "deze", "dit", "er",
    ],
    secret_names: &[
        "wachtwoord",
        "wachtwoorden",
        "pincode",
        "pin",
        "toegangscode",
        "deurcode",
        "wifi-code",
    ],
    times: Times {
        days: &[
            ("vandaag", 0),
            ("vanavond", 0),
            ("morgen", 1),
            ("overmorgen", 2),
        ],
        weeks: &[("deze week", 0), ("volgende week", 1), ("komende week", 1)],
        weekdays: [
            &["maandag"],
            &["dinsdag"],
            &["woensdag"],
            &["donderdag"],
            &["vrijdag"],
            &["zaterdag"],
            &["zondag"],
        ],
        habits: &["elke", "iedere", "altijd", "meestal"],
    },
};
