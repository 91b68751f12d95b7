//! Account names: what a name may be, and the names nobody may take.

/// The fewest characters in a name.
pub const MIN_NAME: usize = 3;
/// The most characters in a name.
pub const MAX_NAME: usize = 20;

/// Names (in lower case) that no account may take: the site's own words,
/// the roles of a table and the computer's names. A name that begins with
/// `computer`, `level` or `bot` is refused too.
const RESERVED: &[&str] = &[
    "admin",
    "administrator",
    "anonymous",
    "api",
    "baghchal",
    "bagh-chal",
    "guest",
    "help",
    "host",
    "lobby",
    "me",
    "moderator",
    "null",
    "owner",
    "root",
    "spectator",
    "staff",
    "support",
    "system",
    "tv",
];

/// Prefixes (in lower case) no name may start with.
const RESERVED_PREFIXES: &[&str] = &["computer", "level", "bot"];

/// A checked account name, and its key: the name in lower case, which is
/// what makes two names the same.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AccountName {
    name: String,
    key: String,
}

impl AccountName {
    /// Checks `text`: 3 to 20 characters among the ASCII letters, digits,
    /// `_` and `-`, starting with a letter or a digit, and not reserved.
    ///
    /// ```
    /// use baghchal_server::identity::names::AccountName;
    /// assert_eq!(AccountName::parse("Tiger_Lily").unwrap().key(), "tiger_lily");
    /// assert!(AccountName::parse("ab").is_err());
    /// assert!(AccountName::parse("Admin").is_err());
    /// assert!(AccountName::parse("Computer1200").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<AccountName, &'static str> {
        let count = text.chars().count();
        if !(MIN_NAME..=MAX_NAME).contains(&count) {
            return Err("a name has 3 to 20 characters");
        }
        if !text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err("a name has only letters a-z, digits, _ and -");
        }
        if !text.as_bytes()[0].is_ascii_alphanumeric() {
            return Err("a name starts with a letter or a digit");
        }
        let key = text.to_ascii_lowercase();
        if RESERVED.contains(&key.as_str()) || RESERVED_PREFIXES.iter().any(|p| key.starts_with(p))
        {
            return Err("this name is reserved");
        }
        Ok(AccountName {
            name: text.to_owned(),
            key,
        })
    }

    /// The name as its owner wrote it.
    pub fn as_str(&self) -> &str {
        &self.name
    }

    /// The name in lower case.
    pub fn key(&self) -> &str {
        &self.key
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_differing_only_in_case_have_one_key() {
        let a = AccountName::parse("GoatHerd").unwrap();
        let b = AccountName::parse("goatherd").unwrap();
        assert_eq!(a.key(), b.key());
        assert_eq!(a.as_str(), "GoatHerd");
    }

    #[test]
    fn names_outside_the_documented_set_are_refused() {
        for bad in [
            "",
            "ab",
            "abcdefghijklmnopqrstu",
            "with space",
            "naïve",
            "_lead",
            "-lead",
            "a.b.c",
            "SYSTEM",
            "bot_fan",
            "level1200",
            "Computer",
        ] {
            assert!(AccountName::parse(bad).is_err(), "{bad:?} was accepted");
        }
        for good in ["abc", "a-b_c", "Goat42", "2tigers", "abcdefghijklmnopqrst"] {
            assert!(AccountName::parse(good).is_ok(), "{good:?} was refused");
        }
    }
}
