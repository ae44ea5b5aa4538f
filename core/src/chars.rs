//! Which characters a reader never sees: the invisible ones (Default_Ignorable_Code_Point and the
//! annotation marks), the format ones, and the two an emoji sequence needs. Storing a fact
//! removes them (`fact_text`); showing one escapes them (`printable`).

/// Characters drawn as nothing: Unicode's Default_Ignorable_Code_Point set (zero-width spaces
/// and joiners, bidi marks, embeddings, overrides and isolates, the Arabic letter mark, variation
/// selectors, the Hangul fillers, the combining grapheme joiner, tag characters, and the soft
/// hyphen), plus the interlinear annotation marks, which hide the text between them.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}'..='\u{1160}' | '\u{17B4}'..='\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
        | '\u{FFA0}' | '\u{FFF0}'..='\u{FFFB}' | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

/// Unicode's format characters (general category Cf) that [`is_invisible`] does not already
/// cover: marks such as the Arabic number sign, drawn but unusual in a fact.
pub(crate) fn is_format(c: char) -> bool {
    matches!(c,
        '\u{0600}'..='\u{0605}' | '\u{06DD}' | '\u{070F}' | '\u{0890}'..='\u{0891}'
        | '\u{08E2}' | '\u{110BD}' | '\u{110CD}' | '\u{13430}'..='\u{1343F}')
}

/// The two invisible characters an emoji sequence needs: a zero-width joiner between two emoji
/// (👩‍💻 is 👩 U+200D 💻; without it a family falls apart into its members) and one
/// VARIATION SELECTOR-16 after an emoji (❤️). Anywhere else they only hide or carry text.
pub(crate) fn kept_in_emoji(prev: Option<char>, c: char, next: Option<char>) -> bool {
    match c {
        '\u{200D}' => {
            prev.is_some_and(|p| p == '\u{FE0F}' || is_emoji(p)) && next.is_some_and(is_emoji)
        }
        '\u{FE0F}' => prev.is_some_and(is_emoji),
        _ => false,
    }
}

/// Emoji, roughly: the pictographic blocks and the older symbols that take an emoji form. A
/// character missed here only loses its joiner or selector; it stays itself.
fn is_emoji(c: char) -> bool {
    matches!(c,
        '\u{1F000}'..='\u{1FAFF}' | '\u{2600}'..='\u{27BF}' | '\u{2300}'..='\u{23FF}'
        | '\u{2B00}'..='\u{2BFF}' | '\u{2190}'..='\u{21FF}' | '\u{25A0}'..='\u{25FF}'
        | '\u{2934}' | '\u{2935}' | '\u{3030}' | '\u{303D}' | '\u{3297}' | '\u{3299}'
        | '\u{00A9}' | '\u{00AE}' | '\u{203C}' | '\u{2049}' | '\u{2122}' | '\u{2139}'
        | '\u{24C2}')
}

/// Every character issue #14 names, each alone between two letters (for the tests of the
/// rules that use these classes).
#[cfg(test)]
pub(crate) const INVISIBLE: &[(char, &str)] = &[
    ('\u{E0001}', "LANGUAGE TAG"),
    ('\u{E0020}', "TAG SPACE"),
    ('\u{E0041}', "TAG LATIN CAPITAL LETTER A"),
    ('\u{E0069}', "TAG LATIN SMALL LETTER I"),
    ('\u{E007F}', "CANCEL TAG"),
    ('\u{061C}', "ARABIC LETTER MARK"),
    ('\u{FE0F}', "VARIATION SELECTOR-16 (after a letter)"),
    ('\u{034F}', "COMBINING GRAPHEME JOINER"),
    ('\u{3164}', "HANGUL FILLER"),
    ('\u{202A}', "LEFT-TO-RIGHT EMBEDDING"),
    ('\u{202B}', "RIGHT-TO-LEFT EMBEDDING"),
    ('\u{202C}', "POP DIRECTIONAL FORMATTING"),
    ('\u{202D}', "LEFT-TO-RIGHT OVERRIDE"),
    ('\u{202E}', "RIGHT-TO-LEFT OVERRIDE"),
    ('\u{2066}', "LEFT-TO-RIGHT ISOLATE"),
    ('\u{2067}', "RIGHT-TO-LEFT ISOLATE"),
    ('\u{2068}', "FIRST STRONG ISOLATE"),
    ('\u{2069}', "POP DIRECTIONAL ISOLATE"),
    ('\u{200E}', "LEFT-TO-RIGHT MARK"),
    ('\u{200F}', "RIGHT-TO-LEFT MARK"),
    ('\u{200B}', "ZERO WIDTH SPACE"),
    ('\u{200C}', "ZERO WIDTH NON-JOINER"),
    ('\u{200D}', "ZERO WIDTH JOINER (between letters)"),
    ('\u{2060}', "WORD JOINER"),
    ('\u{FEFF}', "ZERO WIDTH NO-BREAK SPACE (BOM)"),
];
