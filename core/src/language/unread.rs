//! The names of a secret in languages memory does not read: their text is never kept as a
//! fact, but `memory add`, the API and MCP store what the user types, so a password named in
//! Russian, Hindi or Thai is refused there as one named in a read language is
//! (`crate::secret`). Matched anywhere (these languages inflect: "пароля", "şifrem").

use super::reader::Named;

/// A name of a secret in a script or language no reader reads, lower-case, with what it names.
pub const SECRET_NAMES: &[(&str, Named)] = &[
    // Russian, Ukrainian, Bulgarian, Serbian
    ("пароль", Named::Password),
    ("пароля", Named::Password),
    ("пин-код", Named::Code),
    ("пинкод", Named::Code),
    ("пин код", Named::Code),
    ("код доступа", Named::Code),
    ("код от", Named::Code),
    ("лозинка", Named::Password),
    // Greek
    ("κωδικός", Named::Password),
    ("κωδικό", Named::Password),
    ("συνθηματικό", Named::Password),
    // Hebrew
    ("סיסמה", Named::Password),
    ("סיסמא", Named::Password),
    ("קוד סודי", Named::Password),
    // Arabic, Persian, Urdu
    ("كلمة المرور", Named::Password),
    ("كلمة السر", Named::Password),
    ("الرقم السري", Named::Password),
    ("رمز المرور", Named::Password),
    ("رمز عبور", Named::Password),
    ("گذرواژه", Named::Password),
    ("پاس ورڈ", Named::Password),
    // Hindi, Bengali, Tamil, Telugu, Marathi
    ("पासवर्ड", Named::Password),
    ("पिन", Named::Password),
    ("कूटशब्द", Named::Password),
    ("পাসওয়ার্ড", Named::Password),
    ("கடவுச்சொல்", Named::Password),
    ("పాస్‌వర్డ్", Named::Password),
    ("పాస్వర్డ్", Named::Password),
    // Sinhala
    ("මුරපදය", Named::Password),
    // Georgian, Armenian (the stems: "პაროლია", "գաղտնաբառը")
    ("პაროლ", Named::Password),
    ("გასაღებ", Named::Password),
    ("գաղտնաբառ", Named::Password),
    // Amharic ("የይለፍ ቃል", "የይለፍ ቃሌ": my password)
    ("የይለፍ ቃ", Named::Password),
    // Khmer
    ("ពាក្យសម្ងាត់", Named::Password),
    // Thai, Vietnamese
    ("รหัสผ่าน", Named::Password),
    ("รหัส", Named::Password),
    ("mật khẩu", Named::Password),
    ("mã pin", Named::Pin),
    // Turkish, Polish, Czech, Slovak, Hungarian, Romanian
    ("şifre", Named::Password),
    ("sifre", Named::Password),
    ("parola", Named::Password),
    ("hasło", Named::Password),
    ("haslo", Named::Password),
    ("heslo", Named::Password),
    ("jelszó", Named::Password),
    ("jelszo", Named::Password),
    ("parolă", Named::Password),
    // Swedish, Danish, Norwegian, Finnish, Estonian
    ("lösenord", Named::Password),
    ("adgangskode", Named::Code),
    ("passord", Named::Password),
    ("salasana", Named::Password),
    ("tunnuskoodi", Named::Password),
    ("parool", Named::Password),
    // Swahili, Tagalog, Malay
    ("nenosiri", Named::Password),
    ("kata laluan", Named::Password),
];

/// Words that link a secret's name to its value in those languages ("Мой пароль это …").
pub const SECRET_LINKS: &[&str] = &["это"];
