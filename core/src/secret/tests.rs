//! The secrets table: what is a secret and what only looks like one.

use super::*;

/// Texts that hold a secret, with its kind and the text redacted.
const SECRETS: &[(&str, Secret, &str)] = &[
    (
        "My bank PIN is 4821",
        Secret::Pin,
        "My bank PIN is [secret]",
    ),
    ("my pin: 0000", Secret::Pin, "my pin: [secret]"),
    ("PIN:4821", Secret::Pin, "PIN:[secret]"),
    (
        "User's bank PIN is 4821",
        Secret::Pin,
        "User's bank PIN is [secret]",
    ),
    (
        "the PIN for my debit card is 123456",
        Secret::Pin,
        "the PIN for my debit card is [secret]",
    ),
    (
        "my pin number 9876, don't tell",
        Secret::Pin,
        "my pin number [secret], don't tell",
    ),
    (
        "my password is hunter2",
        Secret::Password,
        "my password is [secret]",
    ),
    (
        "My wifi password is sunshine99!",
        Secret::Password,
        "My wifi password is [secret]!",
    ),
    (
        "password: Tr0ub4dor&3",
        Secret::Password,
        "password: [secret]",
    ),
    (
        "my password for gmail is correcthorse",
        Secret::Password,
        "my password for gmail is [secret]",
    ),
    (
        "the code to my door is 1234",
        Secret::Passcode,
        "the code to my door is [secret]",
    ),
    (
        "The garage code is 4455.",
        Secret::Passcode,
        "The garage code is [secret].",
    ),
    (
        "my alarm code 908172",
        Secret::Passcode,
        "my alarm code [secret]",
    ),
    (
        "my iPhone passcode is 112233",
        Secret::Passcode,
        "my iPhone passcode is [secret]",
    ),
    (
        "the combination to my safe is 36-24-36",
        Secret::Passcode,
        "the combination to my safe is [secret]",
    ),
    (
        "My OpenAI key is sk-proj-Ab12Cd34Ef56Gh78Ij90KlMn",
        Secret::ApiKey,
        "My OpenAI key is [secret]",
    ),
    (
        "use sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3",
        Secret::ApiKey,
        "use [secret]",
    ),
    (
        "AWS AKIAIOSFODNN7EXAMPLE works",
        Secret::ApiKey,
        "AWS [secret] works",
    ),
    (
        "my github token ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        Secret::Token,
        "my github token [secret]",
    ),
    (
        "slack xoxb-2048-1234-abcdefABCDEF",
        Secret::Token,
        "slack [secret]",
    ),
    (
        "the api key is 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
        Secret::ApiKey,
        "the api key is [secret]",
    ),
    (
        "my token=Q2hhbmdlTWUxMjM0NTY3ODkw",
        Secret::Token,
        "my token=[secret]",
    ),
    (
        "client secret: A1b2C3d4E5f6G7h8I9j0",
        Secret::ApiKey,
        "client secret: [secret]",
    ),
    (
        "my card is 4111 1111 1111 1111",
        Secret::CardNumber,
        "my card is [secret]",
    ),
    (
        "card 5500-0000-0000-0004 exp 12/28",
        Secret::CardNumber,
        "card [secret] exp 12/28",
    ),
    ("4012888888881881", Secret::CardNumber, "[secret]"),
    ("the CVV is 123", Secret::Cvv, "the CVV is [secret]"),
    (
        "my account number is 12345678",
        Secret::AccountNumber,
        "my account number is [secret]",
    ),
    (
        "bank account 0123 4567 89",
        Secret::AccountNumber,
        "bank account [secret]",
    ),
    (
        "routing number 021000021",
        Secret::RoutingNumber,
        "routing number [secret]",
    ),
    (
        "my sort code is 12-34-56",
        Secret::RoutingNumber,
        "my sort code is [secret]",
    ),
    (
        "my IBAN is DE89 3704 0044 0532 0130 00",
        Secret::Iban,
        "my IBAN is [secret]",
    ),
    ("GB82WEST12345698765432", Secret::Iban, "[secret]"),
    ("my SSN is 123-45-6789", Secret::Ssn, "my SSN is [secret]"),
    (
        "social security number 123456789",
        Secret::Ssn,
        "social security number [secret]",
    ),
    (
        "my security answer is Fluffy",
        Secret::SecurityAnswer,
        "my security answer is [secret]",
    ),
    (
        "the answer to my security question is Springfield",
        Secret::SecurityAnswer,
        "the answer to my security question is [secret]",
    ),
    // The phrasings users write: a password with nothing before it, a PIN in words, the
    // classic security questions, a login pair, recovery codes and seed phrases.
    ("Password hunter2", Secret::Password, "Password [secret]"),
    (
        "my password hunter2",
        Secret::Password,
        "my password [secret]",
    ),
    (
        "my gmail password Tr0ub4dor&3 since May",
        Secret::Password,
        "my gmail password [secret] since May",
    ),
    ("pw: correcthorse", Secret::Password, "pw: [secret]"),
    (
        "My PIN is four eight two one",
        Secret::Pin,
        "My PIN is [secret]",
    ),
    (
        "my card pin is double seven eight one",
        Secret::Pin,
        "my card pin is [secret]",
    ),
    (
        "I bank with Monzo, PIN 7781",
        Secret::Pin,
        "I bank with Monzo, PIN [secret]",
    ),
    (
        "The garage code is four four five five.",
        Secret::Passcode,
        "The garage code is [secret].",
    ),
    ("gate code #2580", Secret::Passcode, "gate code #[secret]"),
    (
        "My mother's maiden name is Smith",
        Secret::SecurityAnswer,
        "My mother's maiden name is [secret]",
    ),
    (
        "Mum’s maiden name: Okafor",
        Secret::SecurityAnswer,
        "Mum’s maiden name: [secret]",
    ),
    (
        "My first pet's name was Fluffy, that's my security answer",
        Secret::SecurityAnswer,
        "My first pet's name was [secret], that's my security answer",
    ),
    (
        "Elm Street is my security answer",
        Secret::SecurityAnswer,
        "[secret] is my security answer",
    ),
    (
        "the street I grew up on was Maple (security question for the bank)",
        Secret::SecurityAnswer,
        "the street I grew up on was [secret] (security question for the bank)",
    ),
    (
        "my security answer is New York, for every bank",
        Secret::SecurityAnswer,
        "my security answer is [secret], for every bank",
    ),
    (
        "my memorable word is rainbow",
        Secret::SecurityAnswer,
        "my memorable word is [secret]",
    ),
    (
        "My Netflix login is bob@example.com / Hunter2!",
        Secret::Password,
        "My Netflix login is bob@example.com / [secret]!",
    ),
    (
        "work credentials: jsmith / Spring2024",
        Secret::Password,
        "work credentials: jsmith / [secret]",
    ),
    (
        "bob@example.com:Hunter2 for the router",
        Secret::Password,
        "bob@example.com:[secret] for the router",
    ),
    (
        "the wifi key is blue-Falcon-77",
        Secret::Password,
        "the wifi key is [secret]",
    ),
    (
        "Wi-Fi password: sunshine",
        Secret::Password,
        "Wi-Fi password: [secret]",
    ),
    (
        "my 2FA backup codes are 8841-2290 and 1172-5530",
        Secret::RecoveryCode,
        "my 2FA backup codes are [secret]",
    ),
    (
        "GitHub recovery code: a1b2c-3d4e5",
        Secret::RecoveryCode,
        "GitHub recovery code: [secret]",
    ),
    (
        "my seed phrase is abandon ability able about above absent absorb abstract",
        Secret::SeedPhrase,
        "my seed phrase is [secret]",
    ),
    (
        "the alarm code is 1 9 8 4",
        Secret::Passcode,
        "the alarm code is [secret]",
    ),
];

/// Texts that hold no secret, though they have numbers or the words secrets are named by.
const NOT_SECRETS: &[&str] = &[
    "I have 2 kids",
    "I was born in 1984",
    "my phone is a Pixel 8",
    "I run 5k in 25 minutes",
    "I pinned the post",
    "my key takeaway is to sleep more",
    "I code in Python 3.12",
    "my zip code is 90210",
    "the area code is 415",
    "my discount code is SAVE20",
    "I forgot my password",
    "I need to reset my password for the website",
    "my password is too long",
    "my password manager is great",
    "my PIN is the same as my old one",
    "I changed my PIN 3 times",
    "the secret to good bread is time",
    "I found a token from the arcade",
    "the key to my car is lost",
    "my phone number is 555-123-4567",
    "call me at +1 415 555 0134",
    "I moved in on 2026-11-30",
    "my Netflix account is shared with 3 people",
    "I've had my bank account for 10 years",
    "I ran a marathon in 3:45:10",
    "I earn 85000 a year",
    "my order number is 1234567890123",
    "commit 9f8e7d6c5b4a39281706f5e4d3c2b1a0 fixed it",
    "I keep a pin collection of 40 pins",
    "I like sk-8 boarding",
    "my favourite team is the 49ers",
    "I lived at 221B Baker Street",
    "my number is 4111 1111 1111 1112",
    // Near misses: about a secret, without its value.
    "my password manager is Bitwarden",
    "I changed my PIN yesterday",
    "I forgot my password again",
    "I use 1Password",
    "I changed my password 2 times this year",
    "my password hint is my dog",
    // A mother's name is not her maiden name; nor is a user's own maiden name a security answer.
    "my mother's name is Anna",
    "my maiden name is Jones",
    // A first pet, school or street is a personal fact unless stated as a security answer.
    "my first pet was a hamster",
    "my first pet's name was Fluffy",
    "I grew up on Maple Street",
    "my security question is my first pet's name",
    "I hate security questions, they are useless",
    "I forgot the answer to my security question",
    "my login is my email address",
    "my username is bob_smith",
    "email me at bob@example.com / I reply fast",
    "I wrote my seed phrase on paper",
    "my seed phrase is stored in a steel plate",
    "I keep 10 backup codes in a drawer",
    "the door code changed last week",
    "my PIN is one I never share",
    "the alarm code is four digits long",
    "I set up 2FA on my bank account",
    "the wifi is slow in the kitchen",
    "write to [events@example.com](mailto:events@example.com) for a table",
    "my Netflix login is https://netflix.com/login",
    "My Wi-Fi password is printed on the router",
    "my password is taped under the keyboard",
];

#[test]
fn secrets_are_found_and_redacted() {
    for (text, kind, redacted) in SECRETS {
        assert_eq!(find(text), Some(*kind), "{text}");
        assert_eq!(redact(text), *redacted, "{text}");
        assert_eq!(find(&redact(text)), None, "redacted {text}");
    }
}

#[test]
fn look_alikes_are_not_secrets() {
    for text in NOT_SECRETS {
        assert_eq!(find_all(text), Vec::new(), "{text}");
        assert_eq!(redact(text), *text);
    }
}

#[test]
fn every_kind_reads_as_a_noun_phrase() {
    for (_, kind, _) in SECRETS {
        let s = kind.as_str();
        assert!(s.starts_with("a ") || s.starts_with("an "), "{s}");
    }
}

/// Secrets in the read languages, beyond English, and in scripts memory does not read: each is
/// found, and its value is gone from the redacted text. From issue #50's sessions (the first of
/// each language) and written here.
const SECRETS_IN_ANY_LANGUAGE: &[(&str, &str)] = &[
    // English phrasings the English rules missed.
    ("my online banking password's Thistle2026", "Thistle2026"),
    ("My PIN's 4821", "4821"),
    ("the code for my bike lock is 4821", "4821"),
    (
        "the wifi password is on the fridge: sunshine88",
        "sunshine88",
    ),
    // A value in quotes: the pass keeps a quoted title now, so a quoted value must be found.
    ("my email password is \"Girasol2024\"", "Girasol2024"),
    ("the code for the front door is \"4821\"", "4821"),
    (
        "I set my laptop password to \"kotaro2019\" yesterday",
        "kotaro2019",
    ),
    // Spanish
    ("mi contraseña del correo es Girasol2024", "Girasol2024"),
    ("Mi clave del banco es 5521", "5521"),
    ("El PIN de mi tarjeta es 4821", "4821"),
    ("la contraseña del wifi: casaverde77", "casaverde77"),
    ("El código de la puerta es 1357", "1357"),
    // German
    ("Meine Geheimzahl für die EC-Karte ist 7391", "7391"),
    ("Mein Passwort ist Sonnenblume99", "Sonnenblume99"),
    ("Das WLAN-Passwort lautet bergsee2020", "bergsee2020"),
    ("Mein Kennwort: Apfelbaum", "Apfelbaum"),
    ("Der Türcode ist 2468", "2468"),
    // French
    ("Mon mot de passe Netflix c'est praline2015", "praline2015"),
    ("Le digicode de l'immeuble est 4B12", "4B12"),
    ("Mon code PIN est 1987", "1987"),
    ("mon mdp gmail: chaton42", "chaton42"),
    // Italian, Portuguese, Dutch, Indonesian
    ("La mia password della banca è Girasole88", "Girasole88"),
    ("Il codice pin del bancomat è 6677", "6677"),
    ("A minha senha do banco é lua2023x", "lua2023x"),
    ("Minha senha: 907312", "907312"),
    ("Mijn wachtwoord is tulp1234", "tulp1234"),
    ("Mijn pincode is 8080", "8080"),
    ("Kata sandi email saya adalah melati99", "melati99"),
    ("PIN ATM saya 445566", "445566"),
    // Chinese, Japanese, Korean
    ("我的银行卡密码是384756", "384756"),
    ("我的微信密码是 panda2024", "panda2024"),
    ("私のパスワードはkotaro2019です", "kotaro2019"),
    ("暗証番号は4821です", "4821"),
    ("제 비밀번호는 nabi1234예요", "nabi1234"),
    ("카드 비번은 9087이에요", "9087"),
    // Scripts and languages memory does not read.
    ("Мой пароль от почты: solnce2024", "solnce2024"),
    ("Пин-код моей карты 4821", "4821"),
    ("मेरा पासवर्ड tara1234 है", "tara1234"),
    ("كلمة المرور الخاصة بي هي Qamar2020", "Qamar2020"),
    ("הסיסמה שלי היא shemesh77", "shemesh77"),
    ("Ο κωδικός μου είναι ilios2021", "ilios2021"),
    ("รหัสผ่านของฉันคือ mali2024", "mali2024"),
    ("Mật khẩu của tôi là hoa12345", "hoa12345"),
    ("Şifrem kedi1234", "kedi1234"),
    ("Moje hasło to kwiatek77", "kwiatek77"),
    ("Mitt lösenord är sommar2022", "sommar2022"),
];

/// Texts in those languages that name a secret without giving it, or say a number that is not
/// one.
const NOT_SECRETS_IN_ANY_LANGUAGE: &[&str] = &[
    "Olvidé mi contraseña otra vez",
    "Mi contraseña tiene 12 caracteres",
    "Mein Passwort ist seit 2019 dasselbe",
    "Ich habe mein Passwort am 12.03.2024 geändert",
    "J'utilise un gestionnaire de mots de passe",
    "我忘记了密码",
    "パスワードを変更しました",
    "비밀번호를 잊어버렸어요",
    "Я забыл пароль",
    "Tengo 3 gatos y vivo en Bilbao desde 2019",
    "Ich wohne in der Hauptstraße 12 in Bremen",
    "我有两只狗，住在上海",
    "My password manager is 1Password",
    "Le code de la route a 500 articles",
    "Der Code der Software hat 3500 Zeilen",
    "Mi código postal es 48001",
    "El código del proyecto tiene 1200 líneas",
    // "pin" inside a word of any language is no name ("helping … 500 books", LongMemEval).
    "helping to sort and pack over 500 books for underprivileged kids",
    "私はspinning 2000回やった",
];

#[test]
fn secrets_in_any_language_are_found_and_redacted() {
    for (text, value) in SECRETS_IN_ANY_LANGUAGE {
        assert!(find(text).is_some(), "not found: {text}");
        let redacted = redact(text);
        assert!(!redacted.contains(value), "{text} → {redacted}");
        assert!(redacted.contains(REDACTED), "{text} → {redacted}");
        assert_eq!(find(&redacted), None, "{text} → {redacted}");
    }
}

#[test]
fn look_alikes_in_any_language_are_not_secrets() {
    for text in NOT_SECRETS_IN_ANY_LANGUAGE {
        assert_eq!(find_all(text), Vec::new(), "{text}");
    }
}

/// The probe of issue #50: 20 phrasings of a secret in each read language and 22 in languages
/// memory does not read (`phrasings.tsv`, written after the detector, as a user types them):
/// every one is found.
#[test]
fn every_phrasing_of_the_probe_is_a_secret() {
    let missed: Vec<&str> = include_str!("phrasings.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t').map(|(_, text)| text))
        .filter(|text| find(text).is_none())
        .collect();
    assert!(missed.is_empty(), "{} missed: {missed:#?}", missed.len());
}
