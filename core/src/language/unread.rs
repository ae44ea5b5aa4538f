//! The names of a secret in languages memory does not read: their text is never kept as a
//! fact, but `memory add`, the API and MCP store what the user types, so a password named in
//! Russian, Hindi or Thai is refused there as one named in a read language is
//! (`crate::secret`). Matched anywhere (these languages inflect: "пароля", "şifrem").

/// A name of a secret in a script or language no reader reads, lower-case.
pub const SECRET_NAMES: &[&str] = &[
    // Russian, Ukrainian, Bulgarian, Serbian
    "пароль",
    "пароля",
    "пин-код",
    "пинкод",
    "пин код",
    "код доступа",
    "код от",
    "лозинка",
    // Greek
    "κωδικός",
    "κωδικό",
    "συνθηματικό",
    // Hebrew
    "סיסמה",
    "סיסמא",
    "קוד סודי",
    // Arabic, Persian, Urdu
    "كلمة المرور",
    "كلمة السر",
    "الرقم السري",
    "رمز المرور",
    "رمز عبور",
    "گذرواژه",
    "پاس ورڈ",
    // Hindi, Bengali, Tamil, Telugu, Marathi
    "पासवर्ड",
    "पिन",
    "कूटशब्द",
    "পাসওয়ার্ড",
    "கடவுச்சொல்",
    "పాస్‌వర్డ్",
    // Thai, Vietnamese
    "รหัสผ่าน",
    "รหัส",
    "mật khẩu",
    "mã pin",
    // Turkish, Polish, Czech, Slovak, Hungarian, Romanian
    "şifre",
    "sifre",
    "parola",
    "hasło",
    "haslo",
    "heslo",
    "jelszó",
    "jelszo",
    "parolă",
    // Swedish, Danish, Norwegian, Finnish, Estonian
    "lösenord",
    "adgangskode",
    "passord",
    "salasana",
    "tunnuskoodi",
    "parool",
    // Swahili, Tagalog, Malay
    "nenosiri",
    "kata laluan",
];
